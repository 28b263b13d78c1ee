import ArgumentParser
import Coffer

/// `--no-rekey`, on every command that takes a way into the vault away (`passwd`,
/// `remove-keyfile`, `add-keyfile --required`): by default such a change rotates the vault
/// key in the same save (`coffer rekey`, SPEC.md §11.3), so whoever kept the old credential
/// and a copy of the file reads nothing saved afterwards.
struct RekeyArguments: ParsableArguments {
    @Flag(name: .customLong("no-rekey"),
          help: "Keep the vault key: faster, but an old copy of the file with the old credential then still reads what is saved afterwards.")
    var noRekey = false

    var rotatingKey: Bool { !noRekey }

    /// The lines on stderr that say whether the key was rotated, and which format-1 or
    /// unknown slots the rotation removed (they cannot be given the new key).
    static func report(_ rotation: KeyRotation?, vault: String) {
        guard let rotation else {
            Output.error("the vault key was kept (--no-rekey): a copy of \(vault) made before this change still opens "
                         + "with the old credential and reads what is saved afterwards")
            return
        }
        for kind in rotation.removedSlots {
            Output.error("removed a format-1 or unknown \(kind) slot: it could not be given the new key")
        }
        Output.error("rekeyed \(vault): \(rotation.records) \(rotation.records == 1 ? "entry" : "entries") sealed under a new key; "
                     + "a copy made before this change reads nothing saved afterwards")
    }
}
