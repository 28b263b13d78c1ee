#!/usr/bin/env bash
# Builds Coffer's libFuzzer targets into .build-fuzz/ (see Fuzz/README.md).
#
#   Fuzz/build.sh            # fuzz-vault and fuzz-inputs, with libFuzzer and AddressSanitizer
#
# SwiftPM cannot pass -sanitize=fuzzer without unsafeFlags, so this compiles with swiftc
# directly: the Coffer sources once, as one instrumented module built with -enable-testing
# (rebuilt only when a source is newer), then one small executable per target from
# Fuzz/Targets/FuzzMain.swift and Tests/CofferTests/ReliabilityFuzzEntryPoints.swift (the
# file the regression tests replay Fuzz/Regressions/ through). Needs only the Swift
# toolchain (its clang runtime has libclang_rt.fuzzer and .asan) and libsodium/libargon2.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFTC=${SWIFTC:-swiftc}
OUT=.build-fuzz
mkdir -p "$OUT"
COMMON=(-package-name coffer -parse-as-library -swift-version 6 -O -g -sanitize=fuzzer,address)
# Every system-library module of the package (CSodium, CArgon2, ...): its module map links the library.
for map in Sources/*/module.modulemap; do COMMON+=(-I "$(dirname "$map")"); done

mapfile -t SOURCES < <(find Sources/Coffer -name '*.swift' | LC_ALL=C sort)
newer=""
if [ -f "$OUT/Coffer.o" ]; then
  newer=$(find Sources/Coffer Sources/*/module.modulemap Sources/*/shim.h -newer "$OUT/Coffer.o" -type f | head -1)
fi
if [ ! -f "$OUT/Coffer.o" ] || [ -n "$newer" ]; then
  EXTRA=()
  # SwiftPM generates Bundle.module for targets with resources; provide it when the code uses it.
  if grep -rh --include='*.swift' -v '^[[:space:]]*//' Sources/Coffer | grep -q 'Bundle\.module'; then
    cat > "$OUT/resource_bundle_accessor.swift" <<'SWIFT'
import Foundation
extension Foundation.Bundle {
    static let module: Bundle = {
        let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return Bundle(path: folder.appendingPathComponent("Coffer_Coffer.resources").path) ?? Bundle.main
    }()
}
SWIFT
    EXTRA+=("$OUT/resource_bundle_accessor.swift")
  fi
  echo "fuzz build: Coffer module (${#SOURCES[@]} files, instrumented)"
  "$SWIFTC" -module-name Coffer "${COMMON[@]}" -enable-testing -wmo \
    -emit-module -emit-module-path "$OUT/Coffer.swiftmodule" -emit-object -o "$OUT/Coffer.o.tmp" \
    "${SOURCES[@]}" "${EXTRA[@]}"
  mv "$OUT/Coffer.o.tmp" "$OUT/Coffer.o"
fi

for target in vault inputs; do
  define=COFFER_FUZZ_$(echo "$target" | tr '[:lower:]' '[:upper:]')
  echo "fuzz build: fuzz-$target"
  "$SWIFTC" -module-name "CofferFuzz_$target" "${COMMON[@]}" -D "$define" -I "$OUT" \
    Fuzz/Targets/FuzzMain.swift Tests/CofferTests/ReliabilityFuzzEntryPoints.swift "$OUT/Coffer.o" \
    -use-ld=lld -o "$OUT/fuzz-$target"
done

# The strength estimator's dictionaries, where the resource lookup finds them (beside the program).
mkdir -p "$OUT/Coffer_Coffer.resources"
cp Sources/Coffer/Resources/*.txt "$OUT/Coffer_Coffer.resources/"
