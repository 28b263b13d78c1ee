// swift-tools-version:6.0
import PackageDescription

// Layers (one folder each, dependencies point one way):
//   CSodium / CArgon2 / COpenSSLCrypto (system libraries; libcrypto only for TOTP's HMAC)
//     -> Sources/Coffer/Crypto  (secure memory, AEAD, KDF, hashing)
//     -> Sources/Coffer/Format  (bytes in, bytes out; no I/O)
//     -> Sources/Coffer/Store   (files, locks, atomic save)
//     -> Sources/Coffer/Vault   (the public vault API)
//     -> Generator / Strength, the `coffer` CLI, Examples/
let package = Package(
    name: "Coffer",
    platforms: [.macOS(.v13)],
    products: [
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
        // HMAC-SHA-1/256/512 for TOTP (libsodium has no HMAC-SHA-1); see Sources/Coffer/OTP.
        .systemLibrary(
            name: "COpenSSLCrypto",
            path: "Sources/COpenSSLCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
        ),
        .target(
            name: "Coffer",
            dependencies: ["CSodium", "CArgon2", "COpenSSLCrypto"],
            path: "Sources/Coffer",
            resources: [.copy("Resources/eff_large_wordlist.txt"), .copy("Resources/common_passwords.txt"), .copy("Resources/english_words.txt")]
        ),
        .executableTarget(
            name: "CofferCLI",
            dependencies: [
                "Coffer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/CofferCLI"
        ),
        .executableTarget(name: "CofferDemo", dependencies: ["Coffer"], path: "Sources/CofferDemo"),
        // A second process for multi-process tests; uses only the public API.
        .executableTarget(name: "CofferTestWriter", dependencies: ["Coffer"], path: "Sources/CofferTestWriter"),
        // Examples/: one app per seed story, on the public API only (see Examples/README.md).
        .target(name: "ExampleSupport", dependencies: ["Coffer"], path: "Examples/ExampleSupport"),
        .executableTarget(name: "AccountsBook", dependencies: ["Coffer", "ExampleSupport"], path: "Examples/AccountsBook"),
        .executableTarget(name: "Notebooks", dependencies: ["Coffer", "ExampleSupport"], path: "Examples/Notebooks"),
        .executableTarget(name: "OfflineFavourites", dependencies: ["Coffer", "ExampleSupport"], path: "Examples/OfflineFavourites"),
        .executableTarget(name: "Transfers", dependencies: ["Coffer", "ExampleSupport"], path: "Examples/Transfers"),
        .executableTarget(name: "Secuure", dependencies: ["Coffer", "ExampleSupport"], path: "Examples/Secuure"),
        // Benchmarks/ (`make bench`): bulk vault builder, Argon2id floor, in-process harness.
        .executableTarget(name: "CofferBench", dependencies: ["Coffer", "CSodium", "CArgon2"], path: "Benchmarks/Sources/CofferBench"),
        .testTarget(name: "CofferTests", dependencies: ["Coffer"], path: "Tests/CofferTests"),
        .testTarget(name: "CofferCLITests", dependencies: ["Coffer"], path: "Tests/CofferCLITests"),
    ],
    swiftLanguageModes: [.v6]
)
