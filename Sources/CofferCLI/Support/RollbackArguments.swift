import ArgumentParser
import Coffer

/// `--accept-rollback`, on every command that saves the vault.
///
/// This device remembers the newest version of each vault it has seen (in
/// `$XDG_STATE_HOME/coffer`, see ``ReplicaStateLocation/standard``). A vault file older than
/// that (a restored backup, a sync tool's older copy, a `git checkout`) opens with
/// ``Vault/rollback`` set: every command says so on stderr, and the library refuses to
/// save it (``CofferError/Kind/rolledBack``, exit 76) until the rollback is accepted.
struct RollbackArguments: ParsableArguments {
    @Flag(name: .customLong("accept-rollback"),
          help: "Save even though the vault file is older than a version this device has seen (it lacks edits made since); without it such a save is refused (exit 76).")
    var acceptRollback = false

    /// What the command does with the vault, for the warning's last words.
    enum Access {
        case reading
        case saving
        case savingAccepted
    }

    /// One line on stderr when `vault` was opened from a rolled-back file; nothing otherwise.
    static func warn(_ vault: Vault, path: String, access: Access) {
        guard let warning = vault.rollback else { return }
        let consequence = switch access {
        case .reading:
            "shown as it is; commands that save refuse it (exit 76) unless given --accept-rollback"
        case .saving:
            "nothing is saved (exit 76) unless a merge brings the newer version back, or --accept-rollback is given"
        case .savingAccepted:
            "accepted (--accept-rollback): saving it as the current version; the edits it lacks come back when a copy that holds them is merged"
        }
        Output.error("coffer: warning: \(path): \(warning.description); \(consequence)")
    }

    /// After `merge` or `sync`: when the vault was opened rolled back and a merge brought the
    /// newer version back, one line says the rollback is over (the warning said saves were refused).
    static func sayIfHealed(_ vault: Vault, path: String, wasRolledBack: Bool) {
        guard wasRolledBack, vault.rollback == nil else { return }
        Output.error("the rollback is over: \(path) again holds every version seen on this device; saves work again")
    }
}
