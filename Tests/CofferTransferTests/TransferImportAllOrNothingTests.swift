import Foundation
import Testing
import CofferTransfer
import CofferTestSupport

/// Issue 15, findings 1, 10 and 11: a KeePassXC XML file must parse whole, as UTF-8,
/// before anything is imported; a valid file up to the documented limit imports.
@Suite("Transfer: KeePassXC XML imports all or nothing")
struct TransferImportAllOrNothingTests {
    /// A KeePassXC-style export (the element layout `keepassxc-cli export --format xml`
    /// writes) with `count` entries in one group; `notes` characters of notes per entry.
    static func export(entries count: Int, notes: Int = 0) -> [UInt8] {
        var text = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <KeePassFile>
            \t<Meta>
            \t\t<Generator>KeePassXC</Generator>
            \t\t<DatabaseName>Passwords</DatabaseName>
            \t\t<RecycleBinEnabled>True</RecycleBinEnabled>
            \t\t<RecycleBinUUID>MdME5uYTEfG9AgL8AAAAAQ==</RecycleBinUUID>
            \t</Meta>
            \t<Root>
            \t\t<Group>
            \t\t\t<UUID>F69os494TDK6douojK65vQ==</UUID>
            \t\t\t<Name>Root</Name>
            \t\t\t<Group>
            \t\t\t\t<UUID>AAAAAAAAAAAAAAAAAAAAAQ==</UUID>
            \t\t\t\t<Name>Work</Name>

            """
        let filler = String(repeating: "n", count: notes)
        text.reserveCapacity(count * (600 + notes))
        for index in 0..<count {
            text += """
                \t\t\t\t<Entry>
                \t\t\t\t\t<UUID>MdKkBuYTEfG9AgL8AAAAAQ==</UUID>
                \t\t\t\t\t<IconID>0</IconID>
                \t\t\t\t\t<Tags/>
                \t\t\t\t\t<Times>
                \t\t\t\t\t\t<LastModificationTime>2024-02-03T04:05:06Z</LastModificationTime>
                \t\t\t\t\t\t<CreationTime>2024-01-02T03:04:05Z</CreationTime>
                \t\t\t\t\t\t<Expires>False</Expires>
                \t\t\t\t\t</Times>
                \t\t\t\t\t<String>
                \t\t\t\t\t\t<Key>Notes</Key>
                \t\t\t\t\t\t<Value>\(filler)</Value>
                \t\t\t\t\t</String>
                \t\t\t\t\t<String>
                \t\t\t\t\t\t<Key>Password</Key>
                \t\t\t\t\t\t<Value ProtectInMemory="True">secret-\(index)-&lt;&amp;&gt;</Value>
                \t\t\t\t\t</String>
                \t\t\t\t\t<String>
                \t\t\t\t\t\t<Key>Title</Key>
                \t\t\t\t\t\t<Value>Site \(index)</Value>
                \t\t\t\t\t</String>
                \t\t\t\t\t<String>
                \t\t\t\t\t\t<Key>URL</Key>
                \t\t\t\t\t\t<Value>https://site\(index).example.com/login</Value>
                \t\t\t\t\t</String>
                \t\t\t\t\t<String>
                \t\t\t\t\t\t<Key>UserName</Key>
                \t\t\t\t\t\t<Value>user\(index)</Value>
                \t\t\t\t\t</String>
                \t\t\t\t</Entry>

                """
        }
        text += "\t\t\t</Group>\n\t\t</Group>\n\t</Root>\n</KeePassFile>\n"
        return Array(text.utf8)
    }

    static func importBytes(_ bytes: [UInt8], into vault: Vault, dryRun: Bool = false) throws -> ImportReport {
        try vault.importItems(from: try SecureBytes(copying: bytes), format: .keepassxcXML, dryRun: dryRun)
    }

    /// Imports `bytes` into a new, empty vault: the import must fail with `malformedImport`
    /// and leave the vault empty. Returns whether it was refused with that kind.
    static func expectRefused(_ bytes: [UInt8], _ what: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
        try withImportVault { (vault) throws -> Bool in
            var refused = false
            do {
                let report = try importBytes(bytes, into: vault)
                Issue.record("\(what): imported \(report.imported) items with no error", sourceLocation: sourceLocation)
            } catch let error as CofferError where error.kind == .malformedImport {
                refused = true
            } catch {
                Issue.record("\(what): \(error), expected malformedImport", sourceLocation: sourceLocation)
            }
            #expect(try vault.items().isEmpty, "\(what): items were imported", sourceLocation: sourceLocation)
            return refused
        }
    }

    // MARK: Finding 1: a truncated export imports nothing

    @Test("a 1,000-entry export cut anywhere (100,123 bytes, mid-entry, mid-password, before the last tag) imports nothing")
    func truncatedExportImportsNothing() throws {
        let whole = Self.export(entries: 1000)
        let text = String(decoding: whole, as: UTF8.self)
        func offset(of needle: String, after start: Int = 0) -> Int {
            let from = text.utf8.index(text.utf8.startIndex, offsetBy: start)
            guard let range = text[from...].range(of: needle) else { return whole.count / 2 }
            return text.utf8.distance(from: text.utf8.startIndex, to: range.lowerBound)
        }
        let middle = whole.count / 2
        let cuts: [(String, Int)] = [
            ("at 100,123 bytes (issue 15)", 100_123),
            ("just after an entry", offset(of: "</Entry>\n", after: middle) + 9),
            ("inside an entry's password", offset(of: "secret-", after: middle) + 9),
            ("inside a start tag", offset(of: "<String>", after: middle) + 4),
            ("inside an entity", offset(of: "&amp;", after: middle) + 2),
            ("before </Group></Group>", offset(of: "\t\t\t</Group>\n\t\t</Group>")),
            ("before </Root>", offset(of: "\t</Root>")),
            ("before </KeePassFile>", offset(of: "</KeePassFile>")),
            ("inside </KeePassFile>", whole.count - 3),
        ]
        try withImportVault { vault in
            // The whole file imports: the cuts below fail because of the cut alone.
            #expect(try Self.importBytes(whole, into: vault, dryRun: true).imported == 1000)
            var refused = 0
            for (what, cut) in cuts {
                if try Self.expectRefused(Array(whole[..<cut]), "cut \(what) (\(cut) of \(whole.count) bytes)") {
                    refused += 1
                }
            }
            print("[reliability] KeePassXC XML cut short: \(refused) of \(cuts.count) cuts of a \(whole.count)-byte, 1,000-entry export refused, 0 items imported")
        }
    }

    @Test("any well-formedness error refuses the file, even one libxml2 recovers from")
    func recoverableErrorsRefuse() throws {
        let whole = String(decoding: Self.export(entries: 3), as: UTF8.self)
        let broken = [
            ("content after the root element", whole + "<KeePassFile/>\n"),
            ("a stray end tag", whole.replacingOccurrences(of: "</Times>", with: "</Times></Bogus>")),
            ("an unescaped ampersand", whole.replacingOccurrences(of: "user1", with: "us&er1")),
        ]
        for (what, text) in broken { _ = try Self.expectRefused(Array(text.utf8), what) }
    }

    // MARK: Finding 10: up to the documented 256 MiB

    @Test("a valid 12 MB export imports (libxml2's 10 MB limit lifted)")
    func largeExportImports() throws {
        let big = Self.export(entries: 1500, notes: 7800)
        #expect(big.count > 12_000_000)
        try withImportVault { vault in
            let start = ContinuousClock.now
            let report = try Self.importBytes(big, into: vault)
            let elapsed = ContinuousClock.now - start
            #expect(report.imported == 1500)
            #expect(report.unreadable.isEmpty)
            let (_, secrets) = try itemLabelled("Site 1499", in: vault)
            #expect(secrets.password?.testString == "secret-1499-<&>")
            #expect(secrets.notes?.testString?.count == 7800)
            print("[reliability] KeePassXC XML of \(big.count) bytes (1,500 entries): imported \(report.imported) items in \(elapsed)")
        }
    }

    // MARK: Finding 11: UTF-8 only

    static let entityAttack = """
        <?xml version="1.0" encoding="UTF-16"?>
        <!DOCTYPE KeePassFile [<!ENTITY pw "stolen">]>
        <KeePassFile><Root><Group><Name>Root</Name>
        <Entry><String><Key>Title</Key><Value>Bank</Value></String><String><Key>UserName</Key><Value>alice</Value></String><String><Key>Password</Key><Value>&pw;</Value></String></Entry>
        </Group></Root></KeePassFile>

        """

    static let plain = """
        <?xml version="1.0" encoding="UTF-16"?>
        <KeePassFile><Root><Group><Name>Root</Name>
        <Entry><String><Key>Title</Key><Value>Bank</Value></String><String><Key>UserName</Key><Value>alice</Value></String><String><Key>Password</Key><Value>pw</Value></String></Entry>
        </Group></Root></KeePassFile>

        """

    static func utf16(_ text: String, bigEndian: Bool, bom: Bool) -> [UInt8] {
        var units = Array(text.utf16)
        if bom { units.insert(0xFEFF, at: 0) }
        return units.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    @Test("UTF-16 (LE and BE, with and without a BOM) and UTF-32 are refused, with or without a DOCTYPE")
    func refusesOtherEncodings() throws {
        var files: [(String, [UInt8])] = []
        for (name, text) in [("with a DOCTYPE", Self.entityAttack), ("plain", Self.plain)] {
            for bigEndian in [false, true] {
                for bom in [false, true] {
                    files.append(("UTF-16\(bigEndian ? "BE" : "LE") \(bom ? "with" : "without") BOM, \(name)",
                                  Self.utf16(text, bigEndian: bigEndian, bom: bom)))
                }
            }
            let utf32 = text.unicodeScalars.flatMap { scalar -> [UInt8] in
                let v = scalar.value
                return [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
            }
            files.append(("UTF-32LE, \(name)", utf32))
        }
        do {
            for (what, bytes) in files {
                _ = try Self.expectRefused(bytes, what)
            }
            print("[reliability] KeePassXC XML in other encodings: \(files.count) files (UTF-16LE/BE with and without BOM, UTF-32LE; with and without a DOCTYPE) refused, 0 items imported")
        }
    }

    @Test("an ASCII-compatible file that declares another encoding is refused; UTF-8 declarations and a UTF-8 BOM are fine")
    func encodingDeclarations() throws {
        let body = String(decoding: Self.export(entries: 1), as: UTF8.self)
        let refused = ["ISO-8859-1", "UTF-7", "UTF-16", "US-ASCII", "windows-1252"]
        try withImportVault { vault in
            for name in refused {
                let text = body.replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding='\(name)'")
                _ = try Self.expectRefused(Array(text.utf8), "declared \(name)")
            }
            for accepted in ["encoding=\"utf-8\"", "encoding = 'UTF-8'", ""] {
                let text = body.replacingOccurrences(of: "encoding=\"UTF-8\"", with: accepted)
                #expect(try Self.importBytes(Array(text.utf8), into: vault, dryRun: true).imported == 1, "\(accepted)")
            }
            #expect(try Self.importBytes([0xEF, 0xBB, 0xBF] + Array(body.utf8), into: vault, dryRun: true).imported == 1)
        }
    }

    @Test("a NUL byte anywhere is refused")
    func refusesNUL() throws {
        var bytes = Self.export(entries: 2)
        let text = String(decoding: bytes, as: UTF8.self)
        let at = text.utf8.distance(from: text.utf8.startIndex, to: try #require(text.range(of: "secret-1")).lowerBound)
        bytes.insert(0, at: at)
        _ = try Self.expectRefused(bytes, "a NUL inside a password")
    }
}
