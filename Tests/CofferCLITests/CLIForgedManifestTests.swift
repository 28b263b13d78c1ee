import CofferTestSupport
import Foundation
import Testing

extension CLIRefusedCopyTests {
    @Test("A sparse 1,000 MB copy whose authentic header is followed by a forged 610 MB manifest length: refused as tampered in bounded memory, the vault unchanged")
    func forgedManifestLength() throws {
        try withTemporaryDirectory { root in
            let device = Device("laptop", root: root)
            let folder = root.appendingPathComponent("Sync")
            try CLIReplicaTests.makeVault(in: folder, services: ["mail"], device: device)
            let vault = folder.appendingPathComponent("vault.coffer")
            let before = try bytes(vault)
            // SPEC.md §10: magic and version (10), header length (u32 LE), header, checksum and
            // MAC (32 each), then the manifest length, which no MAC before the manifest's covers.
            let headerLength = Int(before[10]) | Int(before[11]) << 8 | Int(before[12]) << 16 | Int(before[13]) << 24
            let lengthOffset = 14 + headerLength + 64
            // The largest manifest the format allows: 10,000,000 rows of 61 bytes, and 12.
            let forged: UInt32 = 12 + 10_000_000 * 61
            var start = Array(before.prefix(lengthOffset + 4))
            for i in 0..<4 { start[lengthOffset + i] = UInt8(truncatingIfNeeded: forged >> (8 * UInt32(i))) }
            let copy = folder.appendingPathComponent("vault.sync-conflict-20260301-101500-FORGED1.coffer")
            try Data(start).write(to: copy)
            let handle = try FileHandle(forWritingTo: copy)
            try handle.truncate(atOffset: 1_000_000_000)
            try handle.close()

            let result = try Self.measure(["merge", vault.path, copy.path], input: "pw\n", device: device, in: root)
            #expect(result.status == 65, "exit \(result.status): \(result.stderr)")
            #expect(result.stderr.contains("manifest"), "\(result.stderr)")
            // The manifest MAC is checked a window at a time: not the 610 MB the length claims.
            #expect(result.peakKiB < 100 * 1024, "peak RSS \(result.peakKiB) KiB")
            #expect(try bytes(vault) == before, "the vault changed")
            Reliability.figure("merge refuses a forged 610 MB manifest length",
                               "\(String(format: "%.3f", result.seconds)) s, peak RSS \(result.peakKiB / 1024) MB")
        }
    }
}
