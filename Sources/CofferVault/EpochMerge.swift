import CofferCrypto
import CofferFormat
import CofferStore

/// How a merge treats a copy made under an earlier (or a concurrent) vault key
/// (SPEC.md §17.8): edits such a copy made after the rotation that separates it from this
/// vault are **held** (this vault's version of those items is kept) unless accepted here.
///
/// ```swift
/// let report = try vault.merge(contentsOf: laptopCopy)
/// if !report.earlierKey.held.isEmpty {
///     // the owner checked the laptop's edits: take them
///     try vault.merge(contentsOf: laptopCopy, options: MergeOptions(acceptEarlierKey: true))
/// }
/// ```
public struct MergeOptions: Sendable, Equatable {
    /// Merge held edits too: the caller vouches for the copy's writer (the owner's own
    /// device that was offline during a password change or a rekey).
    public var acceptEarlierKey: Bool

    public init(acceptEarlierKey: Bool = false) {
        self.acceptEarlierKey = acceptEarlierKey
    }
}

/// How a merged copy's key epoch relates to the vault's (SPEC.md §17.8).
public enum CopyEpoch: String, Sendable, Equatable, Codable {
    /// The same vault key.
    case same
    /// The copy was rekeyed after this vault's key (its writer held this vault's key): the
    /// vault moves to the copy's key, or, when each was rekeyed from the other, to the one
    /// every order of merges picks.
    case successor
    /// The copy was made under an earlier key this vault keeps in its key history.
    case older
    /// The copy was rekeyed apart from this vault (a concurrent rotation on another device)
    /// and still has the key slot that opened this vault.
    case concurrent
}

/// An item whose edits in a copy under an earlier key were held back (never its values).
public struct HeldItem: Sendable, Equatable, Codable {
    public let id: ItemID
    /// ``ItemAttributes/displayName``: the copy's name for it (this vault's for a deletion).
    public let name: String
}

/// What a merge took from, and held back of, a copy under another vault key (SPEC.md §17.8).
///
/// ```swift
/// let report = try vault.merge(contentsOf: copy)
/// print("\(report.earlierKey.merged) items from an earlier key, \(report.earlierKey.held.count) held")
/// ```
public struct EarlierKeyReport: Sendable, Equatable, Codable {
    /// How the copy's key epoch relates to the vault's.
    public var epoch: CopyEpoch = .same
    /// Items the merge changed from a copy under an earlier or concurrent key (edits dated
    /// before the rotation, and held edits that were accepted).
    public var merged = 0
    /// Items whose edits the copy made after the rotation and that were not merged
    /// (``MergeOptions/acceptEarlierKey`` takes them), by id order.
    public var held: [HeldItem] = []
    /// Held edits that were merged because the caller accepted them.
    public var accepted = 0

    public init() {}
}

/// A copy read for a merge, opened under its own epoch key, and how that epoch relates to
/// the vault's (SPEC.md §17.8).
struct ReplicaCopy {
    enum Relation: Equatable {
        case same
        /// `moves`: the result takes the copy's epoch (else, each being a successor of the
        /// other, it keeps the vault's).
        case successor(moves: Bool)
        /// The end stamp of the copy's epoch in the vault's key history.
        case older(end: Stamp)
        case concurrent
    }

    var snapshot: VaultSnapshot
    let keys: EpochKeys
    let relation: Relation

    var epoch: CopyEpoch {
        switch relation {
        case .same: return .same
        case .successor: return .successor
        case .older: return .older
        case .concurrent: return .concurrent
        }
    }
}

/// What to do with held edits (SPEC.md §17.8).
enum HeldEdits {
    /// Keep this vault's version of those items, and report them (a merge).
    case hold
    /// Merge them too (``MergeOptions/acceptEarlierKey``).
    case accept
    /// Refuse the whole copy: the vault's own file, replaced by a copy under an earlier key,
    /// is saved over, so a held edit would be lost with it.
    case refuse
}

extension SaveEngine {
    /// Parses `bytes`, a replica of this vault, finds the key it is sealed under (SPEC.md
    /// §17.8: ours; an earlier one from our key history; or, through its slot with the
    /// identity of the one that opened this vault, a later or concurrent one), and reads it
    /// with that key. Throws `otherKeyEpoch` for a copy no such key opens.
    func replicaCopy(_ bytes: [UInt8], name: String, keys: EpochKeys, identity: FileIdentity? = nil) throws(CofferError) -> ReplicaCopy {
        let parsed = try formatCall { () throws(FormatError) in try VaultFileReader.Parsed(bytes) }
        guard parsed.vaultID == snapshot.vaultID else {
            throw .differentVault("\(name) holds a different vault")
        }
        let (copyKeys, relation) = try epoch(of: parsed, name: name, keys: keys)
        let codec = try formatCall { () throws(FormatError) in try parsed.authenticated(with: copyKeys, entropy: entropy) }
        let read = try VaultSnapshot(codec: codec, keys: copyKeys, identity: identity ?? snapshot.identity,
                                     reusing: relation == .same ? snapshot : nil)
        return ReplicaCopy(snapshot: read, keys: copyKeys, relation: relation)
    }

    /// The key `parsed` is sealed under and how its epoch relates to ours (SPEC.md §17.8).
    private func epoch(of parsed: VaultFileReader.Parsed, name: String, keys: EpochKeys) throws(CofferError) -> (EpochKeys, ReplicaCopy.Relation) {
        let ours = snapshot.header
        // Our earlier keys, opened only for a copy under another epoch (one AEAD).
        func earlierKeys() throws(CofferError) -> [(epoch: KeyHistory.Epoch, keys: EpochKeys)] {
            try formatCall { () throws(FormatError) in try ours.keyHistory?.open(with: keys, vaultID: ours.vaultID) ?? [] }
        }
        switch parsed {
        case .v1(let codec):
            // A format-1 copy's vault key is the first epoch key of the upgraded vault: the
            // current key unless a rotation came after the upgrade. Found by its header MAC;
            // one no key gives is read with ours, and refused as the damaged copy it is.
            if ours.keyHistory == nil || (try? codec.authenticate(keys: try VaultKeys(vaultKey: keys.epochKey))) != nil { return (keys, .same) }
            for entry in try earlierKeys() {
                do {
                    try codec.authenticate(keys: try formatCall { () throws(FormatError) in try VaultKeys(vaultKey: entry.keys.epochKey) })
                } catch .tampered(.header) {
                    continue
                } catch {
                    // Its header authenticated under that key: a copy of that epoch, damaged after.
                }
                return (entry.keys, .older(end: entry.epoch.end))
            }
            return (keys, .same)
        case .v2(let codec):
            let theirs = codec.header
            if ConstantTime.equals(theirs.epochID, keys.epochID) { return (keys, .same) }
            let earlier = try earlierKeys()
            let older = earlier.first { $0.epoch.epochID == theirs.epochID }
            let rekeyedFromOurs = theirs.keyHistory?.epochs.contains { $0.epochID == keys.epochID } == true
            if rekeyedFromOurs || older == nil {
                // A successor or a concurrent rotation: opened only through the slot that
                // opened this vault, never with a key this vault kept.
                guard let slot = openingSlot,
                      let opened = try formatCall({ () throws(FormatError) in try codec.unlock(identity: slot.slotIdentity, seeds: slot.seeds) }) else {
                    throw .otherKeyEpoch(rekeyedFromOurs
                        ? "\(name) was rekeyed after this vault last read it, and the key slot that opened this vault was removed in it (a changed password or a revoked key file); open this vault with a credential that copy has, then merge"
                        : "\(name) is sealed under a key this vault never held and has no key slot of the credential that opened it")
                }
                guard rekeyedFromOurs else {
                    // Case 4. A slot's stanza is made from its public part alone, so anyone who
                    // read this vault's header could make a file that opens through the device's
                    // slot: only a key history sharing an earlier epoch of ours (its keys
                    // committed to by their epoch ids) shows that a holder of our lineage made it.
                    let theirEarlier = try formatCall { () throws(FormatError) in try theirs.keyHistory?.open(with: opened, vaultID: theirs.vaultID) ?? [] }
                    guard theirEarlier.contains(where: { entry in earlier.contains { $0.epoch.epochID == entry.epoch.epochID } }) else {
                        throw .otherKeyEpoch("\(name) is sealed under a key this vault never held and shares no earlier key with it")
                    }
                    return (opened, .concurrent)
                }
                // Each a successor of the other: the epoch of the later start, then the larger id.
                let theirsLater = theirs.epochStart != ours.epochStart ? ours.epochStart < theirs.epochStart
                    : ours.epochID.lexicographicallyPrecedes(theirs.epochID)
                let moves = older == nil || theirsLater
                return (opened, .successor(moves: moves))
            }
            // Not rekeyed from ours, and in our key history (the branch above took every other copy).
            guard let older else { throw .otherKeyEpoch("\(name) is sealed under a key this vault never held") }
            return (older.keys, .older(end: older.epoch.end))
        }
    }

    /// `base` (this vault's version, under `keys`) joined with `copy` by the rules of its
    /// epoch (SPEC.md §17.8), and the keys the result is sealed under.
    func join(_ base: VaultSnapshot, keys: EpochKeys, _ copy: ReplicaCopy, held: HeldEdits) throws(CofferError) -> (outcome: ReplicaMerge.Outcome, keys: EpochKeys) {
        switch copy.relation {
        case .same:
            return (try ReplicaMerge.merge(base, copy.snapshot, sealer: ItemSealer(vaultID: base.vaultID, keys: keys, entropy: entropy)), keys)
        case .successor(let moves):
            let (resultKeys, otherKeys) = moves ? (copy.keys, keys) : (keys, copy.keys)
            let ours = moves ? try resealed(base, from: keys, to: resultKeys) : base
            let theirs = moves ? copy.snapshot : try resealed(copy.snapshot, from: copy.keys, to: resultKeys)
            var scratch = MergeReport()
            var header = try ReplicaMerge.mergedHeader(base.header, copy.snapshot.header, report: &scratch)
            let result = moves ? copy.snapshot.header : base.header
            let other = moves ? base.header : copy.snapshot.header
            header.epochID = result.epochID
            header.epochStart = result.epochStart
            // Slots only the other side has are wrapped for the result's key from their public
            // parts; a legacy slot cannot be, and is removed.
            let wrapped = Dictionary(result.slots.map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
            var slots: [KeySlotV2] = []
            for slot in header.slots {
                // A slot both sides have: the result side's, whose stanza wraps the result's key.
                if let same = wrapped[slot.identity] { slots.append(same); continue }
                if slot.isNewStyle {
                    slots.append(try formatCall { () throws(FormatError) in try slot.restanza(vaultID: base.vaultID, epoch: resultKeys, entropy: entropy) })
                } else {
                    header.removedSlots = header.removedSlots + [RemovedKeySlot(identity: slot.identity, time: result.epochStart.time)]
                }
            }
            guard !slots.isEmpty else { throw .slotUnavailable("the replicas removed every key slot between them") }
            header.slots = slots
            let history = try formatCall { () throws(FormatError) -> KeyHistory? in
                let ourEarlier = try base.header.keyHistory?.open(with: keys, vaultID: base.vaultID) ?? []
                let theirEarlier = try copy.snapshot.header.keyHistory?.open(with: copy.keys, vaultID: base.vaultID) ?? []
                return try KeyHistory.seal(ourEarlier + theirEarlier + [(KeyHistory.Epoch(epochID: other.epochID, end: result.epochStart), otherKeys)],
                                           vaultID: base.vaultID, current: resultKeys, entropy: entropy)
            }
            header.setKeyHistory(history)
            try keepsOpeningSlot(header)
            let outcome = try ReplicaMerge.merge(ours, theirs, sealer: ItemSealer(vaultID: base.vaultID, keys: resultKeys, entropy: entropy),
                                                 header: header)
            var report = outcome.report
            report.earlierKey.epoch = .successor
            return (ReplicaMerge.Outcome(snapshot: outcome.snapshot, report: report, changed: outcome.changed || moves), resultKeys)
        case .older(let end):
            return (try joinEarlier(base, keys: keys, copy, cutoff: end, held: held), keys)
        case .concurrent:
            return (try joinEarlier(base, keys: keys, copy, cutoff: base.header.epochStart, held: held), keys)
        }
    }

    /// SPEC.md §17.8 cases 3 and 4: nothing of the copy's header enters (a concurrent
    /// copy's key joins our key history); its items merge, sealed under our key, except
    /// edits dated after `cutoff` that this vault has not seen (held).
    private func joinEarlier(_ base: VaultSnapshot, keys: EpochKeys, _ copy: ReplicaCopy, cutoff: Stamp, held policy: HeldEdits) throws(CofferError) -> ReplicaMerge.Outcome {
        var theirs = copy.snapshot
        var heldItems: [HeldItem] = []
        for id in (Array(theirs.entries.keys) + Array(theirs.tombstones.keys)).sorted() {
            guard let version = try theirs.version(id) else { continue }
            let mine = try base.version(id)
            if let mine, [.first, .both].contains(ItemMerge.dominance(mine.clock, version.clock)),
               mine.dates.created <= version.dates.created, mine.dates.modified >= version.dates.modified {
                // Ours has seen all of it: nothing to take (and nothing to seal again).
                theirs.remove(id)
                continue
            }
            let seen = mine?.clock.versions ?? VersionVector()
            let late = version.clock.versions.sorted.contains { entry in
                entry.time > seen[entry.replica] && Stamp(replica: entry.replica, time: entry.time) > cutoff
            }
            guard late else { continue }
            let name = (try? theirs.attributes(id)?.displayName) ?? (try? base.attributes(id)?.displayName)
            heldItems.append(HeldItem(id: id, name: name ?? "(deleted item)"))
            if policy == .hold { theirs.remove(id) }
        }
        if policy == .refuse, !heldItems.isEmpty {
            throw .otherKeyEpoch("the file was replaced by a copy under an earlier key with \(heldItems.count) edit(s) made after the key was changed; merge that copy explicitly")
        }
        theirs = try resealed(theirs, from: copy.keys, to: keys)
        var header = base.header
        var clock = header.clock
        for entry in Array(theirs.entries.values) + Array(theirs.tombstones.values) {
            clock.formMerge(with: try ItemVersion(record: entry.record, overview: entry.overview).clock.versions)
        }
        header.clock = clock
        if copy.relation == .concurrent {
            // The copy's key joins our history, so that its writer, merging our result, finds a successor.
            let history = try formatCall { () throws(FormatError) -> KeyHistory? in
                let earlier = try base.header.keyHistory?.open(with: keys, vaultID: base.vaultID) ?? []
                return try KeyHistory.seal(earlier + [(KeyHistory.Epoch(epochID: copy.keys.epochID, end: base.header.epochStart), copy.keys)],
                                           vaultID: base.vaultID, current: keys, entropy: entropy)
            }
            header.setKeyHistory(history)
        }
        var outcome = try ReplicaMerge.merge(base, theirs, sealer: ItemSealer(vaultID: base.vaultID, keys: keys, entropy: entropy), header: header)
        let r = outcome.report
        outcome.report.earlierKey.epoch = copy.epoch
        outcome.report.earlierKey.merged = r.added + r.updated + r.deleted + r.restored + r.tombstones
        outcome.report.earlierKey.held = policy == .hold ? heldItems : []
        outcome.report.earlierKey.accepted = policy == .accept ? heldItems.count : 0
        return outcome
    }

    /// A merge never writes a file the credential that opened this vault does not open
    /// (SPEC.md §17.8).
    private func keepsOpeningSlot(_ header: VaultHeaderV2) throws(CofferError) {
        guard let slot = openingSlot, !header.slots.contains(where: { $0.identity == slot.slotIdentity }) else { return }
        throw .slotUnavailable("the merge would remove the key slot that opened this vault")
    }

    /// `snapshot` with every record sealed again under `new` (fresh nonces); the overviews
    /// stay. A record that does not open under `old` throws `tampered`.
    func resealed(_ snapshot: VaultSnapshot, from old: EpochKeys, to new: EpochKeys) throws(CofferError) -> VaultSnapshot {
        var out = snapshot
        out.replaceRecords(try out.resealedRecords(from: old, to: new, entropy: entropy), keys: new)
        out.digestsChecked = false
        return out
    }
}
