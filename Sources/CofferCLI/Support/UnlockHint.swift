import Dispatch
import Foundation

/// Shows a short "unlocking…" on stderr when `body` takes longer than about 0.3 s
/// and stderr is a terminal; erases it when `body` returns.
func withProgressHint<R>(_ text: String = "unlocking…", _ body: () throws -> R) rethrows -> R {
    try withProgressHint(text) { _ in try body() }
}

/// ``withProgressHint(_:_:)`` for work that stops to ask the user something: what
/// `body` runs inside `hint.pausing { … }` (a password prompt) shows no hint, and the
/// 0.3 s start again when it returns.
func withProgressHint<R>(_ text: String = "unlocking…", _ body: (ProgressHint) throws -> R) rethrows -> R {
    let hint = ProgressHint(text: text, enabled: Output.stderrIsTerminal)
    hint.start()
    defer { hint.finish() }
    return try body(hint)
}

final class ProgressHint: @unchecked Sendable {
    // @unchecked: `round`, `paused`, `finished` and `shown` are guarded by `lock`.
    private let lock = NSLock()
    private let text: String
    private let enabled: Bool
    /// Which wait a scheduled `show` belongs to: one scheduled before a pause shows nothing.
    private var round = 0
    private var paused = false
    private var finished = false
    private var shown = false

    init(text: String, enabled: Bool) {
        self.text = text
        self.enabled = enabled
    }

    /// Runs `body` with no hint on the screen (it asks the user something), then waits
    /// 0.3 s again before showing one.
    func pausing<R>(_ body: () throws -> R) rethrows -> R {
        lock.lock()
        paused = true
        round += 1
        erase()
        lock.unlock()
        defer {
            lock.lock()
            paused = false
            lock.unlock()
            start()
        }
        return try body()
    }

    func start() {
        guard enabled else { return }
        lock.lock()
        let scheduled = round
        lock.unlock()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { self.show(round: scheduled) }
    }

    private func show(round scheduled: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard !finished, !paused, !shown, scheduled == round else { return }
        shown = true
        Output.error(text, newline: false)
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        finished = true
        erase()
    }

    /// Carriage return and "erase to end of line" remove the hint, written as control (the
    /// escaping of ``Output/error(_:newline:)`` would print them as `\u{0D}\u{1B}[K`); under `lock`.
    private func erase() {
        if shown { Output.terminalControl(.eraseLine) }
        shown = false
    }
}
