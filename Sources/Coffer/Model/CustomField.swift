/// A named, non-secret custom field, stored in the searchable overview.
///
/// Secret custom fields are ``SecretField``s instead.
///
/// ```swift
/// attributes.fields.append(CustomField(name: "Customer number", value: "12-345"))
/// ```
public struct CustomField: Sendable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
