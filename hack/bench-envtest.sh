#!/usr/bin/env bash
# Prints envtest's start and stop times (release build, RUNS control planes one after
# another). Needs KUBEBUILDER_ASSETS; here: export KUBEBUILDER_ASSETS=$(../shared/envtest/assets.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo run --quiet --release --locked -p crdgen-runtime --features envtest --example envtest-start -- "${RUNS:-5}"
