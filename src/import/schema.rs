//! A CRD version's schema as Rust items: a struct per object with properties, an enum
//! per list of strings that make Rust names, an alias where a list's items or a map's
//! values carry validations of their own; and the markers that write the rest of each
//! node back. What no marker writes, the round-trip check names.

use serde_json::Value;

use super::markers::{self, Site};
use crate::known::QUANTITY_PATTERN;
use crate::model::rename::RenameRule;
use crate::naming::import::{FieldNames, TypeNames, variants};

/// A Rust item of an imported package.
pub enum Item {
    Struct(Struct),
    Enum(Enum),
    /// `pub type Name = Target;`, carrying the markers of a list's items or a map's
    /// values that are no struct or enum of their own.
    Alias {
        name: String,
        doc: Option<String>,
        markers: Vec<String>,
        target: String,
    },
}

pub struct Struct {
    pub name: String,
    /// A kind's `metadata` is required (not filled in with a default when missing).
    pub metadata_required: bool,
    pub doc: Option<String>,
    pub markers: Vec<String>,
    pub fields: Vec<Field>,
}

pub struct Field {
    /// The Rust name (raw where a keyword).
    pub name: String,
    /// The JSON name, where `rename_all = "camelCase"` does not give it.
    pub rename: Option<String>,
    pub ty: String,
    pub doc: Option<String>,
    pub markers: Vec<String>,
    /// Not in the schema's `required`: an `Option`, left out when `None`...
    pub optional: bool,
    /// ...unless the schema allows `null`.
    pub nullable: bool,
}

pub struct Enum {
    pub name: String,
    pub doc: Option<String>,
    pub markers: Vec<String>,
    /// Each variant's name and, where it differs, its JSON value.
    pub variants: Vec<(String, Option<String>)>,
}

/// What a node is in Rust: the type, the keywords it writes by itself, the markers it
/// needs beside them, and whether it is an item of the package (a struct or enum that
/// can carry the node's markers and description itself).
struct Typed {
    rust: String,
    implied: Implied,
    extra: Vec<String>,
    item: bool,
}

/// The keywords of a node its Rust type writes by itself.
enum Implied {
    These(&'static [&'static str]),
    /// A Kubernetes type: all of them but those a field adds where it uses one.
    AllButFieldKeywords,
}

impl Typed {
    fn plain(rust: &str, implied: &'static [&'static str]) -> Typed {
        Typed {
            rust: rust.to_owned(),
            implied: Implied::These(implied),
            extra: Vec::new(),
            item: false,
        }
    }

    /// The markers `node` needs at `site` beside this type: the extra ones, then those
    /// of the keywords the type does not write.
    fn markers(self, node: &Value, site: Site) -> Vec<String> {
        let mut out = self.extra;
        match self.implied {
            Implied::These(implied) => out.extend(markers::of(node, implied, site)),
            Implied::AllButFieldKeywords => {
                let mut field = node.clone();
                if let Some(map) = field.as_object_mut() {
                    map.retain(|k, _| super::known::FIELD_KEYWORDS.contains(&k.as_str()));
                }
                out.extend(markers::of(&field, &[], site));
            }
        }
        out
    }
}

/// Builds the items of one group version.
pub struct Builder<'a> {
    pub names: &'a mut TypeNames,
    pub shapes: &'a mut super::known::Shapes,
    pub items: Vec<Item>,
}

impl Builder<'_> {
    /// The struct of a kind's root schema: its properties but `apiVersion`, `kind` and
    /// `metadata`, which every kind has (as `TypeMeta` and `ObjectMeta`).
    pub fn kind(&mut self, kind: &str, root: &Value) -> Struct {
        let fields = self.fields(kind, root, &["apiVersion", "kind", "metadata"]);
        let implied = ["type", "properties", "required", "description"];
        let required = root.get("required").and_then(Value::as_array);
        Struct {
            name: kind.to_owned(),
            metadata_required: required.is_some_and(|r| r.iter().any(|f| f == "metadata")),
            doc: text(root, "description"),
            markers: markers::of(root, &implied, Site::Type),
            fields,
        }
    }

    /// The fields of an object node's properties (but `skip`), in the schema's order.
    fn fields(&mut self, owner: &str, node: &Value, skip: &[&str]) -> Vec<Field> {
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(Value::Object(properties)) = node.get("properties") else {
            return Vec::new();
        };
        let mut names = FieldNames::default();
        properties
            .iter()
            .filter(|(json, _)| !skip.contains(&json.as_str()))
            .map(|(json, property)| {
                let name = names.field(json);
                let plain = name.trim_start_matches("r#");
                let rename =
                    (RenameRule::Camel.apply_to_field(plain) != *json).then(|| json.clone());
                let typed = self.type_of(owner, json, property, Site::Field);
                let rust = typed.rust.clone();
                let mut markers = typed.markers(property, Site::Field);
                let required = required.contains(&json.as_str());
                let nullable = property.get("nullable") == Some(&Value::Bool(true));
                // serde reads `null` only into an `Option`: a required nullable field
                // is one, marked required.
                if required && nullable {
                    markers.push(markers::marker(&crate::markers::REQUIRED, None));
                }
                Field {
                    name,
                    rename,
                    ty: match required && !nullable {
                        true => rust,
                        false => format!("Option<{rust}>"),
                    },
                    doc: text(property, "description"),
                    markers,
                    optional: !required,
                    nullable,
                }
            })
            .collect()
    }

    /// What `node`, the property (or items, or values) `segment` of `owner`, is in Rust.
    fn type_of(&mut self, owner: &str, segment: &str, node: &Value, site: Site) -> Typed {
        let ty = node.get("type").and_then(Value::as_str);
        let format = node.get("format").and_then(Value::as_str);
        let flag = |key: &str| node.get(key) == Some(&Value::Bool(true));
        // An int-or-string that does not spell out its two types: only the marker says it.
        if flag("x-kubernetes-int-or-string") && node.get("anyOf").is_none() {
            return Typed {
                extra: vec![markers::marker(&crate::markers::SCHEMALESS, None)],
                ..Typed::plain("Value", &[])
            };
        }
        if flag("x-kubernetes-int-or-string") {
            return match node.get("pattern").and_then(Value::as_str) == Some(QUANTITY_PATTERN) {
                true => Typed::plain(
                    "Quantity",
                    &["x-kubernetes-int-or-string", "anyOf", "pattern"],
                ),
                false => Typed::plain("IntOrString", &["x-kubernetes-int-or-string", "anyOf"]),
            };
        }
        match (ty, format) {
            (Some("string"), Some("date-time")) => Typed::plain("Time", &["type", "format"]),
            (Some("string"), Some("byte")) => Typed::plain("ByteString", &["type", "format"]),
            (Some("string"), _) => match self.string_enum(owner, segment, node, site) {
                Some(name) => Typed {
                    rust: name,
                    implied: Implied::These(&["type", "enum"]),
                    extra: Vec::new(),
                    item: true,
                },
                None => Typed::plain("String", &["type"]),
            },
            (Some("boolean"), _) => Typed::plain("bool", &["type"]),
            (Some("integer"), Some("int32")) => Typed::plain("i32", &["type", "format"]),
            (Some("integer"), Some("int64")) => Typed::plain("i64", &["type", "format"]),
            // Go's `int`, of no format: `Type=` writes an integer without one.
            (Some("integer"), None) => Typed {
                extra: vec![markers::marker(&crate::markers::TYPE, Some("integer"))],
                ..Typed::plain("i64", &["type"])
            },
            (Some("integer"), Some(_)) => Typed::plain("i64", &["type"]),
            (Some("number"), _) => Typed::plain("f64", &["type"]),
            (Some("array"), _) => {
                let empty = Value::Object(Default::default());
                let items = node.get("items").unwrap_or(&empty);
                let item = self.element(owner, segment, items, "Item");
                Typed {
                    rust: format!("Vec<{item}>"),
                    ..Typed::plain("", &["type", "items"])
                }
            }
            (Some("object"), _) if node.get("properties").is_some() => {
                if let Some(known) = self.shapes.recognise(node) {
                    return Typed {
                        implied: Implied::AllButFieldKeywords,
                        ..Typed::plain(known, &[])
                    };
                }
                let name = self.names.nested(owner, segment);
                let (doc, markers) = match site {
                    Site::Field => (None, Vec::new()),
                    _ => (
                        text(node, "description"),
                        markers::of(node, STRUCTURE, Site::Type),
                    ),
                };
                // The struct goes before the types of its fields, as a person writes them.
                let at = self.items.len();
                self.items.push(Item::Struct(Struct {
                    name: name.clone(),
                    metadata_required: false,
                    doc,
                    markers,
                    fields: Vec::new(),
                }));
                let fields = self.fields(&name, node, &[]);
                if let Some(Item::Struct(s)) = self.items.get_mut(at) {
                    s.fields = fields;
                }
                Typed {
                    rust: name,
                    implied: Implied::These(STRUCTURE),
                    extra: Vec::new(),
                    item: true,
                }
            }
            (Some("object"), _)
                if node
                    .get("additionalProperties")
                    .is_some_and(Value::is_object) =>
            {
                let value = self.element(owner, segment, &node["additionalProperties"], "Value");
                Typed {
                    rust: format!("BTreeMap<String, {value}>"),
                    ..Typed::plain("", &["type", "additionalProperties"])
                }
            }
            // An object of no declared fields, or any value: an untyped value, whose
            // schema the markers write.
            (Some("object"), _) => Typed {
                extra: vec![
                    markers::marker(&crate::markers::SCHEMALESS, None),
                    markers::marker(&crate::markers::TYPE, Some("object")),
                ],
                ..Typed::plain("Value", &["type"])
            },
            (None, _) if flag("x-kubernetes-preserve-unknown-fields") => {
                Typed::plain("Value", &["x-kubernetes-preserve-unknown-fields"])
            }
            _ => Typed {
                extra: vec![markers::marker(&crate::markers::SCHEMALESS, None)],
                ..Typed::plain("Value", &[])
            },
        }
    }

    /// The type of a list's items or a map's values: a struct or enum of its own, which
    /// carries the node's markers, or else an alias that does (when there are any).
    fn element(&mut self, owner: &str, segment: &str, node: &Value, suffix: &str) -> String {
        let typed = self.type_of(owner, segment, node, Site::Type);
        if typed.item {
            return typed.rust;
        }
        let rust = typed.rust.clone();
        // A Kubernetes type's description is its own doc, which crdgen writes for it.
        let known = matches!(typed.implied, Implied::AllButFieldKeywords);
        let markers = typed.markers(node, Site::Type);
        let doc = text(node, "description").filter(|_| !known);
        if markers.is_empty() && doc.is_none() {
            return rust;
        }
        let name = self.names.element(owner, segment, suffix);
        self.items.push(Item::Alias {
            name: name.clone(),
            doc,
            markers,
            target: rust,
        });
        name
    }

    /// An enum for a string node whose `enum` values make distinct Rust names; at a
    /// list's items or a map's values, it carries the node's markers itself.
    fn string_enum(
        &mut self,
        owner: &str,
        segment: &str,
        node: &Value,
        site: Site,
    ) -> Option<String> {
        let values = node.get("enum")?.as_array()?;
        let values: Vec<&str> = values.iter().map(Value::as_str).collect::<Option<_>>()?;
        let variants = variants(&values)?;
        let name = self.names.nested(owner, segment);
        let (doc, markers) = match site {
            Site::Field => (None, Vec::new()),
            _ => (
                text(node, "description"),
                markers::of(node, &["type", "enum"], Site::Type),
            ),
        };
        self.items.push(Item::Enum(Enum {
            name: name.clone(),
            doc,
            markers,
            variants,
        }));
        Some(name)
    }
}

/// The keywords a struct writes by itself.
const STRUCTURE: &[&str] = &["type", "properties", "required"];

/// A string keyword of `node`.
fn text(node: &Value, key: &str) -> Option<String> {
    node.get(key).and_then(Value::as_str).map(str::to_owned)
}
