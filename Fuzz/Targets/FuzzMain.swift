// The libFuzzer entry points. Fuzz/build.sh compiles this file with
// Tests/CofferFormatTests/FuzzEntryPoints.swift once per target, defining
// COFFER_FUZZ_VAULT or COFFER_FUZZ_INPUTS; see that file for what each target runs.
import Foundation
#if COFFER_FUZZ_VAULT
private let targetName = "vault"
private func runTarget(_ bytes: [UInt8]) -> FuzzEntryPoints.Report { FuzzEntryPoints.vault(bytes) }
#else
private let targetName = "inputs"
private func runTarget(_ bytes: [UInt8]) -> FuzzEntryPoints.Report { FuzzEntryPoints.inputs(bytes) }
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let report = runTarget(bytes)
    if let violation = report.violations.first {
        // An abort makes libFuzzer save the input as a crash artifact.
        fatalError("coffer fuzz \(targetName): invariant broken: \(violation)")
    }
    return 0
}

/// With COFFER_FUZZ_WRITE_SEEDS=DIR (and COFFER_FUZZ_VECTORS, COFFER_FUZZ_RESOURCES), writes
/// this target's seed corpus derived from Tests/Vectors into DIR and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>?,
                           _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    guard let output = variable("COFFER_FUZZ_WRITE_SEEDS") else { return 0 }
    do {
        let vectors = URL(fileURLWithPath: variable("COFFER_FUZZ_VECTORS") ?? "Tests/Vectors")
        let resources = URL(fileURLWithPath: variable("COFFER_FUZZ_RESOURCES") ?? "Sources/CofferGenerator/Resources")
        let seeds = try FuzzEntryPoints.seeds(vectors: vectors, resources: resources)
        let chosen = targetName == "vault" ? seeds.vault : seeds.inputs
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        for (name, bytes) in chosen {
            try Data(bytes).write(to: URL(fileURLWithPath: output).appendingPathComponent(name))
        }
        print("coffer fuzz \(targetName): \(chosen.count) seeds from \(vectors.path) in \(output)")
        fflush(nil)
        _exit(0)   // not exit(): LeakSanitizer would report what is still referenced at that point
    } catch {
        print("coffer fuzz \(targetName): cannot write seeds: \(error)")
        fflush(nil)
        _exit(1)
    }
}
