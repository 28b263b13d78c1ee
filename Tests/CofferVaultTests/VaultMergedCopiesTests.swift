import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// The public API an app uses around merging copies: ``FileVersion``, ``FileChecks``,
/// ``Vault/mergedCopiesFolder(forVaultAt:state:creating:)`` and ``Vault/putAwayMergedCopy(at:unchangedSince:_:)``.
@Suite("Vault: putting merged copies away (public API)")
struct VaultMergedCopiesTests {
    private static func options(state: String) -> VaultOptions {
        VaultOptions(kdf: testKDF, lockTimeout: .seconds(5), replicaState: .directory(state))
    }

    /// A vault at `dir/vault.coffer` and a conflict copy beside it with one more item.
    private static func vaultAndCopy(_ dir: String) throws -> (vault: Vault, path: String, copy: String) {
        let path = dir + "/vault.coffer"
        let vault = try Vault.create(at: path, password: try secure("pw"), options: options(state: dir + "/here"))
        try vault.add(.genericPassword(service: "mail", account: "me"), secrets: ItemSecrets(password: try secure("m")))
        let copy = dir + "/vault.sync-conflict-20260301-101500-ABCDEF2.coffer"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let other = try Vault.open(at: copy, password: try secure("pw"), options: options(state: dir + "/there"))
        try other.add(.genericPassword(service: "bank", account: "me"), secrets: ItemSecrets(password: try secure("b")))
        try FileManager.default.removeItem(atPath: copy + ".lock")
        try FileManager.default.removeItem(atPath: copy + ".bak")
        return (vault, path, copy)
    }

    @Test("The documented loop: note, merge, then delete; the vault holds both items and nothing stays in the synced folder")
    func mergeAndDelete() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            let (vault, path, copyPath) = try Self.vaultAndCopy(dir)
            for copy in try Vault.conflictCopies(of: path) {
                let noted = try #require(FileVersion(of: copy.path))
                #expect(try vault.merge(contentsOf: copy.path).added == 1)
                #expect(try Vault.putAwayMergedCopy(at: copy.path, unchangedSince: noted, .delete) == .deleted)
            }
            #expect(!FileChecks.exists(copyPath))
            #expect(try Vault.conflictCopies(of: path) == [])
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)).isDisjoint(with: [".coffer-merged"]))
            let reopened = try Vault.open(at: path, password: try secure("pw"), options: Self.options(state: dir + "/here"))
            #expect(Set(try reopened.items().compactMap(\.service)) == ["mail", "bank"])
        }
    }

    /// Issue 27, finding 7: merged copies were moved into `.coffer-merged/` beside the vault,
    /// inside the synced folder, where every copy from before a password change kept opening
    /// with the old password on every device. Kept copies now go to the device's state folder.
    @Test("Kept copies go to this device's state folder (merged/<vault id>, mode 0700), never beside the vault")
    func keptOutsideTheSyncedFolder() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            let (vault, path, copyPath) = try Self.vaultAndCopy(dir)
            let state = dir + "/state/coffer"
            let folder = try Vault.mergedCopiesFolder(forVaultAt: path, state: .directory(state))
            #expect(folder == state + "/merged/" + vault.vaultID)
            #expect(!folder.hasPrefix(FileChecks.folder(of: path) + "/.") && !FileChecks.folder(of: folder).hasPrefix(dir + "/."))
            #expect(try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int == 0o700)
            #expect(try FileManager.default.attributesOfItem(atPath: state + "/merged")[.posixPermissions] as? Int == 0o700)
            let noted = try #require(FileVersion(of: copyPath))
            try vault.merge(contentsOf: copyPath)
            let outcome = try Vault.putAwayMergedCopy(at: copyPath, unchangedSince: noted, .move(into: folder))
            #expect(outcome == .moved(to: folder + "/vault.sync-conflict-20260301-101500-ABCDEF2.coffer"))
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)) == ["vault.coffer", "vault.coffer.lock", "vault.coffer.bak", "here", "there", "state"])
            // No state folder: a typed error, nothing made.
            #expect(throws: CofferError.fileNotFound) { try Vault.mergedCopiesFolder(forVaultAt: path, state: .none) }
        }
    }

    @Test("A copy written again after it was noted stays (.changed); deleting an unchanged one removes it")
    func changedThenDeleted() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            let (vault, _, copy) = try Self.vaultAndCopy(dir)
            let noted = try #require(FileVersion(of: copy))
            try vault.merge(contentsOf: copy)
            // The sync service replaces the copy meanwhile, as sync tools do: a new file renamed
            // over it. (Removing it first would let the file system hand the new file the
            // freed inode, and the replacement would look like the same file.)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
            try bytes.write(to: URL(fileURLWithPath: copy), options: .atomic)
            #expect(FileVersion(of: copy) != noted)
            #expect(try Vault.putAwayMergedCopy(at: copy, unchangedSince: noted, .delete) == .changed)
            #expect(try Vault.putAwayMergedCopy(at: copy, unchangedSince: noted, .move(into: dir)) == .changed)
            #expect(FileChecks.exists(copy))

            let again = try #require(FileVersion(of: copy))
            #expect(again.isSameFile(as: again) && !again.isSameFile(as: noted))
            #expect(try Vault.putAwayMergedCopy(at: copy, unchangedSince: again, .delete) == .deleted)
            #expect(!FileChecks.exists(copy))
        }
    }

    @Test("Something other than a folder where kept copies go is fileExists; a move into a missing folder is io, the copy stays")
    func folderProblems() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            let (vault, path, copy) = try Self.vaultAndCopy(dir)
            let state = dir + "/state"
            #expect(try Vault.mergedCopiesFolder(forVaultAt: path, state: .directory(state), creating: false) == state + "/merged/" + vault.vaultID)
            try FileManager.default.createDirectory(atPath: state + "/merged", withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: state + "/merged/" + vault.vaultID, contents: Data([1])))
            #expect(throws: CofferError.fileExists) { try Vault.mergedCopiesFolder(forVaultAt: path, state: .directory(state)) }
            let noted = try #require(FileVersion(of: copy))
            let error = try #require(throws: CofferError.self) {
                try Vault.putAwayMergedCopy(at: copy, unchangedSince: noted, .move(into: dir + "/missing"))
            }
            #expect(error.kind == .io && error.errno == ENOENT)
            #expect(FileVersion(of: copy) == noted)
        }
    }

    @Test("FileChecks and FileVersion: links, folders, readability, the folder of a path, removal")
    func checks() throws {
        try withTemporaryDirectory { url in
            let dir = url.path
            let file = dir + "/file", link = dir + "/link", dangling = dir + "/dangling"
            #expect(FileManager.default.createFile(atPath: file, contents: Data([1, 2])))
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "file")
            try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "absent")
            #expect(FileChecks.exists(dangling) && !FileChecks.existsFollowingLinks(dangling))
            #expect(FileChecks.existsFollowingLinks(link) && !FileChecks.exists(dir + "/absent"))
            #expect(FileChecks.isDirectory(dir) && !FileChecks.isDirectory(file))
            #expect(FileChecks.isReadableFile(link) && !FileChecks.isReadableFile(dir) && !FileChecks.isReadableFile(dangling))
            #expect(FileChecks.folder(of: file) == dir && FileChecks.folder(of: "vault.coffer") == "." && FileChecks.folder(of: "/v") == "/")

            let viaLink = try #require(FileVersion(of: link)), itself = try #require(FileVersion(of: link, followingLinks: false))
            let target = try #require(FileVersion(of: file))
            #expect(viaLink.isRegularFile && viaLink.isSameFile(as: target))
            #expect(!itself.isRegularFile && !itself.isSameFile(as: viaLink))
            #expect(try #require(FileVersion(of: dir)).isDirectory)
            #expect(FileVersion(of: dangling) == nil)

            #expect(chmod(file, 0) == 0)
            // Root reads anything; everyone else is refused.
            #expect(FileChecks.isReadableFile(file) == (geteuid() == 0))
            #expect(FileChecks.remove(link) && FileChecks.exists(file))
            #expect(!FileChecks.remove(link))
        }
    }
}
