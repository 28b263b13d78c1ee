import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// Crash safety (RELIABILITY.md): a writer process saving continuously is killed with
/// SIGKILL at random moments. After every kill the vault opens, holds exactly one of the
/// states that were committed (nothing lost, nothing half-written), its backup holds the
/// state before, and temporary files left by the killed writer are removed by the next write.
@Suite("Vault: SIGKILL during saves", .serialized)
struct VaultKilledSaveTests {
    static let password = "crash-test-password"

    /// The model of `CrashState` in Tests/CofferTestWriter/main.swift.
    enum Model {
        static func notes(_ n: Int) -> String {
            let unit = "state \(n) "
            let length = (n * 97) % 3000
            return String(String(repeating: unit, count: length / unit.utf8.count + 1).utf8.prefix(length)) ?? ""
        }

        static func expectedItems(_ n: Int) -> Set<String> {
            Set(["counter"] + (n >= 1 ? (max(1, n - 2)...n).map { "item-\($0)" } : []))
        }

        /// State 0: the counter alone.
        static func makeInitial(at path: String) throws -> Vault {
            let vault = try Vault.create(at: path, password: try secure(password), options: testOptions)
            var attributes = ItemAttributes.genericPassword(service: "counter", account: "state")
            attributes.fields = [CustomField(name: "seq", value: "0")]
            try vault.add(attributes, secrets: ItemSecrets(password: try secure("pw-0"), notes: try secure(notes(0))))
            return vault
        }

        /// Checks that the vault at `path` is exactly state n for some n; returns n.
        static func check(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
            let vault = try Vault.open(at: path, password: try secure(password), options: testOptions)
            let items = try vault.items()
            let counter = try #require(items.first { $0.service == "counter" }, sourceLocation: sourceLocation)
            let n = try #require(counter.fields.first { $0.name == "seq" }.flatMap { Int($0.value) }, sourceLocation: sourceLocation)
            #expect(Set(items.compactMap(\.service)) == expectedItems(n) && items.count == expectedItems(n).count,
                    "state \(n): items \(items.compactMap(\.service).sorted())", sourceLocation: sourceLocation)
            #expect(vault.generation == UInt64(n) + 2, "state \(n): generation \(vault.generation)", sourceLocation: sourceLocation)
            let secrets = try vault.secrets(for: counter.id)
            #expect(secrets.password?.testString == "pw-\(n)", sourceLocation: sourceLocation)
            #expect(secrets.notes?.testString == notes(n), "state \(n): notes", sourceLocation: sourceLocation)
            let history = secrets.passwordHistory.compactMap { $0.password.testString }
            #expect(history == (max(0, n - 10)..<n).reversed().map { "pw-\($0)" }, "state \(n): history \(history)",
                    sourceLocation: sourceLocation)
            for item in items where item.service != "counter" {
                let k = item.service?.dropFirst("item-".count) ?? ""
                #expect(try vault.secrets(for: item.id).password?.testString == "secret-\(k)", sourceLocation: sourceLocation)
            }
            return n
        }
    }

    /// Complete lines of the writer's state log.
    static func loggedStates(_ path: String) -> [Int] {
        guard let bytes = Reliability.contents(path) else { return [] }
        let complete = bytes.lastIndex(of: 0x0A).map { bytes[...$0] } ?? []
        return String(decoding: complete, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
    }

    @Test("SIGKILL at random moments of continuous saves (200 times): every time the vault opens and holds a committed state")
    func killDuringSaves() throws {
        let kills = Reliability.setting("COFFER_RELIABILITY_KILLS", 200)
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("crash.coffer").path
            let log = dir.appendingPathComponent("states.log").path
            _ = try Model.makeInitial(at: path)
            var current = try Model.check(path)
            #expect(current == 0)

            var statesCommitted = 0, killsAfterCommitBeforeLog = 0, killsLeavingTemporaries = 0
            var temporariesLeft = 0, temporariesCleaned = 0, killsBeforeAnySave = 0, backupsChecked = 0
            var leftovers: Set<String> = []
            var generator = SystemRandomNumberGenerator()
            for round in 0..<kills {
                let loggedBefore = Self.loggedStates(log).count
                let writer = try ReliabilityChild("CofferTestWriter", ["save-loop", path, log, "20"], stdin: Self.password + "\n")
                guard writer.waitForLine("ready") else {
                    let result = writer.finish()
                    Issue.record("round \(round): the writer did not start: \(result.stderr)")
                    return
                }
                usleep(UInt32.random(in: 0...25_000, using: &generator))
                writer.kill()
                let result = writer.finish()
                #expect(result.killed, "round \(round): the writer exited by itself: \(result.stderr)")

                // What the writer reported committed, in order, continuing from the state it found.
                let logged = Array(Self.loggedStates(log).dropFirst(loggedBefore))
                #expect(logged == Array((current + 1)..<(current + 1 + logged.count)), "round \(round): log \(logged)")
                let lastLogged = current + logged.count

                // The vault opens and holds the last logged state, or the one after it when the
                // kill came after the rename but before the log line.
                let n = try Model.check(path)
                #expect(n == lastLogged || n == lastLogged + 1, "round \(round): state \(n), last logged \(lastLogged)")
                if n == lastLogged + 1 { killsAfterCommitBeforeLog += 1 }
                if n == current { killsBeforeAnySave += 1 }

                // The backup is the state before, or (killed between the backup link and the
                // commit rename) the same state.
                if n >= 1 {
                    let backup = try Model.check(path + ".bak")
                    #expect(backup == n - 1 || backup == n, "round \(round): backup state \(backup) for state \(n)")
                    backupsChecked += 1
                }

                // Temporary files of earlier kills are gone once a save has run since.
                let now = Reliability.temporaryFiles(in: dir.path)
                if n > current {
                    #expect(now.isDisjoint(with: leftovers), "round \(round): \(now.intersection(leftovers)) survived a write")
                }
                let appeared = now.subtracting(leftovers)
                if !appeared.isEmpty { killsLeavingTemporaries += 1 }
                temporariesLeft += appeared.count
                temporariesCleaned += leftovers.subtracting(now).count
                leftovers = now
                statesCommitted += n - current
                current = n
            }

            // One more write in this process removes whatever the last kill left.
            let vault = try Vault.open(at: path, password: try secure(Self.password), options: testOptions)
            try vault.add(.secureNote(title: "after the kills"))
            #expect(Reliability.temporaryFiles(in: dir.path).isEmpty)
            temporariesCleaned += leftovers.count
            #expect(temporariesCleaned == temporariesLeft)

            Reliability.figure("crash", "\(kills) SIGKILLs survived; \(statesCommitted) states committed and checked; "
                + "\(killsAfterCommitBeforeLog) kills between the commit rename and the return of the save; "
                + "\(killsBeforeAnySave) kills before the first save completed; \(killsLeavingTemporaries) kills left "
                + "\(temporariesLeft) temporary files, \(temporariesCleaned) removed by the next write; \(backupsChecked) backups checked")
        }
    }
}
