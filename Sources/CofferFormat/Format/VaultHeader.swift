import CofferCrypto
/// The header body: vault id, key slots and extensions (SPEC.md §3).
package struct VaultHeader: Sendable, Equatable {
    package var vaultID: [UInt8]
    package var slots: [KeySlotRecord]
    package var extensions: [HeaderExtension]

    package init(vaultID: [UInt8], slots: [KeySlotRecord], extensions: [HeaderExtension]) {
        self.vaultID = vaultID
        self.slots = slots
        self.extensions = extensions
    }

    /// Parses the header body (the bytes after the 14-byte preamble).
    static func parse(_ buffer: UnsafeRawBufferPointer) throws(FormatError) -> VaultHeader {
        var reader = ByteReader(buffer)
        let vaultID = try reader.bytes(FormatV1.vaultIDLength, "header vault id")
        let slotCount = Int(try reader.u8("header slot count"))
        guard slotCount >= 1, slotCount <= FormatV1.maxSlots else {
            throw .malformed("header: \(slotCount) key slots, expected 1 to \(FormatV1.maxSlots)")
        }
        var slots: [KeySlotRecord] = []
        for index in 0..<slotCount {
            let type = try reader.u8("key slot \(index) type")
            let length = Int(try reader.u16("key slot \(index) length"))
            guard length <= FormatV1.maxSlotBodyLength else { throw .malformed("key slot \(index): \(length) bytes is too long") }
            let body = try reader.bytes(length, "key slot \(index)")
            slots.append(try KeySlotRecord(type: type, body: body, index: index))
        }
        let extensionCount = Int(try reader.u16("header extension count"))
        guard extensionCount <= FormatV1.maxExtensions else { throw .malformed("header: \(extensionCount) extensions is too many") }
        var extensions: [HeaderExtension] = []
        for index in 0..<extensionCount {
            let type = try reader.u16("header extension \(index) type")
            let length = Int(try reader.u32("header extension \(index) length"))
            guard length <= FormatV1.maxExtensionLength else { throw .malformed("header extension \(index): too long") }
            let value = try reader.bytes(length, "header extension \(index)")
            // One marked critical (high bit) must be understood: the replica extensions are (SPEC.md §17.4).
            if ReplicaExtension.known.contains(type) {
                guard !extensions.contains(where: { $0.type == type }) else { throw .malformed("header: extension 0x\(String(type, radix: 16)) repeated") }
                try validateReplicaExtension(type: type, value: value)
            } else {
                guard type & 0x8000 == 0 else { throw .malformed("header: unknown critical extension 0x\(String(type, radix: 16))") }
            }
            extensions.append(HeaderExtension(type: type, value: value))
        }
        guard reader.isAtEnd else { throw .malformed("header: \(reader.remaining) unexpected bytes after the extensions") }
        return VaultHeader(vaultID: vaultID, slots: slots, extensions: extensions)
    }

    func encodeBody() -> [UInt8] {
        var writer = ByteWriter(capacity: 256)
        writer.bytes(vaultID)
        writer.u8(UInt8(slots.count))
        for slot in slots {
            writer.u8(slot.kind.code)
            writer.u16(UInt16(slot.body.count))
            writer.bytes(slot.body)
        }
        writer.u16(UInt16(extensions.count))
        for ext in extensions {
            writer.u16(ext.type)
            writer.u32(UInt32(ext.value.count))
            writer.bytes(ext.value)
        }
        return writer.bytes
    }
}

/// A header extension; none is defined in v1, unknown non-critical ones are kept.
package struct HeaderExtension: Sendable, Equatable {
    package let type: UInt16
    package let value: [UInt8]
}

extension HeaderExtension: Hashable {}
