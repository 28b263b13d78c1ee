import CofferTestSupport
import Foundation
import Testing

/// keyutils's `keyctl`, when installed (`make test` installs it): a fresh session keyring
/// for the tests that lock every vault or take the keyring away.
enum Keyctl {
    static let path: String? = ["/usr/bin/keyctl", "/bin/keyctl", "/usr/sbin/keyctl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `script` with `sh` in a new anonymous session keyring; `$C` is the coffer binary.
    static func session(_ script: String, in directory: URL) throws -> ProcessResult {
        let keyctl = try #require(path)
        let binary = try #require(CLI.binary)
        var env = CLI.environment
        env["C"] = binary
        return try runProcess(URL(fileURLWithPath: keyctl), ["session", "-", "/bin/sh", "-c", script],
                              in: directory, environment: env, timeout: 60)
    }
}

/// `coffer unlock`, `lock`, `status` and every command's use of the cached unlock, with the
/// real kernel keyring of the test's session.
@Suite("coffer: unlock once (kernel keyring)")
struct CLIUnlockCacheTests {
    /// A vault with one item whose password is `s3cret`.
    func withItemVault(_ body: (URL) throws -> Void) throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--service", "gh", "--account", "me"], input: "pw\ns3cret\n", in: dir)
            try #require(added.status == 0, "add: \(added.err)")
            try body(dir)
        }
    }

    @Test("`coffer unlock` then ten `coffer get` read the password once; `lock` asks again")
    func unlockOnce() throws {
        try withItemVault { (dir: URL) throws in
            defer { _ = try? CLI.run(["lock", "v.coffer"], in: dir) }
            // Only one password line exists: the one `unlock` reads.
            let unlocked = try CLI.run(["unlock", "v.coffer", "--for", "5m"], input: "pw\n", in: dir)
            #expect(unlocked.status == 0, "\(unlocked.err)")
            #expect(unlocked.err.contains("unlocked v.coffer for 5 minutes"))
            for _ in 0..<10 {
                let got = try CLI.run(["get", "v.coffer", "--service", "gh"], input: "", in: dir)
                #expect(got.status == 0, "\(got.err)")
                #expect(got.out == "s3cret\n")
                #expect(!got.err.contains("password"), "\(got.err)")
            }
            // Saving commands use it too, and the saved file still opens with it.
            let added = try CLI.run(["add", "v.coffer", "--service", "two", "--account", "x", "--generate"], input: "", in: dir)
            #expect(added.status == 0, "\(added.err)")
            #expect(try CLI.run(["list", "v.coffer"], input: "", in: dir).out.contains("two"))
            // --no-cache reads the password: none on stdin is exit 64, as without a cache.
            #expect(try CLI.run(["get", "v.coffer", "--service", "gh", "--no-cache"], input: "", in: dir).status == 64)
            #expect(try CLI.run(["get", "v.coffer", "--service", "gh", "--no-cache"], input: "pw\n", in: dir).status == 0)
            // A wrong password with --no-cache is still exit 77.
            #expect(try CLI.run(["get", "v.coffer", "--service", "gh", "--no-cache"], input: "nope\n", in: dir).status == 77)

            let locked = try CLI.run(["lock", "v.coffer"], in: dir)
            #expect(locked.status == 0 && locked.err.contains("locked v.coffer"), "\(locked.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "gh"], input: "", in: dir).status == 64)
            #expect(try CLI.run(["get", "v.coffer", "--service", "gh"], input: "pw\n", in: dir).out == "s3cret\n")
            let again = try CLI.run(["lock", "v.coffer"], in: dir)
            #expect(again.status == 0 && again.err.contains("was not unlocked"))
        }
    }

    @Test("Unlocked, a script that pipes the master password then a secret still stores the secret, not the master password")
    func pipedSecretsKeepTheirLines() throws {
        try withItemVault { (dir: URL) throws in
            defer { _ = try? CLI.run(["lock", "v.coffer"], in: dir) }
            #expect(try CLI.run(["unlock", "v.coffer"], input: "pw\n", in: dir).status == 0)
            // The same scripts as without `coffer unlock`: the first line is the master password.
            #expect(try CLI.run(["add", "v.coffer", "--service", "new", "--account", "me"], input: "pw\nitem-secret\n", in: dir).status == 0)
            #expect(try CLI.run(["get", "v.coffer", "--service", "new"], input: "", in: dir).out == "item-secret\n")
            #expect(try CLI.run(["edit", "v.coffer", "--service", "new", "--password-stdin"], input: "pw\nedited\n", in: dir).status == 0)
            #expect(try CLI.run(["get", "v.coffer", "--service", "new"], input: "", in: dir).out == "edited\n")
            #expect(try CLI.run(["note", "v.coffer", "--title", "n"], input: "pw\nthe note\n", in: dir).status == 0)
            #expect(try CLI.run(["get", "v.coffer", "--title", "n", "--field", "notes"], input: "", in: dir).out == "the note\n")
            // A command that reads no secret ignores the line it no longer needs.
            #expect(try CLI.run(["edit", "v.coffer", "--service", "new", "--label", "L"], input: "pw\n", in: dir).status == 0)
            #expect(try CLI.run(["get", "v.coffer", "--service", "new"], input: "", in: dir).out == "edited\n")
        }
    }

    @Test("`unlock` checks the password: a wrong one is exit 77 and caches nothing")
    func wrongPassword() throws {
        try withItemVault { (dir: URL) throws in
            let result = try CLI.run(["unlock", "v.coffer"], input: "nope\n", in: dir)
            #expect(result.status == 77)
            #expect(try CLI.run(["get", "v.coffer", "--service", "gh"], input: "", in: dir).status == 64)
            #expect(try CLI.run(["unlock", "v.coffer", "--for", "25h"], input: "pw\n", in: dir).status == 64)
            #expect(try CLI.run(["unlock", "v.coffer", "--for", "soon"], input: "pw\n", in: dir).status == 64)
        }
    }

    @Test("`status` lists the unlocked vault and its time left, in text and JSON, with no secret")
    func status() throws {
        try withItemVault { (dir: URL) throws in
            defer { _ = try? CLI.run(["lock", "v.coffer"], in: dir) }
            #expect(try CLI.run(["unlock", "v.coffer", "--for", "1h30m"], input: "pw\n", in: dir).status == 0)
            let text = try CLI.run(["status"], in: dir)
            let path = dir.resolvingSymlinksInPath().appendingPathComponent("v.coffer").path
            let line = try #require(text.out.split(separator: "\n").first { $0.hasPrefix(path + " ") }, "status: \(text.out)")
            #expect(line.contains("unlocked for 1h 29m") && line.contains("password slot"), "\(line)")
            let json = try CLI.run(["status", "--json"], in: dir)
            let entry = try #require(try json.jsonArray().first { $0["path"] as? String == path })
            let left = try #require(entry["secondsLeft"] as? Int)
            #expect(left > 5300 && left <= 5400)
            #expect(entry["slot"] as? String == "password" && (entry["vaultID"] as? String)?.count == 32)
            #expect(!json.out.contains("s3cret") && !text.out.contains("s3cret"))
        }
    }

    @Test("The kernel's timeout ends it: after `--for 4s`, commands ask for the password again")
    func expiry() throws {
        try withItemVault { (dir: URL) throws in
            // Four seconds: long enough for the first get on a loaded machine.
            let start = Date()
            #expect(try CLI.run(["unlock", "v.coffer", "--for", "4s"], input: "pw\n", in: dir).status == 0)
            #expect(try CLI.run(["get", "v.coffer", "--service", "gh"], input: "", in: dir).status == 0)
            Thread.sleep(forTimeInterval: max(0, 4.6 - Date().timeIntervalSince(start)))
            #expect(try CLI.run(["get", "v.coffer", "--service", "gh"], input: "", in: dir).status == 64)
        }
    }

    @Test("`passwd` asks for the current password even when unlocked, and ends the unlock")
    func passwdEndsIt() throws {
        try withItemVault { (dir: URL) throws in
            defer { _ = try? CLI.run(["lock", "v.coffer"], in: dir) }
            #expect(try CLI.run(["unlock", "v.coffer"], input: "pw\n", in: dir).status == 0)
            // Without the current password on stdin, passwd does not change anything.
            #expect(try CLI.run(["passwd", "v.coffer"], input: "", in: dir).status == 64)
            let changed = try CLI.run(["passwd", "v.coffer"], input: "pw\nnew password\n", in: dir)
            #expect(changed.status == 0, "\(changed.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "gh"], input: "", in: dir).status == 64)
            #expect(try CLI.run(["get", "v.coffer", "--service", "gh"], input: "new password\n", in: dir).out == "s3cret\n")
        }
    }

    @Test("A vault file replaced by another vault is not opened by the old unlock")
    func replacedFile() throws {
        try withItemVault { (dir: URL) throws in
            defer { _ = try? CLI.run(["lock", "v.coffer"], in: dir) }
            #expect(try CLI.run(["unlock", "v.coffer"], input: "pw\n", in: dir).status == 0)
            #expect(try CLI.run(["init", "other.coffer"] + fastKDF, input: "pw\n", in: dir).status == 0)
            try FileManager.default.removeItem(at: dir.appendingPathComponent("v.coffer"))
            try FileManager.default.moveItem(at: dir.appendingPathComponent("other.coffer"), to: dir.appendingPathComponent("v.coffer"))
            #expect(try CLI.run(["list", "v.coffer"], input: "", in: dir).status == 64)
            let status = try CLI.run(["status"], in: dir)
            #expect(!status.out.contains(dir.resolvingSymlinksInPath().appendingPathComponent("v.coffer").path), "\(status.out)")
        }
    }

    @Test("`lock --all` and `status` in a session of their own", .enabled(if: Keyctl.path != nil, "needs keyctl; run `make test-deps`"))
    func lockAll() throws {
        try withItemVault { (dir: URL) throws in
            #expect(try CLI.run(["init", "b.coffer"] + fastKDF, input: "pw\n", in: dir).status == 0)
            let result = try Keyctl.session("""
                printf 'pw\\n' | "$C" unlock v.coffer 2>/dev/null || exit 10
                printf 'pw\\n' | "$C" unlock b.coffer 2>/dev/null || exit 11
                "$C" status | wc -l
                "$C" lock --all
                "$C" status
                "$C" get v.coffer --service gh </dev/null >/dev/null 2>&1; echo "get: $?"
                """, in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out == "2\nno vault is unlocked\nget: 64\n", "\(result.out)")
            #expect(result.err.contains("locked 2 vaults"), "\(result.err)")
        }
    }

    @Test("No usable keyring: `unlock` is exit 74 in one line, every other command asks for the password",
          .enabled(if: Keyctl.path != nil, "needs keyctl; run `make test-deps`"))
    func noKeyring() throws {
        try withItemVault { (dir: URL) throws in
            // The session keyring exists, but grants nothing: add_key and reads are refused.
            let result = try Keyctl.session("""
                keyctl setperm @s 0 || exit 10
                printf 'pw\\n' | "$C" unlock v.coffer; echo "unlock: $?"
                printf 'pw\\n' | "$C" get v.coffer --service gh; echo "get: $?"
                "$C" status; echo "status: $?"
                """, in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out == "unlock: 74\ns3cret\nget: 0\nstatus: 74\n", "\(result.out)")
            let lines = result.err.split(separator: "\n").filter { !$0.hasPrefix("Joined session keyring") }
            #expect(lines.count == 2 && lines.allSatisfy { $0.hasPrefix("coffer: the unlock cache is unavailable") }, "\(result.err)")
        }
    }

    @Test("The merge driver opens OURS with a cached unlock, without a key file")
    func mergeDriver() throws {
        try withItemVault { (dir: URL) throws in
            defer { _ = try? CLI.run(["lock", "v.coffer"], in: dir) }
            try FileManager.default.copyItem(at: dir.appendingPathComponent("v.coffer"), to: dir.appendingPathComponent("theirs.coffer"))
            #expect(try CLI.run(["add", "theirs.coffer", "--service", "theirs", "--account", "t", "--generate"], input: "pw\n", in: dir).status == 0)
            try FileManager.default.copyItem(at: dir.appendingPathComponent("v.coffer"), to: dir.appendingPathComponent("ours.coffer"))
            // Not unlocked, no key file: exit 64, OURS untouched.
            let refused = try CLI.run(["merge-driver", "v.coffer", "ours.coffer", "theirs.coffer"], in: dir)
            #expect(refused.status == 64, "\(refused.err)")
            #expect(try CLI.run(["unlock", "v.coffer"], input: "pw\n", in: dir).status == 0)
            let merged = try CLI.run(["merge-driver", "v.coffer", "ours.coffer", "theirs.coffer"], in: dir)
            #expect(merged.status == 0, "\(merged.err)")
            #expect(try CLI.run(["list", "ours.coffer"], input: "", in: dir).out.contains("theirs"))
        }
    }
}
