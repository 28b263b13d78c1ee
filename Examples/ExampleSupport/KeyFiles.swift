// A stand-in for the platform keystore (Keychain with Touch ID, Android Keystore,
// a TPM, a server's HSM): a 32-byte key in a file only its owner can read (mode 0600).
// A real app keeps the key in the keystore and receives it after the user's
// fingerprint or the device unlock; the vault side, a raw-key slot, stays the same.
import Coffer
import Foundation

public enum StandInKeystore {
    /// The length of a raw-key slot's key.
    public static let keyLength = 32

    /// Makes a random 32-byte key and stores it at `path` (mode 0600; never overwrites).
    public static func createKey(at path: String) throws -> SecureBytes {
        let key = try SecureBytes.random(count: keyLength)
        try key.writeNewSecretFile(at: path)
        return key
    }

    /// The key stored at `path`, or nil when there is none. Read by the library's
    /// secret-file reader: straight into guarded memory, owner-only files, no FIFO.
    public static func loadKey(at path: String) throws -> SecureBytes? {
        guard let key = try readIfPresent(path) else { return nil }
        guard key.count == keyLength else { throw CofferError.invalidKey("\(path) does not hold a 32-byte key") }
        return key
    }

    private static func readIfPresent(_ path: String) throws(CofferError) -> SecureBytes? {
        do {
            return try SecureBytes.readSecretFile(at: path, maximumSize: 4096, ownerOnly: true)
        } catch where error.kind == .fileNotFound {
            return nil
        }
    }

    /// Forgets the key (a keystore would delete its entry).
    public static func deleteKey(at path: String) {
        FileChecks.remove(path)
    }
}

/// Removes a vault for good with `Vault.destroy(at:)`: the file, its backup, leftover
/// temp files and its lock. The vault is encrypted, so removing the files and every key
/// that opens it is enough. A vault that is already gone is fine here.
public func removeVaultFiles(at path: String) {
    do {
        try Vault.destroy(at: path)
    } catch CofferError.fileNotFound {
        return
    } catch {
        print("  (could not remove \(path): \(error))")
    }
}
