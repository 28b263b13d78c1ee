import CofferCrypto
import Foundation
/// A minimal arbitrary-precision unsigned integer, for counting passwords exactly
/// (up to 94^1024, about 2^6712). It has only what the entropy formula needs.
struct BigUnsignedInteger: Sendable, Hashable, CustomStringConvertible {
    /// Little-endian 64-bit limbs, without leading zero limbs (zero is `[]`).
    private(set) var limbs: [UInt64]

    init(_ value: UInt64) {
        limbs = value == 0 ? [] : [value]
    }

    var isZero: Bool { limbs.isEmpty }

    /// `base` raised to `exponent`, multiplying by the largest power of `base` that fits
    /// in 64 bits at a time (about 9 factors of 94 per multiplication).
    static func power(_ base: UInt64, _ exponent: Int) -> BigUnsignedInteger {
        var result = BigUnsignedInteger(1)
        if exponent <= 0 { return result }
        if base == 0 { return BigUnsignedInteger(0) }
        if base == 1 { return result }
        var chunk: UInt64 = 1
        var chunkExponent = 0
        var remaining = exponent
        while remaining > 0 {
            let (next, overflow) = chunk.multipliedReportingOverflow(by: base)
            if overflow {
                result.multiply(by: chunk)
                chunk = 1
                chunkExponent = 0
                continue
            }
            chunk = next
            chunkExponent += 1
            remaining -= 1
        }
        if chunkExponent > 0 { result.multiply(by: chunk) }
        return result
    }

    mutating func multiply(by factor: UInt64) {
        if factor == 0 { limbs = []; return }
        var carry: UInt64 = 0
        for index in limbs.indices {
            let (high, low) = limbs[index].multipliedFullWidth(by: factor)
            let (sum, overflow) = low.addingReportingOverflow(carry)
            limbs[index] = sum
            carry = high &+ (overflow ? 1 : 0)
        }
        if carry != 0 { limbs.append(carry) }
    }

    mutating func add(_ other: BigUnsignedInteger) {
        if limbs.count < other.limbs.count {
            limbs.append(contentsOf: repeatElement(0, count: other.limbs.count - limbs.count))
        }
        var carry: UInt64 = 0
        for index in limbs.indices {
            let addend = index < other.limbs.count ? other.limbs[index] : 0
            let (partial, overflow1) = limbs[index].addingReportingOverflow(addend)
            let (sum, overflow2) = partial.addingReportingOverflow(carry)
            limbs[index] = sum
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
            if carry == 0 && index >= other.limbs.count { break }
        }
        if carry != 0 { limbs.append(carry) }
    }

    /// Subtracts `other`, which must not be larger (the caller guarantees it);
    /// a larger `other` clamps the result to zero rather than wrapping.
    mutating func subtract(_ other: BigUnsignedInteger) {
        guard self >= other else { limbs = []; return }
        var borrow: UInt64 = 0
        for index in limbs.indices {
            let subtrahend = index < other.limbs.count ? other.limbs[index] : 0
            let (partial, overflow1) = limbs[index].subtractingReportingOverflow(subtrahend)
            let (difference, overflow2) = partial.subtractingReportingOverflow(borrow)
            limbs[index] = difference
            borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        while let last = limbs.last, last == 0 { limbs.removeLast() }
    }

    /// log2 of the value (negative infinity for zero), to double precision: the top
    /// 64 significant bits give the mantissa, the rest only the exponent.
    var log2: Double {
        guard let top = limbs.last else { return -.infinity }
        let topBits = 64 - top.leadingZeroBitCount
        let shift = (limbs.count - 1) * 64 + topBits - 64
        // Left-align the 64 most significant bits.
        var mantissa = top << UInt64(64 - topBits)
        if topBits < 64, limbs.count >= 2 {
            mantissa |= limbs[limbs.count - 2] >> UInt64(topBits)
        }
        return _log2(Double(mantissa)) + Double(shift)
    }

    /// Decimal digits, for tests and diagnostics.
    var description: String {
        if limbs.isEmpty { return "0" }
        var remaining = self
        var groups: [UInt64] = []
        let divisor: UInt64 = 10_000_000_000_000_000_000  // 10^19
        while !remaining.isZero {
            groups.append(remaining.divide(by: divisor))
        }
        var text = String(groups.removeLast())
        for group in groups.reversed() {
            let digits = String(group)
            text += String(repeating: "0", count: 19 - digits.count) + digits
        }
        return text
    }

    /// Divides in place and returns the remainder.
    private mutating func divide(by divisor: UInt64) -> UInt64 {
        var remainder: UInt64 = 0
        for index in limbs.indices.reversed() {
            let (quotient, rest) = divisor.dividingFullWidth((high: remainder, low: limbs[index]))
            limbs[index] = quotient
            remainder = rest
        }
        while let last = limbs.last, last == 0 { limbs.removeLast() }
        return remainder
    }
}

extension BigUnsignedInteger: Comparable {
    static func < (lhs: BigUnsignedInteger, rhs: BigUnsignedInteger) -> Bool {
        if lhs.limbs.count != rhs.limbs.count { return lhs.limbs.count < rhs.limbs.count }
        for index in lhs.limbs.indices.reversed() where lhs.limbs[index] != rhs.limbs[index] {
            return lhs.limbs[index] < rhs.limbs[index]
        }
        return false
    }
}

/// The C library's log2 (through Foundation), out of reach of the `log2` property above.
private func _log2(_ value: Double) -> Double { Foundation.log2(value) }
