import Foundation
import Testing
@testable import CofferFormat
import CofferStore
import CofferVault
import CofferTestSupport

/// The allocation-free forms used when a large vault is opened must compute exactly what
/// the plain forms (checked against SPEC.md's vectors) compute.
@Suite("Format: hot paths agree with the plain forms")
struct FormatHotPathEquivalenceTests {
    @Test("Entry associated data written in place equals the array form (SPEC.md §6)")
    func associatedDataInPlace() throws {
        for round in 0..<200 {
            let vaultID = try SecureRandom.bytes(FormatV1.vaultIDLength)
            let id = ItemID(validated: try SecureRandom.bytes(FormatV1.entryIDLength))
            let revision = round < 3 ? [1, UInt64.max, 0x0102_0304_0506_0708][round] : UInt64.random(in: 1...UInt64.max)
            for part in [EntryRecord.Part.overview, .secret] {
                let expected = EntryRecord.associatedData(vaultID: vaultID, id: id, revision: revision, part: part)
                var written = [UInt8](repeating: 0xAA, count: EntryRecord.associatedDataLength)
                written.withUnsafeMutableBytes {
                    EntryRecord.writeAssociatedData(into: $0, vaultID: vaultID, id: id, revision: revision, part: part)
                }
                #expect(written == expected)
            }
        }
    }

    @Test("Inline digests: same bytes as BLAKE2b-256, equal exactly when the bytes are")
    func inlineDigests() throws {
        for length in [0, 1, 63, 64, 65, 128, 1000, 4096] {
            let data = try SecureRandom.bytes(length)
            let inline = try data.withBytes { (raw) throws(CofferError) in try BLAKE2b.digest256(buffer: raw) }
            let plain = try BLAKE2b.hash(data, outputLength: 32)
            #expect(inline.bytes == plain)
            #expect(plain.withUnsafeBytes { Digest256($0) } == inline)
            for position in [0, 7, 8, 15, 16, 31] {
                var changed = plain
                changed[position] ^= 0x80
                #expect(changed.withUnsafeBytes { Digest256($0) } != inline)
            }
        }
    }

    @Test("A prefix read returns the first bytes and the whole size")
    func prefixRead() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("f").path
            let data = try SecureRandom.bytes(200_000)
            try Data(data).write(to: URL(fileURLWithPath: path))
            let store = VaultFileStore(path: path)
            for limit in [0, 1, 65_536, 199_999, 200_000, 300_000] {
                let read = try store.readPrefix(limit)
                #expect(read.bytes == Array(data.prefix(limit)))
                #expect(read.identity.size == Int64(data.count))
            }
            #expect(try store.read().bytes == data)
        }
    }

    @Test("Secret files: a FIFO is refused at once, never waited on; empty and oversized key files are refused")
    func secretFileKinds() throws {
        try withTemporaryDirectory { dir in
            let fifo = dir.appendingPathComponent("pipe").path
            #expect(mkfifo(fifo, 0o600) == 0)
            // Without O_NONBLOCK this open would block until a writer came.
            #expect(throws: CofferError.notARegularFile) { try KeyFile(contentsOf: fifo) }
            #expect(throws: StoreError.notARegularFile("\(fifo) is not a regular file", path: fifo)) {
                try SecretFile.contents(of: fifo, limit: 1 << 20, kind: "import file", name: fifo)
            }
            let empty = dir.appendingPathComponent("empty.key").path
            #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
            #expect(throws: CofferError.invalidKey) { try KeyFile(contentsOf: empty) }
            let generated = dir.appendingPathComponent("new.key").path
            _ = try KeyFile.generate(at: generated)
            #expect(try Data(contentsOf: URL(fileURLWithPath: generated)).count == 64)
            #expect(throws: CofferError.fileExists(generated)) { try KeyFile.generate(at: generated) }
        }
    }

    /// ``CompactOverview/working(from:tombstone:)`` skips re-encoding a clock of one version
    /// vector and nothing else (its encoding is what was read): on every such overview of
    /// items written through the vault (edited, tagged, of every kind, one and several
    /// writers), the full check passes too.
    @Test("Overviews whose clock is a version vector alone pass the full canonical-clock check")
    func versionsOnlyClocksAreCanonical() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            try vault.transaction { tx in
                for index in 0..<40 {
                    var attributes: ItemAttributes = index % 3 == 0 ? .secureNote(title: "n\(index)")
                        : index % 3 == 1 ? .internetPassword(server: "h\(index).example", account: "me", protocol: "https", port: 8443, path: "/x")
                        : .genericPassword(service: "s\(index)", account: "a\(index)")
                    if index % 4 == 0 { attributes.tags = ["t", "u/v"] }
                    if index % 5 == 0 { attributes.label = "label \(index)" }
                    _ = try tx.add(attributes, secrets: ItemSecrets(password: try secure("p\(index)")))
                }
            }
            for item in try vault.items().prefix(10) { try vault.update(item.id, attributes: nil, secrets: ItemSecrets(password: try secure("new"))) }
            let codec = try VaultFileV2.parse(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
            let keys = try VaultFileV2.unlock(codec.header, with: .password(try secure("pw"))).keys
            var fastPath = 0
            for record in codec.records where !record.isTombstone {
                let list = try record.openOverviewList(vaultID: codec.header.vaultID, keys: keys)
                try CompactOverview.checkCanonicalClock(list)
                if !ItemClockCodec.hasSiblings(list) { fastPath += 1 }
            }
            #expect(fastPath >= 40)
        }
    }
}
