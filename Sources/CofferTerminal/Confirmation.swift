extension SecretInput {
    /// Asks a yes/no question and reads the answer, a line of standard input (through
    /// ``readTextLine(fd:)``, so no line is lost to stdio's buffer): only `y` or `yes`, in
    /// any case and with blanks around, confirm. The end of input, an answer that cannot
    /// be read and anything else are no: nothing is done without an explicit yes.
    ///
    /// The question goes to `promptFD` (standard error, 2, by default, as `coffer` prompts;
    /// an app whose menus print on standard output passes 1) followed by ` [y/N] `.
    ///
    /// ```swift
    /// if SecretInput.confirm("Delete the login and every account?", promptFD: 1) {   // on standard output
    ///     try Vault.destroy(at: path)
    /// }
    /// ```
    public static func confirm(_ question: String, promptFD: Int32 = 2) -> Bool {
        TerminalIO.flushStandardStreams()
        emit(question + " [y/N] ", to: promptFD)
        guard let answer = try? readTextLine() else { return false }
        let word = answer.lowercased().trimmingBlanks()
        return word == "y" || word == "yes"
    }
}

extension String {
    /// Without the spaces and tabs at either end.
    fileprivate func trimmingBlanks() -> Substring {
        let isBlank = { (character: Character) in character == " " || character == "\t" }
        let start = firstIndex(where: { !isBlank($0) }) ?? endIndex
        let end = lastIndex(where: { !isBlank($0) }).map(index(after:)) ?? start
        return self[start..<end]
    }
}
