#!/usr/bin/env bash
# `make install-check` (part of `make test`): the `coffer` that `make install` puts in place,
# copied alone into an empty folder and run from there with a bare environment, still has
# its word lists. (Until they were compiled in, such a copy lost the resource bundle: it
# rated password123 4/4 "very unguessable" and `passphrase` exited 74.) A release build must
# also load neither the Swift runtime nor Foundation (it carries them: --static-swift-stdlib).
#
#   Tests/Packaging/install-check.sh   CONFIGURATION=debug (default; `make test` has built it)
#                                      or release (what `make install` builds by default)
set -euo pipefail
cd "$(dirname "$0")/../.."
MAKE=${MAKE:-make}
CONFIGURATION=${CONFIGURATION:-debug}
stage=$(mktemp -d)
empty=$(mktemp -d)
trap 'rm -rf "$stage" "$empty"' EXIT

"$MAKE" --no-print-directory install DESTDIR="$stage" PREFIX=/usr/local CONFIGURATION="$CONFIGURATION" >/dev/null
# git's credential helper (`credential.helper 'coffer VAULT'`) runs the installed coffer.
helper="$stage/usr/local/bin/git-credential-coffer"
[ -x "$helper" ] && sh -n "$helper" && grep -qx 'exec "/usr/local/bin/coffer" git-credential "$@"' "$helper" \
  || { echo "install-check: FAILED: git-credential-coffer is missing or does not run coffer git-credential"; exit 1; }
# A release coffer carries the Swift runtime and Foundation (the Makefile's INSTALL_LINK_FLAGS):
# it loads none of the toolchain's shared libraries.
if [ "$CONFIGURATION" = release ] && command -v ldd >/dev/null 2>&1; then
  if ldd "$stage/usr/local/bin/coffer" | grep -E 'libswiftCore\.so|libFoundation[A-Za-z]*\.so'; then
    echo "install-check: FAILED: the release coffer loads the Swift runtime or Foundation at run time (above)"; exit 1
  fi
fi
cp "$stage/usr/local/bin/coffer" "$empty/coffer"
cd "$empty"
[ "$(ls -A)" = "coffer" ] || { echo "install-check: the folder holds more than coffer"; exit 1; }
# A bare environment: nothing points the program at the checkout or a bundle.
bare=(env -i PATH=/usr/bin:/bin HOME="$empty" XDG_STATE_HOME="$empty/state")

json=$(printf 'password123\n' | "${bare[@]}" ./coffer estimate --json)
score=$(printf '%s' "$json" | sed -n 's/^{"score":\([0-9]\),.*/\1/p')
[ -n "$score" ] || { echo "install-check: estimate --json printed no score: $json"; exit 1; }
[ "$score" -lt 3 ] || { echo "install-check: FAILED: the installed coffer rates password123 $score/4: $json"; exit 1; }

# Spaces between words: four EFF words have a hyphen of their own (t-shirt), so a
# passphrase joined by "-" does not split back into its words.
phrase=$("${bare[@]}" ./coffer passphrase --separator " ") \
  || { echo "install-check: FAILED: the installed coffer's passphrase exited $?"; exit 1; }
words=$(printf '%s' "$phrase" | tr ' ' '\n' | grep -c -E '^[a-z]+(-[a-z]+)?$' || true)
[ "$words" = 6 ] || { echo "install-check: FAILED: passphrase printed '$phrase', not 6 words"; exit 1; }

echo "install-check: make install ($CONFIGURATION), git-credential-coffer, the binary copied alone: password123 scores $score/4, passphrase gives 6 words"
