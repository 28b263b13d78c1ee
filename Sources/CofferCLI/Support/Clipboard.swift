import Coffer
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A clipboard tool found on PATH: wl-copy (Wayland), xclip or xsel (X11), pbcopy (macOS).
struct Clipboard {
    let name: String
    let executable: String
    let copyArguments: [String]
    /// A shell command that empties the clipboard.
    let clearCommand: String

    /// The first usable tool, or exit 74 with a message naming the tools.
    static func find(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Clipboard {
        let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let x11 = !(environment["DISPLAY"] ?? "").isEmpty
        #if canImport(Darwin)
        let macOS = true
        #else
        let macOS = false
        #endif
        let candidates: [(String, [String], String, Bool)] = [
            ("wl-copy", [], "TOOL --clear", wayland),
            ("xclip", ["-selection", "clipboard", "-in"], "printf '' | TOOL -selection clipboard -in", x11),
            ("xsel", ["--clipboard", "--input"], "TOOL --clipboard --delete", x11),
            ("pbcopy", [], "printf '' | TOOL", macOS),
        ]
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for (name, arguments, clear, usable) in candidates where usable {
            for folder in path where !folder.isEmpty {
                let candidate = folder + "/" + name
                if access(candidate, X_OK) == 0 {
                    let quoted = "'" + candidate.replacingOccurrences(of: "'", with: "'\\''") + "'"
                    return Clipboard(name: name, executable: candidate, copyArguments: arguments,
                                     clearCommand: clear.replacingOccurrences(of: "TOOL", with: quoted))
                }
            }
        }
        throw CLIFailure(.ioError, "no clipboard tool found: install wl-copy (Wayland), xclip or xsel (X11), "
                         + "with WAYLAND_DISPLAY or DISPLAY set; or run without --clip")
    }

    /// Copies `secret` (through a pipe, never the command line), then leaves a detached
    /// shell that empties the clipboard after `clearAfter` seconds (0: never).
    func copy(_ secret: SecureBytes, clearAfter: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = copyArguments
        let input = Pipe()
        process.standardInput = input
        // xclip stays in the background to serve the selection: do not wait on its output.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw CLIFailure(.ioError, "cannot run \(name): \(error.localizedDescription)")
        }
        let fd = input.fileHandleForWriting.fileDescriptor
        var failed = false
        secret.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let n = write(fd, base + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { failed = true; return }
                offset += n
            }
        }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard !failed, process.terminationStatus == 0 else {
            throw CLIFailure(.ioError, "\(name) failed to copy to the clipboard")
        }
        guard clearAfter > 0 else { return }
        let clearer = Process()
        clearer.executableURL = URL(fileURLWithPath: "/bin/sh")
        clearer.arguments = ["-c", "trap '' HUP INT; sleep \(clearAfter); \(clearCommand)"]
        clearer.standardInput = FileHandle.nullDevice
        clearer.standardOutput = FileHandle.nullDevice
        clearer.standardError = FileHandle.nullDevice
        do {
            try clearer.run()
        } catch {
            throw CLIFailure(.ioError, "copied, but cannot start the clipboard clearer: \(error.localizedDescription)")
        }
    }
}
