
/// The seam every kernel-keyring call of ``KernelKeyring`` goes through: `add_key` and
/// `keyctl`, as raw system calls (keyrings(7)), so no libkeyutils is needed.
///
/// Production uses ``live``. Tests wrap it to fail a chosen operation with a chosen
/// `errno` (`ENOSYS` for a kernel without keys, `EPERM` for a container that filters
/// the calls, `EDQUOT` for a full quota) and check that everything still works by password.
package struct KeyringIO: Sendable {
    /// `add_key("user", description, payload, keyring)`; `value` is the key's serial.
    package var addKey: @Sendable (_ description: String, _ payload: UnsafeRawBufferPointer, _ keyring: Int32) -> SyscallResult
    /// `keyctl(operation, a2, a3, a4, a5)`; `value` is the call's result.
    package var keyctl: @Sendable (_ operation: KeyctlOperation, _ a2: UInt, _ a3: UInt, _ a4: UInt, _ a5: UInt) -> SyscallResult

    package init(addKey: @escaping @Sendable (_ description: String, _ payload: UnsafeRawBufferPointer, _ keyring: Int32) -> SyscallResult,
                 keyctl: @escaping @Sendable (_ operation: KeyctlOperation, _ a2: UInt, _ a3: UInt, _ a4: UInt, _ a5: UInt) -> SyscallResult) {
        self.addKey = addKey
        self.keyctl = keyctl
    }
}

/// The `keyctl` operations ``KernelKeyring`` uses (linux/keyctl.h).
package enum KeyctlOperation: Int32, Sendable {
    case getKeyringID = 0
    case setPermissions = 5
    case describe = 6
    case search = 10
    case read = 11
    case setTimeout = 15
    case invalidate = 21
}

extension SyscallResult {
    /// A failed call's result, for tests that inject faults.
    package static func failing(_ errno: Int32) -> SyscallResult { .failure(errno) }
}
