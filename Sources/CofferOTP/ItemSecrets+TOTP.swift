import CofferCrypto
import CofferFormat

extension ItemSecrets {
    /// The item's one-time password generator, from its ``TOTP/fieldName`` (`otp`)
    /// secret field; nil when it has none. Throws ``CofferError/Kind/invalidOneTimePassword``
    /// when the field holds something that is not a TOTP URI or base32 secret.
    ///
    /// ```swift
    /// if let totp = try vault.secrets(for: item.id).totp() { print(try totp.code(at: Date())) }
    /// ```
    public func totp() throws(CofferError) -> TOTP? {
        guard let value = field(named: TOTP.fieldName) else { return nil }
        return try TOTP(parsing: value)
    }

    /// Stores `totp` as the ``TOTP/fieldName`` (`otp`) secret field, replacing any.
    ///
    /// ```swift
    /// var secrets = try vault.secrets(for: item.id)
    /// try secrets.setTOTP(try TOTP(parsing: uri))
    /// try vault.update(item.id, secrets: secrets)
    /// ```
    public mutating func setTOTP(_ totp: TOTP) throws(CofferError) {
        let value = try totp.uri()
        // Replace the first `otp` field in place (keeping the order) and drop any others.
        var replaced = false
        fields = fields.compactMap { field in
            guard field.name == TOTP.fieldName else { return field }
            defer { replaced = true }
            return replaced ? nil : SecretField(name: field.name, value: value)
        }
        if !replaced { fields.append(SecretField(name: TOTP.fieldName, value: value)) }
    }
}
