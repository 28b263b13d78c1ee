// coffer-bench: the helper process of `make bench` (see BENCHMARKS.md, "How to run").
//
//   CofferBench create ENTRIES.tsv VAULT --password P --memory-kib M --iterations T --lanes L
//   CofferBench kdf --memory-kib M --iterations T --lanes L --implementation libsodium|libargon2
//   CofferBench micro [--quick] [--json PATH]
//   CofferBench merge VAULT --password P [--percent 1] [--runs 5]
//   CofferBench work list|passwd VAULT --password P [--new-password Q] [--memory-kib M --iterations T --lanes L]
//   CofferBench physical VAULT --password P [--runs 5]
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "create": try CreateVault.run(Options(arguments.dropFirst()))
    case "kdf": try KDFFloor.run(Options(arguments.dropFirst()))
    case "micro": try Micro.run(Options(arguments.dropFirst()))
    case "merge": try MergeReplicas.run(Options(arguments.dropFirst()))
    case "work": try FormatWork.run(Options(arguments.dropFirst()))
    case "physical": try PhysicalWork.run(Options(arguments.dropFirst()))
    default:
        FileHandle.standardError.write(Data("usage: CofferBench create|kdf|micro|merge|work|physical … (see BENCHMARKS.md)\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("CofferBench: \(error)\n".utf8))
    exit(1)
}
