import Foundation
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
import CofferTestSupport

// The format-2 vectors that pin one reader rule each (SPEC.md §15.3): the header, the
// manifest and its rows, the records, and the lists inside them.

extension VectorCatalogV2 {
    static func vector(_ name: String, _ expect: VectorExpectation, _ bytes: [UInt8], _ comment: String,
                       password: String? = VectorCatalog.password, keyFile: [UInt8]? = nil) -> VectorFile {
        VectorFile(name: "v2-" + name + ".vec", expect: expect, password: password, keyFile: keyFile, rawKey: nil,
                   generation: nil, comment: comment, entries: nil, bytes: bytes)
    }

    /// Offsets in the header body of a vault whose first slot is a new-style password slot.
    enum HeaderOffset {
        static let epochID = 16, epochStart = 32, slotCount = 48
        static let slot0Type = 49, slot0PublicLength = 50, slot0Public = 52
        static let kdfID = 52, memory = 53, iterations = 57, lanes = 61
        static let slot0StanzaLength = 52 + 61, slot0Stanza = 52 + 61 + 2
        static let extensionCount = 52 + 61 + 2 + 80
    }

    static func headerEdited(_ bytes: [UInt8], keys: EpochKeys? = nil, _ edit: (inout [UInt8]) throws -> Void) throws -> [UInt8] {
        var raw = try RawVaultFileV2(splitting: bytes)
        try edit(&raw.headerBody)
        raw.checksum = .compute
        if keys != nil { raw.headerMAC = .compute; raw.manifestMAC = .compute }
        return try raw.assemble(keys: keys)
    }

    static func manifestEdited(_ bytes: [UInt8], keys: EpochKeys?, _ edit: (inout RawVaultFileV2) throws -> Void) throws -> [UInt8] {
        var raw = try RawVaultFileV2(splitting: bytes)
        try edit(&raw)
        if keys != nil { raw.manifestMAC = .compute }
        return try raw.assemble(keys: keys)
    }

    static func putU32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) { VectorCatalog.putU32(&bytes, at: offset, value) }
    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
    static func u32(_ v: UInt32) -> [UInt8] { VectorCatalog.u32(v) }

    /// An extension: type, `u32` length, value.
    static func ext(_ type: UInt16, _ value: [UInt8]) -> [UInt8] { u16(type) + u32(UInt32(value.count)) + value }

    /// The header body with its extensions replaced.
    static func withExtensions(_ header: [UInt8], _ extensions: [[UInt8]], count: Int? = nil) -> [UInt8] {
        Array(header[0..<HeaderOffset.extensionCount]) + u16(UInt16(count ?? extensions.count)) + extensions.flatMap { $0 }
    }

    // MARK: Header (SPEC.md §3, §4, §4.9, §9, §17.4)

    static func headerVectors(items: FormatVaultBuilderV2, itemsBytes: [UInt8]) throws -> [VectorFile] {
        var out: [VectorFile] = []
        func add(_ name: String, _ expect: VectorExpectation, _ bytes: [UInt8], _ comment: String) {
            out.append(vector(name, expect, bytes, comment))
        }
        let H = HeaderOffset.self
        let raw = try RawVaultFileV2(splitting: itemsBytes)
        let header = raw.headerBody
        let headerEnd = FormatV1.preambleLength + header.count

        add("header-checksum-flipped", .headerFailure, VectorCatalog.flip(itemsBytes, at: headerEnd + 3, 0x01),
            "v2-success-items with a byte of the header checksum flipped")
        add("header-mac-flipped", .headerFailure, VectorCatalog.flip(itemsBytes, at: headerEnd + 40, 0x01),
            "v2-success-items with a byte of the header MAC flipped")
        add("header-mac-extension-added", .headerFailure,
            try headerEdited(itemsBytes) { h in h = withExtensions(h, [ext(0x0042, text("smuggled"))]) },
            "v2-success-items with a non-critical extension added and the checksum recomputed: the header MAC fails after unlocking")
        add("header-mac-epoch-start-changed", .headerFailure,
            try headerEdited(itemsBytes) { h in h[H.epochStart + 8] ^= 0x01 },
            "v2-success-items with its epoch start time changed and the checksum recomputed: the header MAC covers it")
        add("wrong-password-epoch-id-changed", .wrongPassword,
            try headerEdited(itemsBytes) { h in h[H.epochID] ^= 0x01 },
            "v2-success-items with its epoch id changed and the checksum recomputed: the stanza binds the epoch id, so the slot does not open")
        add("wrong-password-zero-shared-secret", .wrongPassword, try zeroSharedSecretVector(),
            "a password slot whose stanza's ephemeral key is 0 (a point of small order), the epoch key wrapped under an all-zero shared secret: the slot does not open")
        add("header-epoch-id-commitment", .headerFailure, try commitmentVector(items),
            "a password slot whose stanza, made by a key holder, wraps a key that is not the one the header's epoch id commits to")
        add("unsupported-version-3", .unsupportedVersion, VectorCatalog.patched(itemsBytes, at: 8, [3, 0]),
            "v2-success-items with format version 3")
        add("malformed-header-too-long", .malformed,
            VectorCatalog.patched(itemsBytes, at: 10, u32(UInt32(FormatV2.maxHeaderLength + 1))),
            "a header length of 1048577 (the bound is 1 MiB): refused before anything is read or allocated")
        add("malformed-epoch-start-zero", .malformed,
            try headerEdited(itemsBytes) { h in h.replaceSubrange(H.epochStart..<(H.epochStart + 8), with: u64(0)) },
            "v2-success-items with epoch start replica 0, checksum recomputed")
        add("malformed-no-slots", .malformed,
            try headerEdited(itemsBytes) { h in h = Array(h[0..<H.slotCount]) + [0, 0, 0] },
            "a header with 0 key slots, checksum recomputed")
        add("malformed-too-many-slots", .malformed, try headerEdited(itemsBytes) { h in h[H.slotCount] = 33 },
            "v2-success-items with a slot count of 33, checksum recomputed")
        let slot0 = Array(header[H.slot0Type..<H.extensionCount])
        let tail = Array(header[H.extensionCount...])
        func slots(_ list: [[UInt8]]) -> [UInt8] { Array(header[0..<H.slotCount]) + [UInt8(list.count)] + list.flatMap { $0 } + tail }
        add("malformed-slot-public-too-long", .malformed,
            try headerEdited(itemsBytes) { h in h = slots([[0x7F] + u16(4097) + [UInt8](repeating: 1, count: 4097) + u16(0), slot0]) },
            "an unknown slot whose public part is 4097 bytes (the bound is 4096), checksum recomputed")
        add("malformed-slot-stanza-too-long", .malformed,
            try headerEdited(itemsBytes) { h in h = slots([[0x7F] + u16(1) + [1] + u16(4097) + [UInt8](repeating: 1, count: 4097), slot0]) },
            "an unknown slot whose stanza is 4097 bytes (the bound is 4096), checksum recomputed")
        add("malformed-slot-length", .malformed,
            try headerEdited(itemsBytes) { h in
                h.replaceSubrange(H.slot0PublicLength..<(H.slot0PublicLength + 2), with: u16(60))
                h.remove(at: H.slot0Public + 60)
            }, "a password slot (type 0x11) whose public part is 60 bytes instead of 61, checksum recomputed")
        add("malformed-slot-stanza-length", .malformed,
            try headerEdited(itemsBytes) { h in
                h.replaceSubrange(H.slot0StanzaLength..<(H.slot0StanzaLength + 2), with: u16(79))
                h.remove(at: H.slot0Stanza + 79)
            }, "a password slot whose stanza is 79 bytes instead of 80, checksum recomputed")
        let legacy = try KeySlotRecord.make(for: try passwordKey(), vaultKey: items.keys.epochKey, vaultID: items.vaultID, kdf: kdf, entropy: items.entropy)
        add("malformed-legacy-slot-stanza", .malformed,
            try headerEdited(itemsBytes) { h in h = slots([[1] + u16(UInt16(legacy.body.count)) + legacy.body + u16(1) + [0], slot0]) },
            "a legacy password slot (type 1) with a one-byte stanza (legacy slots have none), checksum recomputed")
        // A legacy slot's parameters are checked as well (§4.1), though no format-2 reader tries it here.
        var legacyBody = legacy.body
        legacyBody.replaceSubrange(1..<5, with: u32(7))
        add("kdf-memory-below-8-kib-legacy-slot", .kdfOutOfBounds,
            try headerEdited(itemsBytes) { h in h = slots([slot0, [1] + u16(UInt16(legacyBody.count)) + legacyBody + u16(0)]) },
            "v2-success-items with a legacy password slot (type 1) of memory 7 KiB after the slot that opens, checksum recomputed: refused before any KDF runs")
        add("malformed-unknown-kdf", .malformed, try headerEdited(itemsBytes) { h in h[H.kdfID] = 2 },
            "a password slot naming KDF 2, checksum recomputed")
        add("truncated-slot-past-header", .truncated,
            try headerEdited(itemsBytes) { h in h.replaceSubrange(H.slot0PublicLength..<(H.slot0PublicLength + 2), with: u16(400)) },
            "a password slot whose public part (400 bytes) runs past the end of the header body, checksum recomputed")
        let kdfCases: [(String, Int, UInt32, String)] = [
            ("kdf-memory-above-4-gib", H.memory, 4 * 1024 * 1024 + 1, "memory 4194305 KiB"),
            ("kdf-memory-below-8-kib", H.memory, 7, "memory 7 KiB"),
            ("kdf-iterations-zero", H.iterations, 0, "iterations 0"),
            ("kdf-iterations-above-64", H.iterations, 65, "iterations 65"),
            ("kdf-lanes-zero", H.lanes, 0, "lanes 0"),
            ("kdf-lanes-above-64", H.lanes, 65, "lanes 65"),
            ("kdf-memory-below-8-kib-per-lane", H.lanes, 2, "memory 8 KiB with 2 lanes"),
        ]
        for (name, offset, value, what) in kdfCases {
            add(name, .kdfOutOfBounds, try headerEdited(itemsBytes) { h in putU32(&h, at: offset, value) },
                "v2-success-items with \(what) in its password slot, checksum recomputed: refused before any KDF runs")
        }
        // Every slot's parameters are checked when the header is parsed (§4.1), not only the slot tried:
        // a second password slot, never tried (the first opens), with memory 7 KiB.
        var untried = slot0
        untried.replaceSubrange((3 + 1)..<(3 + 5), with: u32(7))
        add("kdf-memory-below-8-kib-other-slot", .kdfOutOfBounds, try headerEdited(itemsBytes) { h in h = slots([slot0, untried]) },
            "v2-success-items with a second password slot of memory 7 KiB after the one that opens, checksum recomputed: refused before any KDF runs")
        add("malformed-epoch-start-time-zero", .malformed,
            try headerEdited(itemsBytes) { h in h.replaceSubrange((H.epochStart + 8)..<(H.epochStart + 16), with: u64(0)) },
            "v2-success-items with epoch start time 0, checksum recomputed")
        add("truncated-extension-past-header", .truncated,
            try headerEdited(itemsBytes) { h in h = withExtensions(h, [u16(0x0042) + u32(1000) + [1, 2, 3]]) },
            "a non-critical extension whose length (1000) runs past the end of the header body, checksum recomputed")
        add("malformed-header-trailing-byte", .malformed, try headerEdited(itemsBytes) { h in h.append(0) },
            "one byte after the last extension inside the header body, checksum recomputed")
        add("malformed-critical-extension", .malformed, try headerEdited(itemsBytes) { h in h = withExtensions(h, [ext(0x8001, [0xAB])]) },
            "an extension of type 0x8001 (critical, unknown), checksum recomputed")
        add("malformed-too-many-extensions", .malformed, try headerEdited(itemsBytes) { h in h = withExtensions(h, [], count: 65) },
            "an extension count of 65 (the bound is 64), checksum recomputed")
        add("malformed-extension-too-long", .malformed,
            try headerEdited(itemsBytes) { h in h = withExtensions(h, [ext(0x0042, [UInt8](repeating: 0x55, count: FormatV2.maxExtensionLength + 1))]) },
            "a non-critical extension of 262145 bytes (the bound is 262144), checksum recomputed")
        let clock = u64(1) + u64(1)
        let removed = [UInt8](repeating: 1, count: 16) + u64(2)
        let extensionCases: [(String, [[UInt8]], String)] = [
            ("malformed-removed-slots-repeated-extension", [ext(0x8011, removed), ext(0x8011, removed)], "the removed-slots extension 0x8011 twice"),
            ("malformed-vault-clock-repeated-extension", [ext(0x8010, clock), ext(0x8010, clock)], "the vault clock extension 0x8010 twice"),
            ("malformed-vault-clock-empty", [ext(0x8010, [])], "a vault clock of 0 bytes (n is at least 1)"),
            ("malformed-vault-clock-zero-time", [ext(0x8010, u64(1) + u64(0))], "a vault clock whose one time is 0"),
            ("malformed-vault-clock-zero-replica", [ext(0x8010, u64(0) + u64(1))], "a vault clock naming replica 0"),
            ("malformed-vault-clock-unsorted", [ext(0x8010, u64(2) + u64(1) + u64(1) + u64(1))], "a vault clock with replica 2 before replica 1"),
            ("malformed-vault-clock-length", [ext(0x8010, clock + [0])], "a vault clock of 17 bytes (not a multiple of 16)"),
            ("malformed-removed-slots-empty", [ext(0x8011, [])], "a removed-slots extension of 0 bytes"),
            ("malformed-removed-slots-length", [ext(0x8011, removed + [0])], "a removed-slots extension of 25 bytes"),
            ("malformed-removed-slots-duplicate", [ext(0x8011, removed + removed)], "the same removed slot twice (entries strictly ascending)"),
            ("malformed-removed-slots-order", [ext(0x8011, [UInt8](repeating: 1, count: 16) + u64(2) + [UInt8](repeating: 2, count: 16) + u64(1))],
             "removed slots not in ascending order of time"),
        ]
        for (name, extensions, what) in extensionCases {
            add(name, .malformed, try headerEdited(itemsBytes) { h in h = withExtensions(h, extensions) }, "v2-success-items with \(what), checksum recomputed")
        }

        // The key history (SPEC.md §4.9): parsed without a key, opened after the header MAC.
        let (_, rotated, _) = try rotationVaults()
        let rotatedRaw = try RawVaultFileV2(splitting: rotated.bytes)
        let rotatedHeader = try VaultHeaderV2.parse(bytes: rotatedRaw.headerBody)
        let history = try requireValue(rotatedHeader.keyHistory?.value, "rotated vault without a key history")
        let entry = Array(history[1..<33])
        func historyEdited(_ value: [UInt8]) throws -> [UInt8] {
            var h = rotatedHeader
            h.extensions = h.extensions.map { $0.type == KeyHistory.extensionType ? HeaderExtension(type: $0.type, value: value) : $0 }
            var r = rotatedRaw
            r.headerBody = h.encodeBody()
            r.checksum = .compute
            return try r.assemble(keys: nil)
        }
        func addHistory(_ name: String, _ value: [UInt8], _ what: String) throws {
            out.append(vector(name, .malformed, try historyEdited(value), "v2-success-rotated with \(what), checksum recomputed", password: "new password"))
        }
        let sealedPart = Array(history[33...])
        try addHistory("malformed-key-history-count-zero", [0] + Array(history[1...]), "a key history count of 0")
        try addHistory("malformed-key-history-count-65", [65] + Array(history[1...]), "a key history count of 65 (the bound is 64)")
        try addHistory("malformed-key-history-length", history + [0], "a key history one byte longer than its count gives")
        try addHistory("malformed-key-history-current-epoch",
                       [1] + rotatedHeader.epochID + Array(entry[16...]) + sealedPart, "a key history listing the current epoch")
        try addHistory("malformed-key-history-zero-stamp", [1] + Array(entry[0..<16]) + u64(0) + u64(5) + sealedPart,
                       "a key history whose end stamp names replica 0")
        try addHistory("malformed-key-history-zero-time", [1] + Array(entry[0..<16]) + u64(5) + u64(0) + sealedPart,
                       "a key history whose end stamp has time 0")
        var repeatedHistory = rotatedHeader
        repeatedHistory.extensions += [HeaderExtension(type: KeyHistory.extensionType, value: history)]
        var repeatedRaw = rotatedRaw
        repeatedRaw.headerBody = repeatedHistory.encodeBody()
        repeatedRaw.checksum = .compute
        out.append(vector("malformed-key-history-repeated-extension", .malformed, try repeatedRaw.assemble(keys: nil),
                          "v2-success-rotated with its key history extension 0x8012 twice, checksum recomputed", password: "new password"))
        let (_, _, twice) = try rotationVaults()
        let twiceHeader = try VaultHeaderV2.parse(bytes: try RawVaultFileV2(splitting: twice.bytes).headerBody)
        let twiceHistory = try requireValue(twiceHeader.keyHistory?.value, "twice-rotated vault without a key history")
        let first = Array(twiceHistory[1..<33]), second = Array(twiceHistory[33..<65]), sealedTwice = Array(twiceHistory[65...])
        func twiceEdited(_ value: [UInt8]) throws -> [UInt8] {
            var h = twiceHeader
            h.extensions = h.extensions.map { $0.type == KeyHistory.extensionType ? HeaderExtension(type: $0.type, value: value) : $0 }
            var r = try RawVaultFileV2(splitting: twice.bytes)
            r.headerBody = h.encodeBody()
            r.checksum = .compute
            return try r.assemble(keys: nil)
        }
        out.append(vector("malformed-key-history-order", .malformed, try twiceEdited([2] + second + first + sealedTwice),
                          "v2-success-rotated-twice with its two epochs oldest first, checksum recomputed", password: "new password"))
        // Two epochs ended by one stamp: in ascending order of epoch id (§4.9); here descending.
        let (low, high) = first[0..<16].lexicographicallyPrecedes(second[0..<16]) ? (first, second) : (second, first)
        let sameEnd = Array(first[16...])
        out.append(vector("malformed-key-history-equal-stamps-order", .malformed,
                          try twiceEdited([2] + Array(high[0..<16]) + sameEnd + Array(low[0..<16]) + sameEnd + sealedTwice),
                          "v2-success-rotated-twice with both epochs given one end stamp and listed in descending order of epoch id, checksum recomputed",
                          password: "new password"))
        out.append(vector("malformed-key-history-repeated", .malformed, try twiceEdited([2] + first + first + sealedTwice),
                          "v2-success-rotated-twice listing its newer earlier epoch twice, checksum recomputed", password: "new password"))
        var flipped = history
        flipped[flipped.count - 1] ^= 0x01
        var flippedRaw = rotatedRaw
        var flippedHeader = rotatedHeader
        flippedHeader.extensions = flippedHeader.extensions.map { $0.type == KeyHistory.extensionType ? HeaderExtension(type: $0.type, value: flipped) : $0 }
        flippedRaw.headerBody = flippedHeader.encodeBody()
        flippedRaw.checksum = .compute
        flippedRaw.headerMAC = .compute
        flippedRaw.manifestMAC = .compute
        out.append(vector("header-key-history-sealed-flipped", .headerFailure, try flippedRaw.assemble(keys: rotated.builder.keys),
                          "v2-success-rotated with a byte of its sealed earlier keys flipped, checksum and MACs recomputed by a key holder: the key history's AEAD fails",
                          password: "new password"))
        out.append(vector("header-key-history-wrong-key", .headerFailure, try wrongHistoryKeyVector(rotated),
                          "v2-success-rotated whose key history, sealed correctly by a key holder, holds a key of another epoch than the one it lists",
                          password: "new password"))
        return out
    }

    /// A vault whose only slot opens to a key that is not the header's epoch key.
    static func commitmentVector(_ items: FormatVaultBuilderV2) throws -> [UInt8] {
        let b = try FormatVaultBuilderV2(entropy: entropy("commitment"), slots: [(try passwordKey(), kdf)], start: start)
        let (sa, ss) = try C.small()
        try b.put(try b.newID(), revision: 1, sa, ss)
        let other = try EpochKeys(epochKey: try b.entropy.secureBytes(32))
        let slot = b.header.slots[0]
        // The stanza of SPEC.md §4.7, bound to the header's epoch id, holding the other key.
        let e = try b.entropy.secureBytes(32)
        let ephemeral = try X25519.publicKey(e)
        let publicKey = Array(slot.publicPart[29..<61])
        let shared = try X25519.sharedSecret(e, peer: publicKey)
        let wrapKey = try KeySlotV2.wrapKey(vaultID: b.vaultID, epochID: b.keys.epochID, identity: slot.identity, ephemeral: ephemeral,
                                            publicKeys: [publicKey], shared: [shared])
        let wrapped = try XChaCha20Poly1305.seal(other.epochKey, key: wrapKey, nonce: KeySlotV2.zeroNonce,
                                                 associatedData: KeySlotV2.stanzaAD(vaultID: b.vaultID, epochID: b.keys.epochID, identity: slot.identity))
        b.header.slots[0] = try KeySlotV2(type: slot.type, publicPart: slot.publicPart, stanza: ephemeral + wrapped, index: 0)
        return try b.bytes()
    }

    /// A vault whose only stanza's ephemeral key is the point 0 (of small order), its epoch
    /// key wrapped under the wrap key of an all-zero shared secret (SPEC.md §4.7): a reader
    /// that took that result opens it; the slot does not open.
    static func zeroSharedSecretVector() throws -> [UInt8] {
        let b = try FormatVaultBuilderV2(entropy: entropy("zero shared"), slots: [(try passwordKey(), kdf)], start: start)
        let (sa, ss) = try C.small()
        try b.put(try b.newID(), revision: 1, sa, ss)
        let slot = b.header.slots[0]
        let ephemeral = [UInt8](repeating: 0, count: 32)
        let publicKey = Array(slot.publicPart[29..<61])
        let wrapKey = try KeySlotV2.wrapKey(vaultID: b.vaultID, epochID: b.keys.epochID, identity: slot.identity, ephemeral: ephemeral,
                                            publicKeys: [publicKey], shared: [try SecureBytes(copying: [UInt8](repeating: 0, count: 32))])
        let wrapped = try XChaCha20Poly1305.seal(b.keys.epochKey, key: wrapKey, nonce: KeySlotV2.zeroNonce,
                                                 associatedData: KeySlotV2.stanzaAD(vaultID: b.vaultID, epochID: b.keys.epochID, identity: slot.identity))
        b.header.slots[0] = try KeySlotV2(type: slot.type, publicPart: slot.publicPart, stanza: ephemeral + wrapped, index: 0)
        return try b.bytes()
    }

    /// v2-success-rotated with a key history whose one key is not of the epoch it lists.
    static func wrongHistoryKeyVector(_ rotated: Built) throws -> [UInt8] {
        var raw = try RawVaultFileV2(splitting: rotated.bytes)
        var header = try VaultHeaderV2.parse(bytes: raw.headerBody)
        let keys = rotated.builder.keys
        let listed = try requireValue(header.keyHistory?.epochs.first, "no earlier epoch")
        var list = ByteWriter()
        list.u8(1)
        list.bytes(listed.epochID)
        list.u64(listed.end.replica)
        list.u64(listed.end.time)
        let stranger = try SecureBytes(copying: [UInt8](repeating: 0x5A, count: 32))
        let nonce = try rotated.builder.entropy.bytes(24)
        let sealed = try XChaCha20Poly1305.seal(stranger, key: keys.keyHistoryKey, nonce: nonce,
                                                associatedData: FormatV2.keyHistoryADLabel + header.vaultID + header.epochID + list.bytes)
        header.extensions = header.extensions.map {
            $0.type == KeyHistory.extensionType ? HeaderExtension(type: $0.type, value: list.bytes + nonce + sealed) : $0
        }
        raw.headerBody = header.encodeBody()
        raw.checksum = .compute
        raw.headerMAC = .compute
        raw.manifestMAC = .compute
        return try raw.assemble(keys: keys)
    }

    // MARK: Manifest, rows and records (SPEC.md §2, §8, §9, §10 steps 7–9)

    static func manifestVectors(items: FormatVaultBuilderV2, itemsBytes: [UInt8]) throws -> [VectorFile] {
        var out: [VectorFile] = []
        func add(_ name: String, _ expect: VectorExpectation, _ bytes: [UInt8], _ comment: String) {
            out.append(vector(name, expect, bytes, comment))
        }
        let keys = items.keys
        let raw = try RawVaultFileV2(splitting: itemsBytes)
        let headerEnd = FormatV1.preambleLength + raw.headerBody.count + 64
        let manifestLength = raw.rows.reduce(12) { $0 + $1.bytes.count }
        let manifestEnd = headerEnd + 4 + manifestLength

        add("truncated-in-preamble", .truncated, Array(itemsBytes.prefix(12)), "the first 12 bytes of v2-success-items: the header length is cut")
        add("truncated-in-header-mac", .truncated, Array(itemsBytes.prefix(headerEnd - 10)), "v2-success-items cut inside the header MAC")
        add("truncated-in-manifest", .truncated, Array(itemsBytes.prefix(headerEnd + 4 + 30)), "v2-success-items cut inside the manifest")
        add("truncated-in-manifest-mac", .truncated, Array(itemsBytes.prefix(manifestEnd + 10)), "v2-success-items cut inside the manifest MAC")
        add("truncated-in-records", .truncated, Array(itemsBytes.dropLast(1)),
            "v2-success-items without its last byte: the records are shorter than the rows' lengths add up to")
        add("malformed-trailing-byte", .malformed, itemsBytes + [0], "v2-success-items with one byte appended after the records")
        add("manifest-mac-flipped", .manifestFailure, VectorCatalog.flip(itemsBytes, at: manifestEnd + 31, 0x80),
            "v2-success-items with the last byte of the manifest MAC flipped")
        add("manifest-generation-changed", .manifestFailure, try manifestEdited(itemsBytes, keys: nil) { r in r.generation -= 1 },
            "v2-success-items with the generation changed from 5 to 4, MAC left as it was")
        add("manifest-lookup-tag-changed", .manifestFailure, try manifestEdited(itemsBytes, keys: nil) { r in r.rows[0].tag[0] ^= 0x01 },
            "v2-success-items with a lookup tag changed, MAC left as it was")
        add("malformed-manifest-too-short", .malformed,
            try manifestEdited(itemsBytes, keys: nil) { r in r.manifestLength = 11 },
            "a manifest length of 11 (the least is 12): refused before its bytes are read")
        add("malformed-manifest-too-long", .malformed,
            try manifestEdited(itemsBytes, keys: nil) { r in r.manifestLength = UInt32(VaultFileV2.maxManifestLength + 1) },
            "a manifest length of 610000013, one more than 12 + 61 × 10000000: refused before anything is read or allocated")
        add("malformed-manifest-entry-count", .malformed, try manifestEdited(itemsBytes, keys: keys) { r in r.count = 10_000_001 },
            "a manifest entry count of 10000001 (the bound is 10000000), MAC recomputed")
        add("truncated-manifest-rows", .truncated, try manifestEdited(itemsBytes, keys: keys) { r in r.count = 4 },
            "a manifest that counts 4 rows and holds 3: the fourth runs past its end, MAC recomputed")
        add("malformed-manifest-trailing-byte", .malformed, try manifestEdited(itemsBytes, keys: keys) { r in r.manifestTail = [0] },
            "one byte after the last row inside the manifest, MAC recomputed")
        add("malformed-row-order", .malformed, try manifestEdited(itemsBytes, keys: keys) { r in r.rows.swapAt(0, 1) },
            "the first two rows swapped (ids not ascending), MAC recomputed")
        add("malformed-row-duplicate-id", .malformed, try manifestEdited(itemsBytes, keys: keys) { r in r.rows[1].id = r.rows[0].id },
            "the second row's id equal to the first's, MAC recomputed")
        add("malformed-row-flags", .malformed, try manifestEdited(itemsBytes, keys: keys) { r in r.rows[0].flags = 2 },
            "a row with flags 2 (only bit 0 is defined), MAC recomputed")
        add("malformed-row-tombstone-with-secret", .malformed, try manifestEdited(itemsBytes, keys: keys) { r in r.rows[0].flags = 1 },
            "a live item's row marked a tombstone (a tombstone has no secret part and tag 0), MAC recomputed")
        add("malformed-row-revision-zero", .malformed, try manifestEdited(itemsBytes, keys: keys) { r in r.rows[1].revision = 0 },
            "a row with revision 0, MAC recomputed")
        add("malformed-row-revision-too-large", .malformed, try manifestEdited(itemsBytes, keys: keys) { r in r.rows[1].revision = 1 << 32 },
            "a row with revision 4294967296 (the bound is 2^32 - 1), MAC recomputed")
        add("malformed-row-varint-not-shortest", .malformed,
            try manifestEdited(itemsBytes, keys: keys) { r in
                var row = r.rows[1]
                let fixed = row.bytes.prefix(49)
                row.raw = Array(fixed) + [0x81, 0x00] + varint(row.overviewLength) + varint(row.secretLength)
                r.rows[1] = row
            }, "a row whose revision 1 is written in two bytes (81 00): varints are in their shortest form, MAC recomputed")
        add("malformed-row-overview-length", .malformed,
            try manifestEdited(itemsBytes, keys: keys) { r in r.rows[2].overviewLength += 1 },
            "a row whose overview ciphertext length is one more (not a padded length plus 16), MAC recomputed")
        // The bounds of §7 and §9, checked with the row: without them the records would be "truncated".
        add("malformed-row-overview-too-long", .malformed,
            try manifestEdited(itemsBytes, keys: keys) { r in r.rows[2].overviewLength = UInt64(Padme.paddedLength(1_048_577)) + 16 },
            "a row whose overview ciphertext length is the padded length of 1,048,577 bytes plus 16 (the bound is 1,048,592), MAC recomputed")
        add("malformed-row-secret-too-long", .malformed,
            try manifestEdited(itemsBytes, keys: keys) { r in r.rows[2].secretLength = UInt64(Padme.paddedLength(67_108_865)) + 16 },
            "a row whose secret ciphertext length is the padded length of 67,108,865 bytes plus 16 (the bound is 67,108,880), MAC recomputed")
        add("malformed-row-secret-length", .malformed,
            try manifestEdited(itemsBytes, keys: keys) { r in r.rows[2].secretLength = 17 },
            "a row whose secret ciphertext length is 17 (a padded part is at least 16 bytes), MAC recomputed")

        // Records: every byte is authenticated by its part's AEAD, bound to its row's nonce.
        let r1 = raw.record(1)
        add("entry-overview-flipped", .entryFailure, VectorCatalog.flip(itemsBytes, at: manifestEnd + 32 + r1.start + 5, 0x01),
            "v2-success-items with one overview ciphertext byte of the second record flipped")
        add("entry-secret-flipped", .entryFailure, VectorCatalog.flip(itemsBytes, at: manifestEnd + 32 + r1.start + r1.overview + 5, 0x01),
            "v2-success-items with one secret ciphertext byte of the second record flipped: only opening the secret part catches it")
        add("entry-nonce-changed", .entryFailure, try manifestEdited(itemsBytes, keys: keys) { r in r.rows[1].nonce[0] ^= 0x01 },
            "the second row's nonce changed, MAC recomputed: the record no longer opens")
        add("entry-records-swapped", .entryFailure,
            try manifestEdited(itemsBytes, keys: keys) { r in
                let a = r.record(0), b = r.record(1)
                let first = Array(r.records[a.start..<(a.start + a.overview + a.secret)])
                let second = Array(r.records[b.start..<(b.start + b.overview + b.secret)])
                r.records.replaceSubrange(a.start..<(b.start + b.overview + b.secret), with: second + first)
                let (ao, asl) = (r.rows[0].overviewLength, r.rows[0].secretLength)
                r.rows[0].overviewLength = r.rows[1].overviewLength; r.rows[0].secretLength = r.rows[1].secretLength
                r.rows[1].overviewLength = ao; r.rows[1].secretLength = asl
            }, "the first two records swapped and their rows' lengths with them, MAC recomputed: each record opens only under its own id and nonce")
        add("entry-replayed-other-copy", .entryFailure, try replayedVector(), "the item of one copy with the record of another copy of the same vault and epoch (same id and revision), its row's nonce and the MAC kept: the nonce binds the record")
        add("entry-transplanted-same-key", .entryFailure, try transplantedVector(),
            "a record and its row from a vault with the same epoch key but another vault id, MAC recomputed: only the vault id in the AD catches it")
        return out
    }

    /// Two copies of one vault sealing the same item at the same revision; the second's record
    /// put in place of the first's, with the first's row.
    static func replayedVector() throws -> [UInt8] {
        func copy(_ note: String) throws -> FormatVaultBuilderV2 {
            let b = try FormatVaultBuilderV2(entropy: entropy("replay"), slots: [(try passwordKey(), kdf)], start: start)
            let id = try b.newID()
            // The same vault, key and item; another nonce for the other copy's record.
            if note == "theirs" { _ = try b.entropy.bytes(1) }
            let (sa, _) = try C.small()
            try b.put(id, revision: 2, sa, ItemSecrets(password: try C.s(note)))
            return b
        }
        let mine = try copy("mine"), theirs = try copy("theirs")
        var raw = try RawVaultFileV2(splitting: try mine.bytes())
        let other = try RawVaultFileV2(splitting: try theirs.bytes())
        raw.records = other.records
        raw.rows[0].overviewLength = other.rows[0].overviewLength
        raw.rows[0].secretLength = other.rows[0].secretLength
        raw.manifestMAC = .compute
        return try raw.assemble(keys: mine.keys)
    }

    static func transplantedVector() throws -> [UInt8] {
        let target = try FormatVaultBuilderV2(entropy: entropy("transplant target"), slots: [(try passwordKey(), kdf)], start: start)
        let (sa, ss) = try C.small()
        try target.put(try target.newID(), revision: 1, sa, ss)
        let sourceEntropy = try entropy("transplant source")
        let source = try FormatVaultBuilderV2(sharingKeyOf: target, vaultID: try sourceEntropy.bytes(16), entropy: sourceEntropy,
                                              slots: [(try passwordKey(), kdf)])
        let (wa, ws) = try C.wifi()
        target.insert(try source.put(try source.newID(), revision: 1, wa, ws))
        return try target.bytes()
    }

    // MARK: Lists inside the records (SPEC.md §7, §17.3), correctly sealed

    /// A password vault whose one record has these plaintexts (padded unless `padded`),
    /// sealed under its keys with a row tag of kind 1 and service `example.com`.
    static func withRecord(_ name: String, overview: [UInt8], secrets: [UInt8]?, padded: Bool = false,
                           tombstone: Bool = false, tag: UInt64? = nil) throws -> [UInt8] {
        let b = try FormatVaultBuilderV2(entropy: entropy("list " + name), slots: [(try passwordKey(), kdf)], start: start)
        let id = try b.newID()
        let overviewPlain = padded ? overview : Padme.pad(overview)
        let nonce = try b.entropy.bytes(24)
        var body = try XChaCha20Poly1305.seal(try SecureBytes(copying: overviewPlain), key: b.keys.overviewKey, nonce: nonce,
                                              associatedData: RecordV2.associatedData(vaultID: b.vaultID, id: id, part: .overview))
        let overviewLength = body.count
        if let secrets {
            let secretPlain = padded ? secrets : Padme.pad(secrets)
            body += try XChaCha20Poly1305.seal(try SecureBytes(copying: secretPlain), key: b.keys.secretKey, nonce: nonce,
                                               associatedData: RecordV2.associatedData(vaultID: b.vaultID, id: id, part: .secret))
        }
        let rowTag = try tag ?? (tombstone ? 0 : LookupTag.tag(kind: .genericPassword, name: text("example.com"), keys: b.keys))
        b.insert(RecordV2(id: id, revision: 1, nonce: nonce.withUnsafeBytes { RecordV2.Nonce($0) }, lookupTag: rowTag,
                          isTombstone: tombstone, body: body[...], overviewLength: overviewLength))
        return try b.bytes()
    }

    static func listVectors() throws -> [VectorFile] {
        var out: [VectorFile] = []
        func overview(_ name: String, _ expect: VectorExpectation, _ list: [UInt8], _ comment: String, secrets: [UInt8] = emptySecrets) throws {
            out.append(vector(name, expect, try withRecord(name, overview: list, secrets: secrets), comment + ", correctly sealed and MACed"))
        }
        func secret(_ name: String, _ expect: VectorExpectation, _ list: [UInt8], _ comment: String, overview list0: [UInt8] = baseOverview) throws {
            out.append(vector(name, expect, try withRecord(name, overview: list0, secrets: list), comment + ", correctly sealed and MACed"))
        }
        // A control: the base lists give success (so each vector below fails by its one change).
        let control = try withRecord("control", overview: baseOverview, secrets: emptySecrets)
        guard FormatReader.outcome(control, key: try passwordKey()).0 == .success else {
            throw VectorFileError(description: "the list vectors' control does not open")
        }
        let V = ItemClockCodec.Tag.self
        let stampsOf: (UInt64, [UInt8]) -> [UInt8] = { mask, explicit in field(V.stamps, stamp(0) + varint(mask) + explicit) }
        let implied = stampsOf(unkeyedMask, [])
        let two = field(V.versions, u64(replica) + u64(time) + u64(replica + 1) + u64(time + 1))
        let base2 = kind + service + two

        // Framing (§7.1).
        out.append(vector("malformed-overview-padding-zeros", .malformed,
                          try withRecord("padding-zeros", overview: baseOverview + [UInt8](repeating: 0, count: Padme.paddedLength(baseOverview.count + 1) - baseOverview.count),
                                         secrets: Padme.pad(emptySecrets), padded: true),
                          "an overview padded with zeros and no 0x80 marker, correctly sealed and MACed"))
        out.append(vector("malformed-overview-padding-too-long", .malformed,
                          try withRecord("padding-too-long", overview: baseOverview + [0x80] + [UInt8](repeating: 0, count: Padme.paddedLength(baseOverview.count + 40) - baseOverview.count - 1),
                                         secrets: Padme.pad(emptySecrets), padded: true),
                          "an overview of 30 bytes padded to the PADMÉ length of 70 (its own is 32), correctly sealed and MACed"))
        out.append(vector("malformed-secret-padding", .malformed,
                          try withRecord("secret-padding", overview: Padme.pad(baseOverview), secrets: [UInt8](repeating: 0, count: 16), padded: true),
                          "a secret part of 16 zero bytes (no 0x80 marker), correctly sealed and MACed"))
        try overview("malformed-overview-varint-not-shortest", .malformed, [0x81, 0x00, 0x01, 0x01] + service + versions,
                     "an overview whose kind's tag 1 is written in two bytes (81 00)")
        try overview("malformed-overview-tag-too-large", .malformed, baseOverview + varint(0x10000) + [0],
                     "an overview with a field tag of 65536 (tags are at most 65535)")
        try overview("truncated-overview-varint", .truncated, baseOverview + [0x10, 0x85],
                     "an overview list that ends inside a length varint")
        try overview("truncated-overview-field-value", .truncated, baseOverview + [0x10, 0x05, 0x01, 0x02],
                     "an overview whose last field's length runs 3 bytes past the end of the list")
        try overview("truncated-overview-pair-value", .truncated,
                     kind + service + field(15, field(1, text("n")) + [0x02, 0x09, 0x41]) + versions,
                     "an overview whose custom field's value runs past the end of the pair")

        // Framing first (§7.1): two fields out of order, then a list that ends inside a varint.
        try overview("truncated-overview-order-then-cut", .truncated, service + kind + versions + [0x10, 0x85],
                     "an overview with tag 3 before tag 1 that then ends inside a length varint (the framing is checked first: \"truncated\", not \"malformed\")")
        try secret("truncated-secret-order-then-cut", .truncated, field(2, text("n")) + field(1, text("pw")) + [0x06, 0x85],
                   "a secret part with its notes before its password that then ends inside a length varint (the framing is checked first)")
        // Fields (§7.2), as format 1.
        try overview("malformed-overview-kind", .malformed, field(1, [4]) + service + versions, "an overview whose kind is 4")
        try overview("malformed-overview-missing-kind", .malformed, service + versions, "an overview without a kind")
        try overview("malformed-overview-order", .malformed, service + kind + versions, "an overview with tag 3 before tag 1")
        try overview("malformed-overview-not-utf8", .malformed, kind + field(2, [0xC3, 0x28]) + service + versions, "an overview whose label is not UTF-8")
        try overview("malformed-overview-repeated-label", .malformed, kind + field(2, text("a")) + field(2, text("b")) + service + versions,
                     "an overview with two labels")
        try overview("malformed-overview-date", .malformed, kind + service + field(13, i64(.max)) + versions, "an overview whose creation date is after the year 9999")
        // Tag 17, the expiry date (§7.2): a date, at most once; before it, an unknown field (kept).
        try overview("malformed-overview-expires-length", .malformed, kind + service + field(17, [0, 0, 0, 0, 0, 0, 0]) + versions,
                     "an overview whose expiry date (tag 17) is 7 bytes, not 8")
        try overview("malformed-overview-repeated-expires", .malformed, kind + service + field(17, i64(C.t1)) + field(17, i64(C.t2)) + versions,
                     "an overview with two expiry dates (tag 17 is not repeatable, as unassigned tags are)")
        try overview("malformed-overview-critical-tag", .malformed, baseOverview + field(0x8016, [1]),
                     "an overview with the unknown critical tag 0x8016 (above the merge fields)")

        // Format 2's implied fields (§7.6) and the lookup tag (§8.1).
        try overview("malformed-overview-no-versions", .malformed, kind + service + field(13, i64(C.t0)) + field(14, i64(C.t0)),
                     "an overview without a version vector (format 2 requires one)")
        try overview("malformed-overview-explicit-implied-created", .malformed, kind + service + field(13, i64(C.t0)) + versions,
                     "an overview whose creation date is written out though it equals the implied date")
        try overview("malformed-overview-explicit-implied-modified", .malformed, kind + service + field(14, i64(C.t0)) + versions,
                     "an overview whose modified date is written out though it equals the implied date")
        try overview("malformed-overview-explicit-implied-stamps", .malformed, baseOverview + implied,
                     "an overview whose stamps field is written out though it is the implied one")
        out.append(vector("malformed-overview-lookup-tag", .malformed, try withRecord("lookup-tag", overview: baseOverview, secrets: emptySecrets, tag: 0x0102_0304_0506_0708),
                          "an overview whose row's lookup tag is not its name's, correctly sealed and MACed"))

        // Merge fields (§17.3).
        try overview("malformed-overview-versions-zero-replica", .malformed, kind + service + field(V.versions, u64(0) + u64(time)),
                     "an overview whose version vector names replica 0")
        try overview("malformed-overview-versions-zero-time", .malformed, kind + service + field(V.versions, u64(replica) + u64(0)),
                     "an overview whose version vector has time 0")
        try overview("malformed-overview-versions-length", .malformed, kind + service + field(V.versions, u64(replica) + u64(time) + [0]),
                     "an overview whose version vector is 17 bytes")
        try overview("malformed-overview-versions-order", .malformed,
                     kind + service + field(V.versions, u64(replica + 1) + u64(time) + u64(replica) + u64(time)),
                     "an overview whose version vector lists replicas in descending order")
        try overview("malformed-overview-merge-fields-without-versions", .malformed, kind + service + field(13, i64(C.t0)) + field(14, i64(C.t0)) + implied,
                     "an overview with a stamps field and no version vector")
        try overview("malformed-overview-stamp-index", .malformed, base2 + field(V.stamps, stamp(2) + varint(unkeyedMask)),
                     "an overview whose default stamp names replica index 2 of a two-replica vector")
        try overview("malformed-overview-stamp-time-zero", .malformed, base2 + field(V.stamps, stamp(0, back: time) + varint(unkeyedMask)),
                     "an overview whose default stamp is counted back to time 0")
        try overview("malformed-overview-stamp-mask-bit-19", .malformed, base2 + field(V.stamps, stamp(0) + varint(unkeyedMask | 1 << 19)),
                     "an overview whose stamp mask sets bit 19, past the 19 registers of §17.2")
        try overview("malformed-overview-stamp-keyed-bit", .malformed, base2 + field(V.stamps, stamp(0) + varint(unkeyedMask | bit(.fields))),
                     "an overview whose stamp mask sets the bit of custom fields (format 2 stamps named fields one by one)")
        try overview("malformed-overview-stamp-unknown-code", .malformed,
                     base2 + field(V.stamps, stamp(0) + varint(unkeyedMask & ~bit(.label)) + [13] + stamp(1)),
                     "an overview with an explicit stamp for register code 13, which does not exist")
        try overview("malformed-overview-stamps-order", .malformed,
                     base2 + field(V.stamps, stamp(0) + varint(unkeyedMask & ~bit(.label) & ~bit(.kind)) + [2] + stamp(1) + [1] + stamp(1)),
                     "an overview whose explicit stamps list label before kind")
        try overview("malformed-overview-stamps-not-canonical", .malformed,
                     base2 + field(V.stamps, stamp(1) + varint(bit(.kind)) + Register.all.filter { !$0.isKeyed && $0 != .kind }.flatMap { [$0.code] + stamp(0) }),
                     "an overview whose default stamp is not the one most unkeyed registers have")
        try overview("malformed-overview-stamps-partial", .malformed,
                     base2 + field(V.stamps, stamp(0) + varint(unkeyedMask & ~bit(.label)) + [2] + varint(1)),
                     "an overview whose stamps field ends inside an explicit stamp, after its index (the field is whole: not \"truncated\")")
        try overview("malformed-overview-tag-zero-without-stamp", .malformed,
                     field(0, text("x")) + base2 + field(V.stamps, stamp(1) + varint(bit(.kind) | bit(.service))),
                     "an overview with a field of tag 0 (register 0x7F, unknown attributes) whose stamps field stamps only the kind and the service")
        let winners = field(V.stamps, stamp(0) + varint(unkeyedMask & ~bit(.label)) + [2] + stamp(1))
        let labelled = kind + field(2, text("L")) + service + two + winners
        try overview("malformed-overview-siblings-index", .malformed, labelled + field(V.siblings, [2] + stamp(2)),
                     "an overview with a sibling stamp naming replica index 2 of 2")
        try overview("malformed-overview-siblings-order", .malformed,
                     labelled + field(V.siblings, [2] + stamp(0) + [2] + stamp(0, back: 1)),
                     "an overview whose siblings are not in ascending order of time", secrets: [])
        try overview("malformed-overview-sibling-equals-winner", .malformed, labelled + field(V.siblings, [2] + stamp(1)),
                     "an overview with a sibling whose stamp is its register's own value's")
        try overview("malformed-overview-siblings-repeated-field", .malformed,
                     labelled + field(V.siblings, [2] + stamp(0)) + field(V.siblings, [2] + stamp(0, back: 1)),
                     "an overview with the siblings field twice")
        // Each merge field at most once (§17.3), and the bounds of the version vector: each
        // vector below is its control with the one change (the controls open).
        /// Throws unless `list` (an overview, with `secrets`) opens: the control of a vector.
        func mustOpen(_ list: [UInt8], secrets: [UInt8] = emptySecrets, tombstone: Bool = false) throws {
            let bytes = try withRecord("control", overview: list, secrets: tombstone ? nil : secrets, tombstone: tombstone)
            guard FormatReader.outcome(bytes, key: try passwordKey()).0 == .success else {
                throw VectorFileError(description: "a list vector's control does not open")
            }
        }
        let explicitStamps = field(V.stamps, stamp(0) + varint(unkeyedMask))
        let deletedOne = field(V.deleted, stamp(0))
        try mustOpen(base2 + explicitStamps)
        try mustOpen(base2 + deletedOne)
        try overview("malformed-overview-versions-repeated", .malformed, baseOverview + versions, "an overview with the versions field twice")
        try overview("malformed-overview-stamps-repeated", .malformed, base2 + explicitStamps + explicitStamps,
                     "an overview with the stamps field twice (each the default stamp of index 0 and every unkeyed register)")
        try overview("malformed-overview-deleted-repeated", .malformed, base2 + deletedOne + deletedOne, "an overview with the deletion vector twice")
        try overview("malformed-overview-versions-empty", .malformed, kind + service + field(V.versions, []), "an overview whose version vector is empty")
        let many = (0..<UInt64(16_384)).flatMap { u64(replica + $0) + u64(time) }
        try mustOpen(kind + service + field(V.versions, many))
        try overview("malformed-overview-versions-too-many", .malformed, kind + service + field(V.versions, many + u64(replica + 16_384) + u64(time)),
                     "an overview whose version vector has 16,385 entries (the bound is 16,384)")
        // A stamps field that stamps nothing, on a tombstone (which has no value a stamp must cover).
        let tombstoneBase = field(13, i64(C.t0 - 1000)) + versions
        try mustOpen(tombstoneBase, tombstone: true)
        out.append(vector("malformed-overview-stamps-nothing", .malformed,
                          try withRecord("stamps-nothing", overview: tombstoneBase + field(V.stamps, stamp(0) + varint(0)), secrets: nil, tombstone: true),
                          "a tombstone whose stamps field has mask 0 and no explicit stamp (it stamps nothing), correctly sealed and MACed"))
        let labelStamped = field(V.stamps, stamp(0) + varint(unkeyedMask & ~bit(.label)) + [2] + stamp(1))
        try mustOpen(base2 + labelStamped)
        try overview("malformed-overview-stamp-default-and-explicit", .malformed,
                     base2 + field(V.stamps, stamp(0) + varint(unkeyedMask) + [2] + stamp(1)),
                     "an overview whose label has its mask bit set and an explicit stamp")
        try overview("malformed-overview-deleted-empty", .malformed, base2 + field(V.deleted, []), "an overview with an empty deletion vector")
        try overview("malformed-overview-deleted-order", .malformed, base2 + field(V.deleted, stamp(1) + stamp(0)),
                     "an overview whose deletion vector lists index 1 before index 0")
        try overview("malformed-overview-deleted-index", .malformed, base2 + field(V.deleted, stamp(2)),
                     "an overview whose deletion vector names replica index 2 of 2")
        try overview("malformed-overview-deleted-time-zero", .malformed, base2 + field(V.deleted, stamp(0, back: time)),
                     "an overview whose deletion vector has time 0")
        try overview("malformed-overview-confirmation-not-a-value", .malformed,
                     base2 + field(V.confirmations, [2] + stamp(0) + varint(1) + stamp(0)),
                     "an overview confirming a label value the item does not have")
        try overview("malformed-overview-confirmation-equals-versions", .malformed,
                     base2 + field(V.confirmations, [1] + stamp(1) + varint(2) + stamp(0) + stamp(1)),
                     "an overview whose confirmation vector is the item's version vector")
        try overview("malformed-overview-confirmation-not-reduced", .malformed,
                     base2 + field(V.deleted, stamp(0)) + field(V.confirmations, [1] + stamp(1) + varint(1) + stamp(0)),
                     "an overview whose confirmation vector has an entry its deletion vector covers (not reduced)")
        try overview("malformed-overview-confirmation-of-erased", .malformed,
                     labelled + field(V.siblings, [2] + stamp(0)) + field(V.confirmations, [2] + stamp(0) + varint(1) + stamp(0))
                        + field(V.erased, [2] + stamp(0)),
                     "an overview with a confirmation for an erased value (its confirmation is empty)", secrets: [])
        try overview("malformed-overview-erased-not-a-value", .malformed, base2 + field(V.erased, [2] + stamp(0)),
                     "an overview erasing a label value the item does not have")

        // Tombstones (§7.6).
        let tombstoneOverview = field(13, i64(C.t0 - 1000)) + versions
        out.append(vector("success-tombstone-minimal", .success,
                          try withRecord("tombstone-minimal", overview: tombstoneOverview, secrets: nil, tombstone: true),
                          "a tombstone whose overview is its creation date and version vector; modified date, stamps and deletion vector implied"))
        out[out.count - 1].generation = 1
        out[out.count - 1].entries = try { () throws -> [VectorEntry] in
            let opened = try FormatReader.open(out[out.count - 1].bytes, key: try passwordKey())
            return opened.entries
        }()
        out.append(vector("malformed-row-tombstone-tag", .malformed,
                          try withRecord("tombstone-tag", overview: tombstoneOverview, secrets: nil, tombstone: true, tag: 5),
                          "a tombstone (no secret part) whose row's lookup tag is 5, not 0, correctly sealed and MACed"))
        for (name, list, what) in [
            ("malformed-tombstone-label", field(2, text("kept")) + tombstoneOverview, "a tombstone keeping a label"),
            ("malformed-tombstone-kind", kind + field(13, i64(C.t0 - 1000)) + versions, "a tombstone keeping a kind"),
            ("malformed-tombstone-deleted-field", tombstoneOverview + field(V.deleted, stamp(0)), "a tombstone writing out its deletion vector"),
            ("malformed-tombstone-erased-field", tombstoneOverview + field(V.erased, [1] + stamp(0)), "a tombstone with an erased field"),
        ] as [(String, [UInt8], String)] {
            out.append(vector(name, .malformed, try withRecord(name, overview: list, secrets: nil, tombstone: true), what + ", correctly sealed and MACed"))
        }

        // Secret parts (§7.3, §17.3).
        try secret("malformed-secret-critical-tag", .malformed, field(1, text("pw")) + field(0x8002, [1]), "a secret part with the unknown critical tag 0x8002")
        try secret("malformed-secret-critical-tag-above", .malformed, field(1, text("pw")) + field(0x8013, [1]),
                   "a secret part with the unknown critical tag 0x8013 (above the merge fields)")
        try secret("malformed-secret-repeated-notes", .malformed, field(2, text("a")) + field(2, text("b")), "a secret part with two notes fields")
        try secret("malformed-secret-attachment-name-not-utf8", .malformed, field(5, field(1, [0xFF]) + field(2, [1])),
                   "a secret part whose attachment name is not UTF-8")
        try secret("malformed-secret-history-date", .malformed, field(4, field(1, text("old")) + field(2, i64(253_402_300_800_000))),
                   "a secret part whose history entry is dated after the year 9999")
        try secret("malformed-secret-history-missing-date", .malformed, field(4, field(1, text("old"))),
                   "a secret part whose history entry has no replaced date")
        try secret("truncated-secret-varint", .truncated, field(1, text("pw")) + [0x02], "a secret list that ends after a field tag")
        let history = field(4, field(1, text("old")) + field(2, i64(C.t0)))
        try secret("malformed-secret-history-confirmation-index", .malformed,
                   history + field(V.historyConfirmations, varint(1) + varint(1) + u64(replica) + u64(1)),
                   "a history confirmation for entry 1 of 1", overview: base2)
        try secret("malformed-secret-history-confirmation-equals-versions", .malformed,
                   history + field(V.historyConfirmations, varint(0) + varint(2) + u64(replica) + u64(time) + u64(replica + 1) + u64(time + 1)),
                   "a history confirmation equal to the item's version vector", overview: base2)
        try secret("malformed-secret-history-confirmations-repeated", .malformed,
                   history + field(V.historyConfirmations, varint(0) + varint(1) + u64(replica) + u64(1))
                   + field(V.historyConfirmations, varint(0) + varint(1) + u64(replica) + u64(1)),
                   "the history confirmations field twice", overview: base2)
        // History cleared (0x8012, §17.5): a date; every entry left must be replaced after it.
        let later = field(4, field(1, text("newer")) + field(2, i64(C.t1)))
        try secret("success-secret-history-cleared", .success, later + field(V.historyCleared, i64(C.t0)),
                   "a history cleared up to t0 (0x8012) that keeps one entry replaced at t1, after it")
        out[out.count - 1].generation = 1
        out[out.count - 1].entries = try FormatReader.open(out[out.count - 1].bytes, key: try passwordKey()).entries
        try secret("malformed-secret-history-cleared-covers-entry", .malformed, history + field(V.historyCleared, i64(C.t0)),
                   "a history cleared up to t0 that still has an entry replaced at t0")
        try secret("malformed-secret-history-cleared-repeated", .malformed,
                   later + field(V.historyCleared, i64(C.t0)) + field(V.historyCleared, i64(C.t0)),
                   "the history-cleared field twice")
        try secret("malformed-secret-history-cleared-length", .malformed, later + field(V.historyCleared, [0, 0, 0, 0, 0, 0, 0]),
                   "a history-cleared date of 7 bytes")
        try secret("malformed-secret-value-without-stamp", .malformed, field(1, text("pw")),
                   "a password whose register has no stamp (the stamps field stamps only the kind and the service)",
                   overview: base2 + field(V.stamps, stamp(1) + varint(bit(.kind) | bit(.service))))
        // Conflict fields: an item whose label lost to another value.
        let withSibling = labelled + field(V.siblings, [2] + stamp(0))
        func conflict(_ register: UInt8, key: UInt64? = nil, replica r: UInt64 = replica, t: UInt64 = time, value: [UInt8]) -> [UInt8] {
            var nested = field(1, [register])
            if let key { nested += field(2, u64(key)) }
            nested += field(3, u64(r)) + field(4, u64(t)) + field(5, value)
            return field(0x8010, nested)
        }
        let lostLabel = field(2, text("old"))
        try secret("success-conflict-control", .success, conflict(2, value: lostLabel), "the control: a label sibling and its conflict field", overview: withSibling)
        out[out.count - 1].generation = 1
        out[out.count - 1].entries = try FormatReader.open(out[out.count - 1].bytes, key: try passwordKey()).entries
        try secret("malformed-secret-sibling-without-conflict", .malformed, [], "a sibling without its conflict field", overview: withSibling)
        try secret("malformed-secret-conflict-not-a-sibling", .malformed, conflict(2, t: time - 1, value: lostLabel),
                   "a conflict field whose stamp is not a sibling's", overview: withSibling)
        try secret("malformed-secret-conflict-twice", .malformed, conflict(2, value: lostLabel) + conflict(2, value: lostLabel),
                   "the same conflict field twice", overview: withSibling)
        try secret("malformed-secret-conflict-missing-value", .malformed,
                   field(0x8010, field(1, [2]) + field(3, u64(replica)) + field(4, u64(time))), "a conflict field without its value", overview: withSibling)
        try secret("malformed-secret-conflict-unknown-register", .malformed, conflict(13, value: lostLabel),
                   "a conflict field for register 13, which does not exist", overview: withSibling)
        try secret("malformed-secret-conflict-keyed-without-key", .malformed, conflict(15, value: field(15, field(1, text("n")) + field(2, text("v")))),
                   "a conflict field for a custom field without its key", overview: withSibling)
        try secret("malformed-secret-conflict-key-zero", .malformed, conflict(15, key: 0, value: field(15, field(1, text("n")) + field(2, text("v")))),
                   "a conflict field for a custom field with key 0", overview: withSibling)
        try secret("malformed-secret-conflict-zero-stamp", .malformed, conflict(2, replica: 0, value: lostLabel),
                   "a conflict field naming replica 0", overview: withSibling)
        try secret("malformed-secret-conflict-wrong-register", .malformed, conflict(2, value: field(3, text("a service"))),
                   "a label conflict field holding a service field", overview: withSibling)
        // A conflict field's value is read as its register's own fields (§7.2–7.4, §17.3).
        try secret("malformed-secret-conflict-value-not-utf8", .malformed, conflict(2, value: field(2, [0xFF])),
                   "a label conflict field whose label is not UTF-8", overview: withSibling)
        // The kind lost to a concurrent edit: every state of a live item has a kind, so its
        // losing value is one kind field, never a removal.
        let kindSibling = kind + service + two + field(V.stamps, stamp(0) + varint(unkeyedMask & ~bit(.kind)) + [1] + stamp(1))
            + field(V.siblings, [1] + stamp(0))
        try secret("success-conflict-kind-control", .success, conflict(1, value: field(1, [3])),
                   "the control: a kind sibling (a secure note) and its conflict field", overview: kindSibling)
        out[out.count - 1].generation = 1
        out[out.count - 1].entries = try FormatReader.open(out[out.count - 1].bytes, key: try passwordKey()).entries
        try secret("malformed-secret-conflict-kind-removed", .malformed, conflict(1, value: []),
                   "a kind conflict field whose value is empty (a removal: a kind is never removed)", overview: kindSibling)
        try secret("malformed-secret-conflict-kind-unknown", .malformed, conflict(1, value: field(1, [9])),
                   "a kind conflict field holding kind 9, which does not exist", overview: kindSibling)

        // Rules that had vectors in format 1 only, or none (each against a control that opens).
        // Fields (§7.1, §7.2).
        try overview("malformed-overview-kind-width", .malformed, field(1, [1, 0]) + service + versions, "an overview whose kind is 2 bytes")
        try overview("malformed-overview-port-width", .malformed, kind + service + field(7, [1]) + versions, "an overview whose port is 1 byte")
        try mustOpen(kind + service + field(12, [1]) + versions)
        try overview("malformed-overview-favorite", .malformed, kind + service + field(12, [2]) + versions, "an overview whose favorite flag is 2")
        try overview("malformed-overview-date-before-year-1", .malformed, kind + service + field(13, i64(-62_135_596_800_001)) + versions,
                     "an overview created 1 ms before 0001-01-01")
        try mustOpen(field(0, text("x")) + baseOverview)
        try overview("malformed-overview-repeated-tag-zero", .malformed, field(0, text("x")) + field(0, text("y")) + baseOverview,
                     "an overview with two fields of tag 0")
        try overview("malformed-overview-varint-overflow", .malformed,
                     baseOverview + [0x10] + [UInt8](repeating: 0xFF, count: 9) + [0x02],
                     "an overview whose last field's length is a 10-byte varint above 2^64 - 1")
        // An implied date out of range (§7.6): the version vector's time is that of 10000-01-01.
        try overview("malformed-overview-implied-date-range", .malformed,
                     kind + service + field(V.versions, u64(replica) + u64(UInt64(253_402_300_800_000) << 16)),
                     "an overview whose implied dates (its version vector's time) are in the year 10000")
        // Merge fields (§17.3).
        try overview("malformed-overview-siblings-empty", .malformed, labelled + field(V.siblings, []), "an overview with an empty siblings field")
        try overview("malformed-overview-confirmations-empty", .malformed, base2 + field(V.confirmations, []),
                     "an overview with an empty confirmations field")
        try overview("malformed-overview-erased-empty", .malformed, base2 + field(V.erased, []), "an overview with an empty erased field")
        // The kind's value has the implied stamp, index 1; its confirmation is index 0's time and index 1 one back.
        let confirmation = [1] + stamp(1)
        try mustOpen(base2 + field(V.confirmations, confirmation + varint(2) + stamp(0) + stamp(1, back: 1)))
        try overview("malformed-overview-confirmation-empty-vector", .malformed, base2 + field(V.confirmations, confirmation + varint(0)),
                     "an overview with a confirmation of m = 0 entries")
        try overview("malformed-overview-confirmation-order", .malformed,
                     base2 + field(V.confirmations, confirmation + varint(2) + stamp(1, back: 1) + stamp(0)),
                     "an overview whose confirmation vector lists index 1 before index 0")
        // The label's winner at index 0, a sibling at index 1 (later): the winner is the newest value not erased.
        let olderWinner = kind + field(2, text("L")) + service + two + field(V.stamps, stamp(1) + varint(unkeyedMask & ~bit(.label)) + [2] + stamp(0))
        try secret("malformed-secret-sibling-newer-than-winner", .malformed, conflict(2, replica: replica + 1, t: time + 1, value: lostLabel),
                   "a label whose sibling (not erased) is newer than its winner, with its conflict field",
                   overview: olderWinner + field(V.siblings, [2] + stamp(1)))
        try overview("malformed-overview-erased-winner-with-value", .malformed, labelled + field(V.erased, [2] + stamp(1)),
                     "an overview whose label winner is erased and still has its value")
        // History confirmations (secret 0x8011).
        let confirmed = { (entries: [UInt8]) in history + field(V.historyConfirmations, varint(0) + entries) }
        try mustOpen(base2, secrets: confirmed(varint(1) + u64(replica) + u64(1)))
        for (name, entries, what) in [
            ("empty-vector", varint(0), "with m = 0 entries"),
            ("zero-replica", varint(1) + u64(0) + u64(1), "naming replica 0"),
            ("zero-time", varint(1) + u64(replica) + u64(0), "with time 0"),
            ("order", varint(2) + u64(replica + 1) + u64(1) + u64(replica) + u64(1), "listing replicas in descending order"),
            ("not-dominated", varint(1) + u64(replica) + u64(time + 5), "above the item's version vector"),
        ] as [(String, [UInt8], String)] {
            try secret("malformed-secret-history-confirmation-\(name)", .malformed, confirmed(entries), "a history confirmation \(what)", overview: base2)
        }
        // Conflict fields (secret 0x8010).
        try secret("malformed-secret-conflict-zero-time", .malformed, conflict(2, t: 0, value: lostLabel),
                   "a conflict field with time 0", overview: withSibling)
        try secret("malformed-secret-conflict-unkeyed-with-key", .malformed, conflict(2, key: 5, value: lostLabel),
                   "a label conflict field with a key (only keyed registers have one)", overview: withSibling)
        try secret("malformed-secret-conflict-unknown-field", .malformed,
                   field(0x8010, field(1, [2]) + field(3, u64(replica)) + field(4, u64(time)) + field(5, lostLabel) + field(6, [0])),
                   "a conflict field with an unknown field 6", overview: withSibling)
        try secret("malformed-secret-conflict-field-order", .malformed,
                   field(0x8010, field(3, u64(replica)) + field(1, [2]) + field(4, u64(time)) + field(5, lostLabel)),
                   "a conflict field whose replica comes before its register", overview: withSibling)
        try secret("malformed-secret-conflict-replica-width", .malformed,
                   field(0x8010, field(1, [2]) + field(3, Array(u64(replica).prefix(7))) + field(4, u64(time)) + field(5, lostLabel)),
                   "a conflict field whose replica is 7 bytes", overview: withSibling)
        try secret("malformed-secret-conflict-of-erased", .malformed, conflict(2, value: lostLabel),
                   "a conflict field for a sibling that is erased", overview: withSibling + field(V.erased, [2] + stamp(0)))
        try secret("malformed-secret-conflict-kind-twice", .malformed, conflict(1, value: field(1, [3]) + field(1, [2])),
                   "a kind conflict field holding two kind fields", overview: kindSibling)
        // Two siblings, of the label and the service: their conflict fields in the one order (§17.3).
        let twoRegisters = kind + field(2, text("L")) + service + two
            + field(V.stamps, stamp(0) + varint(unkeyedMask & ~bit(.label) & ~bit(.service)) + [2] + stamp(1) + [3] + stamp(1))
            + field(V.siblings, [2] + stamp(0) + [3] + stamp(0))
        let lostService = conflict(3, value: field(3, text("old service")))
        try mustOpen(twoRegisters, secrets: conflict(2, value: lostLabel) + lostService)
        try secret("malformed-secret-conflicts-order", .malformed, lostService + conflict(2, value: lostLabel),
                   "a service conflict field before a label conflict field (conflict fields go by register, then replica, then time)",
                   overview: twoRegisters)
        // A tombstone's values are all erased, and an erased value has no confirmation (§7.6).
        out.append(vector("malformed-tombstone-confirmations", .malformed,
                          try withRecord("tombstone-confirmations",
                                         overview: tombstoneOverview + field(V.confirmations, [1] + stamp(0) + varint(1) + stamp(0, back: 1)),
                                         secrets: nil, tombstone: true),
                          "a tombstone with a confirmations field, correctly sealed and MACed"))
        // A live row whose deletion vector covers its version vector: that item is deleted (§17.5 step 4).
        try overview("malformed-overview-live-deleted", .malformed, base2 + field(V.deleted, stamp(0) + stamp(1)),
                     "a live record whose deletion vector equals its version vector (a deleted item is a tombstone row)")
        // A custom field (a keyed register, its stamp explicit) is a pair of exactly a name and a value (§7.4).
        let fieldKey = Register.keyed(15, name: text("n"), occurrence: 0).key
        let pairStamps = field(V.stamps, stamp(0) + varint(unkeyedMask) + [15] + u64(fieldKey) + stamp(0))
        let withPair = { (pair: [UInt8]) in kind + service + field(15, pair) + versions + pairStamps }
        try mustOpen(withPair(field(1, text("n")) + field(2, text("v"))))
        try overview("malformed-overview-pair-extra", .malformed, withPair(field(1, text("n")) + field(2, text("v")) + field(3, text("x"))),
                     "an overview whose custom field has a third field")
        try overview("malformed-overview-pair-missing-value", .malformed, withPair(field(1, text("n"))),
                     "an overview whose custom field has a name and no value")
        // Two erased siblings of the label (§17.3: strictly ascending by (code, key, i, t)).
        let twoSiblings = labelled + field(V.siblings, [2] + stamp(0, back: 1) + [2] + stamp(0))
        try mustOpen(twoSiblings + field(V.erased, [2] + stamp(0, back: 1) + [2] + stamp(0)), secrets: [])
        try overview("malformed-overview-erased-order", .malformed, twoSiblings + field(V.erased, [2] + stamp(0) + [2] + stamp(0, back: 1)),
                     "an overview whose two erased label values are in descending order of time", secrets: [])
        // History confirmations of two entries (newest first), and one not reduced by the deletion vector.
        let twoEntries = history + field(4, field(1, text("older")) + field(2, i64(C.t0 - 1000)))
        let confirmIndex = { (index: UInt64) in varint(index) + varint(1) + u64(replica) + u64(1) }
        try mustOpen(base2, secrets: twoEntries + field(V.historyConfirmations, confirmIndex(0) + confirmIndex(1)))
        try secret("malformed-secret-history-confirmation-index-order", .malformed,
                   twoEntries + field(V.historyConfirmations, confirmIndex(1) + confirmIndex(0)),
                   "history confirmations for entry 1, then entry 0", overview: base2)
        let deletedFirst = base2 + field(V.deleted, stamp(0))
        try mustOpen(deletedFirst, secrets: history + field(V.historyConfirmations, varint(0) + varint(1) + u64(replica + 1) + u64(1)))
        try secret("malformed-secret-history-confirmation-not-reduced", .malformed,
                   history + field(V.historyConfirmations, varint(0) + varint(1) + u64(replica) + u64(time)),
                   "a history confirmation with an entry the deletion vector covers (not reduced)", overview: deletedFirst)
        // The kind's one value erased (§17.5): a live item without a kind reads as a generic password.
        try overview("success-overview-kind-erased", .success, service + two + field(V.erased, [1] + stamp(1)),
                     "a live item whose kind register's only value was erased by a deletion it outlived: no kind field, read as a generic password")
        out[out.count - 1].generation = 1
        out[out.count - 1].entries = try FormatReader.open(out[out.count - 1].bytes, key: try passwordKey()).entries
        return out
    }
}

/// Unwraps or throws a vector-building error (not a test expectation).
func requireValue<T>(_ value: T?, _ what: String) throws -> T {
    guard let value else { throw VectorFileError(description: what) }
    return value
}

extension VaultHeaderV2 {
    /// Parses a header body held in an array (test helper).
    static func parse(bytes: [UInt8]) throws -> VaultHeaderV2 {
        try bytes.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try VaultHeaderV2.parse(raw) } }
    }
}
