import CofferCrypto

#if DEBUG
/// Draws that give `bytes`, repeated: a record sealed with it takes `bytes` (another
/// record's nonce) as its nonce, as a faulty or forged writer would.
package struct RepeatedBytes: SeededEntropy {
    let bytes: [UInt8]
    package init(_ bytes: [UInt8]) { self.bytes = bytes }
    package func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        for index in 0..<buffer.count { buffer[index] = bytes[index % bytes.count] }
    }
    package var entropy: EntropySource { EntropySource(seeded: self) }
}
#endif
