#!/usr/bin/env bash
# CEL rules: rules evaluated per second by crd::Validator on the crds case's Ruled CRD,
# and an in-memory create with and without the CRD's rules, in release mode.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo bench --locked --quiet -p crdgen-runtime --bench cel
