// The core product's module. `import CofferVault` gives an app the whole public vault API
// (vaults, items, key slots, secure memory, errors): the layers below it are re-exported,
// so an app that depends on the `CofferVault` product alone names no other module.
@_exported import CofferCrypto
@_exported import CofferFormat
@_exported import CofferStore
