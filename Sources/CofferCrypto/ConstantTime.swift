internal import CSodium

/// Comparisons whose running time does not depend on the contents.
package enum ConstantTime {
    /// True when both byte strings are equal; only the lengths may leak.
    package static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return sodium_memcmp(a, b, a.count) == 0
    }
}
