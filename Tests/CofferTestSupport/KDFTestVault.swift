import Foundation
import CofferCrypto
@testable import CofferFormat

/// Vault files whose key slots claim any Argon2id cost SPEC.md §9 allows, written
/// without running a single KDF: the claimed slots hold random bytes where the wrapped
/// key would be, so nothing opens them (a crafted "KDF bomb"). Only the `good` slot,
/// made the normal way for `password`, opens the vault.
package enum KDFTestVault {
    /// Writes the file at `path` with the `claims` slots first (header order), then the
    /// `good` slot when given. Returns nothing; the file is a valid vault.
    package static func write(to path: String, password: String = "pw", good: Argon2idParameters?,
                              claims: [Argon2idParameters], kind: KeySlotKind = .password) throws {
        let entropy = EntropySource.system
        let vaultKey = try entropy.secureBytes(FormatV1.keyLength)
        let keys = try VaultKeys(vaultKey: vaultKey)
        let vaultID = try entropy.bytes(FormatV1.vaultIDLength)
        var slots: [KeySlotRecord] = []
        for (index, kdf) in claims.enumerated() {
            var body = ByteWriter()
            body.u8(KeySlotRecord.argon2idV13)
            body.u32(kdf.memoryKiB)
            body.u32(kdf.iterations)
            body.u32(kdf.lanes)
            body.bytes(try entropy.bytes(FormatV1.saltLength + FormatV1.nonceLength + FormatV1.wrappedKeyLength))
            slots.append(try KeySlotRecord(type: kind.code, body: body.bytes, index: index))
        }
        if let good {
            let credential = VaultCredential.password(try SecureBytes(copying: password))
            slots.append(try KeySlotRecord.make(for: credential, vaultKey: vaultKey, vaultID: vaultID, kdf: good, entropy: entropy))
        }
        let header = VaultHeader(vaultID: vaultID, slots: slots, extensions: [])
        let bytes = try VaultFile.encode(header: header, generation: 1, records: [], keys: keys)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

/// Runs `body` on its own thread and waits at most `seconds`; nil when it did not finish
/// in time (it then runs on in the background: the test has failed, and must not hang).
package func withDeadline<R: Sendable>(seconds: Double, _ body: @escaping @Sendable () -> R) -> R? {
    let box = DeadlineBox<R>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let value = body()
        box.lock.lock(); box.value = value; box.lock.unlock()
        done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    box.lock.lock(); defer { box.lock.unlock() }
    return box.value
}

/// The result slot of ``withDeadline(seconds:_:)``, guarded by its lock.
private final class DeadlineBox<R>: @unchecked Sendable {
    let lock = NSLock()
    var value: R?
}
