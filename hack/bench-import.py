#!/usr/bin/env python3
"""crdgen import and kopium on the same CRD files, side by side: wall time and peak
memory of each, over every CRD of DIR (one CRD a file, as kopium reads them).

    hack/bench-import.py DIR [RUNS]

DIR is, say, every config/crd/bases/*.yaml of a Cluster API checkout (25 kinds in five
groups, two versions each, 2.6 MB). crdgen is timed twice: one run over the whole
directory (what a user runs; each run also generates the package back into CRDs and
compares them), and one process a file, as kopium is run; then a process's start
(`--version`) and one process on the smallest and on the largest file alone. kopium is
taken from PATH (`cargo install --locked kopium`); without it only crdgen is timed.
Each figure is the median of RUNS runs (default 5), peak memory the largest seen.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(argv, cwd, stdout):
    """Wall seconds and peak RSS (MiB) of one process: the wall of a run of its own, the
    peak of a run under GNU time. (A child's rusage would not do: its peak counts the
    Python process it was forked from, 15 MiB, before it ran the program.)"""

    def run(argv, stdout):
        result = subprocess.run(argv, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE)
        if result.returncode != 0:
            err = result.stderr.decode(errors="replace")
            raise SystemExit(f"{' '.join(map(str, argv))} failed ({result.returncode}):\n{err}")

    start = time.perf_counter()
    run(argv, stdout)
    wall = time.perf_counter() - start
    if not os.access(GNU_TIME, os.X_OK):
        return wall, float("nan")
    with tempfile.NamedTemporaryFile("r") as peak:
        run([GNU_TIME, "-f", "%M", "-o", peak.name, *argv], subprocess.DEVNULL)
        return wall, int(peak.read().split()[-1]) / 1024


# GNU time (Debian's `time` package), for peak memory; without it only time is shown.
GNU_TIME = "/usr/bin/time"


def runs(n, one):
    """Median wall and the largest peak over n calls of one() -> (wall, peak)."""
    results = [one() for _ in range(n)]
    return statistics.median(w for w, _ in results), max(p for _, p in results)


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    crds = sorted(Path(sys.argv[1]).resolve().glob("*.yaml"))
    n = int(sys.argv[2]) if len(sys.argv) == 3 else 5
    if not crds:
        raise SystemExit(f"no .yaml files in {sys.argv[1]}")
    subprocess.run(
        ["cargo", "build", "--release", "--locked", "--quiet", "--bin", "crdgen"],
        cwd=ROOT,
        check=True,
    )
    crdgen = ROOT / "target/release/crdgen"
    kopium = shutil.which("kopium")
    size = sum(f.stat().st_size for f in crds) / 1e6
    print(f"{len(crds)} CRD files, {size:.1f} MB, {n} runs each (median wall, peak RSS)")

    def crdgen_all():
        with tempfile.TemporaryDirectory() as out:
            argv = [crdgen, "import", *crds, "--output-base", out]
            return timed(argv, out, subprocess.DEVNULL)

    def per_file(argv_of):
        def one():
            wall, peak = 0.0, 0.0
            with tempfile.TemporaryDirectory() as out:
                for i, crd in enumerate(crds):
                    (Path(out) / str(i)).mkdir()
                    with open(Path(out) / f"{i}.rs", "wb") as sink:
                        w, p = timed(argv_of(crd, Path(out) / str(i)), out, sink)
                    wall, peak = wall + w, max(peak, p)
            return wall, peak

        return one

    rows = [("crdgen import DIR (one process)", runs(n, crdgen_all))]
    rows.append(
        (
            "crdgen import FILE (a process a file)",
            runs(n, per_file(lambda crd, out: [crdgen, "import", crd, "--output-base", out])),
        )
    )
    if kopium:
        version = subprocess.run([kopium, "--version"], capture_output=True, text=True)
        rows.append(
            (
                f"{version.stdout.strip()} -f FILE (a process a file)",
                runs(n, per_file(lambda crd, out: [kopium, "-f", crd])),
            )
        )
    else:
        print("kopium not on PATH (cargo install --locked kopium): timing crdgen alone")

    def alone(argv_of):
        def one():
            with tempfile.TemporaryDirectory() as out:
                return timed(argv_of(out), out, subprocess.DEVNULL)

        return one

    rows.append(("crdgen --version", runs(n, alone(lambda out: [crdgen, "--version"]))))
    if kopium:
        rows.append(("kopium --version", runs(n, alone(lambda out: [kopium, "--version"]))))
    by_size = sorted(crds, key=lambda f: f.stat().st_size)
    for what, crd in [("smallest", by_size[0]), ("largest", by_size[-1])]:
        size = f"{what} file, {crd.stat().st_size // 1024} KB"
        crdgen_one = alone(lambda out, crd=crd: [crdgen, "import", crd, "--output-base", out])
        rows.append((f"crdgen import FILE ({size})", runs(n, crdgen_one)))
        if kopium:
            kopium_one = alone(lambda out, crd=crd: [kopium, "-f", crd])
            rows.append((f"kopium -f FILE ({size})", runs(n, kopium_one)))
    for what, (wall, peak) in rows:
        print(f"  {what:<44} {wall * 1000:8.1f} ms  {peak:6.1f} MiB")


if __name__ == "__main__":
    main()
