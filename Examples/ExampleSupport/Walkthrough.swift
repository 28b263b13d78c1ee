// Shared by the examples: the narrated, self-checking walk-through and the
// `--interactive` switch. Each example's main.swift calls `exampleMain`.
import Coffer
import Foundation

/// Runs the scripted walk-through (the default) or, with `--interactive`, the menu.
/// Both get a data folder: a fresh temporary one, or `--dir PATH` in interactive mode.
public func exampleMain(_ title: String,
                        walkthrough: (URL) throws -> Void,
                        interactive: (URL) throws -> Void) -> Never {
    let arguments = CommandLine.arguments.dropFirst()
    print(title)
    if arguments.contains("--interactive") {
        var folder: URL?
        if let i = arguments.firstIndex(of: "--dir"), arguments.index(after: i) < arguments.endIndex {
            folder = URL(fileURLWithPath: arguments[arguments.index(after: i)], isDirectory: true)
        }
        let keep = folder != nil
        do {
            let dir = try folder ?? makeTemporaryFolder()
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            print(keep ? "Data folder: \(dir.path)" : "Data folder: \(dir.path) (deleted on exit; pass --dir PATH to keep it)")
            defer { if !keep { try? FileManager.default.removeItem(at: dir) } }
            try interactive(dir)
        } catch {
            print("error: \(error)")
            exit(1)
        }
        exit(0)
    }
    let dir: URL
    do {
        dir = try makeTemporaryFolder()
    } catch {
        print("cannot create a temporary folder: \(error)")
        exit(1)
    }
    do {
        try walkthrough(dir)
    } catch {
        check(false, "unexpected error: \(error)")
    }
    try? FileManager.default.removeItem(at: dir)
    let failed = Checks.shared.failed
    print("\n\(Checks.shared.passed) checks passed, \(failed) failed")
    exit(failed == 0 ? 0 : 1)
}

/// A new empty folder under the system's temporary directory.
public func makeTemporaryFolder() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(temporaryFolderPrefix + UUID().uuidString)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

private let temporaryFolderPrefix = "coffer-example-"

/// True for a folder made by ``makeTemporaryFolder()``, which `exampleMain` deletes on exit
/// (what an example keeps elsewhere for it, e.g. in the kernel keyring, should go too).
public func isTemporaryFolder(_ folder: URL) -> Bool {
    folder.lastPathComponent.hasPrefix(temporaryFolderPrefix)
        && folder.deletingLastPathComponent().standardizedFileURL.path
            == FileManager.default.temporaryDirectory.standardizedFileURL.path
}

// MARK: Narration and checks

/// Prints a heading for the next part of the story.
public func section(_ title: String) { print("\n== \(title)") }

/// Prints what the walk-through does next.
public func step(_ text: String) { print("  • \(text)") }

/// Prints ✓ or ✗; any ✗ makes the program exit 1 at the end.
public func check(_ condition: Bool, _ message: String) {
    Checks.shared.record(condition)
    print("  \(condition ? "✓" : "✗") \(message)")
}

/// Checks that `body` throws `expected`, and shows the message the user would see.
public func checkFails<E: Error & Equatable>(_ message: String, with expected: E, _ body: () throws -> Void) {
    do {
        try body()
        check(false, "\(message): no error was thrown")
    } catch let error as E where error == expected {
        check(true, "\(message): \"\(error)\"")
    } catch {
        check(false, "\(message): expected \(expected), got \(error)")
    }
}

/// True when the file's bytes contain `text` in UTF-8: a vault must never hold plaintext.
public func file(_ path: String, contains text: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path) else { return false }
    return data.range(of: Data(text.utf8)) != nil
}

/// The tally behind `check`. A lock keeps it safe under Swift 6 strict concurrency.
final class Checks: @unchecked Sendable {
    static let shared = Checks()
    private let lock = NSLock()
    private var counts = (passed: 0, failed: 0)

    func record(_ ok: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if ok { counts.passed += 1 } else { counts.failed += 1 }
    }

    var passed: Int { lock.lock(); defer { lock.unlock() }; return counts.passed }
    var failed: Int { lock.lock(); defer { lock.unlock() }; return counts.failed }
}

extension VaultOptions {
    /// Argon2id with 8 MiB and 2 passes, so a walk-through runs in about a second.
    /// Real apps keep the default, `VaultOptions()`: 256 MiB and 3 passes, which is
    /// what makes guessing a master password slow. The interactive modes use it.
    public static let walkthrough = VaultOptions(kdf: Argon2idParameters(memoryKiB: 8 * 1024, iterations: 2, lanes: 1))
}
