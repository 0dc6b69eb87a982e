#!/usr/bin/env bash
# Memory per cached object (with and without the managedFields transform, beside
# kube-runtime's reflector store, and metadata-only), a slow handler's backlog, and lister
# get / namespace-list times, in release mode.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo bench --locked --quiet -p crdgen-runtime --bench cache
