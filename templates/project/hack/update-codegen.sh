#!/usr/bin/env bash
# Regenerates src/client, config/crd/bases and the API reference (docs/api: a Markdown
# page per group version and index.html, with the samples of config/samples checked)
# from the API types under src/apis, and config/rbac/role.yaml from the
# +kubebuilder:rbac markers under src.
# Extra arguments go to crdgen (hack/verify-codegen.sh passes --verify-only).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
crdgen=${CRDGEN:-crdgen}
if ! command -v "$crdgen" >/dev/null 2>&1; then
  echo "hack/update-codegen.sh: \`$crdgen\` not found: put crdgen on PATH (cargo install crdgen --version {{crdgen_version}}) or set CRDGEN to its binary" >&2
  exit 1
fi
groups=""
for group in src/apis/*/; do
  versions=$(find "$group" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | paste -sd, -)
  [ -n "$versions" ] && groups="$groups $(basename "$group"):$versions"
done
# The Kubernetes version the CRD schemas of Kubernetes' own types follow: the one
# Cargo.toml's k8s-openapi feature names (v1_33 is 1.33; `latest` is crdgen's default).
kube_version=$(sed -n 's/^k8s-openapi .*"v1_\([0-9]*\)".*/1.\1/p' Cargo.toml)
# The manifests carry kubebuilder's plain names; config/default/kustomization.yaml
# gives them the project's namespace and name prefix.
"$crdgen" generate-groups all src/client src/apis "${groups# }" \
  ${kube_version:+--kube-version "$kube_version"} \
  --boilerplate hack/boilerplate.rs.txt --role-name {{role}} --docs-dir docs/api \
  --webhook-service {{config_namespace}}/{{webhook_service}} \
  --inject-ca-from {{config_namespace}}/{{serving_cert}} "$@"
