import Foundation
import Testing
import CofferTestSupport
/// posix_openpt and friends: Swift's Glibc module hides them behind _XOPEN_SOURCE,
/// so on Linux they are looked up at run time.
private enum PTY {
    #if canImport(Glibc)
    private static func symbol<T>(_ name: String, as type: T.Type) -> T {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            preconditionFailure("\(name) is missing from the C library")
        }
        return unsafeBitCast(address, to: type)
    }
    static func openMaster(_ flags: Int32) -> Int32 {
        symbol("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)(flags)
    }
    static func grant(_ fd: Int32) -> Int32 { symbol("grantpt", as: (@convention(c) (Int32) -> Int32).self)(fd) }
    static func unlock(_ fd: Int32) -> Int32 { symbol("unlockpt", as: (@convention(c) (Int32) -> Int32).self)(fd) }
    static func name(_ fd: Int32) -> UnsafeMutablePointer<CChar>? {
        symbol("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)(fd)
    }
    #else
    static func openMaster(_ flags: Int32) -> Int32 { posix_openpt(flags) }
    static func grant(_ fd: Int32) -> Int32 { grantpt(fd) }
    static func unlock(_ fd: Int32) -> Int32 { unlockpt(fd) }
    static func name(_ fd: Int32) -> UnsafeMutablePointer<CChar>? { ptsname(fd) }
    #endif
}

/// A pseudo-terminal whose slave side is the child's stdin, stdout and stderr.
private final class PseudoTerminal {
    let master: Int32
    let slave: Int32
    private(set) var output = ""

    init() throws {
        master = PTY.openMaster(O_RDWR | O_NOCTTY)
        try #require(master >= 0, "posix_openpt failed")
        try #require(PTY.grant(master) == 0 && PTY.unlock(master) == 0)
        let name = try #require(PTY.name(master).map { String(cString: $0) })
        slave = open(name, O_RDWR | O_NOCTTY)
        try #require(slave >= 0, "cannot open \(name)")
    }

    deinit {
        close(master)
    }

    func closeSlave() { close(slave) }

    /// Reads what the terminal shows until `text` appears or `timeout` passes.
    @discardableResult
    func read(until text: String?, timeout: TimeInterval = 15) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            if let text, output.contains(text) { return true }
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 50)
            if ready <= 0 { continue }
            let n = systemRead(master, &buffer, buffer.count)
            if n <= 0 { return text == nil }   // EIO: every slave descriptor is closed
            output += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        return text.map { output.contains($0) } ?? false
    }

    /// Reads until `text` has appeared `count` times (a prompt asked again).
    @discardableResult
    func read(until text: String, times count: Int, timeout: TimeInterval = 15) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while occurrences(of: text) < count && Date() < deadline {
            read(until: nil, timeout: 0.1)
        }
        return occurrences(of: text) >= count
    }

    func occurrences(of text: String) -> Int { output.components(separatedBy: text).count - 1 }

    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Whether the terminal echoes input now.
    var echoIsOn: Bool {
        var settings = termios()
        tcgetattr(slave, &settings)
        return settings.c_lflag & tcflag_t(ECHO) != 0
    }
}

private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// Waits for `process`, killing it after `timeout` so that a hung prompt fails the test
/// instead of hanging the whole run.
private func finish(_ process: Process, timeout: TimeInterval = 20) {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
        Issue.record("coffer did not exit within \(timeout) s")
        kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
}

@Suite("coffer on a terminal")
struct CLITerminalTests {
    /// Runs coffer with the pty as its controlling terminal (`setsid --ctty`, when present).
    private func launch(_ arguments: [String], in dir: URL, terminal: PseudoTerminal) throws -> Process {
        let binary = try #require(CLI.binary)
        let process = Process()
        let setsid = "/usr/bin/setsid"
        if FileManager.default.isExecutableFile(atPath: setsid) {
            process.executableURL = URL(fileURLWithPath: setsid)
            process.arguments = ["--ctty", "--wait", binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        process.currentDirectoryURL = dir
        process.environment = CLI.environment
        let handle = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    @Test("init asks twice without echo; the typed password never shows; echo is restored")
    func promptWithoutEcho() throws {
        try withTemporaryDirectory { dir in
            let terminal = try PseudoTerminal()
            #expect(terminal.echoIsOn, "a new pseudo-terminal echoes")
            let process = try launch(["init", "t.coffer"] + fastKDF, in: dir, terminal: terminal)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

            #expect(terminal.read(until: "New master password for t.coffer: "), "prompt shown: \(terminal.output)")
            terminal.type("typed-secret-4711\n")
            #expect(terminal.read(until: "Retype to confirm: "), "second prompt: \(terminal.output)")
            terminal.type("typed-secret-4711\n")
            #expect(terminal.read(until: "created t.coffer"), "\(terminal.output)")
            finish(process)
            terminal.closeSlave()
            terminal.read(until: nil, timeout: 2)

            #expect(process.terminationStatus == 0, "\(terminal.output)")
            #expect(!terminal.output.contains("typed-secret-4711"), "the password was echoed: \(terminal.output)")

            // Piped input now opens the vault with the password typed above.
            let list = try CLI.run(["list", "t.coffer"], input: "typed-secret-4711\n", in: dir)
            #expect(list.status == 0, "\(list.err)")
        }
    }

    @Test("a mismatch asks again; after three mismatches init ends (exit 64) and echo is back on")
    func mismatch() throws {
        try withTemporaryDirectory { dir in
            let terminal = try PseudoTerminal()
            let process = try launch(["init", "m.coffer"] + fastKDF, in: dir, terminal: terminal)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            for attempt in 1...3 {
                #expect(terminal.read(until: "New master password", times: attempt), "try \(attempt): \(terminal.output)")
                terminal.type("first-entry-Zq8#vLm2\n")
                #expect(terminal.read(until: "Retype to confirm: ", times: attempt))
                terminal.type("second-entry-Zq8#vLm2\n")
            }
            finish(process)
            #expect(terminal.echoIsOn, "echo restored on exit")
            terminal.closeSlave()
            terminal.read(until: nil, timeout: 2)
            #expect(process.terminationStatus == 64)
            #expect(terminal.occurrences(of: "do not match; try again") == 2, "\(terminal.output)")
            #expect(terminal.output.contains("coffer: the two entries do not match"))
            #expect(!terminal.output.contains("first-entry") && !terminal.output.contains("second-entry"))
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("m.coffer").path))
        }
    }

    @Test("a mismatch, then a match: init goes on and creates the vault")
    func mismatchThenMatch() throws {
        try withTemporaryDirectory { dir in
            let terminal = try PseudoTerminal()
            let process = try launch(["init", "r.coffer"] + fastKDF, in: dir, terminal: terminal)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            #expect(terminal.read(until: "New master password", times: 1))
            terminal.type("retry-entry-Zq8#vLm2\n")
            #expect(terminal.read(until: "Retype to confirm: ", times: 1))
            terminal.type("retry-entry-Zq8#vLm3\n")
            #expect(terminal.read(until: "New master password", times: 2), "asked again: \(terminal.output)")
            terminal.type("retry-entry-Zq8#vLm2\n")
            #expect(terminal.read(until: "Retype to confirm: ", times: 2))
            terminal.type("retry-entry-Zq8#vLm2\n")
            #expect(terminal.read(until: "created r.coffer"), "\(terminal.output)")
            finish(process)
            terminal.closeSlave()
            terminal.read(until: nil, timeout: 2)
            #expect(process.terminationStatus == 0, "\(terminal.output)")
            let list = try CLI.run(["list", "r.coffer"], input: "retry-entry-Zq8#vLm2\n", in: dir)
            #expect(list.status == 0, "\(list.err)")
        }
    }

    @Test("a weak master password shows its strength and asks: no chooses another, yes keeps it")
    func weakPasswordAsks() throws {
        try withTemporaryDirectory { dir in
            let terminal = try PseudoTerminal()
            let process = try launch(["init", "w.coffer"] + fastKDF, in: dir, terminal: terminal)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            #expect(terminal.read(until: "New master password", times: 1))
            terminal.type("abc\n")
            #expect(terminal.read(until: "Use it anyway? [y/N] ", times: 1), "\(terminal.output)")
            #expect(terminal.output.contains("strength: 0/4 (too guessable)"), "\(terminal.output)")
            #expect(terminal.output.contains("coffer: warning: this master password is easy to guess"))
            terminal.type("n\n")
            #expect(terminal.read(until: "New master password", times: 2), "asked for another: \(terminal.output)")
            terminal.type("abc\n")
            #expect(terminal.read(until: "Use it anyway? [y/N] ", times: 2))
            terminal.type("  Yes \n")   // CofferTerminal's confirm: any case, blanks around
            #expect(terminal.read(until: "Retype to confirm: ", times: 1), "\(terminal.output)")
            terminal.type("abc\n")
            #expect(terminal.read(until: "created w.coffer"), "\(terminal.output)")
            finish(process)
            terminal.closeSlave()
            terminal.read(until: nil, timeout: 2)
            #expect(process.terminationStatus == 0, "\(terminal.output)")
            let list = try CLI.run(["list", "w.coffer"], input: "abc\n", in: dir)
            #expect(list.status == 0, "\(list.err)")
        }
    }

    @Test("The progress line is erased with a real carriage return and erase-line, not their escaped text (issue 28, finding 1)")
    func progressLineErases() throws {
        try withTemporaryDirectory { dir in
            // A key derivation slow enough (well over the hint's 0.3 s) that "unlocking…" shows.
            let made = try CLI.run(["init", "slow.coffer", "--kdf-memory", "128", "--kdf-iterations", "8"], input: "pw\n", in: dir)
            try #require(made.status == 0, "\(made.err)")
            let terminal = try PseudoTerminal()
            let process = try launch(["list", "slow.coffer"], in: dir, terminal: terminal)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            #expect(terminal.read(until: "Master password for slow.coffer: "))
            terminal.type("pw\n")
            finish(process, timeout: 60)
            terminal.closeSlave()
            terminal.read(until: nil, timeout: 2)
            #expect(process.terminationStatus == 0, "\(terminal.output)")
            #expect(terminal.output.contains("unlocking…\r\u{1B}[K"), "the hint was not shown, or not erased: \(terminal.output.debugDescription)")
            #expect(!terminal.output.contains("\\u{0D}") && !terminal.output.contains("\\u{1B}"),
                    "Coffer's own control was escaped: \(terminal.output.debugDescription)")
        }
    }

    @Test("remove names the item and asks on a terminal; no keeps it, yes removes it (issue 28, finding 9)")
    func removeAsks() throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--service", "github.com", "--account", "octocat"], input: "pw\ngh\n", in: dir)
            try #require(added.status == 0, "\(added.err)")
            for (answer, kept) in [("n", true), ("y", false)] {
                let terminal = try PseudoTerminal()
                let process = try launch(["remove", "v.coffer", "gith"], in: dir, terminal: terminal)
                defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
                #expect(terminal.read(until: "Master password for v.coffer: "))
                terminal.type("pw\n")
                #expect(terminal.read(until: "Remove github.com octocat ["), "\(terminal.output)")
                #expect(terminal.read(until: "[y/N] "), "\(terminal.output)")
                terminal.type(answer + "\n")
                finish(process)
                terminal.closeSlave()
                terminal.read(until: nil, timeout: 2)
                #expect(process.terminationStatus == 0, "\(terminal.output)")
                #expect(terminal.output.contains(kept ? "nothing was removed" : "removed "), "\(terminal.output)")
                let get = try CLI.run(["get", "v.coffer", "github.com"], input: "pw\n", in: dir)
                #expect(get.status == (kept ? 0 : 1), "\(answer): \(get.err)")
            }
        }
    }

    @Test("Ctrl-C at the prompt restores echo")
    func interrupt() throws {
        try withVault { dir in
            let terminal = try PseudoTerminal()
            let process = try launch(["list", "v.coffer"], in: dir, terminal: terminal)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            #expect(terminal.read(until: "Master password for v.coffer: "))
            #expect(!terminal.echoIsOn, "echo is off while the password is typed")
            terminal.type("\u{03}")   // the terminal's INTR character sends SIGINT
            finish(process)
            #expect(terminal.echoIsOn, "echo restored after SIGINT")
            terminal.closeSlave()
        }
    }
}
