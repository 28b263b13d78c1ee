import ArgumentParser
import Coffer
import Foundation

/// The CLI's use of the kernel keyring: one cache, one way to open through it.
enum CachedUnlocking {
    static let cache = KernelKeyring()

    /// The vault opened with its cached unlock (`coffer unlock`), or nil: none, expired,
    /// no longer opening it (then forgotten), or no usable keyring, which is no reason to
    /// stop a command that can ask for the password. File errors are the command's.
    static func open(_ path: String, options: VaultOptions) throws -> Vault? {
        do {
            return try Vault.open(at: path, unlockCache: cache, options: options)
        } catch where error.kind == .unlockCacheUnavailable {
            return nil
        } catch {
            throw CLIFailure(error, vault: path)
        }
    }

    /// Opens `path` without asking for a password, for a program that runs `coffer` with no
    /// one to type it (git's merge driver and credential helper): the cached unlock, else
    /// the identity of a recipient slot (`--identity`), else the key file of a slot that
    /// opens the vault alone; with none, a usage error (64) at once, `name` naming the
    /// vault in messages.
    static func openUnattended(_ path: String, name: String, keyFile: String?, identity: String? = nil,
                               options: VaultOptions, noCache: Bool = false) throws -> Vault {
        if !noCache, let vault = try open(path, options: options) { return vault }
        if let identity {
            return try mappingErrors(vault: name) { () throws -> Vault in
                try Vault.open(at: path, credential: .identity(try VaultIdentity(contentsOf: identity)), options: options)
            }
        }
        guard let keyFile else {
            throw CLIFailure(.usage, "\(name) is not unlocked (`coffer unlock`) and no --key-file or --identity was given")
        }
        return try mappingErrors(vault: name) { () throws -> Vault in
            let file = try KeyFile(contentsOf: keyFile)
            let info = try Vault.info(at: path)
            guard info.credentialChoices(withKeyFile: true).contains(where: { !$0.needsPassword }) else {
                throw CLIFailure(.usage, "\(name) has no slot that the key file opens alone; add one with `coffer add-keyfile --alone`")
            }
            try info.checkUnlockCost(limit: options.kdfLimit, kinds: [.keyFile])
            return try Vault.open(at: path, credential: .keyFile(file), options: options)
        }
    }

    /// Forgets the cached unlock of `path` after its key slots changed; a keyring that
    /// cannot be used holds nothing to forget.
    static func forget(_ path: String) {
        _ = try? cache.removeUnlocks(forVaultAt: path)
    }

    /// "14m 05s", "2h 00m", "42s".
    static func remaining(until date: Date, now: Date = Date()) -> String {
        let seconds = max(0, Int(date.timeIntervalSince(now).rounded(.down)))
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        if h > 0 { return "\(h)h \(String(format: "%02d", m))m" }
        if m > 0 { return "\(m)m \(String(format: "%02d", s))s" }
        return "\(s)s"
    }
}

/// `--for 15m`: how long `coffer unlock` keeps a vault unlocked, 1 second to 24 hours.
/// Numbers with units `s`, `m`, `h`, in sequence (`1h30m`); a bare number is minutes.
struct UnlockDuration: ExpressibleByArgument, Equatable {
    let seconds: Int
    static let maximumSeconds = 24 * 3600

    init(seconds: Int) { self.seconds = seconds }

    init?(argument: String) { try? self.init(parsing: argument) }

    /// `--for`'s value, or a usage error that says what is wrong: the 24-hour maximum, or
    /// the forms it takes.
    init(parsing argument: String) throws {
        guard let seconds = Self.seconds(argument) else {
            throw ValidationError("--for takes a duration such as 15m, 1h30m, 90s, or minutes; got \(argument)")
        }
        guard seconds >= 1, seconds <= Self.maximumSeconds else {
            throw ValidationError("--for must be 1 second to 24 hours (24h); got \(argument)")
        }
        self.seconds = seconds
    }

    /// The seconds `argument` spells, whatever its size; nil when it is no duration.
    private static func seconds(_ argument: String) -> Int? {
        let text = argument.lowercased().filter { !$0.isWhitespace }
        guard !text.isEmpty else { return nil }
        if let minutes = Int(text) { return minutes.multipliedReportingOverflow(by: 60).overflow ? Int.max : minutes * 60 }
        var total = 0, number = "", lastUnit = Int.max
        for character in text {
            if character.isASCII, character.isNumber {
                number.append(character)
                guard number.count <= 6 else { return nil }
                continue
            }
            let unit: Int
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            default: return nil
            }
            // Units in decreasing order, each once: "1h30m", not "30m1h".
            guard let value = Int(number), unit < lastUnit else { return nil }
            total += value * unit
            lastUnit = unit
            number = ""
        }
        guard number.isEmpty, lastUnit != Int.max else { return nil }
        return total
    }

    var duration: Duration { .seconds(seconds) }

    /// "15 minutes", "1 hour 30 minutes", "45 seconds".
    var spoken: String {
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        var parts: [String] = []
        if h > 0 { parts.append(h == 1 ? "1 hour" : "\(h) hours") }
        if m > 0 { parts.append(m == 1 ? "1 minute" : "\(m) minutes") }
        if s > 0 { parts.append(s == 1 ? "1 second" : "\(s) seconds") }
        return parts.joined(separator: " ")
    }

    static var defaultValueDescription: String { "15m" }
}

extension Date {
    /// "22:08:19", local time: when an unlock ends.
    var clockTime: String {
        let parts = Calendar.current.dateComponents([.hour, .minute, .second], from: self)
        return String(format: "%02d:%02d:%02d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}
