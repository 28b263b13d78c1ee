import Foundation
import Testing
@testable import CofferStore
import CofferTestSupport

@Suite("Store: conflict copies")
struct StoreConflictCopyTests {
    // Each name below is built the way the service builds it:
    // - Syncthing, lib/model/folder_sendrecv.go `conflictName`:
    //   name[:len(name)-len(ext)] + Format(".sync-conflict-20060102-150405-") + ShortID.String() + ext,
    //   ext = filepath.Ext(name); ShortID.String() (lib/protocol/deviceid.go) is the first 7
    //   characters of the device id ("MFZWI3D-BONSGYC-…" -> "MFZWI3D"), "" for the zero id.
    // - Nextcloud desktop, src/common/utility.cpp `Utility::makeConflictFileName`:
    //   " (conflicted copy " + [user + " "] + "yyyy-MM-dd hhmmss" + ")" before the last dot
    //   (none when the dot is the first character).
    // - ownCloud before 2.5, `FileSystem::makeConflictFileName`: "_conflict-" + "yyyyMMdd-hhmmss".
    // - Dropbox (closed source): its help pages' "(Jane's conflicted copy 2024-03-01)".
    static let recognised: [(vault: String, copy: String, origin: ConflictCopyOrigin)] = [
        ("vault.coffer", "vault.sync-conflict-20240301-101530-MFZWI3D.coffer", .syncthing),
        ("vault.coffer", "vault.sync-conflict-19991231-235959-ABCDEF7.coffer", .syncthing),
        ("vault.coffer", "vault.sync-conflict-20240301-101530-.coffer", .syncthing),
        ("vault", "vault.sync-conflict-20240301-101530-MFZWI3D", .syncthing),
        ("my.vault.coffer", "my.vault.sync-conflict-20240301-101530-MFZWI3D.coffer", .syncthing),
        (".coffer", ".sync-conflict-20240301-101530-MFZWI3D.coffer", .syncthing),
        ("Tresor ü.coffer", "Tresor ü.sync-conflict-20240301-000000-Z2345Q7.coffer", .syncthing),

        ("vault.coffer", "vault (conflicted copy 2024-03-01 101530).coffer", .nextcloud),
        ("vault.coffer", "vault (conflicted copy Jane Smith 2024-03-01 101530).coffer", .nextcloud),
        ("vault.coffer", "vault (conflicted copy J. _Admin_ 2024-03-01 101530).coffer", .nextcloud),
        ("vault.coffer", "vault (conflicted copy  2024-03-01 101530).coffer", .nextcloud),
        ("vault", "vault (conflicted copy 2024-03-01 235959)", .nextcloud),
        (".coffer", ".coffer (conflicted copy 2024-03-01 101530)", .nextcloud),
        ("vault.coffer", "vault_conflict-20240301-101530.coffer", .nextcloud),
        ("vault", "vault_conflict-20240301-101530", .nextcloud),

        ("vault.coffer", "vault (Jane's conflicted copy 2024-03-01).coffer", .dropbox),
        ("vault.coffer", "vault (conflicted copy 2024-03-01 (1)).coffer", .dropbox),
        ("vault.coffer", "vault (conflicted copy 2024-03-01).coffer", .dropbox),
        ("vault.coffer", "vault (Jane Smith's MacBook's conflicted copy 2024-03-01).coffer", .dropbox),
        ("vault.coffer", "vault (Jane\u{2019}s conflicted copy 2024-03-01 (12)).coffer", .dropbox),
        ("vault", "vault (Jane's conflicted copy 2024-03-01)", .dropbox),
    ]

    @Test("Names made as each service makes them are recognised, with their service")
    func recognisedNames() {
        for (vault, copy, origin) in Self.recognised {
            #expect(ConflictCopyName.origin(of: copy, forVaultNamed: vault) == origin, "\(copy) for \(vault)")
        }
    }

    static let lookalikes: [(vault: String, name: String)] = [
        // The vault's own files, and the vault itself.
        ("vault.coffer", "vault.coffer"),
        ("vault.coffer", "vault.coffer.bak"),
        ("vault.coffer", "vault.coffer.lock"),
        ("vault.coffer", ".vault.coffer.tmp-0123456789abcdef"),
        // Copies of another vault, or of a name that only starts like this one.
        ("vault.coffer", "other.sync-conflict-20240301-101530-MFZWI3D.coffer"),
        ("vault.coffer", "vaultX (conflicted copy 2024-03-01 101530).coffer"),
        ("vault.coffer", "vaultX.sync-conflict-20240301-101530-MFZWI3D.coffer"),
        ("vault.coffer", "avault (Jane's conflicted copy 2024-03-01).coffer"),
        ("vault.coffer", "vault_conflict-20240301-101530X.coffer"),
        // Wrong or misplaced extension.
        ("vault.coffer", "vault (conflicted copy 2024-03-01 101530).txt"),
        ("vault.coffer", "vault.sync-conflict-20240301-101530-MFZWI3D.txt"),
        ("vault.coffer", "vault.sync-conflict-20240301-101530-MFZWI3D"),
        ("vault.coffer", "vault.coffer (conflicted copy 2024-03-01 101530)"),
        ("vault.coffer", "vault.coffer.sync-conflict-20240301-101530-MFZWI3D"),
        ("vault.coffer", "vault.coffer_conflict-20240301-101530"),
        // Missing or malformed parts.
        ("vault.coffer", "vault.sync-conflict-20240301-MFZWI3D.coffer"),
        ("vault.coffer", "vault.sync-conflict-20240301-101530.coffer"),
        ("vault.coffer", "vault.sync-conflict--101530-MFZWI3D.coffer"),
        ("vault.coffer", "vault.sync-conflict-2024031-101530-MFZWI3D.coffer"),
        ("vault.coffer", "vault.sync-conflict-20240301-101530-mfzwi3d.coffer"),
        ("vault.coffer", "vault.sync-conflict-20240301-101530-MFZWI31.coffer"),
        ("vault.coffer", "vault.sync-conflict-20240301-101530-MFZWI38.coffer"),
        ("vault.coffer", "vault.sync-conflict-20240301-101530-MFZWI3.coffer"),
        ("vault.coffer", "vault.sync-conflict-20240301-101530-MFZWI3DA.coffer"),
        ("vault.coffer", "vault.sync-conflict-20241301-101530-MFZWI3D.coffer"),
        ("vault.coffer", "vault.sync-conflict-20240300-101530-MFZWI3D.coffer"),
        ("vault.coffer", "vault.sync-conflict-20240301-241530-MFZWI3D.coffer"),
        ("vault.coffer", "vault.sync-conflict-2024O301-101530-MFZWI3D.coffer"),
        ("vault.coffer", "vault.sync_conflict-20240301-101530-MFZWI3D.coffer"),
        ("vault.coffer", "vault (conflicted copy).coffer"),
        ("vault.coffer", "vault (conflicted copy 2024-03-01 1015).coffer"),
        ("vault.coffer", "vault (conflicted copy 2024-03-01 106030).coffer"),
        ("vault.coffer", "vault (conflicted copy 2024-03-32 101530).coffer"),
        ("vault.coffer", "vault (conflicted copy 2024-03-01 101530.coffer"),
        ("vault.coffer", "vault (conflicted copy 2024-03-01 101530) .coffer"),
        ("vault.coffer", "vault (conflicted copy Jane:Smith 2024-03-01 101530).coffer"),
        ("vault.coffer", "vault (conflicted copy Jane (x) 2024-03-01 101530).coffer"),
        ("vault.coffer", "vault(conflicted copy 2024-03-01 101530).coffer"),
        ("vault.coffer", "vault_conflict-20240301.coffer"),
        ("vault.coffer", "vault_conflict-20240301-101530-2.coffer"),
        ("vault.coffer", "vault (Jane conflicted copy 2024-03-01).coffer"),
        ("vault.coffer", "vault ('s conflicted copy 2024-03-01).coffer"),
        ("vault.coffer", "vault (Jane (work)'s conflicted copy 2024-03-01).coffer"),
        ("vault.coffer", "vault (Jane's conflicted copy 2024-03-01 (0)).coffer"),
        ("vault.coffer", "vault (Jane's conflicted copy 2024-03-01 (01)).coffer"),
        ("vault.coffer", "vault (Jane's conflicted copy 2024-03-01 ()).coffer"),
        ("vault.coffer", "vault (Jane's conflicted copy 2024-03-01 (1).coffer"),
        ("vault.coffer", "vault (Jane's conflicted copy 2024-03-01)).coffer"),
        ("vault.coffer", "vault (Jane's conflicted copy).coffer"),
        ("vault.coffer", "vault (Jane's Conflicted Copy 2024-03-01).coffer"),
        // A copy of a copy is not a direct copy of the vault.
        ("vault.coffer", "vault.sync-conflict-20240301-101530-MFZWI3D.sync-conflict-20240302-101530-ABCDEF7.coffer"),
        ("vault.coffer", "vault (conflicted copy 2024-03-01 101530) (conflicted copy 2024-03-02 101530).coffer"),
        // Bytes, not Unicode equivalence: a decomposed "é" is another name.
        ("café.coffer", "cafe\u{301}.sync-conflict-20240301-101530-MFZWI3D.coffer"),
        // Not file names at all.
        ("", ".sync-conflict-20240301-101530-MFZWI3D"),
        ("a/vault.coffer", "a/vault.sync-conflict-20240301-101530-MFZWI3D.coffer"),
        ("vault.coffer", "x/vault.sync-conflict-20240301-101530-MFZWI3D.coffer"),
    ]

    @Test("Lookalikes are not copies: other names, the vault's own files, wrong extension, missing or malformed parts")
    func lookalikeNames() {
        for (vault, name) in Self.lookalikes {
            #expect(ConflictCopyName.origin(of: name, forVaultNamed: vault) == nil, "\(name) for \(vault)")
        }
    }

    @Test("Garbage names never crash and are never copies")
    func garbageNames() {
        var random = SeededRandom("conflict copy garbage")
        let pieces = ["vault", ".coffer", ".sync-conflict-", "2024", "0301", "-", " (", ")", "conflicted copy ",
                      "'s ", "_conflict-", "101530", "ABCDEF7", "(1)", "\u{FFFD}", "é", "%", ".", " ", ""]
        for _ in 0..<3000 {
            let count = Int.random(in: 0...10, using: &random)
            let name = (0..<count).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
            let origin = ConflictCopyName.origin(of: name, forVaultNamed: "vault.coffer")
            // Whatever matched must really be a copy of vault.coffer.
            if origin != nil {
                #expect(name.hasPrefix("vault"), "\(name)")
                #expect(name.hasSuffix(".coffer") || name.hasSuffix(")"), "\(name)")
            }
        }
    }

    @Test("A folder: only regular files named as copies, sorted; never directories, links, FIFOs or the vault's own files")
    func folderListing() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let dir = fixture.directory
            let files = [
                "vault.coffer", "vault.coffer.bak", "vault.coffer.lock", ".vault.coffer.tmp-0123456789abcdef",
                "notes.txt", "other (conflicted copy 2024-03-01 101530).coffer",
                "vault (Jane's conflicted copy 2024-03-01).coffer",
                "vault.sync-conflict-20240301-101530-MFZWI3D.coffer",
                "vault (conflicted copy 2024-03-01 101530).coffer",
                "vault_conflict-20240301-101530.coffer",
            ]
            for name in files { fixture.write(storeBytes(name), to: dir + "/" + name) }
            // Named like copies, but not regular files.
            try FileManager.default.createDirectory(atPath: dir + "/vault (conflicted copy 2024-03-02 101530).coffer",
                                                    withIntermediateDirectories: false)
            try FileManager.default.createSymbolicLink(atPath: dir + "/vault.sync-conflict-20240302-101530-ABCDEF7.coffer",
                                                       withDestinationPath: dir + "/vault.coffer")
            try FileManager.default.createSymbolicLink(atPath: dir + "/vault_conflict-20240302-101530.coffer",
                                                       withDestinationPath: dir + "/missing")
            #expect(mkfifo(dir + "/vault (conflicted copy 2024-03-03 101530).coffer", 0o600) == 0)

            let copies = try fixture.store().conflictCopies()
            #expect(copies == [
                ConflictCopy(path: dir + "/vault (Jane's conflicted copy 2024-03-01).coffer", origin: .dropbox),
                ConflictCopy(path: dir + "/vault (conflicted copy 2024-03-01 101530).coffer", origin: .nextcloud),
                ConflictCopy(path: dir + "/vault.sync-conflict-20240301-101530-MFZWI3D.coffer", origin: .syncthing),
                ConflictCopy(path: dir + "/vault_conflict-20240301-101530.coffer", origin: .nextcloud),
            ])
            // Nothing was created or changed.
            #expect(fixture.contents(fixture.path) == storeBytes("vault.coffer"))
        }
    }

    @Test("A folder without copies, and a missing folder")
    func emptyAndMissing() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            #expect(try fixture.store().conflictCopies() == [])
            let missing = fixture.directory + "/gone"
            #expect(storeFailure { try VaultFileStore(path: missing + "/vault.coffer").conflictCopies() } == .fileNotFound(missing))
            #expect(storeFailure { try VaultFileStore(path: fixture.directory + "/").conflictCopies() } != nil)
        }
    }

    @Test("Through a symbolic link: copies of the target, next to the target")
    func symlinkedVault() throws {
        try withTemporaryDirectory { url throws in
            let dir = url.path
            let synced = dir + "/Sync"
            try FileManager.default.createDirectory(atPath: synced, withIntermediateDirectories: false)
            _ = FileManager.default.createFile(atPath: synced + "/personal.coffer", contents: Data([1]))
            _ = FileManager.default.createFile(atPath: synced + "/personal.sync-conflict-20240301-101530-MFZWI3D.coffer", contents: Data([2]))
            _ = FileManager.default.createFile(atPath: synced + "/vault.sync-conflict-20240301-101530-MFZWI3D.coffer", contents: Data([3]))
            _ = FileManager.default.createFile(atPath: dir + "/vault.sync-conflict-20240301-101530-MFZWI3D.coffer", contents: Data([4]))
            try FileManager.default.createSymbolicLink(atPath: dir + "/vault.coffer", withDestinationPath: "Sync/personal.coffer")

            let copies = try VaultFileStore(path: dir + "/vault.coffer").conflictCopies()
            #expect(copies == [ConflictCopy(path: synced + "/personal.sync-conflict-20240301-101530-MFZWI3D.coffer", origin: .syncthing)])
        }
    }

    @Test("Listing and lstat go through the seam; their failures are typed")
    func seamFailures() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let copy = fixture.directory + "/vault (conflicted copy 2024-03-01 101530).coffer"
            fixture.write([1], to: copy)

            let listing = StoreFaultInjector([StoreFaultRule(matches: { if case .listDirectory = $0 { true } else { false } },
                                                             injection: .fail(EACCES))])
            #expect(storeFailure { try fixture.store(listing.io).conflictCopies() }
                    == .system(.listDirectory, path: fixture.directory, errno: EACCES))

            var io = FileIO.live
            io.lstat = { path in path == copy ? (nil, EIO) : FileIO.live.lstat(path) }
            #expect(storeFailure { try fixture.store(io).conflictCopies() } == .system(.stat, path: copy, errno: EIO))

            // A copy removed between the listing and its lstat is skipped.
            io.lstat = { path in path == copy ? (nil, ENOENT) : FileIO.live.lstat(path) }
            #expect(try fixture.store(io).conflictCopies() == [])
        }
    }
}
