import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// Issue 31: the credential lookup apps and `coffer git-credential` use
/// (``Vault/credentials(for:account:)``), and git's credential protocol (``GitCredential``).
@Suite("Vault: credentials by URL and username; git's credential protocol")
struct VaultCredentialLookupTests {
    @Test("Host (any case), scheme, port (default or given), account and path decide; a path prefers its own items, then the host's")
    func lookup() throws {
        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: testOptions)
            let alice = try vault.add(.internetPassword(server: "example.com", account: "alice", protocol: "https"))
            let bob = try vault.add(.internetPassword(server: "example.com", account: "bob", protocol: "https", path: "/team/repo.git"))
            let plain = try vault.add(.internetPassword(server: "example.com", account: "carol", protocol: "http", port: 8080))
            _ = try vault.add(.genericPassword(service: "example.com", account: "alice"))
            func ids(_ url: String, account: String? = nil) throws -> [ItemID] {
                try vault.credentials(for: ServerAddress(parsing: url), account: account).map(\.id)
            }
            #expect(try ids("https://EXAMPLE.com") == [alice.id, bob.id])          // no path: the host's first
            #expect(try ids("https://example.com:443", account: "alice") == [alice.id])
            #expect(try ids("https://example.com/team/repo.git") == [bob.id])      // that path's item
            #expect(try ids("https://example.com/other.git") == [alice.id])        // else the host-wide one
            #expect(try ids("http://example.com:8080") == [plain.id])
            #expect(try ids("http://example.com").isEmpty)                         // port 80, not 8080
            #expect(try ids("https://example.com:8443").isEmpty)
            #expect(try ids("https://example.org").isEmpty)
            #expect(try ids("https://example.com", account: "dave").isEmpty)
        }
    }

    @Test("A request parses as git writes it: url= splits, unknown keys are skipped, the last value wins, the password stays guarded")
    func parses() throws {
        let request = try GitCredential(parsing: secure("capability[]=authtype\nprotocol=ftp\nurl=https://al%40ice@Example.com:8443/team/repo.git\n"
                                                       + "wwwauth[]=Basic realm=x\npassword=p=w d\npassword_expiry_utc=1\n\nhost=ignored\n"))
        #expect(request.protocol == "https" && request.host == "Example.com:8443" && request.path == "team/repo.git")
        #expect(request.username == "al@ice")
        #expect(request.password == (try secure("p=w d")))
        let server = try #require(try request.server())
        #expect(server == ServerAddress(host: "example.com", scheme: "https", port: 8443, path: "/team/repo.git"))
        #expect(try GitCredential(parsing: secure("protocol=https\n")).server() == nil)
        let answer = try GitCredential(username: "alice", password: secure("s3cret")).encoded()
        #expect(answer == (try secure("username=alice\npassword=s3cret\n")))
    }

    @Test("A password inside url= is left out before the URL becomes text; the user, host and path still split as git writes them")
    func urlPassword() throws {
        let request = try GitCredential(parsing: secure("url=https://al%40ice:p%3Aw@Example.com:8443/team/re@po.git\n"))
        #expect(request.username == "al@ice" && request.host == "Example.com:8443" && request.path == "team/re@po.git")
        #expect(request.password == nil)
        let noUser = try GitCredential(parsing: secure("url=https://example.com/a:b@c\n"))
        #expect(noUser.username == nil && noUser.host == "example.com" && noUser.path == "a:b@c")
    }

    @Test("Malformed requests and unsayable answers are malformedRequest, never a crash")
    func refusals() throws {
        for text in ["no equals\n", "=x\n", "host=a\u{0}b\n", "url=example.com\n", String(repeating: "a=b\n", count: 20_000)] {
            #expect(throws: CofferError.malformedRequest, "\(text.prefix(20))") { _ = try GitCredential(parsing: secure(text)) }
        }
        #expect(throws: CofferError.malformedRequest) { _ = try GitCredential(parsing: SecureBytes(copying: [0x68, 0x6F, 0x73, 0x74, 0x3D, 0xFF])) }
        for host in ["example.com:", "example.com:99999", "example.com:12a", "example.com:0443000"] {
            #expect(throws: CofferError.malformedRequest, "\(host)") { _ = try GitCredential(host: host).server() }
        }
        #expect(throws: CofferError.malformedRequest) { _ = try GitCredential(password: secure("two\nlines")).encoded() }
        #expect(throws: CofferError.malformedRequest) { _ = try GitCredential(username: "a\nb").encoded() }
        // Seeded random lines: a typed error or a request, never a trap.
        var random = SeededRandom("git credential requests")
        let alphabet = Array("=\nab:/@%0\u{0}".utf8) + [0xC3, 0xFF]
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0..<40, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            do {
                _ = try GitCredential(parsing: SecureBytes(copying: bytes)).server()
            } catch {
                #expect(error.kind == .malformedRequest)
            }
        }
    }
}
