import Foundation
import Testing
@testable import CofferVault
import CofferFormat
import CofferTestSupport

/// A miss and its "did you mean" from one reading of every item (``Vault/match(_:suggesting:)``):
/// the match must be exactly ``Vault/match(_:)``'s, and the suggestions exactly those
/// ``Vault/suggestions(for:limit:)`` gives on its own.
extension VaultTagLookupTests {
    @Test("A match that asks for suggestions matches as match(_:) does, and on a miss suggests what suggestions(for:) does",
          arguments: ["tags-1", "tags-2"])
    func matchWithSuggestions(_ seed: String) throws {
        try withTemporaryDirectory { dir in
            let path = try randomVault(dir, seed: seed, count: 60)
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let typos = ["githbu.com", "gitlba.com", "exmaple.org", "ntoe", "caffe", "stra\u{df}ee", "wifi-x", "zzzz"]
            let names = lookups(try vault.items().map(\.id))
                + typos.flatMap { [ItemName(.anything($0)), ItemName(.service($0)), ItemName(.title($0))] }
            var misses = 0, suggested = 0
            for name in names {
                let plain = try vault.match(name)
                let withSuggestions = try vault.match(name, suggesting: 3)
                #expect(describe(withSuggestions) == describe(plain), "\(name)")
                if plain.items.isEmpty {
                    misses += 1
                    let expected = try vault.suggestions(for: name, limit: 3).map(\.id)
                    #expect(withSuggestions.suggestions.map(\.id) == expected, "\(name)")
                    if !expected.isEmpty { suggested += 1 }
                } else {
                    #expect(withSuggestions.suggestions.isEmpty, "\(name): a hit suggests nothing")
                }
            }
            #expect(misses > 10 && suggested > 5, "\(misses) misses, \(suggested) with suggestions")
        }
    }
}
