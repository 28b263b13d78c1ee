import Foundation
@testable import CofferFormat
import CofferOTP
@testable import CofferGenerator
import CofferTransfer
import CofferSSH

/// What the two libFuzzer targets in `Fuzz/` run on each input (RELIABILITY.md, "Fuzzing").
///
/// This one file is compiled into the fuzz binaries by `Fuzz/build.sh` and into the test
/// target, where `FormatFuzzTests` replays `Fuzz/Regressions/` through the same
/// functions. Both targets must never crash; every malformed input gives a typed
/// ``CofferError``. An input that breaks one of the invariants below (for example a
/// decoded structure that does not re-encode to the same bytes) is reported as a
/// violation: the fuzz binaries abort on it, the tests record it.
///
/// - ``vault(_:)``: the vault decoder: `VaultFile.parse`, `unlock` with the credentials
///   the test vectors use (only when the slots' Argon2id costs at most 64 KiB, 3 passes and
///   4 lanes, so the fuzzer does not spend its time in the KDF), `verify`, every overview and
///   secret part, and the byte-for-byte re-encoding of an opened file. Each input runs a
///   second time with its header checksum recomputed, so mutated headers reach the header
///   parser, and after a successful unlock once more with the MACs and record digests
///   recomputed with the vault's keys, so mutated manifests and records reach the checks
///   behind the MACs.
/// - ``inputs(_:)``: every other parser of outside input, chosen by the first byte:
///   key files, word lists, overview and secret field lists (TLV), padding, header
///   bodies, manifests, entry records, item ids, the strength estimator, the preamble,
///   the five import formats (a dry-run `importItems` into an empty vault) and TOTP URIs.
enum FuzzEntryPoints {
    /// How far an input got, in order.
    enum Stage: Int, Comparable, Sendable {
        case rejected, parsed, unlocked, verified, opened
        static func < (a: Stage, b: Stage) -> Bool { a.rawValue < b.rawValue }
    }

    struct Report: Sendable {
        /// The furthest stage any pass reached.
        var deepest = Stage.rejected
        /// Broken invariants; empty for a correct decoder.
        var violations: [String] = []
        /// The typed errors seen, for the tests' statistics.
        var errors: [CofferError] = []

        mutating func reach(_ stage: Stage) { deepest = max(deepest, stage) }
        mutating func violation(_ text: String) { violations.append(text) }
    }

    // MARK: - Vault decoder

    /// The credentials of `Tests/Vectors` (SPEC.md §15.2, and the passwords of the
    /// history and Unicode vectors).
    static let credentials: [VaultCredential] = {
        do {
            let password = try SecureBytes(copying: Array("correct horse battery staple".utf8))
            let keyFile = (0x40...0x7F).map { UInt8($0) }
            let material = try keyFile.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try KeyFile.material(contents: raw) } }
            let raw = try SecureBytes(copying: (0..<32).map { UInt8($0) })
            // The merge vectors' second raw key (a slot one replica adds, the one a refused merge's copy keeps).
            let secondRaw = try SecureBytes(copying: (0x20..<0x40).map { UInt8($0) })
            let others = try ["old password", "new password", "pässwörd 🔑 ключ"].map { text throws(CofferError) in
                VaultCredential.password(try SecureBytes(copying: Array(text.utf8)))
            }
            return [.rawKey(raw), .password(password), .keyFile(KeyFile(material: material)),
                    .passwordAndKeyFile(password, KeyFile(material: material))] + others + [.rawKey(secondRaw)]
        } catch {
            fatalError("fuzz credentials: \(error)")
        }
    }()

    /// Argon2id costs above these are not run (the bounds themselves are tested elsewhere).
    static let maxFuzzMemoryKiB: UInt32 = 64, maxFuzzIterations: UInt32 = 3, maxFuzzLanes: UInt32 = 4

    static func vault(_ bytes: [UInt8]) -> Report {
        var report = Report()
        if (try? VaultFile.formatVersion(bytes)) == FormatV2.version {
            var unlocked: [[UInt8]: (Int, EpochKeys?)] = [:]
            examineV2(bytes, &report, &unlocked, restampMACs: true)
            if let stamped = withHeaderChecksum(bytes), stamped != bytes {
                examineV2(stamped, &report, &unlocked, restampMACs: true)
            }
            return report
        }
        var unlocked: [[UInt8]: (Int, VaultKeys?)] = [:]
        examine(bytes, &report, &unlocked, restampMACs: true)
        if let stamped = withHeaderChecksum(bytes), stamped != bytes {
            examine(stamped, &report, &unlocked, restampMACs: true)
        }
        return report
    }

    /// ``examine(_:_:_:restampMACs:)`` for a format-2 file (SPEC.md §10): parse, unlock,
    /// authenticate (MACs recomputed after a failure), every overview and secret part with
    /// the rules of both parts, and the byte-for-byte re-encoding.
    private static func examineV2(_ bytes: [UInt8], _ report: inout Report, _ unlocked: inout [[UInt8]: (Int, EpochKeys?)],
                                  restampMACs: Bool) {
        let codec: VaultFileV2
        do {
            codec = try formatCall { () throws(FormatError) in try VaultFileV2.parse(bytes) }
        } catch {
            report.errors.append(error)
            return
        }
        report.reach(.parsed)
        if codec.header.encodeBody() != Array(bytes[FormatV1.preambleLength..<codec.headerEnd]) {
            report.violation("format-2 header does not re-encode byte for byte")
        }
        let header = Array(bytes[0..<codec.headerEnd])
        for (index, key) in credentials.enumerated() where affordableV2(codec.header, key.slotKind) {
            let keys: EpochKeys
            if let (known, cached) = unlocked[header] {
                guard known == index, let cached else { continue }
                keys = cached
            } else {
                do {
                    keys = try formatCall { () throws(FormatError) in try codec.unlock(with: key).keys }
                } catch {
                    report.errors.append(error)
                    continue
                }
                unlocked[header] = (index, keys)
            }
            report.reach(.unlocked)
            do {
                _ = try formatCall { () throws(FormatError) in try codec.authenticate(keys: keys) }
            } catch {
                report.errors.append(error)
                if restampMACs, let stamped = try? withMACs(codec, keys: keys), stamped != bytes {
                    examineV2(stamped, &report, &unlocked, restampMACs: false)
                }
                break
            }
            report.reach(.verified)
            var openedAll = true
            for record in codec.records {
                do {
                    try formatCall { () throws(FormatError) in
                        let overview = try record.openOverviewList(vaultID: codec.header.vaultID, keys: keys)
                        _ = try record.openSecretList(vaultID: codec.header.vaultID, keys: keys, overview: overview)
                    }
                } catch {
                    report.errors.append(error)
                    openedAll = false
                }
            }
            guard openedAll else { break }
            report.reach(.opened)
            do {
                let again = try VaultFileV2.encode(header: codec.header, generation: codec.generation, records: codec.records, keys: keys).bytes
                if again != bytes { report.violation("an opened format-2 vault does not re-encode byte for byte") }
            } catch {
                report.violation("an opened format-2 vault cannot be encoded again: \(error)")
            }
            break
        }
        if unlocked[header] == nil { unlocked[header] = (-1, nil) }
    }

    static func affordableV2(_ header: VaultHeaderV2, _ kind: KeySlotKind) -> Bool {
        let slots = header.slots.filter { $0.kind == kind }
        // At most four slots that run a KDF; those without one (raw keys) cost a hash each.
        guard !slots.isEmpty, slots.filter({ $0.kdf != nil }).count <= 4 else { return false }
        return slots.allSatisfy { slot in
            guard let kdf = slot.kdf else { return true }
            return kdf.memoryKiB <= maxFuzzMemoryKiB && kdf.iterations <= maxFuzzIterations && kdf.lanes <= maxFuzzLanes
        }
    }

    /// A format-2 file with its header MAC and manifest MAC recomputed.
    static func withMACs(_ codec: VaultFileV2, keys: EpochKeys) throws -> [UInt8] {
        var out = codec.bytes
        let headerMAC = try BLAKE2b.mac(out[0..<codec.headerEnd], key: keys.headerKey)
        out.replaceSubrange((codec.headerEnd + 32)..<(codec.headerEnd + 64), with: headerMAC)
        let manifestMAC = try BLAKE2b.mac(out[0..<codec.manifestEnd], key: keys.manifestKey)
        out.replaceSubrange(codec.manifestEnd..<(codec.manifestEnd + 32), with: manifestMAC)
        return out
    }

    /// `unlocked` remembers, per header, which credential opened it, so that the passes over
    /// one input run the KDF once.
    private static func examine(_ bytes: [UInt8], _ report: inout Report, _ unlocked: inout [[UInt8]: (Int, VaultKeys?)],
                                restampMACs: Bool) {
        let codec: VaultFile
        do {
            codec = try formatCall { () throws(FormatError) in try VaultFile.parse(bytes) }
        } catch {
            report.errors.append(error)
            return
        }
        report.reach(.parsed)
        let headerBody = Array(bytes[FormatV1.preambleLength..<codec.headerEnd])
        if codec.header.encodeBody() != headerBody { report.violation("header does not re-encode byte for byte") }
        if codec.records.count > codec.manifest.entries.count { report.violation("more records than manifest entries") }

        let header = Array(bytes[0..<codec.headerEnd])
        for (index, key) in credentials.enumerated() where affordable(codec.header, key.slotKind) {
            let keys: VaultKeys
            if let (known, cached) = unlocked[header] {
                guard known == index, let cached else { continue }
                keys = cached
            } else {
                do {
                    keys = try formatCall { () throws(FormatError) in try codec.unlock(with: key).keys }
                } catch {
                    report.errors.append(error)
                    continue
                }
                unlocked[header] = (index, keys)
            }
            report.reach(.unlocked)
            do {
                try formatCall { () throws(FormatError) in try codec.verify(keys: keys) }
            } catch {
                report.errors.append(error)
                // Only a key holder can compute the MACs: do so, so that mutated manifests
                // and records get past them to the checks that follow.
                if restampMACs, let stamped = try? withMACs(codec, keys: keys), stamped != bytes {
                    examine(stamped, &report, &unlocked, restampMACs: false)
                }
                break
            }
            report.reach(.verified)
            var openedAll = true
            do {
                // What a vault holds of a format-1 file: its parts converted to format 2 (SPEC.md §11.1).
                let converted = try formatCall { () throws(FormatError) in try VaultFileV2.converting(codec, keys: keys, entropy: .system) }
                let epoch = try formatCall { () throws(FormatError) in try EpochKeys(epochKey: keys.vaultKey) }
                _ = try VaultSnapshot(codec: converted, keys: epoch, identity: FileIdentity(device: 0, inode: 0, size: 0, modifiedNanoseconds: 0))
            } catch {
                report.errors.append(error)
                openedAll = false
            }
            for record in codec.records {
                do {
                    try formatCall { () throws(FormatError) in 
                        _ = try record.openOverview(vaultID: codec.header.vaultID, keys: keys)
                        _ = try record.openSecrets(vaultID: codec.header.vaultID, keys: keys)
                    }
                } catch {
                    report.errors.append(error)
                    openedAll = false
                }
            }
            guard openedAll else { break }
            report.reach(.opened)
            // SPEC.md §11: decoding a file and encoding it again reproduces it byte for byte.
            do {
                let again = try VaultFile.encode(header: codec.header, generation: codec.manifest.generation,
                                                      records: codec.records, keys: keys)
                if again != bytes { report.violation("an opened vault does not re-encode byte for byte") }
            } catch {
                report.violation("an opened vault cannot be encoded again: \(error)")
            }
            break
        }
        // No credential opened this header: do not run the KDFs again for it.
        if unlocked[header] == nil { unlocked[header] = (-1, nil) }
    }

    /// Whether unlocking with `kind` runs only cheap KDFs.
    static func affordable(_ header: VaultHeader, _ kind: KeySlotKind) -> Bool {
        let slots = header.slots.filter { $0.kind == kind }
        guard !slots.isEmpty, slots.count <= 4 else { return false }
        return slots.allSatisfy { slot in
            guard let kdf = slot.kdf else { return true }
            return kdf.memoryKiB <= maxFuzzMemoryKiB && kdf.iterations <= maxFuzzIterations && kdf.lanes <= maxFuzzLanes
        }
    }

    /// `bytes` with the header checksum recomputed, when the declared header fits.
    static func withHeaderChecksum(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= FormatV1.preambleLength else { return nil }
        let headerLength = Int(bytes[10]) | Int(bytes[11]) << 8 | Int(bytes[12]) << 16 | Int(bytes[13]) << 24
        let headerEnd = FormatV1.preambleLength + headerLength
        guard headerLength <= FormatV2.maxHeaderLength, bytes.count >= headerEnd + FormatV1.digestLength else { return nil }
        guard let checksum = try? BLAKE2b.hash(bytes[0..<headerEnd]) else { return nil }
        var out = bytes
        out.replaceSubrange(headerEnd..<(headerEnd + FormatV1.digestLength), with: checksum)
        return out
    }

    /// The parsed file with its record digests, header MAC and manifest MAC recomputed.
    static func withMACs(_ codec: VaultFile, keys: VaultKeys) throws -> [UInt8] {
        var out = codec.bytes
        let manifestBody = codec.headerEnd + 2 * FormatV1.digestLength + 4
        for (index, record) in codec.records.enumerated() where index < codec.manifest.entries.count {
            let at = manifestBody + 12 + index * Manifest.entryLength + FormatV1.entryIDLength + 8
            out.replaceSubrange(at..<(at + FormatV1.digestLength), with: try EntryRecord.computeDigest(record.body).bytes)
        }
        let headerMAC = try BLAKE2b.mac(out[0..<codec.headerEnd], key: keys.headerKey)
        out.replaceSubrange((codec.headerEnd + 32)..<(codec.headerEnd + 64), with: headerMAC)
        let manifestMAC = try BLAKE2b.mac(out[0..<codec.manifestEnd], key: keys.manifestKey)
        out.replaceSubrange(codec.manifestEnd..<(codec.manifestEnd + 32), with: manifestMAC)
        return out
    }

    // MARK: - Other parsers of outside input

    /// The parsers ``inputs(_:)`` chooses from, by the first byte's low 5 bits. The numbers
    /// are part of the inputs kept in Fuzz/Regressions: add parsers with new numbers, never renumber.
    enum Parser: Int, CaseIterable, Sendable {
        case keyFile = 0, wordlist = 1, overview = 2, secrets = 3, padding = 4, header = 5, manifest = 6,
             entryRecord = 7, itemID = 8, strength = 9, preamble = 10
        case importKeePassXCXML = 11, importKeePassXCCSV = 12, importBitwardenJSON = 13, importBrowserCSV = 14,
             importCofferJSON = 15, totp = 16
        case gitCredential = 17, openSSHKey = 18, sshAgentMessage = 19
        case identity = 20, recipient = 21
    }

    /// An empty vault in memory (its file is removed at once) for dry-run imports.
    static let importVault: Vault = {
        do {
            let path = NSTemporaryDirectory() + "/coffer-fuzz-import-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).coffer"
            let vault = try Vault.create(at: path, password: try SecureBytes(copying: Array("fuzz".utf8)),
                                         options: VaultOptions(kdf: Argon2idParameters(memoryKiB: 8, iterations: 1, lanes: 1)))
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + ".lock")
            return vault
        } catch {
            fatalError("fuzz import vault: \(error)")
        }
    }()

    /// An agent whose vault is never unlocked.
    static let lockedAgent = SSHAgent { nil }

    static let importFormats: [Parser: ImportFormat] = [
        .importKeePassXCXML: .keepassxcXML, .importKeePassXCCSV: .keepassxcCSV, .importBitwardenJSON: .bitwardenJSON,
        .importBrowserCSV: .browserCSV, .importCofferJSON: .cofferJSON,
    ]

    static func inputs(_ bytes: [UInt8]) -> Report {
        var report = Report()
        guard let selector = bytes.first else { return report }
        let data = Array(bytes.dropFirst())
        guard let parser = Parser(rawValue: Int(selector & 0x1F)) else { return report }
        do {
            try run(parser, data, &report)
            report.reach(.opened)
        } catch {
            report.errors.append(error)
        }
        return report
    }

    private static func run(_ parser: Parser, _ data: [UInt8], _ report: inout Report) throws(CofferError) {
        switch parser {
        case .keyFile:
            let key = try KeyFile(contents: try SecureBytes(copying: data))
            let material = try data.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try KeyFile.material(contents: raw) } }
            if key.material != material || key.material.count != 32 { report.violation("key file material differs") }

        case .wordlist:
            let list = try Wordlist(parsing: data, source: "fuzz")
            if list.count < 2 { report.violation("word list of \(list.count) words accepted") }
            if Set(list.words.map { $0.lowercased() }).count != list.count { report.violation("word list with duplicates accepted") }
            if list.words.contains(where: { $0.isEmpty || $0.unicodeScalars.contains { $0.properties.isWhitespace } }) {
                report.violation("word list with an empty or spaced word accepted")
            }

        case .overview:
            let attributes = try data.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(raw) } }
            if EntryCodec.encodeOverview(attributes).publicBytes != data { report.violation("overview does not re-encode byte for byte") }

        case .secrets:
            let secrets = try data.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try EntryCodec.decodeSecrets(raw) } }
            if EntryCodec.encodeSecrets(secrets).publicBytes != data { report.violation("secret part does not re-encode byte for byte") }

        case .padding:
            let length = try Padding.unpaddedLength(data, blockSize: FormatV1.paddingBlock, structure: "fuzz")
            let guarded = try Padding.unpad(try SecureBytes(copying: data), blockSize: FormatV1.paddingBlock, structure: "fuzz")
            if guarded.count != length { report.violation("the two unpad functions disagree") }
            if try Padding.pad(Array(data.prefix(length)), blockSize: FormatV1.paddingBlock) != data {
                report.violation("padding is not canonical")
            }

        case .header:
            let header = try data.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try VaultHeader.parse(raw) } }
            if header.encodeBody() != data { report.violation("header body does not re-encode byte for byte") }

        case .manifest:
            let manifest = try data.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try Manifest.parse(raw) } }
            var writer = ByteWriter()
            manifest.encode(into: &writer)
            if Array(writer.bytes.dropFirst(4)) != data { report.violation("manifest does not re-encode byte for byte") }

        case .entryRecord:
            let record = try formatCall { () throws(FormatError) in try EntryRecord(body: data[...], index: 0) }
            if Array(record.body) != data || record.revision < 1 { report.violation("entry record fields differ from its bytes") }

        case .itemID:
            let text = String(decoding: data, as: UTF8.self)
            if let id = ItemID(hex: text) {
                if id.hex != text.lowercased() { report.violation("item id does not print as it was read") }
            } else if text.utf8.count == 32, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) {
                report.violation("a valid item id was refused")
            }

        case .strength:
            // The first byte splits the password from one user input. Passwords are cut at
            // 24 bytes: the estimate of a long one costs milliseconds, which would leave the
            // fuzzer little time for the other parsers (the cut past 256 characters is unit-tested).
            let split = min(Int(data.first ?? 0), max(0, data.count - 1), 24)
            let password = Array(data.dropFirst().prefix(split)), input = Array(data.dropFirst().dropFirst(split))
            let userInputs = [String(decoding: input.prefix(32), as: UTF8.self)]
            let text = String(decoding: password, as: UTF8.self)
            let estimate = text.utf8.elementsEqual(password)
                ? StrengthEstimator.estimate(text, userInputs: userInputs)
                : StrengthEstimator.estimate(try SecureBytes(copying: password), userInputs: userInputs)
            if !(0...4).contains(estimate.score) || !estimate.guessesLog10.isFinite || estimate.guessesLog10 < 0 {
                report.violation("strength estimate out of range")
            }
            if text.utf8.elementsEqual(password) {
                var next = 0
                for pattern in estimate.patterns {
                    if pattern.range.lowerBound != next { report.violation("strength patterns do not cover the password") }
                    next = pattern.range.upperBound
                }
                if next != text.unicodeScalars.count { report.violation("strength patterns do not cover the password") }
            }

        case .preamble:
            try data.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try VaultFile.checkPreamble(raw) } }
            if data.count < 10 || !data.starts(with: FormatV1.magic) { report.violation("bad preamble accepted") }

        case .importKeePassXCXML, .importKeePassXCCSV, .importBitwardenJSON, .importBrowserCSV, .importCofferJSON:
            guard let format = importFormats[parser] else { return }
            let before = try importVault.items().count
            _ = try importVault.importItems(from: try SecureBytes(copying: data), format: format, dryRun: true)
            if try importVault.items().count != before { report.violation("a dry-run import changed the vault") }

        case .gitCredential:
            // git's credential protocol (coffer git-credential): a request parses, names a
            // server or none, and its answer says back exactly what was read.
            let request = try GitCredential(parsing: try SecureBytes(copying: data))
            if data.count > GitCredential.maximumSize { report.violation("an oversized credential request accepted") }
            _ = try request.server()
            let answer = try GitCredential(username: request.username, password: request.password).encoded()
            let again = try GitCredential(parsing: answer)
            if again.username != request.username || again.password != request.password {
                report.violation("a credential answer does not read back as what was read")
            }

        case .openSSHKey:
            // An OpenSSH private key file (coffer add-ssh-key): a key read is one whose seed gives
            // its public key, and whose signature that public key accepts.
            let key = try SSHPrivateKey(openSSHFile: try SecureBytes(copying: data))
            if data.count > SSHPrivateKey.maximumFileSize { report.violation("an oversized key file accepted") }
            let signature = try key.signature(for: data)
            if signature.count != 83 || key.publicKey.blob.count != 51 { report.violation("an Ed25519 key or signature of the wrong size") }
            if try SSHPublicKey(openSSHLine: key.publicKey.openSSHLine) != key.publicKey {
                report.violation("a key's public line does not read back as the key")
            }

        case .sshAgentMessage:
            // An SSH agent message (coffer ssh-agent), answered by an agent whose vault is locked:
            // every answer is one of the agent's replies, and a request it reads is answered.
            let request = try SSHAgentRequest(parsing: data)
            let reply = lockedAgent.reply(to: data)
            switch request {
            case .requestIdentities: if reply != [12, 0, 0, 0, 0] { report.violation("a locked agent listed keys") }
            default: if reply != [5] { report.violation("a locked agent did not refuse \(request)") }
            }

        case .identity:
            // An identity file (coffer --identity): an age identity file or an OpenSSH key. Each
            // key read gives a recipient that reads back as itself.
            let identity = try VaultIdentity(contents: try SecureBytes(copying: data))
            if data.count > VaultIdentity.maximumFileSize { report.violation("an oversized identity file accepted") }
            if identity.keys.isEmpty || identity.keys.count > VaultIdentity.maximumKeys { report.violation("\(identity.keys.count) identity keys") }
            for recipient in identity.recipients where try VaultRecipient(recipient.description) != recipient {
                report.violation("an identity's recipient does not read back as itself")
            }

        case .recipient:
            // A recipient string (coffer share): what is read prints as a string that reads back.
            let recipient = try VaultRecipient(String(decoding: data, as: UTF8.self))
            if try VaultRecipient(recipient.description) != recipient || recipient.key.count != 32 {
                report.violation("a recipient does not read back as itself")
            }

        case .totp:
            let totp = try TOTP(parsing: try SecureBytes(copying: data))
            let code = try totp.code(at: Date(timeIntervalSince1970: 1_700_000_000))
            if code.count != totp.digits || !code.allSatisfy(\.isASCII) { report.violation("TOTP code \(code.count) characters for \(totp.digits) digits") }
        }
    }

    // MARK: - Seeds from Tests/Vectors

    /// The seed corpus of each target, derived from the vector files in `vectors` (and,
    /// for word lists, the bundled EFF list in `resources`): name -> bytes.
    static func seeds(vectors: URL, resources: URL) throws -> (vault: [(String, [UInt8])], inputs: [(String, [UInt8])]) {
        var vaultSeeds: [(String, [UInt8])] = []
        var inputSeeds: [(String, [UInt8])] = []
        func input(_ parser: Parser, _ name: String, _ bytes: [UInt8]) {
            inputSeeds.append(("\(parser)-\(name)", [UInt8(parser.rawValue)] + bytes))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: vectors.path).filter { $0.hasSuffix(".vec") }.sorted()
        for name in names {
            let contents = Array(try Data(contentsOf: vectors.appendingPathComponent(name)))
            guard let split = (0..<max(0, contents.count - 1)).first(where: { contents[$0] == 0x0A && contents[$0 + 1] == 0x0A }) else { continue }
            let bytes = Array(contents[(split + 2)...])
            let stem = String(name.dropLast(4))
            vaultSeeds.append((stem, bytes))
            input(.preamble, stem, Array(bytes.prefix(10)))
            guard String(decoding: contents[0..<split], as: UTF8.self).contains("expect: success"),
                  let codec = try? VaultFile.parse(bytes) else { continue }
            input(.header, stem, Array(bytes[FormatV1.preambleLength..<codec.headerEnd]))
            let manifestBody = codec.headerEnd + 2 * FormatV1.digestLength + 4
            input(.manifest, stem, Array(bytes[manifestBody..<codec.manifestEnd]))
            guard let keys = credentials.lazy.compactMap({ try? codec.unlock(with: $0).keys }).first else { continue }
            for (index, record) in codec.records.enumerated() {
                input(.entryRecord, "\(stem)-\(index)", Array(record.body))
                input(.itemID, "\(stem)-\(index)", Array(record.id.hex.utf8))
                if let attributes = try? record.openOverview(vaultID: codec.header.vaultID, keys: keys) {
                    let overview = EntryCodec.encodeOverview(attributes).publicBytes
                    input(.overview, "\(stem)-\(index)", overview)
                    if let padded = try? Padding.pad(overview, blockSize: FormatV1.paddingBlock) {
                        input(.padding, "\(stem)-\(index)", padded)
                    }
                    let words = [attributes.label, attributes.service, attributes.account].compactMap { $0 }
                    input(.strength, "\(stem)-\(index)", [UInt8(min(words.first?.utf8.count ?? 0, 255))] + Array(words.joined().utf8))
                }
                if let secrets = try? record.openSecrets(vaultID: codec.header.vaultID, keys: keys) {
                    input(.secrets, "\(stem)-\(index)", EntryCodec.encodeSecrets(secrets).publicBytes)
                }
            }
        }
        // Import files: the fixtures of the import tests, and a Coffer JSON export.
        let fixtures = vectors.deletingLastPathComponent().appendingPathComponent("Fixtures", isDirectory: true)
        for (parser, file) in [(Parser.importKeePassXCXML, "keepassxc.xml"), (.importKeePassXCCSV, "keepassxc.csv"),
                               (.importBitwardenJSON, "bitwarden.json"), (.importBrowserCSV, "chrome.csv"),
                               (.importBrowserCSV, "firefox.csv")] {
            if let bytes = try? Data(contentsOf: fixtures.appendingPathComponent(file)) { input(parser, file, Array(bytes)) }
        }
        if let export = try? cofferJSONExport() { input(.importCofferJSON, "export", export) }
        for (index, uri) in ["otpauth://totp/ACME:me@example.com?secret=JBSWY3DPEHPK3PXP&issuer=ACME&digits=8&period=60&algorithm=SHA256",
                             "JBSW Y3DP EHPK 3PXP", "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&algorithm=SHA512"].enumerated() {
            input(.totp, "uri-\(index)", Array(uri.utf8))
        }
        for (index, request) in ["protocol=https\nhost=example.com\n\n",
                                 "capability[]=authtype\nprotocol=https\nhost=example.com:8443\npath=team/repo.git\nusername=alice\npassword=s3cret\n\n",
                                 "url=https://al%40ice@Example.com/team/repo.git\nwwwauth[]=Basic realm=\"x\"\n"].enumerated() {
            input(.gitCredential, "request-\(index)", Array(request.utf8))
        }
        let sshKeys = fixtures.appendingPathComponent("ssh", isDirectory: true)
        for name in ["id_ed25519", "id_ed25519_passphrase", "id_rsa", "id_ecdsa"] {
            if let bytes = try? Data(contentsOf: sshKeys.appendingPathComponent(name)) { input(.openSSHKey, name, Array(bytes)) }
        }
        if let bytes = try? Data(contentsOf: sshKeys.appendingPathComponent("id_ed25519")) { input(.identity, "ssh", Array(bytes)) }
        input(.identity, "age", Array("# public key: age1…\nAGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0\n".utf8))
        if let pub = try? Data(contentsOf: sshKeys.appendingPathComponent("id_ed25519.pub")) { input(.recipient, "ssh", Array(pub)) }
        input(.recipient, "age", Array("age1mrmfnwhtlprn4jquex0ukmwcm7y2nxlphuzgsgv8ew2k9mewy3rs8u7su5".utf8))
        let blob: [UInt8] = [0, 0, 0, 11] + Array("ssh-ed25519".utf8) + [0, 0, 0, 32] + [UInt8](repeating: 7, count: 32)
        for (name, message) in [("list", [11]), ("sign", [13, 0, 0, 0, 51] + blob + [0, 0, 0, 3, 1, 2, 3, 0, 0, 0, 0]),
                                ("remove-all", [19]), ("extension", [27, 0, 0, 0, 4] + Array("test".utf8))] as [(String, [UInt8])] {
            input(.sshAgentMessage, name, message)
        }
        input(.keyFile, "vectors", (0x40...0x7F).map { UInt8($0) })
        input(.keyFile, "one-byte", [0])
        if let eff = try? Data(contentsOf: resources.appendingPathComponent("eff_large_wordlist.txt")) {
            let lines = String(decoding: eff, as: UTF8.self).split(separator: "\n").prefix(40)
            input(.wordlist, "eff-dice", Array(lines.joined(separator: "\n").utf8))
            input(.wordlist, "plain-crlf", Array(lines.map { $0.split(separator: "\t").last.map(String.init) ?? "" }.joined(separator: "\r\n").utf8))
        }
        for (index, password) in ["correct horse battery staple", "P@ssw0rd1987", "qwertyuiop", "abcabcabc", "31/12/2019", "zxcvbn日本🔑"].enumerated() {
            input(.strength, "sample-\(index)", [UInt8(password.utf8.count)] + Array(password.utf8) + Array("alice".utf8))
        }
        return (vaultSeeds, inputSeeds)
    }

    /// Coffer's JSON export of a small vault with every kind of item.
    static func cofferJSONExport() throws -> [UInt8] {
        let path = NSTemporaryDirectory() + "/coffer-fuzz-export-\(getpid()).coffer"
        defer {
            for suffix in ["", ".lock", ".bak"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let vault = try Vault.create(at: path, password: try SecureBytes(copying: Array("fuzz".utf8)),
                                     options: VaultOptions(kdf: Argon2idParameters(memoryKiB: 8, iterations: 1, lanes: 1)))
        var login = ItemAttributes.internetPassword(server: "example.com", account: "alice", protocol: "https", port: 8443)
        login.tags = ["work"]
        login.fields = [CustomField(name: "team", value: "blue")]
        try vault.add(login, secrets: ItemSecrets(password: try SecureBytes(copying: Array("pw".utf8)),
                                                  fields: [SecretField(name: "pin", value: try SecureBytes(copying: Array("1234".utf8)))],
                                                  attachments: [Attachment(name: "a.bin", data: try SecureBytes(copying: [0, 1, 2]))]))
        try vault.add(.genericPassword(service: "api", account: "ci"), secrets: ItemSecrets(password: try SecureBytes(copying: Array("token".utf8))))
        try vault.add(.secureNote(title: "note"), secrets: ItemSecrets(notes: try SecureBytes(copying: Array("text".utf8))))
        return try vault.exportItems(format: .json).withUnsafeBytes { Array($0) }
    }
}
