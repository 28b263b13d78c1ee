// The `CofferOTP` product's module: TOTP codes and `otpauth://` URIs. It re-exports the
// layers its API is written in (`SecureBytes`, `CofferError`, `ItemSecrets`), so
// `import CofferOTP` beside `import CofferVault` is all an app needs.
@_exported import CofferCrypto
@_exported import CofferFormat
