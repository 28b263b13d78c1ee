#!/usr/bin/env bash
# Builds Coffer's libFuzzer targets into .build-fuzz/ (see Fuzz/README.md).
#
#   Fuzz/build.sh            # fuzz-vault, fuzz-inputs and fuzz-merge, with libFuzzer and AddressSanitizer
#   FUZZ_SANITIZERS=none Fuzz/build.sh   # the same targets without AddressSanitizer, into .build-fuzz-fast/
#                                        # (several times faster: for long runs; CI keeps AddressSanitizer)
#
# SwiftPM cannot pass -sanitize=fuzzer without unsafeFlags, so this compiles with swiftc
# directly: each layer of the library once, as an instrumented module built with
# -enable-testing (rebuilt only when a source is newer), then one small executable per target from
# Fuzz/Targets/FuzzMain.swift and Tests/CofferFormatTests/FuzzEntryPoints.swift (the
# file the regression tests replay Fuzz/Regressions/ through). Needs only the Swift
# toolchain (its clang runtime has libclang_rt.fuzzer and .asan) and libsodium/libargon2.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFTC=${SWIFTC:-swiftc}
# AddressSanitizer by default; FUZZ_SANITIZERS=none builds with libFuzzer's coverage only (Swift's
# own checks, bounds and overflow, still trap), into a directory of its own.
case "${FUZZ_SANITIZERS:-address}" in
  address) OUT=${FUZZ_OUT:-.build-fuzz}; SWIFT_SANITIZE=fuzzer,address; C_SANITIZE=fuzzer-no-link,address ;;
  none) OUT=${FUZZ_OUT:-.build-fuzz-fast}; SWIFT_SANITIZE=fuzzer; C_SANITIZE=fuzzer-no-link ;;
  *) echo "fuzz build: FUZZ_SANITIZERS is address or none" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
COMMON=(-package-name coffer -parse-as-library -swift-version 6 -O -g -sanitize="$SWIFT_SANITIZE")
# Every system-library module of the package (CSodium, CArgon2, ...): its module map links the library.
for map in Sources/*/module.modulemap Sources/*/include/module.modulemap; do COMMON+=(-I "$(dirname "$map")"); done

# The library's layers, lowest first (Package.swift's targets), each one instrumented module
# built with -enable-testing, rebuilt with every layer above it when one of its sources changes.
LAYERS=(CofferCrypto CofferFormat CofferStore CofferVault CofferOTP CofferGenerator CofferTransfer CofferAudit CofferSSH Coffer)
OBJECTS=()
rebuild=""
# The package's own C code (CCofferSystem: prctl), instrumented like the rest.
for source in Sources/CCoffer*/*.c; do
  object="$OUT/$(basename "${source%.c}").o"
  "${CLANG:-clang}" -c -O1 -g -fsanitize="$C_SANITIZE" -I "$(dirname "$source")/include" "$source" -o "$object"
  OBJECTS+=("$object")
done
for layer in "${LAYERS[@]}"; do
  mapfile -t SOURCES < <(find "Sources/$layer" -name '*.swift' | LC_ALL=C sort)
  if [ -z "$rebuild" ] && { [ ! -f "$OUT/$layer.o" ] || [ -n "$(find "Sources/$layer" Sources/*/module.modulemap Sources/*/shim.h -newer "$OUT/$layer.o" -type f | head -1)" ]; }; then
    rebuild=yes
  fi
  if [ -n "$rebuild" ]; then
    echo "fuzz build: $layer module (${#SOURCES[@]} files, instrumented)"
    "$SWIFTC" -module-name "$layer" "${COMMON[@]}" -I "$OUT" -enable-testing -wmo \
      -emit-module -emit-module-path "$OUT/$layer.swiftmodule" -emit-object -o "$OUT/$layer.o.tmp" \
      "${SOURCES[@]}"
    mv "$OUT/$layer.o.tmp" "$OUT/$layer.o"
  fi
  OBJECTS+=("$OUT/$layer.o")
done

# The merge target also needs its own entry points and the test helpers they use (a merged
# vault's items as the merge vectors list them), compiled into its module.
MERGE_SOURCES=(Tests/CofferFormatTests/MergeFuzzEntryPoints.swift Tests/CofferFormatTests/MergeFastFuzzEntryPoints.swift
               Tests/CofferTestSupport/MergedVault.swift
               Tests/CofferTestSupport/VectorEntry.swift Tests/CofferTestSupport/VaultTestSupport.swift Tests/CofferTestSupport/Hex.swift)
for target in vault inputs merge; do
  define=COFFER_FUZZ_$(echo "$target" | tr '[:lower:]' '[:upper:]')
  extra=()
  [ "$target" = merge ] && extra=("${MERGE_SOURCES[@]}")
  echo "fuzz build: fuzz-$target"
  "$SWIFTC" -module-name "CofferFuzz_$target" "${COMMON[@]}" -D "$define" -I "$OUT" \
    Fuzz/Targets/FuzzMain.swift Tests/CofferFormatTests/FuzzEntryPoints.swift "${extra[@]}" "${OBJECTS[@]}" \
    -use-ld=lld -o "$OUT/fuzz-$target"
done
