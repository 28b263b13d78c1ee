# Coffer: the two commands a newcomer needs are `make demo` and `make test`.
# Both install the system libraries first when pkg-config cannot find them.

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
APT_PACKAGES := libsodium-dev libargon2-dev pkg-config
EXAMPLES := AccountsBook Notebooks OfflineFavourites Transfers Secuure

.PHONY: all deps build demo test clean

all: build

# Install libsodium/libargon2 headers only when they are missing (Debian/Ubuntu).
deps:
	@if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libsodium libargon2; then \
	  echo "deps: libsodium $$(pkg-config --modversion libsodium), libargon2 found"; \
	else \
	  echo "deps: installing $(APT_PACKAGES)"; \
	  $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y $(APT_PACKAGES); \
	fi

build: deps
	$(SWIFT) build

demo: deps
	$(SWIFT) run CofferDemo

# The whole suite, then every example's scripted walk-through (each exits non-zero on a wrong step).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@for example in $(EXAMPLES); do \
	  echo "== example $$example"; \
	  $(SWIFT) run --skip-build $$example || exit 1; \
	done

clean:
	rm -rf .build
