// The `CofferGenerator` product's module: passwords, passphrases and the strength estimate,
// with their word lists compiled in. It re-exports CofferCrypto, whose `SecureBytes` and
// `CofferError` its API is written in, so it works without the vault.
@_exported import CofferCrypto
