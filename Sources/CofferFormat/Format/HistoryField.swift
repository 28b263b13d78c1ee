import CofferCrypto

/// One password-history field of a secret list (SPEC.md §7.3, secret tag 4), read in place
/// from a fragment of a checked list, so the password is never copied: a 6-byte header,
/// then the nested password field (tag 1: header and the password's bytes), then the
/// nested date field (tag 2: header and 8 bytes, when the password was replaced).
///
/// ```swift
/// for entry in parts.history {
///     guard let field = HistoryField(entry) else { continue }
///     print(field.replaced)   // milliseconds since 1970
/// }
/// ```
package struct HistoryField {
    /// The password's bytes (without their field header), in the fragment's buffer.
    package let password: SecretFragment
    /// When the password was replaced, in milliseconds since 1970.
    package let replaced: Int64

    /// Reads the whole history field `field`; nil unless it is one: the history tag, its
    /// length the rest of the fragment, and inside exactly the password then an 8-byte
    /// date, every length within the fragment.
    package init?(_ field: SecretFragment) {
        let read = field.source.withUnsafeBytes { raw in
            try? Self.read(UnsafeRawBufferPointer(rebasing: raw[field.range]))
        }
        guard let read else { return nil }
        let start = field.range.lowerBound
        password = SecretFragment(source: field.source, range: (read.password.lowerBound + start)..<(read.password.upperBound + start))
        replaced = read.replaced
    }

    /// Where the password is in `field`, and the date; throws unless `field` is one history field.
    private static func read(_ field: UnsafeRawBufferPointer) throws(FormatError) -> (password: Range<Int>, replaced: Int64) {
        var outer = FieldReader(field, structure: "history") { _ in false }
        guard let (tag, value) = try outer.next(), tag == EntryCodec.SecretTag.history, try outer.next() == nil else {
            throw .malformed("history: not one history field")
        }
        var inner = outer.nested(value, "entry")
        guard let (passwordTag, password) = try inner.next(), passwordTag == EntryCodec.HistoryTag.password,
              let (dateTag, date) = try inner.next(), dateTag == EntryCodec.HistoryTag.replaced,
              try inner.next() == nil else {
            throw .malformed("history: expected the password, then the date")
        }
        // The nested reader counts from the start of the outer field's value.
        let shift = value.lowerBound
        return ((password.lowerBound + shift)..<(password.upperBound + shift), try inner.i64(date, "replaced"))
    }
}
