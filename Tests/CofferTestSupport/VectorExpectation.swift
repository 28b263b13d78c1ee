import Foundation
import CofferCrypto
import CofferFormat
import CofferVault

/// The `expect:` classes of a vector file (SPEC.md §15.1).
package enum VectorExpectation: String, CaseIterable, Sendable {
    case success = "success"
    case wrongPassword = "wrong password"
    case wrongKey = "wrong key"
    case headerFailure = "header failure"
    case entryFailure = "entry failure"
    case manifestFailure = "manifest failure"
    case truncated = "truncated"
    case unsupportedVersion = "unsupported version"
    case malformed = "malformed"
    case kdfOutOfBounds = "kdf out of bounds"
    case notACofferFile = "not a coffer file"
    /// Merges only (`merge-refused:`): the merged header would break a bound of SPEC.md §17.4
    /// (no key slot, more than 32, more removed slots than a writer keeps).
    case slotLimit = "slot limit"
    /// Merges only (`merge-refused:`): the copy is under an epoch the merge may not take
    /// (SPEC.md §17.8: a successor without the vault's slot, or an epoch sharing none of its lineage).
    case otherEpoch = "other epoch"

    /// The class of a reading error; nil for errors that are not a property of the file.
    package init?(error: CofferError) {
        switch error.kind {
        case .wrongPassword: self = .wrongPassword
        case .wrongKeyFile, .wrongRawKey, .wrongIdentity: self = .wrongKey
        case .tampered:
            switch error.tamperedPart {
            case .header?: self = .headerFailure
            case .entry?: self = .entryFailure
            case .manifest?: self = .manifestFailure
            case nil: return nil
            }
        case .truncated: self = .truncated
        case .unsupportedVersion: self = .unsupportedVersion
        case .malformed: self = .malformed
        case .kdfParametersOutOfBounds: self = .kdfOutOfBounds
        case .notACofferFile: self = .notACofferFile
        case .slotUnavailable: self = .slotLimit
        case .otherKeyEpoch: self = .otherEpoch
        default: return nil
        }
    }
}
