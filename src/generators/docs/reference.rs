//! What the reference says of each kind, read from the CRD the crd generator builds for
//! it (so that the page says what the apiserver enforces) and from the model (for the
//! Rust type behind each field: the project's own, linked within the page, and
//! Kubernetes' own, linked to their reference and not expanded).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::words;
use crate::known::KubeVersion;
use crate::model::{Body, Fields, Kind, KindStyle, Model, Target, TypeDef, TypeRef};
use crate::naming::docs as names;

/// One kind in one version.
pub struct KindDoc {
    pub kind: String,
    pub anchor: String,
    pub plural: String,
    pub scope: String,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub description: String,
    /// Every version of the kind's CRD, this one marked.
    pub versions: Vec<VersionInfo>,
    pub columns: Vec<Column>,
    /// `status`, `scale (spec.replicas → status.replicas)`.
    pub subresources: Vec<String>,
    /// The rules on the object as a whole.
    pub rules: Vec<Rule>,
    pub rows: Vec<Row>,
    pub samples: Vec<Sample>,
}

pub struct VersionInfo {
    pub name: String,
    pub served: bool,
    pub storage: bool,
    /// Its deprecation warning (the default one when the CRD gives none), when it is
    /// deprecated.
    pub deprecation: Option<String>,
    /// The version this page is of.
    pub this: bool,
}

impl KindDoc {
    /// Every version with what it is, this page's in bold, each name made safe by
    /// `escape`: `<b>v1</b> (served, storage) · v1beta1 (served, deprecated)`.
    pub fn versions_line(&self, escape: impl Fn(&str) -> String) -> String {
        let all: Vec<String> = self
            .versions
            .iter()
            .map(|v| match v.this {
                true => format!("<b>{}</b> ({})", escape(&v.name), v.states()),
                false => format!("{} ({})", escape(&v.name), v.states()),
            })
            .collect();
        all.join(" · ")
    }

    /// This page's version's deprecation warning, when it is deprecated.
    pub fn deprecation(&self) -> Option<&str> {
        self.versions
            .iter()
            .find(|v| v.this)
            .and_then(|v| v.deprecation.as_deref())
    }
}

impl VersionInfo {
    /// What the version is, in words: `served, storage`, `not served`, `…, deprecated`.
    fn states(&self) -> String {
        let mut states = vec![if self.served { "served" } else { "not served" }];
        if self.storage {
            states.push("storage");
        }
        if self.deprecation.is_some() {
            states.push("deprecated");
        }
        states.join(", ")
    }
}

/// An `additionalPrinterColumns` entry.
pub struct Column {
    pub name: String,
    pub ty: String,
    pub json_path: String,
    pub description: String,
    pub priority: i64,
}

/// One field, at its depth in the kind's tree.
pub struct Row {
    pub anchor: String,
    pub depth: usize,
    /// Its JSON path from the root: `spec.ports[].name`.
    pub path: String,
    /// Its JSON name: `name`.
    pub name: String,
    pub ty: TypeText,
    pub required: bool,
    pub default: Option<String>,
    pub description: String,
    /// Every validation of the schema, in words.
    pub validations: Vec<String>,
    pub rules: Vec<Rule>,
}

/// A field's type as the page shows it: the schema's type, and the Rust type behind it
/// where there is one worth naming, linked: `[]` + `Endpoint`, `map[string]` + `string`.
pub struct TypeText {
    /// The lists and maps around it: `[]`, `map[string]`.
    pub around: String,
    /// `integer (int32)`, `Endpoint`.
    pub name: String,
    /// Where `name` links, when it names a type.
    pub link: Option<Link>,
}

pub enum Link {
    /// An anchor of this page (the project's own type, expanded there).
    Internal(String),
    /// The Kubernetes API reference.
    External(String),
}

/// An `x-kubernetes-validations` rule.
pub struct Rule {
    pub rule: String,
    /// Its message, or the expression that makes it.
    pub message: Option<String>,
}

/// A sample of the kind from the project's samples directory.
pub struct Sample {
    pub file: String,
    pub text: String,
}

/// What a schema node is in Rust, as far as the model says.
#[derive(Clone, Copy)]
enum Shape<'m> {
    /// Nothing known: the schema alone speaks.
    Unknown,
    /// The fields of a kind's root (kube-derive kinds have no struct of it).
    Root(&'m Kind),
    /// A struct or enum of the project.
    Own(&'m TypeDef),
    /// A type of Kubernetes (a k8s-openapi path).
    Kubernetes(&'m str),
    /// A list or set of the inner type (the schema's `items`).
    List(&'m TypeRef),
    /// A map of the inner type (the schema's `additionalProperties`).
    Map(&'m TypeRef),
}

/// The reference of one kind's version: `crd` as the crd generator builds it, `version`
/// of it.
pub fn kind_doc(
    model: &Model,
    crd: &Value,
    kind: &Kind,
    version: &str,
    kube_version: KubeVersion,
) -> KindDoc {
    let spec = &crd["spec"];
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    let group = spec["group"].as_str().unwrap_or_default();
    let anchor = names::kind_anchor(group, version, &kind.name);
    let versions: Vec<&Value> = spec["versions"].as_array().into_iter().flatten().collect();
    let this = crd_version(crd, version);
    let root = &this["schema"]["openAPIV3Schema"];
    let mut walk = Walk {
        model,
        kube_version,
        kind_anchor: &anchor,
        expanded: HashMap::new(),
        rows: Vec::new(),
    };
    walk.object(root, Shape::Root(kind), "", 0);
    KindDoc {
        kind: kind.name.clone(),
        plural: text(&spec["names"]["plural"]),
        scope: text(&spec["scope"]),
        short_names: strings(&spec["names"]["shortNames"]),
        categories: strings(&spec["names"]["categories"]),
        description: text(&root["description"]),
        versions: versions
            .iter()
            .map(|v| VersionInfo {
                name: text(&v["name"]),
                served: v["served"] == true,
                storage: v["storage"] == true,
                deprecation: (v["deprecated"] == true).then(|| {
                    v["deprecationWarning"]
                        .as_str()
                        .unwrap_or("this version is deprecated")
                        .to_owned()
                }),
                this: v["name"] == version,
            })
            .collect(),
        columns: this["additionalPrinterColumns"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| Column {
                name: text(&c["name"]),
                ty: text(&c["type"]),
                json_path: text(&c["jsonPath"]),
                description: text(&c["description"]),
                priority: c["priority"].as_i64().unwrap_or(0),
            })
            .collect(),
        subresources: subresources(&this["subresources"]),
        rules: rules(root),
        rows: walk.rows,
        samples: Vec::new(),
        anchor,
    }
}

/// The entry of `version` in a CRD's `spec.versions` (null when it has none).
pub fn crd_version<'v>(crd: &'v Value, version: &str) -> &'v Value {
    crd["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["name"] == version)
        .unwrap_or(&Value::Null)
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// The subresources, in words.
fn subresources(subresources: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if subresources.get("status").is_some() {
        out.push("status".to_owned());
    }
    if let Some(scale) = subresources.get("scale") {
        let mut words = format!(
            "scale ({} → {}",
            text(&scale["specReplicasPath"]),
            text(&scale["statusReplicasPath"])
        );
        if let Some(selector) = scale["labelSelectorPath"].as_str() {
            words.push_str(&format!(", selector {selector}"));
        }
        words.push(')');
        out.push(words);
    }
    out
}

/// A node's `x-kubernetes-validations`.
fn rules(node: &Value) -> Vec<Rule> {
    node["x-kubernetes-validations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| Rule {
            rule: text(&r["rule"]),
            message: r["message"]
                .as_str()
                .or_else(|| r["messageExpression"].as_str())
                .map(str::to_owned),
        })
        .collect()
}

struct Walk<'m, 'a> {
    model: &'m Model,
    kube_version: KubeVersion,
    kind_anchor: &'a str,
    /// Each own type expanded so far, with the anchor of the row it is expanded at:
    /// where it comes again, the row links there.
    expanded: HashMap<String, String>,
    rows: Vec<Row>,
}

impl<'m> Walk<'m, '_> {
    /// The rows of an object's properties, in the Rust type's field order where the
    /// model has it (else the schema's, by name).
    fn object(&mut self, node: &Value, shape: Shape<'m>, path: &str, depth: usize) {
        let Some(properties) = node["properties"].as_object() else {
            return;
        };
        let required: Vec<&str> = node["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        // The Rust fields behind the properties, found once for their order and types.
        let fields = self.fields(shape);
        for name in field_order(properties, shape, &fields) {
            let prop = &properties[name];
            let child = match fields.iter().find(|(wire, _)| *wire == name) {
                Some((_, ty)) => self.shape(ty),
                None => self.root_field_shape(shape, name),
            };
            let path = if path.is_empty() {
                name.to_owned()
            } else {
                format!("{path}.{name}")
            };
            self.field(prop, child, &path, name, required.contains(&name), depth);
        }
    }

    /// The fields on the wire of the struct behind an object of `shape`, in order.
    fn fields(&self, shape: Shape<'m>) -> Vec<(&'m str, &'m TypeRef)> {
        let def = match shape {
            Shape::Own(def) => Some(def),
            Shape::Root(kind) if kind.style == KindStyle::Markers => {
                self.model.type_def(&kind.root)
            }
            _ => None,
        };
        let mut fields = Vec::new();
        if let Some(def) = def {
            wire_fields(self.model, def, &mut fields);
        }
        fields
    }

    fn field(
        &mut self,
        prop: &Value,
        shape: Shape<'m>,
        path: &str,
        name: &str,
        required: bool,
        depth: usize,
    ) {
        let anchor = names::field_anchor(self.kind_anchor, path);
        let (ty, expand) = self.type_text(prop, shape, &anchor);
        self.rows.push(Row {
            anchor: anchor.clone(),
            depth,
            path: path.to_owned(),
            name: name.to_owned(),
            ty,
            required,
            default: prop.get("default").map(Value::to_string),
            description: text(&prop["description"]),
            validations: words::of(prop),
            rules: rules(prop),
        });
        if let Some((node, shape, suffix)) = expand {
            self.object(node, shape, &format!("{path}{suffix}"), depth + 1);
        }
    }

    /// A field's type text and, when its object is to be expanded below it, that
    /// object's node, shape and path suffix (`[]` below a list, `{}` below a map).
    fn type_text<'v>(
        &mut self,
        prop: &'v Value,
        shape: Shape<'m>,
        anchor: &str,
    ) -> (TypeText, Option<(&'v Value, Shape<'m>, String)>) {
        // Through lists and maps to what they hold: `[]map[string]Endpoint`.
        let (mut node, mut inner) = (prop, shape);
        let (mut prefix, mut suffix) = (String::new(), String::new());
        loop {
            let (key, list) = match schema_type(node) {
                "array" if node["items"].is_object() => ("items", true),
                "object" if node["additionalProperties"].is_object() => {
                    ("additionalProperties", false)
                }
                _ => break,
            };
            prefix.push_str(if list { "[]" } else { "map[string]" });
            suffix.push_str(if list { "[]" } else { "{}" });
            inner = self.element(inner, list);
            node = &node[key];
        }
        let expandable = node["properties"].is_object();
        let typed = |name: String, link: Option<Link>| TypeText {
            around: prefix.clone(),
            name,
            link,
        };
        match inner {
            Shape::Kubernetes(path) => {
                let name = path.rsplit("::").next().unwrap_or(path).to_owned();
                let link = crate::known::go_name(path, self.kube_version)
                    .and_then(|go| names::kubernetes_reference(&go, self.kube_version.minor()))
                    .map(Link::External);
                (typed(name, link), None)
            }
            Shape::Own(def) if expandable => {
                let key = format!("{}/{}/{}", def.key.group, def.key.version, def.key.id());
                let name = def.key.name.clone();
                // The first field of the type has it expanded below it; the others link
                // there.
                match self.expanded.get(&key) {
                    Some(at) => (typed(name, Some(Link::Internal(at.clone()))), None),
                    None => {
                        self.expanded.insert(key, anchor.to_owned());
                        let link = Some(Link::Internal(anchor.to_owned()));
                        (typed(name, link), Some((node, inner, suffix)))
                    }
                }
            }
            _ if expandable => (
                typed("object".to_owned(), None),
                Some((node, inner, suffix)),
            ),
            _ => (typed(scalar_words(node), None), None),
        }
    }

    /// The shape of a list's items (`list`) or a map's values, of a field of `shape`.
    fn element(&self, shape: Shape<'m>, list: bool) -> Shape<'m> {
        match shape {
            Shape::List(inner) if list => self.shape(inner),
            Shape::Map(inner) if !list => self.shape(inner),
            _ => Shape::Unknown,
        }
    }

    /// The shape of the field `name` of a kube-derive kind's root, which has no struct
    /// of its own in the model.
    fn root_field_shape(&self, shape: Shape<'m>, name: &str) -> Shape<'m> {
        let Shape::Root(kind) = shape else {
            return Shape::Unknown;
        };
        let of = |ty: &'m Option<TypeRef>| ty.as_ref().map_or(Shape::Unknown, |t| self.shape(t));
        match (kind.style, name) {
            (KindStyle::KubeDerive, "spec") => of(&kind.spec),
            (KindStyle::KubeDerive, "status") => of(&kind.status),
            (KindStyle::KubeDerive, "metadata") => Shape::Kubernetes(OBJECT_META),
            _ => Shape::Unknown,
        }
    }

    /// What a Rust type is, its wrappers (`Option`, `Box`) seen through.
    fn shape(&self, ty: &'m TypeRef) -> Shape<'m> {
        let TypeRef::Path {
            segments,
            args,
            target,
            ..
        } = ty
        else {
            return Shape::Unknown;
        };
        let last = segments.last().map(String::as_str).unwrap_or_default();
        match (target.as_deref(), last, args.as_slice()) {
            (Some(Target::Local(key)), ..) => {
                self.model.type_def(key).map_or(Shape::Unknown, Shape::Own)
            }
            (Some(Target::Absolute(path)), ..)
                if crate::known::go_name(path, self.kube_version).is_some() =>
            {
                Shape::Kubernetes(path)
            }
            (_, "Option" | "Box" | "Arc" | "Rc", [inner]) => self.shape(inner),
            (_, "Vec" | "VecDeque" | "BTreeSet" | "HashSet", [inner]) => Shape::List(inner),
            (_, "BTreeMap" | "HashMap", [_, value]) => Shape::Map(value),
            _ => Shape::Unknown,
        }
    }
}

/// k8s-openapi's ObjectMeta, every kind's `metadata`.
const OBJECT_META: &str = "k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta";

/// The fields of a struct as they are on the wire, in order: each one's JSON name and
/// its type as written, a flattened struct's fields in its place.
fn wire_fields<'m>(model: &'m Model, def: &'m TypeDef, out: &mut Vec<(&'m str, &'m TypeRef)>) {
    let Body::Struct(Fields::Named(fields)) = &def.body else {
        return;
    };
    for field in fields.iter().filter(|f| !f.serde.skip) {
        let ty = field.written_ty();
        if field.serde.flatten {
            if let TypeRef::Path { target, .. } = ty.option_inner().unwrap_or(ty)
                && let Some(Target::Local(key)) = target.as_deref()
                && let Some(flattened) = model.type_def(key)
            {
                wire_fields(model, flattened, out);
            }
        } else if let Some(name) = &field.wire_name {
            out.push((name, ty));
        }
    }
}

/// The properties' names in the Rust type's field order (its `fields`), a kind's type
/// meta first, then any the type does not name, by name.
fn field_order<'v>(
    properties: &'v Map<String, Value>,
    shape: Shape<'_>,
    fields: &[(&str, &TypeRef)],
) -> Vec<&'v str> {
    let first: &[&str] = match shape {
        // kube-derive's root, which the model has no struct of, as it serializes.
        Shape::Root(kind) if kind.style == KindStyle::KubeDerive => {
            &["apiVersion", "kind", "metadata", "spec", "status"]
        }
        Shape::Root(_) => &["apiVersion", "kind"],
        _ => &[],
    };
    let named = first
        .iter()
        .copied()
        .chain(fields.iter().map(|(name, _)| *name));
    let mut out: Vec<&str> = Vec::new();
    for name in named {
        if let Some((key, _)) = properties.get_key_value(name)
            && !out.contains(&key.as_str())
        {
            out.push(key);
        }
    }
    for key in properties.keys() {
        if !out.contains(&key.as_str()) {
            out.push(key);
        }
    }
    out
}

/// The schema's `type`, `int-or-string` and free-form objects said apart.
fn schema_type(node: &Value) -> &str {
    node["type"].as_str().unwrap_or_default()
}

/// A scalar's type in words: `integer (int32)` (a number's width), `int or string`,
/// `any`. A string's format is a validation, said with the others.
fn scalar_words(node: &Value) -> String {
    if node["x-kubernetes-int-or-string"] == true {
        return "int or string".to_owned();
    }
    match (schema_type(node), node["format"].as_str()) {
        ("", _) => "any".to_owned(),
        (ty @ ("integer" | "number"), Some(format)) => format!("{ty} ({format})"),
        (ty, _) => ty.to_owned(),
    }
}
