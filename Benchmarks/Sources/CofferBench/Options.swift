import Coffer
import Foundation

/// `--name value` options and positional arguments, nothing more.
struct Options {
    var positional: [String] = []
    var named: [String: String] = [:]

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments[...]
        while let next = rest.popFirst() {
            if next.hasPrefix("--") {
                let name = String(next.dropFirst(2))
                if let value = rest.first, !value.hasPrefix("--") {
                    named[name] = value
                    rest = rest.dropFirst()
                } else {
                    named[name] = ""
                }
            } else {
                positional.append(next)
            }
        }
    }

    func string(_ name: String, default value: String? = nil) throws -> String {
        guard let found = named[name] ?? value else { throw BenchError("missing --\(name)") }
        return found
    }

    func int(_ name: String, default value: Int? = nil) throws -> Int {
        guard let text = named[name] else {
            guard let value else { throw BenchError("missing --\(name)") }
            return value
        }
        guard let number = Int(text) else { throw BenchError("--\(name) takes a number") }
        return number
    }

    func flag(_ name: String) -> Bool { named[name] != nil }

    /// The Argon2id parameters of `--memory-kib`, `--iterations`, `--lanes`.
    func kdf() throws -> Argon2idParameters {
        Argon2idParameters(memoryKiB: UInt32(try int("memory-kib", default: 64 * 1024)),
                           iterations: UInt32(try int("iterations", default: 3)),
                           lanes: UInt32(try int("lanes", default: 1)))
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Seconds since `start` on `clock`.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
