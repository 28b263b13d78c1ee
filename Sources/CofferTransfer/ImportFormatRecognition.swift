import CofferCrypto
import CofferVault

extension ImportFormat {
    /// How many bytes from the start of a file are looked at to tell its format: enough
    /// for an XML prologue, a JSON export's first keys and a CSV header row.
    static let recognitionWindow = 4096

    /// The format of an export file, told from its first bytes, or nil when they fit none:
    /// `<KeePassFile` is KeePassXC's XML; a JSON object whose `format` is `coffer-export`
    /// is Coffer's own JSON, one with Bitwarden's `encrypted`, `folders` or `items` keys is
    /// Bitwarden's; otherwise a header row with KeePassXC's columns (Group, Title, Username,
    /// Password, URL, Notes) is its CSV, and one naming any column a browser CSV has (name,
    /// url, username, password, note…) is a browser CSV. Only the first
    /// ``recognitionWindow`` bytes are read; the importer checks the rest.
    ///
    /// ```swift
    /// let data = try SecureBytes(copying: Array("url,username,password\n".utf8))
    /// ImportFormat.recognising(data)   // .browserCSV
    /// ```
    public static func recognising(_ data: SecureBytes) -> ImportFormat? {
        data.withUnsafeBytes { recognising($0) }
    }

    static func recognising(_ bytes: UnsafeRawBufferPointer) -> ImportFormat? {
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0   // a UTF-8 byte order mark
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { return nil }
        let head = UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + recognitionWindow)])
        func holds(_ text: String, within limit: Int = recognitionWindow) -> Bool {
            let wanted = Array(text.utf8), end = min(head.count, limit)
            guard end >= wanted.count else { return false }
            return (0...(end - wanted.count)).contains { offset in wanted.indices.allSatisfy { head[offset + $0] == wanted[$0] } }
        }
        switch head[0] {
        case UInt8(ascii: "<"):
            return holds("<KeePassFile") ? .keepassxcXML : nil
        case UInt8(ascii: "{"):
            // Coffer's export begins `{"format": "coffer-export"`; an item's text further on cannot pass for it.
            if holds("\"coffer-export\"", within: 64) { return .cofferJSON }
            return holds("\"encrypted\"") || holds("\"folders\"") || holds("\"items\"") ? .bitwardenJSON : nil
        default:
            guard let newline = head.firstIndex(of: 0x0A),
                  let reader = try? CSVReader(UnsafeRawBufferPointer(rebasing: head[..<newline]), formatName: "CSV"),
                  let header = reader.records.first else { return nil }
            let names = header.fields.compactMap { try? reader.string($0).trimmingCharacters(in: .whitespaces) }
            if KeePassXCCSVImporter.required.allSatisfy(names.map(CSVColumnMapping.normalised).contains) { return .keepassxcCSV }
            let known: [CSVColumnMapping.Target] = [.password, .url, .name, .username, .notes]
            return names.contains { known.contains(BrowserCSVImporter.target($0)) } ? .browserCSV : nil
        }
    }
}
