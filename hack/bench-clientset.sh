#!/usr/bin/env bash
# Requests per second through the generated clientset against the in-memory API server
# (get, list of 100 and 1,000 objects, create), in release mode.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo bench --locked --quiet -p crdgen-consumer --bench clientset
