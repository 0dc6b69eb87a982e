#!/usr/bin/env bash
# Builds the Go tools crdgen is compared with (hack/go-tools/go.mod's `tool` lines:
# controller-gen, client-gen, lister-gen, informer-gen, deepcopy-gen,
# applyconfiguration-gen) from the Go module proxy, and prints the directory holding them
# (its last line of output). Cached by the content of go.mod and go.sum outside target/
# ($CRDGEN_GO_TOOLS_CACHE, default ~/.cache/crdgen/go-tools): a second call prints the
# directory at once.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/go-tools"
command -v go >/dev/null 2>&1 || { echo "go-tools: no Go toolchain on this machine" >&2; exit 1; }
cache=${CRDGEN_GO_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/crdgen/go-tools}
out=$cache/$(cat go.mod go.sum | sha256sum | cut -c1-16)
tools=$(sed -n '/^tool (/,/^)/{s/^\t\(.*\)$/\1/p}' go.mod)
built() { for t in $tools; do [ -x "$out/$(basename "$t")" ] || return 1; done; }
if built; then
  echo "$out"
  exit 0
fi
mkdir -p "$out"
# shellcheck disable=SC2086 # one argument per tool
go build -trimpath -ldflags "-s -w" -o "$out/" $tools
"$out/controller-gen" --version >&2
echo "$out"
