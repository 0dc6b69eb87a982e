#!/usr/bin/env bash
# Fails with a diff when generated code is not what the API types generate.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/update-codegen.sh" --verify-only
