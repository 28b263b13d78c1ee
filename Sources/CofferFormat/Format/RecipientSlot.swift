import CofferCrypto

/// The fields of a recipient slot (types 0x15 and 0x16, SPEC.md §4.11): a vault shared
/// with an age X25519 recipient or an SSH Ed25519 key, opened by its identity with no
/// password and no KDF.
///
/// Public part: the recipient's 32-byte key (X25519 for 0x15, Ed25519 for 0x16), the `u64`
/// time it was added (milliseconds since 1970), then a label of 0 to 255 bytes of UTF-8
/// without control characters, to the end. Stanza (80 bytes): age's ephemeral share (32)
/// and body (the 32-byte epoch key sealed, 48), by ``AgeStanza``.
package struct RecipientSlot: Sendable {
    package let recipient: VaultRecipient
    /// When the slot was added, milliseconds since 1970.
    package let added: UInt64
    package let label: String
    let stanza: [UInt8]

    static let keyLength = 32
    static let fixedLength = keyLength + 8
    /// Labels are short names ("bob", "alice@laptop"), shown in listings.
    package static let maximumLabelLength = 255
    static let stanzaLength = X25519.length + FormatV1.keyLength + ChaCha20Poly1305.tagLength   // 80

    /// Parses and validates a recipient slot; `name` names it in errors.
    init(type: UInt8, publicPart: [UInt8], stanza: [UInt8], name: String) throws(FormatError) {
        guard publicPart.count >= Self.fixedLength, publicPart.count <= Self.fixedLength + Self.maximumLabelLength,
              stanza.count == Self.stanzaLength else {
            throw .malformed("\(name): recipient slot of \(publicPart.count) + \(stanza.count) bytes, expected 40 to 295 + 80")
        }
        let labelBytes = Array(publicPart[Self.fixedLength...])
        guard let label = String(validating: labelBytes, as: UTF8.self),
              !label.unicodeScalars.contains(where: { $0.value < 0x20 || ($0.value >= 0x7F && $0.value <= 0x9F) }) else {
            throw .malformed("\(name): a recipient label that is not UTF-8 text without control characters")
        }
        let kind: VaultRecipient.Kind = type == KeySlotV2.ageRecipientType ? .age : .sshEd25519
        do throws(CofferError) {
            recipient = try VaultRecipient(kind: kind, key: Array(publicPart[0..<Self.keyLength]))
        } catch {
            throw .malformed("\(name): an ssh-ed25519 recipient key that is not an Ed25519 point")
        }
        added = publicPart[Self.keyLength..<Self.fixedLength].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        self.label = label
        self.stanza = stanza
    }

    /// The public part for a new slot.
    static func publicPart(recipient: VaultRecipient, added: UInt64, label: String) throws(FormatError) -> [UInt8] {
        let labelBytes = Array(label.utf8)
        guard labelBytes.count <= maximumLabelLength else { throw .invalidArgument("a recipient label is at most \(maximumLabelLength) bytes") }
        guard !label.unicodeScalars.contains(where: { $0.value < 0x20 || ($0.value >= 0x7F && $0.value <= 0x9F) }) else {
            throw .invalidArgument("a recipient label has no control characters")
        }
        var writer = ByteWriter(capacity: fixedLength + labelBytes.count)
        writer.bytes(recipient.key)
        writer.u64(added)
        writer.bytes(labelBytes)
        return writer.bytes
    }

    /// The epoch key this slot wraps for `scalar`, or nil when it does not open with it
    /// (another key's scalar, a share of small order, a failed tag). The caller checks the
    /// key's epoch id.
    func open(scalar: SecureBytes) throws(FormatError) -> SecureBytes? {
        try crypto { () throws(CofferError) -> SecureBytes? in
            let target = try recipient.stanzaRecipient
            // A scalar of another key: no need to try the stanza.
            guard ConstantTime.equals(try X25519.publicKey(scalar), target.publicKey) else { return nil }
            return try AgeStanza.unwrap(share: Array(stanza[0..<X25519.length]), body: Array(stanza[X25519.length...]),
                                        scalar: scalar, recipient: target, keyLength: FormatV1.keyLength)
        }
    }

    /// A stanza wrapping `epoch`'s key for this recipient.
    func stanza(for epoch: EpochKeys, entropy: EntropySource) throws(FormatError) -> [UInt8] {
        try Self.stanza(for: recipient, epoch: epoch, entropy: entropy)
    }

    static func stanza(for recipient: VaultRecipient, epoch: EpochKeys, entropy: EntropySource) throws(FormatError) -> [UInt8] {
        try crypto { () throws(CofferError) in
            let (share, body) = try AgeStanza.wrap(epoch.epochKey, to: try recipient.stanzaRecipient, entropy: entropy)
            return share + body
        }
    }
}

extension KeySlotV2 {
    /// A recipient slot's fields; nil for other slots.
    package var recipientSlot: RecipientSlot? {
        isRecipient ? try? RecipientSlot(type: type, publicPart: publicPart, stanza: stanza, name: "key slot") : nil
    }

    /// A new recipient slot for `recipient`, wrapping `epoch`'s key: no KDF, no credential
    /// of the recipient's.
    package static func make(recipient: VaultRecipient, label: String, added: UInt64, vaultID: [UInt8], epoch: EpochKeys,
                             entropy: EntropySource) throws(FormatError) -> KeySlotV2 {
        let publicPart = try RecipientSlot.publicPart(recipient: recipient, added: added, label: label)
        let stanza = try RecipientSlot.stanza(for: recipient, epoch: epoch, entropy: entropy)
        return try KeySlotV2(type: recipient.slotType, publicPart: publicPart, stanza: stanza, index: 0)
    }
}
