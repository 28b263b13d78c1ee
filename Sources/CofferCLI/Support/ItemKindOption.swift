import Coffer

extension ItemKind {
    /// `--kind` as people write it: the kind's name (`secure-note`), or a short one
    /// (`note`, `generic`, `internet`, `login`); case ignored.
    init?(option text: String) {
        switch text.lowercased() {
        case "note", "notes", "secure-note": self = .secureNote
        case "generic", "password", "generic-password": self = .genericPassword
        case "internet", "login", "web", "internet-password": self = .internetPassword
        default: return nil
        }
    }
}
