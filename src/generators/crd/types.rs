//! Rust types → OpenAPI v3 schemas, as serde puts them on the wire: field names after
//! `rename`/`rename_all`, optional fields out of `required`, `flatten`ed fields merged,
//! `skip`ped fields absent, enums in the structural form kube-derive uses.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::ecosystem::{self, Wire};
use super::object;
use crate::diag::{Code, Diagnostic, Diagnostics, Pos};
use crate::known;
use crate::markers::Marker;
use crate::markers::schema as markers;
use crate::model::{
    Alias, Body, Field, Fields, Model, Target, TypeDef, TypeKey, TypeRef, Variant, Version,
};

/// Where a schema is being built for, to report problems at.
#[derive(Clone, Copy)]
pub struct Site<'a> {
    pub file: &'a str,
    pub pos: Pos,
}

/// Type parameters of the type being built, bound to the arguments it was used with.
type Bindings = BTreeMap<String, TypeRef>;

pub struct Builder<'a> {
    pub model: &'a Model,
    /// `+kubebuilder:validation:Optional` on the package: fields are optional unless
    /// marked required.
    pub optional_by_default: bool,
    /// The Kubernetes version and options Kubernetes' own types are built for.
    pub known: known::Options,
    pub diags: &'a mut Diagnostics,
    /// The types being built, outermost first: a repeat is a recursive type.
    stack: Vec<TypeKey>,
}

impl<'a> Builder<'a> {
    pub fn new(model: &'a Model, known: known::Options, diags: &'a mut Diagnostics) -> Self {
        Builder {
            model,
            optional_by_default: false,
            known,
            diags,
            stack: Vec::new(),
        }
    }

    fn error(&mut self, site: Site<'_>, message: String, hint: &str) -> Value {
        self.diags.push(
            Diagnostic::error(Code::Unsupported, message)
                .at(site.file, site.pos)
                .hint(hint),
        );
        json!({})
    }

    /// A description from doc comments (cut to length with the rest, see `truncate`).
    pub fn description(&self, docs: &str) -> Option<Value> {
        (!docs.is_empty()).then(|| Value::String(docs.to_owned()))
    }

    /// The schema of a type as written at `site`.
    pub fn type_ref(&mut self, ty: &TypeRef, bindings: &Bindings, site: Site<'_>) -> Value {
        let (segments, args, target) = match ty {
            TypeRef::Path {
                segments,
                args,
                target,
                ..
            } => (segments, args, target),
            TypeRef::Array { elem, len } => return self.array(elem, len, bindings, site),
            TypeRef::Other(text) => {
                return self.error(
                    site,
                    format!("no schema for `{text}`"),
                    "API types use named types: structs, enums, String, integers, Vec, arrays, maps, Option",
                );
            }
        };
        let name = segments.last().map(String::as_str).unwrap_or_default();
        if segments.len() == 1
            && let Some(bound) = bindings.get(name)
        {
            return self.type_ref(&bound.clone(), &BTreeMap::new(), site);
        }
        match target.as_deref() {
            Some(Target::Local(key)) => {
                if let Some(alias) = self.alias(key) {
                    return self.alias_schema(alias, args, bindings);
                }
                let Some(def) = self.lookup(key) else {
                    return self.error(
                        site,
                        format!("`{name}` is not in the generated group versions"),
                        "generate its group version too",
                    );
                };
                self.type_def(def, args, bindings)
            }
            Some(Target::Absolute(path)) => {
                if let Some(schema) = self.builtin(path, name, args, bindings, site) {
                    return schema;
                }
                if let Some(schema) = self.ecosystem(path, name, args, bindings, site) {
                    return schema;
                }
                self.kubernetes(path, None, site)
            }
            None => {
                if let Some(schema) = self.builtin(name, name, args, bindings, site) {
                    return schema;
                }
                if let Some(schema) = self.ecosystem(name, name, args, bindings, site) {
                    return schema;
                }
                self.kubernetes(&segments.join("::"), Some(name), site)
            }
        }
    }

    /// `[T; N]`: serde writes its N items as a list.
    fn array(&mut self, elem: &TypeRef, len: &str, bindings: &Bindings, site: Site<'_>) -> Value {
        let Ok(n) = len.parse::<u64>() else {
            return self.error(
                site,
                format!("the length `{len}` of this array is not a number"),
                "write the length as a literal (`[u8; 4]`) or a `const` of this file (`const N: usize = 4;`), or use a Vec",
            );
        };
        object([
            ("type", "array".into()),
            ("items", self.type_ref(elem, bindings, site)),
            ("minItems", n.into()),
            ("maxItems", n.into()),
        ])
    }

    /// One of the everyday types of crates.io and std that `builtin` leaves out.
    fn ecosystem(
        &mut self,
        path: &str,
        name: &str,
        args: &[TypeRef],
        bindings: &Bindings,
        site: Site<'_>,
    ) -> Option<Value> {
        Some(match ecosystem::wire(path, name)? {
            Wire::Schema(schema) => schema,
            Wire::Argument(n, then) => then(self.argument(args, n, name, bindings, site)),
            Wire::Refused(message, hint) => self.error(site, message, hint),
        })
    }

    /// The schema of the type argument `i` of `name` (`T` of `Vec<T>`).
    fn argument(
        &mut self,
        args: &[TypeRef],
        i: usize,
        name: &str,
        bindings: &Bindings,
        site: Site<'_>,
    ) -> Value {
        match args.get(i) {
            Some(arg) => self.type_ref(arg, bindings, site),
            None => self.error(
                site,
                format!("`{name}` needs a type argument"),
                "write the full type, e.g. `Vec<String>`",
            ),
        }
    }

    /// A field marked `+kubebuilder:validation:Type=`: its type's schema where crdgen
    /// knows one, else only what its markers declare of its JSON form.
    fn declared(&mut self, ty: &TypeRef, bindings: &Bindings, at: Site<'_>) -> Value {
        let outer = std::mem::take(self.diags);
        let schema = self.type_ref(ty, bindings, at);
        let found = std::mem::replace(self.diags, outer).into_sorted();
        if found.iter().any(|d| d.code == Code::Unsupported) {
            return json!({});
        }
        self.diags.extend(found);
        schema
    }

    /// One of Kubernetes' own types (k8s-openapi's), as controller-gen writes it.
    fn kubernetes(&mut self, path: &str, bare_name: Option<&str>, site: Site<'_>) -> Value {
        const SCHEMALESS: &str = "mark the field `+kubebuilder:validation:Schemaless` and `+kubebuilder:pruning:PreserveUnknownFields`";
        match known::schema(path, bare_name, self.known) {
            Ok(Some(schema)) => schema,
            Ok(None) => self.error(
                site,
                format!("no schema for type `{path}`"),
                &format!("declare its JSON form with `+kubebuilder:validation:Type=string` (or `integer`, `object`…) and the markers that bound it; or use a type of the apis tree, std, k8s-openapi or the book's Rust types; or {SCHEMALESS}"),
            ),
            Err(problem @ known::Problem::NotInVersion { .. }) => self.error(
                site,
                problem.to_string(),
                "generate for a Kubernetes version that has it (--kube-version, the k8s-openapi feature the crate builds with), or use another type",
            ),
            Err(problem) => self.error(site, problem.to_string(), &format!("use another type, or {SCHEMALESS}")),
        }
    }

    /// The error for a type met again inside its own schema, which is infinite.
    fn recursion(&mut self, key: &TypeKey, at: Site<'_>) -> Option<Value> {
        let start = self.stack.iter().position(|k| k == key)?;
        let cycle: Vec<&str> = self.stack[start..]
            .iter()
            .chain([key])
            .map(|k| k.name.as_str())
            .collect();
        Some(self.error(
            at,
            format!("`{}` is recursive ({}), which a CRD schema cannot express", key.name, cycle.join(" → ")),
            "break the cycle, or mark the recursive field `+kubebuilder:validation:Schemaless` and `+kubebuilder:pruning:PreserveUnknownFields`",
        ))
    }

    fn alias(&self, key: &TypeKey) -> Option<&'a Alias> {
        self.version_of(key)?.aliases.get(&key.id())
    }

    /// The schema of what an alias with docs or markers names, with them applied, as
    /// controller-gen gives a Go alias's schema its own: a field's markers then go over
    /// it as over any named type's.
    fn alias_schema(&mut self, alias: &'a Alias, args: &[TypeRef], outer: &Bindings) -> Value {
        let bindings = bind(&alias.generics, args, outer);
        let here = Site {
            file: &alias.file,
            pos: alias.pos,
        };
        if let Some(error) = self.recursion(&alias.key, here) {
            return error;
        }
        self.stack.push(alias.key.clone());
        let mut schema = self.type_ref(&alias.ty, &bindings, here);
        self.stack.pop();
        if let Some(description) = self.description(&alias.docs) {
            schema["description"] = description;
        }
        markers::apply(&mut schema, &alias.markers, here.file, self.diags);
        schema
    }

    fn lookup(&self, key: &TypeKey) -> Option<&'a TypeDef> {
        self.model.type_def(key)
    }

    fn version_of(&self, key: &TypeKey) -> Option<&'a Version> {
        self.model.version_of(key)
    }

    /// std and primitive types, by path or bare name.
    fn builtin(
        &mut self,
        path: &str,
        name: &str,
        args: &[TypeRef],
        bindings: &Bindings,
        site: Site<'_>,
    ) -> Option<Value> {
        let std_path = !path.contains("::")
            || ["std::", "core::", "alloc::", "::std::"]
                .iter()
                .any(|p| path.starts_with(p));
        if !std_path {
            return None;
        }
        let arg = |b: &mut Self, i: usize| b.argument(args, i, name, bindings, site);
        Some(match name {
            "String" | "str" | "char" => json!({"type": "string"}),
            "bool" => json!({"type": "boolean"}),
            "i8" | "i16" | "i32" => json!({"type": "integer", "format": "int32"}),
            "u8" | "u16" => json!({"type": "integer", "format": "int32", "minimum": 0}),
            "i64" => json!({"type": "integer", "format": "int64"}),
            "u32" | "u64" => json!({"type": "integer", "format": "int64", "minimum": 0}),
            // As Go's `int` and `uint`, whose width is the machine's: no format.
            "isize" => json!({"type": "integer"}),
            "usize" => json!({"type": "integer", "minimum": 0}),
            // As controller-gen writes float32 and float64.
            "f32" | "f64" => json!({"type": "number"}),
            "Option" | "Box" | "Arc" | "Rc" => arg(self, 0),
            "Vec" | "VecDeque" => object([("type", "array".into()), ("items", arg(self, 0))]),
            "BTreeSet" | "HashSet" => object([
                ("type", "array".into()),
                ("items", arg(self, 0)),
                ("x-kubernetes-list-type", "set".into()),
            ]),
            "BTreeMap" | "HashMap" => object([
                ("type", "object".into()),
                ("additionalProperties", arg(self, 1)),
            ]),
            _ => return None,
        })
    }

    /// The schema of a type of the model, used with `args`.
    pub fn type_def(&mut self, def: &'a TypeDef, args: &[TypeRef], outer: &Bindings) -> Value {
        let here = Site {
            file: &def.file,
            pos: def.pos,
        };
        if let Some(error) = self.recursion(&def.key, here) {
            return error;
        }
        let bindings = bind(&def.generics, args, outer);
        // A type with its own `Serialize` is what its `Type` marker says, as controller-gen
        // takes a Go type with its own MarshalJSON: its fields are not what goes on the wire.
        if def.manual_serialize && crate::markers::TYPE.is_present(&def.markers) {
            let mut schema = json!({});
            markers::apply(&mut schema, &def.markers, here.file, self.diags);
            return schema;
        }
        self.stack.push(def.key.clone());
        // `serde(into = "T")`: the type is a `T` on the wire.
        let mut schema = if let Some(wire) = &def.serde.wire {
            self.type_ref(wire, &bindings, here)
        } else {
            match &def.body {
                Body::Struct(Fields::Named(fields))
                    if def.serde.transparent && fields.len() == 1 =>
                {
                    self.type_ref(fields[0].written_ty(), &bindings, here)
                }
                Body::Struct(Fields::Named(fields)) => self.object(fields, &bindings, here),
                Body::Struct(Fields::Tuple(fields)) if fields.len() == 1 => {
                    self.type_ref(fields[0].written_ty(), &bindings, here)
                }
                Body::Struct(_) => self.error(
                    here,
                    format!(
                        "`{}` is a tuple or unit struct, which has no JSON object form",
                        def.key.name
                    ),
                    "use named fields, or a newtype of one field",
                ),
                Body::Enum(variants) => self.enumeration(def, variants, &bindings, here),
            }
        };
        self.stack.pop();
        if let Some(description) = self.description(&def.docs) {
            schema["description"] = description;
        }
        markers::apply(&mut schema, &def.markers, here.file, self.diags);
        self.check_one_of(def, &schema);
        schema
    }

    /// A field of an `ExactlyOneOf`/`AtMostOneOf`/`AtLeastOneOf` group must be optional:
    /// a required one would always count (controller-gen refuses it too).
    fn check_one_of(&mut self, def: &TypeDef, schema: &Value) {
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for marker in &def.markers {
            let one_of = [
                &crate::markers::EXACTLY_ONE_OF,
                &crate::markers::AT_MOST_ONE_OF,
                &crate::markers::AT_LEAST_ONE_OF,
            ];
            if !one_of.contains(&marker.def) {
                continue;
            }
            let crate::markers::Value::List(names) = &marker.value else {
                continue;
            };
            // controller-gen refuses them too: `has(self.a.b)` fails, not false, on an
            // object without `a`.
            for name in names.iter().filter(|n| n.contains('.')) {
                self.diags.push(
                    Diagnostic::error(
                        Code::BadMarkerArgument,
                        format!("`+{}` names `{name}`, a nested field", marker.name),
                    )
                    .at(&def.file, marker.pos)
                    .hint("a one-of group names fields of this type: put the marker on the type of the field that holds them"),
                );
            }
            for name in names.iter().filter(|n| required.contains(&n.as_str())) {
                self.diags.push(
                    Diagnostic::error(
                        Code::BadMarkerArgument,
                        format!("field `{name}` of `{}` is in a `+{}` group, and required", def.key.name, marker.name),
                    )
                    .at(&def.file, marker.pos)
                    .hint("a field of a one-of group is optional: make it an Option, or `#[serde(default)]`"),
                );
            }
        }
    }

    /// An object from named fields.
    fn object(&mut self, fields: &'a [Field], bindings: &Bindings, site: Site<'_>) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        let mut preserve = false;
        let mut immutable = Vec::new();
        for field in fields.iter().filter(|f| !f.serde.skip) {
            let at = Site {
                file: site.file,
                pos: field.pos,
            };
            if field.serde.flatten {
                if is_type_meta(&field.ty) {
                    continue;
                }
                let inner = self.type_ref(field.written_ty(), bindings, at);
                if let Some(Value::Object(props)) = inner.get("properties") {
                    properties.extend(props.clone());
                }
                if let (Some(Value::Array(req)), false) = (inner.get("required"), field.optional) {
                    required.extend(req.iter().filter_map(Value::as_str).map(str::to_owned));
                }
                preserve |= inner.get("additionalProperties").is_some()
                    || inner.get("x-kubernetes-preserve-unknown-fields").is_some();
                continue;
            }
            let wire = field
                .wire_name
                .clone()
                .unwrap_or_else(|| field.name.clone());
            // Schemaless: the type is not looked at (it may have no schema at all).
            let schemaless = crate::markers::SCHEMALESS.is_present(&field.markers);
            let written_with = field
                .serde
                .with
                .as_deref()
                .and_then(ecosystem::written_with);
            let mut schema = if schemaless {
                json!({})
            } else if let Some(schema) = written_with {
                schema
            } else if crate::markers::TYPE.is_present(&field.markers) {
                // A `with` of its own writes what the markers say, not what the type is.
                match &field.serde.with {
                    Some(_) => json!({}),
                    None => self.declared(field.written_ty(), bindings, at),
                }
            } else {
                self.type_ref(field.written_ty(), bindings, at)
            };
            if let Some(description) = self.description(&field.docs) {
                schema["description"] = description;
            }
            // An Option without skip_serializing_if goes on the wire as null.
            if field.ty.option_inner().is_some() && !field.serde.skip_serializing_if {
                schema["nullable"] = json!(true);
            }
            if !schemaless && self.is_named(field.written_ty()) {
                self.apply_over_type(&mut schema, &field.markers, at.file);
            } else {
                markers::apply(&mut schema, &field.markers, at.file, self.diags);
            }
            let is_required = self.is_required(field);
            if is_required {
                required.push(wire.clone());
            }
            // The field's own rule keeps its value; this one keeps it from being
            // taken away once set, which the field's rule cannot see.
            if !is_required && crate::markers::IMMUTABLE.is_present(&field.markers) {
                immutable.push(wire.clone());
            }
            properties.insert(wire, schema);
        }
        let mut schema = json!({"type": "object"});
        if !properties.is_empty() {
            schema["properties"] = Value::Object(properties);
        }
        if !required.is_empty() {
            required.sort();
            required.dedup();
            schema["required"] = json!(required);
        }
        if preserve {
            schema["x-kubernetes-preserve-unknown-fields"] = json!(true);
        }
        for name in immutable {
            let rule = json!({
                "rule": format!("!has(oldSelf.{name}) || has(self.{name})"),
                "message": format!("field {name} is immutable once set"),
            });
            crate::markers::schema::push_rule(&mut schema, rule);
        }
        schema
    }

    /// Whether a field's type is a named type (one of the apis tree or of Kubernetes),
    /// through `Option` and pointers: what controller-gen refers to and flattens.
    fn is_named(&self, ty: &TypeRef) -> bool {
        match ty {
            TypeRef::Path { args, .. }
                if matches!(ty.last_segment(), Some("Option" | "Box" | "Arc" | "Rc"))
                    && args.len() == 1 =>
            {
                self.is_named(&args[0])
            }
            TypeRef::Path {
                target: Some(target),
                ..
            } => match &**target {
                Target::Local(_) => true,
                Target::Absolute(path) => known::knows(path),
            },
            _ => false,
        }
    }

    /// A field's markers over the schema of its named type, as controller-gen flattens
    /// the two: the field's CEL rules come before the type's, and a bound both set is
    /// kept twice (`allOf` of the type's and the field's), so that a value meets both.
    fn apply_over_type(&mut self, schema: &mut Value, field_markers: &[Marker], file: &str) {
        const BOUNDS: &[&str] = &[
            "maximum",
            "minimum",
            "exclusiveMaximum",
            "exclusiveMinimum",
            "multipleOf",
            "maxLength",
            "minLength",
            "pattern",
            "maxItems",
            "minItems",
            "maxProperties",
            "minProperties",
            "enum",
        ];
        if field_markers.is_empty() {
            return;
        }
        let type_rules = schema
            .as_object_mut()
            .and_then(|m| m.remove("x-kubernetes-validations"));
        // Only the type's bounds are kept aside: the schema may be large.
        let before: Vec<(&str, Value)> = BOUNDS
            .iter()
            .filter_map(|key| Some((*key, schema.get(*key)?.clone())))
            .collect();
        markers::apply(schema, field_markers, file, self.diags);
        let (mut types, mut fields) = (Map::new(), Map::new());
        for (key, theirs) in before {
            if let Some(ours) = schema.get(key)
                && *ours != theirs
            {
                types.insert(key.to_owned(), theirs);
                fields.insert(key.to_owned(), ours.clone());
            }
        }
        if let Some(map) = schema.as_object_mut() {
            if !types.is_empty() {
                map.retain(|k, _| !types.contains_key(k));
                map.insert(
                    "allOf".into(),
                    json!([Value::Object(types), Value::Object(fields)]),
                );
            }
            if let Some(Value::Array(type_rules)) = type_rules {
                let rules = map
                    .entry("x-kubernetes-validations")
                    .or_insert_with(|| json!([]));
                if let Value::Array(rules) = rules {
                    rules.extend(type_rules);
                }
            }
        }
    }

    fn is_required(&self, field: &Field) -> bool {
        use crate::markers::{
            K8S_OPTIONAL, K8S_REQUIRED, OPTIONAL, OPTIONAL_BY_DEFAULT, REQUIRED,
            REQUIRED_BY_DEFAULT,
        };
        let has = |marker: &crate::markers::MarkerDef| marker.is_present(&field.markers);
        let explicit_required = has(&REQUIRED) || has(&K8S_REQUIRED) || has(&REQUIRED_BY_DEFAULT);
        let explicit_optional = has(&OPTIONAL) || has(&K8S_OPTIONAL) || has(&OPTIONAL_BY_DEFAULT);
        explicit_required || (!field.optional && !explicit_optional && !self.optional_by_default)
    }

    /// Enums in the form serde gives them, kept structural as kube-derive does.
    fn enumeration(
        &mut self,
        def: &'a TypeDef,
        variants: &'a [Variant],
        bindings: &Bindings,
        site: Site<'_>,
    ) -> Value {
        let variants: Vec<&Variant> = variants
            .iter()
            .filter(|v| !v.serde.skip && !v.serde.other)
            .collect();
        let names: Vec<&str> = variants.iter().map(|v| v.wire_name.as_str()).collect();
        let all_unit = variants.iter().all(|v| matches!(v.fields, Fields::Unit));
        let serde = &def.serde;
        match (&serde.tag, &serde.content, serde.untagged) {
            (None, _, false) if all_unit => json!({"type": "string", "enum": names}),
            (None, _, false) => {
                if variants.iter().any(|v| matches!(v.fields, Fields::Unit)) {
                    return self.error(site, format!("`{}` mixes unit and data variants: on the wire that is a string or an object", def.key.name), "give every variant data, or tag the enum (`#[serde(tag = \"type\")]`)");
                }
                let mut properties = Map::new();
                let mut one_of = Vec::new();
                for v in &variants {
                    properties.insert(v.wire_name.clone(), self.variant_payload(v, bindings, site));
                    one_of.push(json!({"required": [v.wire_name]}));
                }
                object([
                    ("type", "object".into()),
                    ("properties", Value::Object(properties)),
                    ("oneOf", Value::Array(one_of)),
                ])
            }
            (Some(tag), None, false) => {
                let mut properties = Map::new();
                for v in &variants {
                    if let Some(Value::Object(props)) =
                        self.variant_payload(v, bindings, site).get("properties")
                    {
                        properties.extend(props.clone());
                    }
                }
                properties.insert(tag.clone(), json!({"type": "string", "enum": names}));
                object([
                    ("type", "object".into()),
                    ("properties", Value::Object(properties)),
                    ("required", json!([tag])),
                ])
            }
            (Some(tag), Some(content), false) => json!({
                "type": "object",
                "properties": {
                    tag: {"type": "string", "enum": names},
                    content: {"x-kubernetes-preserve-unknown-fields": true},
                },
                "required": [tag],
            }),
            (_, _, true) => {
                let payloads: Vec<Value> = variants
                    .iter()
                    .map(|v| self.variant_payload(v, bindings, site))
                    .collect();
                let types: Vec<&Value> = payloads.iter().map(|p| &p["type"]).collect();
                if payloads.is_empty() || types.iter().any(|t| *t != types[0]) {
                    return self.error(site, format!("the variants of untagged `{}` have different JSON types", def.key.name), "a CRD schema gives a field one type: make the variants all objects, or all of one kind");
                }
                let mut merged = payloads[0].clone();
                let mut properties = Map::new();
                for payload in &payloads {
                    if let Some(Value::Object(props)) = payload.get("properties") {
                        properties.extend(props.clone());
                    }
                }
                if let Some(map) = merged.as_object_mut() {
                    map.remove("required");
                    if !properties.is_empty() {
                        map.insert("properties".into(), Value::Object(properties));
                    }
                }
                merged
            }
        }
    }

    fn variant_payload(
        &mut self,
        variant: &'a Variant,
        bindings: &Bindings,
        site: Site<'_>,
    ) -> Value {
        let at = Site {
            file: site.file,
            pos: variant.pos,
        };
        let mut schema = match &variant.fields {
            Fields::Named(fields) => self.object(fields, bindings, at),
            Fields::Tuple(fields) if fields.len() == 1 => {
                self.type_ref(fields[0].written_ty(), bindings, at)
            }
            Fields::Tuple(_) => self.error(
                at,
                format!(
                    "variant `{}` has several unnamed fields, a JSON array of mixed types",
                    variant.name
                ),
                "give the variant named fields",
            ),
            Fields::Unit => json!({"type": "object"}),
        };
        if let Some(description) = self.description(&variant.docs) {
            schema["description"] = description;
        }
        schema
    }
}

/// A generic type's or alias's parameters bound to the arguments it is used with, which
/// are written in the user's scope: resolved there (`outer`), then bound.
fn bind(generics: &[String], args: &[TypeRef], outer: &Bindings) -> Bindings {
    generics
        .iter()
        .cloned()
        .zip(args.iter().map(|a| a.substituted(outer)))
        .collect()
}

fn is_type_meta(ty: &TypeRef) -> bool {
    ty.last_segment() == Some("TypeMeta")
        || ty.option_inner().and_then(TypeRef::last_segment) == Some("TypeMeta")
}
