import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

extension Argon2idParameters {
    /// Parameters that take about `targetSeconds` to unlock on this machine, at
    /// `memoryKiB` of memory and one lane (the fastest Argon2id here, via libsodium).
    /// Iterations grow from 1 until the measured time reaches the target; at least 3, and
    /// at most `limit`'s passes (``KDFLimit/default``: 10), so the vault opens under it.
    ///
    /// ```swift
    /// let kdf = try Argon2idParameters.calibrated(targetSeconds: 1.0)
    /// ```
    public static func calibrated(targetSeconds: Double, memoryKiB: UInt32 = 256 * 1024,
                                  limit: KDFLimit = .default) throws(CofferError) -> Argon2idParameters {
        guard targetSeconds > 0, targetSeconds <= 60 else { throw .kdfParametersOutOfBounds("target must be 0 to 60 seconds") }
        try limit.check(Argon2idParameters(memoryKiB: memoryKiB, iterations: min(3, limit.maxIterations), lanes: 1))
        let password = try SecureBytes(copying: "calibration")
        let salt = try SecureRandom.bytes(16)
        let probe = Argon2idParameters(memoryKiB: memoryKiB, iterations: 1, lanes: 1)
        try probe.checkBounds("calibration")
        let clock = ContinuousClock()
        let elapsed = try clock.measure { () throws(CofferError) in
            _ = try Argon2id.derive(password: password, salt: salt, parameters: probe)
        }
        let perIteration = max(Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds), 1e-6)
        let iterations = UInt32(clamping: Int((targetSeconds / perIteration).rounded()))
        let most = min(iterationsRange.upperBound, max(limit.maxIterations, 1))
        return Argon2idParameters(memoryKiB: memoryKiB, iterations: min(max(iterations, 3), most), lanes: 1)
    }
}

extension ContinuousClock {
    /// `measure` with typed throws.
    func measure(_ work: () throws(CofferError) -> Void) throws(CofferError) -> Duration {
        let start = now
        try work()
        return now - start
    }
}
