#!/usr/bin/env bash
# Runs every real-cluster suite on each Kubernetes release given, by one command:
#
#   hack/test-versions.sh 1.34 1.35 1.36 1.37
#
# Each release's control plane comes from hack/envtest-assets.sh (built from its Go
# modules the first time, cached after). The suites are the test targets that reach a
# real cluster (cluster::connect, envtest, the consumer's e2e support), each run with
# CRDGEN_E2E_REQUIRED set, so that a suite which would skip fails instead. Prints, per
# release, the suites that ran and the tests that passed and failed; exits non-zero when
# any failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ $# -gt 0 ] || { echo "usage: $0 VERSION..." >&2; exit 2; }

# The test targets that reach a real cluster, in every package's tests: run together
# with --workspace, so that each builds with the features the workspace's tests give it.
pattern='cluster::connect|e2e::|real_cluster|envtest::'
targets=()
for file in $(grep -l -E "$pattern" tests/*.rs runtime/tests/*.rs testdata/consumer/tests/*.rs docs/tutorial/tests/*.rs | sort); do
  targets+=(--test "$(basename "$file" .rs)")
done

summary=()
status=0
for version in "$@"; do
  assets=$(hack/envtest-assets.sh "$version") || { summary+=("$version: no control plane (see above)"); status=1; continue; }
  log=$(mktemp)
  KUBEBUILDER_ASSETS=$assets CRDGEN_E2E_REQUIRED=1 cargo test --workspace --locked --no-fail-fast "${targets[@]}" 2>&1 | tee "$log" \
    || status=1
  sum() { grep -oE "test result: [a-zA-Z]+\. [0-9]+ passed; [0-9]+ failed" "$log" | awk -v f="$1" '{ s += $f } END { print s + 0 }'; }
  release=$("$assets/kube-apiserver" --version | awk '{print $2}')
  summary+=("$(grep -c 'real-cluster suite ran against' "$log") real-cluster suites ran against kube-apiserver $release, $(grep -c 'skipped: no CRDGEN_E2E_KUBECONFIG' "$log") skipped; tests: $(sum 4) passed, $(sum 6) failed")
  rm -f "$log"
done
printf '%s\n' "${summary[@]}"
exit $status
