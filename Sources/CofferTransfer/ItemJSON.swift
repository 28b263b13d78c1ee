import CofferCrypto
import CofferFormat
import CofferVault
import Foundation

/// An item as JSON: the one owner of an item's JSON shape, its attributes' keys and their
/// order, used by `coffer list --json` / `search --json` (compact, with the id) and by
/// Coffer's JSON export (indented, without the id, followed by the secrets). Everything
/// goes into a ``WipingBuffer``, so secrets written next to it (an export) leave no
/// unwiped copy.
///
/// ```swift
/// let out = WipingBuffer(capacity: 1024)
/// defer { out.removeAll() }
/// ItemJSON.writeAttributes(of: item, to: out)
/// // {"id":"…","kind":"generic-password","label":null,"service":"github.com",…,"modified":"2025-01-31T09:30:00.125Z"}
/// ```
public enum ItemJSON {
    /// Writes `item`'s attributes, never a secret, as one compact JSON object with every
    /// key present (`null` or `[]` when empty), in this order: `id`, then the attribute
    /// keys of every item object (``attributeKeys``): `kind`, `label`, `service`, `account`,
    /// `server`, `protocol`, `port`, `path`, `comment`, `urls`, `tags`, `favorite`, `fields`
    /// (`[{"name", "value"}]`), `created`, `modified` (``date(_:)``), `expires` (a date, or
    /// `null` when the item never expires).
    /// README's "JSON output" documents it for `list --json`.
    public static func writeAttributes(of item: Item, to out: WipingBuffer) {
        var object = JSONObjectWriter(out, layout: .compact)
        object.member("id"); object.string(item.id.hex)
        writeAttributes(item.attributes, into: &object)
        object.close()
    }

    /// The keys of an item's attributes, in the order every item object has them.
    public static let attributeKeys = ["kind", "label", "service", "account", "server", "protocol", "port", "path",
                                       "comment", "urls", "tags", "favorite", "fields", "created", "modified", "expires"]

    /// The attribute members (``attributeKeys``) of an object `object` is writing.
    static func writeAttributes(_ a: ItemAttributes, into object: inout JSONObjectWriter) {
        object.member("kind"); object.string(a.kind.rawValue)
        object.member("label"); object.optional(a.label)
        object.member("service"); object.optional(a.service)
        object.member("account"); object.optional(a.account)
        object.member("server"); object.optional(a.server)
        object.member("protocol"); object.optional(a.protocol)
        object.member("port"); object.number(a.port)
        object.member("path"); object.optional(a.path)
        object.member("comment"); object.optional(a.comment)
        object.member("urls"); object.strings(a.urls)
        object.member("tags"); object.strings(a.tags)
        object.member("favorite"); object.bool(a.isFavorite)
        object.member("fields")
        object.objects(a.fields) { (field) in
            object.inlineMember("name", first: true); object.string(field.name)
            object.inlineMember("value"); object.string(field.value)
            object.endInline()
        }
        object.member("created"); object.string(date(a.created))
        object.member("modified"); object.string(date(a.modified))
        object.member("expires"); object.optional(a.expires.map(date))
    }

    /// A date as Coffer's JSON writes it: ISO 8601 in UTC with milliseconds,
    /// e.g. `2025-01-31T09:30:00.125Z`.
    public static func date(_ date: Date) -> String { TransferDate.format(date) }
}

/// Writes one JSON object's members into a ``WipingBuffer``, in one of the two layouts
/// Coffer writes items in: compact (`--json`) or the export's indented one (an item
/// object at depth 2, one member a line).
struct JSONObjectWriter {
    enum Layout {
        /// `{"key":value,…}`, lists `[a,b]`.
        case compact
        /// The export's: `    {`, each member on its own line (`      "key": value`),
        /// lists `[a, b]`, lists of objects one object a line, `    }`.
        case indented
    }

    let out: WipingBuffer
    let layout: Layout
    private var first = true

    /// The export's indentation of a member.
    private static let memberIndent = "\n      "

    /// Opens the object.
    init(_ out: WipingBuffer, layout: Layout) {
        self.out = out
        self.layout = layout
        out.append(layout == .compact ? "{" : "    {")
    }

    /// Starts the member `name`; its value follows.
    mutating func member(_ name: String) {
        switch layout {
        case .compact: out.append((first ? "\"" : ",\"") + name + "\":")
        case .indented: out.append((first ? "" : ",") + Self.memberIndent + "\"" + name + "\": ")
        }
        first = false
    }

    func string(_ text: String) { out.appendJSONString(text) }

    func optional(_ text: String?) {
        if let text { out.appendJSONString(text) } else { out.append("null") }
    }

    func number(_ value: UInt16?) { out.append(value.map { String($0) } ?? "null") }

    func bool(_ value: Bool) { out.append(value ? "true" : "false") }

    func strings(_ list: [String]) {
        out.append("[")
        for (index, text) in list.enumerated() {
            if index > 0 { out.append(layout == .compact ? "," : ", ") }
            out.appendJSONString(text)
        }
        out.append("]")
    }

    /// A list of objects (each written by `body` with ``inlineMember(_:first:)``):
    /// compact on one line; indented, one object a line (`[]` when empty).
    func objects<T, E: Error>(_ list: [T], _ body: (T) throws(E) -> Void) throws(E) {
        guard !list.isEmpty else { out.append("[]"); return }
        out.append("[")
        for (index, element) in list.enumerated() {
            switch layout {
            case .compact: if index > 0 { out.append(",") }
            case .indented: out.append((index == 0 ? "" : ",") + Self.memberIndent + "  ")
            }
            try body(element)
        }
        out.append(layout == .compact ? "]" : Self.memberIndent + "]")
    }

    /// Starts a member of an object inside a list (`{"name": …`); ``endInline()`` closes it.
    func inlineMember(_ name: String, first: Bool = false) {
        switch layout {
        case .compact: out.append((first ? "{\"" : ",\"") + name + "\":")
        case .indented: out.append((first ? "{\"" : ", \"") + name + "\": ")
        }
    }

    func endInline() { out.append("}") }

    /// Closes the object.
    func close() { out.append(layout == .compact ? "}" : "\n    }") }
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
