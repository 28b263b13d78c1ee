import CofferTestSupport
import Foundation
import Testing

/// Issue 20, finding 8: `init` accepted `abc` without a word. `init` and `passwd` now show
/// the strength estimate of the new master password and warn below the library's good
/// score; a script (stdin not a terminal) is warned on stderr and goes on. (The terminal
/// side, asking again, is in CLITerminalTests.)
@Suite("coffer init/passwd: the new master password's strength")
struct CLIMasterPasswordStrengthTests {
    @Test("init on a pipe: a weak password is warned about on stderr, and the vault is created")
    func weakInitWarns() throws {
        try withTemporaryDirectory { dir in
            let result = try CLI.run(["init", "w.coffer"] + fastKDF, input: "letmein\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("strength: 0/4 (too guessable)"), "\(result.err)")
            #expect(result.err.contains("coffer: warning: this master password is easy to guess"), "\(result.err)")
            #expect(!result.err.contains("letmein"), "the password is never shown")
            #expect(result.out.isEmpty)
            #expect(try CLI.run(["list", "w.coffer"], input: "letmein\n", in: dir).status == 0)
        }
    }

    @Test("init on a pipe: a strong password shows its strength and no warning")
    func strongInitDoesNotWarn() throws {
        try withTemporaryDirectory { dir in
            let result = try CLI.run(["init", "s.coffer"] + fastKDF, input: "plinth-Orbital-marzipan-7-quiver\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("strength: 4/4 (very unguessable)"), "\(result.err)")
            #expect(!result.err.contains("warning"), "\(result.err)")
        }
    }

    @Test("passwd on a pipe: the new password's strength is shown, a weak one warned about, and it is changed")
    func passwdWarns() throws {
        try withVault(password: "plinth-Orbital-marzipan-7-quiver") { dir in
            let result = try CLI.run(["passwd", "v.coffer"], input: "plinth-Orbital-marzipan-7-quiver\nqwerty\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("strength: 0/4"), "\(result.err)")
            #expect(result.err.contains("coffer: warning: this master password is easy to guess"), "\(result.err)")
            #expect(try CLI.run(["list", "v.coffer"], input: "qwerty\n", in: dir).status == 0)
        }
    }
}
