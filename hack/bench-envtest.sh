#!/usr/bin/env bash
# Prints envtest's start and stop times (RUNS control planes one after another). A debug
# build: the time is kube-apiserver's, not the client's. Needs KUBEBUILDER_ASSETS; here:
#   export KUBEBUILDER_ASSETS=$(../shared/envtest/assets.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo run --quiet --locked -p crdgen-runtime --features envtest --example envtest-start -- "${RUNS:-5}"
