#!/usr/bin/env bash
# Builds a real Kubernetes control plane from its Go modules, as setup-envtest lays one
# out, and prints the directory to use as KUBEBUILDER_ASSETS (its last line of output):
#
#   export KUBEBUILDER_ASSETS=$(hack/envtest-assets.sh)          # 1.37.2, the newest crdgen targets
#   export KUBEBUILDER_ASSETS=$(hack/envtest-assets.sh 1.34)     # a minor: its newest patch served
#
# kube-apiserver comes from the k8s.io/kubernetes module's cmd/kube-apiserver, stamped with
# its version (`kube-apiserver --version` prints it), and etcd from go.etcd.io/etcd/server/v3
# at the release that Kubernetes version's go.mod names. k8s.io/kubernetes cannot be
# `go install`ed (its go.mod points the staging modules at its own staging/ directory, which
# does not apply to a dependency), so each is built inside a Go module of ours, written here,
# that requires it and replaces every staging module with the same release's v0.x tag.
#
# Everything is cached by version outside target/: the modules (GOMODCACHE), the build cache
# (GOCACHE) and the binaries ($CRDGEN_ENVTEST_CACHE, default ~/.cache/crdgen/envtest); a
# second call prints the directory in well under a second. The Go toolchain is the machine's;
# GOFLAGS=-mod=mod lets the module's go.sum be written on the first build.
set -euo pipefail

want=${1:-1.37.2}
want=${want#v}
cache=${CRDGEN_ENVTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/crdgen/envtest}
proxy=${GOPROXY:-https://proxy.golang.org}
proxy=${proxy%%,*}

say() { echo "envtest-assets: $*" >&2; }

if ! command -v go >/dev/null 2>&1; then
  say "no Go toolchain on this machine: the real-cluster suites will say they are skipped"
  exit 1
fi

# A minor (1.34) is its newest patch release the proxy serves.
version=$want
if [[ $want =~ ^[0-9]+\.[0-9]+$ ]]; then
  version=$(curl -fsS "$proxy/k8s.io/kubernetes/@v/list" | sed -n "s/^v\($want\.[0-9]*\)$/\1/p" | sort -V | tail -n 1)
  [ -n "$version" ] || { say "the Go module proxy serves no k8s.io/kubernetes $want.x"; exit 1; }
fi
[[ $version =~ ^1\.([0-9]+)\.([0-9]+)$ ]] || { say "not a Kubernetes release: $want (1.MINOR or 1.MINOR.PATCH)"; exit 1; }
minor=${BASH_REMATCH[1]}
staging=v0.$minor.${BASH_REMATCH[2]}

out=$cache/v$version
if [ -x "$out/kube-apiserver" ] && [ -x "$out/etcd" ]; then
  echo "$out"
  exit 0
fi

src=$cache/modules/v$version
mkdir -p "$src/kube-apiserver" "$src/etcd" "$out"
kubernetes_mod=$src/kubernetes.mod
curl -fsS "$proxy/k8s.io/kubernetes/@v/v$version.mod" -o "$kubernetes_mod" \
  || { say "the Go module proxy does not serve k8s.io/kubernetes v$version"; exit 1; }

# kube-apiserver: every module Kubernetes replaces with its staging/ directory, at the
# release's own tag.
{
  echo "module crdgen.invalid/envtest/kube-apiserver"
  echo
  echo "go $(sed -n 's/^go \([0-9.]*\)$/\1/p' "$kubernetes_mod")"
  echo
  echo "require k8s.io/kubernetes v$version"
  echo
  echo "replace ("
  sed -n 's#^\t\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*#\t\1 => \1 '"$staging"'#p' "$kubernetes_mod"
  echo ")"
} > "$src/kube-apiserver/go.mod"
# etcd: the server module of the release Kubernetes' go.mod names.
etcd=$(sed -n 's#^\tgo\.etcd\.io/etcd/server/v3 \(v[0-9.]*\).*#\1#p' "$kubernetes_mod")
[ -n "$etcd" ] || etcd=$(sed -n 's#^\tgo\.etcd\.io/etcd/client/v3 \(v[0-9.]*\).*#\1#p' "$kubernetes_mod")
{
  echo "module crdgen.invalid/envtest/etcd"
  echo
  echo "go 1.24"
  echo
  echo "require go.etcd.io/etcd/server/v3 $etcd"
} > "$src/etcd/go.mod"

export GOFLAGS="${GOFLAGS:-} -mod=mod"
ldflags="-s -w"
for var in "gitVersion=v$version" "gitMajor=1" "gitMinor=$minor" "gitTreeState=clean"; do
  ldflags="$ldflags -X k8s.io/component-base/version.$var"
done
say "building kube-apiserver v$version (staging modules $staging) and etcd $etcd; the first build takes minutes"
(cd "$src/kube-apiserver" && go build -trimpath -ldflags "$ldflags" -o "$out/kube-apiserver.new" k8s.io/kubernetes/cmd/kube-apiserver)
(cd "$src/etcd" && go build -trimpath -ldflags "-s -w" -o "$out/etcd.new" go.etcd.io/etcd/server/v3)
mv "$out/kube-apiserver.new" "$out/kube-apiserver"
mv "$out/etcd.new" "$out/etcd"
if command -v kubectl >/dev/null 2>&1; then ln -sf "$(command -v kubectl)" "$out/kubectl"; fi
"$out/kube-apiserver" --version >&2
echo "$out"
