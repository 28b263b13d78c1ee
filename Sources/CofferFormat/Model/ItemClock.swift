import CofferCrypto

/// One independently merged part of an item (SPEC.md §17.2): a field, a list merged as a
/// whole (URLs, tags), or one named custom field, secret field or attachment. `code` is its
/// number on disk; a named one also has a `key` derived from its name (``keyed(_:name:occurrence:)``).
package struct Register: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let code: UInt8
    /// Zero, except for the registers of named fields.
    package let key: UInt64

    package init(code: UInt8, key: UInt64 = 0) {
        self.code = code
        self.key = key
    }

    package static func < (a: Register, b: Register) -> Bool { (a.code, a.key) < (b.code, b.key) }

    /// Whether registers with this code are one per field name (custom fields, secret fields, attachments).
    package static func isKeyed(_ code: UInt8) -> Bool { code == 15 || code == 0x83 || code == 0x85 }
    package var isKeyed: Bool { Self.isKeyed(code) }

    /// The register of the `occurrence`-th (from 0) field named `name` of a named-field code:
    /// key = the first 8 bytes, little-endian, of BLAKE2b-256("coffer.v1.field" ‖ 0x00 ‖ name ‖
    /// 0x00 ‖ occurrence as u32), never 0.
    package static func keyed(_ code: UInt8, name: some Collection<UInt8>, occurrence: UInt32) -> Register {
        var input = Array("coffer.v1.field".utf8) + [0]
        input += name
        input.append(0)
        withUnsafeBytes(of: occurrence.littleEndian) { input += $0 }
        let digest = (try? BLAKE2b.hash(input)) ?? []
        let key = digest.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Register(code: code, key: key == 0 ? 1 : key)
    }

    // Overview registers carry their overview tag; secret registers 0x80 + their secret tag.
    package static let kind = Register(code: 1), label = Register(code: 2), service = Register(code: 3)
    package static let account = Register(code: 4), server = Register(code: 5), `protocol` = Register(code: 6)
    package static let port = Register(code: 7), path = Register(code: 8), comment = Register(code: 9)
    package static let urls = Register(code: 10), tags = Register(code: 11), favorite = Register(code: 12)
    package static let fields = Register(code: 15)
    /// Every overview field of a tag this version does not assign, merged as one.
    package static let unknownOverview = Register(code: 0x7F)
    package static let password = Register(code: 0x81), notes = Register(code: 0x82)
    package static let secretFields = Register(code: 0x83), attachments = Register(code: 0x85)
    /// Every secret field of a tag this version does not assign, merged as one.
    package static let unknownSecret = Register(code: 0xFF)

    package static let all: [Register] = [.kind, .label, .service, .account, .server, .protocol, .port, .path,
                                          .comment, .urls, .tags, .favorite, .fields, .unknownOverview,
                                          .password, .notes, .secretFields, .attachments, .unknownSecret]

    package var isSecret: Bool { code >= 0x80 }
    package var isKnown: Bool { Self.isKnownCode(code) && (key != 0) == isKeyed }
    package static func isKnownCode(_ code: UInt8) -> Bool { all.contains { $0.code == code } }
    /// The register's code alone (the bit of the stamps mask).
    package var family: Register { Register(code: code) }

    /// The register (code) an overview field belongs to; nil for the dates and the clock fields.
    /// Named fields get their key from their name when a list is cut (``ItemParts``). The
    /// unassigned tag 0 is an unknown attribute like tags 16 and up (SPEC.md §17.2).
    static func ofOverviewTag(_ tag: UInt16) -> Register? {
        switch tag {
        case 1...12, 15: return Register(code: UInt8(tag))
        case 13, 14: return nil
        case 0, 16..<0x8000: return .unknownOverview
        default: return nil
        }
    }

    /// The register a secret field belongs to; nil for the history and conflict fields. The
    /// unassigned tag 0 is an unknown secret like tags 6 and up (SPEC.md §17.2).
    static func ofSecretTag(_ tag: UInt16) -> Register? {
        switch tag {
        case 1, 2, 3, 5: return Register(code: 0x80 | UInt8(tag))
        case 4: return nil
        case 0, 6..<0x8000: return .unknownSecret
        default: return nil
        }
    }

    /// The name people see: a field's name in `coffer history`, JSON and errors.
    package var description: String {
        switch family {
        case .kind: return "kind"
        case .label: return "label"
        case .service: return "service"
        case .account: return "account"
        case .server: return "server"
        case .protocol: return "protocol"
        case .port: return "port"
        case .path: return "path"
        case .comment: return "comment"
        case .urls: return "urls"
        case .tags: return "tags"
        case .favorite: return "favorite"
        case .fields: return "fields"
        case .unknownOverview: return "unknown-attributes"
        case .password: return "password"
        case .notes: return "notes"
        case .secretFields: return "secret-fields"
        case .attachments: return "attachments"
        case .unknownSecret: return "unknown-secrets"
        default: return "register-\(code)"
        }
    }
}

/// One value of a register: the register and the stamp of the edit that wrote it (a
/// register's winner or one of its siblings).
package struct ValueID: Hashable, Comparable, Sendable {
    package var register: Register
    package var stamp: Stamp

    package init(register: Register, stamp: Stamp) {
        self.register = register
        self.stamp = stamp
    }

    /// The order on disk: by register, then replica, then time.
    package static func < (a: ValueID, b: ValueID) -> Bool {
        (a.register, a.stamp.replica, a.stamp.time) < (b.register, b.stamp.replica, b.stamp.time)
    }
}

/// An item's merge metadata (SPEC.md §17.2), stored in its overview: what the item has
/// seen, the stamp of the edit that wrote each register's current value, the stamps of
/// concurrent values that lost (their values are in the secret part), and, for a
/// deleted item, what the deletion had seen.
package struct ItemClock: Equatable, Sendable {
    /// Every edit this version of the item has seen.
    package var versions: VersionVector
    /// The edit that wrote each register's value (registers never written are absent).
    package var stamps: [Register: Stamp]
    /// Concurrent values that lost to the register's value, by their stamps (ascending).
    package var siblings: [Register: [Stamp]]
    /// The stamp every present named field of a code in `defaultedCodes` has unless `stamps`
    /// names it: how the stamps field stores them compactly (resolved by ``resolved(present:)``).
    package var defaultStamp: Stamp?
    package var defaultedCodes: Set<UInt8> = []
    /// What the deletion(s) of this item had seen; the item is deleted while this covers `versions`.
    package var deleted: VersionVector?
    /// For a value (winner or sibling, not erased) that was last current in a state that had
    /// seen less than this item: that state's vector, reduced by ``deleted`` (its entries
    /// above the deletion's; SPEC.md §17.3, format 2). A value absent here has the default,
    /// ``defaultConfirmation``; an erased value has none (reduced, it is empty). A deletion
    /// erases a value exactly when it has seen its confirmation.
    package var confirmations: [ValueID: VersionVector] = [:]

    /// The confirmation of a value current in this state: the version vector reduced by the
    /// deletion vector.
    package var defaultConfirmation: VersionVector { versions.above(deleted) }
    /// Values whose contents a deletion erased while the item stayed live (format 2): their
    /// stamps stay, so that a copy which still holds one can bring it back when an edit the
    /// deletion had not seen confirmed it.
    package var erased: Set<ValueID> = []

    package init(versions: VersionVector, stamps: [Register: Stamp], siblings: [Register: [Stamp]] = [:],
                 deleted: VersionVector? = nil, confirmations: [ValueID: VersionVector] = [:], erased: Set<ValueID> = []) {
        self.versions = versions
        self.stamps = stamps
        self.siblings = siblings.filter { !$0.value.isEmpty }
        self.deleted = deleted
        self.confirmations = confirmations
        self.erased = erased
    }

    /// The clock with a stamp for every present named field (`present`: the registers that
    /// hold a value), from the default stamp where the stamps field left it implied.
    package func resolved(present: some Sequence<Register>) -> ItemClock {
        guard let defaultStamp, !defaultedCodes.isEmpty else { return self }
        var out = self
        for register in present where register.isKeyed && defaultedCodes.contains(register.code) && out.stamps[register] == nil {
            out.stamps[register] = defaultStamp
        }
        out.defaultedCodes = []
        out.defaultStamp = nil
        return out
    }

    /// A tombstone: every edit the item has seen was seen by a deletion.
    package var isDeleted: Bool { deleted.map { $0.dominates(versions) } ?? false }

    /// Most replicas an item's version vector names (SPEC.md §17.3: 256 KiB of version vector).
    package static let maxReplicas = 16_384

    /// The clock bounded to `limit` replicas (SPEC.md §17.9). Kept: every replica a stamp
    /// names (a value's, a losing value's, an erased value's, the default stamp's), every
    /// replica a confirmation vector or `alsoKeeping` names (the history's confirmations),
    /// every replica an edit of which the deletion had not seen (so a live item stays live),
    /// then the newest others by (time, replica); a dropped replica leaves the version vector
    /// and the deletion vector together, so a tombstone stays one and every confirmation
    /// stays reduced. Nothing is lost: the clock only forgets that it saw the dropped
    /// replicas' edits, so a version that still holds one of their values (a copy that
    /// missed more than `limit` writers) brings it back as a losing value.
    ///
    /// `everyLiveReplica` false (a clock whose confirmations were widened, §17.9): of the
    /// replicas above the deletion vector only the newest is kept, which keeps the item live.
    package func compacted(limit: Int = maxReplicas, alsoKeeping extra: some Sequence<VersionVector> = [],
                           everyLiveReplica: Bool = true) -> ItemClock {
        guard versions.count > limit else { return self }
        var kept = Set<UInt64>()
        for stamp in stamps.values { kept.insert(stamp.replica) }
        for list in siblings.values { for stamp in list { kept.insert(stamp.replica) } }
        for value in erased { kept.insert(value.stamp.replica) }
        for (value, vector) in confirmations {
            kept.insert(value.stamp.replica)
            kept.formUnion(vector.times.keys)
        }
        for vector in extra { kept.formUnion(vector.times.keys) }
        if let defaultStamp { kept.insert(defaultStamp.replica) }
        if let deleted {
            let live = versions.times.filter { $0.value > deleted[$0.key] }.map { Stamp(replica: $0.key, time: $0.value) }
            if everyLiveReplica { kept.formUnion(live.map(\.replica)) } else if let newest = live.max() { kept.insert(newest.replica) }
        }
        var out = self
        out.versions = versions.compacted(limit: limit, keeping: kept)
        if let deleted { out.deleted = VersionVector(deleted.times.filter { out.versions[$0.key] > 0 }) }
        return out
    }

    /// The clock of an item written before clocks existed (SPEC.md §17.6): one edit by a
    /// replica named after the record's digest, at its revision, wrote every register that
    /// has a value. Two copies of the same record agree; two different records are concurrent.
    package static func legacy(digest: Digest256, revision: UInt64, registers: some Sequence<Register>) -> ItemClock {
        let replica = digest.bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } | 1
        let stamp = Stamp(replica: replica, time: revision)
        var stamps: [Register: Stamp] = [:]
        for register in registers { stamps[register] = stamp }
        return ItemClock(versions: VersionVector([replica: revision]), stamps: stamps)
    }
}
