// A second process for Coffer's multi-process tests (not installed; public API only).
//
//   CofferTestWriter add VAULT PREFIX COUNT        adds COUNT items PREFIX-0 … PREFIX-(COUNT-1), one save each
//   CofferTestWriter set-field VAULT SERVICE ACCOUNT FIELD VALUE
//                                                   sets a non-secret custom field on one item
//   CofferTestWriter hold-open VAULT SECONDS        opens, waits, then adds "late" (for conflict tests)
// The vault password is the first line of stdin. KDF parameters come from the vault.
// Exit codes: 0 ok, 3 conflict, 4 other Coffer error, 64 usage.
import Coffer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fail(_ message: String, code: Int32) -> Never {
    let line = "CofferTestWriter: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(code)
}

let args = CommandLine.arguments
guard args.count >= 3, let password = readLine(strippingNewline: true) else { fail("usage", code: 64) }
let options = VaultOptions(lockTimeout: .seconds(60))

do {
    let vault = try Vault.open(at: args[2], password: try SecureBytes(copying: password), options: options)
    switch args[1] {
    case "add":
        guard args.count == 5, let count = Int(args[4]) else { fail("usage: add VAULT PREFIX COUNT", code: 64) }
        for i in 0..<count {
            try vault.add(.genericPassword(service: "\(args[3])-\(i)", account: "writer"),
                          secrets: ItemSecrets(password: try SecureBytes(copying: "secret-\(args[3])-\(i)")))
        }
    case "set-field":
        guard args.count == 7 else { fail("usage: set-field VAULT SERVICE ACCOUNT FIELD VALUE", code: 64) }
        guard let item = try vault.firstItem(matching: ItemQuery(service: args[3], account: args[4])) else {
            fail("no item", code: 4)
        }
        try vault.update(item.id) { attributes, _ in
            attributes.fields.removeAll { $0.name == args[5] }
            attributes.fields.append(CustomField(name: args[5], value: args[6]))
        }
    default:
        fail("unknown command \(args[1])", code: 64)
    }
} catch CofferError.conflict {
    exit(3)
} catch {
    fail("\(error)", code: 4)
}
