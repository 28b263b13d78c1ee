import CofferCrypto
/// Short, secret-free advice from the weakest pattern, in the manner of zxcvbn.
enum StrengthFeedback {
    static let addWord = "Add another word or two. Uncommon words are better."

    static func make(score: Int, sequence: [(match: PasswordMatch, guessesLog10: Double)],
                     password: [UInt32]) -> StrengthEstimate.Feedback {
        if sequence.isEmpty {
            return .init(warning: nil, suggestions: [
                "Use a few words, avoid common phrases.",
                "No need for symbols, digits, or uppercase letters.",
            ])
        }
        if score > 2 { return .init(warning: nil, suggestions: []) }
        // The longest pattern says most about why the password is weak.
        var longest = sequence[0]
        for entry in sequence.dropFirst() where entry.match.length > longest.match.length { longest = entry }
        var feedback = matchFeedback(longest.match, guessesLog10: longest.guessesLog10,
                                     isSoleMatch: sequence.count == 1, password: password)
        feedback.suggestions.insert(addWord, at: 0)
        return feedback
    }

    private static func matchFeedback(_ match: PasswordMatch, guessesLog10: Double, isSoleMatch: Bool,
                                      password: [UInt32]) -> StrengthEstimate.Feedback {
        switch match.pattern {
        case .dictionary(let detail):
            return dictionaryFeedback(match, detail, guessesLog10: guessesLog10, isSoleMatch: isSoleMatch, password: password)
        case .keyboard(_, let turns, _):
            return .init(warning: turns == 1 ? "Straight rows of keys are easy to guess."
                                             : "Short keyboard patterns are easy to guess.",
                         suggestions: ["Use a longer keyboard pattern with more turns."])
        case .repeated(_, _, let baseLength):
            return .init(warning: baseLength == 1 ? "Repeats like \"aaa\" are easy to guess."
                                                  : "Repeats like \"abcabcabc\" are only slightly harder to guess than \"abc\".",
                         suggestions: ["Avoid repeated words and characters."])
        case .sequence:
            return .init(warning: "Sequences like abc or 6543 are easy to guess.", suggestions: ["Avoid sequences."])
        case .year:
            return .init(warning: "Recent years are easy to guess.",
                         suggestions: ["Avoid recent years.", "Avoid years that are associated with you."])
        case .date:
            return .init(warning: "Dates are often easy to guess.",
                         suggestions: ["Avoid dates and years that are associated with you."])
        case .bruteforce:
            return .init(warning: nil, suggestions: [])
        }
    }

    private static func dictionaryFeedback(_ match: PasswordMatch, _ detail: PasswordMatch.DictionaryDetail,
                                           guessesLog10: Double, isSoleMatch: Bool,
                                           password: [UInt32]) -> StrengthEstimate.Feedback {
        var warning: String?
        switch detail.dictionary {
        case .commonPasswords:
            if isSoleMatch && detail.l33t.isEmpty && !detail.reversed && !detail.misspelt {
                if detail.rank <= 10 {
                    warning = "This is a top-10 common password."
                } else if detail.rank <= 100 {
                    warning = "This is a top-100 common password."
                } else {
                    warning = "This is a very common password."
                }
            } else if guessesLog10 <= 4 {
                warning = "This is similar to a commonly used password."
            }
        case .englishWords, .effWordlist:
            if isSoleMatch { warning = "A word by itself is easy to guess." }
        case .userInputs:
            warning = "Avoid names and words related to you or this account."
        }
        var suggestions: [String] = []
        let token = password[match.start...match.end]
        let upper = token.lazy.filter(GuessEstimates.isUppercase).count
        if let first = token.first, GuessEstimates.isUppercase(first), upper == 1 {
            suggestions.append("Capitalization doesn't help very much.")
        } else if upper > 0, upper == token.lazy.filter({ GuessEstimates.isUppercase($0) || GuessEstimates.isLowercase($0) }).count {
            suggestions.append("All-uppercase is almost as easy to guess as all-lowercase.")
        }
        if detail.reversed && match.length >= 4 {
            suggestions.append("Reversed words aren't much harder to guess.")
        }
        if !detail.l33t.isEmpty {
            suggestions.append("Predictable substitutions like '@' instead of 'a' don't help very much.")
        }
        if detail.misspelt {
            suggestions.append("Misspelt words are almost as easy to guess as the words themselves.")
        }
        return .init(warning: warning, suggestions: suggestions)
    }
}
