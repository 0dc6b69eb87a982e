#!/usr/bin/env bash
# Regenerates the bundled example's client code (testdata/example/pkg/client), the way
# a Go operator's hack/update-codegen.sh runs generate-groups.sh, and the marker
# reference (docs/src/reference/markers.md) from crdgen's marker table.
# Extra arguments are passed on; hack/verify-codegen.sh passes --verify-only, which
# checks both instead of writing them.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cargo run --quiet --locked --bin crdgen -- generate-groups all \
  pkg/client pkg/apis bcrds:v1alpha1 \
  --output-base testdata/example \
  --boilerplate hack/boilerplate.rs.txt \
  "$@"
reference=$(mktemp)
trap 'rm -f "$reference"' EXIT
cargo run --quiet --locked --bin crdgen -- markers >"$reference"
if [[ " $* " == *" --verify-only "* ]]; then
  if ! diff -u docs/src/reference/markers.md "$reference"; then
    echo "docs/src/reference/markers.md is not what \`crdgen markers\` prints; run hack/update-codegen.sh" >&2
    exit 1
  fi
else
  mkdir -p docs/src/reference
  cp "$reference" docs/src/reference/markers.md
fi
