#!/usr/bin/env bash
# Fails, printing a diff, when the bundled example's generated code is not what crdgen
# generates now: the CI drift check Go operator projects run.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/update-codegen.sh" --verify-only
