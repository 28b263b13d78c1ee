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

    package init(vaultKey: SecureBytes) throws(FormatError) {
        guard vaultKey.count == FormatV1.keyLength else { throw .invalidKey("vault key must be 32 bytes") }
        self.vaultKey = vaultKey
        func derive(_ context: String) throws(FormatError) -> SecureBytes {
            try crypto { () throws(CofferError) in try SubkeyDerivation.derive(from: vaultKey, context: context) }
        }
        headerKey = try derive(FormatV1.headerKeyContext)
        manifestKey = try derive(FormatV1.manifestKeyContext)
        overviewKey = try derive(FormatV1.overviewKeyContext)
        secretKey = try derive(FormatV1.secretKeyContext)
    }
}
