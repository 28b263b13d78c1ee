import CofferCrypto
import Foundation

/// What unlocks one vault for a limited time, without its password: one key slot's
/// key-encryption key (format 1) or seeds (format 2), the slot's identity and an expiry
/// (SPEC.md §13.1).
///
/// An ``UnlockCache`` keeps these; ``Vault/open(at:unlockCache:options:)-(String,_,_)`` uses one and
/// ``Vault/cacheUnlock(in:for:)`` makes one. It opens the vault only while its key slot
/// is in the file (a password change or a removed key file ends it), only before
/// ``expires``, and only through that slot's AEAD, so a wrong or stale key never opens
/// anything. The key stays in guarded memory; ``description`` never shows it.
///
/// An app-provided store keeps the bytes of ``encoded()`` (guarded memory, to be kept
/// as a secret, e.g. a Keychain item) under ``vaultID`` and gives them back to
/// ``init(decoding:)``:
///
/// ```swift
/// let blob = try unlock.encoded()                 // SecureBytes: store as a secret
/// let again = try CachedUnlock(decoding: blob)    // what the store hands back
/// ```
public struct CachedUnlock: Sendable, CustomStringConvertible {
    /// The vault's id, 32 lowercase hex digits (``VaultInfo/vaultID``).
    public let vaultID: String
    /// The vault file it was made from, absolute; shown by `coffer status`, and a file
    /// at this path with another vault id ends it.
    public let path: String
    /// The kind of slot it opens.
    public var slotKind: KeySlotKind { slotKey.slotKind }
    /// When it stops opening the vault, to the millisecond.
    public let expires: Date
    package let slotKey: SlotKey

    package init(vaultID: String, path: String, expires: Date, slotKey: SlotKey) {
        self.vaultID = vaultID
        self.path = path
        self.expires = Date(millisecondsSince1970: expires.millisecondsSince1970)
        self.slotKey = slotKey
    }

    /// True at and after ``expires``.
    public func isExpired(at now: Date = Date()) -> Bool { now >= expires }

    public var description: String { entry.description }

    /// What it unlocks and until when, without the key: what a store lists.
    public var entry: CachedUnlockEntry {
        CachedUnlockEntry(vaultID: vaultID, path: path, slotKind: slotKind, expires: expires)
    }

    // MARK: Bytes (SPEC.md §13.1)

    /// `"coffer.unlock.v1"`: the payload of a format-1 or legacy slot (its KEK).
    static let magic = Array("coffer.unlock.v1".utf8)
    /// `"coffer.unlock.v2"`: the payload of a format-2 slot (its seed or seeds).
    static let magicV2 = Array("coffer.unlock.v2".utf8)
    /// Magic, vault id, slot type, slot identity, expiry, one key, path length.
    static let fixedLength = 16 + FormatV1.vaultIDLength + 1 + 16 + 8 + FormatV1.keyLength + 2
    /// The longest path kept (Linux's PATH_MAX).
    package static let maximumPathLength = 4096
    /// The longest payload (two seeds).
    package static let maximumLength = fixedLength + FormatV1.keyLength + maximumPathLength
    /// Where the secrets start: after magic, vault id, type, identity and expiry.
    static let keyStart = 16 + FormatV1.vaultIDLength + 1 + 16 + 8

    /// The payload of SPEC.md §13.1, in guarded memory: keep it as a secret.
    public func encoded() throws(CofferError) -> SecureBytes {
        let path = Array(path.utf8)
        guard path.count <= Self.maximumPathLength else { throw .invalidArgument("the vault path is over \(Self.maximumPathLength) bytes") }
        guard let vaultID = ItemID(hex: vaultID)?.bytes, vaultID.count == FormatV1.vaultIDLength else {
            throw .invalidArgument("a vault id is 32 hex digits")
        }
        let newStyle = slotKey.type >= KeySlotV2.passwordType
        var head = ByteWriter()
        head.bytes(newStyle ? Self.magicV2 : Self.magic)
        head.bytes(vaultID)
        head.u8(slotKey.type)
        head.bytes(slotKey.slotIdentity)
        head.u64(UInt64(max(0, expires.millisecondsSince1970)))
        var tail = ByteWriter()
        tail.u16(UInt16(path.count))
        tail.bytes(path)
        let secrets = slotKey.secrets
        guard secrets.count == SlotKey.secretCount(type: slotKey.type), secrets.allSatisfy({ $0.count == FormatV1.keyLength }),
              slotKey.slotIdentity.count == 16 else {
            throw .invalidKey("a cached unlock holds 32-byte keys, two for a password and key-file slot")
        }
        let keysLength = secrets.count * FormatV1.keyLength
        return try SecureBytes(count: head.bytes.count + keysLength + tail.bytes.count) { (out) throws(CofferError) in
            out.copyBytes(from: head.bytes)
            for (i, secret) in secrets.enumerated() {
                let at = head.bytes.count + i * FormatV1.keyLength
                secret.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[at..<(at + $0.count)]).copyMemory(from: $0) }
            }
            UnsafeMutableRawBufferPointer(rebasing: out[(head.bytes.count + keysLength)...]).copyBytes(from: tail.bytes)
        }
    }

    /// Reads a payload of SPEC.md §13.1 (either version); anything else (another magic, a
    /// slot type the magic does not allow, a wrong length, a path that is not UTF-8) throws
    /// ``CofferError/Kind/malformed``, never a crash.
    public init(decoding payload: SecureBytes) throws(CofferError) {
        guard payload.count >= Self.fixedLength, payload.count <= Self.maximumLength else {
            throw .malformed("cached unlock: \(payload.count) bytes")
        }
        let keyStart = Self.keyStart
        typealias Parsed = (vaultID: [UInt8], type: UInt8, identity: [UInt8], expires: UInt64, keyCount: Int, path: [UInt8])
        let parsed = try payload.withUnsafeBytes { (raw) throws(CofferError) -> Parsed in
            // Only the non-secret parts are read here; the keys are copied below, guarded.
            do throws(FormatError) {
                var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[0..<keyStart]))
                let magic = try reader.bytes(16, "cached unlock")
                let vaultID = try reader.bytes(FormatV1.vaultIDLength, "cached unlock")
                let type = try reader.u8("cached unlock")
                let identity = try reader.bytes(16, "cached unlock")
                let expires = try reader.u64("cached unlock")
                // Format 1's payload names a slot of types 1–4, format 2's a slot of 0x11–0x16.
                let allowed: ClosedRange<UInt8> = magic == Self.magic ? 1...4 : KeySlotV2.passwordType...KeySlotV2.sshRecipientType
                guard magic == Self.magic || magic == Self.magicV2 else { throw .malformed("cached unlock: not a coffer.unlock payload") }
                guard allowed.contains(type) else { throw .malformed("cached unlock: slot type \(type)") }
                let keyCount = SlotKey.secretCount(type: type)
                guard raw.count >= keyStart + keyCount * FormatV1.keyLength else { throw .malformed("cached unlock: keys cut short") }
                var pathReader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[(keyStart + keyCount * FormatV1.keyLength)...]))
                let length = Int(try pathReader.u16("cached unlock path"))
                let path = try pathReader.bytes(length, "cached unlock path")
                guard pathReader.isAtEnd else { throw .malformed("cached unlock: bytes after the path") }
                return (vaultID, type, identity, expires, keyCount, path)
            } catch {
                // A short payload is as malformed as any other: there is no file to be truncated.
                throw .malformed("cached unlock: \(CofferError(error).detail ?? "unreadable")")
            }
        }
        guard let path = String(validating: parsed.path, as: UTF8.self), parsed.expires <= UInt64(Int64.max) else {
            throw .malformed("cached unlock: path or expiry")
        }
        var secrets: [SecureBytes] = []
        for i in 0..<parsed.keyCount {
            secrets.append(try payload.slice((keyStart + i * FormatV1.keyLength)..<(keyStart + (i + 1) * FormatV1.keyLength)))
        }
        let slotKey = parsed.type >= KeySlotV2.passwordType
            ? SlotKey(slotIdentity: parsed.identity, seeds: KeySlotV2.Seeds(type: parsed.type, seeds: secrets))
            : SlotKey(slotIdentity: parsed.identity, slotKind: KeySlotKind(code: parsed.type), kek: secrets[0])
        self.init(vaultID: ItemID(validated: parsed.vaultID).hex, path: path,
                  expires: Date(millisecondsSince1970: Int64(parsed.expires)), slotKey: slotKey)
    }
}

/// A cached unlock without its key: which vault, from which file, which kind of slot,
/// until when. ``UnlockCache/entries()`` lists these, so a store can show and clean up
/// what it holds without handing out a key (and, behind Touch ID, without a touch).
///
/// ```swift
/// for entry in try KernelKeyring().entries() {
///     print(entry.path, entry.expires)       // `coffer status`
/// }
/// ```
public struct CachedUnlockEntry: Sendable, Hashable, CustomStringConvertible {
    /// The vault's id, 32 lowercase hex digits.
    public let vaultID: String
    /// The vault file it was made from, absolute.
    public let path: String
    public let slotKind: KeySlotKind
    public let expires: Date

    public init(vaultID: String, path: String, slotKind: KeySlotKind, expires: Date) {
        self.vaultID = vaultID
        self.path = path
        self.slotKind = slotKind
        self.expires = expires
    }

    /// True at and after ``expires``.
    public func isExpired(at now: Date = Date()) -> Bool { now >= expires }

    public var description: String { "cached unlock of vault \(vaultID) (\(slotKind) slot) until \(expires)" }
}
