import CofferCrypto
/// A named, non-secret custom field, stored in the searchable overview.
///
/// Secret custom fields are ``SecretField``s instead.
///
/// ```swift
/// attributes.fields.append(CustomField(name: "Customer number", value: "12-345"))
/// ```
public struct CustomField: Sendable, Hashable, Codable {
    /// The field's name, e.g. `"Customer number"`.
    public var name: String
    /// The field's value; searchable, never secret.
    public var value: String

    /// A non-secret field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
