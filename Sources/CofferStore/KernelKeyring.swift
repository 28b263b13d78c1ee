import CofferCrypto
import CofferFormat

/// Cached unlocks in the Linux kernel keyring: one `user` key per vault in the session
/// keyring, readable only by its possessors, removed by the kernel when it expires
/// (SPEC.md §13.1).
///
/// No daemon runs and nothing is written to disk, the environment or a command line:
/// the key lives in kernel memory, which the kernel zeroes when it frees it. A process
/// possesses the key when it runs in the same session keyring (a login session, a
/// terminal's shell and what it starts); other sessions of the same user, other users
/// and containers do not. Where there is no kernel keyring, every method throws
/// ``CofferError/Kind/unlockCacheUnavailable``.
///
/// ```swift
/// let cache = KernelKeyring()
/// if let vault = try? Vault.open(at: path, unlockCache: cache) { … }        // no password
/// let vault = try Vault.open(at: path, password: password)
/// try vault.cacheUnlock(in: cache, for: .seconds(15 * 60))                  // `coffer unlock`
/// try cache.remove(forVault: vault.vaultID)                                 // `coffer lock`
/// ```
public struct KernelKeyring: UnlockCache {
    let io: KeyringIO
    /// What "now" is for a cached unlock's remaining lifetime and expiry.
    let clock: WallClock

    /// The session keyring of this process (keyrings(7)).
    public init() { self.init(io: .live) }

    package init(io: KeyringIO, clock: WallClock = .system) {
        self.io = io
        self.clock = clock
    }

    /// Descriptions are `coffer:v1:` and the vault id in lowercase hex.
    static let descriptionPrefix = "coffer:v1:"
    /// Possessor: view, read, write, search, set attributes; nobody else anything
    /// (`KEY_POS_VIEW | KEY_POS_READ | KEY_POS_WRITE | KEY_POS_SEARCH | KEY_POS_SETATTR`).
    /// No link permission, so it cannot be linked into a keyring others possess.
    static let possessorOnly: UInt = 0x2f00_0000
    /// `KEY_SPEC_SESSION_KEYRING`.
    static let sessionKeyring: Int32 = -3
    /// The longest timeout the kernel takes here: one day, as `coffer unlock --for` allows.
    package static let maximumLifetimeSeconds = 24 * 60 * 60

    public func store(_ unlock: CachedUnlock) throws(CofferError) {
        let seconds = Int(unlock.expires.timeIntervalSince(clock.now()).rounded(.up))
        guard seconds >= 1 else { throw .invalidArgument("the cached unlock has already expired") }
        guard seconds <= Self.maximumLifetimeSeconds else { throw .invalidArgument("a cached unlock lasts at most one day") }
        let ring = try sessionKeyringID()
        let payload = try unlock.encoded()
        let added = payload.withUnsafeBytes { io.addKey(Self.description(unlock.vaultID), $0, ring) }
        guard !added.failed else { throw Self.unavailable("add_key", added.errno) }
        let serial = UInt(bitPattern: added.value)
        // The kernel's timeout first, then the permissions; a failure of either removes the
        // key, so none outlives its expiry or stays readable by others.
        for (operation, argument) in [(KeyctlOperation.setTimeout, UInt(seconds)), (.setPermissions, Self.possessorOnly)] {
            let result = io.keyctl(operation, serial, argument, 0, 0)
            if result.failed {
                _ = io.keyctl(.invalidate, serial, 0, 0, 0)
                throw Self.unavailable("keyctl \(operation)", result.errno)
            }
        }
    }

    public func cachedUnlock(forVault vaultID: String) throws(CofferError) -> CachedUnlock? {
        guard let serial = try search(vaultID) else { return nil }
        return try read(serial, vaultID: vaultID)
    }

    public func remove(forVault vaultID: String) throws(CofferError) {
        guard let serial = try search(vaultID) else { return }
        let result = io.keyctl(.invalidate, serial, 0, 0, 0)
        if result.failed, !Self.isGone(result.errno) { throw Self.unavailable("keyctl invalidate", result.errno) }
    }

    /// The kernel keeps no metadata apart from the payload, so each is read (into guarded
    /// memory, wiped at once) for its path and expiry; no key leaves this call.
    public func entries() throws(CofferError) -> [CachedUnlockEntry] {
        let ring = try sessionKeyringID()
        var entries: [CachedUnlockEntry] = []
        for serial in try readInts(UInt(bitPattern: Int(ring))) {
            guard let vaultID = describe(UInt(UInt32(bitPattern: serial))),
                  let unlock = try read(UInt(UInt32(bitPattern: serial)), vaultID: vaultID) else { continue }
            entries.append(unlock.entry)
        }
        return entries.sorted { ($0.path, $0.vaultID) < ($1.path, $1.vaultID) }
    }

    // MARK: Calls

    static func description(_ vaultID: String) -> String { descriptionPrefix + vaultID.lowercased() }

    /// The session keyring's id, without creating one: a process with none shares the
    /// user's session keyring (keyrings(7)), so a key outlives the command that added it.
    func sessionKeyringID() throws(CofferError) -> Int32 {
        let result = io.keyctl(.getKeyringID, UInt(bitPattern: Int(Self.sessionKeyring)), 0, 0, 0)
        guard !result.failed else { throw Self.unavailable("keyctl get_keyring_id", result.errno) }
        return Int32(truncatingIfNeeded: result.value)
    }

    /// The serial of the vault's key, or nil when there is none (or it expired, was revoked).
    func search(_ vaultID: String) throws(CofferError) -> UInt? {
        let description = Self.description(vaultID)
        let result = "user".withCString { type in
            description.withCString { text in
                io.keyctl(.search, UInt(bitPattern: Int(Self.sessionKeyring)), UInt(bitPattern: type), UInt(bitPattern: text), 0)
            }
        }
        if result.failed {
            if Self.isGone(result.errno) { return nil }
            throw Self.unavailable("keyctl search", result.errno)
        }
        return UInt(bitPattern: result.value)
    }

    /// The key's payload as a cached unlock for `vaultID`; a payload that is malformed,
    /// names another vault or has expired is invalidated and gives nil.
    func read(_ serial: UInt, vaultID: String) throws(CofferError) -> CachedUnlock? {
        let capacity = CachedUnlock.maximumLength + 1
        var length = 0
        var failure: Int32 = 0
        let buffer = try SecureBytes(count: capacity) { (out) throws(CofferError) in
            let result = io.keyctl(.read, serial, UInt(bitPattern: out.baseAddress), UInt(out.count), 0)
            if result.failed { failure = result.errno } else { length = result.value }
        }
        if failure != 0 {
            if Self.isGone(failure) { return nil }
            throw Self.unavailable("keyctl read", failure)
        }
        let unlock: CachedUnlock? = if length <= CachedUnlock.maximumLength, let payload = try? buffer.slice(0..<length) {
            try? CachedUnlock(decoding: payload)
        } else {
            nil
        }
        guard let unlock, unlock.vaultID == vaultID.lowercased(), !unlock.isExpired(at: clock.now()) else {
            _ = io.keyctl(.invalidate, serial, 0, 0, 0)
            return nil
        }
        return unlock
    }

    /// The vault id of a key of ours, from `type;uid;gid;perm;description`; nil for others.
    func describe(_ serial: UInt) -> String? {
        var bytes = [UInt8](repeating: 0, count: 512)
        let result = bytes.withUnsafeMutableBytes { io.keyctl(.describe, serial, UInt(bitPattern: $0.baseAddress), UInt($0.count), 0) }
        guard !result.failed, result.value > 0, result.value <= bytes.count else { return nil }
        let text = String(decoding: bytes[0..<(result.value - 1)], as: UTF8.self)   // without the NUL
        let parts = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "user", parts[4].hasPrefix(Self.descriptionPrefix) else { return nil }
        let vaultID = String(parts[4].dropFirst(Self.descriptionPrefix.count))
        guard vaultID.count == 32, vaultID.allSatisfy(\.isHexDigit) else { return nil }
        return vaultID
    }

    /// A keyring's contents: 32-bit serials.
    func readInts(_ keyring: UInt) throws(CofferError) -> [Int32] {
        var capacity = 256
        while true {
            var serials = [Int32](repeating: 0, count: capacity)
            let result = serials.withUnsafeMutableBytes { io.keyctl(.read, keyring, UInt(bitPattern: $0.baseAddress), UInt($0.count), 0) }
            guard !result.failed else {
                if Self.isGone(result.errno) { return [] }
                throw Self.unavailable("keyctl read", result.errno)
            }
            let count = result.value / MemoryLayout<Int32>.size
            if count <= capacity { return Array(serials[0..<count]) }
            guard capacity < 1 << 20 else { return serials }
            capacity = count
        }
    }

    /// No such key, or one the kernel has expired or revoked: as if none.
    static func isGone(_ code: Int32) -> Bool {
        code == noKey || code == keyExpired || code == keyRevoked
    }

    // asm-generic/errno.h; named here because Darwin's headers lack them.
    static let noKey: Int32 = 126, keyExpired: Int32 = 127, keyRevoked: Int32 = 128

    static func unavailable(_ call: String, _ code: Int32) -> CofferError {
        let why = switch code {
        case Errno.noFunction: "this kernel has no keyring"
        case Errno.notPermitted, Errno.permissionDenied: "the kernel keyring refused access, as containers and sandboxes may"
        case Errno.diskQuotaExceeded: "the kernel keyring's quota is full"
        default: "\(call) failed"
        }
        return .unlockCacheUnavailable(why, errno: code)
    }
}
