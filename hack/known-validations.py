#!/usr/bin/env python3
"""Reads the kubebuilder validation markers of Kubernetes' Go API types and writes
src/known/validations.json: for each type k8s.json knows, the markers on each field
(by JSON name), as controller-gen reads them from the same source. crdgen applies
them to the known schemas, so that a CRD embedding a metav1.Condition validates it as
a Go operator's CRD does.

Usage: known-validations.py SOURCE_LABEL GO_PACKAGE=FILE.go [GO_PACKAGE=FILE.go ...]
(hack/update-known-validations.sh fetches the files and runs this.)
"""

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
KNOWN = ROOT / "src" / "known"

STRUCT = re.compile(r"^type\s+(\w+)\s+struct\s*\{")
FIELD = re.compile(r'^\s*\w+\s+[^`]*`[^`]*json:"([^",]*)')
MARKER = re.compile(r"^\s*//\s*\+(kubebuilder:validation:\S.*?)\s*$")
# Requiredness comes with k8s-openapi's schemas already (their `required` lists).
SKIPPED = ("kubebuilder:validation:Required", "kubebuilder:validation:Optional")


def definition_prefix(go_package):
    """k8s.io/apimachinery/pkg/apis/meta/v1 -> io.k8s.apimachinery.pkg.apis.meta.v1"""
    domain, _, rest = go_package.partition("/")
    return ".".join(reversed(domain.split("."))) + "." + rest.replace("/", ".")


def markers_by_field(text):
    """{struct: {json field: [marker, ...]}} for the fields that carry markers."""
    out = {}
    struct, pending = None, []
    for line in text.splitlines():
        opened = STRUCT.match(line)
        if opened:
            struct, pending = opened.group(1), []
            continue
        if struct is None:
            continue
        if line.startswith("}"):
            struct = None
            continue
        marker = MARKER.match(line)
        if marker:
            if not marker.group(1).startswith(SKIPPED):
                pending.append(marker.group(1))
            continue
        if line.strip().startswith("//") or not line.strip():
            continue
        field = FIELD.match(line)
        if field and field.group(1) not in ("", "-") and pending:
            out.setdefault(struct, {})[field.group(1)] = pending
        pending = []
    return out


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    label, sources = argv[1], argv[2:]
    known = json.loads((KNOWN / "k8s.json").read_text())["definitions"]
    definitions = {}
    for source in sources:
        go_package, _, path = source.partition("=")
        prefix = definition_prefix(go_package)
        for struct, fields in markers_by_field(pathlib.Path(path).read_text()).items():
            name = f"{prefix}.{struct}"
            properties = known.get(name, {}).get("properties", {})
            kept = {f: m for f, m in fields.items() if f in properties}
            if kept:
                definitions[name] = kept
    out = {"source": label, "definitions": definitions}
    (KNOWN / "validations.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv)
