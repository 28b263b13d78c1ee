import Foundation
import Testing
import CSodium
@testable import CofferGenerator
import CofferTestSupport

/// Issue 26, finding 5: the word lists are compiled in (Sources/CofferGenerator/WordLists),
/// so no copy of a program can lose them; these tests check the compiled-in text itself.
/// (The counts of the estimator's dictionaries: GeneratorStrengthEstimatorTests; a copied `coffer`:
/// CLICopiedBinaryTests.)
@Suite("Generator: bundled word lists")
struct GeneratorBundledWordListTests {
    @Test("Every list is ASCII with LF line ends, so it loads on the fast path", arguments: BundledWordList.allCases)
    func ascii(list: BundledWordList) {
        let bytes = list.bytes
        #expect(bytes.count > 100_000)
        #expect(bytes.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "\r") })
        #expect(bytes.last != UInt8(ascii: "\n"), "the literal ends without a line break")
    }

    @Test("The EFF list is the unmodified file NOTICE names (its SHA-256)")
    func effUnmodified() throws {
        // The file as published ends every line with LF; the literal drops the last one.
        let file = BundledWordList.effLarge.bytes + [UInt8(ascii: "\n")]
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        #expect(crypto_hash_sha256(&digest, file, UInt64(file.count)) == 0)
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        let notice = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("NOTICE"), encoding: .utf8)
        #expect(notice.contains("SHA-256 \(hex)"), "NOTICE does not give \(hex)")
    }

    @Test("The estimator's EFF dictionary holds exactly the passphrase words, each at the list's size")
    func estimatorUsesThePassphraseWords() throws {
        let eff = try Wordlist.effLarge
        let dictionary = try #require(RankedDictionary.bundled.first { $0.name == .effWordlist })
        #expect(dictionary.count == eff.count)
        for word in eff.words {
            let scalars = lowercaseScalars(word)
            let rank = scalars.withUnsafeBufferPointer { dictionary.rank(of: $0) }
            #expect(rank == Wordlist.effLargeCount, "\(word)")
        }
    }

    @Test("Lines are split at LF, lose CR, and are lowercased; non-ASCII text is decoded")
    func lines() {
        let lines = BundledWordList.lowercasedLines(of: "Abc\r\nÉCOLE\n\n11111\tZoom")
            .map { String(String.UnicodeScalarView($0.compactMap(Unicode.Scalar.init))) }
        #expect(lines == ["abc", "école", "", "11111\tzoom"])
        #expect(BundledWordList.lowercasedLines(of: "").isEmpty)
    }
}
