/// Coffer's policy on what counts as a good enough password, in one place: the CLI's
/// `init`/`passwd` warning, `estimate` and the vault audit (`Vault.audit`, CofferAudit) all read it here.
///
/// ```swift
/// let estimate = StrengthEstimator.estimate(newPassword)
/// if !estimate.isGood { print("weak: \(estimate.scoreName)") }
/// ```
extension StrengthEstimate {
    /// The lowest ``score`` called good: 3, "safely unguessable" (about 10^8 to 10^10
    /// guesses and up). Below it, an offline attacker with a stolen vault file has a
    /// realistic chance even against Argon2id, so a master password is warned about and an
    /// audit reports the item as weak.
    public static let goodScore = 3

    /// True when ``score`` reaches ``goodScore``.
    public var isGood: Bool { score >= Self.goodScore }

    /// A short name for ``score``, as zxcvbn's: "too guessable" (0) to "very unguessable" (4).
    public var scoreName: String {
        Self.scoreNames[max(0, min(score, Self.scoreNames.count - 1))]
    }

    private static let scoreNames = ["too guessable", "very guessable", "somewhat guessable",
                                     "safely unguessable", "very unguessable"]
}
