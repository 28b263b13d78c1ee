import ArgumentParser
import Coffer

/// `--accept-old-key` of `merge`, `sync` and `merge-driver`: take the edits a copy under an
/// earlier key made after the key was changed, which are otherwise held (SPEC.md §17.8).
struct EarlierKeyArguments: ParsableArguments {
    @Flag(name: .customLong("accept-old-key"),
          help: "Merge the edits a copy under an earlier vault key made after the key was changed (held otherwise; check the copy's device first).")
    var acceptOldKey = false

    var options: MergeOptions { MergeOptions(acceptEarlierKey: acceptOldKey) }
}

/// What the merge commands say about a copy under another vault key (SPEC.md §17.8): how
/// its key relates to the vault's, how many items came from an earlier key, and the items
/// held back, by name (never a value).
enum EarlierKeyReporting {
    /// The help text shared by `merge`, `sync` and `merge-driver`.
    static let help = """
        A copy made under an earlier vault key (a device that was offline while the \
        password was changed, `coffer rekey` run, or a key slot removed) still merges: it is \
        read with the earlier key, which the vault keeps sealed under its current one, and \
        none of its key slots enter. Its edits dated before the key was changed merge and \
        are counted as "from an earlier key"; edits dated after it are held: the vault keeps \
        its own version of those items, and the items are listed by name. Merge them with \
        --accept-old-key once you know the copy is your own device's. A copy rekeyed after \
        the vault's key (by another of your devices) is opened with the credential that \
        opened the vault, and the vault moves to its key. A copy that lacks the slot of the \
        credential used (a changed password, a revoked key file), or whose key this vault \
        never held and that shares no earlier key with it, is refused (exit 65).
        """

    /// Lines to print after a file's "merged" line; empty for a copy under the same key.
    static func lines(_ report: MergeReport, path: String, acceptFlag: String = "--accept-old-key") -> [String] {
        let earlier = report.earlierKey
        var out: [String] = []
        switch earlier.epoch {
        case .same: return []
        case .successor: out.append("  \(path) was rekeyed after this vault: the vault now uses its key")
        case .older, .concurrent:
            let what = earlier.epoch == .older ? "under an earlier key" : "under a key rotated apart from this vault's"
            out.append("  \(path) is \(what): \(Output.plural(earlier.merged, "item")) from an earlier key merged, none of its key slots")
        }
        if earlier.accepted > 0 {
            out.append("  accepted \(Output.plural(earlier.accepted, "item")) edited after the key was changed (\(acceptFlag))")
        }
        if !earlier.held.isEmpty {
            out.append("coffer: held \(Output.plural(earlier.held.count, "item")) edited under the earlier key after the key was changed: "
                + earlier.held.map(\.name).joined(separator: ", ")
                + "; the vault keeps its own version; \(path) left in place (merge it with \(acceptFlag) to take them)")
        }
        return out
    }

    /// The `earlierKey` object of a file in the `--json` reports.
    static func json(_ report: MergeReport) -> JSONValue {
        let earlier = report.earlierKey
        return .object([
            ("epoch", .string(earlier.epoch.rawValue)),
            ("merged", .int(Int64(earlier.merged))),
            ("accepted", .int(Int64(earlier.accepted))),
            ("held", .array(earlier.held.map { .object([("id", .string($0.id.hex)), ("name", .string($0.name))]) })),
        ])
    }

    /// For the JSON shapes in the help.
    static let jsonShape = #""earlierKey": {"epoch": "same"|"successor"|"older"|"concurrent", "merged": int, "accepted": int, "held": [{"id": id, "name": str}]}"#
}
