#!/usr/bin/env python3
"""Writes testdata/controller-tools/expected/*.json from controller-tools' golden CRDs.

    hack/controller-tools-expected.py GOLDEN.yaml...

with the golden files of controller-tools' pkg/crd/testdata (git show them out of a
fetched controller-tools). The golden files themselves are not kept: each becomes the
JSON tests/fidelity.rs compares, without what crdgen has no part in: controller-gen's
own version annotation, and the descriptions below the CronJob's `jobTemplate`
(k8s.io/api's JobTemplateSpec, whose descriptions the fidelity kind compares already),
left out to keep the file small.
"""
import json
import os
import sys

import yaml

OUT = os.path.join(os.path.dirname(__file__), "..", "testdata", "controller-tools", "expected")


def without_descriptions(node):
    if isinstance(node, dict):
        return {k: without_descriptions(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [without_descriptions(v) for v in node]
    return node


for path in sys.argv[1:]:
    with open(path) as f:
        crd = yaml.safe_load(f)
    annotations = crd["metadata"].get("annotations", {})
    annotations.pop("controller-gen.kubebuilder.io/version", None)
    if not annotations:
        crd["metadata"].pop("annotations", None)
    for version in crd["spec"]["versions"]:
        spec = version["schema"]["openAPIV3Schema"]["properties"].get("spec", {})
        template = spec.get("properties", {}).get("jobTemplate")
        if template:
            template["properties"] = without_descriptions(template["properties"])
    name = os.path.basename(path).removesuffix(".yaml") + ".json"
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(crd, f, indent=1, sort_keys=True)
        f.write("\n")
