import Dispatch
import Foundation

/// Shows a short "unlocking…" on stderr when `body` takes longer than about 0.3 s
/// and stderr is a terminal; erases it when `body` returns.
func withProgressHint<R>(_ text: String = "unlocking…", _ body: () throws -> R) rethrows -> R {
    guard Output.stderrIsTerminal else { return try body() }
    let hint = ProgressHint(text: text)
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { hint.show() }
    defer { hint.finish() }
    return try body()
}

private final class ProgressHint: @unchecked Sendable {
    // @unchecked: `finished` and `shown` are guarded by `lock`.
    private let lock = NSLock()
    private let text: String
    private var finished = false
    private var shown = false

    init(text: String) { self.text = text }

    func show() {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        shown = true
        Output.error(text, newline: false)
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        finished = true
        // Carriage return and "erase to end of line" remove the hint.
        if shown { Output.error("\r\u{1B}[K", newline: false) }
    }
}
