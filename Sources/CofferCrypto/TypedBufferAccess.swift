/// `withUnsafeBytes` on arrays is `rethrows` and loses typed throws; these keep the
/// closure's error type (`CofferError`, a layer's own error) typed through the call.
extension Array where Element == UInt8 {
    @inlinable
    package func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes { raw in Result { () throws(E) in try body(raw) } }.get()
    }
}

extension ArraySlice where Element == UInt8 {
    @inlinable
    package func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes { raw in Result { () throws(E) in try body(raw) } }.get()
    }
}
