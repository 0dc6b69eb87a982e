#!/usr/bin/env bash
# Regenerates src/known/types.jsonl (and the import's index of it, src/import/known.jsonl): what controller-gen reads from the Go source of every
# type k8s-openapi has (fields, JSON tags, docs, +listType/+default/+optional/... markers),
# for each Kubernetes version k8s-openapi supports. Run it when bumping k8s-openapi;
# commit the result. It reads local clones (bare or not) of the four Kubernetes API
# repositories, at tag v0.NN.0 for each version 1.NN:
#
#   K8S_SRC=~/src hack/update-known-types.sh
#
# where $K8S_SRC holds api, apimachinery, apiextensions-apiserver and kube-aggregator
# (github.com/kubernetes/<name>), or name each with K8S_API, K8S_APIMACHINERY,
# K8S_APIEXTENSIONS_APISERVER, K8S_KUBE_AGGREGATOR. A version k8s-openapi was cut for
# before its tag exists is read at the ref K8S_REF_1_NN names (e.g. K8S_REF_1_37=master).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=${K8S_SRC:-}
clone() { # the clone of kubernetes/$1, from its variable or $K8S_SRC
  local var=$2
  local path=${!var:-${src:+$src/$1}}
  [ -n "$path" ] || { echo "set K8S_SRC or $var to a clone of github.com/kubernetes/$1" >&2; exit 2; }
  echo "$1=$path"
}
k8s_openapi=$(cd "$root" && cargo metadata --format-version 1 --locked 2>/dev/null \
  | python3 -c 'import json,sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"]=="k8s-openapi"))')
refs=()
for var in $(compgen -v K8S_REF_1_ || true); do
  refs+=(--ref "1.${var#K8S_REF_1_}=${!var}")
done
python3 "$root/hack/known-types.py" "${refs[@]}" "$root/src/known/types.jsonl" "$(dirname "$k8s_openapi")" \
  "$(clone api K8S_API)" "$(clone apimachinery K8S_APIMACHINERY)" \
  "$(clone apiextensions-apiserver K8S_APIEXTENSIONS_APISERVER)" "$(clone kube-aggregator K8S_KUBE_AGGREGATOR)"
# The import's index of the types it recognises, from their schemas in the new facts.
(cd "$root" && CRDGEN_BLESS=1 cargo test --locked --quiet -p crdgen --lib \
  import::known::tests::the_index_is_what_the_schemas_of_the_types_give)
