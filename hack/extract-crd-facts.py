#!/usr/bin/env python3
"""Writes the facts of public CRDs that crdgen's import tests run on: each CRD's
structure and validations (types, formats, bounds, patterns, enums, defaults, CEL rules,
list and map types, names, versions, columns, subresources), without its prose (every
schema `description` and column description is left out).

Usage: hack/extract-crd-facts.py OUT_DIR CRD_FILE...

Reads the CRDs of a checkout the caller has (this script fetches nothing) and writes
OUT_DIR/<metadata.name>.yaml for each. Note the project, its commit and the paths read
in testdata/import/real/SOURCES.md.
"""

import os
import sys

import yaml


def strip(node):
    """`node` without the `description` keyword of any schema in it."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "description":
                continue
            if key == "properties" and isinstance(value, dict):
                # Property names are data: a property called `description` stays.
                out[key] = {name: strip(schema) for name, schema in value.items()}
            else:
                out[key] = strip(value)
        return out
    if isinstance(node, list):
        return [strip(item) for item in node]
    return node


# YAML 1.1 reads a bare `=` as its "value" tag; in a CRD it is a string (an enum value).
yaml.SafeLoader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


def main():
    out_dir, files = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    for path in files:
        with open(path, encoding="utf-8") as f:
            documents = [d for d in yaml.safe_load_all(f) if d]
        for crd in documents:
            if crd.get("kind") != "CustomResourceDefinition":
                continue
            crd = strip(crd)
            name = crd["metadata"]["name"]
            with open(os.path.join(out_dir, name + ".yaml"), "w", encoding="utf-8") as f:
                yaml.safe_dump(crd, f, sort_keys=True, width=1000, allow_unicode=True)


if __name__ == "__main__":
    main()
