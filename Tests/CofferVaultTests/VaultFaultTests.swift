import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// Fault injection at every I/O step of a vault save, through the public `Vault` API over
/// the store's `FileIO` seam (StoreFaultTests covers the store on its own).
///
/// A clean save is recorded call by call; then, for every call of that sequence and every
/// fault that call can meet (short write, ENOSPC, EIO on write and fsync, failed rename and
/// link, failed directory fsync, ...), a fresh vault is saved with exactly that call failing:
/// - a failure up to the commit rename throws a typed `CofferError.io` carrying the injected
///   errno; the vault file and its `.bak` are byte-for-byte as before; no temporary file is
///   left; the open `Vault` still lists and reads its items, and the same change saves once
///   the fault is gone;
/// - a failed directory fsync (after the commit) throws `.io(operation: "fsync directory")`:
///   the new version is in place, `.bak` holds the previous one, and the next save works;
/// - failures of best-effort calls (listing or removing temporary files, closing a read-only
///   descriptor) and fallbacks (EPERM on link: copies instead of hard links; short writes that
///   are retried) do not fail the save; a temporary file left behind is removed by the next save.
@Suite("Vault: faults at every I/O step of a save", .serialized)
struct VaultFaultTests {
    static let password = "fault-test-password"

    struct Setup: Sendable, CustomTestStringConvertible {
        /// A `.bak` exists before the faulty save.
        let hadBackup: Bool
        /// The faulty save keeps a backup.
        let keepsBackup: Bool
        var testDescription: String { "hadBackup \(hadBackup), keepsBackup \(keepsBackup)" }
    }

    static let setups = [Setup(hadBackup: true, keepsBackup: true), Setup(hadBackup: false, keepsBackup: true),
                         Setup(hadBackup: true, keepsBackup: false)]

    enum Expected: Equatable, CustomStringConvertible {
        /// Typed error with this errno; file, backup and open vault unchanged.
        case failsUnchanged(Int32)
        /// The save succeeds (best-effort call or fallback).
        case succeeds
        /// `.io(fsync directory)`: the new version is in place.
        case committedNotDurable

        var description: String {
            switch self {
            case .failsUnchanged(let code): return "fails with errno \(code), nothing changed"
            case .succeeds: return "succeeds"
            case .committedNotDurable: return "committed, directory fsync error"
            }
        }
    }

    /// The faults to inject at one call: the first at the call itself, any further ones at
    /// the following calls of the same kind.
    static func faults(for call: StoreCall) -> [[StoreInjection]] {
        switch call {
        case .write: return [[.fail(ENOSPC)], [.fail(EIO)], [.shortWrite(0)], [.shortWrite(7)], [.shortWrite(7), .fail(ENOSPC)]]
        case .link: return [[.fail(EIO)], [.fail(EPERM)]]
        case .open: return [[.fail(EACCES)], [.fail(EMFILE)]]
        case .fchmod: return [[.fail(EPERM)]]
        case .flock: return [[.fail(ENOLCK)]]
        case .rename: return [[.fail(EIO)], [.fail(ENOSPC)]]
        default: return [[.fail(EIO)]]
        }
    }

    static func expectation(_ call: StoreCall, _ faults: [StoreInjection], _ f: StoreFixture) -> Expected {
        let last = faults.last ?? .fail(0)
        switch (call, last) {
        case (.listDirectory, _), (.unlink, _): return .succeeds
        // The vault file itself is closed only after reading (the descriptor an open held to
        // read its records in windows): nothing was written through it.
        case (.close(let path), _) where path == f.directory || path == f.lockPath || path == f.path: return .succeeds
        case (.fsync(let path), _) where path == f.directory: return .committedNotDurable
        case (.link, .fail(EPERM)): return .succeeds
        case (.write, .shortWrite(let n)) where n > 0: return .succeeds
        case (_, .shortWrite), (_, .shortRead): return .failsUnchanged(ENOSPC)
        case (_, .fail(let code)): return .failsUnchanged(code)
        }
    }

    /// A call with the fixture's paths shortened, for the figures.
    static func describe(_ call: StoreCall, _ f: StoreFixture) -> String {
        String(describing: call).replacingOccurrences(of: f.directory + "/", with: "")
            .replacingOccurrences(of: f.directory, with: "DIR")
            .replacingOccurrences(of: #"\.tmp-[0-9a-f]{16}"#, with: ".tmp-*", options: .regularExpression)
    }

    static func kind(_ call: StoreCall) -> String {
        String(String(describing: call).prefix { $0 != "(" })
    }

    /// Fails the `occurrence`-th call of `kind` (counting from 0) once armed, with `faults[0]`, and
    /// the following calls of that kind with the rest of `faults`. Counting calls
    /// of one kind, not all calls, keeps the target on the recorded step even when an
    /// unrelated call (a stale-temp cleanup, a retried lock poll) comes or goes under load.
    static func injector(occurrence: Int, faults: [StoreInjection], kind: String, armed: StoreFlag) -> StoreFaultInjector {
        let counter = StoreLocked(0)
        let fired = StoreFlag(false)
        var rules = [StoreFaultRule(matches: { call in
            guard armed.value, !fired.value, Self.kind(call) == kind else { return false }
            let at = counter.value
            counter.value = at + 1
            if at == occurrence { fired.value = true }
            return at == occurrence
        }, injection: faults[0])]
        for fault in faults.dropFirst() {
            rules.append(StoreFaultRule(matches: { call in fired.value && Self.kind(call) == kind }, injection: fault))
        }
        return StoreFaultInjector(rules)
    }

    /// A vault with two items; `.bak` exists when `hadBackup`.
    static func prepare(_ f: StoreFixture, _ setup: Setup) throws {
        var options = testOptions
        options.keepsBackup = setup.hadBackup
        let vault = try Vault.create(at: f.path, password: try secure(password), options: options)
        try vault.add(.genericPassword(service: "a", account: "x"), secrets: ItemSecrets(password: try secure("secret-a")))
        try vault.add(.genericPassword(service: "b", account: "x"), secrets: ItemSecrets(password: try secure("secret-b")))
        #expect((Reliability.contents(f.backupPath) != nil) == setup.hadBackup)
    }

    static func open(_ f: StoreFixture, _ setup: Setup, io: FileIO) throws -> Vault {
        var options = testOptions
        options.keepsBackup = setup.keepsBackup
        return try Vault.open(at: f.path, credential: .password(try secure(password)), options: options,
                              entropy: .system, store: f.store(io))
    }

    static func services(_ vault: Vault) throws -> Set<String> { Set(try vault.items().compactMap(\.service)) }

    static func reopenedServices(_ f: StoreFixture) throws -> Set<String> {
        try services(try Vault.open(at: f.path, password: try secure(password), options: testOptions))
    }

    /// The calls of one clean `vault.add` in this setup, and the fixture they were made in
    /// (to tell the directory's and the lock file's calls from the others).
    static func cleanSaveCalls(_ setup: Setup) throws -> ([StoreCall], StoreFixture) {
        try withTemporaryDirectory { url in
            let f = StoreFixture(url)
            try prepare(f, setup)
            let recorder = StoreFaultInjector([])
            let vault = try open(f, setup, io: recorder.io)
            let offset = recorder.calls.count
            try vault.add(.genericPassword(service: "new", account: "x"))
            return (Array(recorder.calls.dropFirst(offset)), f)
        }
    }

    @Test("Every call of a save, every fault: typed error and nothing changed, or the documented outcome", arguments: setups)
    func everyStepOfASave(setup: Setup) throws {
        let (calls, recorded) = try Self.cleanSaveCalls(setup)
        Reliability.figure("save calls \(setup.testDescription)", calls.map { Self.describe($0, recorded) }.joined(separator: " "))
        #expect(calls.count >= 15, "\(calls)")
        #expect(calls.contains { if case .fsync = $0 { true } else { false } })
        var injected = 0, scenarios = 0, typedErrors = 0, untouched = 0, committed = 0, tolerated = 0
        for (index, call) in calls.enumerated() {
            for faults in Self.faults(for: call) {
                try withTemporaryDirectory { url in
                    let f = StoreFixture(url)
                    let expected = Self.expectation(call, faults, recorded)
                    let what = "call \(index) \(call), faults \(faults): expected \(expected)"
                    try Self.prepare(f, setup)
                    let before = Reliability.contents(f.path), backupBefore = Reliability.contents(f.backupPath)
                    let armed = StoreFlag(false)
                    let kind = Self.kind(call)
                    let occurrence = calls[..<index].filter { Self.kind($0) == kind }.count
                    let injector = Self.injector(occurrence: occurrence, faults: faults, kind: kind, armed: armed)
                    let vault = try Self.open(f, setup, io: injector.io)
                    armed.value = true
                    let error = storeError { try vault.add(.genericPassword(service: "new", account: "x")) }
                    #expect(injector.injections == faults.count, "\(what): \(injector.injections) injected")
                    injected += injector.injections
                    scenarios += 1

                    switch expected {
                    case .failsUnchanged(let code):
                        guard error?.kind == .io, error?.errno == code else {
                            Issue.record("\(what): got \(String(describing: error))")
                            return
                        }
                        typedErrors += 1
                        let intact = Reliability.contents(f.path) == before && Reliability.contents(f.backupPath) == backupBefore
                        #expect(Reliability.contents(f.path) == before, "\(what): vault file changed")
                        #expect(Reliability.contents(f.backupPath) == backupBefore, "\(what): backup changed")
                        if intact { untouched += 1 }
                        #expect(f.temporaryFiles().isEmpty, "\(what): left \(f.temporaryFiles())")
                        // The open vault is as it was, and the same change saves now.
                        #expect(try Self.services(vault) == ["a", "b"], "\(what)")
                        let a = try #require(try vault.firstItem(matching: ItemQuery(service: "a")))
                        #expect(try vault.secrets(for: a.id).password?.testString == "secret-a")
                        try vault.add(.genericPassword(service: "new", account: "x"))
                        #expect(try Self.reopenedServices(f) == ["a", "b", "new"], "\(what)")

                    case .succeeds:
                        #expect(error == nil, "\(what): \(String(describing: error))")
                        tolerated += 1
                        #expect(try Self.reopenedServices(f) == ["a", "b", "new"], "\(what)")
                        #expect(Reliability.contents(f.backupPath) == (setup.keepsBackup ? before : backupBefore), "\(what): backup")

                    case .committedNotDurable:
                        #expect(error?.kind == .io, "\(what)")
                        #expect(error?.path == f.directory, "\(what)")
                        #expect(error?.errno == EIO, "\(what)")
                        typedErrors += 1
                        committed += 1
                        #expect(try Self.reopenedServices(f) == ["a", "b", "new"], "\(what)")
                        #expect(Reliability.contents(f.backupPath) == (setup.keepsBackup ? before : backupBefore), "\(what): backup")
                        #expect(f.temporaryFiles().isEmpty, "\(what): left \(f.temporaryFiles())")
                        #expect(try Self.services(vault) == ["a", "b", "new"], "\(what): the open vault")
                    }
                    // Whatever happened, the next save works, finds no conflict, and leaves no temporary file.
                    try vault.add(.genericPassword(service: "later", account: "x"))
                    #expect(try Self.reopenedServices(f) == ["a", "b", "new", "later"], "\(what)")
                    #expect(f.temporaryFiles().isEmpty, "\(what): left \(f.temporaryFiles()) after the next save")
                }
            }
        }
        Reliability.figure("faults \(setup.testDescription)",
                           "\(calls.count) I/O calls in a save, \(scenarios) scenarios, \(injected) faults injected: "
                           + "\(typedErrors) typed errors (\(untouched) with vault and .bak byte-identical, "
                           + "\(committed) directory-fsync errors after the commit), \(tolerated) tolerated (save succeeded)")
    }

    @Test("Every call of Vault.create, every fault: typed error and no file, or a complete vault")
    func everyStepOfCreate() throws {
        let (calls, recorded): ([StoreCall], StoreFixture) = try withTemporaryDirectory { url in
            let f = StoreFixture(url)
            let recorder = StoreFaultInjector([])
            _ = try Vault.create(at: f.path, credentials: [.password(try secure(Self.password))], options: testOptions,
                                 entropy: .system, store: f.store(recorder.io))
            return (recorder.calls, f)
        }
        #expect(calls.count >= 12, "\(calls)")
        var injected = 0, scenarios = 0, typedErrors = 0, tolerated = 0
        for (index, call) in calls.enumerated() {
            for faults in Self.faults(for: call) {
                try withTemporaryDirectory { url in
                    let f = StoreFixture(url)
                    // (EPERM on link: without hard links, create checks, then renames.)
                    let expected = Self.expectation(call, faults, recorded)
                    let what = "call \(index) \(call), faults \(faults): expected \(expected)"
                    let armed = StoreFlag(true)
                    let kind = Self.kind(call)
                    let occurrence = calls[..<index].filter { Self.kind($0) == kind }.count
                    let injector = Self.injector(occurrence: occurrence, faults: faults, kind: kind, armed: armed)
                    var vault: Vault?
                    let error = storeError {
                        vault = try Vault.create(at: f.path, credentials: [.password(try secure(Self.password))],
                                                 options: testOptions, entropy: .system, store: f.store(injector.io))
                    }
                    injected += injector.injections
                    scenarios += 1
                    switch expected {
                    case .failsUnchanged(let code):
                        guard error?.kind == .io, error?.errno == code else {
                            Issue.record("\(what): got \(String(describing: error))")
                            return
                        }
                        typedErrors += 1
                        #expect(Reliability.contents(f.path) == nil, "\(what): a vault file exists")
                        #expect(f.temporaryFiles().isEmpty, "\(what): left \(f.temporaryFiles())")
                        vault = try Vault.create(at: f.path, password: try secure(Self.password), options: testOptions)
                    case .succeeds:
                        #expect(error == nil, "\(what): \(String(describing: error))")
                        tolerated += 1
                    case .committedNotDurable:
                        // The file is complete and in place; only its durability is unknown.
                        #expect(error?.kind == .io, "\(what)")
                        #expect(error?.path == f.directory, "\(what)")
                        #expect(error?.errno == EIO, "\(what)")
                        #expect(vault == nil)
                        vault = try Vault.open(at: f.path, password: try secure(Self.password), options: testOptions)
                    }
                    try #require(vault).add(.secureNote(title: "first"))
                    #expect(try Self.reopenedServices(f).isEmpty)
                    #expect(try Vault.open(at: f.path, password: try secure(Self.password), options: testOptions).items().count == 1)
                    #expect(f.temporaryFiles().isEmpty, "\(what): left \(f.temporaryFiles()) after the next save")
                }
            }
        }
        Reliability.figure("faults create", "\(calls.count) I/O calls in Vault.create, \(scenarios) scenarios, \(injected) faults injected: "
                           + "\(typedErrors) typed errors with no file left, \(tolerated) tolerated, "
                           + "\(scenarios - typedErrors - tolerated) directory-fsync errors with a complete vault in place")
    }
}
