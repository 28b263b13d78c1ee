import Foundation

/// How a process run by ``runProcess(_:_:input:in:environment:timeout:)`` ended.
package struct ProcessResult: Sendable {
    /// The exit status, or the signal number when ``killed``.
    package let status: Int32
    /// True when a signal ended it.
    package let killed: Bool
    /// True when it outlived the timeout and was terminated.
    package let timedOut: Bool
    package let stdout: Data
    package let stderr: Data

    package var out: String { String(decoding: stdout, as: UTF8.self) }
    package var err: String { String(decoding: stderr, as: UTF8.self) }
}

/// Runs `executable arguments…` to the end with `input` on stdin, in `directory`.
///
/// stdin, stdout and stderr are files (in `directory`, or the temporary folder), so
/// neither side blocks on a full pipe. With a `timeout`, a process still running after
/// it is terminated (``ProcessResult/timedOut``).
package func runProcess(_ executable: URL, _ arguments: [String], input: String = "", in directory: URL? = nil,
                        environment: [String: String]? = nil, timeout: TimeInterval? = nil) throws -> ProcessResult {
    let folder = directory ?? FileManager.default.temporaryDirectory
    let stdinURL = folder.appendingPathComponent(".stdin-\(UUID().uuidString)")
    let stdoutURL = folder.appendingPathComponent(".stdout-\(UUID().uuidString)")
    let stderrURL = folder.appendingPathComponent(".stderr-\(UUID().uuidString)")
    try Data(input.utf8).write(to: stdinURL)
    try Data().write(to: stdoutURL)
    try Data().write(to: stderrURL)
    defer {
        for url in [stdinURL, stdoutURL, stderrURL] { try? FileManager.default.removeItem(at: url) }
    }
    let stdinHandle = try FileHandle(forReadingFrom: stdinURL)
    let stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
    let stderrHandle = try FileHandle(forWritingTo: stderrURL)
    defer {
        try? stdinHandle.close()
        try? stdoutHandle.close()
        try? stderrHandle.close()
    }

    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    process.standardInput = stdinHandle
    process.standardOutput = stdoutHandle
    process.standardError = stderrHandle
    if let environment { process.environment = environment }
    try process.run()
    var timedOut = false
    if let timeout {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            timedOut = true
            process.terminate()
        }
    }
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, killed: process.terminationReason == .uncaughtSignal,
                         timedOut: timedOut, stdout: try Data(contentsOf: stdoutURL), stderr: try Data(contentsOf: stderrURL))
}

/// Runs the built product `name` (``buildProductsDirectory()``) to the end.
package func runProduct(_ name: String, _ arguments: [String], stdin: String? = nil) throws -> ProcessResult {
    try runProcess(buildProductsDirectory().appendingPathComponent(name), arguments, input: stdin ?? "")
}

/// The real tool `name` (`age`, `ssh-keygen`…) in /usr/bin, /usr/local/bin or /bin, when
/// installed (`make test-deps`); tests that need one are skipped without it.
package func installedTool(_ name: String) -> URL? {
    ["/usr/bin", "/usr/local/bin", "/bin"].map { URL(fileURLWithPath: $0).appendingPathComponent(name) }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
}
