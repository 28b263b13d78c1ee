internal import CSodium

/// libsodium must be initialised before use; `sodium_init` runs exactly once.
package enum Sodium {
    // Swift runs global and static `let` initialisers once, thread-safely (swift_once).
    private static let initialised: Bool = sodium_init() >= 0

    /// Throws when libsodium cannot start (for example no entropy source).
    package static func ensureInitialized() throws(CofferError) {
        guard initialised else { throw .secureMemoryUnavailable }
    }
}
