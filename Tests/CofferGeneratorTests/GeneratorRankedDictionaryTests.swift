import Testing
@testable import CofferGenerator

/// The estimator's dictionaries read the bundled lists in place (their literal's ASCII bytes,
/// lowercased as compared) instead of copying them into scalar arrays first. The in-place
/// dictionaries must be the decoded ones exactly: the same words in the same order, the same
/// ranks, lengths and trigram filters, and the same answer to every lookup.
@Suite("Generator: ranked dictionaries read in place")
struct GeneratorRankedDictionaryTests {
    static func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }

    static func expectSame(_ inPlace: RankedDictionary, _ decoded: RankedDictionary) {
        #expect(inPlace.readsInPlace)
        #expect(!decoded.readsInPlace)
        #expect(inPlace.count == decoded.count)
        #expect(inPlace.maximumLength == decoded.maximumLength)
        #expect(inPlace.startTrigrams == decoded.startTrigrams)
        #expect(inPlace.endTrigrams == decoded.endTrigrams)
        let a = inPlace.words, b = decoded.words
        #expect(a.map(\.word) == b.map(\.word))
        #expect(a.map(\.rank) == b.map(\.rank))
        var mismatches = 0
        for (word, rank) in b {
            let found = word.withUnsafeBufferPointer { inPlace.rank(of: $0) }
            if found != rank { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("Each bundled list gives the same dictionary in place as decoded")
    func bundledListsAgree() {
        Self.expectSame(.ranked(BundledWordList.commonPasswords.text, name: .commonPasswords),
                        .ranked(BundledWordList.commonPasswords.text, name: .commonPasswords, inPlace: false))
        Self.expectSame(.tiered(BundledWordList.englishWords.text, name: .englishWords),
                        .tiered(BundledWordList.englishWords.text, name: .englishWords, inPlace: false))
        Self.expectSame(.ranked(BundledWordList.effLarge.text, name: .effWordlist, everyRank: 7776),
                        .ranked(BundledWordList.effLarge.text, name: .effWordlist, everyRank: 7776, inPlace: false))
        let allInPlace = RankedDictionary.bundled.allSatisfy(\.readsInPlace)
        #expect(allInPlace)
    }

    @Test("In place, uppercase letters are lowercased, tabs and comments are handled, and a duplicate keeps its first rank")
    func smallLists() {
        let text: StaticString = "# comment\nPassWord\n\n11111\tZoom\npassword\nabc\nAbcd"
        let inPlace = RankedDictionary.ranked(text, name: .commonPasswords)
        Self.expectSame(inPlace, .ranked(text, name: .commonPasswords, inPlace: false))
        #expect(inPlace.words.map(\.word) == ["password", "zoom", "abc", "abcd"].map(Self.scalars))
        #expect(inPlace.words.map(\.rank) == [1, 2, 4, 5])
        for (word, rank) in [("password", 1), ("zoom", 2), ("abc", 4), ("abcd", 5)] {
            let found = Self.scalars(word).withUnsafeBufferPointer { inPlace.rank(of: $0) }
            #expect(found == rank, "\(word)")
        }
        for absent in ["PassWord", "pass", "11111", "11111\tzoom", "ab", "abcde", "#"] {
            let found = Self.scalars(absent).withUnsafeBufferPointer { inPlace.rank(of: $0) }
            #expect(found == nil, "\(absent)")
        }

        let tiers: StaticString = "# header\n## size 10\nbeta\nAlpha\n## size 20\ngamma\ndelta\nepsilon\nALPHA"
        let tiered = RankedDictionary.tiered(tiers, name: .englishWords)
        Self.expectSame(tiered, .tiered(tiers, name: .englishWords, inPlace: false))
        // Tier one: 2 words, middle rank 1; tier two: 2 + (4 + 1) / 2 = 4; "alpha" keeps tier one's.
        #expect(tiered.words.map(\.rank) == [1, 1, 4, 4, 4])
    }

    @Test("A list that is not plain ASCII is decoded, not read in place")
    func nonASCIIFallsBack() {
        let text: StaticString = "École\nzoo"
        let dictionary = RankedDictionary.ranked(text, name: .commonPasswords)
        #expect(!dictionary.readsInPlace)
        #expect(dictionary.words.map(\.word) == ["école", "zoo"].map(Self.scalars))
        let crlf: StaticString = "abc\r\ndef"
        #expect(!RankedDictionary.ranked(crlf, name: .commonPasswords).readsInPlace)
        #expect(RankedDictionary.ranked(crlf, name: .commonPasswords).words.map(\.word) == ["abc", "def"].map(Self.scalars))
    }
}
