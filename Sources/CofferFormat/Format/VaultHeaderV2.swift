import CofferCrypto

/// The header body of format 2 (SPEC.md §3): vault id, the current epoch (its id and the
/// stamp of the rotation that started it), key slots with public parts and stanzas, and
/// extensions (the replica extensions of §17.4 and the key history of §4.9).
package struct VaultHeaderV2: Sendable, Equatable, ReplicaExtensionHolder {
    package var vaultID: [UInt8]
    package var epochID: [UInt8]
    /// The stamp (SPEC.md §17.1) of the save that started the current epoch: the rotation,
    /// or the creating or upgrading save.
    package var epochStart: Stamp
    package var slots: [KeySlotV2]
    package var extensions: [HeaderExtension]

    package static var maxExtensionLength: Int { FormatV2.maxExtensionLength }

    package init(vaultID: [UInt8], epochID: [UInt8], epochStart: Stamp, slots: [KeySlotV2], extensions: [HeaderExtension]) {
        self.vaultID = vaultID
        self.epochID = epochID
        self.epochStart = epochStart
        self.slots = slots
        self.extensions = extensions
    }

    /// Bytes before the first slot: vault id, epoch id, epoch start, slot count.
    static let fixedLength = FormatV1.vaultIDLength + FormatV2.epochIDLength + FormatV2.stampLength + 1

    /// Parses the header body (the bytes after the 14-byte preamble), SPEC.md §10 step 6.
    static func parse(_ buffer: UnsafeRawBufferPointer) throws(FormatError) -> VaultHeaderV2 {
        var reader = ByteReader(buffer)
        let vaultID = try reader.bytes(FormatV1.vaultIDLength, "header vault id")
        let epochID = try reader.bytes(FormatV2.epochIDLength, "header epoch id")
        let replica = try reader.u64("header epoch start"), time = try reader.u64("header epoch start")
        guard replica != 0, time >= 1 else { throw .malformed("header: epoch start stamp (replica non-zero, time at least 1)") }
        let slotCount = Int(try reader.u8("header slot count"))
        guard slotCount >= 1, slotCount <= FormatV1.maxSlots else {
            throw .malformed("header: \(slotCount) key slots, expected 1 to \(FormatV1.maxSlots)")
        }
        var slots: [KeySlotV2] = []
        for index in 0..<slotCount {
            let type = try reader.u8("key slot \(index) type")
            let publicLength = Int(try reader.u16("key slot \(index) public length"))
            guard publicLength <= FormatV2.maxSlotPartLength else { throw .malformed("key slot \(index): public part of \(publicLength) bytes is too long") }
            let publicPart = try reader.bytes(publicLength, "key slot \(index)")
            let stanzaLength = Int(try reader.u16("key slot \(index) stanza length"))
            guard stanzaLength <= FormatV2.maxSlotPartLength else { throw .malformed("key slot \(index): stanza of \(stanzaLength) bytes is too long") }
            let stanza = try reader.bytes(stanzaLength, "key slot \(index)")
            slots.append(try KeySlotV2(type: type, publicPart: publicPart, stanza: stanza, index: index))
        }
        let extensions = try HeaderExtension.parseList(&reader, maxLength: FormatV2.maxExtensionLength) { (type, value) throws(FormatError) in
            if type == KeyHistory.extensionType {
                _ = try KeyHistory(parsing: value, vaultID: vaultID, epochID: epochID)
                return true
            }
            guard ReplicaExtension.known.contains(type) else { return false }
            try validateReplicaExtension(type: type, value: value)
            return true
        }
        guard reader.isAtEnd else { throw .malformed("header: \(reader.remaining) unexpected bytes after the extensions") }
        return VaultHeaderV2(vaultID: vaultID, epochID: epochID, epochStart: Stamp(replica: replica, time: time),
                             slots: slots, extensions: extensions)
    }

    func encodeBody() -> [UInt8] {
        var writer = ByteWriter(capacity: 512)
        writer.bytes(vaultID)
        writer.bytes(epochID)
        writer.u64(epochStart.replica)
        writer.u64(epochStart.time)
        writer.u8(UInt8(slots.count))
        for slot in slots {
            writer.u8(slot.type)
            writer.u16(UInt16(slot.publicPart.count))
            writer.bytes(slot.publicPart)
            writer.u16(UInt16(slot.stanza.count))
            writer.bytes(slot.stanza)
        }
        writer.u16(UInt16(extensions.count))
        for ext in extensions {
            writer.u16(ext.type)
            writer.u32(UInt32(ext.value.count))
            writer.bytes(ext.value)
        }
        return writer.bytes
    }

    /// The key history's public part (no key needed), or nil when the header has none.
    package var keyHistory: KeyHistory? {
        guard let value = extensions.first(where: { $0.type == KeyHistory.extensionType })?.value else { return nil }
        return try? KeyHistory(parsing: value, vaultID: vaultID, epochID: epochID)
    }

    /// Puts `history` in (or takes the extension out when it is nil), in the same place.
    package mutating func setKeyHistory(_ history: KeyHistory?) {
        if let index = extensions.firstIndex(where: { $0.type == KeyHistory.extensionType }) {
            if let history { extensions[index] = HeaderExtension(type: KeyHistory.extensionType, value: history.value) } else { extensions.remove(at: index) }
        } else if let history {
            extensions.append(HeaderExtension(type: KeyHistory.extensionType, value: history.value))
        }
    }
}
