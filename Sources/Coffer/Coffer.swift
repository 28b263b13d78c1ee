// The umbrella product's module. `import Coffer` gives an app the whole public API. An app
// that needs less depends on the feature products instead (Package.swift): `CofferVault`
// (the core: Crypto, Format, Store, Vault), `CofferOTP`, `CofferGenerator`, `CofferTransfer`,
// `CofferAudit`, `CofferSSH`; each re-exports the layers its API is written in.
@_exported import CofferCrypto
@_exported import CofferFormat
@_exported import CofferStore
@_exported import CofferVault
@_exported import CofferOTP
@_exported import CofferGenerator
@_exported import CofferTransfer
@_exported import CofferAudit
@_exported import CofferSSH
