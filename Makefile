# Coffer: the two commands a newcomer needs are `make demo` and `make test`.
# Both install the system libraries first when pkg-config cannot find them.

SWIFT ?= swift
# Every build refuses an import of a target that is not a declared dependency, so an upward
# reference between the library's layers (Package.swift) fails to compile, incremental or not.
BUILD_FLAGS := --explicit-target-dependency-import-check error
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
APT_PACKAGES := libsodium-dev libargon2-dev libssl-dev pkg-config
# Real peers for the tests: keepassxc-cli and pykeepass (imports), Xvfb with xclip and xsel
# (the clipboard), git (the merge driver, end to end), keyutils's keyctl (fresh session
# keyrings for the unlock-cache tests); `make test` only, never `make demo`.
TEST_APT_PACKAGES := keepassxc python3-pykeepass xvfb xclip xsel git keyutils
EXAMPLES := AccountsBook Notebooks OfflineFavourites Transfers Secuure

.PHONY: all deps test-deps build demo test clean

all: build

# Install libsodium/libargon2/libcrypto headers only when they are missing (Debian/Ubuntu).
deps:
	@if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libsodium libargon2 libcrypto; then \
	  echo "deps: libsodium $$(pkg-config --modversion libsodium), libargon2, libcrypto $$(pkg-config --modversion libcrypto) found"; \
	else \
	  echo "deps: installing $(APT_PACKAGES)"; \
	  $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y $(APT_PACKAGES); \
	fi

# The real peers above, when missing. Without apt-get (or if the install fails) those test
# suites are skipped with a message; nothing else needs them.
test-deps:
	@if command -v keepassxc-cli >/dev/null 2>&1 && /usr/bin/python3 -c 'import pykeepass' >/dev/null 2>&1 \
	    && command -v Xvfb >/dev/null 2>&1 && command -v xclip >/dev/null 2>&1 && command -v xsel >/dev/null 2>&1 \
	    && command -v git >/dev/null 2>&1 && command -v keyctl >/dev/null 2>&1; then \
	  echo "test-deps: keepassxc-cli $$(keepassxc-cli --version 2>/dev/null), pykeepass, Xvfb, xclip, xsel, git and keyctl found"; \
	elif command -v apt-get >/dev/null 2>&1; then \
	  echo "test-deps: installing $(TEST_APT_PACKAGES)"; \
	  $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(TEST_APT_PACKAGES) \
	    || echo "test-deps: could not install $(TEST_APT_PACKAGES); the real-peer import, clipboard, git and keyctl tests will be skipped"; \
	else \
	  echo "test-deps: no apt-get; the real-peer import, clipboard, git and keyctl tests will be skipped"; \
	fi

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

demo: deps
	$(SWIFT) run $(BUILD_FLAGS) CofferDemo

# The whole suite, then every example's scripted walk-through (each exits non-zero on a wrong step).
# The device state vaults remember (replica ids, rollback memory) goes to a fresh folder,
# never to the home folder of whoever runs the tests; and with keyctl, everything runs in a
# fresh session keyring, so the cached unlocks the tests make and lock never touch yours.
test: deps test-deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	@state=$$(mktemp -d); trap 'rm -rf "$$state"' EXIT; \
	  session=$$(command -v keyctl >/dev/null 2>&1 && echo "keyctl session -"); \
	  XDG_STATE_HOME=$$state $$session $(SWIFT) test --skip-build || exit 1; \
	  for example in $(EXAMPLES); do \
	    echo "== example $$example"; \
	    XDG_STATE_HOME=$$state $$session $(SWIFT) run --skip-build $$example || exit 1; \
	  done

clean:
	rm -rf .build

# Coffer against keepassxc-cli and the Argon2id floor; writes BENCHMARKS.md.
# A quick run: make bench ARGS="--sizes 1000,10000 --micro quick"
.PHONY: bench
bench: deps
	./Benchmarks/bench.sh $(ARGS)

# The replica simulation at length (Tests/CofferTests/ReplicaSimulationTests.swift; `make test`
# runs 1,000 schedules): SCHEDULES seeded schedules of devices editing one vault offline and
# syncing in random orders, each checked for convergence and lost edits. SEED=<n> replays one
# schedule and prints it. A quick run: make simulate SCHEDULES=5000
SCHEDULES ?= 20000
.PHONY: simulate
simulate: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	@state=$$(mktemp -d); trap 'rm -rf "$$state"' EXIT; \
	  XDG_STATE_HOME=$$state COFFER_SIMULATION_SCHEDULES=$(SCHEDULES) $(if $(SEED),COFFER_SIMULATION_SEED=$(SEED)) \
	  $(SWIFT) test --skip-build --filter ReplicaSimulationTests

# libFuzzer + AddressSanitizer on the vault decoder and the other parsers of outside input,
# SECONDS per target (both run at once), seeded from Tests/Vectors; see RELIABILITY.md.
# A crash leaves its input in .build-fuzz/artifacts/ and fails the target.
SECONDS ?= 60
.PHONY: fuzz
fuzz: deps
	./Fuzz/build.sh
	./Fuzz/run.sh $(SECONDS)
