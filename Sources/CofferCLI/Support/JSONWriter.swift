import Coffer
import Foundation

/// A JSON value for `--json` output. Secrets are written byte for byte from guarded
/// memory into a buffer that is wiped after it is written, never through a `String`.
indirect enum JSONValue {
    case string(String)
    case secret(SecureBytes)
    /// An item's attributes, in the library's one item shape (``ItemJSON``).
    case item(Item)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    /// Keys in the order given: the documented shapes are stable.
    case object([(String, JSONValue)])

    static func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
    static func optional(_ number: UInt16?) -> JSONValue { number.map { .int(Int64($0)) } ?? .null }
    static func optional(_ secret: SecureBytes?) -> JSONValue { secret.map { .secret($0) } ?? .null }
    static func strings(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }

    /// Writes the value and a newline to standard output.
    func print() throws {
        let out = WipingBuffer(capacity: 1024)
        defer { out.removeAll() }
        try write(to: out)
        out.append(10)
        try Output.bytes(out.bytes)
    }

    func write(to out: WipingBuffer) throws {
        switch self {
        case .string(let text):
            var copy = text
            try copy.withUTF8 { try Self.writeString(UnsafeRawBufferPointer($0), to: out) }
        case .secret(let secret):
            try secret.withUnsafeBytes { try Self.writeString($0, to: out) }
        case .item(let item):
            ItemJSON.writeAttributes(of: item, to: out)
        case .int(let number):
            Self.writeASCII(String(number), to: out)
        case .double(let number):
            Self.writeASCII(number.isFinite ? "\(number)" : "null", to: out)
        case .bool(let flag):
            Self.writeASCII(flag ? "true" : "false", to: out)
        case .null:
            Self.writeASCII("null", to: out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                try value.write(to: out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                try JSONValue.string(member.0).write(to: out)
                out.append(UInt8(ascii: ":"))
                try member.1.write(to: out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeASCII(_ text: String, to out: WipingBuffer) {
        for byte in text.utf8 { out.append(byte) }
    }

    /// A JSON string from UTF-8 bytes; refuses invalid UTF-8 rather than altering a secret.
    private static func writeString(_ bytes: UnsafeRawBufferPointer, to out: WipingBuffer) throws {
        guard out.appendJSONString(bytes) else {
            throw CLIFailure(.usage, "a value is not valid UTF-8 and cannot be written as JSON; run without --json")
        }
    }
}

extension JSONValue {
    /// A number rounded to two decimals, for entropy and guess figures.
    static func rounded(_ number: Double) -> JSONValue {
        .double((number * 100).rounded() / 100)
    }
}

/// Writes generated secrets to standard output as they are made: one a line, or with
/// `--json` as the last member (an array) of an object. Any number can be written in
/// bounded memory: bytes collect in a buffer that is written out and wiped every 64 KiB.
final class SecretStream {
    private let out = WipingBuffer(capacity: flushSize + 4096)
    private let json: Bool
    private var first = true
    private static let flushSize = 1 << 16

    /// Starts the stream; with `json`, writes `{` and `head` followed by `"arrayKey": [`.
    init(json: Bool, head: [(String, JSONValue)], arrayKey: String) throws {
        self.json = json
        guard json else { return }
        out.append(UInt8(ascii: "{"))
        for (key, value) in head {
            try JSONValue.string(key).write(to: out)
            out.append(UInt8(ascii: ":"))
            try value.write(to: out)
            out.append(UInt8(ascii: ","))
        }
        try JSONValue.string(arrayKey).write(to: out)
        out.append(":[")
    }

    deinit { out.removeAll() }

    /// Adds one secret (the caller wipes its own copy).
    func append(_ secret: UnsafeRawBufferPointer) throws {
        if json {
            if !first { out.append(UInt8(ascii: ",")) }
            guard out.appendJSONString(secret) else {
                throw CLIFailure(.usage, "a value is not valid UTF-8 and cannot be written as JSON; run without --json")
            }
        } else {
            out.append(secret)
            out.append(10)
        }
        first = false
        if out.count >= Self.flushSize { try flush() }
    }

    func append(_ secret: SecureBytes) throws {
        try secret.withUnsafeBytes { try append($0) }
    }

    /// Closes the JSON object, if any, and writes what is left.
    func finish() throws {
        if json { out.append("]}\n") }
        try flush()
    }

    private func flush() throws {
        defer { out.removeAll() }
        try Output.bytes(out.bytes)
    }
}
