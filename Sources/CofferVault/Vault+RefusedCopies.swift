import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

/// A copy of a vault that this device refused to merge (another vault, a damaged file, one
/// too large), remembered in the device's state (``VaultOptions/replicaState``) so that an
/// unchanged copy is not read again: a sync tool's conflict copy that cannot be merged stays
/// beside the vault until someone removes it, and a `coffer sync` run from a timer would
/// otherwise read it on every run.
///
/// A refusal holds while the file is the one refused: same device, inode, size and
/// modification time. A copy that changes, moves or goes is read again; so is every copy
/// when asked (``Vault/mergeConflictCopy(at:rereadingRefused:)``), and
/// ``Vault/forgetRefusedCopies(of:state:)`` forgets a vault's refusals.
///
/// ```swift
/// for refused in try Vault.refusedCopies() where refused.isUnchanged {
///     print("\(refused.path) was refused \(refused.refusedAt): \(refused.reason)")
/// }
/// ```
public struct RefusedCopy: Sendable, Hashable {
    /// The copy (absolute, after symbolic links).
    public let path: String
    /// The vault it was offered to (absolute, after symbolic links).
    public let vaultPath: String
    /// Why it was refused: the kind of the error its merge threw (``CofferError/Kind/differentVault``,
    /// ``CofferError/Kind/tampered``, ``CofferError/Kind/truncated``, ``CofferError/Kind/malformed``…),
    /// and that error's message.
    public let kind: CofferError.Kind
    public let reason: String
    /// When it was refused.
    public let refusedAt: Date
    /// Whether the file is still the one refused; a copy that is not is read again.
    public let isUnchanged: Bool

    /// The error ``Vault/mergeConflictCopy(at:rereadingRefused:)`` throws for this copy
    /// without reading it: ``CofferError/Kind/refusedBefore``, saying when and why.
    ///
    /// ```swift
    /// if let refused = Vault.refusal(ofCopyAt: copyPath, forVaultAt: path) { print(refused.error) }
    /// ```
    public var error: CofferError {
        .refusedBefore("\(path) was refused \(refusedAt.ISO8601Format()) (\(reason)); not read again", path: path)
    }
}

extension Vault {
    /// Merges a conflict copy a sync service left beside the vault (or any other copy to be
    /// put away once merged) as ``merge(contentsOf:)-(String)`` does, remembering on this
    /// device a copy it refuses for what the file holds: another vault, a damaged or
    /// truncated file, one too large. Such a copy, still unchanged, is refused the next time
    /// without being read, with ``CofferError/Kind/refusedBefore``; with `rereadingRefused`
    /// it is read again (and remembered again if it is refused again).
    ///
    /// Nothing is remembered with ``ReplicaStateLocation/none``, nor for a copy that could
    /// not be read (a missing file, a read error) or a merge refused for this vault's own
    /// state (busy, rolled back, key slots).
    ///
    /// ```swift
    /// for copy in try Vault.conflictCopies(of: path) {
    ///     do {
    ///         try vault.mergeConflictCopy(at: copy.path)
    ///     } catch let error where error.kind == .refusedBefore {
    ///         continue   // refused on an earlier run, unchanged since
    ///     }
    /// }
    /// ```
    @discardableResult
    public func mergeConflictCopy(at path: String, rereadingRefused: Bool = false) throws(CofferError) -> MergeReport {
        try mergeConflictCopy(at: path, rereadingRefused: rereadingRefused, options: MergeOptions())
    }

    /// ``mergeConflictCopy(at:rereadingRefused:)`` with `options` (``merge(contentsOf:options:)``).
    ///
    /// ```swift
    /// let report = try vault.mergeConflictCopy(at: copy.path, rereadingRefused: false, options: MergeOptions(acceptEarlierKey: true))
    /// ```
    @discardableResult
    public func mergeConflictCopy(at path: String, rereadingRefused: Bool, options: MergeOptions) throws(CofferError) -> MergeReport {
        let memory = RefusalMemory(vaultPath: self.path, location: self.options.replicaState)
        if !rereadingRefused, let refused = memory?.refusal(of: path) { throw refused.error }
        var identity: FileIdentity?
        do {
            let report = try merge(contentsOf: path, options: options, identity: &identity)
            memory?.forget(path)
            return report
        } catch {
            if let identity, RefusalMemory.remembered.contains(error.kind) {
                memory?.remember(path, identity: identity, error: error, at: now())
            }
            throw error
        }
    }

    /// The copies this device refused to merge into the vault at `vaultPath` (every vault
    /// when nil), newest first, with whether each is still unchanged. Reads only the device's
    /// state and the copies' metadata; nothing when `state` is ``ReplicaStateLocation/none``.
    ///
    /// ```swift
    /// let refused = try Vault.refusedCopies(of: "/home/me/Sync/vault.coffer").filter(\.isUnchanged)
    /// ```
    public static func refusedCopies(of vaultPath: String? = nil, state: ReplicaStateLocation = .standard) throws(CofferError) -> [RefusedCopy] {
        guard let folder = state.folder else { return [] }
        let store = ReplicaStateStore(directory: folder)
        let found: [RefusedCopies]
        if let vaultPath {
            guard let canonical = RefusalMemory.canonical(vaultPath) else { return [] }
            let records = try storeCall { () throws(StoreError) in try store.refusals(forVaultAt: canonical, reader: RefusalMemory.reader) }
            found = [RefusedCopies(vaultPath: canonical, records: records)]
        } else {
            found = try storeCall { () throws(StoreError) in try store.allRefusals(reader: RefusalMemory.reader) }
        }
        return found.flatMap { vault in vault.records.map { RefusalMemory.copy($0, vaultPath: vault.vaultPath) } }
            .sorted { ($0.refusedAt, $0.path) > ($1.refusedAt, $1.path) }
    }

    /// The refusal that makes ``mergeConflictCopy(at:rereadingRefused:)`` refuse the copy at
    /// `copyPath` without reading it, if any: one for the vault at `vaultPath`, the copy
    /// unchanged since.
    ///
    /// ```swift
    /// if let refused = Vault.refusal(ofCopyAt: copy.path, forVaultAt: path) { print("skipped:", refused.reason) }
    /// ```
    public static func refusal(ofCopyAt copyPath: String, forVaultAt vaultPath: String, state: ReplicaStateLocation = .standard) -> RefusedCopy? {
        RefusalMemory(vaultPath: vaultPath, location: state)?.refusal(of: copyPath)
    }

    /// Forgets every refusal remembered for the vault at `vaultPath`: its copies are read
    /// again by the next merge.
    ///
    /// ```swift
    /// try Vault.forgetRefusedCopies(of: path)
    /// ```
    public static func forgetRefusedCopies(of vaultPath: String, state: ReplicaStateLocation = .standard) throws(CofferError) {
        guard let folder = state.folder, let canonical = RefusalMemory.canonical(vaultPath) else { return }
        try storeCall { () throws(StoreError) in
            try ReplicaStateStore(directory: folder).storeRefusals([], forVaultAt: canonical, reader: RefusalMemory.reader)
        }
    }
}

/// One vault's remembered refusals on this device. Best effort, like the rest of the state: a
/// state that cannot be read or written never stops a merge (a refusal then is not remembered).
struct RefusalMemory {
    let store: ReplicaStateStore
    let vaultPath: String

    /// Refusals are kept only for the kinds that depend on the copy alone.
    static let remembered: Set<CofferError.Kind> = [.differentVault, .notACofferFile, .unsupportedVersion, .truncated,
                                                    .malformed, .tampered, .fileTooLarge]
    /// The highest format version this library reads: one that reads more reads every copy again.
    static let reader = FormatV2.version

    init?(vaultPath: String, location: ReplicaStateLocation) {
        guard let folder = location.folder, let canonical = Self.canonical(vaultPath) else { return nil }
        store = ReplicaStateStore(directory: folder)
        self.vaultPath = canonical
    }

    private var records: [RefusedCopyRecord] { (try? store.refusals(forVaultAt: vaultPath, reader: Self.reader)) ?? [] }

    /// The copy's refusal, when it is remembered and the file unchanged.
    func refusal(of copyPath: String) -> RefusedCopy? {
        guard let canonical = Self.canonical(copyPath),
              let record = records.first(where: { $0.path == canonical }) else { return nil }
        let copy = Self.copy(record, vaultPath: vaultPath)
        return copy.isUnchanged ? copy : nil
    }

    func remember(_ copyPath: String, identity: FileIdentity, error: CofferError, at date: Date) {
        guard let canonical = Self.canonical(copyPath) else { return }
        let record = RefusedCopyRecord(path: canonical, identity: identity, refusedAt: Int64(date.timeIntervalSince1970 * 1000),
                                       kind: error.kind.rawValue, reason: error.description)
        save(records.filter { $0.path != canonical && Self.isUnchanged($0) } + [record])
    }

    func forget(_ copyPath: String) {
        guard let canonical = Self.canonical(copyPath) else { return }
        let all = records
        let kept = all.filter { $0.path != canonical && Self.isUnchanged($0) }
        if kept.count != all.count { save(kept) }
    }

    /// The absolute path `path` names (links followed), without "." components: a conflict
    /// copy found beside "vault.coffer" is "./vault.sync-conflict-….coffer".
    static func canonical(_ path: String) -> String? {
        guard var absolute = VaultFileStore.absolutePath(path) else { return nil }
        while let dot = absolute.range(of: "/./") { absolute.replaceSubrange(dot, with: "/") }
        return absolute
    }

    private func save(_ records: [RefusedCopyRecord]) {
        try? store.storeRefusals(records, forVaultAt: vaultPath, reader: Self.reader)
    }

    static func isUnchanged(_ record: RefusedCopyRecord) -> Bool {
        (try? VaultFileStore(path: record.path).currentIdentity()) == record.identity
    }

    static func copy(_ record: RefusedCopyRecord, vaultPath: String) -> RefusedCopy {
        let kind = remembered.first { $0.rawValue == record.kind } ?? CofferError.Kind(rawValue: record.kind)
        return RefusedCopy(path: record.path, vaultPath: vaultPath, kind: kind, reason: record.reason,
                           refusedAt: Date(timeIntervalSince1970: Double(record.refusedAt) / 1000), isUnchanged: isUnchanged(record))
    }
}
