// `make demo`: a short tour of Coffer, run on a fresh machine.
import Coffer

print("Coffer demo")
let password = try SecureBytes(copying: "correct horse battery staple")
print("A password in guarded memory prints as: \(password)")
print("(the vault demo grows here as the vault API lands)")
