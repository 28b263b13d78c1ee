import CofferCrypto
import CofferFormat
import CofferVault

/// The items an export writes, and their secrets: every item (a damaged record fails the
/// whole export), or when salvaging, every item that can be read, the damaged ones left
/// out and named (``Vault/exportReadableItems(format:)``).
final class ExportSource {
    let tx: VaultTransaction
    let salvaging: Bool
    /// The records left out (salvaging only), ascending by id.
    private(set) var damaged: [DamagedItem] = []

    init(_ tx: VaultTransaction, salvaging: Bool = false) {
        self.tx = tx
        self.salvaging = salvaging
    }

    func items() throws(CofferError) -> [Item] {
        guard salvaging else { return try tx.items() }
        let readable = try tx.readableItems()
        damaged = readable.damaged
        return readable.items
    }

    /// The item's secrets; nil when salvaging and its secret part does not open (it is named).
    func secrets(for item: Item) throws(CofferError) -> ItemSecrets? {
        do throws(CofferError) {
            return try tx.secrets(for: item.id)
        } catch where salvaging && [.tampered, .malformed, .truncated, .authenticationFailed].contains(error.kind) {
            damaged.append(DamagedItem(id: item.id))
            damaged.sort { $0.id < $1.id }
            return nil
        }
    }
}
