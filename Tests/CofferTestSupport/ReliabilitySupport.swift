import Foundation
import Testing

// Helpers of the Reliability* tests (RELIABILITY.md): child processes, figures, paths.

package enum Reliability {
    /// The repository root.
    package static var repositoryRoot: URL { TestPaths.repositoryRoot }

    /// A figure for RELIABILITY.md: one line on stdout, `[reliability] name: text`.
    package static func figure(_ name: String, _ text: String) {
        print("[reliability] \(name): \(text)")
    }

    /// An integer from the environment (to run the tests longer), else `fallback`.
    package static func setting(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }.map { max(1, $0) } ?? fallback
    }

    /// Names in `directory` that look like the store's temporary files.
    package static func temporaryFiles(in directory: String) -> Set<String> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.contains(".tmp-") })
    }

    package static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }
}

/// A built product running as a child process, with its stdout readable line by line.
package final class ReliabilityChild {
    package let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffered: [UInt8] = []

    package init(_ product: String, _ arguments: [String], stdin: String?) throws {
        process.executableURL = buildProductsDirectory().appendingPathComponent(product)
        process.arguments = arguments
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
    }

    package var pid: Int32 { process.processIdentifier }

    /// Reads stdout until a line equal to `line`; false at end of output.
    package func waitForLine(_ line: String) -> Bool {
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let text = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                if text == line { return true }
                continue
            }
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { return false }
            buffered.append(contentsOf: data)
        }
    }

    package func kill(_ signal: Int32 = SIGKILL) {
        sendSignal(process.processIdentifier, signal)
    }

    /// Waits for the exit; returns the status (the signal number when killed) and all remaining output.
    package func finish() -> (status: Int32, killed: Bool, stdout: String, stderr: String) {
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal,
                String(decoding: buffered + Array(rest), as: UTF8.self), String(decoding: errorText, as: UTF8.self))
    }
}

private func sendSignal(_ pid: Int32, _ signal: Int32) {
    _ = kill(pid, signal)
}
