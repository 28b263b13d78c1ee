# Coffer: the two commands a newcomer needs are `make demo` and `make test`.
# Both install the system libraries first when pkg-config cannot find them.

SWIFT ?= swift
# Every build refuses an import of a target that is not a declared dependency, so an upward
# reference between the library's layers (Package.swift) fails to compile, incremental or not.
BUILD_FLAGS := --explicit-target-dependency-import-check error
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
APT_PACKAGES := libsodium-dev libargon2-dev libssl-dev pkg-config
# Real peers for the tests: keepassxc-cli and pykeepass (imports), Xvfb with xclip and xsel
# (the clipboard), git (the merge driver and credential helper, end to end), keyutils's keyctl
# (fresh session keyrings for the unlock-cache tests), openssh-client's ssh-add and ssh-keygen
# (the SSH agent, end to end; SSH keys for sharing), age and age-keygen (vaults shared with age
# recipients, and age's own files checked against the stanza code); `make test` only, never
# `make demo`.
TEST_APT_PACKAGES := keepassxc python3-pykeepass xvfb xclip xsel git keyutils openssh-client age
EXAMPLES := AccountsBook Notebooks OfflineFavourites Transfers Secuure

.PHONY: all deps test-deps build demo test clean docs man man-check install uninstall product-check install-check

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
	    && command -v git >/dev/null 2>&1 && command -v keyctl >/dev/null 2>&1 \
	    && command -v ssh-add >/dev/null 2>&1 && command -v ssh-keygen >/dev/null 2>&1 \
	    && command -v age >/dev/null 2>&1 && command -v age-keygen >/dev/null 2>&1; then \
	  echo "test-deps: keepassxc-cli $$(keepassxc-cli --version 2>/dev/null), pykeepass, Xvfb, xclip, xsel, git, keyctl, ssh-add, ssh-keygen, age and age-keygen found"; \
	elif command -v apt-get >/dev/null 2>&1; then \
	  echo "test-deps: installing $(TEST_APT_PACKAGES)"; \
	  $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(TEST_APT_PACKAGES) \
	    || echo "test-deps: could not install $(TEST_APT_PACKAGES); the real-peer import, clipboard, git, keyctl, ssh and age tests will be skipped"; \
	else \
	  echo "test-deps: no apt-get; the real-peer import, clipboard, git, keyctl, ssh and age tests will be skipped"; \
	fi

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

demo: deps
	$(SWIFT) run $(BUILD_FLAGS) CofferDemo

# The whole suite, then every example's scripted walk-through (each exits non-zero on a wrong step),
# then an app on the core product alone (product-check), the installed binary copied alone
# (install-check), and the man page against the command model (man-check).
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
	$(MAKE) --no-print-directory product-check
	$(MAKE) --no-print-directory install-check
	$(MAKE) --no-print-directory man-check

# A fresh package in a temporary folder that depends on the `CofferVault` product alone builds
# and runs README's first example, and its binary links no libcrypto, no FoundationXML and holds
# no word list (Tests/Packaging/product-check.sh; it builds the core layers once, about 30 s).
product-check: deps
	$(SWIFT) build $(BUILD_FLAGS) --product coffer
	SWIFT="$(SWIFT)" ./Tests/Packaging/product-check.sh "$$($(SWIFT) build --show-bin-path)/coffer"

# `make install DESTDIR=<temporary folder>`, then the installed coffer copied alone into an empty
# folder: password123 scores below 3 and passphrase works (Tests/Packaging/install-check.sh).
# The debug build `make test` has made; INSTALL_CHECK_CONFIGURATION=release checks the release one.
INSTALL_CHECK_CONFIGURATION ?= debug
install-check: deps
	SWIFT="$(SWIFT)" MAKE="$(MAKE)" CONFIGURATION=$(INSTALL_CHECK_CONFIGURATION) ./Tests/Packaging/install-check.sh

clean:
	rm -rf .build

# Coffer against keepassxc-cli and the Argon2id floor; writes BENCHMARKS.md.
# A quick run: make bench ARGS="--sizes 1000,10000 --micro quick"
.PHONY: bench
bench: deps
	./Benchmarks/bench.sh $(ARGS)

# The replica simulation at length (Tests/CofferVaultTests/VaultReplicaSimulationTests.swift; `make test`
# runs 1,000 schedules): SCHEDULES seeded schedules of devices editing one vault offline and
# syncing in random orders, each checked for convergence and lost edits. SEED=<n> replays one
# schedule and prints it. A quick run: make simulate SCHEDULES=5000
SCHEDULES ?= 20000
.PHONY: simulate
simulate: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	@state=$$(mktemp -d); trap 'rm -rf "$$state"' EXIT; \
	  XDG_STATE_HOME=$$state COFFER_SIMULATION_SCHEDULES=$(SCHEDULES) $(if $(SEED),COFFER_SIMULATION_SEED=$(SEED)) \
	  $(SWIFT) test --skip-build --filter VaultReplicaSimulationTests

# libFuzzer + AddressSanitizer on the vault decoder, the other parsers of outside input and
# the merge of a hostile replica, SECONDS per target (all three at once), seeded from
# Tests/Vectors and Fuzz/Regressions, the corpus kept in .build-fuzz/corpus/; see RELIABILITY.md.
# A crash leaves its input in .build-fuzz/artifacts/ and fails the target.
SECONDS ?= 60
.PHONY: fuzz
fuzz: deps
	./Fuzz/build.sh
	./Fuzz/run.sh $(SECONDS)

# Documentation (README, "Documentation").
# The DocC catalogue Sources/Coffer/Coffer.docc, built with the toolchain's docc into
# .build/Coffer.doccarchive (`docc preview` serves it). The symbol graph is extracted by hand,
# not through swift-docc-plugin: the plugin works here but cannot pass
# -experimental-allowed-reexported-modules, without which the Coffer module (re-exports only)
# has no symbols and every link to Vault, SecureBytes… is dangling.
DOCC ?= $(shell command -v docc 2>/dev/null || echo "$$(dirname "$$(command -v swift)")/docc")
SYMBOLGRAPH_EXTRACT ?= swift-symbolgraph-extract
REEXPORTED := CofferCrypto,CofferFormat,CofferStore,CofferVault,CofferOTP,CofferGenerator,CofferTransfer,CofferAudit,CofferSSH
C_MODULE_MAPS := -Xcc -fmodule-map-file=Sources/CCofferSystem/include/module.modulemap -Xcc -I -Xcc Sources/CCofferSystem/include \
  -Xcc -fmodule-map-file=Sources/COpenSSLCrypto/module.modulemap -Xcc -fmodule-map-file=Sources/CArgon2/module.modulemap \
  -Xcc -fmodule-map-file=Sources/CSodium/module.modulemap
docs: deps
	@[ -x "$(DOCC)" ] || { echo "docs: no docc in this toolchain; open Package.swift in Xcode and choose Product > Build Documentation"; exit 1; }
	$(SWIFT) build $(BUILD_FLAGS) --target Coffer
	@bin=$$($(SWIFT) build --show-bin-path); rm -rf .build/symbol-graphs; mkdir -p .build/symbol-graphs; \
	  $(SYMBOLGRAPH_EXTRACT) -module-name Coffer -target "$$($(SWIFT) -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -1)" \
	    -I "$$bin/Modules" $(C_MODULE_MAPS) -minimum-access-level public -skip-inherited-docs \
	    -experimental-allowed-reexported-modules=$(REEXPORTED) -output-dir .build/symbol-graphs
	"$(DOCC)" convert Sources/Coffer/Coffer.docc --additional-symbol-graph-dir .build/symbol-graphs \
	  --fallback-display-name Coffer --fallback-bundle-identifier org.coffer.Coffer --output-path .build/Coffer.doccarchive
	@echo "docs: .build/Coffer.doccarchive (view: $(DOCC) preview Sources/Coffer/Coffer.docc --additional-symbol-graph-dir .build/symbol-graphs)"

# The man page coffer.1 (at the root: `man ./coffer.1`), generated from the command model by swift-argument-parser's
# generate-manual plugin; its date is the newest release's in CHANGELOG.md, so regenerating
# an unchanged tool gives the same page. CLIManualTests fails when the page is stale.
MAN_DATE := $(shell sed -n 's/^\#\# \[[0-9][0-9.]*\] - \([0-9-]*\)$$/\1/p' CHANGELOG.md | head -1)
man: deps
	$(SWIFT) package plugin generate-manual --configuration debug --date $(MAN_DATE)
	cp .build/plugins/GenerateManual/outputs/CofferCLI/coffer.1 coffer.1
	@echo "man: coffer.1 (read it with: man ./coffer.1)"

# Regenerates the page where `make man` would and fails if it differs from the committed one.
man-check: deps
	$(SWIFT) package plugin generate-manual --configuration debug --date $(MAN_DATE)
	@cmp -s .build/plugins/GenerateManual/outputs/CofferCLI/coffer.1 coffer.1 \
	  || { echo "man-check: coffer.1 is stale: run 'make man' and commit it"; exit 1; }
	@echo "man-check: coffer.1 matches the command model"

# The release binary, git's credential helper git-credential-coffer (runs `coffer git-credential`),
# the man page and shell completions. PREFIX=/usr/local by default;
# DESTDIR stages the tree for a package. CONFIGURATION=debug installs a debug build.
PREFIX ?= /usr/local
CONFIGURATION ?= release
BINDIR = $(DESTDIR)$(PREFIX)/bin
MAN1DIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
# A release coffer carries the Swift runtime and Foundation (--static-swift-stdlib): it runs
# where no Swift toolchain is installed, and each command starts about 5 ms sooner (11.6 -> 6.6 ms
# for `coffer --version`) than when it loads some twenty shared libraries. A debug build,
# which `make test` installs into a temporary folder, links as `swift build` does.
INSTALL_LINK_FLAGS = $(if $(filter release,$(CONFIGURATION)),--static-swift-stdlib,)
install: deps
	$(SWIFT) build -c $(CONFIGURATION) $(BUILD_FLAGS) $(INSTALL_LINK_FLAGS) --product coffer
	install -d "$(BINDIR)" "$(MAN1DIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)"
	install -m 0755 "$$($(SWIFT) build -c $(CONFIGURATION) --show-bin-path)/coffer" "$(BINDIR)/coffer"
	install -m 0644 coffer.1 "$(MAN1DIR)/coffer.1"
	printf '#!/bin/sh\n# git runs this for credential.helper "coffer VAULT" (coffer git-credential --help)\nexec "%s/coffer" git-credential "$$@"\n' \
	  "$(PREFIX)/bin" > "$(BINDIR)/git-credential-coffer" && chmod 0755 "$(BINDIR)/git-credential-coffer"
	"$(BINDIR)/coffer" --generate-completion-script bash > "$(BASHDIR)/coffer"
	"$(BINDIR)/coffer" --generate-completion-script zsh > "$(ZSHDIR)/_coffer"
	"$(BINDIR)/coffer" --generate-completion-script fish > "$(FISHDIR)/coffer.fish"
	@echo "install: $(BINDIR)/coffer, $(BINDIR)/git-credential-coffer, $(MAN1DIR)/coffer.1, bash, zsh and fish completions"

uninstall:
	rm -f "$(BINDIR)/coffer" "$(BINDIR)/git-credential-coffer" "$(MAN1DIR)/coffer.1" "$(BASHDIR)/coffer" "$(ZSHDIR)/_coffer" "$(FISHDIR)/coffer.fish"
