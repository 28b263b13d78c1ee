// The `CofferAudit` product's module: the password health report (`Vault.audit`). It
// extends `Vault`, so it re-exports the core vault module.
@_exported import CofferVault
