#!/usr/bin/env python3
"""Writes src/known/types.jsonl: the facts controller-gen reads from the Go source of
every type k8s-openapi has, for each Kubernetes version k8s-openapi supports.

For each Go type: its doc (as controller-gen cuts it: markers, TODO lines and what
follows `---` dropped), its schema markers (`+listType`, `+default`, `+optional`,
`+kubebuilder:validation:*`...), and its shape: a struct's fields (JSON name,
`omitempty`/`inline`, Go type, doc, markers) or the Go type it is defined as. Go types
are written with full package paths (`[]k8s.io/api/core/v1.Container`). Whether a type
has its own MarshalJSON/MarshalText is recorded too: controller-gen treats those apart.

The Rust side: every type of k8s-openapi's `src/v1_NN` trees, by Rust path, with the
versions it exists in. crdgen builds controller-gen's schema from these facts at
generation time (src/known/).

Usage: known-types.py [--ref 1.NN=REF]... OUT K8S_OPENAPI_SRC api=GIT apimachinery=GIT
           apiextensions-apiserver=GIT kube-aggregator=GIT
where each GIT is a clone (bare or not) of github.com/kubernetes/<name>. The tags read
are v0.NN.0 for each version 1.NN, or the REF --ref names for it (a version not
tagged yet, such as one k8s-openapi was cut from ahead of its release). Output is sorted and byte-stable.
"""

import json
import os
import re
import subprocess
import sys

# Markers controller-gen v0.18 gives a meaning in a CRD schema; the rest (+enum,
# +featureGate, +k8s:*, +patchStrategy...) it ignores, and so does crdgen.
SCHEMA_MARKERS = re.compile(
    r"^(optional|required|nullable|listType|listMapKey|mapType|structType|default"
    r"|kubebuilder:(validation|default|example|title|pruning))([:=]|$)"
)
MODULES = {
    "api": "k8s.io/api",
    "apimachinery": "k8s.io/apimachinery",
    "apiextensions-apiserver": "k8s.io/apiextensions-apiserver",
    "kube-aggregator": "k8s.io/kube-aggregator",
}
# k8s-openapi's top-level Rust modules and the Go modules they mirror.
RUST_ROOTS = {
    "api": "k8s.io/api",
    "apimachinery": "k8s.io/apimachinery",
    "apiextensions_apiserver": "k8s.io/apiextensions-apiserver",
    "kube_aggregator": "k8s.io/kube-aggregator",
}
GO_BUILTINS = {
    "bool", "string", "byte", "rune", "int", "int8", "int16", "int32", "int64",
    "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "float32", "float64",
    "any", "error",
}


class GoError(Exception):
    pass


# ---------------------------------------------------------------- git access


class Repo:
    def __init__(self, path):
        self.path = path

    def git(self, *args):
        return subprocess.run(
            ["git", "-C", self.path, *args], check=True, capture_output=True
        ).stdout.decode()

    def tag_for(self, minor, refs):
        if f"1.{minor}" in refs:
            return refs[f"1.{minor}"]
        if self.git("tag", "--list", f"v0.{minor}.0").strip():
            return f"v0.{minor}.0"
        sys.exit(
            f"{self.path}: no tag v0.{minor}.0 for Kubernetes 1.{minor}; "
            f"name the commit to read with --ref 1.{minor}=REF"
        )

    def commit(self, tag):
        return self.git("rev-list", "-n1", tag).strip()

    def package_files(self, tag, directory):
        names = self.git("ls-tree", "--name-only", f"{tag}:{directory}").split("\n")
        return [
            n for n in names
            if n.endswith(".go") and not n.endswith("_test.go")
            and not n.startswith("zz_generated") and n != "generated.pb.go"
        ]

    def read(self, tag, path):
        return self.git("show", f"{tag}:{path}")


# ---------------------------------------------------------------- Go lexer

TOKEN = re.compile(
    r"(?P<ws>[ \t\r]+)|(?P<nl>\n)|(?P<line>//[^\n]*)|(?P<block>/\*.*?\*/)"
    r"|(?P<raw>`[^`]*`)|(?P<str>\"(?:\\.|[^\"\\\n])*\")|(?P<rune>'(?:\\.|[^'\\\n])+')"
    r"|(?P<num>\.?[0-9][0-9a-zA-Z_.]*)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>\.\.\.|<-|:=|&&|\|\||[-+*/%&|^<>=!]=?|[(){}\[\];,.:~])",
    re.S,
)


def lex(text):
    """Tokens as (kind, text, line), with Go's automatic semicolons; comments as
    ('comment', text, line, end_line)."""
    out, pos, line, last = [], 0, 1, None
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise GoError(f"line {line}: cannot read {text[pos:pos + 20]!r}")
        kind, value = m.lastgroup, m.group()
        newline = kind == "nl" or (kind == "block" and "\n" in value)
        if newline and last is not None and (
            last[0] in ("ident", "num", "str", "raw", "rune") or last[1] in (")", "]", "}")
        ):
            out.append(("op", ";", line))
            last = None
        if kind in ("line", "block"):
            out.append(("comment", value, line, line + value.count("\n")))
        elif kind not in ("ws", "nl"):
            out.append((kind, value, line))
            last = out[-1]
        line += value.count("\n")
        pos = m.end()
    if last is not None:
        out.append(("op", ";", line))
    return out


# ---------------------------------------------------------------- comments as controller-gen reads them


def groups(comments):
    """Comment groups: comments on consecutive lines."""
    out = []
    for c in comments:
        if out and c[2] <= out[-1][-1][3] + 1:
            out[-1].append(c)
        else:
            out.append([c])
    return out


def is_marker(text):
    return text.startswith("//") and text[2:].strip().startswith("+")


def comment_text(group):
    """go/ast's CommentGroup.Text()."""
    lines = []
    for c in group:
        text = c[1]
        if text.startswith("//"):
            text = text[2:]
            if text.startswith(" "):
                text = text[1:]
            if text.startswith("go:") or text.startswith("line "):
                continue
            lines.extend([text])
        else:
            lines.extend(text[2:-2].split("\n"))
    lines = [line.rstrip() for line in lines]
    while lines and lines[0] == "":
        lines.pop(0)
    while lines and lines[-1] == "":
        lines.pop()
    out = []
    for line in lines:
        if line == "" and out and out[-1] == "":
            continue
        out.append(line)
    return "\n".join(out) + "\n" if out else ""


def doc_of(group):
    """controller-gen's extractDoc."""
    if not group:
        return ""
    kept = [c for c in group if not is_marker(c[1])]
    asterisk = any(c[1].startswith("/*") for c in kept)
    lines = comment_text(kept).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out, code = [], False
    for line in lines:
        if asterisk:
            line = line.strip()
        if line.startswith("```") or line.startswith("~~~"):
            code = not code
        if not code:
            if line.startswith("TODO"):
                continue
            if line.startswith("---"):
                break
        out.append(line)
    return "\n".join(out)


def markers_of(*comment_groups):
    out = []
    for group in comment_groups:
        for c in group or []:
            if is_marker(c[1]):
                text = c[1][2:].strip()[1:]
                if SCHEMA_MARKERS.match(text):
                    out.append(text)
    return out


# ---------------------------------------------------------------- Go declarations


class Parser:
    """Reads the type declarations and method names of one Go file."""

    def __init__(self, text, imports_of):
        tokens = lex(text)
        self.comments = [t for t in tokens if t[0] == "comment"]
        self.groups = groups(self.comments)
        self.toks = [t for t in tokens if t[0] != "comment"]
        self.i = 0
        self.imports = {}
        self.imports_of = imports_of
        self.types = {}
        self.methods = set()
        self.last_end = 0  # the line the previous declaration or field ended on

    # token access
    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ("eof", "", 10**9)

    def next(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, value):
        t = self.next()
        if t[1] != value:
            raise GoError(f"line {t[2]}: expected {value!r}, found {t[1]!r}")
        return t

    def prev_line(self):
        return self.toks[self.i - 1][2] if self.i else 0

    def comments_before(self, line):
        """The doc group (ending on the line before `line`) and the closest other group
        after the previous declaration, as controller-gen associates markers."""
        before = [g for g in self.groups if g[-1][3] < line and g[0][2] > self.last_end]
        doc = before[-1] if before and before[-1][-1][3] == line - 1 else None
        rest = before[:-1] if doc else before
        return doc, (rest[-1] if rest else None)

    def skip_balanced(self):
        """Past the next `;` outside brackets: one declaration or statement."""
        depth = 0
        while True:
            t = self.next()
            if t[0] == "eof":
                return
            if t[0] == "op" and t[1] in "([{":
                depth += 1
            elif t[0] == "op" and t[1] in ")]}":
                depth -= 1
            elif t[1] == ";" and depth == 0:
                return

    def file(self):
        while self.peek()[0] != "eof":
            t = self.peek()
            if t[1] == "package":
                self.next()
                self.next()
            elif t[1] == "import":
                self.next()
                if self.peek()[1] == "(":
                    self.next()
                    while self.peek()[1] != ")":
                        self.import_spec()
                    self.next()
                else:
                    self.import_spec()
            elif t[1] == "type":
                decl_line = t[2]
                decl_doc, decl_other = self.comments_before(decl_line)
                self.next()
                if self.peek()[1] == "(":
                    self.next()
                    self.last_end = self.prev_line()
                    while self.peek()[1] != ")":
                        line = self.peek()[2]
                        doc, other = self.comments_before(line)
                        self.type_spec(doc, other)
                        if self.peek()[1] == ";":
                            self.next()
                        self.last_end = self.prev_line()
                    self.next()
                else:
                    self.type_spec(decl_doc, decl_other)
                self.last_end = self.prev_line()
            elif t[1] == "func":
                self.next()
                if self.peek()[1] == "(":
                    self.next()
                    receiver = []
                    while self.peek()[1] != ")":
                        receiver.append(self.next()[1])
                    self.next()
                    name = self.next()[1]
                    base = [r for r in receiver if r not in ("*",)][-1]
                    self.methods.add((base, name))
                self.skip_balanced()
                self.last_end = self.prev_line()
            else:
                self.skip_balanced()
                self.last_end = self.prev_line()

    def import_spec(self):
        alias = None
        if self.peek()[0] in ("ident",) or self.peek()[1] in (".", "_"):
            alias = self.next()[1]
        path = self.next()[1].strip('"')
        self.imports[alias or self.imports_of(path)] = path
        if self.peek()[1] == ";":
            self.next()

    def type_spec(self, doc, other):
        name = self.next()[1]
        params = None
        if self.peek()[1] == "[" and self.peek(1)[0] == "ident" and self.peek(2)[0] == "ident":
            params = True  # generic: not an API type
            depth = 0
            while True:
                t = self.next()
                depth += t[1] == "["
                depth -= t[1] == "]"
                if depth == 0:
                    break
        alias = self.peek()[1] == "="
        if alias:
            self.next()
        start = self.i
        try:
            shape = self.type_expr(top=True)
        except GoError:
            self.i = start
            self.skip_balanced()
            shape = None
        if params or shape is None:
            return
        self.types[name] = {
            "doc": doc_of(doc),
            "markers": markers_of(other, doc),
            "shape": shape,
            "alias": alias,
        }

    def type_expr(self, top=False):
        t = self.next()
        if t[1] == "*":
            return {"ptr": self.type_expr()}
        if t[1] == "[":
            if self.peek()[1] == "]":
                self.next()
                return {"slice": self.type_expr()}
            n = self.next()[1]
            self.expect("]")
            return {"array": self.type_expr(), "len": n}
        if t[1] == "map":
            self.expect("[")
            key = self.type_expr()
            self.expect("]")
            return {"map": key, "value": self.type_expr()}
        if t[1] == "struct":
            if not top:
                raise GoError(f"line {t[2]}: anonymous struct")
            return {"struct": self.struct_body()}
        if t[1] in ("interface", "func", "chan"):
            raise GoError(f"line {t[2]}: {t[1]} type")
        if t[0] == "ident":
            if self.peek()[1] == "." and self.peek(1)[0] == "ident":
                self.next()
                name = self.next()[1]
                if t[1] not in self.imports:
                    raise GoError(f"line {t[2]}: unknown package {t[1]}")
                return {"named": f"{self.imports[t[1]]}.{name}"}
            if self.peek()[1] == "[":
                raise GoError(f"line {t[2]}: generic instance")
            return {"named": t[1]}  # qualified with the package later
        raise GoError(f"line {t[2]}: unexpected {t[1]!r} in a type")

    def struct_body(self):
        self.expect("{")
        self.last_end = self.prev_line()
        fields = []
        while self.peek()[1] != "}":
            line = self.peek()[2]
            doc, other = self.comments_before(line)
            names = []
            if self.peek()[0] == "ident" and self.peek(1)[1] not in (".", ";", "}") and self.peek(1)[0] != "raw":
                names.append(self.next()[1])
                while self.peek()[1] == ",":
                    self.next()
                    names.append(self.next()[1])
            ty = self.type_expr()
            tag = None
            if self.peek()[0] in ("raw", "str") and self.peek()[2] == self.prev_line():
                tag = self.next()[1][1:-1]
            if self.peek()[1] == ";":
                self.next()
            embedded_name = None
            if not names:
                inner = ty.get("ptr", ty)
                embedded_name = inner["named"].rsplit(".", 1)[-1]
            for name in names or [embedded_name]:
                fields.append({
                    "go": name,
                    "embedded": not names,
                    "type": ty,
                    "tag": tag,
                    "doc": doc_of(doc),
                    "markers": markers_of(other, doc),
                })
            self.last_end = self.prev_line()
        self.next()
        return fields


# ---------------------------------------------------------------- packages and types


def json_tag(tag):
    if tag is None:
        return None
    m = re.search(r'(?:^|\s)json:"([^"]*)"', tag)
    return m.group(1) if m else None


class Universe:
    def __init__(self, repos, minor, refs):
        self.repos = repos
        self.minor = minor
        self.tags = {name: repo.tag_for(minor, refs) for name, repo in repos.items()}
        self.packages = {}

    def module_of(self, path):
        for name, module in MODULES.items():
            if path == module or path.startswith(module + "/"):
                return name, path[len(module) + 1:]
        return None, None

    def package(self, path):
        if path in self.packages:
            return self.packages[path]
        name, directory = self.module_of(path)
        if name is None:
            raise GoError(f"{path}: not a Kubernetes API module")
        repo, tag = self.repos[name], self.tags[name]
        types, methods = {}, set()
        for file in sorted(repo.package_files(tag, directory)):
            text = repo.read(tag, f"{directory}/{file}")
            if re.search(r"^//go:build\s+ignore", text, re.M):
                continue
            parser = Parser(text, lambda p: p.rsplit("/", 1)[-1])
            try:
                parser.file()
            except GoError as e:
                raise GoError(f"{path}/{file}@{tag}: {e}")
            for type_name, info in parser.types.items():
                info["shape"] = qualify(info["shape"], path)
                types[type_name] = info
            methods |= parser.methods
        pkg = {"types": types, "methods": methods}
        self.packages[path] = pkg
        return pkg

    def facts(self, full):
        path, _, name = full.rpartition(".")
        pkg = self.package(path)
        info = pkg["types"].get(name)
        if info is None:
            return None
        out = {}
        if info["doc"]:
            out["doc"] = info["doc"]
        if info["markers"]:
            out["markers"] = info["markers"]
        for method in ("MarshalJSON", "MarshalText"):
            if (name, method) in pkg["methods"]:
                out.setdefault("marshals", []).append(method)
        shape = info["shape"]
        if "struct" in shape:
            fields = []
            for f in shape["struct"]:
                if not f["go"][0].isupper() and not f["embedded"]:
                    continue
                field = {"go": f["go"], "type": render(f["type"])}
                tag = json_tag(f["tag"])
                if tag is not None:
                    field["json"] = tag
                if f["doc"]:
                    field["doc"] = f["doc"]
                if f["markers"]:
                    field["markers"] = f["markers"]
                fields.append(field)
            out["fields"] = fields
        else:
            out["type"] = render(shape)
            if info["alias"]:
                out["alias"] = True
        return out


def qualify(shape, package):
    if "named" in shape:
        name = shape["named"]
        if "." in name or name in GO_BUILTINS:
            return shape
        return {"named": f"{package}.{name}"}
    if "struct" in shape:
        for f in shape["struct"]:
            f["type"] = qualify(f["type"], package)
        return shape
    return {k: (qualify(v, package) if isinstance(v, dict) else v) for k, v in shape.items()}


def render(shape):
    if "named" in shape:
        return shape["named"]
    if "ptr" in shape:
        return "*" + render(shape["ptr"])
    if "slice" in shape:
        return "[]" + render(shape["slice"])
    if "array" in shape:
        return f"[{shape['len']}]" + render(shape["array"])
    if "map" in shape:
        return f"map[{render(shape['map'])}]" + render(shape["value"])
    raise GoError(f"cannot render {shape}")


def referenced(type_text):
    """The named types a rendered Go type refers to."""
    return [t for t in re.split(r"[\[\]*]+|map\[", type_text) if "." in t and "/" in t]


# ---------------------------------------------------------------- k8s-openapi


def rust_types(k8s_openapi, minor):
    """Rust path -> Go type for every type of k8s-openapi's tree for 1.minor."""
    root = os.path.join(k8s_openapi, "src", f"v1_{minor}")
    out = {}
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        rel = os.path.relpath(directory, root)
        if rel == ".":
            continue
        modules = rel.split(os.sep)
        if modules[0] not in RUST_ROOTS:
            continue
        for file in sorted(files):
            if not file.endswith(".rs") or file == "mod.rs":
                continue
            with open(os.path.join(directory, file)) as f:
                text = f.read()
            for name in re.findall(r"^pub (?:struct|enum) (\w+)", text, re.M):
                go_dir = "/".join(modules[1:])
                out["k8s_openapi::" + "::".join(modules + [name])] = (
                    f"{RUST_ROOTS[modules[0]]}/{go_dir}.{name}"
                )
    return out


# ---------------------------------------------------------------- merge over versions


def ranges(minors):
    """[33, 34, 36] -> "1.33-1.34,1.36"."""
    out, start, prev = [], None, None
    for m in minors:
        if start is None:
            start = prev = m
        elif m == prev + 1:
            prev = m
        else:
            out.append((start, prev))
            start = prev = m
    if start is not None:
        out.append((start, prev))
    return ",".join(f"1.{a}" if a == b else f"1.{a}-1.{b}" for a, b in out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    args = sys.argv[1:]
    refs = {}
    while args and args[0] == "--ref":
        version, _, ref = args[1].partition("=")
        refs[version] = ref
        args = args[2:]
    out_path, k8s_openapi = args[0], args[1]
    repos = {}
    for arg in args[2:]:
        name, _, path = arg.partition("=")
        if name not in MODULES:
            sys.exit(f"unknown module {name!r}: one of {', '.join(MODULES)}")
        repos[name] = Repo(path)
    missing = set(MODULES) - set(repos)
    if missing:
        sys.exit(f"missing clones: {', '.join(sorted(missing))}")
    minors = sorted(
        int(d[len("v1_"):]) for d in os.listdir(os.path.join(k8s_openapi, "src"))
        if d.startswith("v1_")
    )
    rust = {}   # rust path -> go name -> [minors]
    types = {}  # go name -> json facts -> [minors]
    sources = {}
    unmatched = {}
    for minor in minors:
        universe = Universe(repos, minor, refs)
        sources[f"1.{minor}"] = {
            MODULES[n]: f"{t} ({repos[n].commit(t)[:12]})" for n, t in sorted(universe.tags.items())
        }
        queue = []
        for path, go in rust_types(k8s_openapi, minor).items():
            rust.setdefault(path, {}).setdefault(go, []).append(minor)
            queue.append(go)
        seen = set()
        while queue:
            go = queue.pop()
            if go in seen:
                continue
            seen.add(go)
            try:
                facts = universe.facts(go)
            except GoError as e:
                sys.exit(f"1.{minor}: {e}")
            if facts is None:
                # k8s-openapi types with no Go twin (ByteString, List, WatchEvent's
                # kin) are crdgen's own special forms or not API types.
                unmatched.setdefault(go, []).append(minor)
                continue
            key = json.dumps(facts, sort_keys=True)
            types.setdefault(go, {}).setdefault(key, []).append(minor)
            for f in facts.get("fields", [{"type": facts.get("type", "")}]):
                queue.extend(referenced(f["type"]))
    for go, ms in sorted(unmatched.items()):
        print(f"no Go type {go} ({ranges(ms)})", file=sys.stderr)
    # One JSON value a line (src/known/data.rs reads each part when first needed, and a
    # Go type's line alone): the header, k8s-openapi's paths, then each Go type in name
    # order as ["<go type>",[<facts>...]].
    dump = lambda value: json.dumps(value, indent=None, sort_keys=False, separators=(",", ":"), ensure_ascii=False)
    lines = [
        dump({"generatedBy": "hack/update-known-types.sh", "versions": [f"1.{m}" for m in minors], "sources": sources}),
        dump({"rust": {
            path: [{"go": go, "in": ranges(ms)} for go, ms in sorted(gos.items())]
            for path, gos in sorted(rust.items())
        }}),
    ]
    for go, variants in sorted(types.items()):
        facts = sorted(
            ({"in": ranges(ms), **json.loads(key)} for key, ms in variants.items()),
            key=lambda v: v["in"],
        )
        lines.append(dump([go, facts]))
    text = "\n".join(lines)
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, out_path)


if __name__ == "__main__":
    main()
