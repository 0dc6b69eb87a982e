#!/usr/bin/env bash
# Sharded controllers on one machine (in-memory API server, 3,000 objects, a sync that
# waits 10 ms, 4 workers a replica): objects reconciled per second and bytes one
# replica's cache holds for 1, 2 and 3 replicas, and how long a handover takes when a
# replica joins, in release mode.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo bench --locked --quiet -p crdgen-runtime --bench sharding
