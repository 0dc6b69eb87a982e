#!/usr/bin/env bash
# Regenerates src/known/validations.json, the kubebuilder validation markers of the
# Kubernetes Go types crdgen knows (metav1.Condition's patterns, lengths and enum), from
# their Go source at a pinned release, as controller-gen reads them. Run it when bumping
# k8s-openapi (pin the matching release below); commit the result.
#   hack/update-known-validations.sh                # fetches the files from GitHub
#   GO_SRC=~/go/pkg/mod hack/update-known-validations.sh   # reads a Go module cache
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
apimachinery=v0.34.0   # k8s-openapi 0.29's latest Kubernetes: 1.34
files=(
  "k8s.io/apimachinery/pkg/apis/meta/v1=apimachinery@$apimachinery/pkg/apis/meta/v1/types.go"
)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=()
for entry in "${files[@]}"; do
  package=${entry%%=*}
  module_file=${entry#*=}                     # apimachinery@v0.34.0/pkg/...
  local_file="$work/$(echo "$module_file" | tr '/@' '__')"
  if [ -n "${GO_SRC:-}" ]; then
    cp "$GO_SRC/k8s.io/$module_file" "$local_file"
  else
    repo=${module_file%%@*}
    rest=${module_file#*@}                    # v0.34.0/pkg/...
    curl -fsSL "https://raw.githubusercontent.com/kubernetes/$repo/${rest%%/*}/${rest#*/}" -o "$local_file"
  fi
  args+=("$package=$local_file")
done
python3 "$root/hack/known-validations.py" "k8s.io/apimachinery $apimachinery" "${args[@]}"
