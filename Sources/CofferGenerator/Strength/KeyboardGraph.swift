import CofferCrypto
/// Which keys are next to which, built from a drawing of the layout the way zxcvbn
/// builds its adjacency graphs.
struct KeyboardGraph: Sendable {
    enum Kind: Sendable {
        case qwerty
        case keypad
    }

    let kind: Kind
    /// Key character -> its neighbours in a fixed direction order; each neighbour is the
    /// key's characters (unshifted first, then shifted) or nil at an edge.
    let adjacency: [UInt32: [[UInt32]?]]
    /// Number of keys characters (zxcvbn's "starting positions").
    let startingPositions: Double
    /// Mean number of neighbours per character.
    let averageDegree: Double

    static let qwerty = KeyboardGraph(kind: .qwerty, layout: [
        "`~ 1! 2@ 3# 4$ 5% 6^ 7& 8* 9( 0) -_ =+",
        "    qQ wW eE rR tT yY uU iI oO pP [{ ]} \\|",
        "     aA sS dD fF gG hH jJ kK lL ;: '\"",
        "      zZ xX cC vV bB nN mM ,< .> /?",
    ], slanted: true)

    static let keypad = KeyboardGraph(kind: .keypad, layout: [
        "  / * -",
        "7 8 9 +",
        "4 5 6",
        "1 2 3",
        "  0 .",
    ], slanted: false)

    static let all = [qwerty, keypad]

    /// - Parameters:
    ///   - layout: rows of space-separated keys, each key one or two characters; each row
    ///     of a slanted keyboard is drawn one column further right than the row above.
    ///   - slanted: typewriter rows (6 neighbours) rather than a grid (8 neighbours).
    init(kind: Kind, layout: [String], slanted: Bool) {
        var positions: [Position: [UInt32]] = [:]
        for (row, line) in layout.enumerated() {
            let scalars = Array(line.unicodeScalars)
            var column = 0
            while column < scalars.count {
                if scalars[column] == " " { column += 1; continue }
                var key: [UInt32] = []
                var end = column
                while end < scalars.count, scalars[end] != " " { key.append(scalars[end].value); end += 1 }
                let unit = key.count + 1
                let slant = slanted ? row : 0
                positions[Position(x: (column - slant) / unit, y: row)] = key
                column = end
            }
        }
        var adjacency: [UInt32: [[UInt32]?]] = [:]
        var neighbourCount = 0
        for (position, key) in positions {
            let around = slanted ? position.slantedNeighbours : position.alignedNeighbours
            let neighbours = around.map { positions[$0] }
            neighbourCount += neighbours.compactMap { $0 }.count * key.count
            for character in key { adjacency[character] = neighbours }
        }
        self.kind = kind
        self.adjacency = adjacency
        startingPositions = Double(adjacency.count)
        averageDegree = adjacency.isEmpty ? 0 : Double(neighbourCount) / Double(adjacency.count)
    }

    private struct Position: Hashable {
        let x: Int
        let y: Int
        /// Left, up-left, up-right, right, down-right, down-left on a typewriter keyboard.
        var slantedNeighbours: [Position] {
            [.init(x: x - 1, y: y), .init(x: x, y: y - 1), .init(x: x + 1, y: y - 1),
             .init(x: x + 1, y: y), .init(x: x, y: y + 1), .init(x: x - 1, y: y + 1)]
        }
        /// The eight grid neighbours, clockwise from the left.
        var alignedNeighbours: [Position] {
            [.init(x: x - 1, y: y), .init(x: x - 1, y: y - 1), .init(x: x, y: y - 1), .init(x: x + 1, y: y - 1),
             .init(x: x + 1, y: y), .init(x: x + 1, y: y + 1), .init(x: x, y: y + 1), .init(x: x - 1, y: y + 1)]
        }
    }
}
