#!/usr/bin/env bash
# Fails with a diff when generated code is not what the API types generate. With
# COMPAT_BASE set to a git revision (CI sets the pull request's base), the CRDs are also
# checked against that revision's, and a change that would break users fails; a break
# that is meant is accepted in crdgen-compat.yaml (`crdgen explain E0033` and on).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/update-codegen.sh" --verify-only ${COMPAT_BASE:+--compat "$COMPAT_BASE"}
