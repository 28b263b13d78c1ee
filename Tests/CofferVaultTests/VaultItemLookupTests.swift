import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// Issue 20: the library names items the way people do (``Vault/item(named:)``), shows a
/// whole item without its secrets (``Vault/details(of:)``), previews a restore
/// (``Vault/backupChanges()``) and orders a listing for reading (``sortedForReading(locale:)``).
@Suite("Vault: item names, details, backup preview and reading order")
struct VaultItemLookupTests {
    static func vault(_ dir: URL) throws -> Vault {
        try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: testOptions)
    }

    @Test("A name matches id prefix, label, service (any case), note title and a pasted URL")
    func namesResolve() throws {
        try withTemporaryDirectory { dir in
            let vault = try Self.vault(dir)
            var github = ItemAttributes.genericPassword(service: "github.com", account: "octocat")
            github.label = "Code"
            let code = try vault.add(github)
            let site = try vault.add(.internetPassword(server: "example.com", account: "al", protocol: "https", port: nil, path: "/login"))
            let note = try vault.add(.secureNote(title: "Plans"))
            #expect(try vault.item(named: ItemName("GITHUB.com")).id == code.id)
            #expect(try vault.item(named: ItemName("code")).id == code.id)
            #expect(try vault.item(named: ItemName(.service("GitHub.COM"), account: "octocat")).id == code.id)
            #expect(try vault.item(named: ItemName(String(code.id.hex.prefix(8)))).id == code.id)
            #expect(try vault.item(named: ItemName(.id(code.id.hex.uppercased()))).id == code.id)
            #expect(try vault.item(named: ItemName("https://Example.com/settings/profile?tab=1")).id == site.id)
            #expect(try vault.item(named: ItemName(.server("https://example.com:443/x"))).id == site.id)
            #expect(try vault.item(named: ItemName(.title("plans"))).id == note.id)
            #expect(throws: CofferError.itemNotFound) { try vault.item(named: ItemName(.server("http://example.com/login"))) }
            #expect(throws: CofferError.itemNotFound) { try vault.item(named: ItemName(.service("code"))) }
            #expect(throws: CofferError.itemNotFound) { try vault.item(named: ItemName("github.com", account: "someone")) }
            // Seven digits are too few to be an id.
            #expect(throws: CofferError.itemNotFound) { try vault.item(named: ItemName(.id(String(code.id.hex.prefix(7))))) }
        }
    }

    @Test("Several matches throw ambiguousItem listing label and short id; an exact spelling wins over case-folded ones")
    func ambiguity() throws {
        try withTemporaryDirectory { dir in
            let vault = try Self.vault(dir)
            let first = try vault.add(.secureNote(title: "Meeting"))
            let second = try vault.add(.secureNote(title: "Meeting"))
            do {
                _ = try vault.item(named: ItemName(.title("meeting")))
                Issue.record("no error")
            } catch let error as CofferError {
                #expect(error.kind == .ambiguousItem)
                #expect(error.detail?.contains(first.shortID) == true && error.detail?.contains(second.shortID) == true)
                #expect(error.detail?.contains("Meeting") == true)
            }
            #expect(Set(try vault.items(named: ItemName("Meeting")).map(\.id)) == [first.id, second.id])
            #expect(try vault.item(named: ItemName(first.shortID)).id == first.id)
            // "GitHub" and "github" both match ignoring case; the exact one is meant.
            let upper = try vault.add(.genericPassword(service: "GitHub", account: "a"))
            let lower = try vault.add(.genericPassword(service: "github", account: "a"))
            #expect(try vault.item(named: ItemName("GitHub")).id == upper.id)
            #expect(try vault.item(named: ItemName("github")).id == lower.id)
            #expect(throws: CofferError.ambiguousItem) { try vault.item(named: ItemName("GITHUB")) }
        }
    }

    @Test("Naming folds as search does (issue 28 finding 5): accents too, so `societe generale` names Société Générale; an exact spelling still wins")
    func namingFoldsAsSearch() throws {
        try withTemporaryDirectory { dir in
            let vault = try Self.vault(dir)
            let bank = try vault.add(.genericPassword(service: "Société Générale", account: "me"))
            let note = try vault.add(.secureNote(title: "Ｗｉｆｉ ｃａｆé"))   // full-width letters and an accent
            // Before, naming ignored case and width only: these missed while search found them.
            for name in ["societe generale", "SOCIETE GÉNÉRALE", "Société Générale"] {
                #expect(try vault.item(named: ItemName(name)).id == bank.id, "\(name)")
                #expect(try vault.items(matching: ItemQuery(text: name)).map(\.id) == [bank.id], "search: \(name)")
            }
            #expect(try vault.item(named: ItemName(.service("societe generale"))).id == bank.id)
            #expect(try vault.item(named: ItemName(.title("wifi cafe"))).id == note.id)
            // Two spellings that fold alike: each exact spelling names its own; a third spelling is ambiguous.
            let cafe = try vault.add(.genericPassword(service: "cafe", account: "me"))
            let accented = try vault.add(.genericPassword(service: "café", account: "me"))
            #expect(try vault.item(named: ItemName("cafe")).id == cafe.id)
            #expect(try vault.item(named: ItemName("café")).id == accented.id)
            #expect(throws: CofferError.ambiguousItem) { try vault.item(named: ItemName("CAFE")) }
            // Not equal, but how the name begins: an approximate match, as search finds it.
            let start = try vault.match(ItemName("societe"))
            #expect(start.items.map(\.id) == [bank.id] && start.isApproximate)
            #expect(try !vault.match(ItemName("Société Générale")).isApproximate)
            #expect(throws: CofferError.itemNotFound) { try vault.item(named: ItemName("banque")) }
        }
    }

    @Test("One folding rule: the ASCII fast paths give what Foundation's folding and Unicode's properties give, and naming's byte prefilter agrees")
    func oneFoldingRule() {
        var rng = SeededRandom("folding")
        let ascii = (0..<128).map { UInt8($0) }
        for _ in 0..<5_000 {
            let text = String(decoding: (0..<Int.random(in: 0...12, using: &rng)).map { _ in ascii.randomElement(using: &rng)! }, as: UTF8.self)
            let foundation = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            #expect(SearchFolding.fold(text) == foundation, "\(Array(text.utf8))")
            #expect(SearchFolding.fold(text, locale: Locale(identifier: "tr_TR")) == foundation, "ASCII folds alike in every locale")
            #expect(SearchFolding.words(text) == SearchFolding.unicodeWords(text), "\(Array(text.utf8))")
            let other = Bool.random(using: &rng) ? text.uppercased() : String(text.reversed())
            #expect(SearchFolding.foldedEqual(ascii: text.utf8, other.utf8) == (SearchFolding.fold(text) == SearchFolding.fold(other)))
        }
        #expect(SearchFolding.foldedEqual(ascii: "café".utf8, "cafe".utf8) == nil)
        #expect(SearchFolding.foldedEqual("Café", "CAFE") && !SearchFolding.foldedEqual("cafe", "cafes"))
    }

    @Test("details(of:) lists the secret part by name and size, without values")
    func details() throws {
        try withTemporaryDirectory { dir in
            let vault = try Self.vault(dir)
            let item = try vault.add(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets(
                password: secure("one"), notes: secure("text"), fields: [SecretField(name: "API token", value: try secure("t"))],
                attachments: [Attachment(name: "codes.pdf", data: try SecureBytes(copying: [UInt8](repeating: 1, count: 42)))]))
            try vault.update(item.id, secrets: ItemSecrets(password: secure("two")))
            let details = try vault.details(of: item.id)
            #expect(details.item.id == item.id && details.item.service == "s")
            #expect(details.hasPassword && details.hasNotes)
            #expect(details.secretFieldNames == ["API token"])
            #expect(details.passwordHistory.count == 1)
            #expect(details.attachments == [AttachmentSummary(name: "codes.pdf", size: 42)])
            #expect(throws: CofferError.itemNotFound) { try vault.details(of: ItemID(hex: String(repeating: "0", count: 32))!) }
        }
    }

    @Test("backupChanges() previews a restore and writes nothing")
    func backupPreview() throws {
        try withTemporaryDirectory { dir in
            let vault = try Self.vault(dir)
            let kept = try vault.add(.genericPassword(service: "kept", account: "a"))
            let gone = try vault.add(.genericPassword(service: "gone", account: "a"))
            try vault.delete(gone.id)
            var preview = try vault.backupChanges()
            #expect(preview.restored.map(\.id) == [gone.id] && preview.removed.isEmpty && preview.changed.isEmpty)
            #expect(preview.backupItemCount == 2)
            try vault.update(kept.id) { attributes, _ in attributes.label = "new" }
            let added = try vault.add(.genericPassword(service: "added", account: "a"))
            preview = try vault.backupChanges()
            #expect(preview.removed.map(\.id) == [added.id])
            let path = dir.appendingPathComponent("v.coffer").path
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            _ = try vault.backupChanges()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try vault.items().map(\.id).contains(added.id))
        }
    }

    @Test("sortedForReading ignores case and accents and reads numbers as numbers; the input order never matters")
    func readingOrder() throws {
        try withTemporaryDirectory { dir in
            let vault = try Self.vault(dir)
            for (index, label) in ["zeta", "Beta", "alpha", "item10", "item2", "Émile", "delta", "emile", "item02"].enumerated() {
                var attributes = ItemAttributes.genericPassword(service: "s\(index)", account: "a")
                attributes.label = label
                try vault.add(attributes)
            }
            let items = try vault.items()
            let sorted = items.sortedForReading(locale: Locale(identifier: "en_US"))
            let labels = sorted.compactMap(\.label)
            #expect(Array(labels.prefix(3)) == ["alpha", "Beta", "delta"])
            #expect(Set(labels[3...4]) == ["Émile", "emile"])
            #expect(Set(labels[5...6]) == ["item2", "item02"] && labels[7] == "item10" && labels[8] == "zeta")
            #expect(items.reversed().sortedForReading(locale: Locale(identifier: "en_US")).map(\.id) == sorted.map(\.id))
        }
    }
}
