import CofferCrypto
/// A part of the password (`start...end`, inclusive, in scalars) that some guessing
/// strategy finds, with what that strategy needs to count its guesses.
struct PasswordMatch {
    enum Pattern {
        case dictionary(DictionaryDetail)
        case keyboard(graph: KeyboardGraph.Kind, turns: Int, shiftedCount: Int)
        /// A base string repeated `repeatCount` times; the base costs 10^baseGuessesLog10.
        case repeated(baseGuessesLog10: Double, repeatCount: Int, baseLength: Int)
        case sequence(ascending: Bool)
        case year(Int)
        case date(year: Int, hasSeparator: Bool)
        case bruteforce
    }

    struct DictionaryDetail {
        var dictionary: StrengthEstimate.Pattern.Dictionary
        var rank: Int
        var reversed = false
        /// The substitutions used inside the token: (l33t character, letter it stands for).
        var l33t: [(character: UInt32, letter: UInt32)] = []
        var misspelt = false
    }

    var start: Int
    var end: Int
    var pattern: Pattern

    var length: Int { end - start + 1 }
}
