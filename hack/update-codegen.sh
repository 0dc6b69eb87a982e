#!/usr/bin/env bash
# Regenerates the bundled example's client code (testdata/example/pkg/client), the way
# a Go operator's hack/update-codegen.sh runs generate-groups.sh; the book's tutorial
# operator's (docs/tutorial, with its own hack/update-codegen.sh); and the marker
# reference (docs/src/reference/markers.md) from crdgen's marker table.
# Extra arguments are passed on; hack/verify-codegen.sh passes --verify-only, which
# checks all three instead of writing them.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cargo build --quiet --locked --bin crdgen
crdgen="${CARGO_TARGET_DIR:-$root/target}/debug/crdgen"
"$crdgen" generate-groups all \
  pkg/client pkg/apis bcrds:v1alpha1 \
  --output-base testdata/example \
  --boilerplate hack/boilerplate.rs.txt \
  "$@"
CRDGEN="$crdgen" docs/tutorial/hack/update-codegen.sh "$@"
reference=$(mktemp)
trap 'rm -f "$reference"' EXIT
"$crdgen" markers >"$reference"
if [[ " $* " == *" --verify-only "* ]]; then
  if ! diff -u docs/src/reference/markers.md "$reference"; then
    echo "docs/src/reference/markers.md is not what \`crdgen markers\` prints; run hack/update-codegen.sh" >&2
    exit 1
  fi
else
  mkdir -p docs/src/reference
  cp "$reference" docs/src/reference/markers.md
fi
