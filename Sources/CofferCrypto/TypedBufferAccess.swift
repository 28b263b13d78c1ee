/// `withUnsafeBytes` on arrays is `rethrows` and loses typed throws; these keep
/// `CofferError` typed through the closure.
extension Array where Element == UInt8 {
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(CofferError) -> R) throws(CofferError) -> R {
        try withUnsafeBytes { raw in Result { () throws(CofferError) in try body(raw) } }.get()
    }
}

extension ArraySlice where Element == UInt8 {
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(CofferError) -> R) throws(CofferError) -> R {
        try withUnsafeBytes { raw in Result { () throws(CofferError) in try body(raw) } }.get()
    }
}
