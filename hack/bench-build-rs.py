#!/usr/bin/env python3
"""What a build script that runs crdgen adds to a no-op `cargo build`, like for like.

    hack/bench-build-rs.py [RUNS]

Two crates of the same API (testdata/consumer's six groups) are built side by side in a
scratch workspace: one generates its client from build.rs (crdgen as a build
dependency), the other has the same generated code checked in and no build script. Each
is built once, then a no-op `cargo build` of each is timed RUNS times (default 9) in
turns, so that a noisy spell slows both alike; the medians and their difference are
printed. The first build compiles the dependencies into target/bench-build-rs (minutes,
once: later runs reuse it); the registry must already hold them (the main workspace's
build fetched them), as the builds run offline on a copy of its Cargo.lock.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSUMER = ROOT / "testdata" / "consumer"


# The bench's own target directory, kept between runs.
TARGET = ROOT / "target" / "bench-build-rs"


def cargo(args, cwd):
    result = subprocess.run(
        ["cargo", *args, "--offline", "--quiet"],
        cwd=cwd,
        env={**os.environ, "CARGO_TARGET_DIR": str(TARGET)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    if result.returncode != 0:
        raise SystemExit(f"cargo {' '.join(args)} failed:\n{result.stderr.decode(errors='replace')}")


def toml_value(value):
    """A TOML inline value of a parsed one (strings, booleans, lists, tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return str(value)


def table(name, entries):
    return f"[{name}]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in entries.items())


def absolute(deps, base):
    """`deps` with each path dependency's path made absolute (from `base`)."""
    out = {}
    for name, spec in deps.items():
        if isinstance(spec, dict) and "path" in spec:
            spec = {**spec, "path": str((base / spec["path"]).resolve())}
        out[name] = spec
    return out


def write_workspace(scratch):
    """The scratch workspace: `with-build-rs` (consumer's build.rs, sources and normal
    dependencies) and `checked-in` (the same without build.rs; its generated file is
    put in once the first crate has built)."""
    root = tomllib.loads((ROOT / "Cargo.toml").read_text())
    consumer = tomllib.loads((CONSUMER / "Cargo.toml").read_text())
    workspace = table("workspace", {"members": ["with-build-rs", "checked-in"], "resolver": "3"})
    workspace += "\n" + table("workspace.package", root["workspace"]["package"])
    workspace += "\n" + table("workspace.dependencies", root["workspace"]["dependencies"])
    (scratch / "Cargo.toml").write_text(workspace)
    shutil.copy(ROOT / "Cargo.lock", scratch / "Cargo.lock")
    dependencies = absolute(consumer["dependencies"], CONSUMER)
    for name, build_script in (("with-build-rs", True), ("checked-in", False)):
        crate = scratch / name
        shutil.copytree(CONSUMER / "src", crate / "src")
        manifest = table(
            "package",
            {"name": f"bench-{name}", "version": "0.0.0", "edition": "2024", "publish": False},
        )
        manifest += "\n" + table("dependencies", dependencies)
        manifest += "\n" + table("features", {"testing": ["crdgen-runtime/testing"]})
        if build_script:
            shutil.copy(CONSUMER / "build.rs", crate / "build.rs")
            build_deps = absolute(consumer["build-dependencies"], CONSUMER)
            manifest += "\n" + table("build-dependencies", build_deps)
        (crate / "Cargo.toml").write_text(manifest)


def check_in(scratch):
    """Puts the file with-build-rs's build script wrote into checked-in, included from
    its source tree instead of OUT_DIR."""
    built = sorted(
        (TARGET / "debug" / "build").glob("bench-with-build-rs-*/out/crdgen.rs"),
        key=lambda p: p.stat().st_mtime,
    )
    if not built:
        raise SystemExit("the build script wrote no crdgen.rs")
    crate = scratch / "checked-in" / "src"
    shutil.copy(built[-1], crate / "client.rs")
    lib = (crate / "lib.rs").read_text()
    included = 'include!(concat!(env!("OUT_DIR"), "/crdgen.rs"));'
    if included not in lib:
        raise SystemExit(f"testdata/consumer/src/lib.rs no longer has `{included}`")
    (crate / "lib.rs").write_text(lib.replace(included, 'include!("client.rs");'))


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    with tempfile.TemporaryDirectory(prefix="crdgen-bench-build-rs-") as scratch:
        scratch = Path(scratch)
        write_workspace(scratch)
        print("building both crates once (the dependencies too: minutes) ...", flush=True)
        cargo(["build", "-p", "bench-with-build-rs"], scratch)
        check_in(scratch)
        cargo(["build", "-p", "bench-checked-in"], scratch)
        times = {"with-build-rs": [], "checked-in": []}
        for _ in range(runs):
            for name, samples in times.items():
                start = time.perf_counter()
                cargo(["build", "-p", f"bench-{name}"], scratch)
                samples.append((time.perf_counter() - start) * 1e3)
        plain = statistics.median(times["checked-in"])
        scripted = statistics.median(times["with-build-rs"])
        print(f"no-op `cargo build`, median of {runs} each, taken in turns:")
        print(f"  generated code checked in, no build script  {plain:7.1f} ms")
        print(f"  build.rs running crdgen                     {scripted:7.1f} ms")
        print(f"  the build script adds                       {scripted - plain:7.1f} ms")


if __name__ == "__main__":
    main()
