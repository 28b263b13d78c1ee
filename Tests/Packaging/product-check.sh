#!/usr/bin/env bash
# `make product-check` (part of `make test`): an app that depends on the core product alone.
#
# Creates a fresh SwiftPM package in a temporary folder that depends on this checkout by
# path and uses only the `CofferVault` product; its main.swift is README.md's first example
# ("Use Coffer in your package"), taken from the README as it is, plus a call to it. Builds
# it, runs it, and checks that its binary links no libcrypto and no FoundationXML and holds
# no word list. The same checks run first against the full `coffer` binary, which must fail
# them, so a check that can no longer see what it looks for fails too.
#
#   Tests/Packaging/product-check.sh [path/to/coffer]   (default: .build/debug/coffer)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
SWIFT=${SWIFT:-swift}
full=${1:-.build/debug/coffer}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What the core product must not carry: each check prints what it found and fails when found.
#   libcrypto, FoundationXML: a dynamic library the binary loads (ldd);
#   word lists: the generator's symbols (nm) or a word list's text (strings).
leaks() {
  local binary=$1 found=0
  if ldd "$binary" | grep -E 'libcrypto\.so|libFoundationXML\.so'; then found=1; fi
  if nm -C "$binary" 2>/dev/null | grep -E 'CofferGenerator|BundledWordList' | head -3 | grep .; then found=1; fi
  if strings -n 8 "$binary" | grep -E -m 3 '^(11111.abacus|66666.zoom|## size 10|# The 30,000 most common passwords)'; then found=1; fi
  return $((1 - found))
}

echo "product-check: the full coffer binary ($full) carries all of them (the checks can see)"
[ -x "$full" ] || { echo "product-check: $full is not built (swift build first)"; exit 1; }
leaks "$full" >/dev/null || { echo "product-check: the checks found nothing in $full; they are broken"; exit 1; }

# The package identity of a path dependency is its folder's name.
identity=$(basename "$root")
mkdir -p "$work/VaultOnlyApp/Sources/VaultOnlyApp"
cat > "$work/VaultOnlyApp/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "VaultOnlyApp",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "$root")],
    targets: [
        .executableTarget(name: "VaultOnlyApp", dependencies: [.product(name: "CofferVault", package: "$identity")]),
    ]
)
SWIFT
# The README's first Swift block after "## Use Coffer in your package" that defines demo(directory:).
awk '/^## Use Coffer in your package/ { section = 1 }
     section && /^```swift$/ { block = ""; inside = 1; next }
     section && inside && /^```$/ { if (block ~ /func demo\(directory:/) { printf "%s", block; exit } inside = 0; next }
     section && inside { block = block $0 "\n" }' README.md > "$work/VaultOnlyApp/Sources/VaultOnlyApp/main.swift"
grep -q 'func demo(directory:' "$work/VaultOnlyApp/Sources/VaultOnlyApp/main.swift" \
  || { echo "product-check: README.md has no Swift block with func demo(directory:) under 'Use Coffer in your package'"; exit 1; }
printf '\ntry demo(directory: CommandLine.arguments[1])\n' >> "$work/VaultOnlyApp/Sources/VaultOnlyApp/main.swift"

echo "product-check: building an app on the CofferVault product alone"

mkdir -p "$work/scratch"

start=$(date +%s)
"$SWIFT" build --package-path "$work/VaultOnlyApp" --scratch-path "$work/scratch" \
  --explicit-target-dependency-import-check error -q
echo "product-check: built in $(( $(date +%s) - start )) s"
app="$work/scratch/debug/VaultOnlyApp"
mkdir "$work/run"
output=$("$app" "$work/run")
echo "product-check: the README example printed: $output"
[ "$output" = "GitHub <redacted>" ] || { echo "product-check: expected 'GitHub <redacted>'"; exit 1; }

if leaks "$app"; then
  echo "product-check: FAILED: the CofferVault app carries the above (libcrypto, FoundationXML or word lists)"
  exit 1
fi
echo "product-check: the CofferVault app links $(ldd "$app" | awk '{print $1}' | grep -E 'sodium|argon2|Foundation|crypto' | sort | tr '\n' ' ')"
echo "product-check: no libcrypto, no FoundationXML, no word list ($(stat -c %s "$app") bytes, coffer: $(stat -c %s "$full"))"
