// Line-based input for the `--interactive` menus.
import Coffer
import CofferTerminal
import Foundation

public enum Terminal {
    /// Prints `prompt` and reads one line; nil at end of input.
    ///
    /// Lines come through ``SecretInput`` (as secrets do), not stdio's `readLine()`:
    /// mixing the two would lose the lines stdio had buffered.
    public static func ask(_ prompt: String) -> String? {
        print(prompt, terminator: " ")
        fflush(nil)
        return (try? SecretInput.readTextLine())?.trimmingCharacters(in: .whitespaces)
    }

    /// Reads a password straight into guarded memory: on a terminal with echo off (and
    /// echo back on after Ctrl-C), else a plain line, e.g. when input is piped.
    /// Nil at end of input.
    public static func askSecret(_ prompt: String) -> SecureBytes? {
        if SecretInput.isInteractive {
            return try? SecretInput.prompt(prompt + " ", promptFD: STDOUT_FILENO)
        }
        print(prompt, terminator: " ")
        fflush(nil)
        return try? SecretInput.readLine()
    }

    /// Prints numbered choices and returns the index picked (0-based); nil at end of input.
    public static func choose(_ title: String, _ options: [String]) -> Int? {
        print("\n\(title)")
        for (n, option) in options.enumerated() { print("  \(n + 1). \(option)") }
        while true {
            guard let line = ask(">") else { return nil }
            if let n = Int(line), (1...options.count).contains(n) { return n - 1 }
            print("Type a number from 1 to \(options.count).")
        }
    }

    /// Asks a yes/no question on standard output, as the menus do: CofferTerminal's
    /// ``SecretInput/confirm(_:promptFD:)``, where only "y" or "yes" confirms.
    public static func confirm(_ question: String) -> Bool {
        SecretInput.confirm(question, promptFD: STDOUT_FILENO)
    }
}
