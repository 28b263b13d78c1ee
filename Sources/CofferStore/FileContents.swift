import CofferCrypto
import CofferFormat

/// What a save writes: bytes handed over in order, piece by piece, so that a large vault
/// is streamed to its temporary file instead of first being assembled whole in memory
/// (``EncodedVaultFile``). A plain `[UInt8]` is one piece.
package protocol FileContents: Sendable {
    /// The number of bytes, known before anything is written (a file over the size limit
    /// is refused before it is created).
    var count: Int { get }
    /// Calls `body` with consecutive pieces whose concatenation is the contents.
    func withChunks<E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E)
}

extension Array: FileContents where Element == UInt8 {
    package func withChunks<E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        try withBytes { (raw) throws(E) in try body(raw) }
    }
}

extension EncodedVaultFile: FileContents {}
