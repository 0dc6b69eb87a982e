"""A reader of the Go literals kube-apiserver's test tables are written in.

hack/port-apiserver-cel-tests.py reads the tables of a fetched kubernetes/apiserver or
kubernetes/apiextensions-apiserver checkout with it and writes their cases as JSON
facts. It is not a Go implementation: it tokenizes Go, parses expressions (calls,
selectors, composite literals, unary and binary operators) and evaluates them against
an environment of Python values and functions that the porting script supplies. What it
cannot evaluate raises `Unported` with the construct, so that the case is listed with
that reason rather than dropped.
"""

import re


class Unported(Exception):
    """A construct this reader does not evaluate."""


TOKEN = re.compile(
    r"""
    (?P<space>[ \t\r\n]+|//[^\n]*|/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<rune>'(?:[^'\\\n]|\\.)+')
  | (?P<number>0[xX][0-9a-fA-F_]+|(?:\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\.\.\.|&&|\|\||==|!=|<=|>=|<<|>>|:=|[-+*/%&|^!<>=(){}\[\],:;.])
    """,
    re.VERBOSE | re.DOTALL,
)


def tokenize(text):
    tokens = []
    pos = 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise Unported(f"unreadable Go at {text[pos:pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind != "space":
            tokens.append((kind, m.group()))
    return tokens


ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a",
           "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def unquote(literal):
    """A Go interpreted string or rune literal's text."""
    body = literal[1:-1]
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            code = int(body[i + 2:i + 2 + width], 16)
            if e == "x":
                out.append(bytes([code]).decode("latin-1"))
            else:
                out.append(chr(code))
            i += 2 + width
        elif e in "01234567" and i + 3 < len(body) + 1 and re.match(r"[0-7]{3}", body[i + 1:i + 4]):
            out.append(chr(int(body[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(ESCAPES.get(e, e))
            i += 2
    return "".join(out)


class Node:
    """An expression, parsed: `kind` and its parts."""

    def __init__(self, kind, *parts):
        self.kind = kind
        self.parts = parts

    def __repr__(self):
        return f"{self.kind}{self.parts!r}"


PRECEDENCE = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3,
              "+": 4, "-": 4, "|": 4, "^": 4, "*": 5, "/": 5, "%": 5, "<<": 5, ">>": 5, "&": 5}


# Unexported struct types of the test files that their tables write literals of.
LOCAL_TYPES = {"validationOptions", "validationMatch", "fnMatcher"}


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.i = 0

    def peek(self, k=0):
        j = self.i + k
        return self.tokens[j] if j < len(self.tokens) else ("eof", "")

    def take(self, text=None):
        tok = self.peek()
        if text is not None and tok[1] != text:
            raise Unported(f"expected {text!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    def at(self, text):
        return self.peek()[1] == text

    def expression(self, min_prec=1):
        left = self.unary()
        while True:
            op = self.peek()
            prec = PRECEDENCE.get(op[1]) if op[0] == "op" else None
            if prec is None or prec < min_prec:
                return left
            self.take()
            right = self.expression(prec + 1)
            left = Node("binary", op[1], left, right)

    def unary(self):
        tok = self.peek()
        if tok[0] == "op" and tok[1] in ("&", "-", "+", "!", "*", "^"):
            self.take()
            return Node("unary", tok[1], self.unary())
        return self.postfix(self.primary())

    def type_expr(self):
        """A type where one is written: `[]T`, `map[K]V`, `*T`, `pkg.T`, `struct{...}`."""
        tok = self.peek()
        if tok[1] == "[":
            self.take("[")
            if not self.at("]"):
                self.expression()
            self.take("]")
            return Node("type", "slice", self.type_expr())
        if tok[1] == "map":
            self.take()
            self.take("[")
            key = self.type_expr()
            self.take("]")
            return Node("type", "map", key, self.type_expr())
        if tok[1] == "*":
            self.take()
            return Node("type", "pointer", self.type_expr())
        if tok[1] == "interface":
            self.take()
            self.take("{")
            self.take("}")
            return Node("type", "any")
        if tok[1] == "struct":
            self.take()
            self.skip_braces()
            return Node("type", "struct")
        if tok[1] == "func":
            raise Unported("a func type")
        name = self.take()[1]
        while self.at("."):
            self.take()
            name += "." + self.take()[1]
        if self.at("["):
            # A generic instantiation: ptr.To[int64].
            self.take("[")
            args = [self.type_expr()]
            while self.at(","):
                self.take()
                args.append(self.type_expr())
            self.take("]")
        return Node("type", "named", name)

    def skip_braces(self):
        self.take("{")
        depth = 1
        while depth:
            t = self.take()[1]
            depth += {"{": 1, "}": -1}.get(t, 0)

    def primary(self):
        kind, text = self.peek()
        if kind in ("raw", "string"):
            self.take()
            return Node("lit", text[1:-1] if kind == "raw" else unquote(text))
        if kind == "rune":
            self.take()
            return Node("lit", ord(unquote(text)))
        if kind == "number":
            self.take()
            clean = text.replace("_", "")
            if clean.lower().startswith("0x"):
                return Node("lit", int(clean, 16))
            if re.fullmatch(r"\d+", clean):
                return Node("lit", int(clean))
            return Node("lit", float(clean))
        if text == "(":
            self.take()
            inner = self.expression()
            self.take(")")
            return inner
        if text in ("[", "map", "struct"):
            t = self.type_expr()
            return self.composite(t)
        if text == "{":
            return self.composite(None)
        if text == "func":
            # A func literal whose body is one `return` of an expression (`func(c T) T {
            # return c + 1 }`) is read as that expression of its parameters; any other is
            # read past and refused only if evaluated.
            self.take()
            self.take("(")
            params = []
            while not self.at(")"):
                params.append(self.take()[1])
                while not self.at(",") and not self.at(")"):
                    self.take()
                if self.at(","):
                    self.take()
            self.take(")")
            while not self.at("{"):
                self.take()
            start = self.i
            self.take("{")
            # Assignments (`x := e`, `x = e`), then one `return e`.
            statements = []
            try:
                while self.peek()[0] == "name" and self.peek()[1] != "return" \
                        and self.peek(1)[1] in (":=", "="):
                    name = self.take()[1]
                    self.take()
                    statements.append((name, self.expression()))
                if self.peek()[1] == "return":
                    self.take()
                    body = self.expression()
                    if self.at("}"):
                        self.take("}")
                        return Node("funclit", params, body, statements)
            except Unported:
                pass
            self.i = start
            self.skip_braces()
            return Node("funclit", None, None, [])
        if kind == "name":
            self.take()
            return Node("name", text)
        raise Unported(f"unexpected {text!r}")

    def postfix(self, node):
        while True:
            tok = self.peek()
            if tok[1] == ".":
                self.take()
                if self.at("("):
                    raise Unported("a type assertion")
                node = Node("select", node, self.take()[1])
            elif tok[1] == "(":
                self.take()
                args = []
                spread = False
                while not self.at(")"):
                    args.append(self.expression())
                    if self.at("..."):
                        self.take()
                        spread = True
                    if self.at(","):
                        self.take()
                self.take(")")
                node = Node("call", node, args, spread)
            elif tok[1] == "[":
                self.take()
                if self.at("]"):
                    raise Unported("a slice type in expression position")
                index = self.expression()
                if self.at(":"):
                    raise Unported("a slice expression")
                self.take("]")
                node = Node("index", node, index)
            elif tok[1] == "{" and node.kind in ("name", "select") and self.is_type_name(node):
                node = self.composite(Node("type", "named", self.dotted(node)))
            else:
                return node

    @staticmethod
    def dotted(node):
        if node.kind == "name":
            return node.parts[0]
        return Parser.dotted(node.parts[0]) + "." + node.parts[1]

    def is_type_name(self, node):
        # `Name{` is a composite literal when Name is exported from a package or a
        # type the table names; `if x {` never appears inside the expressions read here.
        name = self.dotted(node)
        return "." in name or name[:1].isupper() or name in LOCAL_TYPES

    def composite(self, type_node):
        self.take("{")
        elements = []
        while not self.at("}"):
            if self.at("{"):
                value = self.composite(None)
            else:
                value = self.expression()
            if self.at(":"):
                self.take()
                key = value
                value = self.composite(None) if self.at("{") else self.expression()
                elements.append((key, value))
            else:
                elements.append((None, value))
            if self.at(","):
                self.take()
        self.take("}")
        return Node("composite", type_node, elements)


def parse(text):
    parser = Parser(tokenize(text))
    node = parser.expression()
    return node, parser


def find_block(source, start_pattern):
    """The text of the `{ ... }` that follows the first match of `start_pattern`."""
    m = re.search(start_pattern, source)
    if not m:
        raise Unported(f"no {start_pattern!r}")
    tokens = tokenize(source[m.end():])
    return tokens


def table(source, func, var="tests"):
    """The cases of `<var> := []struct{...}{ ... }` (or `[]T{ ... }`, or the cases
    `<var> := append(cases, []T{ ... }...)` adds) in func `func`, each as the tokens of
    one element."""
    m = re.search(r"func " + re.escape(func) + r"\(", source)
    if not m:
        raise Unported(f"no func {func}")
    opening = next(o for o in (var + " := []", var + " := append(cases, []")
                   if source.find(o, m.end()) >= 0)
    start = source.index(opening, m.end()) + len(opening)
    p = Parser(tokenize(source[start:]))
    if p.at("struct"):
        p.take()
        p.skip_braces()  # the struct's fields
    else:
        p.take()  # a named element type
    p.take("{")
    cases = []
    while not p.at("}"):
        begin = p.i
        p.skip_braces()
        cases.append(p.tokens[begin:p.i])
        if p.at(","):
            p.take()
    return cases
