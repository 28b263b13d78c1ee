import Foundation
import Testing
import CofferCrypto
@testable import CofferFormat
import CofferTestSupport

/// SPEC.md §17.2 "Tag 0": the unassigned tag 0 is an unknown field, in register 0x7F (overview)
/// or 0xFF (secret part), whose value is then the field of tag 0 followed by the other
/// unknown fields; a merge or an edit that writes the value puts tag 0 back first.
@Suite("Format: tag 0 in the merge registers")
struct FormatTagZeroRegisterTests {
    typealias V = VectorCatalog

    /// Bits of the stamp mask (§17.3): kind 0, service 2, unknown attributes 13, password 14,
    /// unknown secrets 18. The merge fields as a decrypted list holds them (format 2's
    /// encoding): the default stamp is index 0 counted back 0, then the mask as a varint.
    static func overview(mask: UInt32) -> [UInt8] {
        var varint: [UInt8] = []
        var rest = mask
        while rest >= 0x80 { varint.append(UInt8(rest & 0x7F) | 0x80); rest >>= 7 }
        varint.append(UInt8(rest))
        return V.field(0, [7]) + V.field(1, [1]) + V.field(3, Array("example.com".utf8))
            + V.field(13, V.i64(V.t0)) + V.field(14, V.i64(V.t0)) + V.field(16, [9])
            + V.field(0x8010, V.u64(1) + V.u64(5)) + V.field(0x8011, [0, 0] + varint)
    }

    static let secrets = V.field(0, [1]) + V.field(1, Array("pw".utf8)) + V.field(6, [2])

    @Test("Tag 0 belongs to the unknown registers; the lists are written back byte for byte")
    func tagZeroRoundTrip() throws {
        let list = Self.overview(mask: 1 << 0 | 1 << 2 | 1 << 13 | 1 << 14 | 1 << 18)
        let clock = try #require(try ItemClockCodec.decode(overview: list))
        let parts = try ItemParts(overview: list, secrets: try SecureBytes(copying: Self.secrets))
        #expect(parts.overview[.unknownOverview] == V.field(0, [7]) + V.field(16, [9]))
        #expect(try parts.secrets[.unknownSecret]?.copy().testBytes == V.field(0, [1]) + V.field(6, [2]))
        try parts.checkConsistency(with: clock)
        let resolved = clock.resolved(present: parts.valuedRegisters)
        #expect(try parts.overviewList(clock: resolved) == list)
        #expect(try parts.secretList().secureBytes().testBytes == Self.secrets)
    }

    @Test("A field of tag 0 without a stamp for its register is malformed (a register with a value has a stamp)")
    func tagZeroNeedsStamp() throws {
        // The overview's tag 0 without bit 13; then the secret part's tag 0 without bit 18.
        for mask: UInt32 in [1 << 0 | 1 << 2 | 1 << 14 | 1 << 18, 1 << 0 | 1 << 2 | 1 << 13 | 1 << 14] {
            let list = Self.overview(mask: mask)
            let clock = try ItemClockCodec.decode(overview: list)
            let parts = try ItemParts(overview: list, secrets: try SecureBytes(copying: Self.secrets))
            #expect(throws: FormatError.self) { try parts.checkConsistency(with: clock) }
        }
    }
}
