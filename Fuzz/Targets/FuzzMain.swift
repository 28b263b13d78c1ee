// The libFuzzer entry points. Fuzz/build.sh compiles this file with
// Tests/CofferFormatTests/FuzzEntryPoints.swift (and, for `merge`, MergeFuzzEntryPoints.swift
// with the test helpers it uses) once per target, defining COFFER_FUZZ_VAULT, COFFER_FUZZ_INPUTS
// or COFFER_FUZZ_MERGE; see those files for what each target runs.
import Foundation
#if COFFER_FUZZ_VAULT
private let targetName = "vault"
private func runTarget(_ bytes: [UInt8]) -> FuzzEntryPoints.Report { FuzzEntryPoints.vault(bytes) }
#elseif COFFER_FUZZ_MERGE
private let targetName = "merge"
private func runTarget(_ bytes: [UInt8]) -> FuzzEntryPoints.Report { FuzzEntryPoints.mergeTarget(bytes) }

/// libFuzzer's own byte mutator, for the merge fields the custom mutator changes byte by byte.
@_silgen_name("LLVMFuzzerMutate")
private func libFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

private func mutateBytes(_ bytes: inout [UInt8], _ maxSize: Int) {
    let count = bytes.count
    bytes += [UInt8](repeating: 0, count: max(0, maxSize - count))
    let size = bytes.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.map { libFuzzerMutate($0, count, buffer.count) } ?? 0
    }
    bytes.removeSubrange(min(size, bytes.count)...)
}

/// The merge target's structure-aware mutator (FuzzEntryPoints.mutateMerge): merge fields
/// changed in decoded replicas, sealed and MACed again with the fixed vault's key.
@_cdecl("LLVMFuzzerCustomMutator")
public func fuzzCustomMutator(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    guard let data else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let out = FuzzEntryPoints.mutateMerge(input, maxSize: maxSize, seed: seed, fixture: FuzzEntryPoints.mergeFixture, mutateBytes: mutateBytes)
    let count = min(out.count, maxSize)
    out.withUnsafeBufferPointer { buffer in
        if let base = buffer.baseAddress { data.update(from: base, count: count) }
    }
    return count
}

/// Records of one replica crossed into another (FuzzEntryPoints.crossMerge).
@_cdecl("LLVMFuzzerCustomCrossOver")
public func fuzzCustomCrossOver(_ data1: UnsafePointer<UInt8>?, _ size1: Int, _ data2: UnsafePointer<UInt8>?, _ size2: Int,
                                _ out: UnsafeMutablePointer<UInt8>?, _ maxOutSize: Int, _ seed: UInt32) -> Int {
    guard let out else { return 0 }
    let first = data1.map { Array(UnsafeBufferPointer(start: $0, count: size1)) } ?? []
    let second = data2.map { Array(UnsafeBufferPointer(start: $0, count: size2)) } ?? []
    let crossed = FuzzEntryPoints.crossMerge(first, second, maxSize: maxOutSize, seed: seed, fixture: FuzzEntryPoints.mergeFixture)
    let count = min(crossed.count, maxOutSize)
    crossed.withUnsafeBufferPointer { buffer in
        if let base = buffer.baseAddress { out.update(from: base, count: count) }
    }
    return count
}
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
        let chosen: [(String, [UInt8])]
        #if COFFER_FUZZ_MERGE
        chosen = try FuzzEntryPoints.mergeSeeds(vectors: vectors)
        #else
        let resources = URL(fileURLWithPath: variable("COFFER_FUZZ_RESOURCES") ?? "Sources/CofferGenerator/Resources")
        let seeds = try FuzzEntryPoints.seeds(vectors: vectors, resources: resources)
        chosen = targetName == "vault" ? seeds.vault : seeds.inputs
        #endif
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
