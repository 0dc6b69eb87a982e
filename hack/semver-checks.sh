#!/usr/bin/env bash
# The public API of the three crates, checked by cargo-semver-checks against the last
# release (the newest v* tag) or, before the first, the revision hack/semver-baseline
# names: a change that needs a bigger version bump than Cargo.toml's fails, naming it.
# crdgen-runtime is checked with every feature (its modules behind them are API too);
# crdgen with its default ones (`fuzzing` is internal).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
baseline=$(git describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null ||
  sed -n '/^[0-9a-f]\{40\}$/p' hack/semver-baseline)
echo "semver: the public API against $baseline"
# Libraries leave k8s-openapi's Kubernetes version to the binary; rustdoc needs one.
export K8S_OPENAPI_ENABLED_VERSION=1.37
cargo semver-checks check-release --baseline-rev "$baseline" --package crdgen-runtime --all-features
cargo semver-checks check-release --baseline-rev "$baseline" --package crdgen-apimachinery --package crdgen
