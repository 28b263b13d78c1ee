import CofferCrypto
import CofferFormat
import CofferStore
import Dispatch
import Foundation

/// What an open vault knows of its file: the version it last read or wrote,
/// with every overview decrypted and checked.
package struct VaultSnapshot: Sendable {
    var header: VaultHeaderV2
    var generation: UInt64
    /// Every item's record and checked overview, in one dictionary: a large vault
    /// spends a good part of its opening time filling it.
    package var entries: [ItemID: SnapshotEntry] {
        // Yielded in place (a getter's copy retained the dictionary at every lookup).
        _read {
            if deferred == nil {
                yield liveEntries
            } else {
                yield deferredBuilt.live
            }
        }
        set { settleDeferred(); liveEntries = newValue }
        _modify { settleDeferred(); yield &liveEntries }
    }
    /// Deleted items (SPEC.md §17.5): kept with their content until compacted, so that a
    /// replica that has not seen the deletion merges correctly. Never listed.
    package var tombstones: [ItemID: SnapshotEntry] {
        _read {
            if deferred == nil {
                yield deletedEntries
            } else {
                yield deferredBuilt.deleted
            }
        }
        set { settleDeferred(); deletedEntries = newValue }
        _modify { settleDeferred(); yield &deletedEntries }
    }
    private var liveEntries: [ItemID: SnapshotEntry]
    private var deletedEntries: [ItemID: SnapshotEntry] = [:]
    /// The dictionaries a listing's opening left to be built when first read
    /// (``DeferredDictionaries``); nil once they are built into this snapshot.
    private var deferred: DeferredDictionaries?
    /// The deferred dictionaries, built (empty when none is deferred). The accessors above
    /// yield through this: `if let deferred { yield deferred.built.live }` crashes the Swift
    /// 6 compiler in release builds ("Found ownership error", in the read of `entries`).
    private var deferredBuilt: (live: [ItemID: SnapshotEntry], deleted: [ItemID: SnapshotEntry]) { deferred?.built ?? ([:], [:]) }
    /// Records damaged on disk whose overview does not open (SPEC.md §10, notes: only what
    /// uses them fails): kept out of every listing, and a save refuses while any is left
    /// (``checkDigests(keys:)``): damage is never dropped silently.
    /// ``Vault/repairDamaged(from:dryRun:)`` replaces or removes them.
    package var damaged: [ItemID: RecordV2] = [:]
    var identity: FileIdentity
    /// The format version of the file read: 1 for a format-1 file held as format-2 parts,
    /// which the next save upgrades (SPEC.md §11.1).
    var sourceVersion: UInt16 = FormatV2.version
    /// True when every record's digest is known to match the manifest: checked, or sealed
    /// by this process. An open checks digests lazily (SPEC.md §10, step 13), so a save
    /// checks the records it carries forward first, unless this is set: damage is never
    /// carried into a freshly MACed file.
    var digestsChecked = false
    /// Built on the first write, so opening and listing never pay for it. A reference,
    /// so that a transaction's copy of the snapshot builds it for the vault too.
    private var index = UniqueIndex()

    var vaultID: [UInt8] { header.vaultID }

    /// Opens the overviews of a lazily read snapshot (``init(codec:keys:identity:reusing:lazy:)``);
    /// nil once every overview is open (or for a snapshot read eagerly).
    private var opener: OverviewOpener?
    /// Unique keys looked up by tag so far (``holders(of:)``).
    private var taggedKeyLookups = 0
    /// The file the records not read yet are read from (a file read in windows,
    /// ``VaultFileReader/readParsed(_:)``); nil once every record is in memory.
    private var source: HeldFile?
    /// The records as read, in file order, while the snapshot is read lazily: a lookup by
    /// tag scans their rows in one array rather than every entry of the dictionary.
    private var rows: [RecordV2] = []
    /// Set by a change made on the snapshot: its rows then no longer list every item, and
    /// lookups read every overview (a change is made on a fully opened snapshot anyway).
    private var changedSinceRead = false
    /// While a lazily read snapshot has not built its dictionaries (``materialize()``): the
    /// entries made for the rows looked up so far, shared by the snapshot's copies (a
    /// reference), so that an overview opened once stays open.
    private var looked: LookedUpEntries?

    /// True when every record's overview has been opened (and the damaged ones set apart).
    var isFullyOpened: Bool { opener == nil }

    /// Decrypts every overview of a verified file, on all cores. Overviews of records
    /// that are byte for byte those of `previous` are reused instead of decrypted again.
    ///
    /// With `lazy`, nothing is decrypted yet: every record is held by its row (live or
    /// tombstone by the row's flag), an item's overview is opened when it is first read
    /// (``openedEntry(_:)``, a lookup by tag, SPEC.md §8.1), and everything that needs every
    /// item opens them all first (``openAll()``), setting the damaged ones apart as an eager
    /// read does. Nothing is returned from a record before its overview has opened.
    package init(codec: VaultFileV2, keys: EpochKeys, identity: FileIdentity, reusing previous: VaultSnapshot? = nil,
                 lazy: Bool = false) throws(CofferError) {
        header = codec.header
        generation = codec.generation
        sourceVersion = codec.sourceVersion
        self.identity = identity
        let read = codec.records
        liveEntries = [:]
        opener = OverviewOpener(vaultID: codec.header.vaultID, keys: keys)
        if lazy {
            // No dictionary of every item yet: a lookup finds its rows in the array, sorted by id.
            rows = read
            looked = LookedUpEntries()
        } else {
            fill(from: read)
            try openAll(reusing: previous)
        }
    }

    /// Puts an entry for each record in ``entries`` or ``tombstones`` (by the row's flag),
    /// the ones looked up already as they are.
    private mutating func fill(from read: [RecordV2]) {
        entries.reserveCapacity(read.count)
        for record in read {
            let entry = looked?.entries[record.id] ?? SnapshotEntry(unopened: record)
            if record.isTombstone { tombstones[record.id] = entry } else { entries[record.id] = entry }
        }
    }

    /// The dictionaries of entries `made` for rows of ids and tombstone flags `keys`.
    private static func dictionaries(_ keys: [(ItemID, Bool)], _ made: [SnapshotEntry])
        -> (live: [ItemID: SnapshotEntry], deleted: [ItemID: SnapshotEntry]) {
        var live: [ItemID: SnapshotEntry] = [:], deleted: [ItemID: SnapshotEntry] = [:]
        live.reserveCapacity(made.count)
        // By index, one retain per entry (a zip's copies took two and a release), and from the
        // last entry back: the windows' threads open the entries from the first on, each
        // writing its entry's overview beside the reference count an insert here changes.
        for index in made.indices.reversed() {
            let (id, isTombstone) = keys[index]
            if isTombstone { deleted[id] = made[index] } else { live[id] = made[index] }
        }
        return (live, deleted)
    }

    /// Puts the dictionaries a listing's opening deferred into this snapshot, built now
    /// if no copy of it has built them yet: before any change to either.
    private mutating func settleDeferred() {
        guard let deferred else { return }
        (liveEntries, deletedEntries) = deferred.built
        self.deferred = nil
    }

    /// The dictionaries of a listing's opening, built when first read rather than while its
    /// overviews open: a listing reads its entries from the array it opened, and 100,000
    /// inserts on a third thread took the two cores that open the overviews 8 ms of a
    /// 100,000-entry `coffer list` (which then exits). Copies of the snapshot share it, so
    /// they are built once; they never change after (a change settles them first).
    /// @unchecked: its state changes only under `lock`.
    private final class DeferredDictionaries: @unchecked Sendable {
        private let lock = NSLock()
        private var keys: [(ItemID, Bool)]
        private var made: [SnapshotEntry]
        private var damaged: Set<ItemID>
        private var result: (live: [ItemID: SnapshotEntry], deleted: [ItemID: SnapshotEntry])?

        /// The rows' ids and tombstone flags, the entries made for them in row order, and
        /// the ids of those set apart as damaged (in neither dictionary).
        init(keys: [(ItemID, Bool)], made: [SnapshotEntry], damaged: Set<ItemID>) {
            self.keys = keys
            self.made = made
            self.damaged = damaged
        }

        var built: (live: [ItemID: SnapshotEntry], deleted: [ItemID: SnapshotEntry]) {
            lock.lock()
            defer { lock.unlock() }
            if let result { return result }
            var built = VaultSnapshot.dictionaries(keys, made)
            for id in damaged {
                built.live[id] = nil
                built.deleted[id] = nil
            }
            result = built
            (keys, made, damaged) = ([], [], [])
            return built
        }
    }

    /// Builds the dictionaries of a lazily read snapshot (every path that reads every item, and
    /// every change, comes through here first).
    private mutating func materialize() {
        guard looked != nil else { return }
        fill(from: rows)
        self.looked = nil
        rows = []   // the dictionaries hold every record now: a listing of 100,000 held both (12.8 MB)
    }

    /// The entry of the row with id `id` (live or deleted), before the dictionaries are built:
    /// found in the rows by binary search, made once and kept in ``looked``.
    private func lookedUp(_ id: ItemID) -> SnapshotEntry? {
        guard let looked else { return nil }
        if let entry = looked.entries[id] { return entry }
        var low = 0, high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if rows[middle].id < id { low = middle + 1 } else { high = middle }
        }
        guard low < rows.count, rows[low].id == id else { return nil }
        let entry = SnapshotEntry(unopened: rows[low])
        looked.entries[id] = entry
        return entry
    }

    /// The live entry of item `id`, opened or not (nil for none, a tombstone, a damaged record).
    func liveEntry(_ id: ItemID) -> SnapshotEntry? {
        if looked != nil { return lookedUp(id).flatMap { $0.record.isTombstone ? nil : $0 } }
        return entries[id]
    }

    /// Whether any record of the snapshot (live, deleted or damaged) has id `id`.
    func holdsRecord(_ id: ItemID) -> Bool {
        if looked != nil { return lookedUp(id) != nil }
        return entries[id] != nil || tombstones[id] != nil || damaged[id] != nil
    }

    /// A snapshot of a file just opened: read lazily (``init(codec:keys:identity:reusing:lazy:)``),
    /// its records read from `held` when they are first used, a window at a time when all are.
    init(codec: VaultFileV2, keys: EpochKeys, identity: FileIdentity, held: HeldFile?) throws(CofferError) {
        try self.init(codec: codec, keys: keys, identity: identity, lazy: true)
        source = held
    }

    /// The most bytes of records read at once when every record is read (``openAll(reusing:)``).
    package static let windowSize = 4 << 20

    /// Reads the records of `entries` not read yet from ``source``, in windows of consecutive
    /// records of at most ``windowSize`` bytes (a larger record alone).
    private func loadRecords(of entries: [SnapshotEntry]) throws(CofferError) {
        let pending = Self.inFileOrder(entries.filter { $0.unloadedLocation != nil })
        guard !pending.isEmpty else { return }
        try readRecords(pending.count, location: { pending[$0].unloadedLocation }) { (index, bytes) throws(FormatError) in
            pending[index].setRecord(try pending[index].record.loaded(from: bytes))
        }
    }

    /// The live entries in the order of their records in the file (those in memory first):
    /// the order their entries and overviews were made in when the file was read, so that a
    /// pass over every overview (a listing's rows and keys) reads memory in order rather than
    /// in the dictionary's hash order, where each entry and each overview was a cache miss.
    func liveEntriesInFileOrder() -> [SnapshotEntry] {
        Self.inFileOrder(Array(entries.values))
    }

    /// `entries` sorted by where their records are in the file, those in memory first. The
    /// offsets are read once: a comparison that read them copied two records (and retained
    /// their bytes) each time, n log n times over a large vault.
    private static func inFileOrder(_ entries: [SnapshotEntry]) -> [SnapshotEntry] {
        let order = fileOrder(offsets: entries.map { $0.unloadedLocation?.offset ?? -1 })
        return order.map { entries[$0] }
    }

    /// The indices of `records` sorted by where they are in the file, those in memory first.
    private static func fileOrder(_ records: [RecordV2]) -> [Int] {
        // Each place read where the record is (``RecordV2/location(at:)``), not by copying it.
        records.withUnsafeBufferPointer { records in
            fileOrder(offsets: records.indices.map { RecordV2.location(at: records.baseAddress! + $0)?.offset ?? -1 })
        }
    }

    /// The indices of `offsets` in ascending order (-1, in memory, first); a file read in
    /// order gives them in order already, and is not sorted again.
    private static func fileOrder(offsets: [Int]) -> [Int] {
        if zip(offsets, offsets.dropFirst()).allSatisfy({ $0 <= $1 }) { return Array(offsets.indices) }
        return offsets.indices.sorted { offsets[$0] < offsets[$1] }
    }

    /// The most bytes of records a core reads and opens at once when a listing opens every
    /// overview (``openOverviewsInPieces(of:opener:reusing:keeping:)``): small enough that a
    /// piece stays in the core's cache between its read and its decryption, and that the
    /// last piece of one core keeps the other waiting for well under a millisecond.
    package static let pieceSize = 256 << 10

    /// `count` records in file order cut into runs of at most `limit` bytes (a larger
    /// record alone; one in memory counts nothing), `length(i)` the bytes of the `i`-th.
    private static func windows(count: Int, limit: Int = windowSize, length: (Int) -> Int) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var start = 0
        while start < count {
            var end = start + 1, bytes = length(start)
            while end < count, bytes + length(end) <= limit {
                bytes += length(end)
                end += 1
            }
            out.append(start..<end)
            start = end
        }
        return out
    }

    /// Opens every overview not yet open, on all cores (SPEC.md §10 step 15): a record whose
    /// overview fails its AEAD is damaged (only what uses it fails: it is set apart, listed by
    /// its id, never as an item); any other failure (a malformed list, a lookup tag that does
    /// not match its name) fails as an open of the whole file does. Overviews of records that
    /// are byte for byte those of `previous` are reused.
    ///
    /// Records not read yet are read a window at a time (``windowSize``), in file order, and
    /// their overviews opened before the next window is read. With `keepingRecords` false (a
    /// listing, which needs the overviews only) the records are read a piece at a time by the
    /// core that opens them (``pieceSize``, ``openOverviewsInPieces(of:opener:reusing:keeping:)``)
    /// and each piece's bytes are let go once its overviews are open: the snapshot stays lazy,
    /// and reads them again when they are used, so a listing never holds the whole file.
    /// Otherwise every record is kept in memory and the file is closed.
    ///
    /// Without `keepingOverviews` (a save, which checks every record it carries but reads
    /// none of them) the overviews not open yet are opened, checked and let go: the damaged
    /// are set apart as always, and the others open again when they are read (the snapshot
    /// stays lazy). At 100,000 entries that is 23 MB a save no longer holds.
    ///
    /// Returns the live entries, their overviews open, in the manifest's row order (the order
    /// their entries and overviews were made in, so that a pass over every overview, a
    /// listing's, reads memory in order; the file's order too in every file Coffer writes),
    /// when it opened a lazily read snapshot whole; nil otherwise (then
    /// ``liveEntriesInFileOrder()`` gives them).
    @discardableResult
    mutating func openAll(reusing previous: VaultSnapshot? = nil, keepingRecords: Bool = true,
                          keepingOverviews: Bool = true) throws(CofferError) -> [SnapshotEntry]? {
        guard let opener else { return nil }
        let all: [SnapshotEntry]
        // A lazily read snapshot: an entry per row now, in row order, and its dictionaries
        // built on another thread while the overviews are opened (100,000 random inserts
        // took a listing 40 ms before its first overview). Nothing below reads them until
        // they are in place.
        var building: ParallelWork.Background<(live: [ItemID: SnapshotEntry], deleted: [ItemID: SnapshotEntry]), Never>?
        var deferring: (keys: [(ItemID, Bool)], made: [SnapshotEntry])?
        var madeInRowOrder = false
        // Every entry made now, none opened, in file order: then every entry is pending, as
        // it is, without a pass that checks each entry and one that reads where each lies.
        var madeUnopenedInFileOrder = false
        // The rows' ids and tombstone flags, in row order (a lazily read snapshot's).
        var rowKeys: [(ItemID, Bool)] = []
        if let looked {
            let found = looked.entries
            // (A lookup per row in an empty dictionary took 5 ms at 100,000 rows.)
            let made = found.isEmpty ? rows.map(SnapshotEntry.init(unopened:)) : rows.map { found[$0.id] ?? SnapshotEntry(unopened: $0) }
            // Ids, flags and places read where the rows are: `rows[i].location` copied the whole
            // record (a retain and a release) for each of them.
            let read = rows.withUnsafeBufferPointer { rows -> (keys: [(ItemID, Bool)], ascending: Bool) in
                guard let base = rows.baseAddress else { return ([], true) }
                var ascending = true, previous = -1
                let keys = rows.indices.map { index in
                    if ascending {
                        let offset = RecordV2.location(at: base + index)?.offset ?? -1
                        ascending = offset > previous
                        previous = offset
                    }
                    return (RecordV2.id(at: base + index), RecordV2.isTombstone(at: base + index))
                }
                return (keys, ascending)
            }
            madeUnopenedInFileOrder = found.isEmpty && read.ascending
            // Ids and flags from the rows: a window's thread may be loading an entry's record.
            rowKeys = read.keys
            let keys = rowKeys
            // A listing (which keeps no record) reads the entries it opened, not these: they
            // are built when first read (``DeferredDictionaries``).
            if keepingRecords || !keepingOverviews {
                building = ParallelWork.Background { Self.dictionaries(keys, made) }
            } else {
                deferring = (keys, made)
            }
            all = made
            madeInRowOrder = true
            // The entries hold every record now (a listing of 100,000 held the rows too: 12.8 MB).
            self.looked = nil
            rows = []
        } else {
            all = Array(entries.values) + Array(tombstones.values)
        }
        defer {
            // On a failure too, as when the dictionaries were built first: the damaged set apart.
            if let built = building?.wait() {
                entries = built.live
                tombstones = built.deleted
                for id in damaged.keys {
                    entries[id] = nil
                    tombstones[id] = nil
                }
            }
            // (Both stored dictionaries are empty: a lazily read snapshot keeps what it looked
            // up and changed in ``looked``.)
            if let deferring {
                deferred = DeferredDictionaries(keys: deferring.keys, made: deferring.made, damaged: Set(damaged.keys))
            }
        }
        // File order: windows of consecutive records (those in memory already go first).
        let pending = madeUnopenedInFileOrder ? all
            : Self.inFileOrder(all.filter { !$0.isOpened || (keepingRecords && $0.unloadedLocation != nil) })
        // A listing of records one after another in the file: read and opened a piece at a
        // time on every core (``openOverviewsInPieces(of:opener:reusing:keeping:)``).
        var inPieces = false
        if !keepingRecords { inPieces = try openOverviewsInPieces(of: pending, opener: opener, reusing: previous, keeping: keepingOverviews) }
        for range in inPieces ? [] : Self.windows(count: pending.count, length: { pending[$0].unloadedLocation?.length ?? 0 }) {
            let window = Array(pending[range])
            // A listing's window of records one after another in the file: read at once, each
            // overview opened from those bytes on the core that opens it, and no record kept
            // (loading each record into its entry, then letting it go, copied every record
            // twice on one core: 12 ms of a 100,000-entry listing).
            if !keepingRecords, let bytes = try contiguousBytes(of: window) {
                try openOverviews(of: window, from: bytes, opener: opener, reusing: previous, keeping: keepingOverviews)
                continue
            }
            try loadRecords(of: window)
            try openOverviews(of: window.filter { !$0.isOpened }, opener: opener, reusing: previous, keeping: keepingOverviews)
            // Let go only while the file is held to read them again (not after a save, which
            // checked every record in memory and closed it).
            if !keepingRecords && source != nil {
                for entry in window { entry.unloadRecord() }
            }
        }
        // The live entries by the rows' ids and flags, not each entry's record (a copy of each);
        // every entry as it is when none is deleted or damaged (no retain of each, far apart).
        let damaged = self.damaged
        let live = !(madeInRowOrder && keepingOverviews) ? nil
            : damaged.isEmpty && !rowKeys.contains(where: \.1) ? all
            : all.indices.filter { !rowKeys[$0].1 && damaged[rowKeys[$0].0] == nil }.map { all[$0] }
        guard keepingRecords else { return live }
        rows = []
        source = nil   // every record is in memory: the file is closed
        if keepingOverviews { self.opener = nil }
        return live
    }

    /// Opens the overviews of `pending` when none is opened or in memory and their records lie
    /// one after another in the file held (as a file read in order gives them; false, and
    /// nothing done, otherwise): the records are cut into pieces of at most ``pieceSize``
    /// bytes, and each core takes the next piece, reads it and opens its overviews from
    /// those bytes, keeping no record (``ParallelWork/forEachPiece(count:threads:_:)``).
    ///
    /// One window after another, each read on one core and then opened on all, left a core
    /// idle during every read and at the end of every window: a quarter of the two cores'
    /// time while a 100,000-entry listing opened its overviews (`perf`: 1.75 cores busy).
    /// Failures are those of the windows: the first record in file order that fails decides.
    private mutating func openOverviewsInPieces(of pending: [SnapshotEntry], opener: OverviewOpener, reusing previous: VaultSnapshot?,
                                                keeping: Bool) throws(CofferError) -> Bool {
        guard let source, Self.contiguousSpan(of: pending) != nil else { return false }
        let pieces = Self.windows(count: pending.count, limit: Self.pieceSize) { pending[$0].unloadedLocation?.length ?? 0 }
        var opened = [Bool](repeating: false, count: pending.count)
        // Entries reached through a buffer pointer: indexing the array from the threads
        // retained it from every thread at once.
        let outcome = opened.withUnsafeMutableBufferPointer { opened in
            pending.withUnsafeBufferPointer { pending in Result { () throws(CofferError) in
                try ParallelWork.forEachPiece(count: pieces.count) { (piece) throws(CofferError) in
                    let range = pieces[piece]
                    // A part of the span checked above: one after another too.
                    guard let span = Self.contiguousSpan(of: pending[range]) else {
                        throw .invalidArgument("entry records \(range) are not one after another in the file")
                    }
                    let bytes = try storeCall { () throws(StoreError) in try source.read(at: span.lowerBound, count: span.count) }
                    let done = bytes.withUnsafeBytes { raw in Result { () throws(FormatError) in
                        for index in range {
                            opened[index] = try Self.openOverview(of: pending[index], readFrom: raw, at: span.lowerBound,
                                                                  opener: opener, reusing: previous, keeping: keeping)
                        }
                    } }
                    try formatCall { () throws(FormatError) in try done.get() }
                }
            } }
        }
        try outcome.get()
        setDamaged(pending, opened: opened)
        return true
    }

    /// Opens `entry`'s overview (SPEC.md §10 step 15): reused from `previous` when its record
    /// is byte for byte the same there, else from `read` (its bytes read at once with others,
    /// the first of them at file offset `offset`) when given, else from its record in memory.
    /// Kept in the entry with `keeping`; false when its AEAD fails (damaged).
    private static func openOverview(of entry: SnapshotEntry, readFrom read: UnsafeRawBufferPointer?, at offset: Int,
                                     opener: OverviewOpener, reusing previous: VaultSnapshot?, keeping: Bool) throws(FormatError) -> Bool {
        let record = entry.record
        let overview: [UInt8]?
        if let previous, let old = previous.entries[record.id] ?? previous.tombstones[record.id],
           old.isOpened, old.record.isSameRecord(as: record) {
            overview = old.overview
        } else if let read, let location = record.location {
            let start = location.offset - offset
            guard start >= 0, start + location.length <= read.count else {
                throw .truncated("entry record \(record.id.hex): past the bytes read")
            }
            overview = try opener.open(record, readFrom: UnsafeRawBufferPointer(rebasing: read[start..<(start + location.length)]))
        } else {
            overview = try opener.open(record)
        }
        // Each entry is set by the one thread that opens it.
        if let overview, keeping { entry.setOverview(overview) }
        return overview != nil
    }

    /// Sets apart the entries of `pending` whose overview did not open (`opened` false): damaged.
    private mutating func setDamaged(_ pending: [SnapshotEntry], opened: [Bool]) {
        for (entry, isOpen) in zip(pending, opened) where !isOpen {
            let id = entry.record.id
            entries[id] = nil
            tombstones[id] = nil
            damaged[id] = entry.record
        }
    }

    /// The bytes of `entries`' records, read at once, and where the first lies in the file,
    /// when none is opened or in memory and they lie one after another in the file (as a file
    /// read in order gives them); nil otherwise.
    private func contiguousBytes(of entries: [SnapshotEntry]) throws(CofferError) -> RecordBytes? {
        guard let source, let span = Self.contiguousSpan(of: entries) else { return nil }
        let bytes = try storeCall { () throws(StoreError) in try source.read(at: span.lowerBound, count: span.count) }
        return RecordBytes(bytes: bytes, offset: span.lowerBound)
    }

    /// Where `entries`' records lie in the file, when none is opened or in memory and they lie
    /// one after another there (as a file read in order gives them); nil otherwise.
    private static func contiguousSpan(of entries: some Collection<SnapshotEntry>) -> Range<Int>? {
        guard let first = entries.first?.unloadedLocation else { return nil }
        var end = first.offset
        for entry in entries {
            guard !entry.isOpened, let location = entry.unloadedLocation, location.offset == end else { return nil }
            end += location.length
        }
        return first.offset..<end
    }

    /// Records' bytes read at once from the file, the first of them at `offset`.
    private struct RecordBytes {
        let bytes: [UInt8]
        let offset: Int
    }

    /// Opens the overviews of `pending` on all cores, setting the damaged ones apart: from
    /// their records in memory, or, with `read` (``contiguousBytes(of:)``), from their bytes
    /// read at once, their records staying unread.
    private mutating func openOverviews(of pending: [SnapshotEntry], from read: RecordBytes? = nil, opener: OverviewOpener,
                                        reusing previous: VaultSnapshot?, keeping: Bool = true) throws(CofferError) {
        // Records are reached through a buffer pointer: indexing the array from the
        // threads copied each record, retaining the file buffer they all share from
        // every thread at once.
        let opened = try pending.withUnsafeBufferPointer { (pending) throws(CofferError) -> [Bool] in
            try (read?.bytes ?? []).withUnsafeBytes { raw in Result { () throws(CofferError) -> [Bool] in
                try formatCall { () throws(FormatError) in try ParallelWork.map(count: pending.count) { (index) throws(FormatError) -> Bool in
                    try Self.openOverview(of: pending[index], readFrom: read == nil ? nil : raw, at: read?.offset ?? 0,
                                          opener: opener, reusing: previous, keeping: keeping)
                } }
            } }.get()
        }
        setDamaged(pending, opened: opened)
    }

    /// The entry of item `id` (live or deleted) with its overview open: opened now when the
    /// snapshot was read lazily and it was not yet. Nil when there is none, or when its
    /// overview does not open (damaged: as in an eager read, it is no item).
    func openedEntry(_ id: ItemID) throws(CofferError) -> SnapshotEntry? {
        guard let entry = looked != nil ? lookedUp(id) : entries[id] ?? tombstones[id] else { return nil }
        return try opened(entry) ? entry : nil
    }

    /// Opens `entry`'s overview if it is not yet; false when it is damaged.
    func opened(_ entry: SnapshotEntry) throws(CofferError) -> Bool {
        // The record's bytes too: whoever asks for one item may read its secrets.
        if entry.unloadedLocation != nil { try loadRecords(of: [entry]) }
        if entry.isOpened { return true }
        guard let opener else { return false }
        guard let overview = try formatCall({ () throws(FormatError) in try opener.open(entry.record) }) else { return false }
        entry.setOverview(overview)
        return true
    }

    /// The live entries whose row carries one of `tags` (SPEC.md §8.1), overviews opened,
    /// damaged ones left out; nil when the snapshot is fully open (then the caller reads every
    /// overview as it always did: that costs nothing more than the decoding).
    func liveEntries(taggedWith tags: Set<UInt64>) throws(CofferError) -> [SnapshotEntry]? {
        guard opener != nil, !changedSinceRead else { return nil }
        guard looked != nil else { return try openedLiveEntries { tags.contains($0.record.lookupTag) } }
        var found: [SnapshotEntry] = []
        // Tags are compared in the rows' array (a tombstone's tag is 0, never a name's); the
        // few that match are looked up. An entry changed since the read keeps its id. A name
        // has a handful of tags (two for an ASCII name): a scan of them costs less per row
        // than hashing the row's tag into the set (9 million instructions at 100,000 rows).
        let wanted = Array(tags)
        for row in rows where !row.isTombstone && wanted.contains(row.lookupTag) {
            if let entry = liveEntry(row.id), tags.contains(entry.record.lookupTag), try opened(entry) { found.append(entry) }
        }
        return found
    }

    /// The live entries whose id begins with the hex digits `prefix`, overviews opened;
    /// nil when the snapshot is fully open.
    func liveEntries(idPrefix matches: (ItemID) -> Bool) throws(CofferError) -> [SnapshotEntry]? {
        guard opener != nil, !changedSinceRead else { return nil }
        guard looked != nil else { return try openedLiveEntries { matches($0.record.id) } }
        var found: [SnapshotEntry] = []
        for row in rows where !row.isTombstone && matches(row.id) {
            if let entry = liveEntry(row.id), try opened(entry) { found.append(entry) }
        }
        return found
    }

    /// The live entries `wanted` selects, overviews opened, in id order (as the rows were):
    /// once the dictionaries are built (a listing), the rows are gone and they are looked up here.
    private func openedLiveEntries(where wanted: (SnapshotEntry) -> Bool) throws(CofferError) -> [SnapshotEntry] {
        var found: [SnapshotEntry] = []
        for entry in entries.values where wanted(entry) {
            if try opened(entry) { found.append(entry) }
        }
        return found.sorted { $0.record.id < $1.record.id }
    }

    /// The keys a lazily read snapshot opens overviews with (nil once fully open).
    var lookupKeys: EpochKeys? { opener?.keys }

    /// The ids of the records whose overview is open (tests: a lookup by tag opens only its rows').
    var openedIDs: [ItemID] {
        (looked.map { Array($0.entries.values) } ?? Array(entries.values) + Array(tombstones.values)).filter(\.isOpened).map(\.record.id)
    }

    /// Whether a checked overview is that of a deleted item: its deletion vector dominates
    /// its version vector (only those with a deletion field are decoded to find out).
    static func isTombstone(_ overview: [UInt8]) throws(CofferError) -> Bool {
        guard ItemClockCodec.mayBeDeleted(overview) else { return false }
        return try formatCall { () throws(FormatError) in try ItemClockCodec.decode(overview: overview)?.isDeleted ?? false }
    }

    /// The version of item `id`, live or deleted, for merging and editing.
    func version(_ id: ItemID) throws(CofferError) -> ItemVersion? {
        guard let entry = try openedEntry(id) else { return nil }
        return try ItemVersion(record: entry.record, overview: entry.overview)
    }

    /// The attributes of item `id`, decoded from its (checked) overview.
    func attributes(_ id: ItemID) throws(CofferError) -> ItemAttributes? {
        guard liveEntry(id) != nil, let list = try openedEntry(id)?.overview else { return nil }
        return try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(list) }
    }

    /// The items holding `key`: by a scan of the overviews for the first few keys asked
    /// (``UniqueIndex/scanned(_:in:)``), then from the index, built on that use.
    ///
    /// A lazily read snapshot looks the first few keys up by their lookup tags instead
    /// (``NameTags``): only the records of the rows tagged with the key's service or server
    /// are opened. Past those (an import), every overview is opened and the index built.
    mutating func holders(of key: UniquenessKey) throws(CofferError) -> KeyHolders? {
        if let keys = lookupKeys, taggedKeyLookups < UniqueIndex.scansBeforeBuilding,
           let tagged = try liveEntries(taggedWith: NameTags.tags(kind: NameTags.nameKey(of: key).0, name: NameTags.nameKey(of: key).1, keys: keys)) {
            taggedKeyLookups += 1
            var found: KeyHolders?
            for entry in tagged where UniqueIndex.overview(entry.overview, has: key) {
                found = found?.inserting(entry.record.id) ?? KeyHolders(entry.record.id)
            }
            return found
        }
        try openAll()
        if let found = index.scanned(key, in: entries) { return found }
        index.build(from: entries)
        return index.holders[key]
    }

    /// The record of item `id`.
    func record(_ id: ItemID) -> RecordV2? { liveEntry(id)?.record }

    /// Every record, tombstones included, in no particular order.
    var allRecords: [RecordV2] { entries.values.map(\.record) + tombstones.values.map(\.record) }

    /// How many records the snapshot holds, live and deleted (its rows while read lazily).
    var recordCount: Int { looked != nil ? rows.count : entries.count + tombstones.count }

    /// Forgets the decrypted overviews, and the records with them (unlocking reads the
    /// file again).
    mutating func forgetAttributes() {
        // The storage, not `entries`: setting that builds deferred dictionaries first.
        liveEntries = [:]
        deletedEntries = [:]
        deferred = nil
        damaged = [:]
        index = UniqueIndex()
        looked = nil
        opener = nil   // it holds the keys: a locked vault keeps none
        source = nil
        rows = []
    }

    /// ``forgetAttributes()`` for a vault that is locked or going away: a large vault's
    /// entries are freed on another thread. Freeing 100,000 entries (three heap blocks
    /// each) takes tens of milliseconds, which a command that has printed its answer
    /// would otherwise spend before it can exit. Only plain attributes go this way:
    /// keys and secrets live in guarded memory and are wiped where they are released.
    mutating func releaseAttributes() {
        // The rows of a lazily read file too: 100,000 records are freed in about 10 ms.
        // Dictionaries a listing deferred go as they are (reading `entries` would build them).
        let old = (liveEntries, rows, deferred)
        forgetAttributes()
        guard old.0.count >= Self.backgroundReleaseThreshold || old.1.count >= Self.backgroundReleaseThreshold || old.2 != nil else { return }
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(old) {} }
    }

    static let backgroundReleaseThreshold = 10_000

    /// Checks every record's secret part (its AEAD, SPEC.md §10 step 15), on all cores,
    /// unless ``digestsChecked``; then sets it. Format 2 has no record digest: a record
    /// carried into a new file is checked by opening it. A damaged record (``damaged``)
    /// fails it: a save never drops one silently.
    ///
    /// `keepingOverviews` false (a save that reads no item): the overviews are checked and
    /// not kept (``openAll(reusing:keepingRecords:keepingOverviews:)``); once checked, the
    /// records in memory are not checked again.
    mutating func checkDigests(keys: EpochKeys, keepingOverviews: Bool = true) throws(CofferError) {
        if let id = damaged.keys.min() { throw .tampered(.entry(id.hex)) }
        // Checked and every record in memory (a rotation's): the dictionaries built, since a
        // save encodes what they list, and nothing opened again.
        if digestsChecked && !keepingOverviews && source == nil {
            materialize()
            return
        }
        // A built unique index is kept up to date from the overviews of the items changed.
        try openAll(keepingOverviews: keepingOverviews || index.isBuilt)
        if let id = damaged.keys.min() { throw .tampered(.entry(id.hex)) }
        guard !digestsChecked else { return }
        let records = allRecords
        try formatCall { () throws(FormatError) in try RecordV2.verifySecrets(records, vaultID: vaultID, keys: keys) }
        digestsChecked = true
    }

    /// Every record sealed again under `new` (a rotation, SPEC.md §11.2), in id order, each
    /// under a fresh nonce: all drawn from `entropy` first, in id order, so that the same
    /// inputs give the same file.
    ///
    /// What a save checks first (``checkDigests(keys:keepingOverviews:)``) the sealing checks
    /// as it goes: every secret part is opened (its AEAD), and every overview not opened yet is
    /// checked as opening it would (``RecordV2/resealed(vaultID:from:to:nonce:scratch:checkingOverview:)``),
    /// in the one decryption the sealing makes. A damaged record fails it, as it fails a save.
    ///
    /// Records not read yet are read a piece at a time (``pieceSize``), in file order, each by
    /// the core that seals it again, and each piece is let go once it is sealed: a rotation
    /// holds the old records a piece per core, not the whole file beside its successor. A snapshot read lazily stays so (its
    /// rows are sealed; no entry is made for every record). The snapshot itself is unchanged
    /// until ``replaceRecords(_:keys:)``.
    func resealedRecords(from old: EpochKeys, to new: EpochKeys, entropy: EntropySource) throws(CofferError) -> [RecordV2] {
        if let id = damaged.keys.min() { throw .tampered(.entry(id.hex)) }
        // In id order: the rows of a lazily read snapshot are; the entries are sorted.
        let held: [SnapshotEntry] = looked != nil ? [] : (Array(entries.values) + Array(tombstones.values)).sorted { $0.record.id < $1.record.id }
        // A lazily read snapshot that looked nothing up (a password change right after the
        // unlock) takes its rows as they are: a lookup per row in the empty dictionary, twice,
        // took 100,000 rows about 10 ms on one core.
        let lookedUp = looked?.entries ?? [:]
        var records = looked == nil ? held.map(\.record) : lookedUp.isEmpty ? rows : rows.map { lookedUp[$0.id]?.record ?? $0 }
        // An overview not opened yet is checked as it is sealed again.
        let checking = looked == nil ? held.map { !$0.isOpened }
            : lookedUp.isEmpty ? [Bool](repeating: true, count: rows.count) : rows.map { !(lookedUp[$0.id]?.isOpened ?? false) }
        let nonces = try entropy.bytes(records.count * FormatV1.nonceLength)
        let order = Self.fileOrder(records)
        let vaultID = vaultID
        // A piece of records read at once, then loaded and sealed again, by the core that took
        // the piece (``EpochRotation/reseal(_:at:loading:vaultID:from:to:nonces:checkingOverviews:threads:)``
        // on one thread); each core takes the next piece when done (``ParallelWork/forEachPiece(count:threads:_:)``).
        // Windows read on one core, then sealed on all, left a core idle at every read and
        // every window's end. Each piece writes only its own records.
        try records.withUnsafeMutableBufferPointer { (all) throws(CofferError) in
            guard let base = all.baseAddress else { return }
            let pieces = Self.windows(count: order.count, limit: Self.pieceSize) { RecordV2.location(at: base + order[$0])?.length ?? 0 }
            try ParallelWork.forEachPiece(count: pieces.count) { (piece) throws(CofferError) in
                let window = Array(order[pieces[piece]])
                var bytes = [ArraySlice<UInt8>?](repeating: nil, count: window.count)
                try readRecords(window.count, location: { RecordV2.location(at: base + window[$0]) }) { (position, read) throws(FormatError) in
                    bytes[position] = read
                }
                try formatCall { () throws(FormatError) in
                    try EpochRotation.reseal(all, at: window, loading: bytes, vaultID: vaultID, from: old, to: new,
                                             nonces: nonces, checkingOverviews: checking, threads: 1)
                }
            }
        }
        return records
    }

    /// Reads the bytes of `count` records (in file order; `location` nil for one in memory)
    /// from ``source``, one call per run of records that follow each other in the file, of at
    /// most ``windowSize`` bytes (a larger record alone), and gives each to `body` by index.
    private func readRecords(_ count: Int, location: (Int) -> RecordV2.Location?,
                             _ body: (Int, ArraySlice<UInt8>) throws(FormatError) -> Void) throws(CofferError) {
        var index = 0
        while index < count {
            guard let first = location(index) else { index += 1; continue }
            guard let source else { throw .invalidArgument("entry records were not read and their file is no longer open") }
            var end = index + 1, length = first.length
            while end < count, let next = location(end), next.offset == first.offset + length, length + next.length <= Self.windowSize {
                length += next.length
                end += 1
            }
            let window = try storeCall { () throws(StoreError) in try source.read(at: first.offset, count: length) }
            try formatCall { () throws(FormatError) in
                for position in index..<end {
                    guard let at = location(position) else { continue }
                    let from = at.offset - first.offset
                    try body(position, window[from..<(from + at.length)])
                }
            }
            index = end
        }
    }

    /// Puts `records` (the same items, sealed again under `keys`: a rotation, in id order) in
    /// place of the held ones; the overviews opened stay, as their plaintexts did not change,
    /// and those not opened yet open with `keys` when they are read. Call it on a snapshot
    /// whose copies are let go (the vault's own, after the save): its old records then go
    /// as the new ones come, rather than both being held whole.
    ///
    /// A snapshot read lazily stays so, its rows now the records in memory: the dictionaries
    /// of every entry are built by whatever reads every item next (as after an open), or by
    /// the next save (``checkDigests(keys:keepingOverviews:)``), which carries these checked
    /// records as they are. Building them here took a password change at 100,000 entries
    /// 45 ms after its file was written, for a vault most often let go at once.
    mutating func replaceRecords(_ records: [RecordV2], keys: EpochKeys) {
        if let looked {
            let next = LookedUpEntries()
            for record in records {
                if let entry = looked.entries[record.id] {
                    next.entries[record.id] = SnapshotEntry(record: record, opened: entry.openedOverview)
                }
            }
            self.looked = next
            // The rows replaced (ciphertexts and places only) are let go on another thread.
            let replaced = rows
            rows = records
            ParallelWork.release(inBackground: replaced)
        } else {
            for record in records {
                if let entry = entries[record.id] {
                    entries[record.id] = SnapshotEntry(record: record, opened: entry.openedOverview)
                } else if let entry = tombstones[record.id] {
                    tombstones[record.id] = SnapshotEntry(record: record, opened: entry.openedOverview)
                }
            }
        }
        // Every record is in memory now, sealed under `keys`: the old file is not read again.
        source = nil
        if opener != nil { opener = OverviewOpener(vaultID: vaultID, keys: keys) }
    }

    /// The save of `changes` streamed from the file this snapshot reads lazily
    /// (``StreamedSave``): its rows with the records `changes` sealed in their places. Nil
    /// when the snapshot reads no file (read whole, opened in full, format 1, damage known):
    /// such a save is made from memory.
    func streamedSave(applying changes: Changeset, header: VaultHeaderV2, generation: UInt64) throws(CofferError) -> StreamedSave? {
        guard looked != nil, let source, let opener, sourceVersion == FormatV2.version, damaged.isEmpty,
              rows.allSatisfy({ !$0.isLoaded }) else { return nil }
        let sealed = changes.sealedItems.map(\.item.record).sorted { $0.id < $1.id }
        return try StreamedSave(carrying: rows, sealed: sealed, header: header, generation: generation, source: source, opener: opener)
    }

    /// This snapshot made the file `save` wrote (held open as `held`): read lazily from it as
    /// an open reads, the items `changes` sealed in memory with their overviews. The header,
    /// generation and identity are the caller's to set, as after a save from memory.
    mutating func adoptStreamed(_ save: StreamedSave, held: HeldFile, changes: Changeset) {
        if !isKnownUniquelyReferenced(&index) { index = index.copy() }
        index.forgetScans()   // they were of the items before the change
        let entries = LookedUpEntries()
        for (id, item) in changes.sealedItems { entries.entries[id] = SnapshotEntry(record: item.record, overview: item.overview) }
        looked = entries
        rows = save.rows
        source = held
        changedSinceRead = false
        digestsChecked = false
    }

    /// The records after `changes`, for encoding a save without changing this snapshot.
    func records(applying changes: Changeset) -> [RecordV2] {
        var out: [RecordV2] = []
        out.reserveCapacity(entries.count + tombstones.count + changes.order.count)
        for (id, entry) in entries where changes.entries[id] == nil { out.append(entry.record) }
        for (id, entry) in tombstones where changes.entries[id] == nil { out.append(entry.record) }
        out += changes.sealedItems.map(\.item.record)
        return out
    }

    /// Applies one change; a key another item holds and item `id` does not throws
    /// ``CofferError/duplicateItem`` (``UniqueIndex/check(_:for:)``).
    mutating func apply(_ id: ItemID, _ change: Changeset.Change) throws(CofferError) {
        if case .put(_, let newAttributes) = change, let key = newAttributes.uniquenessKey {
            try UniqueIndex.check(try holders(of: key), for: id)
        }
        applyChecked(id, change)
    }

    /// The ids of the records whose overview did not open (``damaged``), ascending; with
    /// `secrets`, also those whose secret part does not open. Nothing is read from a damaged record.
    func damagedIDs(keys: EpochKeys, secrets: Bool) -> [ItemID] {
        guard secrets else { return damaged.keys.sorted() }
        let records = Array(entries.values) + Array(tombstones.values)
        let vaultID = self.vaultID
        let bad = records.withUnsafeBufferPointer { records in
            ParallelWork.map(count: records.count) { (index) -> Bool in
                (try? records[index].record.openSecretList(vaultID: vaultID, keys: keys, overview: records[index].overview)) == nil
            }
        }
        return (zip(records, bad).filter(\.1).map(\.0.record.id) + damaged.keys).sorted()
    }

    /// Takes record `id` out of the snapshot, live, deleted or damaged (a repair replaces or
    /// removes a damaged record this way).
    mutating func remove(_ id: ItemID) {
        materialize()
        changedSinceRead = true
        if !isKnownUniquelyReferenced(&index) { index = index.copy() }
        index.forgetScans()
        if index.isBuilt, let key = entries[id].flatMap({ UniqueIndex.key(ofOverview: $0.overview) }) { index.remove(id, from: key) }
        entries[id] = nil
        tombstones[id] = nil
        damaged[id] = nil
    }

    /// Applies one change already checked for duplicates (by the transaction that made it,
    /// against this same snapshot).
    mutating func applyChecked(_ id: ItemID, _ change: Changeset.Change) {
        materialize()
        changedSinceRead = true
        // A copy of this snapshot keeps the index of its own attributes.
        if !isKnownUniquelyReferenced(&index) { index = index.copy() }
        index.forgetScans()   // they were of the items before this change
        if index.isBuilt {
            let oldKey = entries[id].flatMap { UniqueIndex.key(ofOverview: $0.overview) }
            var newKey: UniquenessKey?
            if case .put(_, let newAttributes) = change { newKey = newAttributes.uniquenessKey }
            if oldKey != newKey {
                if let oldKey { index.remove(id, from: oldKey) }
                if let newKey { index.add(id, to: newKey) }
            }
        }
        switch change {
        case .put(let sealed, _):
            entries[id] = SnapshotEntry(record: sealed.record, overview: sealed.overview)
            tombstones[id] = nil
        case .tombstone(let sealed):
            entries[id] = nil
            tombstones[id] = SnapshotEntry(record: sealed.record, overview: sealed.overview)
        }
    }
}

/// One item of a snapshot: its record as on disk, and its overview decrypted and
/// checked, kept as its field list (SPEC.md §7.2): a few hundred bytes per item instead
/// of a struct of strings and arrays. ``VaultSnapshot/attributes(_:)`` decodes one.
///
/// A class, never changed once made (a change puts a new one in place): passing one
/// around is one reference count, where copying the record's struct cost a dozen
/// when a large vault is listed.
package final class SnapshotEntry: @unchecked Sendable {
    // @unchecked: the overview is set once, when it is opened: by one thread of
    // ``VaultSnapshot/openAll(reusing:)`` per entry, or under the vault's lock.
    private(set) var record: RecordV2
    private var opened: [UInt8]?

    init(record: RecordV2, overview: [UInt8]) {
        self.record = record
        opened = overview
        location = nil
    }

    /// A record in memory with its overview if it was opened (nil: it opens when read).
    init(record: RecordV2, opened overview: [UInt8]?) {
        self.record = record
        opened = overview
        location = nil
    }

    /// Where the record lies in its file, for a record of a file read in windows (its bytes
    /// can be let go and read again: ``unloadRecord()``).
    private let location: RecordV2.Location?

    /// A record of a lazily read file, its overview not opened yet.
    init(unopened record: RecordV2) {
        self.record = record
        location = record.location
    }

    var isOpened: Bool { opened != nil }

    /// Where the record is in its file while its bytes are not in memory (nil once loaded):
    /// what the passes that order and read records ask of each entry.
    var unloadedLocation: RecordV2.Location? { record.location }

    /// The checked overview field list. Read only once opened: every path that reads all
    /// overviews calls ``VaultSnapshot/openAll(reusing:)`` first, and one that reads one item
    /// ``VaultSnapshot/openedEntry(_:)``.
    var overview: [UInt8] {
        assert(opened != nil, "overview of entry \(record.id.hex) read before it was opened")
        return opened ?? []
    }

    func setOverview(_ list: [UInt8]) { opened = list }

    /// The overview if it was opened (nil otherwise).
    var openedOverview: [UInt8]? { opened }

    /// Puts in the record's bytes, read from its file (``RecordV2/loaded(from:)``).
    func setRecord(_ loaded: RecordV2) { record = loaded }

    /// Lets go of the record's bytes when they can be read again from its file.
    func unloadRecord() {
        guard let location, record.isLoaded else { return }
        record = record.unloaded(to: location)
    }
}

/// The entries a lazily read snapshot made for the rows it looked up (``VaultSnapshot``).
/// A reference: the snapshot's copies (a transaction's) share what was opened. Used only
/// under the vault's lock.
final class LookedUpEntries: @unchecked Sendable {
    var entries: [ItemID: SnapshotEntry] = [:]
}

/// What opens the overviews of a lazily read snapshot: the vault id and the epoch's keys.
final class OverviewOpener: Sendable {
    let vaultID: [UInt8]
    let keys: EpochKeys

    init(vaultID: [UInt8], keys: EpochKeys) {
        self.vaultID = vaultID
        self.keys = keys
    }

    /// The checked overview list (SPEC.md §10 step 15), or nil when the record's overview
    /// fails its AEAD (damaged on disk).
    func open(_ record: RecordV2) throws(FormatError) -> [UInt8]? {
        do throws(FormatError) {
            return try record.openOverviewList(vaultID: vaultID, keys: keys)
        } catch .tampered {
            return nil
        }
    }

    /// ``open(_:)``'s checks, the list not kept: false when the record's overview fails its
    /// AEAD (damaged on disk).
    func check(_ record: RecordV2) throws(FormatError) -> Bool {
        do throws(FormatError) {
            try record.checkOverview(vaultID: vaultID, keys: keys)
            return true
        } catch .tampered {
            return false
        }
    }

    /// The same for a record not in memory, from its bytes as read from its file.
    func open(_ record: RecordV2, readFrom bytes: UnsafeRawBufferPointer) throws(FormatError) -> [UInt8]? {
        do throws(FormatError) {
            return try record.openOverviewList(readFrom: bytes, vaultID: vaultID, keys: keys)
        } catch .tampered {
            return nil
        }
    }
}

/// The items holding each unique key (``UniquenessKey``): one, except where a merge joined
/// replicas that each added an item with the same key. The merge keeps both (SPEC.md §17.5:
/// nothing is lost), and ``check(_:for:)`` lets either keep the key (or leave it).
package final class UniqueIndex: @unchecked Sendable {
    // @unchecked: used only under the vault's lock.
    var holders: [UniquenessKey: KeyHolders] = [:]
    private(set) var isBuilt = false

    /// The rule for unique keys, for every change (a transaction's, and one made again on a
    /// newer version): item `id` (nil: a new item) may hold a key after the change unless
    /// another item holds it (`holders`, before the change) and `id` does not. An item keeps a key that another item holds
    /// too, so either of two items a merge joined can be edited, renamed or deleted; no item
    /// joins them.
    static func check(_ holders: KeyHolders?, for id: ItemID?) throws(CofferError) {
        guard let holders else { return }
        if let id, holders.contains(id) { return }
        throw .duplicateItem
    }

    /// Keys looked up by a scan while the index is not built, with their holders (nil: none).
    /// A command that adds or renames one item asks for one or two keys: comparing them
    /// with every overview's bytes, on all cores, costs a fraction of building a dictionary
    /// of every item's key (about 90 ms for 100,000 items). Past a few keys (an import),
    /// the index is built instead.
    private var scans: [UniquenessKey: KeyHolders?] = [:]
    static let scansBeforeBuilding = 4
    /// Below this many items the index is built at once: it is cheap, and it serves every later key.
    static let scanThreshold = 2_000

    /// The holders of `key` found by a scan (`.some(nil)`: none), or nil when the index is
    /// to be used instead (built already, a small vault, or enough keys scanned).
    func scanned(_ key: UniquenessKey, in entries: [ItemID: SnapshotEntry]) -> KeyHolders?? {
        guard !isBuilt, entries.count >= Self.scanThreshold else { return nil }
        if let known = scans[key] { return .some(known) }
        guard scans.count < Self.scansBeforeBuilding else { return nil }
        let all = Array(entries.values)
        let holds = ParallelWork.map(count: all.count) { (index) -> Bool in Self.overview(all[index].overview, has: key) }
        var found: KeyHolders?
        for (index, entry) in all.enumerated() where holds[index] {
            found = found?.inserting(entry.record.id) ?? KeyHolders(entry.record.id)
        }
        scans[key] = .some(found)
        return .some(found)
    }

    /// Forgets the scans: the items changed.
    func forgetScans() { scans = [:] }

    /// Whether the overview field list `list` has unique key `key`: from the bytes where
    /// they decide, else (non-ASCII text that may be canonically equal) by ``key(ofOverview:)``.
    static func overview(_ list: [UInt8], has key: UniquenessKey) -> Bool {
        let decided = list.withUnsafeBytes { raw -> Bool? in
            guard let f = OverviewFields(raw) else { return nil }
            // Each field: equal, different, or nil when only the decoded strings can tell.
            func same(_ range: Range<Int>?, _ text: String) -> Bool? {
                guard let range else { return text.isEmpty }
                return OverviewFields.compare(range, in: raw, with: text)
            }
            let fields: [Bool?]
            switch key {
            case .generic(let service, let account):
                guard ItemKind(code: f.kind) == .genericPassword else { return false }
                fields = [same(f.service, service), same(f.account, account)]
            case .internet(let server, let scheme, let port, let path, let account):
                guard ItemKind(code: f.kind) == .internetPassword, (f.port ?? 0) == port else { return false }
                fields = [same(f.server, server), same(f.protocol, scheme), same(f.path, path), same(f.account, account)]
            }
            if fields.contains(false) { return false }
            return fields.contains(nil) ? nil : true
        }
        if let decided { return decided }
        return Self.key(ofOverview: list) == key
    }

    func build(from entries: [ItemID: SnapshotEntry]) {
        guard !isBuilt else { return }
        scans = [:]
        holders.reserveCapacity(entries.count)
        for (id, entry) in entries {
            guard let key = Self.key(ofOverview: entry.overview) else { continue }
            add(id, to: key)
        }
        isBuilt = true
    }

    func add(_ id: ItemID, to key: UniquenessKey) {
        holders[key] = holders[key]?.inserting(id) ?? KeyHolders(id)
    }

    func remove(_ id: ItemID, from key: UniquenessKey) {
        guard let old = holders[key] else { return }
        holders[key] = old.removing(id)
    }

    /// An overview's unique key (nil for a secure note), read from its bytes: decoding
    /// every item of a large vault to build the index would cost more.
    static func key(ofOverview list: [UInt8]) -> UniquenessKey? {
        let read = list.withUnsafeBytes { raw -> UniquenessKey?? in
            guard let f = OverviewFields(raw) else { return nil }
            func text(_ range: Range<Int>?) -> String { range.map { OverviewFields.string($0, in: raw) } ?? "" }
            switch ItemKind(code: f.kind) {
            case .genericPassword?: return .generic(service: text(f.service), account: text(f.account))
            case .internetPassword?:
                return .internet(server: text(f.server), protocol: text(f.protocol), port: f.port ?? 0,
                                 path: text(f.path), account: text(f.account))
            default: return .some(nil)
            }
        }
        if let read { return read }
        return (try? EntryCodec.decodeOverview(list))?.uniquenessKey
    }

    func copy() -> UniqueIndex {
        let copy = UniqueIndex()
        copy.holders = holders
        copy.isBuilt = isBuilt
        copy.scans = scans
        return copy
    }
}

/// The items holding one unique key: one, or several after a merge (see ``UniqueIndex``).
/// No allocation for the usual single holder.
struct KeyHolders: Sendable, Equatable {
    /// The lowest id: the item an upsert of the key changes, the one a lookup by service and
    /// account lists first (``DisplayOrder``) when the two have the same label.
    private(set) var first: ItemID
    /// The others, by a merge only.
    private var others: Set<ItemID> = []

    init(_ id: ItemID) { first = id }

    func contains(_ id: ItemID) -> Bool { id == first || (!others.isEmpty && others.contains(id)) }

    func inserting(_ id: ItemID) -> KeyHolders {
        guard !contains(id) else { return self }
        var out = self
        if id < first {
            out.others.insert(first)
            out.first = id
        } else {
            out.others.insert(id)
        }
        return out
    }

    /// Without `id`; nil when no item is left.
    func removing(_ id: ItemID) -> KeyHolders? {
        var out = self
        if id == first {
            guard let next = others.min() else { return nil }
            out.others.remove(next)
            out.first = next
        } else {
            out.others.remove(id)
        }
        return out
    }
}
