import CofferCrypto
import CofferFormat

/// What this device remembers about vaults, kept in a state folder of its own (not next
/// to the vaults, which sync services copy to other devices):
///
/// - a **replica id** per vault path: a random non-zero `UInt64` this device stamps its
///   edits to the vault at that canonical path with. Each path gets its own id (a copy
///   of the vault at another path is another replica), an id is never handed to a second
///   path, and ``rotateReplicaID(forVaultAt:)`` replaces it with a fresh one;
/// - a **remembered clock** per vault id: a version vector (replica id -> counter), which
///   ``remember(clock:vaultID:)`` merges with the stored one by pointwise maximum.
///
/// ## Files
/// `<directory>/replicas/<hex BLAKE2b-256 of the path>` holds
/// `coffer-replica 1\n<path>\n<16 hex id>\n` (the path with `%`, control bytes and DEL
/// percent-escaped, so that it is one line); `<directory>/clocks/<32 hex vault id>` holds
/// `coffer-clock 1\n<32 hex vault id>\n` and one `<16 hex replica> <decimal counter>\n`
/// per replica, in ascending order of replica ids, counters positive. Folders are made
/// with mode 0700 (intermediate ones too; the umask may only take bits away), files are
/// written with mode 0600, each as a temporary file in the same folder renamed over the
/// file, and a failed write removes its temporary file.
///
/// ## Damage
/// Every state file is treated as hostile: read without following a symbolic link, only
/// if it is a regular file of at most ``maximumFileSize`` bytes, and parsed strictly. An
/// unusable file never stops the caller: a replica file that is damaged (or names another
/// path) is replaced by one with a fresh id; a damaged clock reads as empty and is
/// overwritten by the next ``remember(clock:vaultID:)``.
///
/// ## Durability and concurrency
/// The state is a hint, so nothing is `fsync`ed: after a power loss a file may hold an
/// older version (or, after a rename that did not reach the disk, none), which reads as
/// a missing or damaged file. A crash between creating a temporary file and renaming it
/// leaves that file behind (a few bytes, never read; nothing removes it, since another
/// process may be about to rename its own). Processes need no lock:
/// - creating a replica id links the new file into place, so when two processes create
///   one at once, the second finds the first one's id and returns it;
/// - ``remember(clock:vaultID:)`` reads the stored clock just before renaming the merged
///   one over it. Two processes remembering at the same instant may lose one of the two
///   merges (the last rename wins): the remembered clock then lags behind what that
///   process saw until it remembers again, but it never holds a counter nobody saw.
/// - Two concurrent ``rotateReplicaID(forVaultAt:)`` calls both return an id; the last
///   rename decides which one stays.
package struct ReplicaStateStore: Sendable {
    /// The state folder (created on the first write).
    package let directory: String
    let io: FileIO
    /// Where replica ids come from.
    let entropy: EntropySource

    /// Largest state file read or written: 1 MiB. A remembered clock holds at most a vault
    /// clock's 16,384 entries (SPEC.md §17.9), each a line of at most 38 bytes (about 610 KiB).
    static let maximumFileSize = 1 << 20
    /// Most entries a remembered clock keeps: as many as a vault clock names (SPEC.md §17.9).
    static var maximumClockEntries: Int { VaultHeaderV2.maxClockReplicas }

    package init(directory: String, io: FileIO = .live, entropy: EntropySource = .system) {
        self.directory = directory
        self.io = io
        self.entropy = entropy
    }

    /// `$XDG_STATE_HOME/coffer` when `XDG_STATE_HOME` is an absolute path (the XDG base
    /// directory rules ignore a relative one), else `$HOME/.local/state/coffer` when
    /// `HOME` is absolute, else nil.
    ///
    /// ```swift
    /// ReplicaStateStore.defaultDirectory(environment: ProcessInfo.processInfo.environment)
    /// ```
    package static func defaultDirectory(environment: [String: String]) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return PathName.joined(state, "coffer")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return PathName.joined(home, ".local/state/coffer")
        }
        return nil
    }

    // MARK: - Replica ids

    /// This device's replica id for the vault at `canonicalPath` (resolved by the caller:
    /// absolute, without symbolic links); a fresh one is made and stored when there is
    /// none or the stored one is damaged.
    package func replicaID(forVaultAt canonicalPath: String) throws(StoreError) -> UInt64 {
        let file = try replicaFile(for: canonicalPath)
        var attempts = 0
        while true {
            attempts += 1
            let stored = try readReplica(file, path: canonicalPath)
            if case .found(let id) = stored { return id }
            let id = try freshID(avoiding: 0)
            try ensureDirectory(replicasDirectory)
            let contents = Self.encodeReplica(path: canonicalPath, id: id)
            // A missing file is created exclusively: if another process stored an id
            // meanwhile, the next round reads and returns it. A damaged one (or a third
            // round) is replaced.
            if case .missing = stored, attempts < 3 {
                if try writeStateFile(contents, to: file, exclusive: true) { return id }
                continue
            }
            _ = try writeStateFile(contents, to: file, exclusive: false)
            return id
        }
    }

    /// Replaces the replica id for `canonicalPath` with a fresh one (different from the
    /// current one) and returns it; creates one if there was none.
    package func rotateReplicaID(forVaultAt canonicalPath: String) throws(StoreError) -> UInt64 {
        let file = try replicaFile(for: canonicalPath)
        var current: UInt64 = 0
        if case .found(let id) = try readReplica(file, path: canonicalPath) { current = id }
        let id = try freshID(avoiding: current)
        try ensureDirectory(replicasDirectory)
        _ = try writeStateFile(Self.encodeReplica(path: canonicalPath, id: id), to: file, exclusive: false)
        return id
    }

    // MARK: - Remembered clocks

    /// The clock remembered for the vault `vaultID` (16 bytes), `[:]` when none is
    /// stored or the stored one is damaged.
    package func rememberedClock(vaultID: [UInt8]) throws(StoreError) -> [UInt64: UInt64] {
        try readClock(vaultID: vaultID).clock
    }

    /// Merges `clock` into the clock remembered for `vaultID` (pointwise maximum) and
    /// stores the result, bounded as a vault clock is (SPEC.md §17.9; the replicas in
    /// `keeping` stay whatever their age); zero counters mean "not seen" and are not
    /// stored. A replica id of 0 -> `invalidArgument`. See the type's notes for two
    /// processes remembering at once.
    package func remember(clock: [UInt64: UInt64], vaultID: [UInt8], keeping: Set<UInt64> = []) throws(StoreError) {
        try store(clock: clock, vaultID: vaultID, replacing: false, keeping: keeping)
    }

    /// Replaces the clock remembered for `vaultID` by `clock`: the user accepted an older
    /// file as the vault's current version (a rollback), so what it lacks is no longer
    /// expected of the next files. Otherwise as ``remember(clock:vaultID:)``.
    package func forget(before clock: [UInt64: UInt64], vaultID: [UInt8]) throws(StoreError) {
        try store(clock: clock, vaultID: vaultID, replacing: true)
    }

    private func store(clock: [UInt64: UInt64], vaultID: [UInt8], replacing: Bool, keeping: Set<UInt64> = []) throws(StoreError) {
        guard clock[0] == nil else { throw .invalidArgument("a clock's replica ids are never 0") }
        // Read just before the rename below, to merge with what is there now.
        let (stored, valid) = try readClock(vaultID: vaultID)
        var merged = replacing ? [:] : stored
        for (replica, counter) in clock where counter > 0 {
            merged[replica] = max(merged[replica] ?? 0, counter)
        }
        merged = VersionVector(merged).compacted(limit: Self.maximumClockEntries, keeping: keeping).times
        if merged == stored && valid { return }
        let file = try clockFile(vaultID: vaultID)
        let contents = Self.encodeClock(merged, vaultID: vaultID)
        guard contents.count <= Self.maximumFileSize else {
            throw .fileTooLarge("a remembered clock of \(merged.count) replicas is larger than \(Self.maximumFileSize >> 10) KiB", path: file)
        }
        try ensureDirectory(clocksDirectory)
        _ = try writeStateFile(contents, to: file, exclusive: false)
    }

    // MARK: - Paths

    var replicasDirectory: String { PathName.joined(directory, "replicas") }
    var clocksDirectory: String { PathName.joined(directory, "clocks") }

    /// The replica file's name is a hash, so that any path (long, with any bytes) makes
    /// a short, safe name; the file repeats the path to rule out collisions.
    func replicaFile(for canonicalPath: String) throws(StoreError) -> String {
        PathName.joined(replicasDirectory, try Self.hashedName(canonicalPath, context: "coffer replica path"))
    }

    /// A state file's name for `canonicalPath`: the hex BLAKE2b-256 of `context`, 0x00 and the path.
    static func hashedName(_ canonicalPath: String, context: String) throws(StoreError) -> String {
        do throws(CofferError) {
            return hex(try BLAKE2b.hash(Array(context.utf8) + [0] + Array(canonicalPath.utf8)))
        } catch {
            throw .crypto(error)
        }
    }

    func clockFile(vaultID: [UInt8]) throws(StoreError) -> String {
        guard vaultID.count == FormatV1.vaultIDLength else {
            throw .invalidArgument("a vault id is \(FormatV1.vaultIDLength) bytes, not \(vaultID.count)")
        }
        return PathName.joined(clocksDirectory, Self.hex(vaultID))
    }

    // MARK: - Reading

    enum Replica: Equatable { case found(UInt64), missing, damaged }

    func readReplica(_ file: String, path: String) throws(StoreError) -> Replica {
        switch try readStateFile(file) {
        case .missing: return .missing
        case .damaged: return .damaged
        case .contents(let bytes):
            guard let id = Self.decodeReplica(bytes, path: path) else { return .damaged }
            return .found(id)
        }
    }

    /// The stored clock and whether the file was there and sound.
    func readClock(vaultID: [UInt8]) throws(StoreError) -> (clock: [UInt64: UInt64], valid: Bool) {
        let file = try clockFile(vaultID: vaultID)
        switch try readStateFile(file) {
        case .missing: return ([:], true)
        case .damaged: return ([:], false)
        case .contents(let bytes):
            guard let clock = Self.decodeClock(bytes, vaultID: vaultID) else { return ([:], false) }
            return (clock, true)
        }
    }

    enum StateFile { case missing, damaged, contents([UInt8]) }

    /// Reads a state file without following a symbolic link (one there is `damaged`),
    /// only a regular file of at most ``maximumFileSize`` bytes. Errors other than "not
    /// there" or "not a usable file" are thrown: the caller must not replace a file it
    /// merely could not read.
    func readStateFile(_ path: String) throws(StoreError) -> StateFile {
        // O_NONBLOCK: a FIFO planted at the path must not block the open.
        let opened = io.retryingInterrupts { io.open(path, OpenFlags.readOnly | OpenFlags.closeOnExec | OpenFlags.nonBlocking | OpenFlags.noFollow, 0) }
        if opened.failed {
            switch opened.errno {
            case Errno.noSuchFileOrDirectory, Errno.notDirectory: return .missing
            case Errno.tooManySymbolicLinkLevels, Errno.noSuchAddressOrDevice: return .damaged   // a symbolic link; a socket
            default: throw .system(.open, path: path, errno: opened.errno)
            }
        }
        let fd = Int32(truncatingIfNeeded: opened.value)
        defer { io.closeQuietly(fd) }
        let (found, code) = io.fstat(fd)
        guard let status = found else { throw .system(.stat, path: path, errno: code) }
        guard status.isRegularFile, status.size <= Int64(Self.maximumFileSize) else { return .damaged }

        // One byte more than allowed: a file that grew past the limit is seen to.
        var bytes = [UInt8](repeating: 0, count: Self.maximumFileSize + 1)
        var filled = 0
        while filled < bytes.count {
            let outcome = bytes.withUnsafeMutableBytes { buffer in
                let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
                return io.retryingInterrupts { io.read(fd, rest) }
            }
            if outcome.failed { throw .system(.read, path: path, errno: outcome.errno) }
            if outcome.value == 0 { break }
            filled += min(outcome.value, bytes.count - filled)
        }
        guard filled <= Self.maximumFileSize else { return .damaged }
        bytes.removeSubrange(filled...)
        return .contents(bytes)
    }

    // MARK: - Writing

    /// Writes `contents` to `path` (mode 0600) through a temporary file in the same
    /// folder. Replacing: renamed over `path`; returns true. Exclusive: linked to `path`,
    /// which never overwrites; returns false when a file is already there. No `fsync`:
    /// the state is a hint (see the type's notes). The temporary file is removed on
    /// every path out, success or failure.
    func writeStateFile(_ contents: [UInt8], to path: String, exclusive: Bool) throws(StoreError) -> Bool {
        let (temporary, fd) = try createTemporary(for: path)
        var open = true
        defer {
            if open { io.closeQuietly(fd) }
            io.unlinkQuietly(temporary)
        }
        // The umask may have removed bits from 0600; the owner needs both.
        let chmod = io.retryingInterrupts { io.fchmod(fd, 0o600) }
        if chmod.failed { throw .system(.setPermissions, path: temporary, errno: chmod.errno) }
        try io.writeAll(fd, contents, path: temporary)
        open = false
        // Never retried: after close returns, even with EINTR, the descriptor is gone.
        let closed = io.close(fd)
        if closed.failed { throw .system(.close, path: temporary, errno: closed.errno) }

        if exclusive {
            let linked = io.retryingInterrupts { io.link(temporary, path) }
            if !linked.failed { return true }
            if linked.errno == Errno.fileExists { return false }
            guard AtomicWriter.linksUnsupported(linked.errno) else {
                throw .system(.linkNew, path: path, errno: linked.errno)
            }
            // No hard links here (FAT, some network file systems): check, then rename.
            // Two creators racing in that gap both succeed; the last rename wins.
            if io.lstat(path).status != nil { return false }
        }
        let renamed = io.retryingInterrupts { io.rename(temporary, path) }
        if renamed.failed { throw .system(.commit, path: path, errno: renamed.errno) }
        return true
    }

    /// A new, empty temporary file beside `path`: `.<name>.tmp-<16 random hex digits>`,
    /// created exclusively (0600, never through a symbolic link).
    func createTemporary(for path: String) throws(StoreError) -> (path: String, fd: Int32) {
        var generator = SystemRandomNumberGenerator()
        let (folder, name) = PathName.split(path)
        var attempts = 0
        while true {
            let candidate = PathName.joined(folder, "." + name + ".tmp-" + Self.hex(generator.next() as UInt64))
            let opened = io.retryingInterrupts {
                io.open(candidate, OpenFlags.writeOnly | OpenFlags.create | OpenFlags.exclusive | OpenFlags.closeOnExec | OpenFlags.noFollow, 0o600)
            }
            if !opened.failed { return (candidate, Int32(truncatingIfNeeded: opened.value)) }
            attempts += 1
            // A name collision (64 random bits) is retried; anything else is final.
            if opened.errno != Errno.fileExists || attempts >= 8 {
                if opened.errno == Errno.noSuchFileOrDirectory || opened.errno == Errno.notDirectory { throw .fileNotFound(folder) }
                throw .system(.createTemporary, path: candidate, errno: opened.errno)
            }
        }
    }

    /// Makes `path` and any missing folders above it, mode 0700. An existing folder (or a
    /// symbolic link to one) is used as it is; anything else there -> `mkdir` `ENOTDIR`.
    package func ensureDirectory(_ path: String) throws(StoreError) {
        // The folders still to make, the deepest first.
        var pending = [path]
        while let current = pending.last {
            let made = io.retryingInterrupts { io.makeDirectory(current, 0o700) }
            if !made.failed {
                pending.removeLast()
                continue
            }
            switch made.errno {
            case Errno.fileExists:
                guard let status = try io.statIfExists(current), status.isDirectory else {
                    throw .system(.makeDirectory, path: current, errno: Errno.notDirectory)
                }
                pending.removeLast()
            case Errno.noSuchFileOrDirectory, Errno.notDirectory:
                // A folder above is missing, or is not a folder: go up to find which.
                let parent = PathName.parent(of: current)
                // A path has fewer than 4096 bytes, so fewer than 2048 folders.
                guard parent != current, pending.count < 2048 else { throw .fileNotFound(current) }
                pending.append(parent)
            default:
                throw .system(.makeDirectory, path: current, errno: made.errno)
            }
        }
    }

    /// A random id that is neither 0 nor `avoiding`.
    func freshID(avoiding excluded: UInt64) throws(StoreError) -> UInt64 {
        for _ in 0..<16 {
            let bytes: [UInt8]
            do throws(CofferError) {
                bytes = try entropy.bytes(8)
            } catch {
                throw .crypto(error)
            }
            let id = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if id != 0 && id != excluded { return id }
        }
        // Sixteen zero (or repeated) draws: the random source is broken.
        throw .crypto(.cryptoFailure("the random source keeps returning the same value"))
    }

    // MARK: - Encoding

    private static let newline = UInt8(ascii: "\n")
    private static let replicaHeader = Array("coffer-replica 1".utf8)
    private static let clockHeader = Array("coffer-clock 1".utf8)

    static func encodeReplica(path: String, id: UInt64) -> [UInt8] {
        replicaHeader + [newline] + escape(Array(path.utf8)) + [newline] + Array(hex(id).utf8) + [newline]
    }

    /// The id in `bytes`, nil unless they are exactly a replica file for `path`.
    static func decodeReplica(_ bytes: [UInt8], path: String) -> UInt64? {
        let lines = bytes.split(separator: newline, omittingEmptySubsequences: false)
        guard lines.count == 4, lines[3].isEmpty, lines[0].elementsEqual(replicaHeader),
              let storedPath = unescape(lines[1]), storedPath.elementsEqual(path.utf8),
              let id = parseHex64(lines[2]), id != 0 else { return nil }
        return id
    }

    static func encodeClock(_ clock: [UInt64: UInt64], vaultID: [UInt8]) -> [UInt8] {
        var out = clockHeader + [newline] + Array(hex(vaultID).utf8) + [newline]
        for replica in clock.keys.sorted() {
            guard let counter = clock[replica], counter > 0 else { continue }
            out += Array("\(hex(replica)) \(counter)\n".utf8)
        }
        return out
    }

    /// The clock in `bytes`, nil unless they are exactly a clock file for `vaultID`:
    /// replica ids non-zero and ascending, counters positive decimals without leading zeros.
    static func decodeClock(_ bytes: [UInt8], vaultID: [UInt8]) -> [UInt64: UInt64]? {
        let lines = bytes.split(separator: newline, omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[lines.count - 1].isEmpty, lines[0].elementsEqual(clockHeader),
              lines[1].elementsEqual(hex(vaultID).utf8) else { return nil }
        var clock: [UInt64: UInt64] = [:]
        var previous: UInt64 = 0
        for line in lines[2..<(lines.count - 1)] {
            guard line.count > 17, line[line.startIndex + 16] == UInt8(ascii: " "),
                  let replica = parseHex64(line.prefix(16)), replica > previous,
                  let counter = parseDecimal(line.dropFirst(17)), counter > 0 else { return nil }
            clock[replica] = counter
            previous = replica
        }
        return clock
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func hex(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// 16 lowercase hex digits.
    static func hex(_ value: UInt64) -> String {
        hex((0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) })
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// Exactly 16 lowercase hex digits.
    static func parseHex64(_ text: some Collection<UInt8>) -> UInt64? {
        guard text.count == 16 else { return nil }
        var value: UInt64 = 0
        for byte in text {
            guard let digit = hexValue(byte) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// A decimal `UInt64`: 1 to 20 digits, no sign, no leading zero, no overflow.
    static func parseDecimal(_ text: some Collection<UInt8>) -> UInt64? {
        guard (1...20).contains(text.count), text.count == 1 || text.first != UInt8(ascii: "0") else { return nil }
        var value: UInt64 = 0
        for byte in text {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// `%`, control bytes and DEL as `%XX` (uppercase hex); every other byte as it is.
    static func escape(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        let upper = Array("0123456789ABCDEF".utf8)
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "%") {
                out += [UInt8(ascii: "%"), upper[Int(byte >> 4)], upper[Int(byte & 0x0F)]]
            } else {
                out.append(byte)
            }
        }
        return out
    }

    /// The inverse of ``escape(_:)``; nil for anything it would not have written.
    static func unescape(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "%") {
                guard text.endIndex - index >= 3,
                      let high = upperHexValue(text[index + 1]), let low = upperHexValue(text[index + 2]) else { return nil }
                let decoded = high << 4 | low
                guard decoded < 0x20 || decoded == 0x7F || decoded == UInt8(ascii: "%") else { return nil }
                out.append(decoded)
                index += 3
            } else {
                guard byte >= 0x20, byte != 0x7F else { return nil }
                out.append(byte)
                index += 1
            }
        }
        return out
    }

    private static func upperHexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
