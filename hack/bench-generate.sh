#!/usr/bin/env bash
# Prints wall time and peak memory for generating a synthetic tree of 100 groups x 2
# versions x 5 kinds (about 20 fields each, nested types), in release mode.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# On tmpfs where there is one, so that the figures are the program's, not the disk's.
if [ -z "${TMPDIR:-}" ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
cargo bench --locked --quiet --bench generate
