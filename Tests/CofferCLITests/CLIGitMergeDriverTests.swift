import CofferTestSupport
import Foundation
import Testing

/// `git`, when installed (`make test` installs it).
enum Git {
    static let path: String? = ["/usr/bin/git", "/usr/local/bin/git", "/opt/homebrew/bin/git"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// A temporary world for git: its own HOME and XDG folders (so no user or system
/// configuration is read), and one replica state per clone ("device").
struct GitWorld {
    let root: URL
    let home: URL

    init(_ root: URL) throws {
        self.root = root
        home = root.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    func environment(device: String) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("GIT_") { env[key] = nil }
        env["DISPLAY"] = nil
        env["WAYLAND_DISPLAY"] = nil
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        env["XDG_STATE_HOME"] = root.appendingPathComponent("state-\(device)").path
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["LC_ALL"] = "C"
        return env
    }

    @discardableResult
    func git(_ arguments: [String], in directory: URL, device: String = "git",
             sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        let git = try #require(Git.path)
        // Run from the root with -C: the runner's stdin/stdout/stderr files stay out of the work tree.
        let result = try runProcess(URL(fileURLWithPath: git), ["-C", directory.path] + arguments, in: root,
                                    environment: environment(device: device), timeout: 60)
        try #require(result.status == 0, "git \(arguments.joined(separator: " ")): exit \(result.status)\n\(result.out)\(result.err)",
                     sourceLocation: sourceLocation)
        return result
    }

    @discardableResult
    func coffer(_ arguments: [String], input: String = "", in directory: URL, device: String,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIResult {
        let result = try CLI.run(arguments, input: input, in: directory, environment: environment(device: device))
        try #require(result.status == 0, "coffer \(arguments.joined(separator: " ")): exit \(result.status): \(result.err)",
                     sourceLocation: sourceLocation)
        return result
    }
}

/// The README's git recipe, run for real: two clones of one repository, offline edits on
/// each, and `git pull` merging the vault with `coffer merge-driver`.
@Suite("coffer as git merge driver: two clones, concurrent edits, real git", .enabled(if: Git.path != nil, "needs git; run `make test-deps`"))
struct CLIGitMergeDriverTests {
    /// Sets up a clone as the README says: who commits, and the merge driver (the key file,
    /// or the identity of a share, outside the repository; `.gitattributes` is committed
    /// with the vault).
    static func configure(_ clone: URL, name: String, keyFile: URL? = nil, identity: URL? = nil, world: GitWorld) throws {
        let binary = try #require(CLI.binary)
        try world.git(["config", "user.name", name], in: clone)
        try world.git(["config", "user.email", "\(name)@example.com"], in: clone)
        try world.git(["config", "merge.coffer.name", "coffer vault merge"], in: clone)
        let credential = identity.map { "--identity '\($0.path)'" } ?? keyFile.map { "--key-file '\($0.path)'" } ?? ""
        try world.git(["config", "merge.coffer.driver", "'\(binary)' merge-driver \(credential) %O %A %B %P"], in: clone)
    }

    @Test("Offline edits on two clones (other items, and one same item) merge on pull; both clones end with both")
    func twoClones() throws {
        try withTemporaryDirectory { root in
            let world = try GitWorld(root)
            let keys = root.appendingPathComponent("keys")
            try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
            let keyFile = keys.appendingPathComponent("vault.key")
            let key = ["--key-file", keyFile.path]

            try world.git(["init", "--bare", "--initial-branch=main", "vault.git"], in: root)
            try world.git(["clone", "vault.git", "laptop"], in: root)
            let laptop = root.appendingPathComponent("laptop")
            try Self.configure(laptop, name: "laptop", keyFile: keyFile, world: world)
            try "*.coffer merge=coffer -diff\n".write(to: laptop.appendingPathComponent(".gitattributes"), atomically: true, encoding: .utf8)
            try "*.coffer.bak\n*.coffer.lock\n".write(to: laptop.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
            // A vault that the key file alone opens (the driver asks for no password).
            try world.coffer(["init", "vault.coffer", "--key-file", keyFile.path, "--no-password"] + fastKDF, in: laptop, device: "laptop")
            for service in ["mail", "bank", "shared"] {
                try world.coffer(["add", "vault.coffer", "--service", service, "--account", "me"] + key,
                                 input: "\(service)-0\n", in: laptop, device: "laptop")
            }
            try world.git(["add", ".gitattributes", ".gitignore", "vault.coffer"], in: laptop)
            try world.git(["commit", "-m", "A vault"], in: laptop)
            try world.git(["push", "origin", "main"], in: laptop)

            try world.git(["clone", "vault.git", "desktop"], in: root)
            let desktop = root.appendingPathComponent("desktop")
            try Self.configure(desktop, name: "desktop", keyFile: keyFile, world: world)

            // Offline on the laptop: a new item, another item's password, and the shared item's password.
            try world.coffer(["add", "vault.coffer", "--service", "from-laptop", "--account", "me"] + key, input: "l\n", in: laptop, device: "laptop")
            try world.coffer(["edit", "vault.coffer", "--service", "mail", "--password-stdin"] + key, input: "mail-1\n", in: laptop, device: "laptop")
            try world.coffer(["edit", "vault.coffer", "--service", "shared", "--password-stdin"] + key, input: "shared-laptop\n", in: laptop, device: "laptop")
            try world.git(["commit", "-a", "-m", "Laptop edits"], in: laptop)
            // Offline on the desktop, later: a new item, another item's label, the shared item's password.
            Thread.sleep(forTimeInterval: 0.05)
            try world.coffer(["add", "vault.coffer", "--service", "from-desktop", "--account", "me"] + key, input: "d\n", in: desktop, device: "desktop")
            try world.coffer(["edit", "vault.coffer", "--service", "bank", "--label", "Bank (desktop)"] + key, input: "\n", in: desktop, device: "desktop")
            try world.coffer(["edit", "vault.coffer", "--service", "shared", "--password-stdin"] + key, input: "shared-desktop\n", in: desktop, device: "desktop")
            try world.git(["commit", "-a", "-m", "Desktop edits"], in: desktop)

            try world.git(["push", "origin", "main"], in: laptop)
            // The pull merges: git runs the driver, which must succeed (exit 0, no conflict).
            let pull = try world.git(["pull", "--no-rebase", "--no-edit", "origin", "main"], in: desktop)
            #expect(!pull.out.contains("CONFLICT"), "\(pull.out)")
            #expect(pull.err.contains("coffer merge-driver: merged vault.coffer"), "\(pull.err)")
            let status = try world.git(["status", "--porcelain"], in: desktop)
            #expect(status.out.isEmpty, "the work tree is clean (no lock or temporary file left): \(status.out)")
            let parents = try world.git(["log", "-1", "--format=%P"], in: desktop)
            #expect(parents.out.split(separator: " ").count == 2, "a merge commit")
            try world.git(["push", "origin", "main"], in: desktop)
            try world.git(["pull", "--no-rebase", "--no-edit", "origin", "main"], in: laptop)

            let merged = try Data(contentsOf: laptop.appendingPathComponent("vault.coffer"))
            #expect(merged == (try Data(contentsOf: desktop.appendingPathComponent("vault.coffer"))))
            for (clone, device) in [(laptop, "laptop"), (desktop, "desktop")] {
                let list = try world.coffer(["list", "vault.coffer", "--json"] + key, in: clone, device: device)
                #expect(!list.err.contains("warning"), "\(device): \(list.err)")
                let items = try itemsByName(list)
                #expect(Set(items.keys) == ["mail", "bank", "shared", "from-laptop", "from-desktop"], "\(device)")
                #expect(items["bank"]?["label"] as? String == "Bank (desktop)")
                #expect(try world.coffer(["get", "vault.coffer", "--service", "mail"] + key, in: clone, device: device).out == "mail-1\n")
                // The same field on both: the newer edit wins, the other is kept as a conflict.
                #expect(try world.coffer(["get", "vault.coffer", "--service", "shared"] + key, in: clone, device: device).out == "shared-desktop\n")
                let history = try world.coffer(["history", "vault.coffer", "--service", "shared", "--json", "--show-passwords"] + key,
                                               in: clone, device: device).jsonObject()
                #expect((history["conflicts"] as? [[String: Any]])?.first?["value"] as? String == "shared-laptop")
                let flagged = try itemsByName(try world.coffer(["list", "vault.coffer", "--conflicts", "--json"] + key, in: clone, device: device))
                #expect(Set(flagged.keys) == ["shared"])
            }
        }
    }

    @Test("The driver fails with one line and exit non-zero, leaving OURS as it was: another vault, no key-file slot")
    func driverFailures() throws {
        try withTemporaryDirectory { root in
            let world = try GitWorld(root)
            let keyFile = root.appendingPathComponent("vault.key")
            try world.coffer(["init", "ours.coffer", "--key-file", keyFile.path, "--no-password"] + fastKDF, in: root, device: "a")
            try world.coffer(["init", "stranger.coffer", "--key-file", keyFile.path, "--no-password"] + fastKDF, in: root, device: "a")
            try world.coffer(["init", "password.coffer"] + fastKDF, input: "pw\n", in: root, device: "a")
            let ours = root.appendingPathComponent("ours.coffer")
            let before = try Data(contentsOf: ours)
            // As git's %A, a file with no lock file beside it.
            try FileManager.default.removeItem(atPath: ours.path + ".lock")

            let other = try CLI.run(["merge-driver", "--key-file", keyFile.path, "base", "ours.coffer", "stranger.coffer", "vault.coffer"],
                                    in: root, environment: world.environment(device: "git"))
            #expect(other.status == 65)
            expectOneLineMessage(other, containing: "not a replica of this vault")
            #expect(try Data(contentsOf: ours) == before)
            #expect(!FileManager.default.fileExists(atPath: ours.path + ".lock"))

            let noSlot = try CLI.run(["merge-driver", "--key-file", keyFile.path, "base", "password.coffer", "ours.coffer"],
                                     in: root, environment: world.environment(device: "git"))
            #expect(noSlot.status == 64)
            expectOneLineMessage(noSlot, containing: "coffer add-keyfile --alone")

            let missingKey = try CLI.run(["merge-driver", "--key-file", "absent.key", "base", "ours.coffer", "stranger.coffer"],
                                         in: root, environment: world.environment(device: "git"))
            #expect(missingKey.status == 74)
            expectOneLineMessage(missingKey)

            let noKeyOption = try CLI.run(["merge-driver", "base", "ours.coffer", "stranger.coffer"], in: root,
                                          environment: world.environment(device: "git"))
            #expect(noKeyOption.status == 64)
            expectOneLineMessage(noKeyOption)
        }
    }
}
