#!/usr/bin/env bash
# Prints wall time and peak memory for generating a synthetic tree of 100 groups x 2
# versions x 5 kinds (about 20 fields each, nested types), in release mode.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo bench --locked --quiet --bench generate
