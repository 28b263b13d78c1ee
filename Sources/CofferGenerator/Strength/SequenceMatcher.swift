import CofferCrypto
/// Finds sequences: runs whose characters step by the same amount (1 to 5 code points,
/// up or down), such as `abcd`, `4321`, `aceg` or `ZYX`. Runs of two count only for
/// steps of ±1, as in zxcvbn.
enum SequenceMatcher {
    static let maximumStep = 5

    static func matches(_ password: [UInt32]) -> [PasswordMatch] {
        let n = password.count
        guard n > 1 else { return [] }
        var found: [PasswordMatch] = []
        func add(_ start: Int, _ end: Int, _ step: Int) {
            guard end - start > 1 || abs(step) == 1 else { return }
            guard abs(step) > 0, abs(step) <= maximumStep else { return }
            found.append(PasswordMatch(start: start, end: end, pattern: .sequence(ascending: step > 0)))
        }
        var start = 0
        var lastStep: Int?
        for index in 1..<n {
            let step = Int(password[index]) - Int(password[index - 1])
            if lastStep == nil { lastStep = step }
            if step == lastStep { continue }
            let end = index - 1
            add(start, end, lastStep ?? 0)
            start = end
            lastStep = step
        }
        add(start, n - 1, lastStep ?? 0)
        return found
    }
}
