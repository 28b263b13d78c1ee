import CofferTestSupport
import Foundation
import Testing

/// `age`, `age-keygen` and `ssh-keygen`, when installed (`make test-deps` installs Debian's
/// age and openssh-client).
enum SharingTools {
    static let ageKeygen = installedTool("age-keygen"), sshKeygen = installedTool("ssh-keygen")
    static var available: Bool { ageKeygen != nil && sshKeygen != nil }

    /// `age-keygen -o FILE`, and the recipient `age-keygen -y FILE` prints.
    static func ageKey(_ file: URL) throws -> String {
        let keygen = try #require(ageKeygen)
        try #require(try runProcess(keygen, ["-o", file.path]).status == 0)
        return try runProcess(keygen, ["-y", file.path]).out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `ssh-keygen -t TYPE -N PASSPHRASE -f FILE` (FILE.pub beside it).
    static func sshKey(_ file: URL, type: String = "ed25519", passphrase: String = "", comment: String = "test@example") throws {
        let keygen = try #require(sshKeygen)
        var arguments = ["-q", "-t", type, "-N", passphrase, "-C", comment, "-f", file.path]
        if type == "rsa" { arguments += ["-b", "2048"] }
        let run = try runProcess(keygen, arguments)
        try #require(run.status == 0, "ssh-keygen: \(run.err)")
    }
}

/// Issue 30 with the real tools: vaults shared with keys `age-keygen` and `ssh-keygen`
/// made, opened by their private halves; every bad input a clear error that changes nothing.
@Suite("coffer share, shares, unshare and --identity with real age and ssh-keygen keys",
       .enabled(if: SharingTools.available, "needs age-keygen and ssh-keygen; run `make test-deps`"))
struct CLISharingTests {
    /// A vault `v.coffer` (password `pw`) with one item, in `dir`.
    func makeVault(_ dir: URL) throws {
        #expect(try CLI.run(["init", "v.coffer"] + fastKDF, input: "pw\n", in: dir).status == 0)
        #expect(try CLI.run(["add", "v.coffer", "--service", "wifi", "--account", "home"], input: "pw\ns3cret\n", in: dir).status == 0)
    }

    @Test("a key from age-keygen opens a vault shared to age-keygen -y's recipient; an ssh-keygen key one shared to its .pub")
    func interop() throws {
        try withTemporaryDirectory { dir in
            try makeVault(dir)
            let recipient = try SharingTools.ageKey(dir.appendingPathComponent("carol.txt"))
            try SharingTools.sshKey(dir.appendingPathComponent("bob"), comment: "bob@laptop")
            let shareAge = try CLI.run(["share", "v.coffer", recipient, "--name", "carol"], input: "pw\n", in: dir)
            #expect(shareAge.status == 0, "\(shareAge.err)")
            let shareSSH = try CLI.run(["share", "v.coffer", "bob.pub", "--name", "bob"], input: "pw\n", in: dir)
            #expect(shareSSH.status == 0, "\(shareSSH.err)")
            for identity in ["carol.txt", "bob"] {
                // No password on stdin: the identity alone opens it.
                let get = try CLI.run(["get", "v.coffer", "--service", "wifi", "--identity", identity], in: dir)
                #expect(get.status == 0 && get.out == "s3cret\n", "\(identity): \(get.err)")
            }
            let shares = try CLI.run(["shares", "v.coffer", "--json", "--identity", "bob"], in: dir).jsonArray()
            #expect(shares.map { $0["label"] as? String } == ["carol", "bob"])
            #expect(shares.map { $0["kind"] as? String } == ["age", "ssh-ed25519"])
            #expect(shares[0]["fingerprint"] as? String == recipient && shares[0]["recipient"] as? String == recipient)
            // The SSH fingerprint is the one ssh-keygen -l prints.
            let printed = try runProcess(try #require(SharingTools.sshKeygen), ["-l", "-f", dir.appendingPathComponent("bob.pub").path]).out
            #expect(printed.split(separator: " ").dropFirst().first.map(String.init) == shares[1]["fingerprint"] as? String)
            #expect(shares.allSatisfy { ($0["added"] as? String)?.hasSuffix("Z") == true })

            // Unshare by .pub file: Bob's key opens nothing any more, Carol's still does.
            let unshare = try CLI.run(["unshare", "v.coffer", "bob.pub"], input: "pw\n", in: dir)
            #expect(unshare.status == 0 && unshare.err.contains("rekeyed"), "\(unshare.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "wifi", "--identity", "bob"], in: dir).status == 77)
            #expect(try CLI.run(["get", "v.coffer", "--service", "wifi", "--identity", "carol.txt"], in: dir).out == "s3cret\n")
            let byLabel = try CLI.run(["unshare", "v.coffer", "carol"], input: "pw\n", in: dir)
            #expect(byLabel.status == 0, "\(byLabel.err)")
            #expect(try CLI.run(["shares", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray().isEmpty)
        }
    }

    @Test("bad input is one clear line, the exit code of its kind, and the vault byte-identical")
    func badInput() throws {
        try withTemporaryDirectory { dir in
            try makeVault(dir)
            let vault = dir.appendingPathComponent("v.coffer")
            try SharingTools.sshKey(dir.appendingPathComponent("bob"))
            #expect(try CLI.run(["share", "v.coffer", "bob.pub"], input: "pw\n", in: dir).status == 0)
            try SharingTools.sshKey(dir.appendingPathComponent("rsa"), type: "rsa")
            try SharingTools.sshKey(dir.appendingPathComponent("ecdsa"), type: "ecdsa")
            try SharingTools.sshKey(dir.appendingPathComponent("locked"), passphrase: "a passphrase")
            try SharingTools.sshKey(dir.appendingPathComponent("stranger"))
            _ = try SharingTools.ageKey(dir.appendingPathComponent("loose.txt"))
            chmod(dir.appendingPathComponent("loose.txt").path, 0o644)
            #expect(mkfifo(dir.appendingPathComponent("fifo").path, 0o600) == 0)
            let before = try Data(contentsOf: vault)
            let cases: [(String, [String], Int32, String)] = [
                ("malformed age recipient", ["share", "v.coffer", "age1qpzry9x8gf2tvdw0s3jn54khce6mua7l"], 64, "invalid key"),
                ("malformed SSH line", ["share", "v.coffer", "ssh-ed25519 AAAA!!!"], 64, "base64"),
                ("RSA public key", ["share", "v.coffer", "rsa.pub"], 64, "ssh-rsa keys are not supported"),
                ("ECDSA public key", ["share", "v.coffer", "ecdsa.pub"], 64, "ecdsa-sha2-nistp256 keys are not supported"),
                ("a private key as recipient", ["share", "v.coffer", "bob"], 64, "this is a private key"),
                ("already shared", ["share", "v.coffer", "bob.pub"], 64, "already shared"),
                ("identity for another vault", ["list", "v.coffer", "--identity", "stranger"], 77, "not shared with this identity"),
                ("identity with loose permissions", ["list", "v.coffer", "--identity", "loose.txt"], 64, "owner only"),
                ("passphrase-protected key", ["list", "v.coffer", "--identity", "locked"], 64, "passphrase"),
                ("RSA private key", ["list", "v.coffer", "--identity", "rsa"], 64, "ssh-rsa"),
                ("a public key as identity", ["list", "v.coffer", "--identity", "bob.pub"], 64, "public key"),
                ("a FIFO as identity", ["list", "v.coffer", "--identity", "fifo"], 64, "not a regular file"),
                ("no such share", ["unshare", "v.coffer", "nobody"], 64, "no share labelled nobody"),
            ]
            for (name, arguments, status, text) in cases {
                let result = try CLI.run(arguments, input: "pw\n", in: dir, timeout: 20)
                #expect(result.status == status, "\(name): exit \(result.status): \(result.err)")
                expectOneLineMessage(result, containing: text)
                #expect(try Data(contentsOf: vault) == before, "\(name): the vault changed")
            }
        }
    }

    @Test("--identity on the merge driver and cached unlock: an identity works where a key file does")
    func unattended() throws {
        try withTemporaryDirectory { dir in
            try makeVault(dir)
            try SharingTools.sshKey(dir.appendingPathComponent("bob"))
            #expect(try CLI.run(["share", "v.coffer", "bob.pub"], input: "pw\n", in: dir).status == 0)
            try FileManager.default.copyItem(at: dir.appendingPathComponent("v.coffer"), to: dir.appendingPathComponent("theirs.coffer"))
            #expect(try CLI.run(["add", "theirs.coffer", "--service", "from-theirs", "--account", "a", "--identity", "bob"],
                                input: "x\n", in: dir).status == 0)
            let driver = try CLI.run(["merge-driver", "--identity", "bob", "base", "v.coffer", "theirs.coffer", "v.coffer"], in: dir)
            #expect(driver.status == 0, "\(driver.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "from-theirs", "--identity", "bob"], in: dir).out == "x\n")
            #expect(try CLI.run(["list", "v.coffer", "--key-file", "k", "--identity", "bob"], in: dir).status == 64)
        }
    }
}
