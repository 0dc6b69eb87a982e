#!/usr/bin/env bash
# Work-queue throughput (add → get → done) with 1, 2 and 8 workers over 10,000 keys.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo bench --locked --quiet -p crdgen-runtime --bench workqueue
