import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import Foundation

/// `CofferBench work list|passwd VAULT --password P [--new-password Q] [KDF options]`: the
/// format's own work for an operation and nothing else, timed by `make bench` beside
/// `coffer` ("the work alone" in BENCHMARKS.md). What `coffer` takes above it is its own:
/// bookkeeping, ordering, printing.
///
/// - `list`: SPEC.md §10 for every record, as `coffer list` reads them: the header and
///   manifest read and parsed, the slot opened (the KDF), the manifest MAC, the records read
///   in 4 MiB windows, and every overview opened and checked (step 15: AEAD, padding, list,
///   lookup tag) on every core. Nothing is kept, ordered or printed.
/// - `passwd`: the same read and unlock, then what a password change must do (SPEC.md §11.2):
///   a new epoch key, a new password slot (the second KDF), every record opened, its
///   overview checked, and sealed again under the new keys on every core, the file encoded,
///   written to a temporary file, synced and renamed over the vault. No strength estimate,
///   no snapshot kept. The vault must be a copy: it is replaced.
///
/// It runs Coffer's own format code (the `package` API), so its figure moves with the
/// format's work; the process is linked as `coffer` is and keeps its freed memory as `coffer`
/// does (``ProcessMemory/keepFreedMemory()``).
enum FormatWork {
    static func run(_ options: Options) throws {
        guard options.positional.count == 2, let operation = options.positional.first, let path = options.positional.last,
              ["list", "passwd"].contains(operation) else {
            throw BenchError("usage: CofferBench work list|passwd VAULT --password P [--new-password Q] [--memory-kib M --iterations T --lanes L]")
        }
        // As `coffer` does (CLI.run): freed memory is reused rather than given back and faulted
        // in again, window after window.
        _ = ProcessMemory.keepFreedMemory()
        let vault = try BenchVault(path: path, password: try SecureBytes(copying: try options.string("password")))
        let parsed = vault.parsed, keys = vault.keys
        _ = try parsed.authenticate(keys: keys)
        let records = parsed.records
        let vaultID = parsed.header.vaultID

        switch operation {
        case "list":
            try vault.forEachLoadedWindow { window in
                try window.withUnsafeBufferPointer { (window) throws(FormatError) in
                    try ParallelWork.forEachRange(count: window.count) { (range) throws(FormatError) in
                        for index in range where !window[index].isTombstone {
                            _ = try window[index].openOverviewList(vaultID: vaultID, keys: keys)
                        }
                    }
                }
            }
        default:
            let newPassword = try SecureBytes(copying: try options.string("new-password", default: "new-master-password-2"))
            let stamp = Stamp(replica: 1, time: UInt64(Date().timeIntervalSince1970 * 1000) << 16)
            var rekeyed = try EpochRotation.rekeyed(header: parsed.header, keys: keys, at: stamp, entropy: .system)
            let slot = try KeySlotV2.make(for: .password(newPassword), kdf: try options.kdf(), vaultID: vaultID,
                                          epoch: rekeyed.keys, entropy: .system).slot
            rekeyed.header.slots = [slot]
            let nonces = try EntropySource.system.bytes(records.count * FormatV1.nonceLength)
            var sealed: [RecordV2] = []
            sealed.reserveCapacity(records.count)
            var first = 0
            try vault.forEachLoadedWindow { window in
                var batch = window
                let length = FormatV1.nonceLength
                try EpochRotation.reseal(&batch, vaultID: vaultID, from: keys, to: rekeyed.keys,
                                         nonces: Array(nonces[(first * length)..<((first + batch.count) * length)]),
                                         checkingOverviews: Array(repeating: true, count: batch.count))
                first += batch.count
                sealed += batch
            }
            let file = try VaultFileV2.encode(header: rekeyed.header, generation: parsed.generation + 1, records: sealed, keys: rekeyed.keys)
            _ = try vault.store.replace(with: file, keepBackup: false, slotsChanged: true)
        }
    }
}
