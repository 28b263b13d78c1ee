import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

/// A KeychainAccess-style view of one service: generic passwords keyed by account.
///
/// ```swift
/// let keychain = vault.keychain(service: "com.example.app")
/// try keychain.set("s3cr3t", key: "api-token")          // adds or replaces
/// let token = try keychain.get("api-token")              // String? (a copy)
/// let same = try keychain["api-token"]                   // subscript read
/// try keychain.set(Settings(theme: "dark"), key: "settings")       // any Codable, as JSON
/// let settings = try keychain.get(Settings.self, key: "settings")
/// try keychain.remove("api-token")
/// print(try keychain.allKeys())
/// ```
///
/// Assignment through the subscript is not offered: a failed save must be an error
/// the caller sees, and a subscript setter cannot throw.
///
/// Each value is a generic password (service, key as account) marked as an app's value by
/// the custom field ``appValueField``: an app's token or settings are not a password a
/// person chose, so `Vault.audit` (CofferAudit) leaves them out.
public struct ServiceKeychain: Sendable {
    public let vault: Vault
    public let service: String

    /// The non-secret custom field that marks an item as an app's stored value, not a
    /// person's password: `{"name": "keychain", "value": "app value"}`.
    public static let appValueField = CustomField(name: "keychain", value: "app value")

    /// The secret for `key`, in guarded memory, or nil.
    public func getSecure(_ key: String) throws(CofferError) -> SecureBytes? {
        guard let item = try vault.firstItem(matching: query(key)) else { return nil }
        return try vault.secrets(for: item.id).password
    }

    /// The secret for `key` as a `String`, or nil. The `String` is a copy that cannot be wiped.
    public func get(_ key: String) throws(CofferError) -> String? {
        guard let secret = try getSecure(key) else { return nil }
        guard let text = secret.unsafeStringCopy() else { throw .valueTypeMismatch("the secret for \(key) is not UTF-8 text") }
        return text
    }

    /// Reads the secret for `key` (a copy), like `get`.
    public subscript(key: String) -> String? {
        get throws(CofferError) { try get(key) }
    }

    /// Stores `value` for `key`, adding or replacing it.
    public func set(_ value: SecureBytes, key: String) throws(CofferError) {
        var attributes = ItemAttributes.genericPassword(service: service, account: key)
        attributes.fields = [Self.appValueField]
        try vault.upsert(attributes, secrets: ItemSecrets(password: value))
    }

    /// Stores a string for `key`. The string itself stays in ordinary memory.
    public func set(_ value: String, key: String) throws(CofferError) {
        try set(try SecureBytes(copying: value), key: key)
    }

    /// Stores any `Encodable` value for `key`, as JSON inside the secret part.
    /// The JSON passes through ordinary memory while it is encoded.
    public func set<T: Encodable>(_ value: T, key: String) throws(CofferError) {
        var json: [UInt8]
        do {
            json = Array(try JSONEncoder().encode(value))
        } catch {
            throw .valueTypeMismatch("cannot encode the value for \(key) as JSON")
        }
        defer { SecureBytes.wipe(&json) }
        try set(try SecureBytes(copying: json), key: key)
    }

    /// Decodes the JSON stored for `key` as `T`, or returns nil when there is none.
    public func get<T: Decodable>(_ type: T.Type, key: String) throws(CofferError) -> T? {
        guard let secret = try getSecure(key) else { return nil }
        do {
            return try secret.withUnsafeBytes { raw in
                // Decode straight from guarded memory: no copy of the JSON is made here.
                guard let base = raw.baseAddress, raw.count > 0 else { return try JSONDecoder().decode(T.self, from: Data()) }
                let view = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none)
                return try JSONDecoder().decode(T.self, from: view)
            }
        } catch {
            throw .valueTypeMismatch("the value for \(key) is not a \(T.self)")
        }
    }

    /// Removes `key`; does nothing if it is absent.
    public func remove(_ key: String) throws(CofferError) {
        guard let item = try vault.firstItem(matching: query(key)) else { return }
        try vault.delete(item.id)
    }

    /// True when `key` has a value.
    public func contains(_ key: String) throws(CofferError) -> Bool {
        try vault.firstItem(matching: query(key)) != nil
    }

    /// Every key (account) of this service, sorted.
    public func allKeys() throws(CofferError) -> [String] {
        try vault.items(matching: ItemQuery(kind: .genericPassword, service: service)).compactMap(\.account).sorted()
    }

    private func query(_ key: String) -> ItemQuery {
        ItemQuery(kind: .genericPassword, service: service, account: key)
    }
}

extension Vault {
    /// A KeychainAccess-style view of the generic passwords of `service`.
    public func keychain(service: String) -> ServiceKeychain {
        ServiceKeychain(vault: self, service: service)
    }
}
