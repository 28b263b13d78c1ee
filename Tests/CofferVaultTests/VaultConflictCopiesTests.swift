import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// `Vault.conflictCopies(of:)`: the public listing of sync services' conflict copies.
@Suite("Vault: conflict copies (public API)")
struct VaultConflictCopiesTests {
    private static func options(state: String) -> VaultOptions {
        VaultOptions(kdf: testKDF, lockTimeout: .seconds(5), replicaState: .directory(state))
    }

    @Test("Each service's copy is listed with its service, sorted by name; other files are not, and none is opened")
    func listsEachService() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            let path = dir + "/vault.coffer"
            _ = try Vault.create(at: path, password: try secure("pw"), options: Self.options(state: dir + "/state"))
            let names = [
                "vault.sync-conflict-20260301-101500-ABCDEF2.coffer",
                "vault (Jane's conflicted copy 2026-03-01).coffer",
                "vault (conflicted copy 2026-03-01 101500).coffer",
                "vault.coffer.bak", "other (conflicted copy 2026-03-01 101500).coffer", "notes.txt",
            ]
            // Not vaults at all: the listing goes by name and reads nothing.
            for name in names { #expect(FileManager.default.createFile(atPath: dir + "/" + name, contents: Data([1, 2, 3]))) }
            try FileManager.default.createDirectory(atPath: dir + "/vault.sync-conflict-20260302-101500-ABCDEF3.coffer",
                                                    withIntermediateDirectories: false)

            let copies = try Vault.conflictCopies(of: path)
            #expect(copies == [
                ConflictCopy(path: dir + "/vault (Jane's conflicted copy 2026-03-01).coffer", service: .dropbox),
                ConflictCopy(path: dir + "/vault (conflicted copy 2026-03-01 101500).coffer", service: .nextcloud),
                ConflictCopy(path: dir + "/vault.sync-conflict-20260301-101500-ABCDEF2.coffer", service: .syncthing),
            ])
            #expect(ConflictCopyService.allCases.map(\.rawValue) == ["syncthing", "dropbox", "nextcloud"])
        }
    }

    @Test("Through a link, copies sit next to the file it names; a missing folder is fileNotFound")
    func linkAndMissingFolder() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            try FileManager.default.createDirectory(atPath: dir + "/Sync", withIntermediateDirectories: false)
            #expect(FileManager.default.createFile(atPath: dir + "/Sync/personal.coffer", contents: Data([1])))
            #expect(FileManager.default.createFile(atPath: dir + "/Sync/personal (conflicted copy 2026-03-01 101500).coffer", contents: Data([2])))
            #expect(FileManager.default.createFile(atPath: dir + "/vault (conflicted copy 2026-03-01 101500).coffer", contents: Data([3])))
            try FileManager.default.createSymbolicLink(atPath: dir + "/vault.coffer", withDestinationPath: "Sync/personal.coffer")
            #expect(try Vault.conflictCopies(of: dir + "/vault.coffer")
                    == [ConflictCopy(path: dir + "/Sync/personal (conflicted copy 2026-03-01 101500).coffer", service: .nextcloud)])

            // The vault file itself need not exist.
            #expect(try Vault.conflictCopies(of: dir + "/absent.coffer") == [])
            #expect(throws: CofferError.fileNotFound) { try Vault.conflictCopies(of: dir + "/gone/vault.coffer") }
        }
    }

    @Test("The documented loop: merge each copy, then delete it; another vault's copy is differentVault and stays")
    func mergeEachCopy() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            let path = dir + "/vault.coffer"
            let vault = try Vault.create(at: path, password: try secure("pw"), options: Self.options(state: dir + "/here"))
            try vault.add(.genericPassword(service: "mail", account: "me"), secrets: ItemSecrets(password: try secure("m")))

            // Another device edits its copy; the sync service keeps it as a conflict copy.
            let copyPath = dir + "/vault.sync-conflict-20260301-101500-ABCDEF2.coffer"
            try FileManager.default.copyItem(atPath: path, toPath: copyPath)
            let other = try Vault.open(at: copyPath, password: try secure("pw"), options: Self.options(state: dir + "/there"))
            try other.add(.genericPassword(service: "bank", account: "me"), secrets: ItemSecrets(password: try secure("b")))
            try FileManager.default.removeItem(atPath: copyPath + ".lock")
            try FileManager.default.removeItem(atPath: copyPath + ".bak")

            // And a copy of another vault, named like a conflict copy.
            let strangerPath = dir + "/vault (conflicted copy 2026-03-01 101500).coffer"
            _ = try Vault.create(at: strangerPath, password: try secure("pw"), options: Self.options(state: dir + "/stranger"))
            try FileManager.default.removeItem(atPath: strangerPath + ".lock")

            var merged: [ConflictCopyService] = []
            for copy in try Vault.conflictCopies(of: path) {
                let noted = try #require(FileVersion(of: copy.path))
                do throws(CofferError) {
                    let report = try vault.merge(contentsOf: copy.path)
                    #expect(report.added == 1)
                } catch {
                    guard error.kind == .differentVault else { throw error }
                    #expect(copy.path == strangerPath)
                    continue
                }
                #expect(try Vault.putAwayMergedCopy(at: copy.path, unchangedSince: noted, .delete) == .deleted)
                merged.append(copy.service)
            }
            #expect(merged == [.syncthing])
            #expect(try Vault.conflictCopies(of: path) == [ConflictCopy(path: strangerPath, service: .nextcloud)])
            let reopened = try Vault.open(at: path, password: try secure("pw"), options: Self.options(state: dir + "/here"))
            #expect(Set(try reopened.items().compactMap(\.service)) == ["mail", "bank"])
        }
    }
}
