// Line-based input for the `--interactive` menus.
import Coffer
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum Terminal {
    /// Prints `prompt` and reads one line; nil at end of input.
    public static func ask(_ prompt: String) -> String? {
        print(prompt, terminator: " ")
        fflush(nil)
        return readLine()?.trimmingCharacters(in: .whitespaces)
    }

    /// Reads a password straight into guarded memory, with echo off when stdin is a
    /// terminal (a plain line otherwise, e.g. when input is piped). Nil at end of input.
    public static func askSecret(_ prompt: String) -> SecureBytes? {
        print(prompt, terminator: " ")
        fflush(nil)
        let isTerminal = isatty(STDIN_FILENO) == 1
        var saved = termios()
        if isTerminal, tcgetattr(STDIN_FILENO, &saved) == 0 {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        defer {
            if isTerminal {
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
                print("")
            }
        }
        // Byte by byte through stdio (as readLine does), so no String copy is made.
        // Room reserved up front: growing the array would leave the old buffer unwiped.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024)
        defer { SecureBytes.wipe(&bytes) }
        while true {
            let c = getchar()
            if c == EOF {
                if bytes.isEmpty { return nil }
                break
            }
            if c == 0x0A { break }
            if c != 0x0D { bytes.append(UInt8(truncatingIfNeeded: c)) }
        }
        return try? SecureBytes(copying: bytes)
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

    /// Asks a yes/no question; only "y" or "yes" confirms.
    public static func confirm(_ question: String) -> Bool {
        guard let answer = ask("\(question) [y/N]")?.lowercased() else { return false }
        return answer == "y" || answer == "yes"
    }
}
