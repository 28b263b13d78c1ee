import CofferCrypto

/// The sync service whose naming a conflict copy follows.
package enum ConflictCopyOrigin: String, Sendable, CaseIterable {
    /// `NAME.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.EXT`.
    case syncthing
    /// `NAME (OWNER's conflicted copy YYYY-MM-DD).EXT`, with an optional ` (N)` after the date.
    case dropbox
    /// `NAME (conflicted copy [USER ]YYYY-MM-DD HHMMSS).EXT`, and older ownCloud's
    /// `NAME_conflict-YYYYMMDD-HHMMSS.EXT`.
    case nextcloud
}

/// A conflict copy of a vault file found next to it.
package struct ConflictCopy: Sendable, Equatable {
    /// The copy's path: the vault file's folder joined with the copy's name.
    package let path: String
    /// The service whose naming the copy follows.
    package let origin: ConflictCopyOrigin
}

/// Recognises the names sync services give the copies they leave beside a file that two
/// devices changed, by name alone, exactly as each service builds them (checked against
/// their sources, cited per format below).
///
/// Matching is on the UTF-8 bytes, without Unicode normalisation or case folding: the
/// services insert ASCII into the original name and keep the rest byte for byte. The
/// date and time must be digits in range (month 01-12, day 01-31, hour 00-23, minute and
/// second 00-59). Only direct copies of the vault name count: a copy of a copy
/// (`vault.sync-conflict-….sync-conflict-….coffer`) is not recognised, nor are names in
/// other languages (Dropbox and Nextcloud translate "conflicted copy").
package enum ConflictCopyName {
    /// The service whose conflict-copy naming `candidate` follows for a vault file named
    /// `vaultName` (a file name, not a path), or nil.
    ///
    /// ```swift
    /// ConflictCopyName.origin(of: "vault.sync-conflict-20240301-101530-ABCDEF7.coffer",
    ///                         forVaultNamed: "vault.coffer")   // .syncthing
    /// ```
    package static func origin(of candidate: String, forVaultNamed vaultName: String) -> ConflictCopyOrigin? {
        let name = Array(candidate.utf8)
        let vault = Array(vaultName.utf8)
        guard !vault.isEmpty, !vault.contains(slash), !name.contains(slash), name != vault else { return nil }

        // Syncthing splits with Go's filepath.Ext: from the last dot, even a leading one.
        if let middle = middle(of: name, around: splitGo(vault)), isSyncthingTag(middle) { return .syncthing }
        // Nextcloud, ownCloud and (as far as it shows) Dropbox split before the last dot
        // unless it is the first character (".hidden" has no extension).
        let qtSplit = splitQt(vault)
        if let middle = middle(of: name, around: qtSplit) {
            if isNextcloudTag(middle) || isOldOwnCloudTag(middle) { return .nextcloud }
            if isDropboxTag(middle) { return .dropbox }
        }
        // Dropbox is closed source: for a name with a leading dot, accept its tag at
        // either place.
        if let middle = middle(of: name, around: splitGo(vault)), isDropboxTag(middle) { return .dropbox }
        return nil
    }

    // MARK: - Splitting the vault name

    private static let slash = UInt8(ascii: "/")
    private static let dot = UInt8(ascii: ".")

    /// Stem and extension as Go's `filepath.Ext` splits them (Syncthing's `conflictName`):
    /// the extension starts at the last dot, which may be the first character.
    private static func splitGo(_ name: [UInt8]) -> (stem: ArraySlice<UInt8>, ext: ArraySlice<UInt8>) {
        guard let last = name.lastIndex(of: dot) else { return (name[...], []) }
        return (name[..<last], name[last...])
    }

    /// Stem and extension as the Nextcloud and ownCloud clients split them
    /// (`makeConflictFileName`: `dotLocation <= lastIndexOf('/') + 1` means no extension).
    private static func splitQt(_ name: [UInt8]) -> (stem: ArraySlice<UInt8>, ext: ArraySlice<UInt8>) {
        guard let last = name.lastIndex(of: dot), last > 0 else { return (name[...], []) }
        return (name[..<last], name[last...])
    }

    /// What `name` has between the vault's stem and extension, or nil when it does not
    /// start with the stem and end with the extension (non-overlapping).
    private static func middle(of name: [UInt8], around split: (stem: ArraySlice<UInt8>, ext: ArraySlice<UInt8>)) -> ArraySlice<UInt8>? {
        guard name.count > split.stem.count + split.ext.count,
              name.starts(with: split.stem),
              name.reversed().starts(with: split.ext.reversed()) else { return nil }
        return name[split.stem.count..<(name.count - split.ext.count)]
    }

    // MARK: - Tags

    /// Syncthing (lib/model/folder_sendrecv.go, `conflictName`):
    /// `name[:len(name)-len(ext)] + time.Now().Format(".sync-conflict-20060102-150405-") + lastModBy + ext`,
    /// where `lastModBy` is `ShortID.String()` (lib/protocol/deviceid.go): the first 7
    /// characters of the standard base32 encoding of the device id's first 8 bytes
    /// (A-Z, 2-7), or "" for the zero id.
    private static func isSyncthingTag(_ tag: ArraySlice<UInt8>) -> Bool {
        var reader = TagReader(tag)
        guard reader.take(".sync-conflict-"), reader.compactDateTime(), reader.take("-") else { return false }
        let device = reader.rest
        return device.isEmpty || (device.count == 7 && device.allSatisfy(isBase32))
    }

    /// Nextcloud desktop (src/common/utility.cpp, `Utility::makeConflictFileName`):
    /// `" (conflicted copy " + [user + " "] + dt.toString("yyyy-MM-dd hhmmss") + ")"`, the
    /// user name (the account's display name, when conflict files are uploaded) cleaned of
    /// `/?<>\:*|"`, control characters and parentheses. It may be empty after cleaning,
    /// which leaves two spaces.
    private static func isNextcloudTag(_ tag: ArraySlice<UInt8>) -> Bool {
        var reader = TagReader(tag)
        guard reader.take(" (conflicted copy ") else { return false }
        // The date and time are the last 18 bytes: "YYYY-MM-DD HHMMSS)".
        let rest = reader.rest
        guard rest.count >= 18 else { return false }
        var tail = TagReader(rest.suffix(18))
        guard tail.isoDate(), tail.take(" "), tail.digits(2, in: 0...23), tail.digits(2, in: 0...59),
              tail.digits(2, in: 0...59), tail.take(")"), tail.rest.isEmpty else { return false }
        let user = rest.dropLast(18)
        if user.isEmpty { return true }
        guard user.last == UInt8(ascii: " ") else { return false }
        return user.dropLast().allSatisfy { !forbiddenInNextcloudUser.contains($0) && $0 >= 0x20 && $0 != 0x7F }
    }

    /// What Nextcloud's `sanitizeForFileName` and the parenthesis replacement remove.
    private static let forbiddenInNextcloudUser: Set<UInt8> = Set("/?<>\\:*|\"()".utf8)

    /// Older ownCloud clients (src/libsync/filesystem.cpp, `FileSystem::makeConflictFileName`):
    /// `"_conflict-" + dt.toString("yyyyMMdd-hhmmss")` before the extension. (The variant
    /// with `CSYNC_CONFLICT_FILE_USERNAME` set, `_conflict_USER-…`, is not recognised.)
    private static func isOldOwnCloudTag(_ tag: ArraySlice<UInt8>) -> Bool {
        var reader = TagReader(tag)
        return reader.take("_conflict-") && reader.compactDateTime() && reader.rest.isEmpty
    }

    /// Dropbox (closed source; its help pages and observed names):
    /// `" (" + [owner + "'s "] + "conflicted copy " + "YYYY-MM-DD" + [" (N)"] + ")"`, the
    /// owner being a person's or a computer's name ("Jane's", "Jane Smith's MacBook's"),
    /// without parentheses or slashes; the apostrophe may be typographic (’).
    private static func isDropboxTag(_ tag: ArraySlice<UInt8>) -> Bool {
        var reader = TagReader(tag)
        guard reader.take(" (") else { return false }
        let marker = Array("conflicted copy ".utf8)
        // The owner, if any, runs up to the first "conflicted copy " and ends in "'s ".
        guard let start = reader.rest.firstRange(of: marker)?.lowerBound else { return false }
        let owner = reader.rest[..<start]
        if !owner.isEmpty {
            let straight = Array("'s ".utf8), curly = Array("\u{2019}s ".utf8)
            let ending = owner.reversed().starts(with: straight.reversed()) ? straight.count
                : owner.reversed().starts(with: curly.reversed()) ? curly.count : 0
            guard ending > 0 else { return false }
            let who = owner.dropLast(ending)
            guard !who.isEmpty, !who.contains(where: { $0 == UInt8(ascii: "(") || $0 == UInt8(ascii: ")") || $0 < 0x20 }) else { return false }
        }
        reader = TagReader(reader.rest[start...])
        guard reader.take("conflicted copy "), reader.isoDate() else { return false }
        if reader.take(" (") {
            // The second and later copies of a day: a positive number, no leading zero.
            let number = reader.rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            guard (1...9).contains(number.count), number.first != UInt8(ascii: "0") else { return false }
            reader = TagReader(reader.rest.dropFirst(number.count))
            guard reader.take(")") else { return false }
        }
        return reader.take(")") && reader.rest.isEmpty
    }

    private static func isBase32(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "2")...UInt8(ascii: "7")).contains(byte)
    }
}

/// Reads a tag from the front, one expected piece at a time; every step either consumes
/// what it expects and returns true, or returns false (the caller then gives up).
private struct TagReader {
    private(set) var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    mutating func take(_ literal: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard rest.starts(with: expected) else { return false }
        rest = rest.dropFirst(expected.count)
        return true
    }

    /// `count` ASCII digits whose value lies in `range`.
    mutating func digits(_ count: Int, in range: ClosedRange<Int>) -> Bool {
        guard rest.count >= count else { return false }
        var value = 0
        for byte in rest.prefix(count) {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return false }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard range.contains(value) else { return false }
        rest = rest.dropFirst(count)
        return true
    }

    /// `YYYY-MM-DD`.
    mutating func isoDate() -> Bool {
        digits(4, in: 0...9999) && take("-") && digits(2, in: 1...12) && take("-") && digits(2, in: 1...31)
    }

    /// `YYYYMMDD-HHMMSS`.
    mutating func compactDateTime() -> Bool {
        digits(4, in: 0...9999) && digits(2, in: 1...12) && digits(2, in: 1...31) && take("-")
            && digits(2, in: 0...23) && digits(2, in: 0...59) && digits(2, in: 0...59)
    }
}

extension VaultFileStore {
    /// The conflict copies of this vault file in its folder, sorted by name (bytewise).
    ///
    /// When `path` is a symbolic link, the copies are looked for next to the file it
    /// finally names, under that file's name: that is the file a sync service syncs (and
    /// the one saves replace); a link is synced as a link, never followed.
    ///
    /// Only regular files count, checked with `lstat` (never following links): a
    /// directory, FIFO or symbolic link named like a copy is skipped, as are the vault's
    /// own `.bak`, `.lock` and temporary files. A name that vanishes between the listing
    /// and its `lstat` is skipped. A missing folder -> `fileNotFound(folder)`.
    package func conflictCopies() throws(StoreError) -> [ConflictCopy] {
        let target = try resolved()
        let writer = try target.makeWriter()
        let (listed, code) = io.listDirectory(target.directory)
        guard let names = listed else {
            if code == Errno.noSuchFileOrDirectory || code == Errno.notDirectory { throw .fileNotFound(target.directory) }
            throw .system(.listDirectory, path: target.directory, errno: code)
        }
        var copies: [(name: String, copy: ConflictCopy)] = []
        for name in names {
            // Never copies, whatever a future pattern says.
            if name == target.baseName + ".bak" || name == target.baseName + ".lock" || writer.isTemporaryName(name) { continue }
            guard let origin = ConflictCopyName.origin(of: name, forVaultNamed: target.baseName) else { continue }
            let path = writer.joined(name)
            let (status, failure) = io.lstat(path)
            guard let status else {
                if failure == Errno.noSuchFileOrDirectory { continue }
                throw .system(.stat, path: path, errno: failure)
            }
            if status.isRegularFile { copies.append((name, ConflictCopy(path: path, origin: origin))) }
        }
        return copies.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }.map(\.copy)
    }
}
