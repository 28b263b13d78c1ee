import CofferCrypto

/// The earlier epochs a format-2 file can still read (SPEC.md §4.9): header extension
/// 0x8012, critical. Its public part lists each earlier epoch's id and the stamp of the
/// rotation that ended it, newest first; their keys are sealed together under the current
/// epoch's key-history subkey, bound to the vault, the current epoch and that list.
///
/// A device holding the current key can so open, and merge, a copy made under an earlier
/// key (SPEC.md §17.8); the list is bounded, and a copy from an epoch that dropped out can
/// no longer be merged.
///
/// ```swift
/// let history = try KeyHistory.seal([(epoch, oldKeys)], vaultID: id, current: newKeys, entropy: entropy)
/// let earlier = try history.open(with: newKeys, vaultID: id)   // [(epoch, EpochKeys)]
/// ```
package struct KeyHistory: Sendable, Equatable {
    package static let extensionType: UInt16 = 0x8012
    static let entryLength = FormatV2.epochIDLength + FormatV2.stampLength

    /// One earlier epoch: its id and the stamp of the rotation (or merge) that ended it.
    package struct Epoch: Sendable, Hashable {
        package let epochID: [UInt8]
        package let end: Stamp

        package init(epochID: [UInt8], end: Stamp) {
            self.epochID = epochID
            self.end = end
        }

        /// The order of the list: newest end first (by time, then replica), then epoch id.
        static func precedes(_ a: Epoch, _ b: Epoch) -> Bool {
            if a.end != b.end { return b.end < a.end }
            return a.epochID.lexicographicallyPrecedes(b.epochID)
        }
    }

    /// Newest first.
    package let epochs: [Epoch]
    /// The extension's value as on disk.
    package let value: [UInt8]

    /// The count, the list and the nonce: everything before the sealed keys.
    private var publicLength: Int { 1 + epochs.count * Self.entryLength }

    /// Parses and checks the public part (SPEC.md §10 step 6): 1 to 64 epochs, the exact
    /// length, distinct ids none of which is the current one, stamps non-zero, in order.
    package init(parsing value: [UInt8], vaultID: [UInt8], epochID current: [UInt8]) throws(FormatError) {
        let parsed: [Epoch] = try value.withBytes { (raw) throws(FormatError) -> [Epoch] in
            var reader = ByteReader(raw)
            let n = Int(try reader.u8("key history count"))
            guard n >= 1, n <= FormatV2.maxKeyHistory else { throw .malformed("key history: \(n) epochs, expected 1 to \(FormatV2.maxKeyHistory)") }
            guard raw.count == Self.length(n) else { throw .malformed("key history: \(raw.count) bytes for \(n) epochs") }
            var out: [Epoch] = []
            var seen = Set<[UInt8]>()
            for _ in 0..<n {
                let id = try reader.bytes(FormatV2.epochIDLength, "key history")
                let replica = try reader.u64("key history"), time = try reader.u64("key history")
                let epoch = Epoch(epochID: id, end: Stamp(replica: replica, time: time))
                guard replica != 0, time >= 1 else { throw .malformed("key history: an end stamp of zero") }
                guard id != current, seen.insert(id).inserted else { throw .malformed("key history: an epoch listed twice, or the current one") }
                if let last = out.last, !Epoch.precedes(last, epoch) { throw .malformed("key history: epochs not in order") }
                out.append(epoch)
            }
            return out
        }
        epochs = parsed
        self.value = value
    }

    /// count, n × (id, end stamp), nonce, n × 32 bytes of keys sealed (+ 16-byte tag).
    static func length(_ n: Int) -> Int { 1 + n * entryLength + FormatV1.nonceLength + n * FormatV1.keyLength + FormatV1.tagLength }

    /// `"coffer.v2.key-history" || 0x00 || vault id || current epoch id || count || list`.
    private static func associatedData(vaultID: [UInt8], current: [UInt8], publicList: ArraySlice<UInt8>) -> [UInt8] {
        FormatV2.keyHistoryADLabel + vaultID + current + publicList
    }

    /// The earlier epochs and their keys: the AEAD opens and each key has its listed epoch
    /// id, else ``FormatError/tampered(_:)`` of the header (SPEC.md §10 step 11).
    package func open(with keys: EpochKeys, vaultID: [UInt8]) throws(FormatError) -> [(epoch: Epoch, keys: EpochKeys)] {
        let nonceStart = publicLength
        let sealedStart = nonceStart + FormatV1.nonceLength
        let plain: SecureBytes
        do throws(CofferError) {
            plain = try XChaCha20Poly1305.open(value[sealedStart...], key: keys.keyHistoryKey, nonce: Array(value[nonceStart..<sealedStart]),
                                               associatedData: Self.associatedData(vaultID: vaultID, current: keys.epochID,
                                                                                   publicList: value[0..<nonceStart]))
        } catch .authenticationFailed {
            throw .tampered(.header)
        } catch {
            throw .crypto(error)
        }
        guard plain.count == epochs.count * FormatV1.keyLength else { throw .tampered(.header) }
        var out: [(epoch: Epoch, keys: EpochKeys)] = []
        for (i, epoch) in epochs.enumerated() {
            let key = try crypto { () throws(CofferError) in try plain.slice((i * 32)..<((i + 1) * 32)) }
            let earlier = try EpochKeys(epochKey: key)
            guard ConstantTime.equals(earlier.epochID, epoch.epochID) else { throw .tampered(.header) }
            out.append((epoch, earlier))
        }
        return out
    }

    /// A key history of `earlier` (any order; the newest 64 kept, SPEC.md §4.9) sealed
    /// under `current`; nil when there is nothing to keep.
    package static func seal(_ earlier: [(epoch: Epoch, keys: EpochKeys)], vaultID: [UInt8], current: EpochKeys,
                             entropy: EntropySource) throws(FormatError) -> KeyHistory? {
        var unique: [[UInt8]: (epoch: Epoch, keys: EpochKeys)] = [:]
        for entry in earlier where entry.keys.epochID != current.epochID {
            guard entry.keys.epochID == entry.epoch.epochID else { throw .invalidKey("a key history entry with another epoch's key") }
            if let known = unique[entry.epoch.epochID], !Epoch.precedes(entry.epoch, known.epoch) { continue }
            unique[entry.epoch.epochID] = entry
        }
        let kept = unique.values.sorted { Epoch.precedes($0.epoch, $1.epoch) }.prefix(FormatV2.maxKeyHistory)
        guard !kept.isEmpty else { return nil }
        var list = ByteWriter(capacity: 1 + kept.count * entryLength)
        list.u8(UInt8(kept.count))
        for entry in kept {
            list.bytes(entry.epoch.epochID)
            list.u64(entry.epoch.end.replica)
            list.u64(entry.epoch.end.time)
        }
        let keys = try crypto { () throws(CofferError) in
            try SecureBytes(count: kept.count * FormatV1.keyLength) { (out: UnsafeMutableRawBufferPointer) in
                for (i, entry) in kept.enumerated() {
                    entry.keys.epochKey.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[(i * 32)..<((i + 1) * 32)]).copyMemory(from: $0) }
                }
            }
        }
        let nonce = try crypto { () throws(CofferError) in try entropy.bytes(FormatV1.nonceLength) }
        let sealed = try crypto { () throws(CofferError) in
            try XChaCha20Poly1305.seal(keys, key: current.keyHistoryKey, nonce: nonce,
                                       associatedData: associatedData(vaultID: vaultID, current: current.epochID, publicList: list.bytes[...]))
        }
        return try KeyHistory(parsing: list.bytes + nonce + sealed, vaultID: vaultID, epochID: current.epochID)
    }
}
