import CofferCrypto

/// What the format layer throws: reading, verifying and opening a vault file's bytes,
/// and writing them. Layers above see it only through ``CofferError/init(_:)-(FormatError)``,
/// the one conversion (``formatCall(_:)`` wraps a call), or switch on it where a format
/// outcome matters.
///
/// Readers report what is wrong with the bytes (`notACofferFile` … `wrongRawKey`).
/// Writers (`EntryRecord.seal`, `KeySlotRecord.make`, `VaultFile.encode`, `VaultKeys`)
/// throw the same type, with the argument cases (`invalidItem`, `invalidKey`,
/// `invalidArgument`, `slotUnavailable`): one error type per layer, so a function that
/// both reads and writes (a save re-seals records it parsed) needs no second conversion.
/// A failure of the crypto layer below (guarded memory, libsodium, the KDF) passes
/// through unchanged as ``crypto(_:)``.
///
/// Like ``CofferError``, no case carries a secret: the strings name structures and
/// parameters.
package enum FormatError: Error, Sendable, Equatable {
    /// The bytes do not start with Coffer's magic.
    case notACofferFile
    /// A Coffer file of a version this library does not read.
    case unsupportedVersion(UInt16)
    /// The bytes end before the named structure is complete.
    case truncated(String)
    /// The named structure is not encoded as SPEC.md requires.
    case malformed(String)
    /// Authentication of a part failed: it was modified or corrupted.
    case tampered(TamperedPart)
    /// A key slot's Argon2id parameters (read, or asked for by a writer) are outside SPEC.md §9.
    case kdfParametersOutOfBounds(String)
    /// No password slot opens with the password.
    case wrongPassword
    /// No key-file slot opens with the key file (alone or with the password).
    case wrongKeyFile
    /// No raw-key slot opens with the raw key.
    case wrongRawKey
    /// No recipient slot opens with the identity (SPEC.md §4.11).
    case wrongIdentity
    /// Writing: an item that cannot be written (too large, dates out of range).
    case invalidItem(String)
    /// Writing: the vault's data reached a bound of the format that no request of the
    /// caller's exceeded (an item's merge metadata naming more writers than it can hold).
    case limitReached(String)
    /// A key of the wrong length, an empty key file.
    case invalidKey(String)
    /// Writing: an argument outside its domain (duplicate record ids, a header over 64 KiB).
    case invalidArgument(String)
    /// Writing: a header without 1 to 32 key slots.
    case slotUnavailable(String)
    /// The crypto layer failed (guarded memory, libsodium, the KDF); passed through as is.
    case crypto(CofferError)
}

extension FormatError {
    /// A crypto-layer error seen while reading: a malformed padding or out-of-bounds KDF
    /// parameters are the file's fault and become this layer's cases; anything else
    /// passes through as ``crypto(_:)``.
    init(reading error: CofferError) {
        switch error.kind {
        case .malformed: self = .malformed(error.detail ?? "")
        case .kdfParametersOutOfBounds: self = .kdfParametersOutOfBounds(error.detail ?? "")
        default: self = .crypto(error)
        }
    }
}

/// Runs a crypto-layer call inside the format layer, wrapping its error as
/// ``FormatError/crypto(_:)``. The closure is not escaping: no allocation.
@inline(__always)
func crypto<R>(_ body: () throws(CofferError) -> R) throws(FormatError) -> R {
    do {
        return try body()
    } catch {
        throw .crypto(error)
    }
}

extension CofferError {
    /// The format layer's errors as the public error: the one place they are converted.
    /// Kinds, details and values are those the format layer threw as ``CofferError``
    /// before it had its own error, so messages do not change.
    package init(_ error: FormatError) {
        switch error {
        case .notACofferFile: self = .notACofferFile
        case .unsupportedVersion(let version): self = .unsupportedVersion(version)
        case .truncated(let structure): self = .truncated(structure)
        case .malformed(let structure): self = .malformed(structure)
        case .tampered(let part): self = .tampered(part)
        case .kdfParametersOutOfBounds(let why): self = .kdfParametersOutOfBounds(why)
        case .wrongPassword: self = .wrongPassword
        case .wrongKeyFile: self = .wrongKeyFile
        case .wrongRawKey: self = .wrongRawKey
        case .wrongIdentity: self = .wrongIdentity
        case .invalidItem(let why): self = .invalidItem(why)
        case .limitReached(let why): self = CofferError(Kind.formatLimit, detail: why)
        case .invalidKey(let why): self = .invalidKey(why)
        case .invalidArgument(let why): self = .invalidArgument(why)
        case .slotUnavailable(let why): self = .slotUnavailable(why)
        case .crypto(let error): self = error
        }
    }
}

/// Runs a format call for a layer above, converting its error to ``CofferError``.
@inline(__always)
package func formatCall<R>(_ body: () throws(FormatError) -> R) throws(CofferError) -> R {
    do {
        return try body()
    } catch {
        throw CofferError(error)
    }
}
