import CofferCrypto
/// Finds keyboard walks: runs of at least three characters where each is a neighbour
/// of the one before, counting direction changes (turns) and shifted characters.
enum KeyboardMatcher {
    static func matches(_ password: [UInt32]) -> [PasswordMatch] {
        var found: [PasswordMatch] = []
        for graph in KeyboardGraph.all { found += matches(password, graph: graph) }
        return found
    }

    private static func matches(_ password: [UInt32], graph: KeyboardGraph) -> [PasswordMatch] {
        var found: [PasswordMatch] = []
        let n = password.count
        var start = 0
        while start < n - 1 {
            var next = start + 1
            var lastDirection: Int?
            var turns = 0
            var shifted = graph.kind == .qwerty && isShifted(password[start]) ? 1 : 0
            while true {
                var foundDirection: Int?
                if next < n, let neighbours = graph.adjacency[password[next - 1]] {
                    let current = password[next]
                    for (direction, key) in neighbours.enumerated() {
                        guard let key, let index = key.firstIndex(of: current) else { continue }
                        foundDirection = direction
                        if index == 1 { shifted += 1 }
                        if lastDirection != direction {
                            turns += 1
                            lastDirection = direction
                        }
                        break
                    }
                }
                if foundDirection != nil {
                    next += 1
                } else {
                    if next - start > 2 {
                        found.append(PasswordMatch(start: start, end: next - 1,
                                                   pattern: .keyboard(graph: graph.kind, turns: turns, shiftedCount: shifted)))
                    }
                    start = next
                    break
                }
            }
        }
        return found
    }

    /// Characters typed with Shift on a US QWERTY keyboard.
    private static let shiftedCharacters = Set("~!@#$%^&*()_+QWERTYUIOPASDFGHJKL:\"ZXCVBNM<>?{}|".unicodeScalars.map(\.value))

    private static func isShifted(_ scalar: UInt32) -> Bool { shiftedCharacters.contains(scalar) }
}
