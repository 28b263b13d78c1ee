// The `CofferSSH` product's module: SSH keys kept in a vault (`Vault.sshKeys()`,
// `Vault.addSSHKey(_:label:)`), OpenSSH private key files, and an SSH agent that signs with
// them while the vault is unlocked. It extends `Vault`, so it re-exports the core vault module.
@_exported import CofferVault
