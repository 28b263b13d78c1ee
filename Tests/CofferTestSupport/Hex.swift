import Foundation
import CofferCrypto

/// Hex helpers for known-answer tests.
package enum Hex {
    package static func decode(_ hex: String) -> [UInt8] {
        let clean = hex.filter { !$0.isWhitespace }
        var out: [UInt8] = []
        out.reserveCapacity(clean.count / 2)
        var index = clean.startIndex
        while index < clean.endIndex {
            let next = clean.index(index, offsetBy: 2)
            out.append(UInt8(clean[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

extension SecureBytes {
    /// Test-only: copy out the bytes to compare with expected values.
    package var testBytes: [UInt8] { withUnsafeBytes { Array($0) } }
}
