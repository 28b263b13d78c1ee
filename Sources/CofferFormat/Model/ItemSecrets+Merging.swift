import CofferCrypto

extension ItemSecrets {
    /// These secrets with the parts `changes` sets put in: a password or notes that are not
    /// nil replace these; each secret field and attachment of `changes` replaces those with
    /// its name (in place) or is added; a non-empty password history replaces this one.
    /// Everything `changes` leaves unset is kept, so changing a password never drops the
    /// item's notes, one-time-password seed, other fields or attachments.
    ///
    /// This is what ``Vault/update(_:attributes:secrets:)`` does; to drop parts, use
    /// ``Vault/replaceSecrets(of:with:)`` or the closure form of `update`.
    ///
    /// ```swift
    /// let current = try vault.secrets(for: item.id)                // password, notes, otp field
    /// let next = current.merging(ItemSecrets(password: newPassword))
    /// // next.notes == current.notes, next.field(named: "otp") == current.field(named: "otp")
    /// ```
    public func merging(_ changes: ItemSecrets) -> ItemSecrets {
        var out = self
        if let password = changes.password { out.password = password }
        if let notes = changes.notes { out.notes = notes }
        out.fields = Self.merge(fields, changes.fields, name: \.name)
        out.attachments = Self.merge(attachments, changes.attachments, name: \.name)
        if !changes.passwordHistory.isEmpty { out.passwordHistory = changes.passwordHistory }
        if !changes.preservedFields.isEmpty { out.preservedFields = changes.preservedFields }
        return out
    }

    /// `current` with every name `changes` has replaced by `changes`' values of that name,
    /// where the name first appeared; new names are appended in `changes`' order.
    private static func merge<Value>(_ current: [Value], _ changes: [Value], name: (Value) -> String) -> [Value] {
        guard !changes.isEmpty else { return current }
        var replacing: [String: [Value]] = [:]
        var order: [String] = []
        for value in changes {
            if replacing[name(value)] == nil { order.append(name(value)) }
            replacing[name(value), default: []].append(value)
        }
        var out: [Value] = []
        var placed = Set<String>()
        for value in current {
            guard let new = replacing[name(value)] else { out.append(value); continue }
            if placed.insert(name(value)).inserted { out += new }
        }
        for key in order where !placed.contains(key) { out += replacing[key] ?? [] }
        return out
    }
}
