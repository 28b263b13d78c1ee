import Foundation
import CofferCrypto

/// The parts of an age file the recipient-slot tests read (age-encryption.org/v1): its
/// stanzas (type, arguments, body) and the header MAC line, from a CCTV vector (after its
/// `name: value` lines and a blank line) or from what the `age` tool wrote. The header's
/// MAC is HMAC-SHA-256 under HKDF-SHA-256(file key, salt empty, info "header") of the
/// header up to and including `---`: checking it proves a file key is the one age wrapped.
package struct AgeFile {
    package struct Stanza {
        package let type: String
        package let arguments: [String]
        package let body: [UInt8]
    }

    package var fields: [String: String] = [:]
    package var stanzas: [Stanza] = []
    package var macInput: [UInt8] = []
    package var mac: [UInt8] = []

    /// Reads a CCTV vector (`vector: true`) or a bare age file.
    package init(_ data: Data, vector: Bool) throws {
        var bytes = [UInt8](data)
        if vector {
            guard let blank = bytes.indices.first(where: { $0 + 1 < bytes.count && bytes[$0] == 0x0A && bytes[$0 + 1] == 0x0A }) else {
                throw CofferError.malformed("no blank line")
            }
            for line in String(decoding: bytes[0..<blank], as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1].dropFirst()) }
            }
            bytes = Array(bytes[(blank + 2)...])
        }
        var offset = 0
        func line() -> String? {
            guard offset < bytes.count, let end = bytes[offset...].firstIndex(of: 0x0A) else { return nil }
            defer { offset = end + 1 }
            return String(decoding: bytes[offset..<end], as: UTF8.self)
        }
        guard line() == "age-encryption.org/v1" else { throw CofferError.malformed("not an age file") }
        var current: (String, [String])?
        var body = ""
        while let text = line() {
            if text.hasPrefix("-> ") || text.hasPrefix("---") {
                if let (type, args) = current { stanzas.append(Stanza(type: type, arguments: args, body: try Self.base64(body))) }
                current = nil
                body = ""
                if text.hasPrefix("---") {
                    macInput = Array(bytes[0..<(offset - text.utf8.count - 1)]) + Array("---".utf8)
                    mac = try Self.base64(String(text.dropFirst(4)))
                    return
                }
                let words = text.dropFirst(3).split(separator: " ").map(String.init)
                current = (words.first ?? "", Array(words.dropFirst()))
            } else {
                body += text
            }
        }
        throw CofferError.malformed("no --- line")
    }

    /// age's base64: the standard alphabet without padding.
    package static func base64(_ text: String) throws -> [UInt8] {
        let padded = text + String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let decoded = try Base64.decode(try SecureBytes(copying: padded)) else { throw CofferError.malformed("base64") }
        return decoded.withUnsafeBytes { Array($0) }
    }

    /// True when `fileKey` gives this header's MAC.
    package func macMatches(fileKey: SecureBytes) throws -> Bool {
        let key = try SHA256.hkdf(secret: fileKey, salt: [], info: Array("header".utf8), length: 32)
        let computed = try key.withUnsafeBytes { k in try macInput.withBytes { m in try SHA256.hmac(key: k, message: [m]) } }
        return computed.withUnsafeBytes { Array($0) } == mac
    }
}
