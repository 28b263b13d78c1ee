import Foundation
import Testing
import CofferVault
import CofferTestSupport

@Suite("Vault: server addresses")
struct VaultServerAddressTests {
    @Test("ItemQuery(server:) ignores the case of the host and the protocol")
    func queryIgnoresCase() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            try vault.add(.internetPassword(server: "github.com", account: "octocat", protocol: "https"), secrets: ItemSecrets())
            try vault.add(.genericPassword(service: "GitHub.com", account: "octocat"), secrets: ItemSecrets())
            #expect(try vault.items(matching: ItemQuery(server: "GITHUB.com")).count == 1)
            #expect(try vault.items(matching: ItemQuery(server: "GitHub.COM", protocol: "HTTPS")).count == 1)
            #expect(try vault.items(matching: ItemQuery(server: "gitlab.com")).isEmpty)
            // Services are names, not hosts: they still compare exactly.
            #expect(try vault.items(matching: ItemQuery(service: "github.com")).isEmpty)
            // Closed and reopened: the listing path that reads overview bytes agrees.
            vault.lock()
            let reopened = try Vault.open(at: path, password: secure("pw"))
            #expect(try reopened.items(matching: ItemQuery(server: "GITHUB.com")).count == 1)
        }
    }

    @Test("one parser: scheme and host lowercased, path kept; bare text as the caller says")
    func parsing() throws {
        let url = try ServerAddress(parsing: "HTTPS://GitHub.com:8443/Login")
        #expect(url == ServerAddress(host: "github.com", scheme: "https", port: 8443, path: "/Login"))
        #expect(try ServerAddress(parsing: "Example.COM/app") == ServerAddress(host: "example.com", path: "/app"))
        #expect(try ServerAddress(parsing: "My-NAS", bareText: .host) == ServerAddress(host: "my-nas"))
        #expect(throws: ServerAddress.ParseError.noHost) { try ServerAddress(parsing: "My Bank") }
        #expect(throws: ServerAddress.ParseError.noHost) { try ServerAddress(parsing: "a/b", bareText: .host) }
        #expect(throws: ServerAddress.ParseError.portOutOfRange) { try ServerAddress(parsing: "https://x.org:70000") }
    }
}
