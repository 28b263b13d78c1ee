// The `CofferTransfer` product's module: import and export (`Vault.importItems`,
// `Vault.exportItems`). It extends `Vault`, so it re-exports the core vault module.
@_exported import CofferVault
