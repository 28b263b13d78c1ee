#!/usr/bin/env bash
# `make bench [ARGS="--sizes 1000,10000"]`: installs what the benchmark needs (Debian
# packages; `make deps` installs the libraries Coffer builds with) when missing, builds
# in release mode, then runs Benchmarks/bench.py.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" = "0" ] || SUDO=sudo
missing=()
command -v keepassxc-cli >/dev/null 2>&1 || missing+=(keepassxc)
/usr/bin/python3 -c "import pykeepass" >/dev/null 2>&1 || missing+=(python3-pykeepass)
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench: installing ${missing[*]}"
  $SUDO apt-get update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

SWIFT=${SWIFT:-swift}
# Built as `make install` builds coffer: the Swift runtime and Foundation linked in
# (--static-swift-stdlib), which starts each process about 5 ms sooner than loading them.
# The floor's helper is built the same way, so process start weighs the same on both sides.
for product in coffer CofferBench; do
  "$SWIFT" build -c release --scratch-path .build-bench --static-swift-stdlib --product "$product"
done
exec /usr/bin/python3 Benchmarks/bench.py "$@"
