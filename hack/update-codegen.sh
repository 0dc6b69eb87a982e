#!/usr/bin/env bash
# Regenerates the bundled example's client code (testdata/example/pkg/client), the way
# a Go operator's hack/update-codegen.sh runs generate-groups.sh.
# Extra arguments are passed on; hack/verify-codegen.sh passes --verify-only.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
cargo run --quiet --locked --bin crdgen -- generate-groups all \
  pkg/client pkg/apis bcrds:v1alpha1 \
  --output-base testdata/example \
  --boilerplate hack/boilerplate.rs.txt \
  "$@"
