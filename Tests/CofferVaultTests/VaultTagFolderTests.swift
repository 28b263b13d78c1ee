import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// Issue 28, finding 12: tags are folders. `ItemQuery(tag: "Work")` finds `Work/Email`;
/// ``Vault/tags()`` is a tree with each folder's total.
@Suite("Vault: tags as folders")
struct VaultTagFolderTests {
    @Test("A tag query finds the tag and the tags under it, ignoring case; the overview prefilter agrees with the rule, whatever the tags")
    func queryAgreesWithRule() throws {
        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: testOptions)
            var rng = SeededRandom("tag folders")
            let parts = ["Work", "work", "Wörk", "W", "Email", "/", "-x", "é"]
            func randomTag() -> String { (0..<Int.random(in: 1...4, using: &rng)).map { _ in parts.randomElement(using: &rng)! }.joined() }
            var items: [(ItemID, [String])] = []
            for index in 0..<40 {
                var attributes = ItemAttributes.genericPassword(service: "s\(index)", account: "a")
                attributes.tags = (0..<Int.random(in: 0...2, using: &rng)).map { _ in randomTag() }
                items.append((try vault.add(attributes).id, attributes.tags))
            }
            for wanted in (0..<60).map({ _ in randomTag() }) + ["Work", "work/", "WORK/EMAIL", "Wörk"] {
                let expected = Set(items.filter { $0.1.contains { SearchFolding.tag($0, isWithin: wanted) } }.map(\.0))
                #expect(Set(try vault.items(matching: ItemQuery(tag: wanted)).map(\.id)) == expected, "\(wanted)")
            }
            #expect(SearchFolding.tag("Work/Email", isWithin: "work") && SearchFolding.tag("work", isWithin: "Work/"))
            #expect(!SearchFolding.tag("Workshop", isWithin: "Work") && !SearchFolding.tag("Work", isWithin: "Work/Email"))
        }
    }

    @Test("tags() lists each folder before the tags under it, a folder no item carries with count 0, totals counting each item once")
    func tree() throws {
        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: testOptions)
            for (index, tags) in [["Work/Email/Old", "work/email"], ["Work"], ["Home/Bank"], ["bank"], ["a//b"]].enumerated() {
                var attributes = ItemAttributes.genericPassword(service: "s\(index)", account: "a")
                attributes.tags = tags
                _ = try vault.add(attributes)
            }
            let tags = try vault.tags()
            #expect(tags.map(\.tag) == ["a//b", "bank", "Home", "Home/Bank", "Work", "Work/Email", "Work/Email/Old"])
            #expect(tags.map(\.count) == [1, 1, 0, 1, 1, 1, 1])
            #expect(tags.map(\.total) == [1, 1, 1, 1, 2, 1, 1])
            #expect(tags.map { $0.path.count } == [1, 1, 1, 2, 1, 2, 3])
        }
    }
}
