#!/usr/bin/env bash
# Regenerates src/known/k8s.json, the schemas of the Kubernetes types crdgen knows,
# from k8s-openapi's schemars support. Run it when bumping k8s-openapi; commit the result.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CARGO_TARGET_DIR="$root/target/hack" cargo run --quiet --manifest-path "$root/hack/k8s-schemas/Cargo.toml" > "$root/src/known/k8s.json.tmp"
mv "$root/src/known/k8s.json.tmp" "$root/src/known/k8s.json"
