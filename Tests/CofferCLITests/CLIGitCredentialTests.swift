import CofferTestSupport
import Foundation
import Testing

/// `coffer git-credential` as git's credential helper, with real `git credential fill`,
/// `approve` and `reject` (issue 31).
@Suite("coffer git-credential: a git credential helper, with real git", .enabled(if: Git.path != nil, "needs git; run `make test-deps`"))
struct CLIGitCredentialTests {
    /// A folder with a vault the key file `k` opens alone, holding alice's password for
    /// https://example.com, and a git world (its own HOME, no system configuration).
    func withKeyFileVault(_ body: (URL, GitWorld) throws -> Void) throws {
        try withTemporaryDirectory { dir in
            let world = try GitWorld(dir)
            try world.coffer(["init", "v.coffer", "--key-file", "k", "--no-password"] + fastKDF, in: dir, device: "d")
            try world.coffer(["add", "v.coffer", "--key-file", "k", "--server", "https://example.com", "--account", "alice"],
                             input: "s3cret\n", in: dir, device: "d")
            try body(dir, world)
        }
    }

    /// `git -c credential.helper=… credential OPERATION` with `input` (git's own format).
    func git(_ world: GitWorld, _ dir: URL, helper flags: String = "", _ operation: String, _ input: String) throws -> ProcessResult {
        let binary = try #require(CLI.binary)
        let helper = "!'\(binary)' git-credential '\(dir.appendingPathComponent("v.coffer").path)' --key-file '\(dir.appendingPathComponent("k").path)' \(flags)"
        return try runProcess(URL(fileURLWithPath: try #require(Git.path)), ["-c", "credential.helper=\(helper)", "credential", operation],
                              input: input, in: dir, environment: world.environment(device: "d"), timeout: 30)
    }

    @Test("git credential fill returns the stored user and password for the https remote, and nothing for another host")
    func fill() throws {
        try withKeyFileVault { dir, world in
            let filled = try git(world, dir, "fill", "url=https://example.com/team/repo.git\n\n")
            #expect(filled.status == 0, "\(filled.err)")
            #expect(filled.out.contains("username=alice\n") && filled.out.contains("password=s3cret\n"), "\(filled.out)")
            // The host in another case, with its default port, and the username git knows.
            let same = try git(world, dir, "fill", "protocol=https\nhost=EXAMPLE.com:443\nusername=alice\n\n")
            #expect(same.status == 0 && same.out.contains("password=s3cret\n"), "\(same.err)")
            // Another host, scheme, port or user: the helper answers nothing, so git (no terminal) gives up.
            for request in ["protocol=https\nhost=example.org\n\n", "protocol=http\nhost=example.com\n\n",
                            "protocol=https\nhost=example.com:8443\n\n", "protocol=https\nhost=example.com\nusername=bob\n\n"] {
                let other = try git(world, dir, "fill", request)
                #expect(other.status != 0 && !other.out.contains("s3cret"), "\(request): \(other.out)")
            }
        }
    }

    @Test("store adds only with --allow-store and never replaces another password; erase removes only with --allow-erase")
    func storeAndErase() throws {
        try withKeyFileVault { dir, world in
            let bob = "protocol=https\nhost=git.example.net\nusername=bob\npassword=bobs-pw\n\n"
            _ = try git(world, dir, "approve", bob)
            let notStored = try CLI.run(["list", "v.coffer", "--key-file", "k"], in: dir)
            #expect(!notStored.out.contains("bob"), "stored without --allow-store: \(notStored.out)")
            let stored = try git(world, dir, helper: "--allow-store", "approve", bob)
            #expect(stored.status == 0 && stored.err.contains("saved the password of bob"), "\(stored.err)")
            let got = try CLI.run(["get", "v.coffer", "--key-file", "k", "--server", "https://git.example.net", "--account", "bob"], in: dir)
            #expect(got.out == "bobs-pw\n", "\(got.err)")
            // A different password for the same login is kept, with a message.
            let other = try git(world, dir, helper: "--allow-store", "approve", bob.replacingOccurrences(of: "bobs-pw", with: "new-pw"))
            #expect(other.err.contains("it was kept"), "\(other.err)")
            #expect(try CLI.run(["get", "v.coffer", "--key-file", "k", "--server", "https://git.example.net"], in: dir).out == "bobs-pw\n")
            // erase: kept by default; with --allow-erase, kept when the rejected password is another one, removed when it is this one.
            let kept = try git(world, dir, "reject", bob)
            #expect(kept.err.contains("keeps it"), "\(kept.err)")
            _ = try git(world, dir, helper: "--allow-erase", "reject", bob.replacingOccurrences(of: "bobs-pw", with: "stale"))
            #expect(try CLI.run(["list", "v.coffer", "--key-file", "k"], in: dir).out.contains("bob"))
            let erased = try git(world, dir, helper: "--allow-erase", "reject", bob)
            #expect(erased.err.contains("removed"), "\(erased.err)")
            let after = try CLI.run(["list", "v.coffer", "--key-file", "k"], in: dir).out
            #expect(!after.contains("bob") && after.contains("alice"), "\(after)")
        }
    }

    @Test("Malformed requests are clear refusals (exit 64), before the vault is opened; a 100 KiB request is refused")
    func malformed() throws {
        try withKeyFileVault { dir, _ in
            for (input, text) in [("protocol=https\nno equals sign\n\n", "line 2"), ("=value\n\n", "line 1"),
                                  ("protocol=https\nhost=exa\u{0}mple.com\n\n", "NUL"),
                                  ("protocol=https\n\n", "names no host"),
                                  ("protocol=https\nhost=example.com:99999\n\n", "port"),
                                  ("url=example.com\n\n", "scheme"),
                                  ("protocol=https\nhost=example.com\nusername=" + String(repeating: "a", count: 100_000) + "\n\n", "larger than 64 KiB")] {
                let result = try CLI.run(["git-credential", "v.coffer", "--key-file", "k", "get"], input: input, in: dir)
                #expect(result.status == 64, "\(input.prefix(60)): \(result.err)")
                expectOneLineMessage(result, containing: text)
                #expect(result.out.isEmpty)
            }
            let badOperation = try CLI.run(["git-credential", "v.coffer", "fill"], input: "", in: dir)
            #expect(badOperation.status == 64)
        }
    }

    @Test("A password vault that is not unlocked fails at once (no prompt on git's pipe), and git asks instead",
          .enabled(if: setsid != nil, "needs util-linux's setsid"))
    func lockedFailsFast() throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--server", "https://example.com", "--account", "alice"], input: "pw\ns3cret\n", in: dir)
            try #require(added.status == 0)
            let started = Date()
            // The request's lines must not be taken for the master password; with no controlling
            // terminal (setsid) there is no one to ask, so it fails at once.
            let binary = try #require(CLI.binary)
            let result = try runProcess(URL(fileURLWithPath: try #require(Self.setsid)), ["-w", binary, "git-credential", "v.coffer", "get"],
                                        input: "protocol=https\nhost=example.com\n\n", in: dir, environment: CLI.environment, timeout: 30)
            #expect(result.status == 64)
            #expect(result.err.hasPrefix("coffer: ") && result.err.contains("not unlocked") && result.err.contains("no terminal"), "\(result.err)")
            #expect(result.out.isEmpty)
            #expect(Date().timeIntervalSince(started) < 10)
            // GIT_TERMINAL_PROMPT=0 forbids the prompt even where a terminal exists.
            var quiet = CLI.environment
            quiet["GIT_TERMINAL_PROMPT"] = "0"
            let forbidden = try CLI.run(["git-credential", "v.coffer", "get"], input: "protocol=https\nhost=example.com\n\n", in: dir, environment: quiet)
            #expect(forbidden.status == 64 && forbidden.out.isEmpty, "\(forbidden.err)")
        }
    }

    static let setsid: String? = ["/usr/bin/setsid", "/bin/setsid"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let script: String? = ["/usr/bin/script", "/bin/script"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("With a terminal, the master password is asked for on it (/dev/tty), never read from git's pipe",
          .enabled(if: script != nil, "needs util-linux's script for a pseudo-terminal"))
    func promptsOnTerminal() throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--server", "https://example.com", "--account", "alice"], input: "pw\ns3cret\n", in: dir)
            try #require(added.status == 0)
            try Data("protocol=https\nhost=example.com\n\n".utf8).write(to: dir.appendingPathComponent("request"))
            let binary = try #require(CLI.binary)
            var env = CLI.environment
            env["C"] = binary
            // script gives the command a pseudo-terminal as /dev/tty and types what it reads: the password, a moment later.
            let result = try runProcess(URL(fileURLWithPath: "/bin/sh"),
                                        ["-c", "(sleep 1; printf 'pw\\n') | '\(try #require(Self.script))' -qec '\"$C\" git-credential v.coffer get < request' /dev/null"],
                                        in: dir, environment: env, timeout: 60)
            #expect(result.status == 0, "\(result.out)\(result.err)")
            #expect(result.out.contains("Master password for v.coffer"), "\(result.out)")
            #expect(result.out.contains("username=alice") && result.out.contains("password=s3cret"), "\(result.out)")
        }
    }

    @Test("After `coffer unlock` (a fresh session keyring), git credential fill answers from a password vault",
          .enabled(if: Keyctl.path != nil, "needs keyctl; run `make test-deps`"))
    func unlockedVault() throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--server", "https://example.com", "--account", "alice"], input: "pw\ns3cret\n", in: dir)
            try #require(added.status == 0)
            let world = try GitWorld(dir)
            let git = try #require(Git.path)
            var script = "printf 'pw\\n' | \"$C\" unlock v.coffer --for 1m || exit 9\n"
            for (key, value) in world.environment(device: "d") where key.hasPrefix("GIT_") || key == "HOME" || key == "XDG_CONFIG_HOME" {
                script += "export \(key)='\(value)'\n"
            }
            script += "printf 'protocol=https\\nhost=example.com\\n\\n' | '\(git)' -c credential.helper=\"!'$C' git-credential v.coffer\" credential fill"
            let result = try Keyctl.session(script, in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.contains("username=alice\n") && result.out.contains("password=s3cret\n"), "\(result.out)")
        }
    }
}
