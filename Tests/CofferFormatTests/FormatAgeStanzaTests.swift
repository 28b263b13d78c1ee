import Foundation
import Testing
@testable import CofferCrypto
@testable import CofferFormat
import CofferTestSupport

/// Recipient slots' stanza code (SPEC.md §4.11) against age: the C2SP CCTV vectors for
/// X25519 (Tests/Fixtures/age-cctv), and files the real `age` tool writes to X25519 and
/// ssh-ed25519 recipients, whose file key the stanza code must unwrap (checked by age's
/// own header MAC).
@Suite("Format: age recipient stanzas")
struct FormatAgeStanzaTests {
    static let fixtures = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fixtures")

    static let cctv = ["x25519", "x25519_identity", "x25519_low_order", "x25519_bad_tag", "x25519_no_match",
                       "x25519_long_file_key", "x25519_multiple_recipients"]

    /// The file key the identity unwraps from the file's X25519 stanzas, or nil.
    static func unwrap(_ file: AgeFile, identity: VaultIdentity, fileKeyLength: Int = 16) throws -> SecureBytes? {
        for stanza in file.stanzas {
            for key in identity.keys {
                let recipient: AgeStanza.Recipient
                switch (stanza.type, key.recipient.kind) {
                case ("X25519", .age): recipient = .x25519(publicKey: key.recipient.key)
                case ("ssh-ed25519", .sshEd25519): recipient = try .sshEd25519(rawKey: key.recipient.key)
                default: continue
                }
                guard let share = stanza.arguments.last.map({ try? AgeFile.base64($0) }) ?? nil else { continue }
                if let fileKey = try AgeStanza.unwrap(share: share, body: stanza.body, scalar: key.scalar, recipient: recipient,
                                                      keyLength: fileKeyLength) {
                    return fileKey
                }
            }
        }
        return nil
    }

    @Test("CCTV age vectors: the X25519 stanza unwraps the file key exactly when age does", arguments: cctv)
    func cctvVector(_ name: String) throws {
        let file = try AgeFile(Data(contentsOf: Self.fixtures.appendingPathComponent("age-cctv/\(name)")), vector: true)
        let identity = try VaultIdentity(contents: try SecureBytes(copying: try #require(file.fields["identity"])))
        let fileKey = try Self.unwrap(file, identity: identity)
        let expected = Hex.decode(try #require(file.fields["file key"]))
        switch file.fields["expect"] {
        case "success":
            #expect(fileKey?.testBytes == expected)
            #expect(try fileKey.map(file.macMatches) == true)
        default:
            // "no match" and the "header failure" cases about the stanza: no key comes out.
            #expect(fileKey == nil, "\(name): \(file.fields["comment"] ?? "")")
        }
    }

    @Test("a 32-byte key wraps and unwraps for X25519 and ssh-ed25519 recipients; another identity gets nothing")
    func roundTrip() throws {
        let age = try VaultIdentity(contents: try SecureBytes(copying: "AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0\n"))
        let ssh = try VaultIdentity(contents: try SecureBytes(copying: [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("ssh/id_ed25519")))))
        let key = try SecureBytes.random(count: 32)
        for (identity, other) in [(age, ssh), (ssh, age)] {
            let recipient = try identity.keys[0].recipient.stanzaRecipient
            let (share, body) = try AgeStanza.wrap(key, to: recipient, entropy: .system)
            #expect(share.count == 32 && body.count == 48)
            #expect(try AgeStanza.unwrap(share: share, body: body, scalar: identity.keys[0].scalar, recipient: recipient, keyLength: 32) == key)
            #expect(try AgeStanza.unwrap(share: share, body: body, scalar: other.keys[0].scalar, recipient: recipient, keyLength: 32) == nil)
            #expect(try AgeStanza.unwrap(share: share, body: body, scalar: identity.keys[0].scalar, recipient: recipient, keyLength: 16) == nil)
            var flipped = body
            flipped[0] ^= 1
            #expect(try AgeStanza.unwrap(share: share, body: flipped, scalar: identity.keys[0].scalar, recipient: recipient, keyLength: 32) == nil)
        }
    }

    @Test("files the real age tool encrypts to age-keygen and ssh-keygen keys: Coffer's stanza code unwraps their file key",
          .enabled(if: installedTool("age") != nil && installedTool("age-keygen") != nil && installedTool("ssh-keygen") != nil, "needs age and ssh-keygen (make test-deps)"))
    func realAge() throws {
        try withTemporaryDirectory { dir in
            let age = try #require(installedTool("age")), keygen = try #require(installedTool("age-keygen")), sshKeygen = try #require(installedTool("ssh-keygen"))
            let ageKey = dir.appendingPathComponent("age.txt"), sshKey = dir.appendingPathComponent("id_ed25519")
            #expect(try runProcess(keygen, ["-o", ageKey.path]).status == 0)
            #expect(try runProcess(sshKeygen, ["-q", "-t", "ed25519", "-N", "", "-C", "bob@test", "-f", sshKey.path]).status == 0)
            let recipient = try runProcess(keygen, ["-y", ageKey.path]).out.trimmingCharacters(in: .whitespacesAndNewlines)
            let plain = dir.appendingPathComponent("plain.txt")
            try Data("hello".utf8).write(to: plain)
            for (arguments, identityFile) in [(["-r", recipient], ageKey), (["-R", sshKey.path + ".pub"], sshKey)] {
                let sealed = dir.appendingPathComponent("sealed.age")
                try? FileManager.default.removeItem(at: sealed)
                let run = try runProcess(age, ["-e"] + arguments + ["-o", sealed.path, plain.path])
                #expect(run.status == 0, "\(run.err)")
                let file = try AgeFile(Data(contentsOf: sealed), vector: false)
                let identity = try VaultIdentity(contents: try SecureBytes(copying: [UInt8](Data(contentsOf: identityFile))))
                // The recipient Coffer reads from the public side names the same key.
                let pub = identityFile == ageKey ? recipient : try String(contentsOf: sshKey.appendingPathExtension("pub"), encoding: .utf8)
                #expect(try VaultRecipient(pub) == identity.recipients[0])
                let fileKey = try #require(try Self.unwrap(file, identity: identity))
                #expect(try file.macMatches(fileKey: fileKey), "\(arguments[0]): the unwrapped key is age's file key")
            }
        }
    }

    @Test("identity files and recipient strings, changed byte by byte: a typed error or a key that reads back, never a crash")
    func hostileParsing() throws {
        let random = SeededRandom("recipient parsing")
        let seeds: [(FuzzEntryPoints.Parser, [UInt8])] = [
            (.identity, Array("# created\nAGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0\n".utf8)),
            (.identity, [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("ssh/id_ed25519")))),
            (.recipient, [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("ssh/id_ed25519.pub")))),
            (.recipient, Array("age1mrmfnwhtlprn4jquex0ukmwcm7y2nxlphuzgsgv8ew2k9mewy3rs8u7su5".utf8)),
        ]
        for (parser, bytes) in seeds {
            let report = FuzzEntryPoints.inputs([UInt8(parser.rawValue)] + bytes)
            #expect(report.deepest == .opened && report.violations.isEmpty, "seed of \(parser) does not read: \(report.errors)")
        }
        var opened = 0
        for run in 0..<2000 {
            var (parser, bytes) = seeds[run % seeds.count]
            for _ in 0...Int(random.next() % 3) {
                guard !bytes.isEmpty else { break }
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.remove(at: at)
                default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
                }
            }
            let report = FuzzEntryPoints.inputs([UInt8(parser.rawValue)] + bytes)
            #expect(report.violations.isEmpty, "\(parser): \(report.violations)")
            #expect(report.deepest == .opened || !report.errors.isEmpty)
            if report.deepest == .opened { opened += 1 }
        }
        #expect(opened > 0 && opened < 2000)
    }
}
