import Foundation
import Testing
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
import CofferTestSupport

/// Saves stream the file in pieces (``EncodedVaultFile``) and opening runs the KDF before the
/// whole file is read (``VaultFileReader/readAndUnlock(_:with:kdfLimit:)``): issue 18's memory levers.
@Suite("Format: streamed saves and opening from the file's start")
struct FormatStreamedFileTests {
    /// An attachment larger than a piece (1 MiB) among small items: the pieces a save writes
    /// are the file byte for byte, and the file reads back whole.
    @Test("A save streamed in pieces, with a record larger than a piece, is the encoded file")
    func piecesAreTheFile() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            var large = [UInt8](repeating: 0, count: ChunkStaging.size + 12_345)
            for index in large.indices { large[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
            for index in 0..<40 {
                _ = try vault.add(.genericPassword(service: "s\(index)", account: "me"),
                                  secrets: ItemSecrets(password: secure("p\(index)")))
            }
            let big = try vault.add(.genericPassword(service: "big", account: "me"), secrets: ItemSecrets(
                password: secure("pw-big"),
                attachments: [Attachment(name: "blob.bin", data: SecureBytes(copying: large))]))
            _ = try vault.add(.genericPassword(service: "after", account: "me"), secrets: ItemSecrets(password: secure("p-after")))

            // The file on disk, written by the streamed save, verifies in full and holds every record.
            let onDisk = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            let codec = try VaultFileV2.parse(onDisk)
            let keys = try VaultFileV2.unlock(codec.header, with: .password(try secure("pw"))).keys
            _ = try codec.authenticate(keys: keys)
            for record in codec.records { try record.verifySecret(vaultID: codec.header.vaultID, keys: keys) }
            #expect(codec.records.count == 42)
            #expect(codec.records.contains { $0.body.count > ChunkStaging.size })

            // The pieces, gathered, are the file; no piece is empty.
            let encoded = try VaultFileV2.encode(header: codec.header, generation: codec.generation, records: codec.records, keys: keys)
            var gathered: [UInt8] = []
            var pieces = 0
            encoded.withChunks { (chunk: UnsafeRawBufferPointer) in
                #expect(!chunk.isEmpty)
                gathered.append(contentsOf: chunk)
                pieces += 1
            }
            #expect(gathered == onDisk)
            #expect(encoded.count == onDisk.count)
            // Gathered on another core or not: the same pieces.
            for pipelined in [false, true] {
                var pieces: [[UInt8]] = []
                encoded.withChunks(pipelined: pipelined) { (chunk: UnsafeRawBufferPointer) in pieces.append(Array(chunk)) }
                let same = pieces.reduce([], +) == onDisk
                #expect(same, "pipelined: \(pipelined)")
                #expect(pieces.count >= 3)
            }
            #expect(pieces >= 3)   // the head, the small records, the large one

            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let attachment = try #require(try reopened.secrets(for: big.id).attachments.first)
            #expect(attachment.data.withUnsafeBytes { Array($0) } == large)
        }
    }

    /// The writes of a large save: each megabyte gathered on another core while the one
    /// before is written (``ChunkStaging/pipelined(count:size:piece:_:)``). They must be the
    /// writes the staging on one core makes, call for call and byte for byte, for any sizes
    /// of pieces (empty ones, ones that fill the buffer exactly, ones larger than it).
    @Test("Pieces gathered on another core are written in the calls and bytes of the staging on one core", arguments: 0..<24)
    func pipelinedWritesAreStagedWrites(_ seed: Int) throws {
        var random = SeededRandom("pipelined-\(seed)")
        let size = ChunkStaging.size
        let count = Int.random(in: 0..<(seed < 4 ? 3 : 200), using: &random)
        // Each piece filled with its own byte: a piece out of place changes the bytes.
        let pieces: [[UInt8]] = (0..<count).map { index in
            let length: Int
            switch Int.random(in: 0..<40, using: &random) {
            case 0..<4: length = 0
            case 4, 5: length = [size, size + 1, size - 1, size / 2 + 1].randomElement(using: &random)!
            case 6: length = Int.random(in: 1...(2 * size), using: &random)
            default: length = Int.random(in: 1...40_000, using: &random)
            }
            return [UInt8](repeating: UInt8(truncatingIfNeeded: index &* 7 &+ 1), count: length)
        }
        var staged: [[UInt8]] = []
        let staging = ChunkStaging()
        for piece in pieces { piece.withUnsafeBytes { staging.append($0) { staged.append(Array($0)) } } }
        staging.flush { staged.append(Array($0)) }
        var pipelined: [[UInt8]] = []
        ChunkStaging.pipelined(count: pieces.count, size: { pieces[$0].count }, piece: { index, body in pieces[index].withUnsafeBytes(body) }) {
            pipelined.append(Array($0))
        }
        // (Compared apart: a failure names the write sizes, not megabytes of bytes.)
        #expect(pipelined.map(\.count) == staged.map(\.count))
        let sameBytes = pipelined == staged
        #expect(sameBytes, "the writes gathered on another core hold other bytes")
        #expect(ChunkStaging.writes(count: pieces.count, size: { pieces[$0].count }).count == staged.count)

        // A write that fails stops the others: nothing more is handed on, and the error is the write's.
        struct Refused: Error, Equatable {}
        guard !staged.isEmpty else { return }
        var handedOn = 0
        let failing = Int.random(in: 0..<staged.count, using: &random)
        #expect(throws: Refused()) {
            try ChunkStaging.pipelined(count: pieces.count, size: { pieces[$0].count }, piece: { index, body in pieces[index].withUnsafeBytes(body) }) {
                (_: UnsafeRawBufferPointer) throws(Refused) in
                if handedOn == failing { throw Refused() }
                handedOn += 1
            }
        }
        #expect(handedOn == failing)
    }

    /// A large manifest's MAC is computed on another core while its rows are parsed, under the
    /// keys the slot gave (``VaultFileV2/parse(head:fileSize:macKeys:)``). It must decide
    /// exactly what computing it in its place decides: an authentic manifest passes, one bit
    /// changed in a row is a manifest failure, and other keys get their own MAC.
    @Test("A manifest MAC computed while the rows are parsed accepts and refuses what the MAC in its place does")
    func manifestMACBesideTheRows() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            try vault.transaction { tx in
                for index in 0..<6_000 { _ = try tx.add(.genericPassword(service: "s\(index)", account: "me")) }
            }
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            let parsed = try VaultFileV2.parse(bytes)
            let header = parsed.header
            let keys = try VaultFileV2.unlock(header, with: .password(try secure("pw"))).keys
            let start = try VaultFileV2.Start(bytes)
            let head = Array(bytes[0..<start.manifestMACEnd])
            #expect(start.manifestMACEnd - start.headerEnd > VaultFileV2.concurrentMACLength)

            let file = try VaultFileV2.parse(head: head, fileSize: bytes.count, macKeys: keys)
            #expect(file.manifestMACComputed != nil, "computed beside the rows")
            try file.authenticate(keys: keys)
            // Other keys (the same key in another object, then another key) get their own MACs,
            // checked in their order: another key fails at the header MAC, before the manifest.
            try file.authenticate(keys: try EpochKeys(epochKey: keys.epochKey))
            let forged = try EpochKeys(epochKey: try SecureBytes(copying: [UInt8](repeating: 7, count: 32)))
            #expect(throws: FormatError.tampered(.header)) { try file.authenticate(keys: forged) }

            // One bit of a row's nonce (row 4,000): the structure holds, the MAC does not.
            let nonce = parsed.records[4_000].nonce.bytes
            let at = try #require((start.headerEnd..<(head.count - 24)).first { Array(head[$0..<($0 + 24)]) == nonce })
            var changed = head
            changed[at + 5] ^= 0x08
            let tampered = try VaultFileV2.parse(head: changed, fileSize: bytes.count, macKeys: keys)
            #expect(tampered.manifestMACComputed != nil)
            #expect(throws: FormatError.tampered(.manifest)) { try tampered.authenticate(keys: keys) }
            let plain = try VaultFileV2.parse(head: changed, fileSize: bytes.count)
            #expect(plain.manifestMACComputed == nil)
            #expect(throws: FormatError.tampered(.manifest)) { try plain.authenticate(keys: keys) }

            // Through the vault's open: the same refusal, the same file otherwise.
            var whole = bytes
            whole.replaceSubrange(0..<changed.count, with: changed)
            try Data(whole).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: CofferError.self) { try Vault.open(at: path, password: secure("pw"), options: testOptions) }
            #expect(error?.kind == .tampered)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(try Vault.open(at: path, password: secure("pw"), options: testOptions).items().count == 6_000)
        }
    }

    /// The vault file is replaced by another vault (renamed over it, as every save does)
    /// while it is being opened: every read of an open goes through the one descriptor it
    /// opened (``HeldFile``), so the vault opens the file it started reading, whole, with
    /// its own slots; never keys from one file and records from another.
    @Test("A file replaced while it is opened opens as the file first opened")
    func replacedBetweenReads() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let other = dir.appendingPathComponent("other.coffer").path
            let first = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            _ = try first.add(.genericPassword(service: "first", account: "me"), secrets: ItemSecrets(password: secure("1")))
            for (password, service) in [("pw", "second"), ("another", "third")] {
                try? FileManager.default.removeItem(atPath: other)
                let second = try Vault.create(at: other, password: secure(password), options: testOptions)
                _ = try second.add(.genericPassword(service: service, account: "me"), secrets: ItemSecrets(password: secure("2")))
                let original = try Data(contentsOf: URL(fileURLWithPath: path))
                let replacement = try Data(contentsOf: URL(fileURLWithPath: other))

                // The first positioned read (the start, for the KDF) comes after the other vault
                // was renamed over the path.
                let reads = StoreLocked(0)
                var io = FileIO.live
                io.readAt = { fd, buffer, offset in
                    reads.value += 1   // one reader at a time here
                    if reads.value == 1 {
                        let staged = dir.appendingPathComponent("staged").path
                        try? replacement.write(to: URL(fileURLWithPath: staged))
                        _ = rename(staged, path)
                    }
                    return FileIO.live.readAt(fd, buffer, offset)
                }
                let store = VaultFileStore(path: path, io: io)
                let opened = try Vault.open(at: path, credential: .password(try secure("pw")), options: testOptions,
                                            entropy: .system, store: store)
                #expect(try opened.items().map(\.attributes.service) == ["first"])
                #expect(reads.value >= 1)
                try original.write(to: URL(fileURLWithPath: path))
            }
        }
    }
}
