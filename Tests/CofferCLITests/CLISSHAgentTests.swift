import CofferTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// OpenSSH's `ssh-add` and `ssh-keygen`, when installed (`make test` installs openssh-client).
enum OpenSSH {
    static let folder: String? = ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"].first {
        FileManager.default.isExecutableFile(atPath: $0 + "/ssh-add") && FileManager.default.isExecutableFile(atPath: $0 + "/ssh-keygen")
    }
    static let fixtures = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fixtures/ssh")

    /// The fixture key `name` and its `.pub` copied into `dir/keys` (mode 0600, as ssh wants it).
    static func copyKey(_ name: String, to dir: URL) throws -> URL {
        let keys = dir.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        for file in [name, name + ".pub"] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(file), to: keys.appendingPathComponent(file))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keys.appendingPathComponent(name).path)
        return keys.appendingPathComponent(name)
    }
}

/// A client of an agent's socket, for the requests no OpenSSH tool sends.
struct AgentClient {
    let fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(status == 0, "cannot connect to \(path)")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }

    /// The next reply's body, or nil when the agent closed the connection (or said nothing in 10 s).
    func receive() -> [UInt8]? {
        func readExactly(_ count: Int) -> [UInt8]? {
            var out: [UInt8] = []
            while out.count < count {
                var chunk = [UInt8](repeating: 0, count: count - out.count)
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { return nil }
                out += chunk.prefix(n)
            }
            return out
        }
        guard let header = readExactly(4) else { return nil }
        return readExactly(header.reduce(0) { $0 << 8 | Int($1) })
    }

    /// True when the agent has closed the connection.
    func isClosed() -> Bool { receive() == nil }

    func disconnect() { _ = close(fd) }

    static func framed(_ body: [UInt8]) -> [UInt8] {
        let n = UInt32(body.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + body
    }
}

/// `coffer add-ssh-key` and `coffer ssh-agent` with real `ssh-add` and `ssh-keygen` (issue 31).
@Suite("coffer ssh-agent: the vault's SSH keys for ssh-add and ssh-keygen")
struct CLISSHAgentTests {
    @Test("add-ssh-key stores an Ed25519 key once; RSA, ECDSA, a passphrase, a public key are refused by name")
    func addKey() throws {
        try withVault { dir in
            for (name, status, text) in [("id_rsa", Int32(64), "ssh-rsa keys are not supported"),
                                         ("id_ecdsa", 64, "ecdsa-sha2-nistp256 keys are not supported"),
                                         ("id_ed25519_passphrase", 64, "protected by a passphrase"),
                                         ("id_ed25519.pub", 64, "public key")] {
                let result = try CLI.run(["add-ssh-key", "v.coffer", OpenSSH.fixtures.appendingPathComponent(name).path], input: "", in: dir)
                #expect(result.status == status, "\(name): \(result.err)")
                expectOneLineMessage(result, containing: text)
            }
            let key = OpenSSH.fixtures.appendingPathComponent("id_ed25519").path
            let added = try CLI.run(["add-ssh-key", "v.coffer", key, "--label", "laptop"], input: "pw\n", in: dir)
            #expect(added.status == 0, "\(added.err)")
            #expect(added.err.contains("SHA256:PVz9xcWCO76YUCjgz7yzzxNKzYoQTPLuz/UD5yTV3HE"), "\(added.err)")
            #expect(try CLI.run(["add-ssh-key", "v.coffer", key], input: "pw\n", in: dir).status == 2)
            let field = try CLI.run(["get", "v.coffer", "laptop", "--field", "ssh-private-key"], input: "pw\n", in: dir)
            #expect(field.out == String(decoding: try Data(contentsOf: URL(fileURLWithPath: key)), as: UTF8.self) + "\n")
        }
    }

    @Test("ssh-add -l lists the key as ssh-keygen -lf prints it; ssh-keygen -Y sign through the agent verifies; locking stops both",
          .enabled(if: OpenSSH.folder != nil && Keyctl.path != nil, "needs ssh-add, ssh-keygen and keyctl; run `make test-deps`"))
    func realTools() throws {
        try withVault { dir in
            let key = try OpenSSH.copyKey("id_ed25519", to: dir)
            let added = try CLI.run(["add-ssh-key", "v.coffer", key.path], input: "pw\n", in: dir)
            try #require(added.status == 0, "\(added.err)")
            // Only the public key beside the message: ssh-keygen -Y sign must use the agent.
            let pub = dir.appendingPathComponent("signer.pub")
            try FileManager.default.copyItem(at: URL(fileURLWithPath: key.path + ".pub"), to: pub)
            try Data("the message\n".utf8).write(to: dir.appendingPathComponent("msg"))
            let bin = try #require(OpenSSH.folder)
            let script = """
                printf 'pw\\n' | "$C" unlock v.coffer --for 5m 2>/dev/null || exit 9
                mkdir -m 700 agent
                "$C" ssh-agent v.coffer --socket "$PWD/agent/s" > agent.out 2> agent.err &
                agent=$!
                for i in $(seq 100); do [ -S agent/s ] && break; sleep 0.1; done
                export SSH_AUTH_SOCK="$PWD/agent/s"
                echo "socket-mode: $(stat -c %a agent/s) folder-mode: $(stat -c %a agent)"
                echo "agent-list: $('\(bin)/ssh-add' -l)"
                echo "keygen-list: $('\(bin)/ssh-keygen' -lf keys/id_ed25519.pub)"
                '\(bin)/ssh-keygen' -Y sign -f signer.pub -n file msg 2>/dev/null; echo "sign: $?"
                printf 'me %s\\n' "$(cat signer.pub)" > allowed
                '\(bin)/ssh-keygen' -Y verify -f allowed -I me -n file -s msg.sig < msg 2>&1; echo "verify: $?"
                '\(bin)/ssh-add' keys/id_ed25519 2>/dev/null; echo "add: $?"
                '\(bin)/ssh-add' -D 2>/dev/null; echo "remove-all: $?"
                "$C" lock v.coffer 2>/dev/null
                echo "locked-list: $('\(bin)/ssh-add' -l 2>&1)"
                rm -f msg.sig; '\(bin)/ssh-keygen' -Y sign -f signer.pub -n file msg 2>/dev/null; echo "locked-sign: $?"
                kill $agent; wait $agent; echo "agent-exit: $?"
                [ -e agent/s ]; echo "socket-left: $?"
                cat agent.out agent.err
                """
            let result = try Keyctl.session(script, in: dir)
            let out = result.out
            let expected = try #require(out.split(separator: "\n").first { $0.hasPrefix("keygen-list: 256 SHA256:") }).dropFirst("keygen-list: ".count)
            #expect(out.contains("agent-list: \(expected)\n"), "\(out)\n\(result.err)")
            #expect(out.contains("socket-mode: 600 folder-mode: 700"), "\(out)")
            #expect(out.contains("sign: 0\n"), "\(out)")
            #expect(out.contains("Good \"file\" signature for me with ED25519 key SHA256:PVz9xcWCO76YUCjgz7yzzxNKzYoQTPLuz/UD5yTV3HE"), "\(out)")
            #expect(out.contains("verify: 0\n"), "\(out)")
            #expect(out.contains("add: 1\n") && out.contains("remove-all: 1\n"), "\(out)")
            #expect(out.contains("locked-list: The agent has no identities."), "\(out)")
            #expect(out.contains("locked-sign: 255\n") || (out.contains("locked-sign: ") && !out.contains("locked-sign: 0\n")), "\(out)")
            #expect(out.contains("agent-exit: 0\n") && out.contains("socket-left: 1\n"), "\(out)")
            #expect(out.contains("SSH_AUTH_SOCK=") && out.contains("refused the add identity request"), "\(out)")
        }
    }

    @Test("Hostile clients: a 100 MB length, a truncated message, unknown and refused requests, a key not in the vault — each refused, the agent keeps serving")
    func hostileClients() throws {
        try withVault { dir in
            let agentFolder = dir.appendingPathComponent("agent")
            try FileManager.default.createDirectory(at: agentFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let socketPath = agentFolder.appendingPathComponent("s").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(CLI.binary))
            process.arguments = ["ssh-agent", dir.appendingPathComponent("v.coffer").path, "--socket", socketPath]
            process.environment = CLI.environment
            let errors = dir.appendingPathComponent("agent.err")
            try #require(FileManager.default.createFile(atPath: errors.path, contents: nil))
            process.standardError = try FileHandle(forWritingTo: errors)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
            let deadline = Date().addingTimeInterval(20)
            while !FileManager.default.fileExists(atPath: socketPath) && Date() < deadline { usleep(20_000) }
            try #require(FileManager.default.fileExists(atPath: socketPath), "the agent did not start")

            // 100 MB announced: answered with failure and closed, at once, nothing allocated.
            let big = try AgentClient(path: socketPath)
            let started = Date()
            big.send([0x06, 0x00, 0x00, 0x00])   // 100,663,296 bytes
            #expect(big.receive() == [5])
            #expect(big.isClosed())
            #expect(Date().timeIntervalSince(started) < 5)
            big.disconnect()
            // Truncated: the client goes away in the middle of a message.
            let truncated = try AgentClient(path: socketPath)
            truncated.send([0, 0, 0, 20, 13, 0, 0])
            truncated.disconnect()
            // Unknown, refused, malformed and a key not in the vault (locked or not, it holds none): failure, connection kept.
            let client = try AgentClient(path: socketPath)
            var blob = [UInt8](repeating: 0, count: 4) + Array("ssh-ed25519".utf8)
            blob[3] = 11
            blob += [0, 0, 0, 32] + [UInt8](repeating: 7, count: 32)
            let notInVault = [13, 0, 0, 0, UInt8(blob.count)] + blob + [0, 0, 0, 1, 0x41, 0, 0, 0, 0]
            for body in [[99], [17], [19], [22, 0, 0, 0, 0], [27, 0, 0, 0, 1, 0x78], [13, 0, 0], notInVault] as [[UInt8]] {
                client.send(AgentClient.framed(body))
                #expect(client.receive() == [5], "\(body.prefix(6))")
            }
            // Still serving: the identities answer (the vault is not unlocked in this test: no key).
            client.send(AgentClient.framed([11]))
            #expect(client.receive() == [12, 0, 0, 0, 0])
            client.disconnect()
            process.terminate()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(!FileManager.default.fileExists(atPath: socketPath), "the socket was not removed")
            let log = try String(contentsOf: errors, encoding: .utf8)
            #expect(log.contains("refused a message of 100663296 bytes"), "\(log)")
            #expect(log.contains("truncated"), "\(log)")
        }
    }

    @Test("The socket's folder must be this user's and mode 0700; a live agent's socket is not taken over")
    func socketFolder() throws {
        try withVault { dir in
            let open = dir.appendingPathComponent("open")
            try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let refused = try CLI.run(["ssh-agent", "v.coffer", "--socket", open.appendingPathComponent("s").path], in: dir, timeout: 10)
            #expect(refused.status == 64, "\(refused.err)")
            expectOneLineMessage(refused, containing: "mode 0700")
            let taken = dir.appendingPathComponent("private")
            try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data("not a socket".utf8).write(to: taken.appendingPathComponent("s"))
            let occupied = try CLI.run(["ssh-agent", "v.coffer", "--socket", taken.appendingPathComponent("s").path], in: dir, timeout: 10)
            #expect(occupied.status == 73, "\(occupied.err)")
            expectOneLineMessage(occupied, containing: "is taken")
            let missing = try CLI.run(["ssh-agent", "nothing.coffer", "--socket", dir.appendingPathComponent("a/s").path], in: dir, timeout: 10)
            #expect(missing.status == 74, "\(missing.err)")
        }
    }
}
