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
    /// 16 MB lower). ``rekeyed(header:keys:at:entropy:)`` then ``reseal(_:vaultID:from:to:nonces:checkingOverviews:threads:)``
    /// is the same rotation in two steps, for a caller that reads its records a window at a time.
    package static func rotate(header: VaultHeaderV2, records: consuming [RecordV2], keys old: EpochKeys, at stamp: Stamp,
                               entropy: EntropySource, threads: Int = ParallelWork.cores) throws(FormatError) -> Result {
        let rekeyed = try rekeyed(header: header, keys: old, at: stamp, entropy: entropy)
        // Every nonce drawn first, in record order: the records are then sealed in parallel.
        let nonces = try crypto { () throws(CofferError) in try entropy.bytes(records.count * FormatV1.nonceLength) }
        try reseal(&records, vaultID: header.vaultID, from: old, to: rekeyed.keys, nonces: nonces, threads: threads)
        return Result(header: rekeyed.header, records: records, keys: rekeyed.keys, removed: rekeyed.removed)
    }

    /// The header part of a rotation (no record is sealed): the new epoch key, a new stanza
    /// for every new-style slot (the others removed), the old epoch in the key history.
    /// The entropy is drawn as ``rotate(header:records:keys:at:entropy:threads:)`` draws it
    /// before the records' nonces.
    package static func rekeyed(header: VaultHeaderV2, keys old: EpochKeys, at stamp: Stamp,
                                entropy: EntropySource) throws(FormatError) -> (header: VaultHeaderV2, keys: EpochKeys, removed: [KeySlotV2]) {
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
        return (next, new, removed)
    }

    /// Seals `records` again under `new`, in place, on `threads` threads: record `i` under
    /// the `i`-th 24 bytes of `nonces`. With `checkingOverviews`, record `i`'s overview is
    /// checked where `checkingOverviews[i]` is true (``RecordV2/resealed(vaultID:from:to:nonce:scratch:checkingOverview:)``).
    package static func reseal(_ records: inout [RecordV2], vaultID: [UInt8], from old: EpochKeys, to new: EpochKeys,
                               nonces: [UInt8], checkingOverviews: [Bool]? = nil, threads: Int = ParallelWork.cores) throws(FormatError) {
        try records.withUnsafeMutableBufferPointer { (list) throws(FormatError) in
            try reseal(list, at: Array(list.indices), loading: nil, vaultID: vaultID, from: old, to: new, nonces: nonces,
                       checkingOverviews: checkingOverviews, threads: threads)
        }
    }

    /// ``reseal(_:vaultID:from:to:nonces:checkingOverviews:threads:)`` of the records at
    /// `positions` (each once) of `records`, in place: record `i` under the `i`-th 24 bytes of
    /// `nonces`, its overview checked where `checkingOverviews[i]` is true, and first loaded
    /// from `bytes[p]` (``RecordV2/loaded(from:)``) when the `p`-th position has bytes.
    ///
    /// A rotation reads its records a window at a time: loading each record, picking its
    /// nonce and putting its successor back in the caller's loop took a 100,000-entry password
    /// change 20 ms on one core while the other waited; here each core does its own.
    package static func reseal(_ records: UnsafeMutableBufferPointer<RecordV2>, at positions: [Int], loading bytes: [ArraySlice<UInt8>?]?,
                               vaultID: [UInt8], from old: EpochKeys, to new: EpochKeys, nonces: [UInt8],
                               checkingOverviews: [Bool]? = nil, threads: Int = ParallelWork.cores) throws(FormatError) {
        let length = FormatV1.nonceLength
        precondition(nonces.count == records.count * length && (checkingOverviews?.count ?? records.count) == records.count
                     && (bytes?.count ?? positions.count) == positions.count)
        guard let base = records.baseAddress else { return }
        // Each thread opens secrets into one guarded scratch buffer of its own (RecordV2.scratch)
        // and puts each record's successor where the record was.
        let output = UncheckedOutput(records)
        try ParallelWork.forEachRange(count: positions.count, threads: threads) { (range) throws(FormatError) in
            let scratch = try RecordV2.scratch(forSecretsOf: UnsafePointer(base), at: positions[range])
            for position in range {
                let index = positions[position]
                var record = output.buffer[index]
                if let read = bytes?[position] { record = try record.loaded(from: read) }
                output.buffer[index] = try record.resealed(vaultID: vaultID, from: old, to: new,
                                                           nonce: Array(nonces[(index * length)..<((index + 1) * length)]),
                                                           scratch: scratch, checkingOverview: checkingOverviews?[index] ?? false)
            }
        }
    }
}

/// The records of a parallel loop whose threads each read and write their own indices only.
private struct UncheckedOutput: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<RecordV2>
    init(_ buffer: UnsafeMutableBufferPointer<RecordV2>) { self.buffer = buffer }
}
