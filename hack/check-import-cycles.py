#!/usr/bin/env python3
"""Fails when the modules of a Rust source tree import each other in a cycle.

Usage: hack/check-import-cycles.py src runtime/src

Reads every `crate::`, `super::` and `self::` path (with `use a::{b, c}` groups
expanded) and resolves it to the module it names, then looks for cycles twice: between
modules (`schema::markers` and `schema::types`), and between the top-level modules they
belong to (`model` and `parse`). A child using its own parent's items does not count:
that is how Rust shares a module's types with its files. Prints each cycle; exit 1 if
there is any.
"""

import os
import re
import sys

PATH = re.compile(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")
GROUP = re.compile(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^{}]*)\}")


def modules(root):
    """Module path (`schema::types`) -> source text without line comments."""
    out = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            parts = os.path.relpath(path, root)[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            with open(path, encoding="utf-8") as f:
                out["::".join(parts)] = re.sub(r"//[^\n]*", "", f.read())
    return out


def expand_groups(text):
    def expand(m):
        return " ".join(
            m.group(1) + "::" + item.strip().split(" as ")[0]
            for item in m.group(2).split(",")
            if item.strip()
        )

    for _ in range(3):  # nested groups, innermost first
        text = GROUP.sub(expand, text)
    return text


def resolve(mods, current, path):
    segments = path.split("::")
    base = current.split("::") if current else []
    if segments[0] == "crate":
        base, segments = [], segments[1:]
    else:
        while segments and segments[0] in ("super", "self"):
            if segments[0] == "super":
                base = base[:-1]
            segments = segments[1:]
    for n in range(len(segments), -1, -1):
        candidate = "::".join(base + segments[:n])
        if candidate in mods:
            return candidate
    return None


def cycles(edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main(roots):
    failed = False
    for root in roots:
        mods = modules(root)
        edges = {m: set() for m in mods}
        for current, text in mods.items():
            for m in PATH.finditer(expand_groups(text)):
                target = resolve(mods, current, m.group(1))
                # A child naming its own ancestor shares that module's types.
                if target is None or target == current or current.startswith(target + "::"):
                    continue
                edges[current].add(target)
        top = {}
        for a, targets in edges.items():
            for b in targets:
                if a.split("::")[0] != b.split("::")[0]:
                    top.setdefault(a.split("::")[0], set()).add(b.split("::")[0])
        for kind, graph in (("modules", edges), ("top-level modules", top)):
            for component in cycles(graph):
                failed = True
                print(f"{root}: {kind} import each other: {' <-> '.join(component)}")
    if not failed:
        print(f"no import cycles in {', '.join(roots)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["src"]))
