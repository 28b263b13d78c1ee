import CofferCrypto
import CofferFormat
import CofferVault
import Foundation

/// An item as JSON: the one writer of an item's attributes as a JSON object, and of JSON
/// strings, used by `coffer list --json` / `search --json` and by Coffer's JSON export.
/// Everything goes into a ``WipingBuffer``, so secrets written next to it (an export) leave
/// no unwiped copy.
///
/// ```swift
/// let out = WipingBuffer(capacity: 1024)
/// defer { out.removeAll() }
/// ItemJSON.writeAttributes(of: item, to: out)
/// // {"id":"…","kind":"generic-password","label":null,"service":"github.com",…,"modified":"2025-01-31T09:30:00.125Z"}
/// ```
public enum ItemJSON {
    /// Writes `item`'s attributes, never a secret, as one compact JSON object with every
    /// key present (`null` or `[]` when empty), in this order: `id`, `kind`, `label`,
    /// `service`, `account`, `server`, `protocol`, `port`, `path`, `urls`, `tags`, `favorite`,
    /// `comment`, `fields` (`[{"name", "value"}]`), `created`, `modified` (``date(_:)``).
    /// README's "JSON output" documents it for `list --json`.
    public static func writeAttributes(of item: Item, to out: WipingBuffer) {
        let a = item.attributes
        func member(_ name: String, first: Bool = false) {
            out.append((first ? "{\"" : ",\"") + name + "\":")
        }
        func optional(_ text: String?) { if let text { out.appendJSONString(text) } else { out.append("null") } }
        func strings(_ list: [String]) {
            out.append("[")
            for (index, text) in list.enumerated() {
                if index > 0 { out.append(",") }
                out.appendJSONString(text)
            }
            out.append("]")
        }
        member("id", first: true); out.appendJSONString(item.id.hex)
        member("kind"); out.appendJSONString(a.kind.rawValue)
        member("label"); optional(a.label)
        member("service"); optional(a.service)
        member("account"); optional(a.account)
        member("server"); optional(a.server)
        member("protocol"); optional(a.protocol)
        member("port"); out.append(a.port.map { String($0) } ?? "null")
        member("path"); optional(a.path)
        member("urls"); strings(a.urls)
        member("tags"); strings(a.tags)
        member("favorite"); out.append(a.isFavorite ? "true" : "false")
        member("comment"); optional(a.comment)
        member("fields"); out.append("[")
        for (index, field) in a.fields.enumerated() {
            out.append(index == 0 ? "{\"name\":" : ",{\"name\":")
            out.appendJSONString(field.name)
            out.append(",\"value\":")
            out.appendJSONString(field.value)
            out.append("}")
        }
        out.append("]")
        member("created"); out.appendJSONString(date(a.created))
        member("modified"); out.appendJSONString(date(a.modified))
        out.append("}")
    }

    /// A date as Coffer's JSON writes it: ISO 8601 in UTC with milliseconds,
    /// e.g. `2025-01-31T09:30:00.125Z`.
    public static func date(_ date: Date) -> String { TransferDate.format(date) }
}

extension WipingBuffer {
    /// Appends UTF-8 `bytes` as a quoted JSON string: `"` and `\` escaped, `\n`, `\r` and
    /// `\t` as such, other control characters and DEL as `\u00XX`, the rest byte for byte.
    /// Returns false, appending nothing, when `bytes` are not valid UTF-8 (a secret is
    /// never altered to fit).
    ///
    /// ```swift
    /// let out = WipingBuffer()
    /// password.withUnsafeBytes { _ = out.appendJSONString($0) }   // straight from guarded memory
    /// ```
    @discardableResult
    public func appendJSONString(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard Self.isValidUTF8(bytes) else { return false }
        let hex = Array("0123456789abcdef".utf8)
        append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(UInt8(ascii: "\\")); append(byte)
            case 0x0A: append(UInt8(ascii: "\\")); append(UInt8(ascii: "n"))
            case 0x0D: append(UInt8(ascii: "\\")); append(UInt8(ascii: "r"))
            case 0x09: append(UInt8(ascii: "\\")); append(UInt8(ascii: "t"))
            case 0x00..<0x20, 0x7F:
                append(UInt8(ascii: "\\")); append(UInt8(ascii: "u")); append(UInt8(ascii: "0")); append(UInt8(ascii: "0"))
                append(hex[Int(byte >> 4)]); append(hex[Int(byte & 0x0F)])
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
        return true
    }

    /// Appends a (non-secret) string as a quoted JSON string.
    public func appendJSONString(_ text: String) {
        var copy = text
        copy.withUTF8 { _ = appendJSONString(UnsafeRawBufferPointer($0)) }
    }

    /// Checks UTF-8 without making a `String` (which would copy a secret out of reach).
    private static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
