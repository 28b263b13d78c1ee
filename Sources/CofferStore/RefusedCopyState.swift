import CofferCrypto

/// A copy of a vault this device refused to merge, as remembered: which file (path and
/// identity: device, inode, size, modification time), when, and why. An unchanged file is
/// refused again without being read (`coffer sync`, run from a timer, reads a large or
/// foreign copy once, not on every run).
package struct RefusedCopyRecord: Sendable, Equatable {
    /// The copy's path as it was given.
    package let path: String
    /// The file as it was read when it was refused.
    package let identity: FileIdentity
    /// When it was refused, in milliseconds since 1970.
    package let refusedAt: Int64
    /// The refusal's error kind (`CofferError.Kind.rawValue`) and message.
    package let kind: String
    package let reason: String

    package init(path: String, identity: FileIdentity, refusedAt: Int64, kind: String, reason: String) {
        self.path = path
        self.identity = identity
        self.refusedAt = refusedAt
        self.kind = kind
        self.reason = reason
    }
}

/// The refusals remembered for one vault (its canonical path).
package struct RefusedCopies: Sendable, Equatable {
    package let vaultPath: String
    package var records: [RefusedCopyRecord]

    package init(vaultPath: String, records: [RefusedCopyRecord]) {
        self.vaultPath = vaultPath
        self.records = records
    }
}

/// Remembered refusals, in the same state folder as replica ids and clocks, under the same
/// rules (see ``ReplicaStateStore``: hostile files read strictly, without following links,
/// at most 1 MiB; written through a temporary file; a hint, never fsynced).
///
/// `<directory>/refused/<hex BLAKE2b-256 of "coffer refused copies" 0x00 and the vault's
/// canonical path>` holds `coffer-refused 1 <reader>\n<vault path>\n`, then one line per copy:
/// `<device> <inode> <size> <mtime ns> <refused ms> <kind>\t<copy path>\t<reason>\n` (numbers
/// in decimal; paths and reason escaped as ``ReplicaStateStore/escape(_:)`` does, so a tab or
/// newline in them is `%09`, `%0A`). `<reader>` is the highest format version this library
/// reads: a library that reads more ignores refusals an older one made.
extension ReplicaStateStore {
    /// At most this many refusals are kept per vault (the oldest go first).
    static let maximumRefusals = 100

    var refusedDirectory: String { PathName.joined(directory, "refused") }

    func refusedFile(forVaultAt canonicalPath: String) throws(StoreError) -> String {
        PathName.joined(refusedDirectory, try Self.hashedName(canonicalPath, context: "coffer refused copies"))
    }

    /// The refusals remembered for the vault at `canonicalPath` (none when the file is
    /// missing, damaged, for another path, or written by a library that reads other versions).
    package func refusals(forVaultAt canonicalPath: String, reader: UInt16) throws(StoreError) -> [RefusedCopyRecord] {
        guard case .contents(let bytes) = try readStateFile(try refusedFile(forVaultAt: canonicalPath)),
              let found = Self.decodeRefusals(bytes, reader: reader), found.vaultPath == canonicalPath else { return [] }
        return found.records
    }

    /// Every vault's remembered refusals (for a status overview), in no particular order.
    package func allRefusals(reader: UInt16) throws(StoreError) -> [RefusedCopies] {
        let (names, code) = io.listDirectory(refusedDirectory)
        guard let names else {
            if code == Errno.noSuchFileOrDirectory || code == Errno.notDirectory { return [] }
            throw .system(.listDirectory, path: refusedDirectory, errno: code)
        }
        var out: [RefusedCopies] = []
        for name in names.sorted() where name.utf8.count == 64 && !name.hasPrefix(".") {
            guard case .contents(let bytes) = try readStateFile(PathName.joined(refusedDirectory, name)),
                  let found = Self.decodeRefusals(bytes, reader: reader),
                  try refusedFile(forVaultAt: found.vaultPath) == PathName.joined(refusedDirectory, name) else { continue }
            out.append(found)
        }
        return out
    }

    /// Stores `records` (the newest ``maximumRefusals``, by refusal time) as the vault's
    /// refusals; none removes the file.
    package func storeRefusals(_ records: [RefusedCopyRecord], forVaultAt canonicalPath: String, reader: UInt16) throws(StoreError) {
        let file = try refusedFile(forVaultAt: canonicalPath)
        guard !records.isEmpty else {
            let removed = io.retryingInterrupts { io.unlink(file) }
            if removed.failed && removed.errno != Errno.noSuchFileOrDirectory { throw .system(.unlink, path: file, errno: removed.errno) }
            return
        }
        var kept = Array(records.sorted { $0.refusedAt > $1.refusedAt }.prefix(Self.maximumRefusals))
        var contents = Self.encodeRefusals(RefusedCopies(vaultPath: canonicalPath, records: kept), reader: reader)
        // Long paths and reasons: fewer entries, never a file over the limit.
        while contents.count > Self.maximumFileSize, !kept.isEmpty {
            kept.removeLast()
            contents = Self.encodeRefusals(RefusedCopies(vaultPath: canonicalPath, records: kept), reader: reader)
        }
        guard contents.count <= Self.maximumFileSize else {
            throw .fileTooLarge("remembered refusals for a vault path this long do not fit in 1 MiB", path: file)
        }
        try ensureDirectory(refusedDirectory)
        _ = try writeStateFile(contents, to: file, exclusive: false)
    }

    // MARK: Encoding

    private static let refusedHeader = "coffer-refused 1 "
    private static let tab = UInt8(ascii: "\t"), space = UInt8(ascii: " "), newline = UInt8(ascii: "\n")

    static func encodeRefusals(_ refusals: RefusedCopies, reader: UInt16) -> [UInt8] {
        var out = Array("\(refusedHeader)\(reader)\n".utf8) + escape(Array(refusals.vaultPath.utf8)) + [newline]
        for record in refusals.records {
            let id = record.identity
            // Times as their bit patterns: a modification time before 1970 is negative.
            out += Array("\(id.device) \(id.inode) \(id.size) \(UInt64(bitPattern: id.modifiedNanoseconds)) \(UInt64(bitPattern: record.refusedAt)) ".utf8)
            out += escape(Array(record.kind.utf8)) + [tab] + escape(Array(record.path.utf8)) + [tab] + escape(Array(record.reason.utf8)) + [newline]
        }
        return out
    }

    /// The refusals in `bytes`, nil unless they are exactly a refusals file written for `reader`.
    static func decodeRefusals(_ bytes: [UInt8], reader: UInt16) -> RefusedCopies? {
        let lines = bytes.split(separator: newline, omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[lines.count - 1].isEmpty, lines[0].elementsEqual("\(refusedHeader)\(reader)".utf8),
              let vault = unescape(lines[1]), !vault.isEmpty else { return nil }
        var records: [RefusedCopyRecord] = []
        for line in lines[2..<(lines.count - 1)] {
            let columns = line.split(separator: tab, omittingEmptySubsequences: false)
            guard columns.count == 3 else { return nil }
            let numbers = columns[0].split(separator: space, omittingEmptySubsequences: false)
            guard numbers.count == 6, let device = parseDecimal(numbers[0]), let inode = parseDecimal(numbers[1]),
                  let size = parseDecimal(numbers[2]), let modified = parseDecimal(numbers[3]), let refused = parseDecimal(numbers[4]),
                  size <= UInt64(Int64.max),
                  let kind = unescape(numbers[5]), !kind.isEmpty, let path = unescape(columns[1]), !path.isEmpty,
                  let reason = unescape(columns[2]) else { return nil }
            records.append(RefusedCopyRecord(
                path: String(decoding: path, as: UTF8.self),
                identity: FileIdentity(device: device, inode: inode, size: Int64(size), modifiedNanoseconds: Int64(bitPattern: modified)),
                refusedAt: Int64(bitPattern: refused), kind: String(decoding: kind, as: UTF8.self), reason: String(decoding: reason, as: UTF8.self)))
        }
        return RefusedCopies(vaultPath: String(decoding: vault, as: UTF8.self), records: records)
    }
}
