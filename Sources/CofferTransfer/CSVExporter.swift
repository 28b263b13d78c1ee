import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
/// CSV export for other password managers: one row per item, every field quoted,
/// CRLF line ends (RFC 4180). The first five columns are the ones Chrome and Firefox
/// import; Coffer's `csv` import reads all of them back.
///
/// Lossy by design: custom fields, secret fields other than `otp`, password history,
/// attachments and every URL but the first are left out (use the JSON export to keep them).
enum CSVExporter {
    static let columns = ["name", "url", "username", "password", "note", "otp", "tags", "kind", "service",
                          "server", "protocol", "port", "path", "comment", "favorite", "created", "modified"]

    static func export(_ source: ExportSource) throws(CofferError) -> SecureBytes {
        var rows: [(key: ExportOrder.Key, bytes: WipingBuffer)] = []
        for item in try source.items() {
            guard let secrets = try source.secrets(for: item) else { continue }
            let a = item.attributes
            let row = WipingBuffer(capacity: 256)
            let cells: [Cell] = [
                .text(a.sortName ?? ""),
                .text(a.urls.first ?? composedURL(a) ?? ""),
                .text(a.account ?? ""),
                .secret(secrets.password),
                .secret(secrets.notes),
                .secret(secrets.field(named: TOTP.fieldName)),
                .text(a.tags.joined(separator: ",")),
                .text(a.kind.rawValue),
                .text(a.service ?? ""),
                .text(a.server ?? ""),
                .text(a.protocol ?? ""),
                .text(a.port.map { String($0) } ?? ""),
                .text(a.path ?? ""),
                .text(a.comment ?? ""),
                .text(a.isFavorite ? "true" : "false"),
                .text(TransferDate.format(a.created)),
                .text(TransferDate.format(a.modified)),
            ]
            write(cells, to: row)
            rows.append((ExportOrder.key(a), row))
        }
        rows.sort { ExportOrder.less($0.key, $0.bytes, $1.key, $1.bytes) }
        let out = WipingBuffer(capacity: rows.reduce(256) { $0 + $1.bytes.count })
        defer { out.removeAll() }
        write(columns.map { .text($0) }, to: out)
        for row in rows {
            out.append(row.bytes.bytes)
            row.bytes.removeAll()
        }
        return try out.secureBytes()
    }

    private enum Cell {
        case text(String)
        case secret(SecureBytes?)
    }

    private static func write(_ cells: [Cell], to out: WipingBuffer) {
        for (index, cell) in cells.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            switch cell {
            case .text(let text):
                var copy = text
                copy.withUTF8 { quoted(UnsafeRawBufferPointer($0), out) }
            case .secret(let value):
                if let value { value.withUnsafeBytes { quoted($0, out) } } else { out.append("\"\"") }
            }
        }
        out.append("\r\n")
    }

    private static func quoted(_ bytes: UnsafeRawBufferPointer, _ out: WipingBuffer) {
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            if byte == UInt8(ascii: "\"") { out.append(byte) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `scheme://server:port/path` for an internet password without stored URLs.
    private static func composedURL(_ a: ItemAttributes) -> String? {
        guard a.kind == .internetPassword, let server = a.server else { return nil }
        var text = (a.protocol.map { $0 + "://" } ?? "") + server
        if let port = a.port { text += ":\(port)" }
        return text + (a.path ?? "")
    }
}
