import Foundation
import Testing
import CofferTransfer
import CofferTestSupport

/// The real peers: pykeepass builds a KDBX (Tests/Fixtures/keepassxc-fixture.py), the real
/// `keepassxc-cli` exports it, and Coffer imports the export. `make test` installs both
/// (Debian's `keepassxc` and `python3-pykeepass`); without them this suite is skipped.
enum RealPeers {
    /// `keepassxc-cli` on PATH (or in /usr/bin).
    static let keepassxcCLI: String? = executable("keepassxc-cli")

    /// A Python that can `import pykeepass`: Debian's /usr/bin/python3 first (where
    /// python3-pykeepass installs), then whatever `python3` is on PATH.
    static let python: String? = {
        for candidate in ["/usr/bin/python3", executable("python3")].compactMap({ $0 }) {
            if let result = try? run(candidate, ["-c", "import pykeepass"]), result.status == 0 { return candidate }
        }
        return nil
    }()

    static var available: Bool { keepassxcCLI != nil && python != nil }

    static var missing: String {
        [keepassxcCLI == nil ? "keepassxc-cli (apt-get install keepassxc)" : nil,
         python == nil ? "pykeepass (apt-get install python3-pykeepass)" : nil].compactMap { $0 }.joined(separator: " and ")
    }

    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map(String.init) + ["/usr/bin"])
            .map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a program with `input` on stdin; stdout and stderr go to files, so nothing blocks.
    static func run(_ program: String, _ arguments: [String], input: String = "", in directory: URL? = nil) throws -> (status: Int32, stdout: Data, stderr: String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inURL = scratch.appendingPathComponent("in"), outURL = scratch.appendingPathComponent("out"), errURL = scratch.appendingPathComponent("err")
        try Data(input.utf8).write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["QT_QPA_PLATFORM"] = "offscreen"   // keepassxc-cli needs no display
        process.environment = environment
        let stdin = try FileHandle(forReadingFrom: inURL), stdout = try FileHandle(forWritingTo: outURL), stderr = try FileHandle(forWritingTo: errURL)
        defer { try? stdin.close(); try? stdout.close(); try? stderr.close() }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (process.terminationStatus, try Data(contentsOf: outURL), String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

@Suite("Transfer: import real KeePassXC exports (pykeepass + keepassxc-cli)", .enabled(if: RealPeers.available, "needs \(RealPeers.missing); run `make test-deps`"))
struct TransferImportRealPeerTests {
    /// Builds the database with pykeepass and exports it with keepassxc-cli in `format`.
    private func export(_ format: String, in dir: URL) throws -> SecureBytes {
        let python = try #require(RealPeers.python), cli = try #require(RealPeers.keepassxcCLI)
        let database = dir.appendingPathComponent("peer.kdbx").path
        if !FileManager.default.fileExists(atPath: database) {
            let made = try RealPeers.run(python, [Fixtures.path("keepassxc-fixture.py"), database, "peer-password"])
            try #require(made.status == 0, "pykeepass failed: \(made.stderr)")
        }
        let exported = try RealPeers.run(cli, ["export", "-q", "-f", format, database], input: "peer-password\n")
        try #require(exported.status == 0, "keepassxc-cli export failed: \(exported.stderr)")
        try #require(!exported.stdout.isEmpty, "keepassxc-cli wrote nothing")
        return try SecureBytes(copying: [UInt8](exported.stdout))
    }

    @Test("keepassxc-cli's XML export imports every field: groups, attributes, protected ones, OTP, history, times")
    func xml() throws {
        try withTemporaryDirectory { dir in
            let file = try export("xml", in: dir)
            try withImportVault { (vault) throws in
                let report = try vault.importItems(from: file, format: .keepassxcXML)
                try KeePassXCExpectations.check(vault, report: report, fromCSV: false)
            }
        }
    }

    @Test("keepassxc-cli's CSV export imports its columns")
    func csv() throws {
        try withTemporaryDirectory { dir in
            let file = try export("csv", in: dir)
            try withImportVault { (vault) throws in
                let report = try vault.importItems(from: file, format: .keepassxcCSV)
                try KeePassXCExpectations.check(vault, report: report, fromCSV: true)
            }
        }
    }
}
