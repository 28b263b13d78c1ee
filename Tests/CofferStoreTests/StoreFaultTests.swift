import Foundation
import Testing
@testable import CofferStore
import CofferTestSupport

/// One injected failure during a write, with the error it must produce.
enum StoreWriteFault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case openDirectory
    case createTemporary
    case setPermissions
    case writeENOSPC
    case shortWriteThenENOSPC
    case writeReturnsZero
    case writeEIO
    case fsyncTemporary
    case fstatTemporary
    case closeTemporary
    // Backup steps (replace with keepBackup only).
    case linkBackup
    case linkPreviousBackup
    case renameBackup
    case copyBackupWithoutHardLinks
    // The commit.
    case renameCommit
    case renameCommitWithoutHardLinks
    // create only.
    case linkNew

    var testDescription: String { rawValue }

    /// Faults that only happen when a `.bak` exists already.
    var needsPreviousBackup: Bool { self == .linkPreviousBackup }
    var backupStep: Bool { [.linkBackup, .linkPreviousBackup, .renameBackup, .copyBackupWithoutHardLinks].contains(self) }

    static let contentSizes = (v1: 300, v2: 400, v3: 500)

    func rules(_ f: StoreFixture) -> [StoreFaultRule] {
        let temporary: @Sendable (String) -> Bool = { $0.hasPrefix(f.directory + "/.vault.coffer.tmp-") }
        let isWriteToTemporary: @Sendable (StoreCall) -> Bool = {
            if case .write(let path, _) = $0 { temporary(path) } else { false }
        }
        let noHardLinks = StoreFaultRule(
            matches: { if case .link = $0 { true } else { false } }, injection: .fail(EPERM), times: .max)
        switch self {
        case .openDirectory:
            return [StoreFaultRule(matches: { if case .open(f.directory) = $0 { true } else { false } }, injection: .fail(EACCES))]
        case .createTemporary:
            return [StoreFaultRule(matches: { if case .open(let p) = $0 { temporary(p) } else { false } }, injection: .fail(EACCES))]
        case .setPermissions:
            return [StoreFaultRule(matches: { if case .fchmod = $0 { true } else { false } }, injection: .fail(EPERM))]
        case .writeENOSPC:
            return [StoreFaultRule(matches: isWriteToTemporary, injection: .fail(ENOSPC))]
        case .shortWriteThenENOSPC:
            return [StoreFaultRule(matches: isWriteToTemporary, injection: .shortWrite(100)),
                    StoreFaultRule(matches: isWriteToTemporary, injection: .fail(ENOSPC))]
        case .writeReturnsZero:
            return [StoreFaultRule(matches: isWriteToTemporary, injection: .shortWrite(0))]
        case .writeEIO:
            return [StoreFaultRule(matches: isWriteToTemporary, injection: .shortWrite(10)),
                    StoreFaultRule(matches: isWriteToTemporary, injection: .fail(EIO))]
        case .fsyncTemporary:
            return [StoreFaultRule(matches: { if case .fsync(let p) = $0 { temporary(p) } else { false } }, injection: .fail(EIO))]
        case .fstatTemporary:
            return [StoreFaultRule(matches: { if case .fstat(let p) = $0 { temporary(p) } else { false } }, injection: .fail(EIO))]
        case .closeTemporary:
            return [StoreFaultRule(matches: { if case .close(let p) = $0 { temporary(p) } else { false } }, injection: .fail(EIO))]
        case .linkBackup:
            return [StoreFaultRule(matches: { if case .link(f.path, _) = $0 { true } else { false } }, injection: .fail(EIO))]
        case .linkPreviousBackup:
            return [StoreFaultRule(matches: { if case .link(f.backupPath, _) = $0 { true } else { false } }, injection: .fail(EIO))]
        case .renameBackup:
            return [StoreFaultRule(matches: { if case .rename(_, f.backupPath) = $0 { true } else { false } }, injection: .fail(EIO))]
        case .copyBackupWithoutHardLinks:
            // The copy of the current file (v2) into a temporary file runs out of space.
            let size = Self.contentSizes.v2
            return [noHardLinks,
                    StoreFaultRule(matches: { if case .write(let p, size) = $0 { temporary(p) } else { false } },
                              injection: .fail(ENOSPC))]
        case .renameCommit:
            return [StoreFaultRule(matches: { if case .rename(_, f.path) = $0 { true } else { false } }, injection: .fail(EIO))]
        case .renameCommitWithoutHardLinks:
            return [noHardLinks,
                    StoreFaultRule(matches: { if case .rename(_, f.path) = $0 { true } else { false } }, injection: .fail(EIO))]
        case .linkNew:
            return [StoreFaultRule(matches: { if case .link(_, f.path) = $0 { true } else { false } }, injection: .fail(EIO))]
        }
    }

    /// Checks the thrown error: operation, errno and the path the failing call was about.
    func check(_ error: StoreError?, _ f: StoreFixture, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .system(let operation, let path, let code)? = error else {
            Issue.record("expected StoreError.system, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        let temporaryPath: (String) -> Bool = { $0.hasPrefix(f.directory + "/.vault.coffer.tmp-") }
        let expected: (operation: StoreOperation, errno: Int32, path: (String) -> Bool)
        switch self {
        case .openDirectory: expected = (StoreOperation.openDirectory, EACCES, { $0 == f.directory })
        case .createTemporary: expected = (StoreOperation.createTemporary, EACCES, temporaryPath)
        case .setPermissions: expected = (StoreOperation.setPermissions, EPERM, temporaryPath)
        case .writeENOSPC, .shortWriteThenENOSPC, .writeReturnsZero, .copyBackupWithoutHardLinks:
            expected = (StoreOperation.write, ENOSPC, temporaryPath)
        case .writeEIO: expected = (StoreOperation.write, EIO, temporaryPath)
        case .fsyncTemporary: expected = (StoreOperation.syncFile, EIO, temporaryPath)
        case .fstatTemporary: expected = (StoreOperation.stat, EIO, temporaryPath)
        case .closeTemporary: expected = (StoreOperation.close, EIO, temporaryPath)
        case .linkBackup: expected = (StoreOperation.linkBackup, EIO, { $0 == f.path })
        case .linkPreviousBackup: expected = (StoreOperation.linkBackup, EIO, { $0 == f.backupPath })
        case .renameBackup: expected = (StoreOperation.renameBackup, EIO, { $0 == f.backupPath })
        case .renameCommit, .renameCommitWithoutHardLinks: expected = (StoreOperation.commit, EIO, { $0 == f.path })
        case .linkNew: expected = (StoreOperation.linkNew, EIO, { $0 == f.path })
        }
        #expect(operation == expected.operation, sourceLocation: sourceLocation)
        #expect(code == expected.errno, sourceLocation: sourceLocation)
        #expect(expected.path(path), "path \(path)", sourceLocation: sourceLocation)
    }
}

@Suite("Store: injected faults")
struct StoreFaultTests {
    static let v1 = storeBytes("version one", count: StoreWriteFault.contentSizes.v1)
    static let v2 = storeBytes("version two", count: StoreWriteFault.contentSizes.v2)
    static let v3 = storeBytes("version three", count: StoreWriteFault.contentSizes.v3)

    /// (fault, whether a .bak exists before the failing replace)
    static let replaceCases: [(StoreWriteFault, Bool)] = StoreWriteFault.allCases
        .filter { $0 != .linkNew }
        .flatMap { fault in fault.needsPreviousBackup ? [(fault, true)] : [(fault, true), (fault, false)] }

    /// Vault = v2; with `hadBackup`, .bak = v1, else no .bak.
    static func prepare(_ f: StoreFixture, hadBackup: Bool) throws {
        if hadBackup {
            try f.store().create(v1)
            _ = try f.store().replace(with: v2, keepBackup: true)
        } else {
            try f.store().create(v2)
        }
    }

    static func expectUntouched(_ f: StoreFixture, hadBackup: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(f.contents(f.path) == v2, "vault file changed", sourceLocation: sourceLocation)
        #expect(f.contents(f.backupPath) == (hadBackup ? v1 : nil), "backup changed", sourceLocation: sourceLocation)
        #expect(f.temporaryFiles() == [], "temporary files left", sourceLocation: sourceLocation)
        #expect(f.permissions(f.path) == 0o600, sourceLocation: sourceLocation)
    }

    @Test("replace(keepBackup: true): every fault -> typed error, vault and .bak byte-identical, no temporary files",
          arguments: replaceCases)
    func replaceWithBackup(fault: StoreWriteFault, hadBackup: Bool) throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            try Self.prepare(f, hadBackup: hadBackup)
            let injector = StoreFaultInjector(fault.rules(f))
            let error = storeFailure { try f.store(injector.io).replace(with: Self.v3, keepBackup: true) }
            #expect(injector.injections > 0, "the fault was never injected")
            fault.check(error, f)
            Self.expectUntouched(f, hadBackup: hadBackup)

            // Nothing is left half-done: the next save works.
            _ = try f.store().replace(with: Self.v3, keepBackup: true)
            #expect(f.contents(f.path) == Self.v3)
            #expect(f.contents(f.backupPath) == Self.v2)
        }
    }

    @Test("replace(keepBackup: false): faults leave vault and .bak byte-identical",
          arguments: StoreWriteFault.allCases.filter { !$0.backupStep && $0 != .linkNew }, [true, false])
    func replaceWithoutBackup(fault: StoreWriteFault, hadBackup: Bool) throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            try Self.prepare(f, hadBackup: hadBackup)
            let injector = StoreFaultInjector(fault.rules(f))
            let error = storeFailure { try f.store(injector.io).replace(with: Self.v3, keepBackup: false) }
            #expect(injector.injections > 0, "the fault was never injected")
            fault.check(error, f)
            Self.expectUntouched(f, hadBackup: hadBackup)
        }
    }

    @Test("restoreBackup: faults leave vault and .bak byte-identical",
          arguments: [StoreWriteFault.createTemporary, .writeENOSPC, .fsyncTemporary, .closeTemporary, .renameCommit])
    func restoreFaults(fault: StoreWriteFault) throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            try Self.prepare(f, hadBackup: true)
            let injector = StoreFaultInjector(fault.rules(f))
            let error = storeFailure { try f.store(injector.io).restoreBackup() }
            #expect(injector.injections > 0, "the fault was never injected")
            fault.check(error, f)
            Self.expectUntouched(f, hadBackup: true)
        }
    }

    @Test("create: faults leave no vault file, no .bak and no temporary files",
          arguments: [StoreWriteFault.openDirectory, .createTemporary, .setPermissions, .writeENOSPC, .shortWriteThenENOSPC,
                      .writeReturnsZero, .writeEIO, .fsyncTemporary, .fstatTemporary, .closeTemporary, .linkNew,
                      .renameCommitWithoutHardLinks])
    func createFaults(fault: StoreWriteFault) throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            let injector = StoreFaultInjector(fault.rules(f))
            let error = storeFailure { try f.store(injector.io).create(Self.v1) }
            #expect(injector.injections > 0, "the fault was never injected")
            fault.check(error, f)
            #expect(f.contents(f.path) == nil)
            #expect(f.contents(f.backupPath) == nil)
            #expect(f.temporaryFiles() == [])
            try f.store().create(Self.v1)
            #expect(f.contents(f.path) == Self.v1)
        }
    }

    /// The directory fsync is the only step after the commit. What holds when it fails
    /// (AtomicWriter's documentation): the error is `.io(operation: "fsync directory",
    /// path: <directory>, errno:)`; the path names the NEW file, complete; `.bak` holds
    /// the previous vault file (keepBackup) or is unchanged; no temporary files.
    @Test("Directory fsync fails after the commit: typed error, new file in place, backup = previous version",
          arguments: [true, false], [true, false])
    func directorySyncAfterCommit(keepBackup: Bool, hadBackup: Bool) throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            try Self.prepare(f, hadBackup: hadBackup)
            let injector = StoreFaultInjector([
                StoreFaultRule(matches: { if case .fsync(f.directory) = $0 { true } else { false } }, injection: .fail(EIO)),
            ])
            let error = storeFailure { try f.store(injector.io).replace(with: Self.v3, keepBackup: keepBackup) }
            #expect(injector.injections == 1)
            #expect(error == .system(.syncDirectory, path: f.directory, errno: EIO))
            #expect(f.contents(f.path) == Self.v3)
            #expect(f.permissions(f.path) == 0o600)
            let expectedBackup = keepBackup ? Self.v2 : (hadBackup ? Self.v1 : nil)
            #expect(f.contents(f.backupPath) == expectedBackup)
            #expect(f.temporaryFiles() == [])
            #expect(try f.store().read().bytes == Self.v3)
        }
    }

    @Test("Directory fsync fails after create: typed error, the new file is in place")
    func directorySyncAfterCreate() throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            let injector = StoreFaultInjector([
                StoreFaultRule(matches: { if case .fsync(f.directory) = $0 { true } else { false } }, injection: .fail(EIO)),
            ])
            let error = storeFailure { try f.store(injector.io).create(Self.v1) }
            #expect(error == .system(.syncDirectory, path: f.directory, errno: EIO))
            #expect(f.contents(f.path) == Self.v1)
            #expect(f.temporaryFiles() == [])
        }
    }

    @Test("A file system that cannot fsync directories (EINVAL) is not an error")
    func directorySyncUnsupported() throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            try Self.prepare(f, hadBackup: true)
            let injector = StoreFaultInjector([
                StoreFaultRule(matches: { if case .fsync(f.directory) = $0 { true } else { false } }, injection: .fail(EINVAL)),
            ])
            _ = try f.store(injector.io).replace(with: Self.v3, keepBackup: true)
            #expect(injector.injections == 1)
            #expect(f.contents(f.path) == Self.v3)
            #expect(f.contents(f.backupPath) == Self.v2)
        }
    }

    @Test("Double fault: the commit fails and putting the previous .bak back fails too")
    func rollbackFails() throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            try Self.prepare(f, hadBackup: true)
            // The commit rename fails; after that, every rename to .bak (putting the
            // previous backup back) fails too.
            let live = FileIO.live
            var io = live
            let commitFailed = StoreFlag(false)
            io.rename = { from, to in
                if to == f.path {
                    commitFailed.value = true
                    return .failure(EIO)
                }
                if to == f.backupPath && commitFailed.value { return .failure(EIO) }
                return live.rename(from, to)
            }
            let error = storeFailure { try f.store(io).replace(with: Self.v3, keepBackup: true) }
            #expect(error == .system(.commit, path: f.path, errno: EIO))
            // The vault file is intact; .bak holds a copy of it (documented double-fault state).
            #expect(f.contents(f.path) == Self.v2)
            #expect(f.contents(f.backupPath) == Self.v2)
            #expect(f.temporaryFiles() == [])
        }
    }
}
