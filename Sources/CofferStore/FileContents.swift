import CofferCrypto
import CofferFormat

/// What a save writes: bytes handed over in order, piece by piece, so that a large vault
/// is streamed to its temporary file instead of first being assembled whole in memory
/// (``EncodedVaultFile``). A plain `[UInt8]` is one piece.
///
/// Producing a piece may fail (contents read and checked as they are written): the error
/// ends the write, the temporary file is removed and nothing is replaced.
package protocol FileContents: Sendable {
    /// The number of bytes, known before anything is written (a file over the size limit
    /// is refused before it is created).
    var count: Int { get }
    /// Calls `body` with consecutive pieces whose concatenation is the contents.
    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws(StoreError) -> Void) throws(StoreError)
}

extension Array: FileContents where Element == UInt8 {
    package func forEachChunk(_ body: (UnsafeRawBufferPointer) throws(StoreError) -> Void) throws(StoreError) {
        try withBytes { (raw) throws(StoreError) in try body(raw) }
    }
}

extension EncodedVaultFile: FileContents {
    package func forEachChunk(_ body: (UnsafeRawBufferPointer) throws(StoreError) -> Void) throws(StoreError) {
        try withChunks(body)
    }
}
