internal import CArgon2
internal import CSodium

/// Argon2id cost parameters (RFC 9106).
///
/// ```swift
/// let strong = Argon2idParameters(memoryKiB: 256 * 1024, iterations: 3, lanes: 1)
/// try strong.validate()
/// ```
public struct Argon2idParameters: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Memory in KiB (1024 bytes). At least 8 × `lanes`, at most 4 GiB (SPEC.md §9).
    public var memoryKiB: UInt32
    /// Number of passes over memory (`t`). 1 to 64 (SPEC.md §9).
    public var iterations: UInt32
    /// Degree of parallelism (`p`). 1 to 64 (SPEC.md §9).
    public var lanes: UInt32

    public init(memoryKiB: UInt32, iterations: UInt32, lanes: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.lanes = lanes
    }

    /// Memory (KiB) a reader accepts from a file: 8 KiB to 4 GiB (SPEC.md §9).
    public static let memoryKiBRange: ClosedRange<UInt32> = 8...(4 * 1024 * 1024)
    /// Iterations a reader accepts: 1 to 64.
    public static let iterationsRange: ClosedRange<UInt32> = 1...64
    /// Lanes a reader accepts: 1 to 64.
    public static let lanesRange: ClosedRange<UInt32> = 1...64

    /// 256 MiB, 3 iterations, 1 lane: libsodium's single-lane Argon2id is the fastest
    /// implementation on the machines we measured (see BENCHMARKS.md).
    public static let `default` = Argon2idParameters(memoryKiB: 256 * 1024, iterations: 3, lanes: 1)

    /// Throws ``CofferError/kdfParametersOutOfBounds(_:)`` unless every reader accepts
    /// them: the bounds of SPEC.md §9 (which libargon2's own limits contain). So what
    /// `create` accepts, a reader opens.
    public func validate() throws(CofferError) {
        try checkBounds(nil)
    }

    /// The one check of SPEC.md §9's Argon2id bounds, for writers and readers alike;
    /// `what` (e.g. a slot's name) starts the message.
    package func checkBounds(_ what: String?) throws(CofferError) {
        let prefix = what.map { "\($0): " } ?? ""
        guard Self.memoryKiBRange.contains(memoryKiB) else {
            throw .kdfParametersOutOfBounds("\(prefix)memory \(memoryKiB) KiB outside 8 KiB to 4 GiB")
        }
        guard Self.iterationsRange.contains(iterations) else {
            throw .kdfParametersOutOfBounds("\(prefix)iterations \(iterations) outside 1 to \(Self.iterationsRange.upperBound)")
        }
        guard Self.lanesRange.contains(lanes) else {
            throw .kdfParametersOutOfBounds("\(prefix)lanes \(lanes) outside 1 to \(Self.lanesRange.upperBound)")
        }
        guard UInt64(memoryKiB) >= 8 * UInt64(lanes) else {
            throw .kdfParametersOutOfBounds("\(prefix)memory below 8 KiB per lane")
        }
    }

    public var description: String { "Argon2id(m=\(memoryKiB) KiB, t=\(iterations), p=\(lanes))" }
}

/// Argon2id, computed by libargon2 in general and by libsodium's faster single-lane
/// code when both compute the same function (one lane, 16-byte salt, no secret, no AD).
package enum Argon2id {
    /// Which library computes the hash.
    package enum Implementation: Sendable, CaseIterable {
        /// libsodium when it can compute these inputs, else libargon2.
        case automatic
        /// libargon2's `argon2_ctx` (any lanes, secret and associated data).
        case libargon2
        /// libsodium's `crypto_pwhash` (one lane only, no secret or associated data).
        case libsodium
    }

    package static func derive(
        password: SecureBytes,
        salt: [UInt8],
        parameters: Argon2idParameters,
        secret: SecureBytes? = nil,
        associatedData: [UInt8] = [],
        outputLength: Int = 32,
        implementation: Implementation = .automatic
    ) throws(CofferError) -> SecureBytes {
        try parameters.validate()
        guard salt.count >= Int(coffer_argon2_min_salt_length()) else {
            throw .kdfParametersOutOfBounds("salt must be at least 8 bytes")
        }
        guard outputLength >= Int(coffer_argon2_min_outlen()), outputLength <= 1024 else {
            throw .invalidArgument("Argon2id output must be 4 to 1024 bytes")
        }
        let sodiumCan = parameters.lanes == 1 && secret == nil && associatedData.isEmpty
            && salt.count == Int(crypto_pwhash_argon2id_SALTBYTES)
            && outputLength >= Int(crypto_pwhash_argon2id_BYTES_MIN)
            && UInt64(parameters.memoryKiB) * 1024 >= UInt64(crypto_pwhash_argon2id_memlimit_min())
        switch implementation {
        case .libsodium:
            guard sodiumCan else { throw .kdfParametersOutOfBounds("libsodium computes only single-lane Argon2id with a 16-byte salt") }
            return try viaSodium(password: password, salt: salt, parameters: parameters, outputLength: outputLength)
        case .automatic where sodiumCan:
            return try viaSodium(password: password, salt: salt, parameters: parameters, outputLength: outputLength)
        case .automatic, .libargon2:
            return try viaArgon2(password: password, salt: salt, parameters: parameters, secret: secret,
                                 associatedData: associatedData, outputLength: outputLength)
        }
    }

    /// Threads used by libargon2: one per lane, but no more than the machine's cores.
    static func threads(for lanes: UInt32) -> UInt32 {
        let cores = Platform.onlineProcessors
        return min(lanes, UInt32(clamping: cores))
    }

    private static func viaSodium(password: SecureBytes, salt: [UInt8], parameters: Argon2idParameters,
                                  outputLength: Int) throws(CofferError) -> SecureBytes {
        try Sodium.ensureInitialized()
        return try SecureBytes(count: outputLength) { (out: UnsafeMutablePointer<UInt8>, length: Int) throws(CofferError) in
            let status = password.withBytePointer { pwd, pwdLength in
                pwd.withMemoryRebound(to: CChar.self, capacity: max(pwdLength, 1)) { pwdChars in
                    crypto_pwhash(out, UInt64(length), pwdChars, UInt64(pwdLength),
                                  salt, UInt64(parameters.iterations), Int(parameters.memoryKiB) * 1024,
                                  crypto_pwhash_ALG_ARGON2ID13)
                }
            }
            // libsodium fails here only when it cannot allocate the memory.
            guard status == 0 else { throw .kdfFailed("libsodium crypto_pwhash could not allocate \(parameters.memoryKiB) KiB") }
        }
    }

    private static func viaArgon2(password: SecureBytes, salt: [UInt8], parameters: Argon2idParameters,
                                  secret: SecureBytes?, associatedData: [UInt8],
                                  outputLength: Int) throws(CofferError) -> SecureBytes {
        var salt = salt
        var ad = associatedData
        return try SecureBytes(count: outputLength) { (out) throws(CofferError) in
            let status: Int32 = password.withUnsafeBytes { pwd in
                withOptionalBytes(secret) { sec in
                    salt.withUnsafeMutableBufferPointer { saltBuf in
                        ad.withUnsafeMutableBufferPointer { adBuf in
                            var context = argon2_context(
                                out: out.baseAddress?.assumingMemoryBound(to: UInt8.self), outlen: UInt32(outputLength),
                                pwd: UnsafeMutablePointer(mutating: pwd.baseAddress?.assumingMemoryBound(to: UInt8.self)),
                                pwdlen: UInt32(pwd.count),
                                salt: saltBuf.baseAddress, saltlen: UInt32(saltBuf.count),
                                secret: UnsafeMutablePointer(mutating: sec.baseAddress?.assumingMemoryBound(to: UInt8.self)),
                                secretlen: UInt32(sec.count),
                                ad: adBuf.baseAddress, adlen: UInt32(adBuf.count),
                                t_cost: parameters.iterations, m_cost: parameters.memoryKiB,
                                lanes: parameters.lanes, threads: threads(for: parameters.lanes),
                                version: UInt32(ARGON2_VERSION_13.rawValue),
                                allocate_cbk: nil, free_cbk: nil,
                                flags: coffer_argon2_default_flags())
                            return argon2_ctx(&context, Argon2_id)
                        }
                    }
                }
            }
            guard status == ARGON2_OK.rawValue else {
                throw .kdfFailed(String(cString: argon2_error_message(status)))
            }
        }
    }

    private static func withOptionalBytes<R>(_ bytes: SecureBytes?, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let bytes { return bytes.withUnsafeBytes(body) }
        return body(UnsafeRawBufferPointer(start: nil, count: 0))
    }
}
