import Foundation

/// A fresh temporary folder, removed when `body` returns.
package func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let url = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// ``withTemporaryDirectory(_:)`` for an async body.
package func withTemporaryDirectoryAsync<R>(_ body: (URL) async throws -> R) async throws -> R {
    let url = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

private func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("coffer-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
