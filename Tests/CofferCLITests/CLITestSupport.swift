import CofferTestSupport
import Foundation
import Testing

/// The result of one run of the `coffer` binary.
struct CLIResult {
    let status: Int32
    let stdout: Data
    let stderr: Data

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }

    /// stdout parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: stdout, options: [.fragmentsAllowed])
    }

    func jsonObject() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "stdout is not a JSON object: \(out)")
    }

    func jsonArray() throws -> [[String: Any]] {
        try #require(try json() as? [[String: Any]], "stdout is not a JSON array of objects: \(out)")
    }
}

enum CLI {
    /// The built `coffer` executable: $COFFER_CLI_PATH, else next to the test bundle,
    /// else under the package's build folders.
    static let binary: String? = {
        let fileManager = FileManager.default
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["COFFER_CLI_PATH"] { candidates.append(explicit) }
        let argv0 = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        candidates.append(argv0.appendingPathComponent("coffer").path)
        // Inside an .xctest bundle (macOS) the executable sits beside the bundle.
        candidates.append(argv0.deletingLastPathComponent().deletingLastPathComponent()
                            .deletingLastPathComponent().appendingPathComponent("coffer").path)
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("coffer").path)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("coffer").path)
        let root = TestPaths.repositoryRoot
        for scratch in [".build-cli", ".build"] {
            candidates.append(root.appendingPathComponent("\(scratch)/debug/coffer").path)
        }
        return candidates.first { fileManager.isExecutableFile(atPath: $0) }
    }()

    /// Where every `coffer` run by the tests keeps this device's replica state (replica
    /// ids, remembered clocks: `$XDG_STATE_HOME/coffer`) unless the test gives its own:
    /// one temporary folder per test process, never the real home's `~/.local/state`.
    static let stateHome: String = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-cli-state-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }()

    /// The environment for a `coffer` a test starts itself (not through ``run(_:input:in:environment:timeout:)``):
    /// this process's, without a display, with `XDG_STATE_HOME` set to ``stateHome``.
    static var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = nil
        env["WAYLAND_DISPLAY"] = nil
        env["XDG_STATE_HOME"] = stateHome
        return env
    }

    /// Runs `coffer arguments…` with `input` on stdin (a file, so nothing blocks), in `directory`.
    /// `XDG_STATE_HOME` is ``stateHome`` unless `environment` sets it (a test's own "device").
    @discardableResult
    static func run(_ arguments: [String], input: String = "", in directory: URL,
                    environment: [String: String]? = nil, timeout: TimeInterval = 30) throws -> CLIResult {
        let binary = try #require(CLI.binary, "the coffer binary is not built; run `swift build --build-tests`")
        var env = environment ?? ProcessInfo.processInfo.environment
        // Clipboard tests control these themselves.
        if environment == nil {
            env["DISPLAY"] = nil
            env["WAYLAND_DISPLAY"] = nil
        }
        if environment?["XDG_STATE_HOME"] == nil { env["XDG_STATE_HOME"] = stateHome }
        let result = try runProcess(URL(fileURLWithPath: binary), arguments, input: input, in: directory,
                                    environment: env, timeout: timeout)
        if result.timedOut { Issue.record("coffer \(arguments.joined(separator: " ")) timed out") }
        return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}

/// Small KDF parameters so each run is fast.
let fastKDF = ["--kdf-memory", "1", "--kdf-iterations", "1"]

/// A folder with a vault `v.coffer` whose master password is `pw`.
func withVault<R>(password: String = "pw", _ body: (URL) throws -> R) throws -> R {
    try withTemporaryDirectory { dir in
        let result = try CLI.run(["init", "v.coffer"] + fastKDF, input: "\(password)\n", in: dir)
        try #require(result.status == 0, "init failed: \(result.err)")
        return try body(dir)
    }
}

/// Asserts a failure is exactly one plain `coffer: …` line on stderr.
func expectOneLineMessage(_ result: CLIResult, containing text: String? = nil,
                          sourceLocation: SourceLocation = #_sourceLocation) {
    let lines = result.err.split(separator: "\n", omittingEmptySubsequences: true)
    #expect(lines.count == 1, "stderr: \(result.err)", sourceLocation: sourceLocation)
    #expect(result.err.hasPrefix("coffer: "), "stderr: \(result.err)", sourceLocation: sourceLocation)
    if let text {
        #expect(result.err.contains(text), "stderr: \(result.err)", sourceLocation: sourceLocation)
    }
}
