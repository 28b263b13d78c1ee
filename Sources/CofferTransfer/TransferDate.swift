import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
import Foundation

/// ISO 8601 dates in import and export files, with integer arithmetic only.
///
/// Why not `ISO8601DateFormatter`: it goes through `Double` seconds and can print
/// `.124` for a date stored as `.125`, which would break the byte-identical
/// export → import → export round trip. The CLI reads `--expires` with ``parse(_:)``.
///
/// ```swift
/// TransferDate.parse("2027-01-31")                        // 2027-01-31T00:00:00Z
/// TransferDate.format(TransferDate.parse("2027-01-31T09:30+01:00")!)   // "2027-01-31T08:30:00.000Z"
/// ```
public enum TransferDate {
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, in UTC, from the date's milliseconds.
    public static func format(_ date: Date) -> String {
        let ms = date.millisecondsSince1970
        let days = floorDiv(ms, 86_400_000)
        let inDay = ms - days * 86_400_000
        let (year, month, day) = civil(fromDays: days)
        let hour = inDay / 3_600_000, minute = inDay / 60_000 % 60, second = inDay / 1000 % 60, milli = inDay % 1000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2)
            + ":" + pad(second, 2) + "." + pad(milli, 3) + "Z"
    }

    /// Parses `YYYY-MM-DD[Thh:mm[:ss[.fff…]]][Z|±hh:mm|±hhmm]` (a space may stand for `T`;
    /// no zone means UTC). Returns nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let c = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        var i = 0
        func number(_ width: Int) -> Int64? {
            guard i + width <= c.count else { return nil }
            var value: Int64 = 0
            for k in i..<(i + width) {
                guard (48...57).contains(c[k]) else { return nil }
                value = value * 10 + Int64(c[k] - 48)
            }
            i += width
            return value
        }
        func expect(_ ch: Character) -> Bool {
            guard i < c.count, c[i] == ch.asciiValue else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, milli: Int64 = 0, offset: Int64 = 0
        if i < c.count, c[i] == UInt8(ascii: "T") || c[i] == UInt8(ascii: "t") || c[i] == UInt8(ascii: " ") {
            i += 1
            guard let h = number(2), expect(":"), let m = number(2) else { return nil }
            hour = h
            minute = m
            if expect(":") {
                guard let s = number(2) else { return nil }
                second = s
                if i < c.count, c[i] == UInt8(ascii: ".") || c[i] == UInt8(ascii: ",") {
                    i += 1
                    var digits = 0
                    while i < c.count, (48...57).contains(c[i]) {
                        if digits < 3 { milli = milli * 10 + Int64(c[i] - 48) }
                        digits += 1
                        i += 1
                    }
                    guard digits > 0 else { return nil }
                    if digits < 3 { for _ in digits..<3 { milli *= 10 } }
                }
            }
            guard hour < 24, minute < 60, second < 61 else { return nil }
            if i < c.count {
                if c[i] == UInt8(ascii: "Z") || c[i] == UInt8(ascii: "z") {
                    i += 1
                } else if c[i] == UInt8(ascii: "+") || c[i] == UInt8(ascii: "-") {
                    let sign: Int64 = c[i] == UInt8(ascii: "+") ? 1 : -1
                    i += 1
                    guard let oh = number(2) else { return nil }
                    _ = expect(":")
                    let om = number(2) ?? 0
                    offset = sign * (oh * 60 + om) * 60_000
                }
            }
        }
        guard i == c.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let ms = days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + milli - offset
        return Date(millisecondsSince1970: ms)
    }

    /// A KeePass 4 timestamp: base64 of a little-endian Int64 count of seconds since 0001-01-01.
    static func parseKeePassBase64(_ text: String) -> Date? {
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 8 else { return nil }
        var seconds: Int64 = 0
        for (index, byte) in data.enumerated() { seconds |= Int64(byte) << (8 * Int64(index)) }
        // 0001-01-01 to 1970-01-01.
        let unix = seconds - 62_135_596_800
        guard unix > -62_135_596_800, unix < 253_402_300_800 else { return nil }
        return Date(millisecondsSince1970: unix * 1000)
    }

    // Howard Hinnant's civil-calendar algorithms (proleptic Gregorian).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(abs(value))
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
