#!/usr/bin/env bash
# A validating webhook under load on loopback (TLS, keep-alive connections, as the
# apiserver calls it): requests/s and p50/p99 latency at 1, 4, 16 and 64 connections.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo bench --locked --quiet -p crdgen-runtime --features envtest,webhook --bench webhook
