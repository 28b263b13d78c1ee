/// Bech32 (BIP-173): the text form of age's keys, `age1…` recipients and
/// `AGE-SECRET-KEY-1…` identities. A human-readable part, the separator `1`, then 5-bit
/// groups in the alphabet `qpzry9x8gf2tvdw0s3jn54khce6mua7l` ending in a 6-group checksum.
///
/// Decoding checks the whole string (length at most 90, one case throughout, characters
/// 33–126 in the human-readable part, the alphabet, the checksum) and then regroups the
/// 5-bit data into bytes with no padding beyond 4 zero bits (BIP-173's `convertbits`).
/// A secret (an age identity) is decoded from guarded memory into guarded memory; its
/// 5-bit groups are wiped.
///
/// ```swift
/// let text = Bech32.encode(humanReadablePart: "age", data: publicKey)   // "age1…"
/// let (part, bytes) = try Bech32.decode(text)                            // ("age", publicKey)
/// ```
package enum Bech32 {
    static let alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    /// BIP-173's bound on a whole string.
    package static let maximumLength = 90
    private static let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]

    private static func polymod(_ values: some Sequence<UInt8>, start: UInt32 = 1) -> UInt32 {
        var check = start
        for value in values {
            let top = check >> 25
            check = (check & 0x1ff_ffff) << 5 ^ UInt32(value)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { check ^= generator[i] }
        }
        return check
    }

    private static func expanded(_ part: [UInt8]) -> [UInt8] { part.map { $0 >> 5 } + [0] + part.map { $0 & 31 } }

    /// The string for `data` (public bytes) under a lower-case `humanReadablePart`.
    package static func encode(humanReadablePart: String, data: [UInt8]) -> String {
        let part = Array(humanReadablePart.lowercased().utf8)
        let groups = regroup(data, from: 8, to: 5, pad: true) ?? []
        let check = polymod(expanded(part) + groups + [0, 0, 0, 0, 0, 0]) ^ 1
        let checksum = (0..<6).map { UInt8((check >> UInt32(5 * (5 - $0))) & 31) }
        return String(decoding: part + [UInt8(ascii: "1")] + (groups + checksum).map { alphabet[Int($0)] }, as: UTF8.self)
    }

    /// The human-readable part (lower case) and the 5-bit groups of a string whose checksum
    /// holds, or ``CofferError/invalidKey(_:)`` naming what is wrong. `groups` receives the
    /// data's groups (not the checksum); the caller wipes it when it is secret.
    package static func decodeGroups(_ text: UnsafeRawBufferPointer, into groups: inout [UInt8]) throws(CofferError) -> String {
        guard text.count <= maximumLength else { throw .invalidKey("a Bech32 string is at most \(maximumLength) characters") }
        var lower = false, upper = false
        for c in text {
            guard c >= 33, c <= 126 else { throw .invalidKey("a Bech32 string has a character outside ASCII 33–126") }
            if c >= 0x61, c <= 0x7A { lower = true }
            if c >= 0x41, c <= 0x5A { upper = true }
        }
        guard !(lower && upper) else { throw .invalidKey("a Bech32 string mixes upper and lower case") }
        guard let separator = text.lastIndex(of: UInt8(ascii: "1")), separator >= 1 else {
            throw .invalidKey("a Bech32 string has no human-readable part before its last 1")
        }
        guard text.count - separator - 1 >= 6 else { throw .invalidKey("a Bech32 string's checksum is cut") }
        let lowered = { (c: UInt8) in c >= 0x41 && c <= 0x5A ? c + 0x20 : c }
        let part = text[0..<separator].map(lowered)
        groups.removeAll(keepingCapacity: true)
        groups.reserveCapacity(text.count - separator - 1)
        for c in text[(separator + 1)...] {
            guard let value = alphabet.firstIndex(of: lowered(c)) else { throw .invalidKey("a Bech32 string has a character outside its alphabet") }
            groups.append(UInt8(value))
        }
        guard polymod(groups, start: polymod(expanded(part))) == 1 else { throw .invalidKey("a Bech32 checksum does not match") }
        groups.removeLast(6)
        return String(decoding: part, as: UTF8.self)
    }

    /// Decodes public bytes (a recipient).
    package static func decode(_ text: String) throws(CofferError) -> (humanReadablePart: String, data: [UInt8]) {
        var groups: [UInt8] = []
        let part = try Array(text.utf8).withBytes { (raw) throws(CofferError) in try decodeGroups(raw, into: &groups) }
        guard let data = regroup(groups, from: 5, to: 8, pad: false) else { throw .invalidKey("a Bech32 string's data is not whole bytes") }
        return (part, data)
    }

    /// Decodes a secret held in guarded memory into guarded memory.
    package static func decodeSecret(_ text: UnsafeRawBufferPointer) throws(CofferError) -> (humanReadablePart: String, data: SecureBytes) {
        var groups: [UInt8] = []
        defer { SecureBytes.wipe(&groups) }
        let part = try decodeGroups(text, into: &groups)
        guard var bytes = regroup(groups, from: 5, to: 8, pad: false) else { throw .invalidKey("a Bech32 string's data is not whole bytes") }
        defer { SecureBytes.wipe(&bytes) }
        return (part, try SecureBytes(copying: bytes))
    }

    /// BIP-173's `convertbits`: `from`-bit groups as `to`-bit groups; without `pad`, nil when
    /// more than `from - 1` bits are left over or they are not zero.
    package static func regroup(_ values: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var accumulator: UInt32 = 0, bits = 0
        var out: [UInt8] = []
        out.reserveCapacity(values.count * from / to + 1)
        let mask = UInt32(1 << to) - 1
        for value in values {
            guard UInt32(value) >> UInt32(from) == 0 else { return nil }
            accumulator = accumulator << UInt32(from) | UInt32(value)
            bits += from
            while bits >= to {
                bits -= to
                out.append(UInt8((accumulator >> UInt32(bits)) & mask))
            }
        }
        if pad {
            if bits > 0 { out.append(UInt8((accumulator << UInt32(to - bits)) & mask)) }
        } else if bits >= from || (accumulator << UInt32(to - bits)) & mask != 0 {
            return nil
        }
        accumulator = 0
        return out
    }
}
