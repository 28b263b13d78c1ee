import CofferCrypto
import CofferFormat

extension SaveEngine {
    /// What ``saveMerged(with:keys:)`` would save for a replica's `bytes`, without any file:
    /// the bytes read and checked as a merge reads them (``replicaSnapshot(_:name:keys:identity:)``,
    /// the digests), joined with this engine's snapshot by ``ReplicaMerge/merge(_:_:sealer:)``,
    /// and the file encoded at the next generation; `file` is nil when the merge changes
    /// nothing (a save would write nothing). Nothing is written and the engine is unchanged.
    ///
    /// Why: the merge fuzz target (RELIABILITY.md, "Fuzzing") checks the merge core at memory
    /// speed through this; the file path (lock, temporary file, rename) is the one saves use
    /// and is sampled by the target one input in many. A file still being converted from a
    /// legacy slot, or a format-1 file, gets no header upgrade here (`saveJoined` does that).
    func mergedInMemory(with bytes: [UInt8], keys: EpochKeys) throws(CofferError) -> (report: MergeReport, file: [UInt8]?) {
        var other = try replicaSnapshot(bytes, name: "the replica", keys: keys)
        try other.checkDigests(keys: keys)
        let outcome = try ReplicaMerge.merge(snapshot, other, sealer: ItemSealer(vaultID: snapshot.vaultID, keys: keys, entropy: entropy))
        guard outcome.changed else { return (outcome.report, nil) }
        var next = outcome.snapshot
        next.generation = try Self.generation(after: max(next.generation, highestGeneration))
        next.digestsChecked = false
        try next.checkDigests(keys: keys)
        let file = try formatCall { () throws(FormatError) in
            try VaultFileV2.encode(header: next.header, generation: next.generation, records: next.allRecords, keys: keys).bytes
        }
        return (outcome.report, file)
    }
}
