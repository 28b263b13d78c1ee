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
        // One marked critical (high bit) must be understood: the replica extensions are (SPEC.md §17.4).
        let extensions = try HeaderExtension.parseList(&reader, maxLength: FormatV1.maxExtensionLength) { (type, value) throws(FormatError) in
            guard ReplicaExtension.known.contains(type) else { return false }
            try validateReplicaExtension(type: type, value: value)
            return true
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

/// A header extension (SPEC.md §3): the replica extensions, the key history, and unknown
/// non-critical ones, which are kept.
package struct HeaderExtension: Sendable, Equatable {
    package let type: UInt16
    package let value: [UInt8]

    /// The extension count and the extensions (SPEC.md §3, §10 step 6), each value at most
    /// `maxLength` bytes. `known` checks a type this version knows and returns true, or
    /// returns false for an unknown one: a known type appears at most once, an unknown
    /// critical one (high bit set) is refused.
    static func parseList(_ reader: inout ByteReader, maxLength: Int,
                          known: (UInt16, [UInt8]) throws(FormatError) -> Bool) throws(FormatError) -> [HeaderExtension] {
        let count = Int(try reader.u16("header extension count"))
        guard count <= FormatV1.maxExtensions else { throw .malformed("header: \(count) extensions is too many") }
        var extensions: [HeaderExtension] = []
        for index in 0..<count {
            let type = try reader.u16("header extension \(index) type")
            let length = Int(try reader.u32("header extension \(index) length"))
            guard length <= maxLength else { throw .malformed("header extension \(index): too long") }
            let value = try reader.bytes(length, "header extension \(index)")
            if try known(type, value) {
                guard !extensions.contains(where: { $0.type == type }) else { throw .malformed("header: extension 0x\(String(type, radix: 16)) repeated") }
            } else {
                guard type & 0x8000 == 0 else { throw .malformed("header: unknown critical extension 0x\(String(type, radix: 16))") }
            }
            extensions.append(HeaderExtension(type: type, value: value))
        }
        return extensions
    }
}

extension HeaderExtension: Hashable {}
