internal import CSodium

/// Comparisons whose running time does not depend on the contents.
package enum ConstantTime {
    /// True when both byte strings are equal; only the lengths may leak.
    package static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return sodium_memcmp(a, b, a.count) == 0
    }

    /// ``equals(_:_:)`` for memory that must not be copied into ordinary arrays (guarded secrets).
    package static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let pa = a.baseAddress, let pb = b.baseAddress, a.count > 0 else { return true }
        return sodium_memcmp(pa, pb, a.count) == 0
    }
}
