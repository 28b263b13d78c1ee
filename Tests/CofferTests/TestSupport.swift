import Foundation
import Coffer
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
@testable import CofferOTP
@testable import CofferGenerator
@testable import CofferTransfer

/// Hex helpers for known-answer tests.
enum Hex {
    static func decode(_ hex: String) -> [UInt8] {
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

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

extension SecureBytes {
    /// Test-only: copy out the bytes to compare with expected values.
    var testBytes: [UInt8] { withUnsafeBytes { Array($0) } }
}
