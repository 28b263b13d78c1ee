import CofferCrypto

/// A version-1 file's parts as version-2 parts under the same key (SPEC.md §11.1): the
/// vault key becomes the first epoch key, every slot a legacy slot, every record a
/// version-2 record (a record written before clocks gets its legacy clock written out, a
/// tombstone keeps only its clock and dates). Converting the slot that opened the vault
/// needs its credential and is the vault's (``KeySlotV2/make(for:kdf:vaultID:epoch:entropy:)``).
///
/// ```swift
/// let epoch = try EpochKeys(epochKey: keys.vaultKey)
/// let header = try FormatUpgrade.header(codec.header, epoch: epoch, start: stamp)
/// let records = try codec.records.map { try FormatUpgrade.record($0, vaultID: id, from: keys, to: epoch, entropy: entropy) }
/// ```
package enum FormatUpgrade {
    /// The header: same vault id and extensions, every slot carried as a legacy (or unknown)
    /// slot, the epoch of `epoch` started at `start`, no key history.
    package static func header(_ header: VaultHeader, epoch: EpochKeys, start: Stamp) throws(FormatError) -> VaultHeaderV2 {
        var slots: [KeySlotV2] = []
        for (index, slot) in header.slots.enumerated() {
            guard slot.body.count <= FormatV2.maxSlotPartLength else { throw .invalidArgument("key slot \(index) is too long") }
            slots.append(try KeySlotV2(type: slot.kind.code, publicPart: slot.body, stanza: [], index: index))
        }
        return VaultHeaderV2(vaultID: header.vaultID, epochID: epoch.epochID, epochStart: start, slots: slots,
                             extensions: header.extensions)
    }

    /// One record, opened with format 1's keys (its digest checked) and sealed as format 2.
    package static func record(_ record: EntryRecord, vaultID: [UInt8], from keys: VaultKeys, to epoch: EpochKeys,
                               entropy: EntropySource) throws(FormatError) -> RecordV2 {
        let overview = try record.openOverviewList(vaultID: vaultID, keys: keys)
        let secrets = try record.openSecretList(vaultID: vaultID, keys: keys)
        guard record.revision <= FormatV2.maxRevision else { throw .invalidItem("entry \(record.id.hex): revision \(record.revision) over 2^32 - 1") }
        let parts = try ItemParts(overview: overview, secrets: secrets)
        var list = overview
        var clock: ItemClock
        if let decoded = try ItemClockCodec.decode(overview: overview) {
            clock = decoded
        } else {
            // SPEC.md §17.6: what a merge would have derived, written out so replicas agree.
            clock = ItemClock.legacy(digest: record.digest, revision: record.revision, registers: parts.valuedRegisters)
            list += try ItemClockCodec.encode(clock, present: Set(parts.valuedRegisters))
        }
        if clock.isDeleted {
            // A tombstone keeps its dates and clock only (SPEC.md §7.6): D = V, every value erased.
            clock = clock.resolved(present: parts.valuedRegisters)
            clock.deleted = clock.versions
            var dates = FieldList()
            dates.field(EntryCodec.OverviewTag.created, i64: parts.created)
            dates.field(EntryCodec.OverviewTag.modified, i64: parts.modified)
            let tombstone = dates.publicBytes + (try ItemClockCodec.encode(clock, present: [], style: .version2))
            return try RecordV2.seal(id: record.id, revision: record.revision, overview: tombstone, secrets: FieldList(),
                                     tombstone: true, vaultID: vaultID, keys: epoch, entropy: entropy)
        }
        var secretList = FieldList()
        secretList.raw(SecretFragment(source: secrets, range: 0..<secrets.count))
        return try RecordV2.seal(id: record.id, revision: record.revision, overview: list, secrets: secretList,
                                 vaultID: vaultID, keys: epoch, entropy: entropy)
    }
}
