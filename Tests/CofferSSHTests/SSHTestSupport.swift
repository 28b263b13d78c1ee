import CSodium
import Foundation

/// What the SSH tests share: Ed25519 verification (libsodium, independent of the signer's
/// code path), SSH strings, and a flag the agent's vault closure reads.
enum SSHTestSupport {
    static func verify(signature: [UInt8], data: [UInt8], publicKey: [UInt8]) -> Bool {
        signature.count == 64 && publicKey.count == 32
            && crypto_sign_verify_detached(signature, data, UInt64(data.count), publicKey) == 0
    }

    /// An SSH `string`: a big-endian uint32 length, then the bytes.
    static func string(_ bytes: [UInt8]) -> [UInt8] {
        let n = UInt32(bytes.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + bytes
    }

    /// A Boolean shared with a `@Sendable` closure.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var stored = false
        var value: Bool {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }
}
