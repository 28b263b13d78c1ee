import CofferCrypto

/// A rotation of a format-2 file (SPEC.md §11.2): a new epoch key, a new stanza for every
/// new-style slot from its public part (the others removed: they cannot be rewrapped), the
/// old epoch added to the key history, and every record sealed again under the new key.
/// Format only: no file is read or written; the caller saves the result.
///
/// ```swift
/// let rotated = try EpochRotation.rotate(header: header, records: records, keys: keys, at: stamp, entropy: .system)
/// // rotated.removed: the slots a rotation cannot keep (legacy, unknown), to report
/// ```
package enum EpochRotation {
    package struct Result: Sendable {
        package let header: VaultHeaderV2
        package let records: [RecordV2]
        package let keys: EpochKeys
        /// Slots the rotation removed: legacy and unknown ones.
        package let removed: [KeySlotV2]
    }

    /// Rotates to a fresh epoch key at `stamp`. `threads` 1 keeps the entropy's draws in
    /// record order (the test vectors); the records are sealed on all cores otherwise.
    ///
    /// `records` are sealed again in place (a caller that gives up its array, `consume`,
    /// holds one array of them rather than three; `coffer passwd` at 100,000 entries peaked
    /// 16 MB lower).
    package static func rotate(header: VaultHeaderV2, records: consuming [RecordV2], keys old: EpochKeys, at stamp: Stamp,
                               entropy: EntropySource, threads: Int = ParallelWork.cores) throws(FormatError) -> Result {
        let earlier = try header.keyHistory?.open(with: old, vaultID: header.vaultID) ?? []
        let new = try EpochKeys(epochKey: try crypto { () throws(CofferError) in try entropy.secureBytes(FormatV1.keyLength) })
        var next = header
        var removed: [KeySlotV2] = []
        next.slots = []
        for slot in header.slots {
            if slot.isNewStyle {
                next.slots.append(try slot.restanza(vaultID: header.vaultID, epoch: new, entropy: entropy))
            } else {
                removed.append(slot)
            }
        }
        guard !next.slots.isEmpty else { throw .slotUnavailable("a rotation needs a key slot it can keep (a password, key-file or raw-key slot of format 2)") }
        if !removed.isEmpty {
            next.removedSlots = next.removedSlots + removed.map { RemovedKeySlot(identity: $0.identity, time: stamp.time) }
        }
        let history = try KeyHistory.seal(earlier + [(KeyHistory.Epoch(epochID: old.epochID, end: stamp), old)],
                                          vaultID: header.vaultID, current: new, entropy: entropy)
        next.setKeyHistory(history)
        next.epochID = new.epochID
        next.epochStart = stamp
        // Every nonce drawn first, in record order: the records are then sealed in parallel.
        let nonces = try crypto { () throws(CofferError) in try entropy.bytes(records.count * FormatV1.nonceLength) }
        // Each thread opens secrets into one guarded scratch buffer of its own (RecordV2.scratch)
        // and puts each record's successor where the record was.
        try records.withUnsafeMutableBufferPointer { (list) throws(FormatError) in
            let output = UncheckedOutput(list)
            try ParallelWork.forEachRange(count: list.count, threads: threads) { (range) throws(FormatError) in
                let scratch = try RecordV2.scratch(for: UnsafeBufferPointer(output.buffer)[range])
                for index in range {
                    output.buffer[index] = try output.buffer[index].resealed(vaultID: header.vaultID, from: old, to: new,
                                                                             nonce: Array(nonces[(index * 24)..<((index + 1) * 24)]),
                                                                             scratch: scratch)
                }
            }
        }
        return Result(header: next, records: records, keys: new, removed: removed)
    }
}

/// The records of a parallel loop whose threads each read and write their own indices only.
private struct UncheckedOutput: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<RecordV2>
    init(_ buffer: UnsafeMutableBufferPointer<RecordV2>) { self.buffer = buffer }
}
