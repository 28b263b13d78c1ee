import Foundation
import Testing
import CofferCrypto
@testable import CofferStore

/// One system call of the store, as the fault injector sees it: descriptors are
/// resolved to the path they were opened with.
package enum StoreCall: Sendable, CustomStringConvertible {
    case open(path: String)
    case close(path: String)
    case read(path: String)
    case write(path: String, count: Int)
    case fsync(path: String)
    case fchmod(path: String)
    case fstat(path: String)
    case stat(path: String)
    case lstat(path: String)
    case rename(from: String, to: String)
    case link(existing: String, new: String)
    case unlink(path: String)
    case makeDirectory(path: String)
    case listDirectory(path: String)
    case flock(path: String, operation: Int32)

    package var description: String {
        switch self {
        case .open(let p): return "open(\(p))"
        case .close(let p): return "close(\(p))"
        case .read(let p): return "read(\(p))"
        case .write(let p, let n): return "write(\(p), \(n))"
        case .fsync(let p): return "fsync(\(p))"
        case .fchmod(let p): return "fchmod(\(p))"
        case .fstat(let p): return "fstat(\(p))"
        case .stat(let p): return "stat(\(p))"
        case .lstat(let p): return "lstat(\(p))"
        case .rename(let a, let b): return "rename(\(a), \(b))"
        case .link(let a, let b): return "link(\(a), \(b))"
        case .unlink(let p): return "unlink(\(p))"
        case .makeDirectory(let p): return "mkdir(\(p))"
        case .listDirectory(let p): return "listDirectory(\(p))"
        case .flock(let p, let op): return "flock(\(p), \(op))"
        }
    }
}

/// What the injector does with a call.
package enum StoreInjection: Sendable {
    /// Fail with this errno without making the call.
    case fail(Int32)
    /// `write` only: write at most this many bytes (0: write nothing, return 0).
    case shortWrite(Int)
    /// `read` only: read at most this many bytes (0: read nothing, return 0 as at the end).
    case shortRead(Int)
}

/// A fault rule: when `matches` a call, apply `injection`, at most `times` times.
package struct StoreFaultRule: Sendable {
    package var matches: @Sendable (StoreCall) -> Bool
    package var injection: StoreInjection
    package var times: Int = 1

    package init(matches: @escaping @Sendable (StoreCall) -> Bool, injection: StoreInjection, times: Int = 1) {
        self.matches = matches
        self.injection = injection
        self.times = times
    }
}

/// Builds a `FileIO` that forwards to `.live` and applies the first matching rule
/// that has not been used up. Records every call.
package final class StoreFaultInjector: @unchecked Sendable {
    private let lock = NSLock()
    private var descriptors: [Int32: String] = [:]
    private var rules: [StoreFaultRule]
    private var log: [StoreCall] = []
    private var fired = 0

    package init(_ rules: [StoreFaultRule]) { self.rules = rules }

    // NSLocking.withLock needs macOS 14; the package supports macOS 13.
    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// How many calls were changed by a rule.
    package var injections: Int { locked { fired } }
    package var calls: [StoreCall] { locked { log } }

    private func pathOf(_ fd: Int32) -> String { locked { descriptors[fd] ?? "fd \(fd)" } }

    private func decide(_ call: StoreCall) -> StoreInjection? {
        locked {
            log.append(call)
            guard let index = rules.firstIndex(where: { $0.times > 0 && $0.matches(call) }) else { return nil }
            rules[index].times -= 1
            fired += 1
            return rules[index].injection
        }
    }

    package var io: FileIO {
        let live = FileIO.live
        var io = live
        io.open = { path, flags, mode in
            if case .fail(let code) = self.decide(.open(path: path)) { return .failure(code) }
            let outcome = live.open(path, flags, mode)
            if !outcome.failed { self.locked { self.descriptors[Int32(outcome.value)] = path } }
            return outcome
        }
        io.close = { fd in
            let path = self.pathOf(fd)
            self.locked { _ = self.descriptors.removeValue(forKey: fd) }
            // The descriptor is closed even when the injected close "fails", as on Linux.
            let outcome = live.close(fd)
            if case .fail(let code) = self.decide(.close(path: path)) { return .failure(code) }
            return outcome
        }
        io.read = { fd, buffer in
            switch self.decide(.read(path: self.pathOf(fd))) {
            case .fail(let code): return .failure(code)
            case .shortRead(let limit):
                if limit == 0 { return .success(0) }
                return live.read(fd, UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(limit)))
            case .shortWrite, nil: return live.read(fd, buffer)
            }
        }
        io.readAt = { fd, buffer, offset in
            switch self.decide(.read(path: self.pathOf(fd))) {
            case .fail(let code): return .failure(code)
            case .shortRead(let limit):
                if limit == 0 { return .success(0) }
                return live.readAt(fd, UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(limit)), offset)
            case .shortWrite, nil: return live.readAt(fd, buffer, offset)
            }
        }
        io.write = { fd, buffer in
            switch self.decide(.write(path: self.pathOf(fd), count: buffer.count)) {
            case .fail(let code): return .failure(code)
            case .shortWrite(let limit):
                if limit == 0 { return .success(0) }
                return live.write(fd, UnsafeRawBufferPointer(rebasing: buffer.prefix(limit)))
            case .shortRead, nil: return live.write(fd, buffer)
            }
        }
        io.fsync = { fd in
            if case .fail(let code) = self.decide(.fsync(path: self.pathOf(fd))) { return .failure(code) }
            return live.fsync(fd)
        }
        io.fchmod = { fd, mode in
            if case .fail(let code) = self.decide(.fchmod(path: self.pathOf(fd))) { return .failure(code) }
            return live.fchmod(fd, mode)
        }
        io.fstat = { fd in
            if case .fail(let code) = self.decide(.fstat(path: self.pathOf(fd))) { return (nil, code) }
            return live.fstat(fd)
        }
        io.stat = { path in
            if case .fail(let code) = self.decide(.stat(path: path)) { return (nil, code) }
            return live.stat(path)
        }
        io.lstat = { path in
            if case .fail(let code) = self.decide(.lstat(path: path)) { return (nil, code) }
            return live.lstat(path)
        }
        io.rename = { from, to in
            if case .fail(let code) = self.decide(.rename(from: from, to: to)) { return .failure(code) }
            return live.rename(from, to)
        }
        io.link = { existing, new in
            if case .fail(let code) = self.decide(.link(existing: existing, new: new)) { return .failure(code) }
            return live.link(existing, new)
        }
        io.unlink = { path in
            if case .fail(let code) = self.decide(.unlink(path: path)) { return .failure(code) }
            return live.unlink(path)
        }
        io.makeDirectory = { path, mode in
            if case .fail(let code) = self.decide(.makeDirectory(path: path)) { return .failure(code) }
            return live.makeDirectory(path, mode)
        }
        io.listDirectory = { path in
            if case .fail(let code) = self.decide(.listDirectory(path: path)) { return (nil, code) }
            return live.listDirectory(path)
        }
        io.flock = { fd, operation in
            if case .fail(let code) = self.decide(.flock(path: self.pathOf(fd), operation: operation)) {
                return .failure(code)
            }
            return live.flock(fd, operation)
        }
        return io
    }
}

/// Paths and file helpers for one vault in a temporary directory; checks use
/// Foundation directly, not the store's seam.
package struct StoreFixture {
    package let directory: String
    package var path: String { directory + "/vault.coffer" }
    package var backupPath: String { path + ".bak" }
    package var lockPath: String { path + ".lock" }

    package init(_ url: URL) { directory = url.path }

    package func store(_ io: FileIO = .live) -> VaultFileStore { VaultFileStore(path: path, io: io) }

    package func contents(_ file: String) -> [UInt8]? {
        FileManager.default.contents(atPath: file).map { Array($0) }
    }

    package func permissions(_ file: String) -> Int? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file)
        return (attributes?[.posixPermissions] as? NSNumber)?.intValue
    }

    /// Names in the directory that look like temporary files.
    package func temporaryFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.contains(".tmp-") }
    }

    package func write(_ bytes: [UInt8], to file: String) {
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
    }
}

/// Runs `body` and returns the `CofferError` it threw, or nil. Any other error is a
/// test failure. (The closure is untyped: Swift 6 does not infer typed throws for
/// closures; the store's own signatures are typed.)
package func storeError<R>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R) -> CofferError? {
    do {
        _ = try body()
        return nil
    } catch let error as CofferError {
        return error
    } catch let error as StoreError {
        return CofferError(error)
    } catch {
        Issue.record("not a CofferError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Runs a store call and returns the `StoreError` it threw, or nil: the store's own
/// error, with its operation, path and errno.
package func storeFailure<R>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R) -> StoreError? {
    do {
        _ = try body()
        return nil
    } catch let error as StoreError {
        return error
    } catch {
        Issue.record("not a StoreError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Distinct, recognisable contents.
package func storeBytes(_ label: String, count: Int = 300) -> [UInt8] {
    let seed = Array(label.utf8)
    return (0..<count).map { seed[$0 % seed.count] &+ UInt8(truncatingIfNeeded: $0 / seed.count) }
}

/// A thread-safe value for test seams and threads.
package final class StoreLocked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    package init(_ value: Value) { stored = value }
    package var value: Value {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

package typealias StoreFlag = StoreLocked<Bool>
