#!/usr/bin/env bash
# The three crates as crates.io would take them: packaged and each built from its own
# .crate (cargo package verifies, the others standing in for the registry), their sizes
# printed; then crdgen installed from its .crate alone into a temporary root, and run
# as a user runs it: `crdgen init`, then `generate-groups` through the project's own
# hack/update-codegen.sh. A template or data file missing from the package fails here.
#
# Nothing is published, and the crates are not on the registry yet: the install finds
# crdgen-apimachinery and crdgen-runtime in their unpacked .crate files (a [patch]).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

crates=(crdgen-apimachinery crdgen-runtime crdgen)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
# cargo unpacks each verified crate into its registry cache by name and version, and
# reuses what an earlier run of this script unpacked there: stale sources of a version
# not yet released. Nothing of ours is published, so every copy there is such a one.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/crdgen-*-"$version"
# And what it built of them, found by the registry sources their dependency files name.
for dep in target/debug/deps/crdgen*-*.d; do
  grep -q 'registry/src/.*/crdgen-' "$dep" 2>/dev/null || continue
  stem=$(basename "$dep" .d)
  name=${stem%-*}
  rm -rf target/debug/deps/"$stem".* target/debug/deps/lib"$stem".* \
    target/debug/.fingerprint/"${name//_/-}-${stem##*-}"
done
# The work tree as it is (--allow-dirty: CI's clone is clean; a contributor's need not be).
# cargo names each test, bench and example the package leaves out: expected, not news.
# crdgen-runtime is a library, which leaves k8s-openapi's Kubernetes version to the
# binary; k8s-openapi reads it from this variable when built alone (as docs.rs builds).
K8S_OPENAPI_ENABLED_VERSION=1.37 cargo package --locked --allow-dirty "${crates[@]/#/--package=}" 2>&1 | grep -v '^warning: ignoring \(test\|benchmark\|example\)'
for crate in "${crates[@]}"; do
  file=target/package/$crate-$version.crate
  echo "package: $crate $version: $(tar -tzf "$file" | wc -l) files, $(($(stat -c %s "$file") / 1024)) KiB"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/.cargo"
for crate in "${crates[@]}"; do
  tar -xzf "target/package/$crate-$version.crate" -C "$work"
  # crdgen itself is installed from its directory, and no crate depends on it.
  [ "$crate" = crdgen ] && continue
  printf '[patch.crates-io.%s]\npath = "%s"\n' "$crate" "$work/$crate-$version" >>"$work/.cargo/config.toml"
done

# From $work, whose .cargo/config.toml patches the registry (for the install, and for the
# cargo that crdgen asks which k8s-openapi a project builds). A debug build in the
# workspace's target directory: the dependencies the tests built are reused.
root=$PWD
(cd "$work" && CARGO_TARGET_DIR=$root/target cargo install --quiet --debug \
  --path "crdgen-$version" --root "$work/root")
crdgen=$work/root/bin/crdgen
"$crdgen" --version

cd "$work"
"$crdgen" init smoke --group smoke.example.com --version v1alpha1 --kind Gadget
CRDGEN=$crdgen smoke/hack/update-codegen.sh
test -s smoke/config/crd/bases/smoke.example.com_gadgets.yaml
grep -q "crdgen-runtime = { version = \"$version\"" smoke/Cargo.toml
CRDGEN=$crdgen smoke/hack/verify-codegen.sh
"$crdgen" explain E0001 | head -n 1

# The image's builder stage from the project directory alone, with crdgen-runtime from
# the (patched) registry: what its Dockerfile COPYs, built as its RUN lines build it. In
# debug, in the target directory the scaffold tests build projects in: the release
# profile changes nothing about what the build can reach. (No image registry is
# reachable here for the base images, so docker itself does not run.)
(cd smoke && cargo generate-lockfile --quiet) # a project commits its Cargo.lock
mkdir context
export CARGO_TARGET_DIR=$root/target/tmp/scaffolded
# The builder stage's instructions in order, continuation lines joined.
awk '/^FROM /{n++} n==1' smoke/Dockerfile | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
  while read -r instruction arguments; do
    case $instruction in
      COPY)
        read -ra paths <<<"$arguments"
        for copied in "${paths[@]:0:${#paths[@]}-1}"; do
          cp -r "smoke/$copied" "context/${paths[-1]}"
        done
        ;;
      RUN) (cd context && bash -euo pipefail -c "${arguments// --release/}") ;;
    esac
  done
echo "package: the scaffold's image builds from its directory alone ($(ls context | paste -sd' '))"
echo "package: crdgen $version installs from its .crate and scaffolds, generates and verifies"
