import Foundation
import Testing
@testable import CofferGenerator
import CofferTestSupport

/// Passphrases and word lists.
@Suite("Generator: passphrases and word lists")
struct GeneratorPassphraseTests {
    static func text(_ secret: SecureBytes) -> String { secret.unsafeStringCopy() ?? "<invalid UTF-8>" }

    /// Whether `error` is a ``CofferError`` of `kind`.
    static func isKind(_ kind: CofferError.Kind) -> (any Error) -> Bool {
        { ($0 as? CofferError)?.kind == kind }
    }

    @Test("The shipped EFF large wordlist has 7,776 distinct words")
    func effLarge() throws {
        let eff = try Wordlist.effLarge
        #expect(eff.count == 7776)
        #expect(Set(eff.words).count == 7776)
        #expect(eff.words.first == "abacus")
        #expect(eff.words.last == "zoom")
        #expect(eff.words.allSatisfy { word in word.allSatisfy { $0.isLowercase || $0 == "-" } })
        #expect(abs(eff.bitsPerWord - log2(7776.0)) < 1e-12)
    }

    @Test("A passphrase has the right number of words, all from the list", arguments: [1, 6, 10])
    func wordsComeFromTheList(wordCount: Int) throws {
        let eff = try Wordlist.effLarge
        let words = Set(eff.words)
        let generator = try PassphraseGenerator(policy: PassphrasePolicy(wordCount: wordCount, separator: " "))
        var pool = try RandomBytePool(source: SeededRandom(seed: UInt64(wordCount)))
        for _ in 0..<200 {
            let phrase = Self.text(try generator.generate(using: &pool)).split(separator: " ", omittingEmptySubsequences: false)
            #expect(phrase.count == wordCount)
            #expect(phrase.allSatisfy { words.contains(String($0)) })
        }
        // And through the public, system-random path.
        let phrase = Self.text(try generator.generate()).split(separator: " ")
        #expect(phrase.count == wordCount && phrase.allSatisfy { words.contains(String($0)) })
    }

    @Test("The default: six lowercase EFF words joined by '-', 77.5 bits")
    func defaults() throws {
        let generator = try PassphraseGenerator()
        #expect(generator.policy.wordCount == 6)
        #expect(abs(generator.entropyBits - 6 * log2(7776.0)) < 1e-9)
        let text = try generator.generateString()
        // EFF has four hyphenated words (drop-down, felt-tip, t-shirt, yo-yo): 6 to 12 pieces.
        #expect((6...12).contains(text.split(separator: "-").count))
        #expect(text.allSatisfy { $0.isLowercase || $0 == "-" })
        #expect(try generator.generate(count: 3).count == 3)
    }

    @Test("Case, separator and number")
    func styling() throws {
        var pool = try RandomBytePool(source: SeededRandom(seed: 99))
        let capitalized = try PassphraseGenerator(policy: PassphrasePolicy(
            wordCount: 5, separator: ".", wordCase: .capitalized, includeNumber: true))
        for _ in 0..<100 {
            let text = Self.text(try capitalized.generate(using: &pool))
            let words = text.split(separator: ".")
            #expect(words.count == 5)
            #expect(words.allSatisfy { $0.first?.isUppercase == true })
            #expect(text.filter(\.isNumber).count == 1)
            #expect(words.contains { $0.last?.isNumber == true })
        }
        #expect(abs(capitalized.entropyBits - (5 * log2(7776.0) + log2(50.0))) < 1e-9)

        let upper = try PassphraseGenerator(policy: PassphrasePolicy(wordCount: 4, separator: " ", wordCase: .uppercase))
        #expect(Self.text(try upper.generate(using: &pool)).allSatisfy { $0.isUppercase || $0 == " " || $0 == "-" })

        let joined = try PassphraseGenerator(policy: PassphrasePolicy(wordCount: 4, separator: "", wordCase: .capitalized))
        let text = Self.text(try joined.generate(using: &pool))
        #expect(!text.contains(" ") && text.filter(\.isUppercase).count == 4)
    }

    @Test("Entropy comes from the real list size")
    func customEntropy() throws {
        let list = try Wordlist(words: ["alpha", "bravo", "charlie", "delta"])
        let generator = try PassphraseGenerator(policy: PassphrasePolicy(wordCount: 3), wordlist: list)
        #expect(generator.entropyBits == 6)
        let numbered = try PassphraseGenerator(policy: PassphrasePolicy(wordCount: 3, includeNumber: true), wordlist: list)
        #expect(abs(numbered.entropyBits - (6 + log2(30.0))) < 1e-12)
        var pool = try RandomBytePool(source: SeededRandom(seed: 4))
        var seen = Set<String>()
        for _ in 0..<400 {
            let words = Self.text(try generator.generate(using: &pool)).split(separator: "-").map(String.init)
            #expect(words.count == 3 && words.allSatisfy(list.words.contains))
            seen.formUnion(words)
        }
        #expect(seen.count == 4)
    }

    @Test("Word list texts: plain, EFF dice format, CRLF, blank lines")
    func wordlistTexts() throws {
        let plain = try Wordlist(text: Array("red\ngreen\n\nblue\n".utf8), source: "plain")
        #expect(plain.words == ["red", "green", "blue"])
        let dice = try Wordlist(text: Array("11111\tabacus\r\n11112\tabdomen\r\n11113\tabdominal\r\n".utf8), source: "dice")
        #expect(dice.words == ["abacus", "abdomen", "abdominal"])
        #expect(dice.count == 3)
    }

    @Test("Bad word lists are rejected", arguments: [
        "red\ngreen\nred\n",          // duplicate
        "red\ngreen\nRed\n",          // duplicate, ignoring case
        "",                           // empty
        "\n\n",                       // only blank lines
        "solo\n",                     // one word
        "red\ngreen blue\n",          // a word with a space
        "red\n11111 green extra\n",   // too many fields
    ])
    func badWordlists(contents: String) throws {
        #expect { _ = try Wordlist(text: Array(contents.utf8), source: "bad") } throws: { Self.isKind(.invalidWordList)($0) }
        #expect { _ = try Wordlist(words: ["a", "a"]) } throws: { Self.isKind(.invalidWordList)($0) }
        #expect { _ = try Wordlist(words: ["a", "tab\tbed"]) } throws: { Self.isKind(.invalidWordList)($0) }
    }

    @Test("Policies whose passphrases could be read two ways are rejected")
    func ambiguity() throws {
        let eff = try Wordlist.effLarge
        let bad: [(PassphrasePolicy, Wordlist)] = [
            (PassphrasePolicy(separator: ""), eff),                                   // lowercase, no separator
            (PassphrasePolicy(separator: "x"), eff),                                  // letter separator
            (PassphrasePolicy(separator: "1"), eff),                                  // digit separator
            (PassphrasePolicy(separator: "\n"), eff),                                 // control character
            (PassphrasePolicy(wordCount: 0), eff),
            (PassphrasePolicy(wordCount: 65), eff),
            (PassphrasePolicy(), try Wordlist(words: ["ice", "ice-cream", "cream"])), // "ice-cream": one word or two
            (PassphrasePolicy(), try Wordlist(words: ["sun-set", "sun-set-boulevard", "boulevard"])), // prefix compound
            (PassphrasePolicy(), try Wordlist(words: ["-dash", "plain"])),           // starts with the separator
            (PassphrasePolicy(separator: "--"), try Wordlist(words: ["a-b", "c"])),  // multi-character separator inside
            (PassphrasePolicy(includeNumber: true), try Wordlist(words: ["r2d2", "c3po"])),
            (PassphrasePolicy(wordCase: .uppercase), try Wordlist(words: ["straße", "strasse"])),     // both STRASSE
            (PassphrasePolicy(separator: "", wordCase: .capitalized), try Wordlist(words: ["4ever", "smith"])),
        ]
        for (policy, list) in bad {
            #expect { _ = try PassphraseGenerator(policy: policy, wordlist: list) } throws: { Self.isKind(.invalidGeneratorPolicy)($0) }
        }
        // The EFF list's hyphenated words are fine with "-": "t" and "drop" are not words.
        #expect(throws: Never.self) { _ = try PassphraseGenerator(policy: PassphrasePolicy(separator: "-"), wordlist: eff) }
        #expect(throws: Never.self) {
            _ = try PassphraseGenerator(policy: PassphrasePolicy(separator: "", wordCase: .capitalized, includeNumber: true))
        }
    }
}
