internal import CSodium

extension BLAKE2b {
    /// Keyed BLAKE2b (a MAC) of public data that `feed` hands over in parts, in order (a file
    /// read a window at a time): the same tag as ``mac(_:key:outputLength:)`` of the parts
    /// joined, without ever holding them all. The hash state, which depends on the key, lives
    /// only during the call and is wiped before it returns.
    ///
    /// ```swift
    /// let tag = try BLAKE2b.mac(key: key) { update in
    ///     for window in windows { window.withUnsafeBytes(update) }
    /// }
    /// ```
    package static func mac(key: SecureBytes, outputLength: Int = 32,
                            feeding feed: (_ update: (UnsafeRawBufferPointer) -> Void) throws(CofferError) -> Void) throws(CofferError) -> [UInt8] {
        try checkLengths(key: key, outputLength: outputLength)
        let size = crypto_generichash_statebytes()
        let state = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        defer {
            sodium_memzero(state, size)
            state.deallocate()
        }
        let typed = OpaquePointer(state)
        let started = key.withBytePointer { k, kLength in crypto_generichash_init(typed, k, kLength, outputLength) }
        guard started == 0 else { throw .cryptoFailure("BLAKE2b failed") }
        var failed = false
        try feed { part in
            guard !failed, part.count > 0, let base = part.baseAddress else { return }
            if crypto_generichash_update(typed, base.assumingMemoryBound(to: UInt8.self), UInt64(part.count)) != 0 { failed = true }
        }
        var out = [UInt8](repeating: 0, count: outputLength)
        guard !failed, crypto_generichash_final(typed, &out, outputLength) == 0 else { throw .cryptoFailure("BLAKE2b failed") }
        return out
    }
}
