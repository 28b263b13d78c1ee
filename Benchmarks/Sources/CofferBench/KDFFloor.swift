import CArgon2
import CSodium
import Foundation

/// The Argon2id floor: a process that runs the KDF once and nothing else, calling
/// the library directly, so process start is counted as it is for `coffer`.
enum KDFFloor {
    static func run(_ options: Options) throws {
        let parameters = try options.kdf()
        let implementation = try options.string("implementation", default: "libsodium")
        let password = Array("correct horse battery staple".utf8)
        let salt = [UInt8](repeating: 7, count: 16)
        let output = try derive(password: password, salt: salt, memoryKiB: parameters.memoryKiB,
                                iterations: parameters.iterations, lanes: parameters.lanes, implementation: implementation)
        if options.flag("print") { print(output.map { String(format: "%02x", $0) }.joined()) }
    }

    /// Argon2id straight from libsodium (one lane) or libargon2 (one thread per lane).
    static func derive(password: [UInt8], salt: [UInt8], memoryKiB: UInt32, iterations: UInt32, lanes: UInt32,
                       implementation: String) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        switch implementation {
        case "libsodium":
            guard lanes == 1 else { throw BenchError("libsodium computes one lane only") }
            guard sodium_init() >= 0 else { throw BenchError("sodium_init failed") }
            let status = password.withUnsafeBufferPointer { pwd in
                pwd.withMemoryRebound(to: CChar.self) { chars in
                    crypto_pwhash(&out, UInt64(out.count), chars.baseAddress!, UInt64(chars.count), salt,
                                  UInt64(iterations), Int(memoryKiB) * 1024, crypto_pwhash_ALG_ARGON2ID13)
                }
            }
            guard status == 0 else { throw BenchError("crypto_pwhash failed") }
        case "libargon2":
            let status = argon2id_hash_raw(iterations, memoryKiB, lanes, password, password.count, salt, salt.count, &out, out.count)
            guard status == ARGON2_OK.rawValue else { throw BenchError("argon2id_hash_raw failed: \(status)") }
        default:
            throw BenchError("--implementation is libsodium or libargon2")
        }
        return out
    }
}
