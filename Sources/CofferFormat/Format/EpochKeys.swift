import CofferCrypto

/// One epoch key of a format-2 vault and the keys derived from it (SPEC.md §5).
///
/// An epoch key replaces format 1's single vault key: a rotation draws a new one, and the
/// file is sealed under the current one only. Its **epoch id** (the first 16 bytes of its
/// `coffer.v2.epoch` subkey) is written in the header as a commitment: a key a slot
/// unwraps must have it. Held only while a vault is unlocked; the last reference wipes all.
///
/// ```swift
/// let keys = try EpochKeys(epochKey: try entropy.secureBytes(32))
/// keys.epochID          // 16 bytes, public
/// ```
package final class EpochKeys: Sendable {
    package let epochKey: SecureBytes
    /// The commitment to ``epochKey`` in the header.
    package let epochID: [UInt8]
    let headerKey: SecureBytes
    let manifestKey: SecureBytes
    package let overviewKey: SecureBytes
    package let secretKey: SecureBytes
    let keyHistoryKey: SecureBytes
    package let lookupKey: SecureBytes

    package init(epochKey: SecureBytes) throws(FormatError) {
        guard epochKey.count == FormatV1.keyLength else { throw .invalidKey("an epoch key is 32 bytes") }
        self.epochKey = epochKey
        func derive(_ context: String) throws(FormatError) -> SecureBytes {
            try crypto { () throws(CofferError) in try SubkeyDerivation.derive(from: epochKey, context: context) }
        }
        epochID = try Self.epochID(of: epochKey)
        headerKey = try derive(FormatV2.headerKeyContext)
        manifestKey = try derive(FormatV2.manifestKeyContext)
        overviewKey = try derive(FormatV2.overviewKeyContext)
        secretKey = try derive(FormatV2.secretKeyContext)
        keyHistoryKey = try derive(FormatV2.keyHistoryKeyContext)
        lookupKey = try derive(FormatV2.lookupKeyContext)
    }

    /// The first 16 bytes of `BLAKE2b-256(key = epoch key, "coffer.v2.epoch" || 0x00)`.
    package static func epochID(of epochKey: SecureBytes) throws(FormatError) -> [UInt8] {
        let subkey = try crypto { () throws(CofferError) in try SubkeyDerivation.derive(from: epochKey, context: FormatV2.epochIDContext) }
        return subkey.withUnsafeBytes { Array($0.prefix(FormatV2.epochIDLength)) }
    }
}
