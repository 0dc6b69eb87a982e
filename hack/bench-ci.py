#!/usr/bin/env python3
"""The benches in a short mode, for CI: a few figures of the debug crdgen the tests built,
each the median of RUNS runs, beside its figure in hack/bench-baseline.json. A figure
more than twice its baseline fails the run (after one more try, so that a noisy spell
does not): a slip that size is a change to find, not noise.

    hack/bench-ci.py [--record | --release] [RUNS]

--record writes the figures as the new baseline (on the 2-core machine CI runs on);
--release prints the same figures of a release build (docs/src/performance.md's "A
process's start"), against no baseline.
The figures, in milliseconds of wall time:

- start: `crdgen --version`, the process alone;
- generate, one kind: the bundled example API (testdata/example) generated into an empty
  directory, then again with nothing changed (the stamp current), and verified with
  `--compat HEAD` after a bound is tightened (its finding placed in the Rust source);
- import: one small CRD, and the real projects' CRDs of testdata/import/real in one run
  (the round trip check on).

The release figures, beside kopium's and the file system's, are hack/bench-import.py's
and hack/bench-generate.sh's (docs/src/performance.md).
"""

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "hack" / "bench-baseline.json"
EXAMPLE = ROOT / "testdata" / "example"
REAL = ROOT / "testdata" / "import" / "real"
SLIP = 2.0


def run(argv, cwd, ok=(0,)):
    result = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if result.returncode not in ok:
        raise SystemExit(f"{' '.join(map(str, argv))} failed ({result.returncode}):\n"
                         f"{result.stderr.decode(errors='replace')}")


def median_ms(runs, prepare, argv_of, ok=(0,)):
    """The median wall time of `runs` runs: each after `prepare()` (untimed), which gives
    the directory to run in."""
    times = []
    for _ in range(runs):
        cwd = prepare()
        start = time.perf_counter()
        run(argv_of(cwd), cwd, ok)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def example_project(scratch):
    """A fresh copy of the bundled example's API and boilerplate, with nothing generated."""
    project = Path(tempfile.mkdtemp(dir=scratch))
    shutil.copytree(EXAMPLE / "pkg" / "apis", project / "pkg" / "apis")
    shutil.copytree(EXAMPLE / "hack", project / "hack")
    return project


def figures(crdgen, runs, scratch):
    generate = [crdgen, "generate-groups", "all", "pkg/client", "pkg/apis", "bcrds:v1alpha1",
                "--boilerplate", "hack/boilerplate.rs.txt"]
    out = {}
    out["start: crdgen --version"] = median_ms(runs, lambda: scratch, lambda _: [crdgen, "--version"])
    out["generate, one kind: first run"] = median_ms(
        runs, lambda: example_project(scratch), lambda _: generate)
    generated = example_project(scratch)
    run(generate, generated)
    out["generate, one kind: no changes"] = median_ms(runs, lambda: generated, lambda _: generate)
    # The bound tightened after a commit: the check finds it and places it in the source.
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    run(git + ["init", "-q"], generated)
    run(git + ["add", "-A"], generated)
    run(git + ["commit", "-qm", "api"], generated)
    types = generated / "pkg/apis/bcrds/v1alpha1/example_types.rs"
    types.write_text(types.read_text().replace("Minimum=1", "Minimum=2", 1))
    run(generate, generated)
    out["generate, one kind: --compat, one finding"] = median_ms(
        runs, lambda: generated, lambda _: generate + ["--verify-only", "--compat", "HEAD"], ok=(1,))
    small = REAL / "cert-manager" / "certificaterequests.cert-manager.io.yaml"
    projects = sorted(p for p in REAL.iterdir() if p.is_dir())
    out["import: one CRD"] = median_ms(
        runs, lambda: tempfile.mkdtemp(dir=scratch),
        lambda cwd: [crdgen, "import", small, "--output-base", cwd])
    out[f"import: {len(projects)} projects' CRDs, one run"] = median_ms(
        runs, lambda: tempfile.mkdtemp(dir=scratch),
        lambda cwd: [crdgen, "import", *projects, "--output-base", cwd])
    return out


def main():
    args = sys.argv[1:]
    record, release = "--record" in args, "--release" in args
    args = [a for a in args if a not in ("--record", "--release")]
    runs = int(args[0]) if args else 5
    if record and release:
        raise SystemExit("--record keeps the debug build's figures: drop --release")
    profile = ["--release"] if release else []
    subprocess.run(["cargo", "build", "--quiet", "--locked", *profile, "--bin", "crdgen"],
                   cwd=ROOT, check=True)
    crdgen = ROOT / "target" / ("release" if release else "debug") / "crdgen"
    baseline = {}
    if BASELINE.exists() and not release:
        baseline = json.loads(BASELINE.read_text())
    with tempfile.TemporaryDirectory() as scratch:
        measured = figures(crdgen, runs, scratch)
        slipped = [name for name, ms in measured.items()
                   if name in baseline and ms > SLIP * baseline[name]]
        if slipped and not record:
            # Once more, before calling a slip: the better of the two counts.
            again = figures(crdgen, runs, scratch)
            measured = {name: min(ms, again[name]) for name, ms in measured.items()}
    failed = False
    judged = "no baseline" if release else f"fails past {SLIP:g}x the baseline"
    build = "release" if release else "debug"
    print(f"bench ({build} build, median of {runs}; {judged}):")
    for name, ms in measured.items():
        base = baseline.get(name)
        if base is None:
            print(f"  {name:<44} {ms:8.1f} ms  (no baseline)")
            continue
        ratio = ms / base
        mark = "SLIPPED" if ratio > SLIP else ""
        failed |= ratio > SLIP
        print(f"  {name:<44} {ms:8.1f} ms  baseline {base:8.1f} ms  {ratio:4.2f}x {mark}")
    if record:
        BASELINE.write_text(json.dumps({k: round(v, 1) for k, v in measured.items()},
                                       indent=2) + "\n")
        print(f"bench: wrote {BASELINE.relative_to(ROOT)}")
    elif failed:
        raise SystemExit("bench: a figure slipped past twice its baseline (hack/bench-ci.py)")


if __name__ == "__main__":
    main()
