#!/usr/bin/env python3
"""Ports kube-apiserver's own CEL test tables into testdata/cel/apiserver as JSON facts.

    hack/port-apiserver-cel-tests.py APIEXTENSIONS_GIT APISERVER_GIT TAG [TAG...]

APIEXTENSIONS_GIT and APISERVER_GIT are git directories of kubernetes/apiextensions-apiserver
and kubernetes/apiserver (the `fetch` tool's mirrors); each TAG (v0.36.3: Kubernetes 1.36.3)
is read with `git show`, nothing is built or run. The first tag is written whole; a later
(older) tag is written only where its cases differ from the first's. Each file names the
repository, path, function and tag its cases came from. A case whose Go this reader cannot
evaluate is kept, with `unported` saying why; tests/cel_apiserver.rs lists those.

What each table's harness does with its fields is written down here, beside the port, and
mirrored by the runner: TestValidationExpressions adds each `valid` rule (and each `errors`
rule) as the only rule of the root schema; TestValidationExpressionsAtSchemaLevels checks
the schema as given; the library tables evaluate `expr` with no variables.
"""

import copy
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from golit import Node, Parser, Unported, table, tokenize  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "testdata", "cel", "apiserver")


def git_show(git_dir, tag, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{tag}:{path}"],
                          check=True, capture_output=True, text=True).stdout


# --- Go values as JSON ---------------------------------------------------------------

class Struct(dict):
    """A Go struct literal: its type's name and its fields by Go name."""

    def __init__(self, type_name, fields):
        super().__init__(fields)
        self.type_name = type_name

    def __getattr__(self, name):
        if name in self:
            return self[name]
        raise AttributeError(name)


class CostEstimate(Struct):
    """cel-go's `checker.CostEstimate`: a range of costs."""

    def __init__(self, fields):
        super().__init__("checker.CostEstimate", {"Min": fields.get("Min", 0), "Max": fields.get("Max", 0)})

    def Add(self, other):  # noqa: N802 (Go's name)
        return CostEstimate({"Min": self.Min + other.Min, "Max": self.Max + other.Max})


def go_sprintf(fmt, *args):
    out = []
    args = list(args)
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        j = i + 1
        while fmt[j] in "+-# 0123456789.":
            j += 1
        verb = fmt[j]
        flags = fmt[i + 1:j]
        if verb == "%":
            out.append("%")
        else:
            arg = args.pop(0)
            if verb in "dv" and isinstance(arg, bool):
                out.append("true" if arg else "false")
            elif verb in "sv":
                out.append(arg if isinstance(arg, str) else json.dumps(arg))
            elif verb == "d":
                out.append(("%" + flags + "d") % arg)
            elif verb == "f":
                out.append(("%" + (flags or ".6") + "f") % arg)
            elif verb == "q":
                out.append(json.dumps(arg, ensure_ascii=False))
            else:
                raise Unported(f"fmt verb %{verb}")
        i = j + 1
    return "".join(out)


def int_type(bits):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def convert(v):
        v = int(v)
        if not lo <= v <= hi:
            raise Unported(f"int{bits} overflow")
        return v
    return convert


def float32(v):
    import struct
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def string_repeat(s, n):
    return s * n


BASE_ENV = {
    "true": True, "false": False, "nil": None,
    "int": int, "int64": int_type(64), "int32": int_type(32), "uint64": int, "uint32": int,
    "float64": float, "float32": float32, "string": str,
    "math.MaxInt64": (1 << 63) - 1, "math.MinInt64": -(1 << 63), "math.MaxInt32": (1 << 31) - 1,
    "math.MinInt32": -(1 << 31), "math.MaxInt": (1 << 63) - 1, "math.MaxUint32": (1 << 32) - 1,
    "math.MaxFloat64": sys.float_info.max, "math.MaxFloat32": float32(3.40282346638528859811704183484516925440e+38),
    "math.SmallestNonzeroFloat64": 5e-324,
    "fmt.Sprintf": go_sprintf, "strings.Repeat": string_repeat,
    "ptr.To": lambda v: v, "pointer.Int64": lambda v: v, "pointer.String": lambda v: v,
    "pointer.Bool": lambda v: v, "utilpointer.Int64": lambda v: v,
    "apiextensions.FieldValueRequired": "FieldValueRequired",
    "apiextensions.FieldValueForbidden": "FieldValueForbidden",
    "apiextensions.FieldValueInvalid": "FieldValueInvalid",
    "apiextensions.FieldValueDuplicate": "FieldValueDuplicate",
}


# Go struct fields of the schema types, as the OpenAPI keys of a CRD's schema.
GENERIC = {"Type": "type", "Nullable": "nullable", "Default": "default",
           "Description": "description", "Title": "title"}
EXTENSIONS = {"XPreserveUnknownFields": "x-kubernetes-preserve-unknown-fields",
              "XEmbeddedResource": "x-kubernetes-embedded-resource",
              "XIntOrString": "x-kubernetes-int-or-string",
              "XListMapKeys": "x-kubernetes-list-map-keys",
              "XListType": "x-kubernetes-list-type", "XMapType": "x-kubernetes-map-type",
              "XValidations": "x-kubernetes-validations"}
VALUE_VALIDATION = {"Format": "format", "Maximum": "maximum", "ExclusiveMaximum": "exclusiveMaximum",
                    "Minimum": "minimum", "ExclusiveMinimum": "exclusiveMinimum",
                    "MaxLength": "maxLength", "MinLength": "minLength", "Pattern": "pattern",
                    "MaxItems": "maxItems", "MinItems": "minItems", "UniqueItems": "uniqueItems",
                    "MultipleOf": "multipleOf", "Enum": "enum", "MaxProperties": "maxProperties",
                    "MinProperties": "minProperties", "Required": "required", "AllOf": "allOf",
                    "OneOf": "oneOf", "AnyOf": "anyOf", "Not": "not"}
RULE = {"Rule": "rule", "Message": "message", "MessageExpression": "messageExpression",
        "Reason": "reason", "FieldPath": "fieldPath", "OptionalOldSelf": "optionalOldSelf"}

# The type each schema struct's elided element literals have.
ELEMENT_TYPES = {
    "map[string]schema.Structural": "schema.Structural",
    "map[string]schema.NestedValueValidation": "schema.NestedValueValidation",
    "apiextensions.ValidationRules": "apiextensions.ValidationRule",
    "[]apiextensions.ValidationRule": "apiextensions.ValidationRule",
    "[]schema.NestedValueValidation": "schema.NestedValueValidation",
    "[]schema.JSON": "schema.JSON",
    "field.ErrorList": "field.Error",
    "[]apiextensions.JSONSchemaProps": "apiextensions.JSONSchemaProps",
    "map[string]apiextensions.JSONSchemaProps": "apiextensions.JSONSchemaProps",
    "[]validationMatch": "validationMatch",
}
FIELD_TYPES = {
    "Generic": "schema.Generic", "Extensions": "schema.Extensions",
    "ValueValidation": "schema.ValueValidation", "Properties": "map[string]schema.Structural",
    "Items": "schema.Structural", "AdditionalProperties": "schema.StructuralOrBool",
    "Structural": "schema.Structural", "XValidations": "apiextensions.ValidationRules",
    "ValidationExtensions": "schema.ValidationExtensions", "Enum": "[]schema.JSON",
    "AllOf": "[]schema.NestedValueValidation", "OneOf": "[]schema.NestedValueValidation",
    "AnyOf": "[]schema.NestedValueValidation", "Not": "schema.NestedValueValidation",
    "Default": "schema.JSON",
}


# apiextensions' internal JSONSchemaProps fields, as the keys of a CRD's schema.
JSON_SCHEMA_PROPS = dict(GENERIC, **EXTENSIONS, **VALUE_VALIDATION, Properties="properties",
                         Items="items", AdditionalProperties="additionalProperties",
                         PatternProperties="patternProperties", ID="id", Ref="$ref",
                         Schema="$schema", Example="example", ExternalDocs="externalDocs",
                         AdditionalItems="additionalItems", Dependencies="dependencies",
                         Definitions="definitions")


def json_schema_props(type_name, fields):
    """apiextensions' JSONSchemaProps (and what holds one) as the JSON of a CRD."""
    if type_name == "apiextensions.CustomResourceValidation":
        return fields.get("OpenAPIV3Schema")
    if type_name == "apiextensions.JSONSchemaPropsOrArray":
        return fields.get("Schema") if fields.get("Schema") is not None else fields.get("JSONSchemas")
    if type_name == "apiextensions.JSONSchemaPropsOrBool":
        return fields.get("Schema") if fields.get("Schema") is not None else fields.get("Allows", False)
    out = {}
    for go, value in fields.items():
        if go not in JSON_SCHEMA_PROPS:
            raise Unported(f"{type_name} field {go}")
        key = JSON_SCHEMA_PROPS[go]
        if value is None or (value in (False, "", []) and key not in ("default", "nullable")):
            continue
        out[key] = value
    return out


JSON_SCHEMA_TYPES = {"apiextensions.JSONSchemaProps", "apiextensions.CustomResourceValidation",
                     "apiextensions.JSONSchemaPropsOrArray", "apiextensions.JSONSchemaPropsOrBool"}


def to_openapi(type_name, fields):
    """A schema struct literal as the JSON a CRD's schema holds."""
    if type_name in JSON_SCHEMA_TYPES:
        return json_schema_props(type_name, fields)
    if type_name == "schema.JSON":
        return fields.get("Object")
    if type_name == "apiextensions.ValidationRule":
        out = {}
        for go, key in RULE.items():
            # optionalOldSelf is a pointer: set to false is not unset.
            if fields.get(go) not in (None, "", False) or (go == "OptionalOldSelf" and fields.get(go) is False):
                out[key] = fields[go]
        return out
    if type_name == "schema.StructuralOrBool":
        return fields.get("Structural") if fields.get("Structural") is not None else fields.get("Bool", False)
    out = {}
    for go, value in fields.items():
        if go in ("Generic", "Extensions", "ValueValidation", "ValidationExtensions"):
            out.update(value or {})
        elif go in ("Properties",):
            out["properties"] = value
        elif go == "Items":
            out["items"] = value
        elif go == "AdditionalProperties":
            out["additionalProperties"] = value
        elif go in GENERIC or go in EXTENSIONS or go in VALUE_VALIDATION:
            key = GENERIC.get(go) or EXTENSIONS.get(go) or VALUE_VALIDATION[go]
            if value in (None, False, "", []) and key not in ("default",):
                continue
            out[key] = value
        elif go in ("ForbiddenGenerics", "ForbiddenExtensions"):
            continue
        else:
            raise Unported(f"{type_name} field {go}")
    return out


SCHEMA_TYPES = {"schema.Structural", "schema.Generic", "schema.Extensions", "schema.ValueValidation",
                "schema.NestedValueValidation", "schema.ValidationExtensions", "schema.JSON",
                "schema.StructuralOrBool", "apiextensions.ValidationRule"} | JSON_SCHEMA_TYPES


class Evaluator:
    def __init__(self, env):
        self.env = env

    def eval(self, node, expected=None):
        k = node.kind
        if k == "lit":
            return node.parts[0]
        if k == "name":
            name = node.parts[0]
            if name not in self.env:
                raise Unported(f"the name {name}")
            return copy.deepcopy(self.env[name]) if not callable(self.env[name]) else self.env[name]
        if k == "select":
            name = Parser.dotted(node) if node.parts[0].kind in ("name", "select") else None
            if name in self.env:
                return self.env[name]
            base, field = node.parts
            if base.kind != "name" or base.parts[0] in self.env:
                value = self.eval(base)
                if hasattr(value, field):
                    return getattr(value, field)
            raise Unported(f"the selector {name or node}")
        if k == "unary":
            op, inner = node.parts
            v = self.eval(inner, expected)
            if op in ("&", "*", "+"):
                return v
            if op == "-":
                return -v
            if op == "!":
                return not v
            raise Unported(f"unary {op}")
        if k == "binary":
            op, a, b = node.parts
            a, b = self.eval(a), self.eval(b)
            ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                   "==": lambda: a == b, "!=": lambda: a != b, "&&": lambda: a and b,
                   "||": lambda: a or b, "<<": lambda: a << b}
            if op == "/" and isinstance(a, int) and isinstance(b, int):
                return int(a / b)
            if op == "/":
                return a / b
            if op not in ops:
                raise Unported(f"binary {op}")
            return ops[op]()
        if k == "call":
            fn_node, args, spread = node.parts
            if fn_node.kind == "index":
                fn_node = fn_node.parts[0]  # a generic instantiation: ptr.To[int64](…)
            if fn_node.kind == "type":
                raise Unported("a conversion to a composite type")
            fn = self.eval(fn_node)
            values = [self.eval(a) for a in args]
            if spread:
                values = values[:-1] + list(values[-1])
            if not callable(fn):
                raise Unported(f"a call of {fn_node}")
            return fn(*values)
        if k == "index":
            base, index = node.parts
            return self.eval(base)[self.eval(index)]
        if k == "composite":
            return self.composite(node, expected)
        if k == "funclit":
            params, body, statements = node.parts
            if body is None:
                raise Unported("a func literal")
            def call(*args, params=params, body=body, statements=statements):
                inner = Evaluator(dict(self.env, **dict(zip(params, args))))
                for name, value in statements:
                    inner.env[name] = inner.eval(value)
                return inner.eval(body)
            return call
        raise Unported(f"expression {k}")

    def type_text(self, t):
        if t is None:
            return None
        kind = t.parts[0]
        if kind == "named":
            return t.parts[1]
        if kind == "slice":
            return "[]" + (self.type_text(t.parts[1]) or "")
        if kind == "map":
            return f"map[{self.type_text(t.parts[1])}]{self.type_text(t.parts[2])}"
        if kind == "pointer":
            return self.type_text(t.parts[1])
        if kind == "any":
            return "interface{}"
        return kind

    def composite(self, node, expected):
        type_node, elements = node.parts
        type_name = self.type_text(type_node) or expected
        element_type = ELEMENT_TYPES.get(type_name)
        if type_name and type_name.startswith("[]") and not element_type:
            element_type = type_name[2:]
        if type_name and type_name.startswith("map[") and not element_type:
            element_type = type_name.split("]", 1)[1]
        keyed = elements and elements[0][0] is not None
        is_struct = type_name in SCHEMA_TYPES or (
            type_name and not type_name.startswith(("[]", "map[")) and keyed
            and all(key.kind == "name" for key, _ in elements) and type_name not in ELEMENT_TYPES)
        if is_struct:
            fields = {}
            for key, value in elements:
                field = key.parts[0]
                fields[field] = self.eval(value, FIELD_TYPES.get(field))
            if type_name in SCHEMA_TYPES:
                return to_openapi(type_name, fields)
            if type_name == "checker.CostEstimate":
                return CostEstimate(fields)
            return Struct(type_name, fields)
        if type_name and type_name.startswith("map[") or (keyed and type_name is None):
            return {self.eval(key): self.eval(value, element_type) for key, value in elements}
        if type_name is None and not elements:
            return {}
        return [self.eval(value, element_type) for _, value in elements]


# --- the schema helpers of validation_test.go, on JSON schemas -----------------------

def schema_helpers():
    def primitive(typ, fmt):
        s = {"type": typ}
        if fmt:
            s["format"] = fmt
        return s

    def array(list_type, keys, items):
        s = {"type": "array", "x-kubernetes-list-type": list_type, "items": copy.deepcopy(items)}
        if keys and list_type == "map":
            s["x-kubernetes-list-map-keys"] = keys
        return s

    def with_rules(s, **rule):
        s = copy.deepcopy(s)
        s["x-kubernetes-validations"] = [{k: v for k, v in rule.items() if v not in (None, "")}]
        return s

    def set_key(key):
        def f(s, value):
            s = copy.deepcopy(s)
            if value is not None:
                s[key] = value
            return s
        return f

    def objs(*values):
        return {f"val{i + 1}": v for i, v in enumerate(values)}

    def schemas(*values):
        return {"type": "object", "properties": {f"val{i + 1}": copy.deepcopy(v) for i, v in enumerate(values)}}

    env = {
        "primitiveType": primitive,
        "integerType": primitive("integer", ""), "int32Type": primitive("integer", "int32"),
        "int64Type": primitive("integer", "int64"), "numberType": primitive("number", ""),
        "floatType": primitive("number", "float"), "doubleType": primitive("number", "double"),
        "stringType": primitive("string", ""), "byteType": primitive("string", "byte"),
        "booleanType": primitive("boolean", ""), "durationFormat": primitive("string", "duration"),
        "dateFormat": primitive("string", "date"), "dateTimeFormat": primitive("string", "date-time"),
        "listType": lambda items: array("atomic", None, items),
        "listTypePtr": lambda items: array("atomic", None, items),
        "listSetType": lambda items: array("set", None, items),
        "listMapType": lambda keys, items: array("map", keys, items),
        "listMapTypePtr": lambda keys, items: array("map", keys, items),
        "arrayType": array,
        "ValsEqualThemselvesAndDataLiteral": lambda a, b, lit: go_sprintf(
            "%s == %s && %s == %s && %s == %s", a, lit, lit, a, a, b),
        "objs": objs, "schemas": schemas,
        "objectType": lambda props: {"type": "object", "properties": copy.deepcopy(props)},
        "objectTypePtr": lambda props: {"type": "object", "properties": copy.deepcopy(props)},
        "mapType": lambda v: {"type": "object", "additionalProperties": copy.deepcopy(v)},
        "mapTypePtr": lambda v: {"type": "object", "additionalProperties": copy.deepcopy(v)},
        "intOrStringType": lambda: {"x-kubernetes-int-or-string": True},
        "withRule": lambda s, rule: with_rules(s, rule=rule),
        "withRulePtr": lambda s, rule: with_rules(s, rule=rule),
        "cloneWithRule": lambda s, rule: with_rules(s, rule=rule),
        "withRuleMessageAndMessageExpression": lambda s, rule, m, me: with_rules(
            s, rule=rule, message=m, messageExpression=me),
        "withReasonAndFldPath": lambda s, rule, path, reason: with_rules(
            s, rule=rule, fieldPath=path, reason=reason),
        "withRuleAndMessageExpression": lambda s, rule, me: with_rules(s, rule=rule, messageExpression=me),
        "withMaxLength": set_key("maxLength"), "withMaxItems": set_key("maxItems"),
        "withMaxProperties": set_key("maxProperties"),
        "withDefault": lambda d, s: dict(copy.deepcopy(s), default=d),
        "withNullable": lambda n, s: dict(copy.deepcopy(s), nullable=True) if n else copy.deepcopy(s),
        "withNullablePtr": lambda n, s: dict(copy.deepcopy(s), nullable=True) if n else copy.deepcopy(s),
        "nilInterfaceOfStringSlice": lambda: None,
        "genString": lambda n, c: chr(c) * n,
        "celconfig.RuntimeCELCostBudget": 10_000_000,
        "celconfig.PerCallLimit": 1_000_000,
    }
    env.update(BASE_ENV)
    return env


# --- reading one table ---------------------------------------------------------------

def read_cases(source, func, env, var="tests"):
    evaluator = Evaluator(env)
    cases = []
    for tokens in table(source, func, var):
        parser = Parser(tokens)
        case = {}
        try:
            node = parser.composite(None)
            for key, value in node.parts[1]:
                case[key.parts[0]] = evaluator.eval(value)
        except (Unported, KeyError, IndexError, TypeError, ValueError) as e:
            name = next((v.parts[0] for k, v in Parser(tokens).composite(None).parts[1]
                         if k.parts[0] == "name" and v.kind == "lit"), "?")
            cases.append({"name": name, "unported": str(e) or type(e).__name__})
            continue
        cases.append(case)
    return cases


def validation_expressions(source):
    """TestValidationExpressions: each of `valid` and `errors` is a rule of its own, put on
    the root schema in place of any other (withRule)."""
    out = []
    for case in read_cases(source, "TestValidationExpressions", schema_helpers()):
        if "unported" in case:
            out.append(case)
            continue
        entry = {"name": case["name"], "schema": case.get("schema"), "object": case.get("obj")}
        if case.get("oldObj") is not None:
            entry["old"] = case["oldObj"]
        entry["root"] = bool(case.get("isRoot"))
        if case.get("costBudget"):
            entry["costBudget"] = case["costBudget"]
        entry["valid"] = case.get("valid") or []
        entry["errors"] = [{"rule": r, "contains": m} for r, m in (case.get("errors") or {}).items()]
        out.append(entry)
    return out


def schema_levels(source):
    """TestValidationExpressionsAtSchemaLevels: the schema as given; every error is Invalid
    and each expected text is in one of them."""
    env = schema_helpers()
    # validation_test.go's own helper: a match-expressions list with the rule on it.
    env["genMatchSelectorSchema"] = lambda rule: env["withRule"](env["objectType"]({
        "matchExpressions": env["listType"](env["objectTypePtr"]({
            "key": env["stringType"], "operator": env["stringType"],
            "values": env["listType"](env["stringType"])}))}), rule)
    out = []
    for case in read_cases(source, "TestValidationExpressionsAtSchemaLevels", env):
        if "unported" in case:
            out.append(case)
            continue
        entry = {"name": case["name"], "schema": case["schema"], "object": case.get("obj")}
        if case.get("oldObj") is not None:
            entry["old"] = case["oldObj"]
        entry["errors"] = case.get("errors") or []
        out.append(entry)
    return out


def optional_old_self(func, root, both_olds=False):
    """TestOptionalOldSelf, TestOptionalOldSelfCheckForNull, TestOptionalOldSelfIsOptionalType:
    the schema's own rules all set `optionalOldSelf` (the harness sets it), checked at
    a resource's root (`root`) or a node, as TestValidationExpressionsAtSchemaLevels
    checks its errors. `both_olds`: each case runs with no old object and with its old
    object, and must give no error either way."""
    def reader(source):
        out = []
        env = schema_helpers()
        env["stringSchema"] = {"type": "string"}
        for case in read_cases(source, func, env, var="cases" if "IsOptional" in func else "tests"):
            if "unported" in case:
                out.append(case)
                continue
            schema = copy.deepcopy(case["schema"])
            for rule in schema.get("x-kubernetes-validations", []):
                rule["optionalOldSelf"] = True
            entry = {"name": case["name"], "schema": schema, "object": case.get("obj"), "root": root,
                     "errors": case.get("errors") or []}
            old = case.get("oldObj")
            if func.endswith("IsOptionalType"):
                old = case.get("obj")  # the harness passes the object as its own old one
            if both_olds:
                out.append(dict(entry, name=case["name"] + "/null old"))
                out.append(dict(entry, name=case["name"] + "/non-null old", old=old))
                continue
            if old is not None:
                entry["old"] = old
            out.append(entry)
        return out
    return reader


def reason_and_field_path(source):
    """TestReasonAndFldPath: the schema at a resource's root; the errors, by type and
    field, are exactly those expected, in any order."""
    env = schema_helpers()
    env.update({
        "forbiddenReason": "FieldValueForbidden",
        "field.ErrorTypeForbidden": "FieldValueForbidden", "field.ErrorTypeInvalid": "FieldValueInvalid",
        "field.ErrorTypeDuplicate": "FieldValueDuplicate", "field.ErrorTypeRequired": "FieldValueRequired",
        "apiextensions.FieldValueDuplicate": "FieldValueDuplicate",
        "apiextensions.FieldValueRequired": "FieldValueRequired",
        "apiextensions.FieldValueForbidden": "FieldValueForbidden",
    })
    out = []
    for case in read_cases(source, "TestReasonAndFldPath", env):
        if "unported" in case:
            out.append(case)
            continue
        errors = [{"reason": e["Type"], "field": e["Field"]} for e in case["errors"]]
        out.append({"name": case["name"], "schema": case["schema"], "object": case["obj"], "fields": errors})
    return out


def cost_generators():
    """The schema generators of compilation_test.go (genArrayWithRule, …): each takes the
    case's arguments and gives a function of the bound (None for none) to a schema."""
    def rule_type(t):
        if t in ("duration", "date", "date-time"):
            return {"type": "string", "format": t}
        if t == "int-or-string":
            return {"x-kubernetes-int-or-string": True}
        return {"type": t}

    def bounded(schema, key, bound):
        if bound is not None:
            schema[key] = bound
        return schema

    def with_rule(schema, rule):
        schema["x-kubernetes-validations"] = [{"rule": rule}]
        return schema

    def object_for_map():
        return {"type": "object", "required": ["required"],
                "properties": {"required": {"type": "string"}, "optional": {"type": "string"}}}

    return {
        "genArrayWithRule": lambda t, rule: lambda n: with_rule(bounded(
            {"type": "array", "items": rule_type(t)}, "maxItems", n), rule),
        "genArrayOfArraysWithRule": lambda t, rule: lambda n: with_rule(bounded(
            {"type": "array", "items": {"type": "array", "items": {"type": t}}}, "maxItems", n), rule),
        "genObjectArrayWithRule": lambda rule: lambda n: with_rule(bounded(
            {"type": "array", "items": object_for_map()}, "maxItems", n), rule),
        "getMapArrayWithRule": lambda t, rule: lambda n: with_rule(bounded(
            {"type": "array", "items": {"type": "object", "additionalProperties": {"type": t}}},
            "maxItems", n), rule),
        "genMapWithRule": lambda t, rule: lambda n: with_rule(bounded(
            {"type": "object", "additionalProperties": rule_type(t)}, "maxProperties", n), rule),
        "genStringWithRule": lambda rule: lambda n: with_rule(bounded(
            {"type": "string"}, "maxLength", n), rule),
        "genEnumWithRuleAndValues": lambda rule, *values: lambda n: with_rule(bounded(
            {"type": "string", "enum": list(values)}, "maxLength", n), rule),
        "genBytesWithRule": lambda rule: lambda n: with_rule(bounded(
            {"type": "string", "format": "byte"}, "maxLength", n), rule),
        "genNestedSpecWithRule": lambda rule: lambda n: with_rule(bounded(
            {"type": "object", "additionalProperties": bounded({"type": "string"}, "maxLength", n)},
            "maxProperties", n), rule),
        "genAllMaxNestedSpecWithRootRule": lambda rule: lambda n: with_rule(bounded(
            {"type": "array", "items": bounded({"type": "object", "additionalProperties":
                                                bounded(object_for_map(), "maxProperties", n)},
                                               "maxProperties", n)}, "maxItems", n), rule),
        "genOneMaxNestedSpecWithRootRule": lambda rule: lambda n: with_rule(
            {"type": "array", "items": bounded({"type": "object", "additionalProperties": object_for_map()},
                                               "maxProperties", n)}, rule),
        "genMapWithCustomItemRule": lambda item, rule: lambda n: with_rule(bounded(
            {"type": "object", "additionalProperties": copy.deepcopy(item)}, "maxProperties", n), rule),
        "genObjectForMap": object_for_map,
        "genArrayForMap": lambda: {"type": "array", "items": {"type": "number"}},
        "genMapForMap": lambda: {"type": "object", "additionalProperties": {"type": "number"}},
    }


def cost_estimation(source):
    """TestCostEstimation: each rule's estimated cost on the schema without bounds
    (`calc`) and with the case's bound set (`set`): exactly the figure when it is not 0,
    and at least the limit figure when that is not 0; the rule compiles either way."""
    env = schema_helpers()
    env.update(cost_generators())
    env["costLimit"] = 100_000_000  # compilation_test.go's const
    out = []
    for case in read_cases(source, "TestCostEstimation", env, var="cases"):
        if "unported" in case:
            out.append(case)
            continue
        generate = case["schemaGenerator"]
        for label, bound, exact, least in (
                ("calc", None, "expectedCalcCost", "expectCalcCostExceedsLimit"),
                ("set", case.get("setMaxElements"), "expectedSetCost", "expectedSetCostExceedsLimit")):
            schema = generate(bound)
            out.append({"name": f"{case['name']}/{label}", "schema": schema,
                        "cost": case.get(exact) or 0, "atLeast": case.get(least) or 0})
    return out


def each_rule(source, func, env, make):
    """The cases of a table whose rules (`expectCost`'s keys) are each the only rule of
    the case's schema: `make(case, rule, schema)` for each."""
    out = []
    for case in read_cases(source, func, env, var="cases"):
        if "unported" in case:
            out.append(case)
            continue
        for rule, cost in case["expectCost"].items():
            schema = copy.deepcopy(case["schema"])
            schema["x-kubernetes-validations"] = [{"rule": rule}]
            out.append(make(case, rule, schema, cost))
    return out


def estimated_cost_stability(source):
    """TestCelEstimatedCostStability: each rule, the only one of the schema, compiled at a
    node that is no resource's root, with exactly the estimated cost given."""
    return each_rule(source, "TestCelEstimatedCostStability", schema_helpers(),
                     lambda case, rule, schema, cost: {
                         "name": f"{case['name']}/{rule}", "schema": schema, "cost": cost,
                         "atLeast": 0})


def runtime_cost_stability(source):
    """TestCelCostStability: each rule, the only one of the schema, at a resource's root
    (NewValidator(s, true, PerCallLimit)), run on the object with the runtime budget: no
    error, and exactly the runtime cost given (the budget spent)."""
    env = schema_helpers()
    env["buildLargeArray"] = lambda n: list(range(n))
    return each_rule(source, "TestCelCostStability", env,
                     lambda case, rule, schema, cost: {
                         "name": f"{case['name']}/{rule}", "schema": schema,
                         "object": case["obj"], "cost": cost})


def validation_limit(source):
    """TestCELValidationLimit: each valid rule, at a node, with no budget left gives one
    Invalid error running out of the budget; at a resource's root with a per-call limit
    of 0, an Invalid error that the call cost exceeds the limit."""
    out = []
    for case in read_cases(source, "TestCELValidationLimit", schema_helpers()):
        if "unported" in case:
            out.append(case)
            continue
        for rule in case["valid"]:
            schema = copy.deepcopy(case["schema"])
            schema["x-kubernetes-validations"] = [{"rule": rule}]
            out.append({"name": f"{case['name']}/{rule}", "schema": schema, "object": case["obj"]})
    return out


def max_recursion_depth(source):
    """TestCELMaxRecursionDepth: each valid rule, at a node, gives no error; each rule of
    `errors`, at a resource's root, errors that are all Invalid and contain the text."""
    env = schema_helpers()
    env["maxValidDepth"] = 250
    out = []
    for case in read_cases(source, "TestCELMaxRecursionDepth", env):
        if "unported" in case:
            out.append(case)
            continue
        for rule in case.get("valid") or []:
            out.append({"name": f"{case['name']}/valid", "schema": case["schema"],
                        "object": case["obj"], "rule": rule})
        for rule, contains in (case.get("errors") or {}).items():
            out.append({"name": f"{case['name']}/error", "schema": case["schema"],
                        "object": case["obj"], "rule": rule, "error": contains})
    return out


def context_cancellation(source):
    """TestCELValidationContextCancellation: the rule on the object within the budget
    gives no error; evaluated after its request's context is cancelled, an error that the
    operation was interrupted."""
    env = schema_helpers()
    env["items"] = list(range(1000))
    out = []
    for case in read_cases(source, "TestCELValidationContextCancellation", env):
        if "unported" in case:
            out.append(case)
            continue
        schema = copy.deepcopy(case["schema"])
        schema["x-kubernetes-validations"] = [{"rule": case["rule"]}]
        out.append({"name": case["name"], "schema": schema, "object": case["obj"]})
    return out


def crd_validation(source):
    """TestValidateCustomResourceDefinitionValidation, the cases whose schema has rules:
    the schema (`statusEnabled` and `opts` as given), and the errors expected at or below
    an `x-kubernetes-validations` (their type and field, below `openAPIV3Schema`); the
    other errors (of the structural schema, which crdgen always writes) are left out."""
    class Match:
        def __init__(self, kind, path, contains=""):
            self.kind, self.path, self.contains = kind, path, contains

        def contains_(self, text):
            return Match(self.kind, self.path, text)

    def matcher(kind):
        return lambda *path: Match(kind, ".".join(path))

    env = schema_helpers()
    env.update({name: matcher(kind) for name, kind in (
        ("invalid", "FieldValueInvalid"), ("required", "FieldValueRequired"),
        ("forbidden", "FieldValueForbidden"), ("unsupported", "FieldValueNotSupported"),
        ("invalidtypecode", "FieldValueTypeInvalid"), ("duplicate", "FieldValueDuplicate"),
        ("tooMany", "FieldValueTooMany"), ("immutable", "FieldValueInvalid"))})
    env["invalidIndex"] = lambda i, *path: Match("FieldValueInvalid", ".".join(path) + f"[{i}]")
    # An environment set of compatibility version 1.N is a 1.N+1 apiserver's.
    env["environment.MustBaseEnvSet"] = lambda minor, *strict: {"kubeMinor": minor + 1}
    env["version.MajorMinor"] = lambda major, minor: minor
    for option in ("requireStructuralSchema", "requireValidPropertyType", "requireAtomicSetType",
                   "requireMapListKeysMapSetValidation", "allowDefaults", "requireRecognizedConversionReviewVersion",
                   "requirePrunedDefaults", "requireUniqueDefaults", "suppressPerExpressionCost"):
        env[option] = option
    env["jsonPtr"] = lambda v: v
    env["validValidationSchema"] = {"type": "object"}
    out = []
    prefix = "spec.validation.openAPIV3Schema"
    for case in read_cases(source, "TestValidateCustomResourceDefinitionValidation", env):
        if "unported" in case:
            if "x-kubernetes-validations" in json.dumps(case) or "XValidations" in case.get("unported", ""):
                out.append(case)
            continue
        schema = case.get("input")
        text = json.dumps(schema)
        matches = case.get("expectedErrors") or []
        if "x-kubernetes-validations" not in text:
            continue
        errors = [{"type": m.kind, "field": m.path[len(prefix) + 1:], "contains": m.contains}
                  for m in matches if "x-kubernetes-validations" in m.path or m.path == prefix]
        entry = {"name": case["name"], "schema": schema, "statusEnabled": bool(case.get("statusEnabled")),
                 "errors": errors, "otherErrors": len(matches) - len(errors)}
        environment = (case.get("opts") or {}).get("celEnvironmentSet")
        if environment:
            entry["kubeMinor"] = environment["kubeMinor"]
        out.append(entry)
    return out


LIBRARY_LITERALS = {
    "intListLiteral": "[1, 2, 3, 4, 5]",
    "uintListLiteral": "[uint(1), uint(2), uint(3), uint(4), uint(5)]",
    "doubleListLiteral": "[1.0, 2.0, 3.0, 4.0, 5.0]",
    "boolListLiteral": "[false, true, false, true, false]",
    "stringListLiteral": "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']",
    "bytesListLiteral": "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901')]",
    "durationListLiteral": "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]",
    "timestampListLiteral": "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), "
                            "timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), "
                            "timestamp('2011-01-05T00:00:00.000+01:00')]",
    "stringLiteral": "'01234567890123456789012345678901234567890123456789'",
}


# apiserver's cost_test.go tables of its libraries (TestAuthzLibrary's are of no CRD's
# environment; TestSize and TestTypeEquality call the estimator directly).
COST_TABLES = (
    "TestListsCost", "TestIndexOfCost", "TestURLsCost", "TestIPCost", "TestIPIsCanonicalCost",
    "TestCIDRCost", "TestStringLibrary", "TestQuantityCost", "TestNameFormatCost", "TestSetsCost",
    "TestSemverCost", "TestTwoVariableComprehensionCost")


def library_cost(func):
    """apiserver's pkg/cel/library cost tables (testCost): each expression, of no
    variables, with its estimated cost range and its runtime cost, in an environment of
    every Kubernetes library with no OptOptimize and string sizes unknown but 0..12."""
    def cost(c):
        return [c.Min, c.Max]

    def reader(source):
        env = dict(BASE_ENV, **LIBRARY_LITERALS)
        env["checker.CostEstimate"] = CostEstimate
        body = function_body(source, func)
        # The tables' own bindings (`ipv4 := "ip('192.168.0.1')"`), read in order.
        for name, value in re.findall(r"^\t(\w+) := (\"[^\"\n]*\"|checker\.CostEstimate\{[^}]*\}|uint64\(\d+\))$", body, re.M):
            env[name] = Evaluator(env).eval(Parser(tokenize(value)).expression())
        out = []
        var = "testCases" if "testCases := " in body else "cases"
        # TestCIDRCost's IPv4 and IPv6 cases are the shared ones and each family's own.
        tables = [(var, ["ipv4", "ipv6"])]
        if "ipv4Cases := " in body:
            tables = [("cases", ["ipv4", "ipv6"]), ("ipv4Cases", ["ipv4"]), ("ipv6Cases", ["ipv6"])]
        for name, families in tables:
            for case in read_cases(source, func, env, var=name):
                if "unported" in case:
                    out.append(case)
                    continue
                case["families"] = families
                out.extend(library_cost_cases(func, case, env))
        return out
    return reader


def library_cost_cases(func, case, env):
    """The expressions one case of a cost table stands for, as its loop makes them."""
    def entry(name, expr, estimated, runtime):
        return {"name": name, "expr": expr, "estimated": [estimated.Min, estimated.Max], "runtime": runtime}

    if "costs" in case:  # TestListsCost, TestIndexOfCost: each op on each literal
        out = []
        for op in case["opts"]:
            for typ in case["costs"]:
                with_param = go_sprintf(op, typ["param"]) if "%s" in op else op
                expr = typ["comparableLiteral"] + with_param
                out.append(entry(expr, expr, typ["expectedEstimatedCost"], typ["expectedRuntimeCost"]))
        return out
    if func == "TestURLsCost":
        return [entry("url." + op, "url('https:://kubernetes.io/')" + op, case["expectEsimatedCost"],
                      case["expectRuntimeCost"]) for op in case["ops"]]
    if func in ("TestIPCost", "TestCIDRCost"):
        # Each op on the IPv4 and the IPv6 address (or CIDR), the expectations made from
        # each one's base.
        out = []
        for family in case["families"]:
            base, estimated, runtime = env[family], env[family + "BaseEstimatedCost"], env[family + "BaseRuntimeCost"]
            for op in case["ops"]:
                out.append(entry(base + op, base + op, case["expectEsimatedCost"](estimated),
                                 case["expectRuntimeCost"](runtime)))
        return out
    if "op" in case:  # TestIPIsCanonicalCost
        return [entry(case["op"], case["op"], case["expectEsimatedCost"], case["expectRuntimeCost"])]
    estimated = case.get("expectEstimatedCost") or case.get("expectEsimatedCost")
    return [entry(case.get("name") or case["expr"], case["expr"], estimated, case["expectRuntimeCost"])]


def function_body(source, func):
    start = source.index(f"func {func}(")
    end = source.find("\nfunc ", start + 1)
    return source[start:end if end > 0 else len(source)]


def field_paths(source):
    """TestValidateFieldPath: each fieldPath on the test's schema (`sts`), with the text
    its error contains, or none (the path it resolves to is not compared)."""
    env = schema_helpers()
    body = function_body(source, "TestValidateFieldPath")
    literal = body[body.index("sts := ") + len("sts := "):body.index("\n\tpath := ")]
    env["sts"] = Evaluator(env).eval(Parser(tokenize(literal)).expression())

    class GoPath:
        def Child(self, *names):  # noqa: N802 (Go's names)
            return self

        Key = Child

    env["path"] = GoPath()
    out = []
    for case in read_cases(source, "TestValidateFieldPath", env):
        if "unported" in case:
            out.append(case)
            continue
        out.append({"name": case["name"], "schema": case["schema"], "fieldPath": case["fieldPath"],
                    "error": case.get("errDetail") or ""})
    return out


def library_compatibility(source):
    """TestLibraryCompatibility: the functions Kubernetes' libraries declare, each with the
    release its comment gives (the test checks the set of names only)."""
    body = function_body(source, "TestLibraryCompatibility")
    block = body[body.index("knownFunctions := sets.New("):body.index("// TODO: test celgo function lists")]
    out, since, seen = [], "", set()
    for line in block.split("\n"):
        comment = re.match(r"\s*// Kubernetes (.*):", line)
        if comment:
            since = comment.group(1)
            continue
        for name in re.findall(r'"([^"]+)"', line):
            if name not in seen:
                seen.add(name)
                out.append({"name": name, "since": since})
    return out


def fix_tabs(source):
    """validation_test.go's FixTabsOrDie: the first line's leading tabs off every line,
    the tabs left as indentation."""
    lines = source.split("\n")
    if lines and not lines[0] and len(lines) > 1:
        lines = lines[1:]
    prefix = lines[0][:len(lines[0]) - len(lines[0].lstrip("\t"))]
    fixed = [line[len(prefix):] if line.startswith(prefix) else line.strip() for line in lines]
    return "\n".join(line.replace("\t", "  ") for line in fixed)


def ratcheting(source):
    """TestRatcheting: the schema at a node that is no resource's root, the new object
    against the old with ratcheting on; exactly the errors expected (each containing its
    text), the ratcheted ones (`warnings`) not among them."""
    import yaml

    env = schema_helpers()
    env["mustSchema"] = lambda text: yaml.safe_load(fix_tabs(text))
    env["mustUnstructured"] = lambda text: yaml.safe_load(fix_tabs(text))
    out = []
    for case in read_cases(source, "TestRatcheting", env, var="cases"):
        if "unported" in case:
            out.append(case)
            continue
        entry = {"name": case["name"], "schema": case["schema"], "object": case.get("newObj"),
                 "old": case.get("oldObj"), "errors": case.get("errors") or [],
                 "ratcheted": case.get("warnings") or []}
        if case.get("runtimeCostBudget"):
            entry["costBudget"] = case["runtimeCostBudget"]
        out.append(entry)
    return out


def message_expressions(source):
    """TestMessageExpression: a rule `false` with the message and messageExpression on an
    object `{str: "a string"}` at a node that is no resource's root: exactly one error,
    containing the text; the cost budget, per-call limit and remaining budget as
    given (the runtime cost, which the validator does not count)."""
    out = []
    for case in read_cases(source, "TestMessageExpression", schema_helpers()):
        if "unported" in case:
            out.append(case)
            continue
        entry = {"name": case["name"], "messageExpression": case["messageExpression"],
                 "error": case.get("expectedValidationErr") or ""}
        if case.get("message"):
            entry["message"] = case["message"]
        for go, key in (("costBudget", "costBudget"), ("perCallLimit", "perCallLimit"),
                        ("expectedRemainingBudget", "remainingBudget")):
            if case.get(go):
                entry[key] = case[go]
        out.append(entry)
    return out


def compilation(source):
    """TestCelCompilation: the schema's rules compiled at a node that is no resource's
    root, each with what its compilation gives: no error, an Invalid error containing a
    text, a messageExpression error containing one, and whether it is a transition rule."""
    def matches_all(*matchers):
        merged = {}
        for m in matchers:
            if getattr(m, "type_name", None) == "fnMatcher":
                # A matcher of the test's own; the one it has is `cr.Program == nil`,
                # "program is nil": the rule compiles to nothing.
                if m.get("msg") != "program is nil":
                    raise Unported(f"a matcher of its own: {m.get('msg')}")
                m = {"program": None}
            merged.update(m)
        return merged

    env = schema_helpers()
    env.update({
        "noError": lambda: {"error": None},
        "invalidError": lambda text: {"error": text},
        "messageExpressionError": lambda text: {"messageExpressionError": text},
        "transitionRule": lambda t: {"transitionRule": t},
        "matchesAll": matches_all,
        "schema.Structural": None,
    })
    out = []
    for case in read_cases(source, "TestCelCompilation", env, var="cases"):
        if "unported" in case:
            out.append(case)
            continue
        if case.get("unmodified"):
            out.append({"name": case["name"], "unported": "a rule compiled as stored, with a test-only library"})
            continue
        results = case.get("expectedResults") or []
        if any(not isinstance(r, dict) for r in results):
            out.append({"name": case["name"], "unported": "a matcher of its own (fnMatcher)"})
            continue
        out.append({"name": case["name"], "schema": case["input"], "results": results})
    return out


# --- the library tables of kubernetes/apiserver's pkg/cel/library ------------------

class Cel(str):
    """A value the Go tests expect, as CEL that evaluates to it."""


def cel_string(text):
    return Cel(json.dumps(text, ensure_ascii=False))


def library_env(source, func):
    """The environment a library test's table is read in: the Go values it expects, as
    CEL, and the variables its function sets before the table."""
    env = dict(BASE_ENV)
    env.update({
        "types.True": Cel("true"), "types.False": Cel("false"),
        "types.OptionalNone": Cel("optional.none()"),
        "types.Bool": lambda b: Cel("true" if b else "false"),
        "types.Int": lambda n: Cel(str(int(n))), "types.Uint": lambda n: Cel(f"{int(n)}u"),
        "types.Double": lambda d: Cel(repr(float(d))),
        "types.String": cel_string,
        "types.OptionalOf": lambda v: Cel(f"optional.of({v})"),
        "types.NewStringList": lambda _adapter, items: Cel("[" + ", ".join(cel_string(i) for i in items) + "]"),
        "types.DefaultTypeAdapter": None,
        "netip.PrefixFrom": lambda addr, bits: Cel(f'{addr}/{bits}'),
        "semver.MustParse": lambda v: Cel(v),
        "resource.MustParse": lambda v: Cel(v),
    })
    body = source[source.index(f"func {func}("):]
    body = body[:body.index("cases := ")] if "cases := " in body else body
    for name, text in re.findall(r'(\w+), _ := netip\.Parse(?:Addr|Prefix)\("([^"]+)"\)', body):
        env[name] = Cel(text)
    for name, text in re.findall(r'(\w+) := resource\.MustParse\("([^"]+)"\)', body):
        env[name] = Cel(text)
    for name, value in re.findall(r'(\w+) := types\.(?:Bool|Int)\(([^)]+)\)', body):
        env[name] = Cel(value)
    return env


# How a library struct the tests expect is written in CEL.
LIBRARY_VALUES = {
    "apiservercel.IP": lambda f: f'ip("{f["Addr"]}")',
    "apiservercel.CIDR": lambda f: f'cidr("{f["Prefix"]}")',
    "apiservercel.Quantity": lambda f: f'quantity("{f["Quantity"]}")',
    "apiservercel.Semver": lambda f: f'semver("{f["Version"]}")',
}


def expected_cel(value):
    if isinstance(value, Struct):
        if value.type_name not in LIBRARY_VALUES:
            raise Unported(f"an expected {value.type_name}")
        return LIBRARY_VALUES[value.type_name](value)
    if isinstance(value, Cel):
        return str(value)
    raise Unported(f"an expected {value!r}")


def library_table(func, runtime_match):
    """A table of `expr` and what it evaluates to (`expectResult`/`expectValue`), fails with
    at run time (`expectRuntimeErr`: `runtime_match` is how the harness compares), or
    fails to compile with (`expectCompileErrs`: regular expressions)."""
    def reader(source):
        out = []
        for case in read_cases(source, func, library_env(source, func), var="cases"):
            if "unported" in case:
                out.append(case)
                continue
            entry = {"name": case.get("name") or case["expr"], "expr": case["expr"]}
            if case.get("version") is not None:
                entry["libraryVersion"] = case["version"]
            compile_errors = case.get("expectCompileErrs") or case.get("expectedCompileErr")
            runtime_error = case.get("expectRuntimeErr") or case.get("expectedRuntimeErr")
            expected = case.get("expectResult", case.get("expectValue"))
            try:
                if compile_errors:
                    entry["compileErrors"] = compile_errors
                elif runtime_error:
                    entry["runtimeError"] = {runtime_match: runtime_error}
                else:
                    entry["value"] = expected_cel(expected)
            except Unported as e:
                out.append({"name": entry["name"], "unported": str(e)})
                continue
            out.append(entry)
        return out
    return reader


APISERVER_TABLES = [
    ("pkg/cel/library/ip_test.go", "TestIP", library_table("TestIP", "exact")),
    ("pkg/cel/library/cidr_test.go", "TestCIDR", library_table("TestCIDR", "exact")),
    ("pkg/cel/library/quantity_test.go", "TestQuantity", library_table("TestQuantity", "pattern")),
    ("pkg/cel/library/semver_test.go", "TestSemver", library_table("TestSemver", "pattern")),
    ("pkg/cel/library/format_test.go", "TestFormat", library_table("TestFormat", "pattern")),
    ("pkg/cel/library/library_compatibility_test.go", "TestLibraryCompatibility", library_compatibility),
] + [("pkg/cel/library/cost_test.go", func, library_cost(func)) for func in COST_TABLES]


APIEXTENSIONS_TABLES = [
    ("pkg/apiserver/schema/cel/validation_test.go", "TestValidationExpressions", validation_expressions),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestValidationExpressionsAtSchemaLevels", schema_levels),
    ("pkg/apiserver/schema/cel/compilation_test.go", "TestCelCompilation", compilation),
    ("pkg/apiserver/schema/cel/compilation_test.go", "TestCostEstimation", cost_estimation),
    ("pkg/apiserver/schema/cel/celcoststability_test.go", "TestCelEstimatedCostStability",
     estimated_cost_stability),
    ("pkg/apiserver/schema/cel/celcoststability_test.go", "TestCelCostStability",
     runtime_cost_stability),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestCELValidationLimit", validation_limit),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestCELMaxRecursionDepth", max_recursion_depth),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestCELValidationContextCancellation",
     context_cancellation),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestReasonAndFldPath", reason_and_field_path),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestValidateFieldPath", field_paths),
    ("pkg/apis/apiextensions/validation/validation_test.go",
     "TestValidateCustomResourceDefinitionValidation", crd_validation),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestRatcheting", ratcheting),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestMessageExpression", message_expressions),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestOptionalOldSelf",
     optional_old_self("TestOptionalOldSelf", root=True)),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestOptionalOldSelfCheckForNull",
     optional_old_self("TestOptionalOldSelfCheckForNull", root=False, both_olds=True)),
    ("pkg/apiserver/schema/cel/validation_test.go", "TestOptionalOldSelfIsOptionalType",
     optional_old_self("TestOptionalOldSelfIsOptionalType", root=False)),
]


# Tables run by crdgen's own unit tests (through its generation checks), apart from
# tests/cel_apiserver.rs.
SUBDIRS = {"TestValidateCustomResourceDefinitionValidation": "crds"}
# And by crdgen-runtime's own unit tests (its runtime cost without OptOptimize).
SUBDIRS.update({func: "library" for func in COST_TABLES})


def write(name, document):
    out = os.path.join(OUT, SUBDIRS.get(document["function"], ""))
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=1, ensure_ascii=False, sort_keys=False, allow_nan=False)
        f.write("\n")
    return path


def port(repo, git_dir, tables, tags):
    newest = tags[0]
    for path, func, reader in tables:
        first = None
        for tag in tags:
            cases = reader(git_show(git_dir, tag, path))
            if first is None:
                first = cases
                document = {"repository": repo, "path": path, "function": func, "tag": tag, "cases": cases}
                written = write(f"{func}.json", document)
            else:
                known = {json.dumps(c, sort_keys=True) for c in first}
                differ = [c for c in cases if json.dumps(c, sort_keys=True) not in known]
                if not differ:
                    continue
                document = {"repository": repo, "path": path, "function": func, "tag": tag,
                            "differs_from": newest, "cases": differ}
                written = write(f"{func}.{tag}.json", document)
            n = len(cases)
            unported = sum("unported" in c for c in cases)
            print(f"{written}: {n} cases of {repo} {tag} {path} {func}, {unported} unported")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    apiextensions, apiserver, tags = sys.argv[1], sys.argv[2], sys.argv[3:]
    port("kubernetes/apiextensions-apiserver", apiextensions, APIEXTENSIONS_TABLES, tags)
    port("kubernetes/apiserver", apiserver, APISERVER_TABLES, tags)


if __name__ == "__main__":
    main()
