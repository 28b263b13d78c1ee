import CofferTestSupport
import Foundation
import Testing

extension CLIRefusedCopyTests {
    @Test("A sparse 1,000 MB copy whose authentic header is followed by a forged 610 MB manifest length: refused as tampered in bounded memory, the vault unchanged")
    func forgedManifestLength() throws {
        try expectForgedCopyRefused(rekeyed: false, figure: "merge refuses a forged 610 MB manifest length")
    }

    /// Before: the windowed manifest check ran for a copy under the vault's own key only; one
    /// under the key before a rekey was read whole first (610 MB), then refused.
    @Test("The same forged manifest length in a copy sealed before the vault's key was rotated: refused in bounded memory too")
    func forgedManifestLengthEarlierKey() throws {
        try expectForgedCopyRefused(rekeyed: true, figure: "merge refuses a forged 610 MB manifest length under an earlier key")
    }

    /// A vault (password "pw"), rekeyed after the copy's source was taken when `rekeyed`, and
    /// beside it a sparse 1,000 MB conflict copy: the vault's start as it was, its manifest
    /// length forged to the largest the format allows. `coffer merge` refuses the copy (exit
    /// 65) at a peak RSS under 100 MB and leaves the vault as it was.
    func expectForgedCopyRefused(rekeyed: Bool, figure: String) throws {
        try withTemporaryDirectory { root in
            let device = Device("laptop", root: root)
            let folder = root.appendingPathComponent("Sync")
            try CLIReplicaTests.makeVault(in: folder, services: ["mail"], device: device)
            let vault = folder.appendingPathComponent("vault.coffer")
            let source = Array(try bytes(vault))
            if rekeyed { try device.ok(["rekey", "Sync/vault.coffer"], input: "pw\n", in: root) }
            try expectForgedCopyRefused(source, vault: vault, password: "pw", device: device, root: root, figure: figure)
        }
    }

    /// `source`'s start (a file of this vault) with its manifest length forged to the largest
    /// the format allows, in a sparse 1,000 MB conflict copy beside `vault`: `coffer merge`
    /// refuses it (exit 65) at a peak RSS under 100 MB and leaves the vault as it was.
    func expectForgedCopyRefused(_ source: [UInt8], vault: URL, password: String, device: Device, root: URL, figure: String) throws {
        let before = try bytes(vault)
        // SPEC.md §10: magic and version (10), header length (u32 LE), header, checksum and
        // MAC (32 each), then the manifest length, which no MAC before the manifest's covers.
        let headerLength = Int(source[10]) | Int(source[11]) << 8 | Int(source[12]) << 16 | Int(source[13]) << 24
        let lengthOffset = 14 + headerLength + 64
        // The largest manifest the format allows: 10,000,000 rows of 61 bytes, and 12.
        let forged: UInt32 = 12 + 10_000_000 * 61
        var start = Array(source.prefix(lengthOffset + 4))
        for i in 0..<4 { start[lengthOffset + i] = UInt8(truncatingIfNeeded: forged >> (8 * UInt32(i))) }
        let copy = vault.deletingLastPathComponent().appendingPathComponent("vault.sync-conflict-20260301-101500-FORGED1.coffer")
        try Data(start).write(to: copy)
        let handle = try FileHandle(forWritingTo: copy)
        try handle.truncate(atOffset: 1_000_000_000)
        try handle.close()

        let result = try Self.measure(["merge", vault.path, copy.path], input: "\(password)\n", device: device, in: root)
        #expect(result.status == 65, "exit \(result.status): \(result.stderr)")
        #expect(result.stderr.contains("manifest"), "\(result.stderr)")
        // The manifest MAC is checked a window at a time: not the 610 MB the length claims.
        #expect(result.peakKiB < 100 * 1024, "peak RSS \(result.peakKiB) KiB")
        #expect(try bytes(vault) == before, "the vault changed")
        Reliability.figure(figure, "\(String(format: "%.3f", result.seconds)) s, peak RSS \(result.peakKiB / 1024) MB")
    }
}
