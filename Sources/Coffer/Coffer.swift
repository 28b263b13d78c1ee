// The product module. `import Coffer` gives an app the whole public API; each layer is a
// target of its own (see Package.swift), and an app may import one alone.
@_exported import CofferCrypto
@_exported import CofferFormat
@_exported import CofferStore
@_exported import CofferVault
@_exported import CofferOTP
@_exported import CofferGenerator
@_exported import CofferTransfer
@_exported import CofferAudit
