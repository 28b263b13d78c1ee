import CofferCrypto
/// The vault key and the purpose-bound subkeys derived from it (SPEC.md §5).
///
/// Held only while a vault is unlocked; dropping the last reference wipes them all.
package final class VaultKeys: Sendable {
    package let vaultKey: SecureBytes
    let headerKey: SecureBytes
    let manifestKey: SecureBytes
    let overviewKey: SecureBytes
    let secretKey: SecureBytes

    package init(vaultKey: SecureBytes) throws(CofferError) {
        guard vaultKey.count == FormatV1.keyLength else { throw .invalidKey("vault key must be 32 bytes") }
        self.vaultKey = vaultKey
        headerKey = try SubkeyDerivation.derive(from: vaultKey, context: FormatV1.headerKeyContext)
        manifestKey = try SubkeyDerivation.derive(from: vaultKey, context: FormatV1.manifestKeyContext)
        overviewKey = try SubkeyDerivation.derive(from: vaultKey, context: FormatV1.overviewKeyContext)
        secretKey = try SubkeyDerivation.derive(from: vaultKey, context: FormatV1.secretKeyContext)
    }
}
