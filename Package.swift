// swift-tools-version:6.0
import PackageDescription

// The layers are targets, and every arrow points down: a file that imports a layer above
// its own does not compile. Internals shared between layers use `package` access.
//
//   C:        CSodium, CArgon2, COpenSSLCrypto   system libraries (libcrypto only for TOTP's HMAC)
//             CCofferSystem                      prctl, posix_spawn with closefrom, add_key/keyctl, a socket peer's uid (Swift cannot call them)
//   Crypto:   CofferCrypto    guarded memory, wiping buffer, AEAD, Argon2id, BLAKE2b,
//                             process hardening, CofferError          <- CSodium, CArgon2, CCofferSystem
//   Format:   CofferFormat    Model/ (items, credentials) + Format/ (bytes in, bytes out; no I/O;
//                             also age stanzas, Bech32 recipients and the OpenSSH key reader)
//                                                                      <- CofferCrypto
//   Store:    CofferStore     files, locks, atomic saves, secret files: the one I/O seam;
//                             the kernel keyring (KernelKeyring, KeyringIO)
//                                                                      <- CofferCrypto, CofferFormat, CCofferSystem
//   Vault:    CofferVault     the vault API: Vault, transactions, queries, key slots, keychain;
//                             re-exports Crypto, Format and Store      <- Crypto, Format, Store
//   Features: CofferOTP       TOTP and otpauth URIs, HMAC             <- Crypto, Format, COpenSSLCrypto
//             CofferGenerator passwords, passphrases, strength; the word lists compiled in
//                                                                      <- Crypto
//             CofferTransfer  import and export; FoundationXML        <- Crypto, Format, Store, Vault, OTP
//             CofferAudit     password health report (weak, reused, old) <- Crypto, Format, Vault, Generator
//             CofferSSH       SSH keys in a vault (read by CofferFormat's OpenSSH reader), the SSH agent
//                             protocol (draft-miller-ssh-agent) and its Unix socket
//                                                                      <- Crypto, Format, Vault, CSodium, CCofferSystem
//   Umbrella: Coffer          re-exports every layer above, so `import Coffer` is enough
//   Apps:     CofferTerminal  signal-safe secret prompts, stdin reads <- Coffer (public API only)
//             coffer (CofferCLI)                                      <- Coffer, CofferTerminal, CCofferSystem
//             ExampleSupport -> AccountsBook, Notebooks, OfflineFavourites, Transfers, Secuure
//                                                                      <- Coffer, CofferTerminal
//             CofferDemo                                              <- Coffer
//   Tests, benchmarks (may use `package` API; the product has no hooks for them, except that
//   debug builds let an EntropySource draw from a test's seeded stream):
//             one test target per layer, Coffer<Layer>Tests (Crypto, Format, Store, Vault, OTP,
//             Generator, Transfer, SSH), with CofferDocsTests (README, DocC and doc-comment code, on
//             `import Coffer`) and CofferCLITests (the built `coffer`; CofferCLI for its exit-code
//             table). A test file lives in the target of the lowest layer it tests, is named
//             <Layer><Concept>Tests (CLI<Concept>Tests, Docs<Concept>Tests), and imports what it
//             uses: @testable only where it reads internals;
//             CofferTestSupport <- the layers (helpers the test targets share);
//             CofferTestWriter <- Coffer;  CofferBench <- Coffer, Crypto, Format, Vault
//
// Library products, one per feature (an app depends on the ones it uses; each module
// re-exports the layers its API is written in):
//   CofferVault      the core: Vault, items, key slots, SecureBytes, CofferError (Crypto + Format + Store + Vault);
//                    links libsodium and libargon2, no libcrypto, no FoundationXML, no word list
//   CofferOTP        TOTP (libcrypto)        CofferGenerator  passwords, passphrases, strength (the word lists)
//   CofferTransfer   import and export (FoundationXML; with OTP)   CofferAudit  password health (with Generator)
//   CofferSSH        SSH keys and the SSH agent (libsodium's Ed25519)
//   Coffer           all of the above        and the executable product `coffer`
// `make product-check` (part of `make test`) builds an app on CofferVault alone and checks what it links.
// `make` builds with --explicit-target-dependency-import-check error, so an import of a target
// that is not a declared dependency (an upward one above all) is a build error, also incrementally.
// The test targets and their helpers: a file sees the members (extensions, error kinds…) of
// the modules it imports, not of whatever another import happens to load, so each file's
// imports say what it uses.
let testSettings: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "Coffer",
    platforms: [.macOS(.v13)],
    // One library product per feature, so an app links only what it uses (README, "Use Coffer
    // in your package"); each product's module re-exports the layers its API is written in.
    products: [
        .library(name: "CofferVault", targets: ["CofferVault"]),
        .library(name: "CofferOTP", targets: ["CofferOTP"]),
        .library(name: "CofferGenerator", targets: ["CofferGenerator"]),
        .library(name: "CofferTransfer", targets: ["CofferTransfer"]),
        .library(name: "CofferAudit", targets: ["CofferAudit"]),
        .library(name: "CofferSSH", targets: ["CofferSSH"]),
        .library(name: "Coffer", targets: ["Coffer"]),
        .executable(name: "coffer", targets: ["CofferCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            path: "Sources/CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .systemLibrary(
            name: "CArgon2",
            path: "Sources/CArgon2",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"]), .brew(["argon2"])]
        ),
        // HMAC-SHA-1/256/512 for TOTP (libsodium has no HMAC-SHA-1); see CofferOTP/HMAC.swift.
        .systemLibrary(
            name: "COpenSSLCrypto",
            path: "Sources/COpenSSLCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
        ),
        // prctl for ProcessHardening (Swift cannot call a variadic C function).
        .target(name: "CCofferSystem", path: "Sources/CCofferSystem"),
        .target(name: "CofferCrypto", dependencies: ["CSodium", "CArgon2", "CCofferSystem"]),
        .target(name: "CofferFormat", dependencies: ["CofferCrypto", "CSodium"]),
        .target(name: "CofferStore", dependencies: ["CofferCrypto", "CofferFormat", "CCofferSystem"]),
        .target(name: "CofferVault", dependencies: ["CofferCrypto", "CofferFormat", "CofferStore", "CSodium"]),
        .target(name: "CofferOTP", dependencies: ["CofferCrypto", "CofferFormat", "COpenSSLCrypto"]),
        // The word lists are Swift source (WordLists/), not resources: a copied binary has them.
        .target(name: "CofferGenerator", dependencies: ["CofferCrypto", "CSodium"]),
        .target(name: "CofferTransfer", dependencies: ["CofferCrypto", "CofferFormat", "CofferStore", "CofferVault", "CofferOTP", "CSodium"]),
        .target(name: "CofferAudit", dependencies: ["CofferCrypto", "CofferFormat", "CofferVault", "CofferGenerator"]),
        // OpenSSH private keys, SSH keys in a vault, the SSH agent protocol and its socket.
        .target(name: "CofferSSH", dependencies: ["CofferCrypto", "CofferFormat", "CofferVault", "CSodium", "CCofferSystem"]),
        .target(name: "Coffer", dependencies: ["CofferCrypto", "CofferFormat", "CofferStore", "CofferVault", "CofferOTP", "CofferGenerator", "CofferTransfer", "CofferAudit", "CofferSSH"]),
        // Signal-safe secret prompts, shared by the CLI and the examples.
        .target(name: "CofferTerminal", dependencies: ["Coffer"]),
        .executableTarget(
            name: "CofferCLI",
            dependencies: [
                "Coffer",
                "CofferTerminal",
                "CCofferSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/CofferCLI"
        ),
        // Examples/: one app per seed story, on the public API only (see Examples/README.md).
        .executableTarget(name: "CofferDemo", dependencies: ["Coffer"], path: "Examples/CofferDemo"),
        .target(name: "ExampleSupport", dependencies: ["Coffer", "CofferTerminal"], path: "Examples/ExampleSupport"),
        .executableTarget(name: "AccountsBook", dependencies: ["Coffer", "ExampleSupport"], path: "Examples/AccountsBook"),
        .executableTarget(name: "Notebooks", dependencies: ["Coffer", "ExampleSupport"], path: "Examples/Notebooks"),
        .executableTarget(name: "OfflineFavourites", dependencies: ["Coffer", "ExampleSupport"], path: "Examples/OfflineFavourites"),
        .executableTarget(name: "Transfers", dependencies: ["Coffer", "ExampleSupport"], path: "Examples/Transfers"),
        .executableTarget(name: "Secuure", dependencies: ["Coffer", "ExampleSupport"], path: "Examples/Secuure"),
        // Benchmarks/ (`make bench`): bulk vault builder, Argon2id floor, in-process harness.
        .executableTarget(
            name: "CofferBench",
            dependencies: ["Coffer", "CofferCrypto", "CofferFormat", "CofferVault", "CSodium", "CArgon2"],
            path: "Benchmarks/Sources/CofferBench"
        ),
        // A second process for multi-process tests; uses only the public API.
        .executableTarget(name: "CofferTestWriter", dependencies: ["Coffer"], path: "Tests/CofferTestWriter"),
        // Helpers the test targets share (seeded randomness, temporary folders, processes, hex,
        // test vaults, the store's fault injector, the vector files of Tests/Vectors).
        .target(
            name: "CofferTestSupport",
            dependencies: ["CofferCrypto", "CofferFormat", "CofferStore", "CofferVault", "CofferGenerator", "CofferTransfer", "CSodium"],
            path: "Tests/CofferTestSupport",
            swiftSettings: testSettings
        ),
        // One test target per layer (the Package header says where a test file goes). A target
        // depends on its layer and on what its files go through: the format vectors open through
        // the vault API, the fuzz entry points reach every parser, the error kinds come from every layer.
        .testTarget(
            name: "CofferCryptoTests",
            dependencies: ["CofferCrypto", "CofferFormat", "CofferOTP", "CofferGenerator", "CofferTransfer", "CofferSSH", "CofferTestSupport"],
            path: "Tests/CofferCryptoTests",
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "CofferFormatTests",
            dependencies: ["CofferCrypto", "CofferFormat", "CofferStore", "CofferVault", "CofferOTP", "CofferGenerator", "CofferTransfer", "CofferSSH", "CofferTestSupport"],
            path: "Tests/CofferFormatTests",
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "CofferStoreTests",
            dependencies: ["CofferCrypto", "CofferStore", "CofferVault", "CofferTestSupport"],
            path: "Tests/CofferStoreTests",
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "CofferVaultTests",
            dependencies: ["CofferFormat", "CofferVault", "CofferOTP", "CofferTransfer", "CofferTestSupport"],
            path: "Tests/CofferVaultTests",
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "CofferOTPTests",
            dependencies: ["CofferVault", "CofferOTP", "CofferTestSupport"],
            path: "Tests/CofferOTPTests",
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "CofferGeneratorTests",
            dependencies: ["CofferGenerator", "CSodium", "CofferTestSupport"],
            path: "Tests/CofferGeneratorTests",
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "CofferSSHTests",
            dependencies: ["CofferVault", "CofferSSH", "CSodium", "CofferTestSupport"],
            path: "Tests/CofferSSHTests",
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "CofferTransferTests",
            dependencies: ["CofferOTP", "CofferTransfer", "CofferTestSupport"],
            path: "Tests/CofferTransferTests",
            swiftSettings: testSettings
        ),
        // README, DocC and doc-comment snippets, compiled as written: against `import Coffer`.
        .testTarget(
            name: "CofferDocsTests",
            dependencies: ["Coffer", "CofferTestSupport"],
            path: "Tests/CofferDocsTests",
            swiftSettings: testSettings
        ),
        // Runs the built `coffer`; links CofferCLI only to read its exit-code table.
        .testTarget(
            name: "CofferCLITests",
            dependencies: ["Coffer", "CofferCLI", "CofferTestSupport"],
            path: "Tests/CofferCLITests",
            swiftSettings: testSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
