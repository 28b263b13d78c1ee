import CofferCrypto
import CofferFormat

/// One way to open a vault with a password and/or a key file, as
/// ``VaultInfo/credentialChoices(withKeyFile:)`` lists them, in the order
/// ``Vault/open(at:keyFile:options:askPassword:)-(String,_,_,_)`` tries them.
///
/// ```swift
/// let choices = try Vault.info(at: path).credentialChoices(withKeyFile: keyFile != nil)
/// if choices.contains(where: \.needsPassword) { showPasswordField() }
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
        case .rawKey, .ageRecipient, .sshRecipient, .unknown: return nil
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

/// A vault opened by ``Vault/open(at:keyFile:options:askPassword:)-(String,_,_,_)``, and
/// what opened it.
public struct OpenedVault: Sendable {
    /// The open vault.
    public let vault: Vault
    /// The kind of slot that opened it: `.password`, `.keyFile` or `.passwordAndKeyFile`.
    public let slotKind: KeySlotKind
    /// The master password, when it was asked for; nil when a key file alone opened the vault.
    public let password: SecureBytes?
    /// The slot `password` opened (its identity), proven by the open's KDF.
    let openedSlot: [UInt8]?

    /// Changes the master password this vault was opened with, as
    /// ``Vault/changePassword(from:to:keyFile:rotatingKey:)`` does with ``password``, without
    /// deriving the old password's key again for the slot it opened at open (other slots the
    /// password may open are checked as usual). Once that slot is gone (changed here, or by
    /// another writer), the old password is checked like any other. Throws
    /// ``CofferError/slotUnavailable(_:)`` when a key file alone opened the vault.
    ///
    /// ```swift
    /// let opened = try Vault.open(at: path, keyFile: nil) { try askUser("Current password") }
    /// let change = try opened.changePassword(to: try askUser("New password"))
    /// ```
    @discardableResult
    public func changePassword(to newPassword: SecureBytes, keyFile: KeyFile? = nil, rotatingKey: Bool = true) throws(CofferError) -> KeySlotChange {
        guard let password else { throw .slotUnavailable("the vault was opened without a password") }
        return try vault.changingSlots(rotatingKey: rotatingKey) { (tx) throws(CofferError) in
            try tx.changePassword(from: password, to: newPassword, keyFile: keyFile, openedSlot: openedSlot)
        }
    }
}

extension Vault {
    /// Opens a vault with what a person gives: a password and, optionally, a key file,
    /// used as the vault's key slots take them, and the password asked for only when a
    /// slot needs it. Every app that takes a key file opens this way; `coffer --key-file`
    /// does.
    ///
    /// The choices, in order (``VaultInfo/credentialChoices(withKeyFile:)``):
    /// - without `keyFile`: the password (a `password` slot);
    /// - with `keyFile`: the file alone, when the vault has a `key-file` slot (no password
    ///   is asked for); then, when that file opens no such slot and the vault has a
    ///   `password+key-file` slot, the password with the file.
    ///
    /// Before asking for anything it reads the header and checks the slots it would try
    /// against `options.kdfLimit` (``CofferError/Kind/kdfCostTooHigh``). It throws
    /// ``CofferError/Kind/keyFileRequired`` when the vault opens only with a key file and
    /// none was given, ``CofferError/Kind/slotUnavailable`` when these inputs fit no slot (a
    /// key file for a vault without key-file slots, a vault of raw-key slots), the wrong
    /// credential of the last choice tried (``CofferError/Kind/wrongPassword``,
    /// ``CofferError/Kind/wrongKeyFile``), and what `askPassword` throws, unchanged. It
    /// asks for the password at most once.
    ///
    /// ```swift
    /// let keyFile = try keyFilePath.map { try KeyFile(contentsOf: $0) }
    /// let opened = try Vault.open(at: path, keyFile: keyFile) {
    ///     try askUser("Master password")   // not called when the key file alone opens the vault
    /// }
    /// print(opened.slotKind)               // key-file, password+key-file or password
    /// let vault = opened.vault
    /// ```
    public static func open(at path: String, keyFile: KeyFile?, options: VaultOptions = VaultOptions(),
                            askPassword: () throws -> SecureBytes) throws -> OpenedVault {
        let info = try Vault.info(at: path)
        let choices = info.credentialChoices(withKeyFile: keyFile != nil)
        guard !choices.isEmpty else {
            if keyFile == nil, !info.credentialChoices(withKeyFile: true).isEmpty {
                throw CofferError.keyFileRequired("the vault's key slots need a key file, alone or with the password")
            }
            throw CofferError.slotUnavailable(keyFile == nil ? "the vault has no password or key-file slot" : "the vault has no key-file slot")
        }
        // Refuse a costly vault before any KDF and before the password is asked for.
        try info.checkUnlockCost(limit: options.kdfLimit, kinds: choices.map(\.slotKind))
        var password: SecureBytes?
        for (index, choice) in choices.enumerated() {
            // A key file alone needs no master password.
            if choice.needsPassword, password == nil { password = try askPassword() }
            guard let credential = choice.credential(password: password, keyFile: keyFile) else { continue }
            do throws(CofferError) {
                let vault = try open(at: path, credential: credential, options: options)
                return OpenedVault(vault: vault, slotKind: choice.slotKind, password: password,
                                   openedSlot: password == nil ? nil : vault.openingSlotKey?.slotIdentity)
            } catch {
                // Not a key-file-only slot's file: try the next choice.
                guard error.kind == .wrongKeyFile, index < choices.count - 1 else { throw error }
            }
        }
        throw CofferError.wrongKeyFile
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
