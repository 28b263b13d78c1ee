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
            #expect(pieces >= 3)   // the head, the small records, the large one

            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let attachment = try #require(try reopened.secrets(for: big.id).attachments.first)
            #expect(attachment.data.withUnsafeBytes { Array($0) } == large)
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
