import Foundation
import Coffer
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
@testable import CofferOTP
@testable import CofferGenerator
@testable import CofferTransfer

/// Small KDF parameters so tests run fast; real vaults default to 256 MiB.
let testKDF = Argon2idParameters(memoryKiB: 64, iterations: 1, lanes: 1)
let testOptions = VaultOptions(kdf: testKDF, lockTimeout: .seconds(5))

func secure(_ text: String) throws -> SecureBytes { try SecureBytes(copying: text) }

extension SecureBytes {
    var testString: String? { unsafeStringCopy() }
}

/// The folder holding the built products (the test runner's own folder).
func buildProductsDirectory() -> URL {
    #if os(Linux)
    let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    #else
    let runner = Bundle.main.bundleURL
    #endif
    var dir = runner.deletingLastPathComponent()
    // On macOS the runner may sit inside an .xctest bundle.
    while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("CofferTestWriter").path) {
        dir = dir.deletingLastPathComponent()
    }
    return dir
}

/// Runs a built product with `stdin` and returns its exit status and stderr.
@discardableResult
func runProduct(_ name: String, _ arguments: [String], stdin: String) throws -> (status: Int32, stderr: String) {
    let process = Process()
    process.executableURL = buildProductsDirectory().appendingPathComponent(name)
    process.arguments = arguments
    let input = Pipe(), errors = Pipe()
    process.standardInput = input
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    input.fileHandleForWriting.write(Data(stdin.utf8))
    try input.fileHandleForWriting.close()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: errorData, as: UTF8.self))
}
