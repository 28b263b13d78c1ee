import Foundation
import Testing
import CofferStore
import CofferTestSupport

/// Putting merged copies away (``MergedCopyStore``), with faults injected through the
/// store's seam: whatever fails, the copy stays where it was, nothing is left in the
/// folder, and the vault file beside it is untouched.
@Suite("Store: putting merged copies away")
struct StoreMergedCopyTests {
    /// A synced folder: the vault, one conflict copy, and a folder to move merged copies into.
    struct Folder {
        let root: String
        var vault: String { root + "/vault.coffer" }
        var copy: String { root + "/vault.sync-conflict-20260301-101500-ABCDEF2.coffer" }
        var merged: String { root + "/kept" }
        let vaultBytes = storeBytes("the vault", count: 700)
        let copyBytes = storeBytes("the copy", count: 300_000)

        init(_ url: URL, makeFolder: Bool = true) throws {
            root = url.path
            #expect(FileManager.default.createFile(atPath: vault, contents: Data(vaultBytes)))
            #expect(FileManager.default.createFile(atPath: copy, contents: Data(copyBytes)))
            if makeFolder { try MergedCopyStore().prepareFolder(merged) }
        }

        func noted() throws -> FileIdentity { try #require(FileIO.live.status(of: copy, followingLinks: true)).identity }

        func movedNames() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: merged)) ?? []).sorted() }

        /// The copy is where it was, whole; nothing was added to the folder; the vault is as it was.
        func expectUntouched(_ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(FileManager.default.contents(atPath: copy).map(Array.init) == copyBytes, "\(context): the copy", sourceLocation: sourceLocation)
            #expect(movedNames() == [], "\(context): the folder", sourceLocation: sourceLocation)
            #expect(FileManager.default.contents(atPath: vault).map(Array.init) == vaultBytes, "\(context): the vault", sourceLocation: sourceLocation)
        }
    }

    @Test("A move keeps the name, and a later copy of the same name gets ~2 beside it, never over it")
    func movesAndNumbers() throws {
        try withTemporaryDirectory { url in
            let f = try Folder(url)
            let name = "vault.sync-conflict-20260301-101500-ABCDEF2.coffer"
            #expect(try MergedCopyStore().move(f.copy, into: f.merged, unchangedSince: try f.noted()) == f.merged + "/" + name)
            #expect(!FileManager.default.fileExists(atPath: f.copy))
            #expect(FileManager.default.contents(atPath: f.merged + "/" + name).map(Array.init) == f.copyBytes)

            let later = storeBytes("a later copy")
            #expect(FileManager.default.createFile(atPath: f.copy, contents: Data(later)))
            let numbered = f.merged + "/vault.sync-conflict-20260301-101500-ABCDEF2~2.coffer"
            #expect(try MergedCopyStore().move(f.copy, into: f.merged, unchangedSince: try f.noted()) == numbered)
            #expect(FileManager.default.contents(atPath: numbered).map(Array.init) == later)
            #expect(FileManager.default.contents(atPath: f.merged + "/" + name).map(Array.init) == f.copyBytes)
            #expect(MergedCopyStore.numbered(".hidden", 3) == ".hidden~3")
            #expect(MergedCopyStore.numbered("a.b.coffer", 2) == "a.b~2.coffer")
        }
    }

    @Test("A copy that changed after it was noted is neither moved nor deleted")
    func changedCopyStays() throws {
        try withTemporaryDirectory { url in
            let f = try Folder(url)
            let noted = try f.noted()
            // The sync service writes it again (a new file under the name, as services do).
            let temporary = f.root + "/incoming"
            #expect(FileManager.default.createFile(atPath: temporary, contents: Data(f.copyBytes)))
            #expect(rename(temporary, f.copy) == 0)
            #expect(try MergedCopyStore().move(f.copy, into: f.merged, unchangedSince: noted) == nil)
            #expect(try MergedCopyStore().delete(f.copy, unchangedSince: noted) == false)
            f.expectUntouched("changed")
        }
    }

    /// A rule failing the first call that `matches` with `code`.
    static func failing(_ code: Int32, _ matches: @escaping @Sendable (StoreCall) -> Bool) -> StoreFaultRule {
        StoreFaultRule(matches: matches, injection: .fail(code))
    }

    @Test("Moving: a failing link, unlink, or (without hard links) copy step leaves the copy and the vault as they were")
    func moveFaults() throws {
        let cases: [(String, (Folder) -> [StoreFaultRule], StoreOperation)] = [
            ("link EIO", { _ in [Self.failing(EIO) { if case .link = $0 { true } else { false } }] }, .link),
            ("unlink of the original EACCES", { f in [Self.failing(EACCES) { if case .unlink(f.copy) = $0 { true } else { false } }] }, .unlink),
            ("no hard links, then ENOSPC", { _ in [
                StoreFaultRule(matches: { if case .link = $0 { true } else { false } }, injection: .fail(EXDEV)),
                Self.failing(ENOSPC) { if case .write = $0 { true } else { false } },
            ] }, .write),
            ("no hard links, then the copy's fsync fails", { f in [
                StoreFaultRule(matches: { if case .link = $0 { true } else { false } }, injection: .fail(EPERM)),
                Self.failing(EIO) { if case .fsync(let p) = $0 { p.hasPrefix(f.merged + "/") } else { false } },
            ] }, .syncFile),
            ("no hard links, then the copy's read fails", { f in [
                StoreFaultRule(matches: { if case .link = $0 { true } else { false } }, injection: .fail(EXDEV)),
                StoreFaultRule(matches: { if case .read(f.copy) = $0 { true } else { false } }, injection: .shortRead(10)),
                Self.failing(EIO) { if case .read(f.copy) = $0 { true } else { false } },
            ] }, .read),
            ("no hard links, then unlink of the original fails", { f in [
                StoreFaultRule(matches: { if case .link = $0 { true } else { false } }, injection: .fail(EXDEV)),
                Self.failing(EBUSY) { if case .unlink(f.copy) = $0 { true } else { false } },
            ] }, .unlink),
        ]
        for (name, rules, operation) in cases {
            try withTemporaryDirectory { url in
                let f = try Folder(url)
                let injector = StoreFaultInjector(rules(f))
                let failure = storeFailure { try MergedCopyStore(io: injector.io).move(f.copy, into: f.merged, unchangedSince: try f.noted()) }
                guard case .system(operation, _, _) = failure else {
                    Issue.record("\(name): \(String(describing: failure))")
                    return
                }
                #expect(injector.injections == rules(f).count, "\(name)")
                f.expectUntouched(name)
            }
        }
    }

    @Test("Without hard links the copy is copied (mode 0600), then the original removed")
    func moveByCopying() throws {
        try withTemporaryDirectory { url in
            let f = try Folder(url)
            let injector = StoreFaultInjector([
                StoreFaultRule(matches: { if case .link = $0 { true } else { false } }, injection: .fail(EXDEV), times: .max),
            ])
            let moved = try #require(try MergedCopyStore(io: injector.io).move(f.copy, into: f.merged, unchangedSince: try f.noted()))
            #expect(FileManager.default.contents(atPath: moved).map(Array.init) == f.copyBytes)
            #expect(StoreFixture(url).permissions(moved) == 0o600)
            #expect(!FileManager.default.fileExists(atPath: f.copy))
        }
    }

    @Test("Deleting: a failing unlink leaves the copy and the vault as they were")
    func deleteFaults() throws {
        try withTemporaryDirectory { url in
            let f = try Folder(url)
            let injector = StoreFaultInjector([Self.failing(EROFS) { if case .unlink = $0 { true } else { false } }])
            #expect(storeFailure { try MergedCopyStore(io: injector.io).delete(f.copy, unchangedSince: try f.noted()) }
                    == .system(.unlink, path: f.copy, errno: EROFS))
            f.expectUntouched("unlink EROFS")
            #expect(try MergedCopyStore().delete(f.copy, unchangedSince: try f.noted()))
            #expect(!FileManager.default.fileExists(atPath: f.copy))
        }
    }

    @Test("The folder: made with mode 0700; a file or a link in its place is fileExists; a failing mkdir is typed")
    func folder() throws {
        try withTemporaryDirectory { url in
            let f = try Folder(url, makeFolder: false)
            try MergedCopyStore().prepareFolder(f.merged)
            #expect(StoreFixture(url).permissions(f.merged) == 0o700)
            try MergedCopyStore().prepareFolder(f.merged)   // already there: used as it is

            let file = f.root + "/plain"
            #expect(FileManager.default.createFile(atPath: file, contents: Data([1])))
            #expect(storeFailure { try MergedCopyStore().prepareFolder(file) } == .fileExists(file))
            let link = f.root + "/link"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: f.merged)
            #expect(storeFailure { try MergedCopyStore().prepareFolder(link) } == .fileExists(link))
            let injector = StoreFaultInjector([Self.failing(EACCES) { if case .makeDirectory = $0 { true } else { false } }])
            let other = f.root + "/other"
            #expect(storeFailure { try MergedCopyStore(io: injector.io).prepareFolder(other) } == .system(.makeDirectory, path: other, errno: EACCES))
            #expect(!FileManager.default.fileExists(atPath: other))
        }
    }

    @Test("Kept copies go into the state folder, merged/<vault id>, outside any synced folder")
    func keptCopiesFolder() throws {
        let store = ReplicaStateStore(directory: "/home/me/.local/state/coffer")
        #expect(store.mergedCopiesFolder(vaultID: "00112233445566778899aabbccddeeff")
                == "/home/me/.local/state/coffer/merged/00112233445566778899aabbccddeeff")
    }
}
