@testable import CofferCLI
import Testing

/// `ProcessIO.keepUntilExit`: what `coffer list` printed is never freed, since the process
/// exits next (freeing 100,000 rows took 24 ms of one core after the last line was out).
@Suite("coffer: values kept until the process exits")
struct CLIKeptUntilExitTests {
    final class Tracked: Sendable {}

    @Test("a kept value outlives every other reference to it, on any thread")
    func keptValueIsNeverReleased() async {
        weak var watched: Tracked?
        let before = KeptUntilExit.shared.count
        do {
            let value = Tracked()
            watched = value
            ProcessIO.keepUntilExit(value)
        }
        #expect(watched != nil)
        // Kept from several threads at once: each one is held.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { ProcessIO.keepUntilExit([Tracked()]) } }
        }
        #expect(KeptUntilExit.shared.count == before + 9)
        #expect(watched != nil)
    }
}
