import Foundation
import Testing
import CofferCrypto
import CofferTestSupport

/// Memory hygiene (RELIABILITY.md). In a separate process (`CofferTestWriter memscan`), so
/// the test runner's own memory does not interfere: create a vault, unlock it, read a
/// secret, lock it, drop every reference, then search the process's writable memory
/// (/proc/self/maps, /proc/self/mem) for the master password and the secret.
@Suite("Crypto: secrets left in process memory", .serialized)
struct CryptoSecretsInMemoryTests {
    struct Scan {
        var password = -1, secret = -1, regions = -1
        /// Every "NAME COUNT" line.
        var counts: [String: Int] = [:]
        var hits: [String] = []
    }

    static func scan(_ mode: String) throws -> Scan {
        try withTemporaryDirectory { dir in
            let result = try runProduct("CofferTestWriter", ["memscan", dir.path, mode], stdin: nil)
            #expect(result.status == 0 && !result.killed, "memscan \(mode): \(result.err)")
            var scan = Scan()
            for line in result.out.split(separator: "\n") {
                let parts = line.split(separator: " ")
                guard parts.count == 2, let value = Int(parts[1]) else { continue }
                scan.counts[String(parts[0])] = value
                switch parts[0] {
                case "password": scan.password = value
                case "secret": scan.secret = value
                case "regions": scan.regions = value
                default: break
                }
            }
            scan.hits = result.err.split(separator: "\n").filter { $0.hasPrefix("hit ") }.map(String.init)
            return scan
        }
    }

    @Test("The scanner finds both while they are referenced (in guarded memory)")
    func control() throws {
        let scan = try Self.scan("control")
        #expect(scan.regions > 10)
        #expect(scan.password >= 1, "\(scan.hits)")
        #expect(scan.secret >= 1, "\(scan.hits)")
        Reliability.figure("memory control", "while referenced: password found \(scan.password)x, secret \(scan.secret)x "
                           + "(\(scan.regions) writable regions scanned)")
    }

    @Test("Handed in and read as SecureBytes: after lock, neither the password nor the secret is anywhere in memory")
    func secureBytesLeaveNothing() throws {
        let runs = Reliability.setting("COFFER_RELIABILITY_MEMSCAN_RUNS", 3)
        for run in 0..<runs {
            let scan = try Self.scan("secure")
            #expect(scan.regions > 10, "run \(run)")
            #expect(scan.password == 0, "run \(run): \(scan.hits)")
            #expect(scan.secret == 0, "run \(run): \(scan.hits)")
        }
        Reliability.figure("memory SecureBytes", "\(runs) runs: 0 copies of the password, 0 of the secret after lock")
    }

    @Test("Also after changing the secret and the master password and opening with a key file: no copy of any of them")
    func editsLeaveNothing() throws {
        let scan = try Self.scan("edit")
        let names = ["password", "secret", "new-secret", "new-password", "key-file"]
        for name in names { #expect(scan.counts[name] == 0, "\(name): \(scan.hits)") }
        Reliability.figure("memory edits", names.map { "\($0) \(scan.counts[$0].map(String.init) ?? "?")" }.joined(separator: ", ")
                           + " copies after update, changePassword, addKeySlot(.keyFile), open with the key file and lock")
    }

    @Test("String conveniences: what SecureBytes(copying: String) and unsafeStringCopy() leave behind (reported, not required)")
    func stringConveniences() throws {
        let runs = Reliability.setting("COFFER_RELIABILITY_MEMSCAN_RUNS", 3)
        var passwords: [Int] = [], secrets: [Int] = [], places: Set<String> = []
        for _ in 0..<runs {
            let scan = try Self.scan("string")
            passwords.append(scan.password)
            secrets.append(scan.secret)
            for hit in scan.hits { places.insert(hit.hasSuffix("[heap]") ? "[heap]" : "anonymous mapping") }
        }
        Reliability.figure("memory String", "\(runs) runs: password copies \(passwords), secret copies \(secrets) after lock, in \(places.sorted())")
    }
}
