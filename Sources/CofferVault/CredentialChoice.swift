import CofferCrypto
import CofferFormat

/// One way to open a vault with a password and/or a key file, as
/// ``VaultInfo/credentialChoices(withKeyFile:)`` lists them.
///
/// ```swift
/// let choices = try Vault.info(at: path).credentialChoices(withKeyFile: keyFile != nil)
/// var password: SecureBytes?
/// for (index, choice) in choices.enumerated() {
///     if choice.needsPassword, password == nil { password = try askPassword() }
///     guard let credential = choice.credential(password: password, keyFile: keyFile) else { continue }
///     do {
///         return try Vault.open(at: path, credential: credential)
///     } catch CofferError.wrongKeyFile where index < choices.count - 1 {
///         continue   // not this slot's key file: try the next choice
///     }
/// }
/// ```
public struct CredentialChoice: Sendable, Hashable {
    /// The kind of slot this choice opens: `.password`, `.keyFile` or `.passwordAndKeyFile`.
    public let slotKind: KeySlotKind

    /// True when the master password must be asked for.
    public var needsPassword: Bool { slotKind == .password || slotKind == .passwordAndKeyFile }

    /// True when a key file must be given.
    public var needsKeyFile: Bool { slotKind == .keyFile || slotKind == .passwordAndKeyFile }

    /// The credential for this choice, or nil when an input it needs is missing.
    public func credential(password: SecureBytes?, keyFile: KeyFile?) -> VaultCredential? {
        switch slotKind {
        case .password: return password.map { .password($0) }
        case .keyFile: return keyFile.map { .keyFile($0) }
        case .passwordAndKeyFile:
            guard let password, let keyFile else { return nil }
            return .passwordAndKeyFile(password, keyFile)
        case .rawKey, .unknown: return nil
        }
    }
}

extension VaultInfo {
    /// The credentials to try, in order, to open this vault with a password and, when
    /// `withKeyFile`, a key file. Go on to the next choice only when one is refused with
    /// ``CofferError/wrongKeyFile``; read the password only when a choice needs it.
    ///
    /// - Without a key file: the password (a `password` slot).
    /// - With a key file: the file alone when the vault has a `key-file` slot (no password
    ///   is needed), then the password and the file when it has a `password+key-file` slot.
    ///
    /// Empty when these inputs open no slot. Then, without a key file, a non-empty
    /// `credentialChoices(withKeyFile: true)` means the vault needs one.
    public func credentialChoices(withKeyFile: Bool) -> [CredentialChoice] {
        let kinds = slots.map(\.kind)
        let order: [KeySlotKind] = withKeyFile ? [.keyFile, .passwordAndKeyFile] : [.password]
        return order.filter(kinds.contains).map(CredentialChoice.init(slotKind:))
    }
}

extension VaultTransaction {
    /// Removes the key slots `keyFile` opens: its `key-file` slots and, given the
    /// master `password`, its `password+key-file` slots. Returns how many were removed.
    /// A file that opens none is ``CofferError/wrongKeyFile``; the last slot cannot be
    /// removed (``CofferError/slotUnavailable(_:)``, and nothing is removed).
    ///
    /// ```swift
    /// let lost = try KeyFile(contentsOf: "/media/usb/vault.key")
    /// try vault.transaction { tx in try tx.removeKeySlots(openedBy: lost, password: password) }
    /// ```
    @discardableResult
    public func removeKeySlots(openedBy keyFile: KeyFile, password: SecureBytes? = nil) throws(CofferError) -> Int {
        let before = header.slots.count
        var candidates: [VaultCredential] = [.keyFile(keyFile)]
        if let password { candidates.append(.passwordAndKeyFile(password, keyFile)) }
        var failure: CofferError?
        for credential in candidates {
            do throws(CofferError) {
                try removeKeySlot(credential)
            } catch .wrongKeyFile, .wrongPassword {
                continue
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        let removed = before - header.slots.count
        guard removed > 0 else { throw .wrongKeyFile }
        return removed
    }
}

extension Vault {
    /// Removes the key slots `keyFile` opens, in one save; see
    /// ``VaultTransaction/removeKeySlots(openedBy:password:)``.
    ///
    /// ```swift
    /// try vault.removeKeySlots(openedBy: try KeyFile(contentsOf: "/media/usb/vault.key"))
    /// ```
    @discardableResult
    public func removeKeySlots(openedBy keyFile: KeyFile, password: SecureBytes? = nil) throws(CofferError) -> Int {
        try write { (tx) throws(CofferError) in try tx.removeKeySlots(openedBy: keyFile, password: password) }
    }
}
