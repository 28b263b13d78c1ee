import CofferCrypto
import CofferFormat
import CofferStore
/// An item as listed: its id, revision and attributes. Reading it decrypts no secret.
///
/// Attributes read straight through the item:
/// ```swift
/// for item in try vault.items(matching: ItemQuery(service: "github.com")) {
///     print(item.label ?? "-", item.account ?? "-", item.revision)
///     let secrets = try vault.secrets(for: item.id)   // decrypts this one item
/// }
/// ```
@dynamicMemberLookup
public struct Item: Sendable, Hashable, Identifiable, Codable {
    public let id: ItemID
    /// Starts at 1 and grows with every change; bound into the entry's encryption.
    public let revision: UInt64
    public let attributes: ItemAttributes

    // Inlinable: a key path applied through an opaque generic call costs a runtime
    // projection per access, which showed in listing large vaults; inlined, the
    // compiler resolves it to a plain field read.
    @inlinable
    public subscript<T>(dynamicMember keyPath: KeyPath<ItemAttributes, T>) -> T {
        attributes[keyPath: keyPath]
    }
}

/// The key that must be unique within a vault, following Apple's keychain rules.
package enum UniquenessKey: Hashable {
    case generic(service: String, account: String)
    case internet(server: String, protocol: String, port: UInt16, path: String, account: String)
}

extension ItemAttributes {
    /// Secure notes have none: two notes may share a title.
    package var uniquenessKey: UniquenessKey? {
        switch kind {
        case .genericPassword:
            return .generic(service: service ?? "", account: account ?? "")
        case .internetPassword:
            return .internet(server: server ?? "", protocol: self.protocol ?? "", port: port ?? 0,
                             path: path ?? "", account: account ?? "")
        case .secureNote:
            return nil
        }
    }

    /// ``validate()`` for an edit of `old`: an item a merge brought back without the field
    /// its kind needs (its value erased, SPEC.md §17.5 "What does not come back") stays
    /// editable; an edit that takes such a field away, or changes the kind, is refused.
    func validate(editing old: ItemAttributes) throws(CofferError) {
        do throws(CofferError) {
            try validate()
        } catch {
            guard kind == old.kind, (try? old.validate()) == nil,
                  label == old.label, service == old.service, server == old.server else { throw error }
        }
    }

    /// Checks the fields each kind needs.
    func validate() throws(CofferError) {
        switch kind {
        case .genericPassword:
            guard let service, !service.isEmpty else { throw .invalidItem("a generic password needs a service") }
        case .internetPassword:
            guard let server, !server.isEmpty else { throw .invalidItem("an internet password needs a server") }
        case .secureNote:
            guard let label, !label.isEmpty else { throw .invalidItem("a secure note needs a title") }
        }
    }
}
