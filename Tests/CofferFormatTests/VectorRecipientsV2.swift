import Foundation
@testable import CofferCrypto
@testable import CofferFormat
import CofferTestSupport

// The recipient-slot vectors of SPEC.md §4.11 and §15.3.2: a vault shared with an age
// X25519 recipient and an ssh-ed25519 key, opened by each identity; another identity;
// and each reader rule of the slot (its lengths, its label, its Ed25519 key), every
// malformed one made from the success file with the header checksum recomputed.

extension VectorCatalogV2 {
    /// age's CCTV identity (its recipient gets the age slot) and another one.
    static let ageIdentity = "AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0"
    static let otherAgeIdentity = "AGE-SECRET-KEY-143WN7DCXU4G8R5AXQSSYD9AEPYDNT3HXSLWSPK36CDU6E8M59SSSAGZ3KG"
    /// The SSH identity's Ed25519 seed: 32 bytes 0x20…0x3f.
    static let sshSeed: [UInt8] = Array(0x20...0x3F)
    /// When both were shared: 2024-06-01T12:00:00.000Z.
    static let sharedAt = UInt64(C.t1)

    static func recipientVault() throws -> FormatVaultBuilderV2 {
        let b = try FormatVaultBuilderV2(entropy: entropy("recipients"), slots: [(try passwordKey(), kdf)], start: start)
        let age = try VaultIdentity(contents: try SecureBytes(copying: ageIdentity)).recipients[0]
        let ssh = try VaultIdentity(ed25519SecretKey: try Ed25519.secretKey(seed: try SecureBytes(copying: sshSeed))).recipients[0]
        for (recipient, label) in [(age, "carol"), (ssh, "bob@example")] {
            b.header.slots.append(try KeySlotV2.make(recipient: recipient, label: label, added: sharedAt, vaultID: b.vaultID,
                                                     epoch: b.keys, entropy: b.entropy))
        }
        let (wa, ws) = try C.wifi()
        try b.put(try b.newID(), revision: 1, wa, ws)
        return b
    }

    /// The header body with slot `index` replaced by `type`, `publicPart`, `stanza` (raw).
    static func replacingSlot(_ header: [UInt8], _ index: Int, type: UInt8? = nil,
                              publicPart edit: (([UInt8]) -> [UInt8])? = nil, stanza editStanza: (([UInt8]) -> [UInt8])? = nil) -> [UInt8] {
        var offset = HeaderOffset.slotCount + 1
        var out = Array(header[0..<offset])
        for i in 0..<Int(header[HeaderOffset.slotCount]) {
            let slotType = header[offset]
            let publicLength = Int(header[offset + 1]) | Int(header[offset + 2]) << 8
            let publicPart = Array(header[(offset + 3)..<(offset + 3 + publicLength)])
            let stanzaAt = offset + 3 + publicLength
            let stanzaLength = Int(header[stanzaAt]) | Int(header[stanzaAt + 1]) << 8
            let stanza = Array(header[(stanzaAt + 2)..<(stanzaAt + 2 + stanzaLength)])
            offset = stanzaAt + 2 + stanzaLength
            let (t, p, s) = i == index ? (type ?? slotType, edit?(publicPart) ?? publicPart, editStanza?(stanza) ?? stanza)
                                       : (slotType, publicPart, stanza)
            out += [t] + u16(UInt16(p.count)) + p + u16(UInt16(s.count)) + s
        }
        return out + header[offset...]
    }

    static func recipientVectors() throws -> [VectorFile] {
        let b = try recipientVault()
        let bytes = try b.bytes()
        var out: [VectorFile] = []
        func add(_ name: String, _ expect: VectorExpectation, _ bytes: [UInt8], identity: String? = ageIdentity,
                 sshSeed: [UInt8]? = nil, _ comment: String, success: Bool = false) {
            var vector = VectorFile(name: "v2-" + name + ".vec", expect: expect, generation: success ? b.generation : nil,
                                    comment: comment, entries: success ? b.expectedEntries : nil, bytes: bytes)
            vector.identity = sshSeed == nil ? identity : nil
            vector.sshSeed = sshSeed
            out.append(vector)
        }
        add("success-recipient-age", .success, bytes,
            "a password slot and two recipient slots: an age X25519 recipient (type 0x15, label carol) and an ssh-ed25519 key (type 0x16, label bob@example), shared 2024-06-01T12:00:00Z; opened by the age identity",
            success: true)
        add("success-recipient-ssh", .success, bytes, sshSeed: sshSeed,
            "the same file, opened by the SSH Ed25519 key of seed 20 21 … 3f", success: true)
        add("wrong-key-identity", .wrongKey, bytes, identity: otherAgeIdentity,
            "the same file offered an age identity it is not shared with")
        // Slot 1 is the age recipient, slot 2 the SSH key.
        add("wrong-key-recipient-stanza-flipped", .wrongKey,
            try headerEdited(bytes) { h in h = replacingSlot(h, 1, stanza: { s in var s = s; s[40] ^= 1; return s }) },
            "v2-success-recipient-age with a byte of the age slot's wrapped key flipped, checksum recomputed: the identity opens no slot")
        add("malformed-recipient-stanza-length", .malformed,
            try headerEdited(bytes) { h in h = replacingSlot(h, 1, stanza: { Array($0.dropLast()) }) },
            "v2-success-recipient-age with the age slot's stanza 79 bytes instead of 80, checksum recomputed")
        add("malformed-recipient-public-length", .malformed,
            try headerEdited(bytes) { h in h = replacingSlot(h, 1, publicPart: { Array($0[0..<39]) }) },
            "v2-success-recipient-age with the age slot's public part 39 bytes (key and time need 40), checksum recomputed")
        add("malformed-recipient-label-too-long", .malformed,
            try headerEdited(bytes) { h in h = replacingSlot(h, 1, publicPart: { Array($0[0..<40]) + [UInt8](repeating: 0x61, count: 256) }) },
            "v2-success-recipient-age with a label of 256 bytes (the bound is 255), checksum recomputed")
        add("malformed-recipient-label-control", .malformed,
            try headerEdited(bytes) { h in h = replacingSlot(h, 1, publicPart: { $0 + [0x1B] }) },
            "v2-success-recipient-age with an escape character (0x1b) at the end of the age slot's label, checksum recomputed")
        add("malformed-recipient-label-utf8", .malformed,
            try headerEdited(bytes) { h in h = replacingSlot(h, 1, publicPart: { $0 + [0xC3] }) },
            "v2-success-recipient-age with a label that is not UTF-8 (a cut 0xc3), checksum recomputed")
        add("malformed-recipient-ssh-key", .malformed,
            try headerEdited(bytes) { h in h = replacingSlot(h, 2, publicPart: { [1] + [UInt8](repeating: 0, count: 31) + $0[32...] }) },
            "v2-success-recipient-age whose ssh-ed25519 slot holds the Ed25519 identity point (01 00 … 00, small order, no X25519 form), checksum recomputed")
        // The age slot's stanza made by a key holder (header MAC recomputed): with the point 0
        // as its share, so that the shared secret is all zero (§4.11: the slot does not open;
        // a reader that took it would open the vault), and for another key, correctly wrapped
        // (its epoch id is not the header's).
        let recipient = b.header.slots[1].publicPart.prefix(32)
        let zeroShare = [UInt8](repeating: 0, count: 32)
        let zeroWrapKey = try SHA256.hkdf(secret: try SecureBytes(copying: zeroShare), salt: zeroShare + recipient,
                                          info: AgeStanza.x25519Label, length: ChaCha20Poly1305.keyLength)
        let zeroBody = try ChaCha20Poly1305.seal(b.keys.epochKey, key: zeroWrapKey, nonce: AgeStanza.zeroNonce)
        add("wrong-key-recipient-zero-shared-secret", .wrongKey,
            try headerEdited(bytes, keys: b.keys) { h in h = replacingSlot(h, 1, stanza: { _ in zeroShare + zeroBody }) },
            "v2-success-recipient-age whose age slot's share is 0 (a point of small order), the epoch key wrapped under an all-zero shared secret, MACs recomputed by a key holder: the slot does not open")
        let other = try b.entropy.secureBytes(32)
        let wrapped = try AgeStanza.wrap(other, to: .x25519(publicKey: Array(recipient)), entropy: b.entropy)
        add("header-recipient-epoch-id-commitment", .headerFailure,
            try headerEdited(bytes, keys: b.keys) { h in h = replacingSlot(h, 1, stanza: { _ in wrapped.share + wrapped.body }) },
            "v2-success-recipient-age whose age slot wraps, correctly, a key that is not the one the header's epoch id commits to, MACs recomputed by a key holder")
        return out
    }
}
