import ArgumentParser
import Coffer
import Foundation

/// A clipboard tool found on PATH: wl-copy (Wayland), xclip or xsel (X11), pbcopy (macOS).
struct Clipboard {
    let name: String
    let executable: String
    let copyArguments: [String]
    /// The program and arguments that print the clipboard's contents.
    let paste: (executable: String, arguments: [String])
    /// Arguments of `executable` that empty the clipboard (stdin is empty).
    let clearArguments: [String]

    /// The largest clipboard the clearer reads back to compare with the secret.
    static let pasteLimit = 1 << 20

    /// The first usable tool (or the one named), or exit 74 with a message naming the tools.
    static func find(named wanted: String? = nil,
                     environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Clipboard {
        let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let x11 = !(environment["DISPLAY"] ?? "").isEmpty
        #if canImport(Darwin)
        let macOS = true
        #else
        let macOS = false
        #endif
        // name, copy arguments, paste tool and arguments, clear arguments, usable here
        let candidates: [(String, [String], (String, [String]), [String], Bool)] = [
            ("wl-copy", [], ("wl-paste", ["--no-newline"]), ["--clear"], wayland),
            ("xclip", ["-selection", "clipboard", "-in"], ("xclip", ["-selection", "clipboard", "-out"]),
             ["-selection", "clipboard", "-in"], x11),
            ("xsel", ["--clipboard", "--input"], ("xsel", ["--clipboard", "--output"]), ["--clipboard", "--delete"], x11),
            ("pbcopy", [], ("pbpaste", []), [], macOS),
        ]
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func locate(_ tool: String) -> String? {
            path.lazy.filter { !$0.isEmpty }.map { $0 + "/" + tool }.first(where: ProcessIO.isExecutable)
        }
        for (name, copy, paste, clear, usable) in candidates where usable && (wanted == nil || wanted == name) {
            if let executable = locate(name), let pasteExecutable = locate(paste.0) {
                return Clipboard(name: name, executable: executable, copyArguments: copy,
                                 paste: (pasteExecutable, paste.1), clearArguments: clear)
            }
        }
        throw CLIFailure(.ioError, "no clipboard tool found: install wl-clipboard (Wayland), xclip or xsel (X11), "
                         + "with WAYLAND_DISPLAY or DISPLAY set; or run without --clip")
    }

    /// How long a tool may take to take the secret and hand the selection to its daemon.
    static let toolTimeout = Duration.seconds(10)

    /// Copies `secret` (through a pipe, never the command line), then starts a detached
    /// `coffer` that empties the clipboard after `clearAfter` seconds (0: never), but only
    /// if it still holds the secret.
    func copy(_ secret: SecureBytes, clearAfter: Int) throws {
        let tool = try ChildProcess.spawn(executable, copyArguments, pipeInput: true)
        let sent = tool.send(secret)
        guard let status = tool.wait(timeout: Self.toolTimeout) else {
            throw CLIFailure(.ioError, "\(name) did not finish copying to the clipboard")
        }
        guard sent, status == 0 else { throw CLIFailure(.ioError, "\(name) failed to copy to the clipboard") }
        guard clearAfter > 0 else { return }
        let clearer = try ChildProcess.spawn(Self.ownExecutable, [ClipboardClearCommand.name, "--tool", name,
                                                                  "--after", String(clearAfter)],
                                             pipeInput: true, detached: true)
        guard clearer.send(secret) else {
            throw CLIFailure(.ioError, "copied, but cannot start the clipboard clearer")
        }
        // Not waited for: it outlives this command (it is reaped by init).
    }

    /// The clipboard's contents, in guarded memory.
    func contents() throws -> SecureBytes? {
        let reader = try ChildProcess.spawn(paste.executable, paste.arguments, pipeInput: false, pipeOutput: true)
        let bytes = try reader.receive(limit: Self.pasteLimit)
        guard reader.wait(timeout: Self.toolTimeout) == 0 else { return nil }
        return bytes
    }

    /// Empties the clipboard.
    func clear() throws {
        let tool = try ChildProcess.spawn(executable, clearArguments, pipeInput: true)
        _ = tool.send(try SecureBytes(copying: []))
        _ = tool.wait(timeout: Self.toolTimeout)
    }

    /// This program, to start the clearer.
    static var ownExecutable: String {
        #if os(Linux)
        return "/proc/self/exe"
        #else
        return CommandLine.arguments.first ?? "coffer"
        #endif
    }
}

/// `coffer clipboard-clear --tool NAME --after SECONDS` (hidden): started by `get --clip`
/// with the secret on stdin. Waits, then empties the clipboard only if it still holds the
/// secret (compared in constant time), so something copied meanwhile is left alone.
struct ClipboardClearCommand: ParsableCommand {
    static let name = "clipboard-clear"
    static let configuration = CommandConfiguration(
        commandName: name, abstract: "Empty the clipboard later if it still holds a secret (used by --clip).",
        shouldDisplay: false)

    @Option var tool: String
    @Option var after: Int

    func run() throws {
        let secret = try ChildProcess.readAll(fd: 0, limit: Clipboard.pasteLimit)
        ProcessIO.closeStandardInput()
        let clipboard = try Clipboard.find(named: tool)
        ProcessIO.sleep(seconds: min(after, 86_400))
        guard let current = try clipboard.contents(), current == secret else { return }
        try clipboard.clear()
    }
}
