import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

/// How a person names an item: the one place Coffer turns a name into an item.
///
/// ``Key/anything(_:)`` is the name typed without saying what it is (`coffer get vault github`):
/// it matches an item's id (all 32 hex digits, or its first 8 or more), label, service,
/// note title, or server, where a pasted URL (`https://GitHub.com/login?next=/`) matches
/// an internet password of that host, scheme and port, whatever its path. Labels,
/// services and titles compare as search does (``SearchFolding``: ignoring case, accents
/// and width, so `societe generale` names "Société Générale"); when several items match
/// only so, the one spelled exactly wins. The other cases name one attribute only.
///
/// When no item's name is equal, a name matches as search finds it
/// (``SearchFolding/nameStarts(_:in:)``): punctuation and spaces ignored (`wifi` names
/// "Wi-Fi"), the start of a name or of a word in it (`gith` names `github.com`,
/// `netflix.com` names `www.netflix.com`, `generale` names "Société Générale"), with one
/// pair of neighbouring letters swapped (`githbu`). ``Vault/match(_:)`` says when a match
/// is approximate; ``Vault/suggestions(for:limit:)`` offers the closest items on a miss.
///
/// ```swift
/// let item = try vault.item(named: ItemName("github"))
/// let mine = try vault.item(named: ItemName(.service("GitHub.com"), account: "octocat"))
/// let site = try vault.item(named: ItemName(.server("https://example.com/login?x=1")))
/// ```
public struct ItemName: Sendable, Hashable, CustomStringConvertible {
    /// What the name is.
    public enum Key: Sendable, Hashable {
        /// Any of id, label, service, server (host or URL) and note title.
        case anything(String)
        /// An id: 32 hex digits, or a prefix of at least ``ItemName/shortIDLength`` digits.
        case id(String)
        /// The label (display name) of an item of any kind.
        case label(String)
        /// The service of a generic password.
        case service(String)
        /// The server of an internet password: a host or a URL (its path and query only
        /// break ties between items of the same server).
        case server(String)
        /// The title of a secure note.
        case title(String)
    }

    public var key: Key
    /// Narrows to items of this account (compared exactly).
    public var account: String?

    public init(_ key: Key, account: String? = nil) {
        self.key = key
        self.account = account
    }

    /// ``Key/anything(_:)``.
    public init(_ text: String, account: String? = nil) {
        self.init(.anything(text), account: account)
    }

    /// The digits of an id that name an item in messages (``Item/shortID``).
    public static let shortIDLength = 8

    /// The query every candidate must match: the account, and the kind the key names.
    var query: ItemQuery {
        var query = ItemQuery(account: account)
        switch key {
        case .service: query.kind = .genericPassword
        case .server: query.kind = .internetPassword
        case .title: query.kind = .secureNote
        case .anything, .id, .label: break
        }
        return query
    }

    /// The text a person typed, for suggestions; nil for an id.
    var typedText: String? {
        switch key {
        case .anything(let text), .label(let text), .service(let text), .server(let text), .title(let text): return text
        case .id: return nil
        }
    }

    /// A short, non-secret description for messages: `service github.com, account octocat`.
    public var description: String {
        var text: String
        switch key {
        case .anything(let name): text = "\"\(name)\""
        case .id(let id): text = "id \(id)"
        case .label(let label): text = "label \"\(label)\""
        case .service(let service): text = "service \(service)"
        case .server(let server): text = "server \(server)"
        case .title(let title): text = "note \"\(title)\""
        }
        if let account { text += ", account \(account)" }
        return text
    }
}

/// What a name matched (``Vault/match(_:)``): the items, and whether only approximately.
public struct NameMatch: Sendable {
    /// The items the name matches, in listing order; empty when none.
    public var items: [Item]
    /// True when no item's name (or id) is equal to the one given, and these match as search
    /// finds them: the start of a name or word, punctuation ignored, one swap
    /// (``ItemName``). A program may say which item it took.
    public var isApproximate: Bool
    /// When ``items`` is empty and ``Vault/match(_:suggesting:)`` asked for them: the items
    /// closest to the name, best first, as ``Vault/suggestions(for:limit:)`` gives them.
    /// Empty otherwise.
    public var suggestions: [Item] = []
}

extension Vault {
    /// Every item `name` matches (``ItemName``), in listing order; an empty array when none.
    ///
    /// ```swift
    /// let candidates = try vault.items(named: ItemName("Meeting notes"))   // two notes may share a title
    /// ```
    public func items(named name: ItemName) throws(CofferError) -> [Item] {
        try match(name).items
    }

    /// ``items(named:)``, saying whether the match is approximate: no item's name was
    /// equal, so the items whose name starts as typed (punctuation ignored, one swap
    /// allowed) are the match.
    ///
    /// ```swift
    /// let found = try vault.match(ItemName("gith"))
    /// if found.isApproximate, let item = found.items.first { print("taking \(item.candidateDescription)") }
    /// ```
    public func match(_ name: ItemName) throws(CofferError) -> NameMatch {
        try match(name, suggesting: 0)
    }

    /// ``match(_:)``; when nothing matches, not even approximately, up to `limit` items
    /// closest to the name in ``NameMatch/suggestions`` (those ``suggestions(for:limit:)``
    /// gives), from the same reading of every item: a typo in a large vault reads it once for
    /// the approximate match and the suggestions together.
    ///
    /// ```swift
    /// let found = try vault.match(ItemName("gtihbx"), suggesting: 3)
    /// if found.items.isEmpty { print("did you mean", found.suggestions.map(\.candidateDescription)) }
    /// ```
    public func match(_ name: ItemName, suggesting limit: Int) throws(CofferError) -> NameMatch {
        let query = name.query
        let lookup = ItemLookup(name.key)
        // By lookup tag first (SPEC.md §8.1): only the records that may hold the name are
        // opened. A hit is exactly what reading every overview finds; a miss (or a name tags
        // cannot narrow: a label, or anything) reads every overview, as it always did.
        if let tagged = try read({ (tx) throws(CofferError) in try tx.itemsByTag(lookup, matching: query) }) {
            let selected = lookup.select(from: tagged)
            if !selected.isEmpty { return NameMatch(items: selected, isApproximate: false) }
        }
        let found = lookup.select(from: try read { (tx) throws(CofferError) in
            try tx.items(matching: query, prefilter: { lookup.mayMatch(id: $0, overview: $1) })
        })
        guard found.isEmpty, lookup.allowsApproximation else { return NameMatch(items: found, isApproximate: false) }
        // Only on a miss: every item of the kind is compared, as search would.
        let candidates = try read { (tx) throws(CofferError) in try tx.readableItems(matching: query).items }
        // Every item's name compared, on all cores (a typo in a large vault compares them all).
        let approximate = ParallelWork.map(count: candidates.count) { lookup.approximately(candidates[$0].attributes) }
        var match = NameMatch(items: candidates.indices.filter { approximate[$0] }.map { candidates[$0] }, isApproximate: true)
        if match.items.isEmpty, limit > 0, let text = name.typedText {
            match.suggestions = Self.closest(candidates, to: text, query: query, limit: limit)
        }
        return match
    }

    /// The items closest to a name that matched nothing, best first, at most `limit`: those
    /// search finds for it (``ItemQuery/text``), then those whose name is within a few
    /// typing mistakes of it. For a "did you mean" after ``CofferError/itemNotFound``.
    ///
    /// ```swift
    /// for item in try vault.suggestions(for: ItemName("gtihbx")) { print("did you mean", item.candidateDescription) }
    /// ```
    public func suggestions(for name: ItemName, limit: Int = 3) throws(CofferError) -> [Item] {
        guard limit > 0, let text = name.typedText else { return [] }
        let query = name.query
        let candidates = try read { (tx) throws(CofferError) in try tx.readableItems(matching: query).items }
        return Self.closest(candidates, to: text, query: query, limit: limit)
    }

    /// The at most `limit` of `candidates` (the items `query` reads, in listing order) closest
    /// to `text`: within a few typing mistakes of a name, closest first, then those search
    /// finds for it; in listing order among equals.
    private static func closest(_ candidates: [Item], to text: String, query: ItemQuery, limit: Int) -> [Item] {
        var query = query
        query.text = text
        // Every item scored on all cores (none is close in a large vault that names nothing).
        let scores = ParallelWork.map(count: candidates.count) { (order) -> Int? in
            let attributes = candidates[order].attributes
            if let distance = SearchFolding.nameDistance(text, attributes.names) { return distance }
            return query.matches(attributes) ? 3 : nil
        }
        var scored: [(Int, Int, Item)] = []
        for (order, score) in scores.enumerated() {
            if let score { scored.append((score, order, candidates[order])) }
        }
        return scored.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.prefix(limit).map(\.2)
    }

    /// The one item `name` matches. Throws ``CofferError/itemNotFound`` when none does, and
    /// ``CofferError/ambiguousItem`` when several do; its detail lists them (label and short id,
    /// ``Item/candidateDescription``), so that one can be named by its id.
    ///
    /// ```swift
    /// do {
    ///     let item = try vault.item(named: ItemName("github"))
    /// } catch CofferError.ambiguousItem {
    ///     let candidates = try vault.items(named: ItemName("github"))   // to offer a choice
    /// }
    /// ```
    public func item(named name: ItemName) throws(CofferError) -> Item {
        let found = try items(named: name)
        guard let first = found.first else { throw .itemNotFound }
        guard found.count == 1 else {
            throw .ambiguousItem("\(found.count) items match \(name): "
                + found.map(\.candidateDescription).joined(separator: "; "))
        }
        return first
    }
}

/// The matching rules behind ``Vault/items(named:)``: which items a name's key matches,
/// and which of several wins by an exact spelling.
struct ItemLookup {
    let key: ItemName.Key

    init(_ key: ItemName.Key) { self.key = key }

    /// How well an item matches: not at all, ignoring case (or, for a URL, ignoring the
    /// path), or exactly.
    enum Strength: Comparable { case none, loose, exact }

    func select(from items: [Item]) -> [Item] {
        var found: [(Item, Strength)] = []
        for item in items {
            let strength = self.strength(item.attributes, id: item.id)
            guard strength != .none else { continue }
            found.append((item, strength))
        }
        // Several loose matches with exactly one exact one: the exact one is meant.
        let exact = found.filter { $0.1 == .exact }
        if found.count > 1, exact.count == 1 { return exact.map(\.0) }
        return found.map(\.0)
    }

    /// False when an item's id and overview field list (SPEC.md §7.2) show, from their
    /// bytes, that ``strength(_:id:)`` would be `.none`: the id differs, and its label,
    /// service and server, where ASCII, differ from the name once folded
    /// (``SearchFolding/foldedEqual(ascii:_:)``). Anything else (non-ASCII text, which may
    /// be equal once folded; an unreadable list)
    /// is left to the attributes. So a lookup in a large vault decodes the few items that may match, not
    /// every item, and a damaged record it does not match is never touched (SPEC.md §10).
    func mayMatch(id: ItemID, overview raw: UnsafeRawBufferPointer) -> Bool {
        if case .id(let text) = key { return Self.id(text, matches: id) }
        if case .anything(let text) = key, Self.id(text, matches: id) { return true }
        guard let fields = OverviewFields(raw) else { return true }
        func same(_ wanted: String?, _ range: Range<Int>?) -> Bool {
            guard let wanted else { return true }
            guard let range else { return false }
            return SearchFolding.foldedEqual(ascii: wanted.utf8, UnsafeRawBufferPointer(rebasing: raw[range])) ?? true
        }
        // The host a server name or URL names; nil (anything may match) when it has none.
        func host(_ text: String) -> String? {
            (try? ServerAddress(parsing: text, bareText: text.contains("/") || text.contains(":") ? .recognisedHost : .host))?.host
        }
        switch key {
        case .id: return false   // decided above
        case .label(let text), .title(let text): return same(text, fields.label)
        case .service(let text): return same(text, fields.service)
        case .server(let text): return host(text).map { same($0, fields.server) } ?? true
        case .anything(let text):
            return (fields.label != nil && same(text, fields.label)) || (fields.service != nil && same(text, fields.service))
                || (fields.server != nil && (host(text).map { same($0, fields.server) } ?? true))
        }
    }

    /// Which records may hold an item this key matches, from their rows alone: those whose
    /// id begins as typed (an id), or those tagged with a name of one kind (a service, a
    /// server's host, a note's title; ``NameTags``). Nil when any record may (a label names
    /// items of every kind, and labels are not tagged); `.nothing` when the name cannot
    /// match any item (a server that is no address).
    enum Candidates {
        case ids((ItemID) -> Bool)
        case tagged(ItemKind, String)
        case nothing
    }

    var candidates: Candidates? {
        switch key {
        case .id(let text): return .ids { Self.id(text, matches: $0) }
        case .service(let text): return .tagged(.genericPassword, text)
        case .title(let text): return .tagged(.secureNote, text)
        case .server(let text):
            guard let host = try? ServerAddress(parsing: text, bareText: text.contains("/") || text.contains(":") ? .recognisedHost : .host).host
            else { return .nothing }
            return .tagged(.internetPassword, host)
        case .label, .anything: return nil
        }
    }

    /// Whether a miss may be retried approximately: not for an id.
    var allowsApproximation: Bool {
        if case .id = key { return false }
        return true
    }

    /// The approximate match (``SearchFolding/nameStarts(_:in:)``) against the names the key
    /// looks at: a server's host for `server`, every name for `anything`.
    func approximately(_ a: ItemAttributes) -> Bool {
        switch key {
        case .id: return false
        case .label(let text), .title(let text): return SearchFolding.nameStarts(text, in: [a.label].compactMap { $0 })
        case .service(let text): return SearchFolding.nameStarts(text, in: [a.service].compactMap { $0 })
        case .server(let text): return Self.server(text, a, host: { SearchFolding.nameStarts($0, in: [$1]) }) != .none
        case .anything(let text):
            // A pasted URL names a server only, by its host, with its scheme and port kept.
            if text.contains("://") {
                return a.kind == .internetPassword && Self.server(text, a, host: { SearchFolding.nameStarts($0, in: [$1]) }) != .none
            }
            return SearchFolding.nameStarts(text, in: a.names)
        }
    }

    func strength(_ a: ItemAttributes, id: ItemID) -> Strength {
        switch key {
        case .id(let text): return Self.id(text, matches: id) ? .exact : .none
        case .label(let text): return Self.text(text, a.label)
        case .service(let text): return Self.text(text, a.service)
        case .title(let text): return Self.text(text, a.label)
        case .server(let text): return Self.server(text, a)
        case .anything(let text):
            if Self.id(text, matches: id) { return .exact }
            var strength = max(Self.text(text, a.label), Self.text(text, a.service))
            if a.kind == .internetPassword { strength = max(strength, Self.server(text, a)) }
            return strength
        }
    }

    /// All 32 digits, or a prefix of at least ``ItemName/shortIDLength``; case ignored.
    static func id(_ text: String, matches id: ItemID) -> Bool {
        mayBeID(text) && id.hex.hasPrefix(text.lowercased())
    }

    /// Whether `text` has the shape of an id or id prefix: 8 to 32 hex digits.
    static func mayBeID(_ text: String) -> Bool {
        text.utf8.count >= ItemName.shortIDLength && text.utf8.count <= 32
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }
    }

    /// Equal: exact; equal once folded as search folds (case, accents, width): loose.
    static func text(_ wanted: String, _ stored: String?) -> Strength {
        guard let stored else { return .none }
        if stored == wanted { return .exact }
        return SearchFolding.foldedEqual(wanted, stored) ? .loose : .none
    }

    /// `text` read as a host or URL (``ServerAddress``): same host, and the same scheme and
    /// port where both sides give them (a missing port is the scheme's default). The
    /// path decides between exact and loose. A bare host (no scheme, no port) matches any port.
    /// `host` compares the typed host with the stored one: equal (``ServerAddress/sameHost(_:_:)``)
    /// for an exact name, how it begins for an approximate one; scheme and port are never
    /// approximated, so `http://…` does not name an `https` login.
    static func server(_ text: String, _ a: ItemAttributes,
                       host: (_ typed: String, _ stored: String) -> Bool = { ServerAddress.sameHost($1, $0) }) -> Strength {
        guard let wanted = try? ServerAddress(parsing: text, bareText: text.contains("/") || text.contains(":") ? .recognisedHost : .host)
        else { return .none }
        return server(wanted, a, host: host)
    }

    /// The same, for an address already read (``Vault/credentials(for:account:)``).
    static func server(_ wanted: ServerAddress, _ a: ItemAttributes,
                       host: (_ typed: String, _ stored: String) -> Bool = { ServerAddress.sameHost($1, $0) }) -> Strength {
        guard let server = a.server, host(wanted.host, server) else { return .none }
        if let scheme = wanted.scheme, let stored = a.protocol, !ServerAddress.sameHost(scheme, stored) { return .none }
        let scheme = wanted.scheme ?? a.protocol
        // A bare host names the server at any port; a URL, its port (or its scheme's default).
        if wanted.scheme != nil || wanted.port != nil,
           ServerAddress.effectivePort(wanted.port, scheme: scheme) != ServerAddress.effectivePort(a.port, scheme: scheme) {
            return .none
        }
        return wanted.path == a.path ? .exact : .loose
    }
}

extension ServerAddress {
    /// `port`, or the well-known port of `scheme` when `port` is nil (nil when neither is known).
    static func effectivePort(_ port: UInt16?, scheme: String?) -> UInt16? {
        if let port { return port }
        switch scheme.map(normalizedHost) {
        case "http"?, "ws"?: return 80
        case "https"?, "wss"?: return 443
        case "ftp"?: return 21
        case "ssh"?, "sftp"?: return 22
        default: return nil
        }
    }
}

extension ItemAttributes {
    /// The names an item is called by, for naming and suggestions: label (a note's title),
    /// service, server.
    var names: [String] { [label, service, server].compactMap { $0 } }
}
