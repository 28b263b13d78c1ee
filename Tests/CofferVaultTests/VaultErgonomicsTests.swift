import Foundation
import Testing
@testable import CofferVault
import CofferTransfer
import CofferTestSupport

/// Issue 20, finding 12: URL overloads, async create/open/unlock, LocalizedError.
@Suite("Vault: ergonomics")
struct VaultErgonomicsTests {
    // MARK: URL overloads

    @Test("A vault created at a URL opens at its path, and one created at a path opens at its URL")
    func urlRoundTrip() throws {
        try withTemporaryDirectory { dir in
            let password = try secure("pw")
            let url = dir.appendingPathComponent("a.coffer")
            let created = try Vault.create(at: url, password: password, options: testOptions)
            #expect(created.path == url.path && created.url.path == url.path)
            try created.add(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets(password: try secure("x")))
            let reopened = try Vault.open(at: url.path, password: password, options: testOptions)
            #expect(try reopened.items().count == 1)

            let path = dir.appendingPathComponent("b.coffer").path
            let key = try KeyFile.generate(at: dir.appendingPathComponent("b.key"))
            _ = try Vault.create(at: path, credential: .password(password), additional: [.keyFile(key)], options: testOptions)
            let byURL = try Vault.open(at: URL(fileURLWithPath: path), credential: .keyFile(try KeyFile(contentsOf: dir.appendingPathComponent("b.key"))),
                                       options: testOptions)
            #expect(try byURL.items().isEmpty)
            #expect(try Vault.info(at: URL(fileURLWithPath: path)) == Vault.info(at: path))
            #expect(try Vault.open(at: URL(fileURLWithPath: path), unlockCache: NoCache(), options: testOptions) == nil)

            // Both made with four other URL overloads: a credential create, merge, conflict copies, restore, destroy.
            let copyURL = dir.appendingPathComponent("a.sync-conflict-20260301-101500-ABCDEF2.coffer")
            try FileManager.default.copyItem(at: url, to: copyURL)
            try Vault.open(at: copyURL, password: password, options: testOptions)
                .add(.genericPassword(service: "t", account: "b"), secrets: ItemSecrets())
            #expect(try Vault.conflictCopies(of: url).map(\.url.path) == [copyURL.path])
            #expect(try reopened.merge(contentsOf: copyURL).added == 1)
            try Vault.restoreBackup(at: url, lockTimeout: .seconds(5))
            #expect(try Vault.open(at: url, password: password, options: testOptions).items().count == 1)
            try Vault.destroy(at: url)
            #expect(!FileManager.default.fileExists(atPath: url.path))
            _ = try Vault.create(at: dir.appendingPathComponent("c.coffer"), credential: .password(password), options: testOptions)
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("c.coffer").path))
        }
    }

    @Test("Export to and import from URLs")
    func transferURLs() throws {
        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer"), password: try secure("pw"), options: testOptions)
            try vault.add(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets(password: try secure("x")))
            let export = dir.appendingPathComponent("e.json")
            try vault.exportItems(format: .json, toFile: export)
            let copy = try Vault.create(at: dir.appendingPathComponent("w.coffer"), password: try secure("pw"), options: testOptions)
            #expect(try copy.importItems(fromFile: export, format: .cofferJSON).imported == 1)
        }
    }

    @Test("A URL that is not a file URL throws invalidArgument, and nothing is written")
    func nonFileURL() async throws {
        let web = try #require(URL(string: "https://user:token@example.com/vault.coffer"))
        let password = try secure("pw")
        #expect(throws: CofferError.invalidArgument) { _ = try Vault.create(at: web, password: password, options: testOptions) }
        #expect(throws: CofferError.invalidArgument) { _ = try Vault.create(at: web, credential: .password(password), options: testOptions) }
        #expect(throws: CofferError.invalidArgument) { _ = try Vault.open(at: web, password: password, options: testOptions) }
        #expect(throws: CofferError.invalidArgument) { _ = try Vault.open(at: web, credential: .password(password), options: testOptions) }
        #expect(throws: CofferError.invalidArgument) { _ = try Vault.open(at: web, unlockCache: NoCache(), options: testOptions) }
        #expect(throws: CofferError.invalidArgument) { _ = try Vault.info(at: web) }
        #expect(throws: CofferError.invalidArgument) { try Vault.restoreBackup(at: web) }
        #expect(throws: CofferError.invalidArgument) { try Vault.destroy(at: web) }
        #expect(throws: CofferError.invalidArgument) { _ = try Vault.conflictCopies(of: web) }
        #expect(throws: CofferError.invalidArgument) { _ = try KeyFile(contentsOf: web) }
        #expect(throws: CofferError.invalidArgument) { _ = try KeyFile.generate(at: web) }
        await #expect(throws: CofferError.invalidArgument) { _ = try await Vault.openAsync(at: web, password: password) }
        await #expect(throws: CofferError.invalidArgument) { _ = try await Vault.createAsync(at: web, password: password) }
        do {
            _ = try Vault.open(at: web, password: password)
        } catch {
            #expect(!error.description.contains("token"), "the URL is not shown in the error")
        }
    }

    // MARK: Async

    @Test("createAsync, openAsync and unlockAsync work, with URLs and paths, and throw CofferError")
    func asyncRoundTrip() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let password = try secure("pw")
            let url = dir.appendingPathComponent("a.coffer")
            let vault = try await Vault.createAsync(at: url, password: password, options: testOptions)
            try vault.add(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets())
            let opened = try await Vault.openAsync(at: url.path, password: password, options: testOptions)
            #expect(try opened.items().count == 1)
            opened.lock()
            try await opened.unlockAsync(with: .password(password))
            #expect(!opened.isLocked)
            #expect(try opened.items().count == 1)
            _ = try await Vault.openAsync(at: url, credential: .password(password), options: testOptions)
            _ = try await Vault.createAsync(at: dir.appendingPathComponent("b.coffer").path, credential: .password(password),
                                            additional: [.password(try secure("other"))], options: testOptions)
            #expect(try await Vault.openAsync(at: url, unlockCache: NoCache(), options: testOptions) == nil)
            await #expect(throws: CofferError.wrongPassword) {
                _ = try await Vault.openAsync(at: url, password: try secure("wrong"), options: testOptions)
            }
            opened.lock()
            await #expect(throws: CofferError.wrongPassword) { try await opened.unlockAsync(with: .password(try secure("wrong"))) }

            // The sync versions still resolve in an async context, without `await`.
            let sync = try Vault.open(at: url, password: password, options: testOptions)
            #expect(try sync.items().count == 1)
        }
    }

    @Test("The async entry points' work runs on Coffer's queue, outside any task and off the main thread")
    @MainActor
    func workRunsOffTheCooperativePool() async throws {
        let (inTask, onMain) = try await Vault.offloaded { () throws(CofferError) in
            (withUnsafeCurrentTask { $0 != nil }, Thread.isMainThread)
        }
        #expect(!inTask && !onMain)
        #expect(withUnsafeCurrentTask { $0 != nil })   // where the caller runs, by contrast
    }

    @Test("A task cancelled before the work starts throws CancellationError and opens nothing")
    func cancelledBeforeStart() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let password = try secure("pw")
            let url = dir.appendingPathComponent("a.coffer")
            _ = try Vault.create(at: url, password: password, options: testOptions)
            let vault = try await Vault.openAsync(at: url, password: password, options: testOptions)
            vault.lock()
            let created = dir.appendingPathComponent("b.coffer")
            let task = Task { () async -> [String] in
                withUnsafeCurrentTask { $0?.cancel() }
                var thrown: [String] = []
                func record(_ body: () async throws -> Void) async {
                    do { try await body(); thrown.append("nothing") } catch is CancellationError { thrown.append("cancelled") } catch { thrown.append("\(error)") }
                }
                await record { _ = try await Vault.openAsync(at: url, password: password, options: testOptions) }
                await record { _ = try await Vault.openAsync(at: url.path, credential: .password(password), options: testOptions) }
                await record { _ = try await Vault.createAsync(at: created, password: password, options: testOptions) }
                await record { try await vault.unlockAsync(with: .password(password)) }
                return thrown
            }
            #expect(await task.value == Array(repeating: "cancelled", count: 4))
            #expect(!FileManager.default.fileExists(atPath: created.path))
            #expect(vault.isLocked)
        }
    }

    // MARK: LocalizedError

    @Test("localizedDescription is Coffer's own message, with a reason and a suggestion where useful")
    func localizedErrors() {
        let errors: [CofferError] = [
            .wrongPassword, .kdfCostTooHigh("slots cost 2 GiB, the limit is 1 GiB"), .lockTimeout("/v/a.coffer"),
            .tampered(.manifest), .fileNotFound("/v/a.coffer"), .invalidArgument("a vault path must be a file URL"),
            .io(operation: "fsync directory", path: "/v", errno: 5),
        ]
        for error in errors {
            let any: any Error = error
            #expect(any.localizedDescription == error.description)
            #expect(!any.localizedDescription.contains("couldn"))
            #expect((any as? LocalizedError)?.errorDescription == error.description)
        }
        #expect(CofferError.wrongPassword.recoverySuggestion == "Check the password and try again.")
        #expect(CofferError.kdfCostTooHigh("x").recoverySuggestion?.contains("kdfLimit") == true)
        #expect(CofferError.lockTimeout("/v").failureReason?.contains("Another process") == true)
        #expect(CofferError.itemNotFound.recoverySuggestion == nil)
        // Equality stays on the kind.
        #expect(CofferError.invalidArgument("one") == CofferError.invalidArgument("two"))
        #expect(CofferError.lockTimeout("/a") == CofferError.lockTimeout("/b"))
    }
}


/// An unlock cache that holds nothing.
private struct NoCache: UnlockCache {
    func store(_ unlock: CachedUnlock) throws(CofferError) {}
    func cachedUnlock(forVault vaultID: String) throws(CofferError) -> CachedUnlock? { nil }
    func remove(forVault vaultID: String) throws(CofferError) {}
    func entries() throws(CofferError) -> [CachedUnlockEntry] { [] }
}
