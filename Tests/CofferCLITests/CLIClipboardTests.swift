import Foundation
import Testing
/// Issue 15, finding 5: `coffer get --clip` under a real X server (Xvfb) with the real xclip
/// and xsel, which leave a daemon behind to serve the selection. `make test` installs them
/// (Debian's xvfb, xclip, xsel). wl-copy needs a Wayland compositor and is not run here.
@Suite("coffer and the clipboard: a real X server with xclip and xsel", .serialized,
       .enabled(if: XServer.toolsPresent, "needs Xvfb, xclip and xsel (make test installs them)"))
struct CLIClipboardTests {
    @Test("get --clip returns at once, the clipboard holds the secret, and it is cleared after the delay",
          arguments: ["xclip", "xsel"])
    func copiesAndClears(tool: String) throws {
        let server = try XServer()
        defer { server.stop() }
        try withVault { dir in
            try addItem(dir, service: "mail", password: "s3cret-\(tool)")
            let started = Date()
            let copied = try CLI.run(["get", "v.coffer", "--service", "mail", "--clip", "--clear-after", "2"],
                                     input: "pw\n", in: dir, environment: server.environment(only: tool), timeout: 15)
            #expect(copied.status == 0, "\(copied.err)")
            #expect(Date().timeIntervalSince(started) < 10, "get --clip took \(Date().timeIntervalSince(started)) s")
            #expect(copied.out.isEmpty)
            #expect(try server.clipboard() == "s3cret-\(tool)")
            #expect(server.waitForClipboard(toBe: "", within: 8), "still \(String(describing: try? server.clipboard()))")
        }
    }

    @Test("The clearer leaves alone what was copied after the secret", arguments: ["xclip", "xsel"])
    func keepsALaterCopy(tool: String) throws {
        let server = try XServer()
        defer { server.stop() }
        try withVault { dir in
            try addItem(dir, service: "bank", password: "first-secret")
            try addItem(dir, service: "shop", password: "copied-later")
            let environment = server.environment(only: tool)
            let first = try CLI.run(["get", "v.coffer", "--service", "bank", "--clip", "--clear-after", "2"],
                                    input: "pw\n", in: dir, environment: environment, timeout: 15)
            #expect(first.status == 0, "\(first.err)")
            // The user copies something else before the first secret's time is up.
            let later = try CLI.run(["get", "v.coffer", "--service", "shop", "--clip", "--clear-after", "0"],
                                    input: "pw\n", in: dir, environment: environment, timeout: 15)
            #expect(later.status == 0, "\(later.err)")
            usleep(4_000_000)
            #expect(try server.clipboard() == "copied-later")
        }
    }

    @Test("add --generate --clip copies the new password and totp --clip the code (issue 28, finding 10)")
    func addAndTOTPCopy() throws {
        let server = try XServer()
        defer { server.stop() }
        try withVault { dir in
            let environment = server.environment(only: "xclip")
            let added = try CLI.run(["add", "v.coffer", "--service", "new", "--account", "me", "--generate", "--clip", "--clear-after", "0"],
                                    input: "pw\n", in: dir, environment: environment, timeout: 15)
            #expect(added.status == 0 && added.out.isEmpty, "\(added.err)")
            #expect(added.err.contains("copied the new password to the clipboard with xclip"), "\(added.err)")
            let stored = try CLI.run(["get", "v.coffer", "new"], input: "pw\n", in: dir)
            #expect(try server.clipboard() + "\n" == stored.out && stored.out.count > 10)

            let set = try CLI.run(["totp", "v.coffer", "new", "--set"], input: "pw\nJBSWY3DPEHPK3PXP\n", in: dir)
            try #require(set.status == 0, "\(set.err)")
            let copied = try CLI.run(["totp", "v.coffer", "new", "--clip", "--clear-after", "0"],
                                     input: "pw\n", in: dir, environment: environment, timeout: 15)
            let printed = try CLI.run(["totp", "v.coffer", "new"], input: "pw\n", in: dir)
            #expect(copied.status == 0 && copied.out.isEmpty, "\(copied.err)")
            let code = try server.clipboard()
            #expect(code.count == 6 && code.allSatisfy(\.isNumber), "\(code)")
            // The same code, unless the 30 s period turned between the two runs.
            #expect(code + "\n" == printed.out || Int(Date().timeIntervalSince1970) % 30 < 3, "\(code) \(printed.out)")
        }
    }

    private func addItem(_ dir: URL, service: String, password: String) throws {
        let added = try CLI.run(["add", "v.coffer", "--service", service, "--account", "me"],
                                input: "pw\n\(password)\n", in: dir)
        try #require(added.status == 0, "\(added.err)")
    }
}

/// An Xvfb server on a free display, for one test.
final class XServer {
    static let toolsPresent = ["/usr/bin/Xvfb", "/usr/bin/xclip", "/usr/bin/xsel"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    let display: String
    private let number: Int
    private let process = Process()
    private let bin: URL

    init() throws {
        var chosen: Int?
        for candidate in (0..<50).map({ 150 + (Int(getpid()) + $0) % 300 }) where Self.isFree(candidate) {
            chosen = candidate
            break
        }
        let number = try #require(chosen, "no free X display")
        self.number = number
        display = ":\(number)"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        process.arguments = [display, "-nolisten", "tcp", "-screen", "0", "640x480x24"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        bin = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-clip-bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") { usleep(25_000) }
        try #require(FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)"), "Xvfb did not start")
    }

    /// The environment for `coffer` with only `tool` on PATH (so that one is used).
    func environment(only tool: String) -> [String: String] {
        let folder = bin.appendingPathComponent(tool)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent(tool).path,
                                                    withDestinationPath: "/usr/bin/\(tool)")
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = folder.path
        environment["DISPLAY"] = display
        environment["WAYLAND_DISPLAY"] = nil
        return environment
    }

    /// The clipboard's text, read with `xclip -o` (which does not stay in the background).
    func clipboard() throws -> String {
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/xclip")
        reader.arguments = ["-selection", "clipboard", "-out"]
        reader.environment = ["DISPLAY": display]
        let output = Pipe()
        reader.standardOutput = output
        reader.standardError = FileHandle.nullDevice
        reader.standardInput = FileHandle.nullDevice
        try reader.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        reader.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func waitForClipboard(toBe expected: String, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? clipboard()) == expected { return true }
            usleep(200_000)
        }
        return false
    }

    func stop() {
        // SIGKILL: a child that Foundation starts from a test thread may have SIGTERM blocked.
        // A killed server cannot remove its lock file and socket, so they are removed here;
        // left behind, they used up the displays this class may take, one test run at a time.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
        try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
        try? FileManager.default.removeItem(at: bin)
    }

    /// Whether display `number` can be taken: no lock file and no socket, or a lock file left
    /// by a server that no longer runs (killed before it could remove it; Xvfb itself takes
    /// such a display over). A stale lock's socket is removed, so that waiting for the new
    /// server's socket does not find the old one.
    private static func isFree(_ number: Int) -> Bool {
        let lock = "/tmp/.X\(number)-lock", socket = "/tmp/.X11-unix/X\(number)"
        guard let text = try? String(contentsOfFile: lock, encoding: .utf8) else {
            return !FileManager.default.fileExists(atPath: lock) && !FileManager.default.fileExists(atPath: socket)
        }
        guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0,
              kill(pid, 0) != 0, errno == ESRCH else { return false }
        try? FileManager.default.removeItem(atPath: lock)
        try? FileManager.default.removeItem(atPath: socket)
        return !FileManager.default.fileExists(atPath: lock) && !FileManager.default.fileExists(atPath: socket)
    }
}
