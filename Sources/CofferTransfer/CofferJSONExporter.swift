import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
internal import CSodium
import Foundation

/// Coffer's own JSON export: every field of every item, in a fixed layout (README,
/// "Moving in and out", documents it), so that export → import → export gives the same bytes.
///
/// Layout: two-space indentation, keys in a fixed order, every key always present
/// (`null` or `[]` when empty), dates as `YYYY-MM-DDTHH:MM:SS.mmmZ`, items sorted by
/// name and account (then by their own bytes, so the order never depends on item ids).
/// A secret that is not valid UTF-8 is written as `{"base64": "…"}`; attachments always are.
enum CofferJSONExporter {
    static let formatName = "coffer-export"
    static let version = 1

    static func export(_ source: ExportSource) throws(CofferError) -> SecureBytes {
        var entries: [(key: ExportOrder.Key, bytes: WipingBuffer)] = []
        for item in try source.items() {
            guard let secrets = try source.secrets(for: item) else { continue }
            let out = WipingBuffer(capacity: 1024)
            try write(item.attributes, secrets, to: out)
            entries.append((ExportOrder.key(item.attributes), out))
        }
        entries.sort { ExportOrder.less($0.key, $0.bytes, $1.key, $1.bytes) }
        let out = WipingBuffer(capacity: entries.reduce(256) { $0 + $1.bytes.count + 8 })
        defer { out.removeAll() }
        out.append("{\n  \"format\": \"\(formatName)\",\n  \"version\": \(version),\n  \"items\": [")
        for (index, entry) in entries.enumerated() {
            out.append(index == 0 ? "\n" : ",\n")
            out.append(entry.bytes.bytes)
            entry.bytes.removeAll()
        }
        out.append(entries.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
        return try out.secureBytes()
    }

    /// One item: the attributes in the one item shape (``ItemJSON``), then the secrets.
    private static func write(_ a: ItemAttributes, _ s: ItemSecrets, to out: WipingBuffer) throws(CofferError) {
        var object = JSONObjectWriter(out, layout: .indented)
        ItemJSON.writeAttributes(a, into: &object)
        object.member("password"); try JSONOut.secret(s.password, out)
        object.member("notes"); try JSONOut.secret(s.notes, out)
        object.member("secretFields")
        try object.objects(s.fields) { (field) throws(CofferError) in
            object.inlineMember("name", first: true); object.string(field.name)
            object.inlineMember("value"); try JSONOut.secret(field.value, out)
            object.endInline()
        }
        object.member("passwordHistory")
        try object.objects(s.passwordHistory) { (entry) throws(CofferError) in
            object.inlineMember("password", first: true); try JSONOut.secret(entry.password, out)
            object.inlineMember("replaced"); object.string(ItemJSON.date(entry.replaced))
            object.endInline()
        }
        object.member("attachments")
        try object.objects(s.attachments) { (attachment) throws(CofferError) in
            object.inlineMember("name", first: true); object.string(attachment.name)
            object.inlineMember("data"); try JSONOut.base64(attachment.data, out)
            object.endInline()
        }
        object.close()
    }
}

/// The order of exported items: by name and account as ``DisplayOrder`` compares them
/// (code points after NFC; `String`'s `<` is not a strict weak order), then by the
/// item's own bytes, so that an export does not depend on item ids.
enum ExportOrder {
    typealias Key = (name: [UInt8], account: [UInt8])

    static func key(_ a: ItemAttributes) -> Key {
        (Array(DisplayOrder.comparableBytes(a.sortName ?? "")),
         Array(DisplayOrder.comparableBytes(a.account ?? "")))
    }

    static func less(_ ka: Key, _ a: WipingBuffer, _ kb: Key, _ b: WipingBuffer) -> Bool {
        if ka.name != kb.name { return ka.name.lexicographicallyPrecedes(kb.name) }
        if ka.account != kb.account { return ka.account.lexicographicallyPrecedes(kb.account) }
        let common = min(a.count, b.count)
        let order = common == 0 ? 0 : memcmp(a.pointer, b.pointer, common)
        return order != 0 ? order < 0 : a.count < b.count
    }
}

/// Secrets as JSON values, straight from guarded memory into a ``WipingBuffer``.
enum JSONOut {
    /// A secret as a JSON string, or `{"base64": "…"}` when it is not valid UTF-8; `null` when absent.
    static func secret(_ value: SecureBytes?, _ out: WipingBuffer) throws(CofferError) {
        guard let value else { out.append("null"); return }
        if !value.withUnsafeBytes({ out.appendJSONString($0) }) {
            out.append("{\"base64\": ")
            try base64(value, out)
            out.append("}")
        }
    }

    /// Standard base64 (with padding) in quotes, encoded by libsodium into the buffer.
    static func base64(_ value: SecureBytes, _ out: WipingBuffer) throws(CofferError) {
        let variant = Int32(sodium_base64_VARIANT_ORIGINAL)
        let length = sodium_base64_encoded_len(value.count, variant)
        let scratch = WipingBuffer(capacity: length)
        defer { scratch.removeAll() }
        for _ in 0..<length { scratch.append(0) }
        value.withBytePointer { pointer, count in
            _ = sodium_bin2base64(UnsafeMutableRawPointer(scratch.pointer).assumingMemoryBound(to: CChar.self), length,
                                  pointer, count, variant)
        }
        out.append("\"")
        out.append(UnsafeRawBufferPointer(start: scratch.pointer, count: max(0, length - 1)))   // without the NUL
        out.append("\"")
    }
}
