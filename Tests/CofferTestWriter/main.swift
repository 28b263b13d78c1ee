// A second process for Coffer's multi-process tests (not installed; public API only).
//
//   CofferTestWriter add VAULT PREFIX COUNT
//       adds COUNT items PREFIX-0 … PREFIX-(COUNT-1), one save each
//   CofferTestWriter set-field VAULT SERVICE ACCOUNT FIELD VALUE [--retry] [--wait-for PATH]
//       sets a non-secret custom field on one item. --wait-for: open the vault, print
//       "ready", wait until PATH exists, then save (so two writers start from the same
//       state). --retry: after a conflict, apply the edit again to the current state.
//   CofferTestWriter save-loop VAULT STATE_LOG [SECONDS]
//       commits crash-test states n+1, n+2, … (see `CrashState`) until killed or SECONDS
//       (default 30) pass; appends "n\n" to STATE_LOG only after the save of state n returned.
//       Prints "ready" once the vault is open.
//   CofferTestWriter memscan DIR MODE
//       creates a vault in DIR, unlocks it, reads a secret, locks it, drops every reference,
//       then scans this process's writable memory for the master password and the secret
//       (see `MemoryScan`). MODE: secure, control, string, or edit (also changes the secret
//       and the master password, adds a key-file slot and opens with it). Prints one line
//       "NAME COUNT" per byte string looked for (password, secret, and for edit new-secret,
//       new-password, key-file).
//   CofferTestWriter secure-memory POLICY BYTES
//       sets SecureMemory.lockingPolicy (best-effort or required), allocates BYTES of guarded
//       memory and prints "allocated unlocked=N" or "refused" (secureMemoryUnavailable).
//   CofferTestWriter allocator default|keep|keep-then-return BYTES
//       on the main thread of a fresh process: the allocator as it starts, after
//       ProcessMemory.keepFreedMemory(), or after that and returnFreedMemory(); allocates
//       BYTES twice (the second after the first was freed) and prints "mapped" or "heap" for each.
// The vault password is the first line of stdin (not for memscan, secure-memory or allocator). KDF parameters come from
// the vault. Exit codes: 0 ok, 3 conflict, 4 other Coffer error, 64 usage.
import Coffer
// This target's one file, and a process of its own: it needs the C library directly
// (exit codes, raw writes to descriptors) and imports nothing else that brings it.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fail(_ message: String, code: Int32) -> Never {
    let line = "CofferTestWriter: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(code)
}

func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

/// The states of the crash test: state n is a pure function of n, so the test can check a
/// vault found after a kill against the exact contents it must have.
///
/// - "counter"/"state": field `seq` = n, password `pw-n`, notes of (n × 97) mod 3000 bytes;
/// - "item-k"/"loop", password `secret-k`, for k from max(1, n − 2) to n.
///
/// State n is saved from state n − 1 in one transaction: update the counter (its password
/// history then lists pw-(n − 1) … pw-(n − 10)), add item-n, delete item-(n − 3). Tests/CofferVaultTests/VaultKilledSaveTests.swift checks the same model.
enum CrashState {
    static func notes(_ n: Int) -> String {
        let unit = "state \(n) "
        let length = (n * 97) % 3000
        return String(String(repeating: unit, count: length / unit.utf8.count + 1).utf8.prefix(length)) ?? ""
    }

    static func advance(_ vault: Vault, to n: Int) throws {
        try vault.transaction { tx in
            guard let counter = try tx.firstItem(matching: ItemQuery(service: "counter", account: "state")) else {
                throw CofferError.itemNotFound
            }
            try tx.update(counter.id) { attributes, secrets in
                attributes.fields = [CustomField(name: "seq", value: "\(n)")]
                secrets.password = try SecureBytes(copying: "pw-\(n)")
                secrets.notes = try SecureBytes(copying: notes(n))
            }
            try tx.add(.genericPassword(service: "item-\(n)", account: "loop"),
                       secrets: ItemSecrets(password: try SecureBytes(copying: "secret-\(n)")))
            if n > 3, let old = try tx.firstItem(matching: ItemQuery(service: "item-\(n - 3)", account: "loop")) {
                try tx.delete(old.id)
            }
        }
    }
}

/// Reads /proc/self/maps and /proc/self/mem to find byte strings in this process's own
/// writable private memory (heap, stacks, anonymous mappings including libsodium's
/// guarded regions, and the writable data of every loaded binary).
///
/// Needles are held masked (`value ^ mask`), never in the clear, so the scanner itself
/// leaves no copy of what it looks for. Every buffer the scan uses is allocated before the
/// first secret exists (``Arena``), and the scan itself allocates nothing, so it cannot
/// overwrite freed memory that still holds a copy.
enum MemoryScan {
    struct Needle {
        let name: String
        let masked: [UInt8]
        let mask: [UInt8]
    }

    /// Preallocated storage for one scan.
    final class Arena {
        static let mapsCapacity = 4 << 20, regionCapacity = 16_384, chunkSize = 1 << 20, hitCapacity = 4096
        let maps = UnsafeMutablePointer<UInt8>.allocate(capacity: mapsCapacity)
        var mapsCount = 0
        let regionStart = UnsafeMutablePointer<UInt>.allocate(capacity: regionCapacity)
        let regionEnd = UnsafeMutablePointer<UInt>.allocate(capacity: regionCapacity)
        /// Where the region's line starts in `maps`, to name it when reporting.
        let regionLine = UnsafeMutablePointer<Int>.allocate(capacity: regionCapacity)
        var regionCount = 0
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkSize + 256, alignment: 16)
        let hitAddress = UnsafeMutablePointer<UInt>.allocate(capacity: hitCapacity)
        let hitNeedle = UnsafeMutablePointer<Int>.allocate(capacity: hitCapacity)
        let hitRegion = UnsafeMutablePointer<Int>.allocate(capacity: hitCapacity)
        var hitCount = 0

        init() {
            // Touch every page now, so that the scan does not fault fresh pages in later.
            maps.initialize(repeating: 0, count: Self.mapsCapacity)
            chunk.initializeMemory(as: UInt8.self, repeating: 0, count: Self.chunkSize + 256)
        }
    }

    /// A needle for the bytes of `secret`.
    static func needle(_ name: String, for secret: SecureBytes) throws -> Needle {
        let mask = try SecureBytes.random(count: secret.count).withUnsafeBytes { Array($0) }
        let masked = secret.withUnsafeBytes { bytes in (0..<bytes.count).map { bytes[$0] ^ mask[$0] } }
        return Needle(name: name, masked: masked, mask: mask)
    }

    /// Parses /proc/self/maps into the arena: rw-p regions only. Allocates nothing.
    static func readRegions(_ arena: Arena) {
        arena.mapsCount = 0
        arena.regionCount = 0
        let fd = open("/proc/self/maps", O_RDONLY)
        guard fd >= 0 else { return }
        while arena.mapsCount < Arena.mapsCapacity {
            let n = read(fd, arena.maps + arena.mapsCount, Arena.mapsCapacity - arena.mapsCount)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            arena.mapsCount += n
        }
        close(fd)
        var line = 0
        while line < arena.mapsCount && arena.regionCount < Arena.regionCapacity {
            var at = line
            func hex() -> UInt {
                var value: UInt = 0
                while at < arena.mapsCount {
                    let c = arena.maps[at]
                    let digit: UInt
                    if c >= 0x30 && c <= 0x39 { digit = UInt(c - 0x30) } else if c >= 0x61 && c <= 0x66 { digit = UInt(c - 0x57) } else { break }
                    value = value << 4 | digit
                    at += 1
                }
                return value
            }
            let start = hex()
            at += 1   // "-"
            let end = hex()
            at += 1   // " "
            let writablePrivate = at + 3 < arena.mapsCount && arena.maps[at] == UInt8(ascii: "r")
                && arena.maps[at + 1] == UInt8(ascii: "w") && arena.maps[at + 3] == UInt8(ascii: "p")
            if writablePrivate && end > start {
                arena.regionStart[arena.regionCount] = start
                arena.regionEnd[arena.regionCount] = end
                arena.regionLine[arena.regionCount] = line
                arena.regionCount += 1
            }
            while at < arena.mapsCount && arena.maps[at] != 0x0A { at += 1 }
            line = at + 1
        }
    }

    /// Records every place a needle occurs. Allocates nothing.
    static func scan(for needles: [Needle], in arena: Arena) {
        arena.hitCount = 0
        readRegions(arena)
        let fd = open("/proc/self/mem", O_RDONLY)
        guard fd >= 0 else { fail("cannot open /proc/self/mem: errno \(errno)", code: 4) }
        defer { close(fd) }
        let bytes = arena.chunk.assumingMemoryBound(to: UInt8.self)
        for region in 0..<arena.regionCount {
            let regionEnd = arena.regionEnd[region]
            var address = arena.regionStart[region]
            while address < regionEnd {
                // Each read overlaps the next by 256 bytes, so no match is cut in two.
                let length = Int(min(UInt(Arena.chunkSize + 256), regionEnd - address))
                let got = pread(fd, arena.chunk, length, off_t(Int64(bitPattern: UInt64(address))))
                if got <= 0 { break }
                let isLast = got < length || address + UInt(got) >= regionEnd
                for (index, needle) in needles.enumerated() where got >= needle.masked.count {
                    let first = Int32(needle.masked[0] ^ needle.mask[0])
                    let last = got - needle.masked.count
                    // Matches starting in the overlap are found by the next read.
                    let limit = isLast ? last : min(last, Arena.chunkSize - 1)
                    var at = 0
                    while at <= limit {
                        guard let found = memchr(bytes + at, first, limit - at + 1) else { break }
                        let offset = UnsafeRawPointer(found) - UnsafeRawPointer(bytes)
                        var equal = true
                        for i in 1..<needle.masked.count where bytes[offset + i] ^ needle.mask[i] != needle.masked[i] {
                            equal = false
                            break
                        }
                        if equal && arena.hitCount < Arena.hitCapacity {
                            arena.hitAddress[arena.hitCount] = address + UInt(offset)
                            arena.hitNeedle[arena.hitCount] = index
                            arena.hitRegion[arena.hitCount] = region
                            arena.hitCount += 1
                        }
                        at = offset + 1
                    }
                }
                if isLast { break }
                address += UInt(Arena.chunkSize)
            }
        }
        // The last byte of a needle could be in the chunk buffer itself: clear it.
        arena.chunk.initializeMemory(as: UInt8.self, repeating: 0, count: Arena.chunkSize + 256)
    }

    /// The /proc/self/maps line of a region, for reports.
    static func regionName(_ arena: Arena, _ region: Int) -> String {
        var end = arena.regionLine[region]
        while end < arena.mapsCount && arena.maps[end] != 0x0A { end += 1 }
        return String(decoding: UnsafeBufferPointer(start: arena.maps + arena.regionLine[region], count: end - arena.regionLine[region]), as: UTF8.self)
    }

    /// 32 random bytes as 64 lowercase hex digits, made in guarded memory.
    static func randomHex() throws -> SecureBytes {
        let raw = try SecureBytes.random(count: 32)
        return try SecureBytes(count: 64) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
            raw.withUnsafeBytes { bytes in
                for i in 0..<32 {
                    let high = bytes[i] >> 4, low = bytes[i] & 0x0F
                    out[2 * i] = high < 10 ? 0x30 + high : 0x57 + high
                    out[2 * i + 1] = low < 10 ? 0x30 + low : 0x57 + low
                }
            }
        }
    }

    /// The run described at the top of this file.
    static func run(directory: String, mode: String) throws -> Never {
        guard ["secure", "control", "string", "edit"].contains(mode) else { fail("memscan modes: secure, control, string, edit", code: 64) }
        let arena = Arena()
        let path = directory + "/memscan.coffer"
        var options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 64, iterations: 1, lanes: 1))
        options.keepsBackup = false
        var needles: [Needle] = []
        do {
            let passwordText = try randomHex()
            let secret = try randomHex()
            needles = [try needle("password", for: passwordText), try needle("secret", for: secret)]
            // How the application hands in the master password.
            func password() throws -> SecureBytes {
                guard mode == "string" else { return passwordText }
                let text = passwordText.unsafeStringCopy() ?? ""   // the application's String
                return try SecureBytes(copying: text)
            }
            let id: ItemID
            do {
                let vault = try Vault.create(at: path, password: try password(), options: options)
                id = try vault.add(.genericPassword(service: "memscan", account: "a"), secrets: ItemSecrets(password: secret)).id
                vault.lock()
            }
            do {
                let vault = try Vault.open(at: path, password: try password(), options: options)
                let read = try vault.secrets(for: id).password
                guard let read, read == secret else { fail("the secret read back differs", code: 4) }
                if mode == "string" {
                    let text = read.unsafeStringCopy() ?? ""       // the application's String
                    guard text.utf8.count == 64 else { fail("bad string copy", code: 4) }
                }
                if mode == "control" {
                    // Everything still referenced: the scan must find both, in guarded memory.
                    scan(for: needles, in: arena)
                }
                if mode == "edit" {
                    // Also: a new secret (the old one goes to the history), a new master
                    // password, a key-file slot, and opening with the key file.
                    let newSecret = try randomHex(), newPassword = try randomHex(), keyFileContents = try randomHex()
                    needles += [try needle("new-secret", for: newSecret), try needle("new-password", for: newPassword),
                                try needle("key-file", for: keyFileContents)]
                    try vault.update(id, secrets: ItemSecrets(password: newSecret))
                    try vault.changePassword(to: newPassword)
                    try vault.addKeySlot(.keyFile(try KeyFile(contents: keyFileContents)))
                    vault.lock()
                    let again = try Vault.open(at: path, credential: .keyFile(try KeyFile(contents: keyFileContents)), options: options)
                    let secrets = try again.secrets(for: id)
                    guard secrets.password == newSecret, secrets.passwordHistory.first?.password == secret else {
                        fail("the edited secrets read back differ", code: 4)
                    }
                    again.lock()
                }
                vault.lock()
            }
        }
        if mode != "control" { scan(for: needles, in: arena) }
        var counts = [Int](repeating: 0, count: needles.count)
        for hit in 0..<arena.hitCount {
            counts[arena.hitNeedle[hit]] += 1
            let line = "hit \(needles[arena.hitNeedle[hit]].name) at 0x\(String(arena.hitAddress[hit], radix: 16)) in \(regionName(arena, arena.hitRegion[hit]))\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
        }
        say("regions \(arena.regionCount)")
        for (index, needle) in needles.enumerated() { say("\(needle.name) \(counts[index])") }
        exit(0)
    }
}

let args = CommandLine.arguments
guard args.count >= 3 else { fail("usage", code: 64) }
if args[1] == "memscan" {
    guard args.count == 4 else { fail("usage: memscan DIR MODE", code: 64) }
    do { try MemoryScan.run(directory: args[2], mode: args[3]) } catch { fail("\(error)", code: 4) }
}
if args[1] == "secure-memory" {
    guard args.count == 4, let bytes = Int(args[3]), ["best-effort", "required"].contains(args[2]) else {
        fail("usage: secure-memory best-effort|required BYTES", code: 64)
    }
    SecureMemory.lockingPolicy = args[2] == "required" ? .required : .bestEffort
    do {
        let secret = try SecureBytes(count: bytes) { (_: UnsafeMutableRawBufferPointer) throws(CofferError) in }
        say("allocated \(secret.count) unlocked=\(SecureMemory.unlockedRegionCount)")
    } catch CofferError.secureMemoryUnavailable {
        say("refused unlocked=\(SecureMemory.unlockedRegionCount)")
    } catch {
        fail("\(error)", code: 4)
    }
    exit(0)
}
if args[1] == "allocator" {
    let modes = ["default", "keep", "keep-then-return"]
    guard args.count == 4, modes.contains(args[2]), let bytes = Int(args[3]) else {
        fail("usage: allocator default|keep|keep-then-return BYTES", code: 64)
    }
    if args[2] != "default" { guard ProcessMemory.keepFreedMemory() else { fail("keepFreedMemory refused", code: 4) } }
    if args[2] == "keep-then-return" { ProcessMemory.returnFreedMemory() }
    say((0..<2).map { _ in Platform.allocationIsMapped(bytes: bytes) ? "mapped" : "heap" }.joined(separator: " "))
    exit(0)
}
guard let password = readLine(strippingNewline: true) else { fail("usage: the password is the first line of stdin", code: 64) }
let options = VaultOptions(lockTimeout: .seconds(60))

do {
    let vault = try Vault.open(at: args[2], password: try SecureBytes(copying: password), options: options)
    switch args[1] {
    case "add":
        guard args.count == 5, let count = Int(args[4]) else { fail("usage: add VAULT PREFIX COUNT", code: 64) }
        for i in 0..<count {
            try vault.add(.genericPassword(service: "\(args[3])-\(i)", account: "writer"),
                          secrets: ItemSecrets(password: try SecureBytes(copying: "secret-\(args[3])-\(i)")))
        }

    case "set-field":
        guard args.count >= 7 else { fail("usage: set-field VAULT SERVICE ACCOUNT FIELD VALUE [--retry] [--wait-for PATH]", code: 64) }
        let flags = Array(args[7...])
        let retry = flags.contains("--retry")
        let waitFor = flags.firstIndex(of: "--wait-for").flatMap { $0 + 1 < flags.count ? flags[$0 + 1] : nil }
        guard let item = try vault.firstItem(matching: ItemQuery(service: args[3], account: args[4])) else {
            fail("no item", code: 4)
        }
        if let waitFor {
            say("ready")
            var waited = 0
            while access(waitFor, F_OK) != 0 {
                usleep(500)
                waited += 1
                if waited > 60_000 { fail("timed out waiting for \(waitFor)", code: 4) }
            }
        }
        var attempts = 0
        while true {
            do {
                try vault.update(item.id) { attributes, _ in
                    attributes.fields.removeAll { $0.name == args[5] }
                    attributes.fields.append(CustomField(name: args[5], value: args[6]))
                }
                break
            } catch CofferError.conflict where retry && attempts < 50 {
                // The vault now shows the other writer's version: apply the edit to it.
                attempts += 1
            }
        }
        if attempts > 0 { say("retried \(attempts)") }

    case "save-loop":
        guard args.count == 4 || args.count == 5 else { fail("usage: save-loop VAULT STATE_LOG [SECONDS]", code: 64) }
        let seconds = args.count == 5 ? Double(args[4]) ?? 30 : 30
        guard let counter = try vault.firstItem(matching: ItemQuery(service: "counter", account: "state")),
              let seq = counter.fields.first(where: { $0.name == "seq" }), var n = Int(seq.value) else {
            fail("no crash-test counter in the vault", code: 4)
        }
        let log = open(args[3], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard log >= 0 else { fail("cannot open \(args[3])", code: 4) }
        let parent = getppid()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        say("ready")
        // Stops by itself if the test that started it is gone.
        while clock.now < deadline && getppid() == parent {
            n += 1
            try CrashState.advance(vault, to: n)
            let line = "\(n)\n"
            _ = line.withCString { write(log, $0, strlen($0)) }
        }

    default:
        fail("unknown command \(args[1])", code: 64)
    }
} catch CofferError.conflict {
    exit(3)
} catch {
    fail("\(error)", code: 4)
}
