// A stand-in for the platform keystore (Keychain with Touch ID, Android Keystore,
// a TPM, a server's HSM): a 32-byte key in a file only its owner can read (mode 0600).
// A real app keeps the key in the keystore and receives it after the user's
// fingerprint or the device unlock; the vault side, a raw-key slot, stays the same.
import Coffer
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum StandInKeystore {
    /// The length of a raw-key slot's key.
    public static let keyLength = 32

    /// Makes a random 32-byte key and stores it at `path` (mode 0600; never overwrites).
    public static func createKey(at path: String) throws -> SecureBytes {
        let key = try SecureBytes.random(count: keyLength)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CofferError.io(operation: "create key", path: path, errno: errno) }
        let written = key.withUnsafeBytes { raw in write(fd, raw.baseAddress, raw.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == keyLength, synced else {
            unlink(path)
            throw CofferError.io(operation: "write key", path: path, errno: EIO)
        }
        return key
    }

    /// The key stored at `path`, or nil when there is none.
    public static func loadKey(at path: String) throws -> SecureBytes? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 && errno == ENOENT { return nil }
        guard fd >= 0 else { throw CofferError.io(operation: "open key", path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & 0o077 == 0 else {
            throw CofferError.invalidKey("\(path) must be readable by its owner only (mode 0600)")
        }
        guard info.st_size == keyLength else { throw CofferError.invalidKey("\(path) does not hold a 32-byte key") }
        // Straight into guarded memory: the key never sits in an ordinary array.
        return try SecureBytes(count: keyLength) { (raw) throws(CofferError) in
            guard read(fd, raw.baseAddress, raw.count) == keyLength else {
                throw CofferError.invalidKey("\(path) does not hold a 32-byte key")
            }
        }
    }

    /// Forgets the key (a keystore would delete its entry).
    public static func deleteKey(at path: String) {
        unlink(path)
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
