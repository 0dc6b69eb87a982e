//! A schema node as kube-apiserver types it for CEL (apiserver's `SchemaDeclType`): the
//! CEL type a rule sees, the most elements (characters, items, properties) a value can
//! have, bounded by `maxLength`/`maxItems`/`maxProperties` or else by what fits in one
//! request, and the least bytes it takes serialized, from which unbounded counts follow.

use std::collections::BTreeMap;

use super::{MAX_REQUEST_SIZE_BYTES, NAME_MAX_LENGTH, NAMES_BOUNDED_SINCE_MINOR, escape};
use serde_json::Value;

/// What a value is in CEL.
#[derive(Debug)]
pub enum Kind {
    /// Declared properties, by their CEL names. An object that keeps unknown fields
    /// is typed by its declared ones alone, as the apiserver types it.
    Object {
        /// The declared properties, by their escaped names.
        fields: BTreeMap<String, Decl>,
    },
    /// `additionalProperties`: string keys to values of one type.
    Map(Box<Decl>),
    /// `items`, and how the list compares and concatenates when it is not atomic.
    List(Box<Decl>, Option<ListType>),
    /// A string of no CEL format.
    String,
    /// `format: byte`.
    Bytes,
    /// `format: duration`.
    Duration,
    /// `format: date` and `date-time`.
    Timestamp,
    /// `integer`.
    Int,
    /// `number`.
    Double,
    /// `boolean`.
    Bool,
    /// int-or-string.
    Dyn,
}

/// How a list of the object compares and concatenates in a rule
/// (`x-kubernetes-list-type`), as the apiserver's values of it do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListType {
    /// Equal to a list of the same items in any order; `+` adds the items not in it.
    Set,
    /// Items told apart by these fields: equal to a list of the same items by key in
    /// any order; `+` replaces the items of the same keys and adds the others.
    Map(Vec<String>),
}

impl ListType {
    /// The list type `schema` (an array's) declares; `None` for an atomic list.
    pub fn of(schema: &Value) -> Option<ListType> {
        match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
            Some("set") => Some(ListType::Set),
            Some("map") => Some(ListType::Map(
                schema["x-kubernetes-list-map-keys"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            )),
            _ => None,
        }
    }
}

/// A node's CEL type with the apiserver's size facts.
#[derive(Debug)]
pub struct Decl {
    /// What the value is.
    pub kind: Kind,
    /// The most characters, items or properties; 0 for other scalars.
    pub max_elements: u64,
    /// The fewest bytes the value takes in JSON.
    pub min_size: u64,
    /// The schema's own bound (maxItems, maxProperties, maxLength), when it has one:
    /// an unbounded list, map or string is what a cost error asks to bound.
    pub bounded: bool,
}

/// The map key type: a string of no estimated length (as the apiserver's).
pub static KEY: Decl = Decl {
    kind: Kind::String,
    max_elements: 0,
    min_size: 2,
    bounded: true,
};

const MAX_STRING: u64 = MAX_REQUEST_SIZE_BYTES - 2;

/// How the apiserver of the version a CRD is written for sizes a resource's
/// `metadata.name` and `generateName` (`WithTypeAndObjectMeta`): as a whole request,
/// or from 1.37 as a name, or shorter where the schema bounds them.
#[derive(Clone, Copy, Debug)]
pub struct Names {
    bounded: bool,
}

impl Names {
    /// The sizes of Kubernetes 1.`minor`.
    pub fn of(minor: u16) -> Names {
        Names {
            bounded: minor >= NAMES_BOUNDED_SINCE_MINOR,
        }
    }

    /// The CEL type of `field` (`name`, `generateName`) of the metadata `schema` declares.
    fn decl(self, schema: &Value, field: &str) -> Decl {
        if !self.bounded {
            return unbounded_string();
        }
        let cap = match field {
            "generateName" => NAME_MAX_LENGTH - 1,
            _ => NAME_MAX_LENGTH,
        };
        let own = schema["properties"][field]["maxLength"].as_u64();
        Decl {
            kind: Kind::String,
            max_elements: own.map_or(cap, |n| n.min(cap)) * 4,
            min_size: 2,
            bounded: true,
        }
    }
}

impl Decl {
    /// The type of `schema`; `resource` for a resource's root or an embedded resource,
    /// which rules see with `apiVersion`, `kind` and `metadata.name`/`generateName`, as
    /// `names` sizes them. `None` where the apiserver has no type (a list without
    /// items): such a property is left out of its object.
    pub fn new(schema: &Value, resource: bool, names: Names) -> Option<Decl> {
        let uint = |key: &str| {
            schema
                .get(key)
                .and_then(Value::as_i64)
                .map(|n| n.max(0) as u64)
        };
        if schema["x-kubernetes-int-or-string"] == true {
            return Some(Decl {
                kind: Kind::Dyn,
                max_elements: uint("maxLength").map_or(MAX_STRING, |n| n * 4),
                min_size: 1,
                bounded: uint("maxLength").is_some(),
            });
        }
        let scalar = |kind, max_elements, min_size| Decl {
            kind,
            max_elements,
            min_size,
            bounded: true,
        };
        let decl = match schema.get("type").and_then(Value::as_str)? {
            "array" => {
                let items = schema.get("items")?;
                let elem = Decl::new(items, embedded(items), names)?;
                let max = uint("maxItems");
                Decl {
                    max_elements: max.unwrap_or(MAX_STRING / (elem.min_size + 1)),
                    bounded: max.is_some(),
                    min_size: 2,
                    kind: Kind::List(Box::new(elem), ListType::of(schema)),
                }
            }
            "object" => match schema.get("additionalProperties").filter(|a| a.is_object()) {
                Some(values) => {
                    let elem = Decl::new(values, embedded(values), names)?;
                    let max = uint("maxProperties");
                    Decl {
                        max_elements: max.unwrap_or(MAX_STRING / (elem.min_size + 6)),
                        bounded: max.is_some(),
                        min_size: 2,
                        kind: Kind::Map(Box::new(elem)),
                    }
                }
                None => object(schema, resource, names),
            },
            "string" => match schema.get("format").and_then(Value::as_str) {
                Some("byte") => Decl {
                    kind: Kind::Bytes,
                    max_elements: uint("maxLength").unwrap_or(MAX_STRING),
                    min_size: 2,
                    bounded: uint("maxLength").is_some(),
                },
                Some("duration") => scalar(Kind::Duration, 32, 3),
                Some("date") => scalar(Kind::Timestamp, 12, 12),
                Some("date-time") => scalar(Kind::Timestamp, 32, 21),
                _ => {
                    let longest_enum =
                        schema["enum"]
                            .as_array()
                            .filter(|e| !e.is_empty())
                            .map(|e| {
                                e.iter()
                                    .filter_map(Value::as_str)
                                    .map(str::len)
                                    .max()
                                    .unwrap_or(0) as u64
                            });
                    Decl {
                        kind: Kind::String,
                        max_elements: match uint("maxLength") {
                            Some(n) => n * 4,
                            None => longest_enum.unwrap_or(MAX_STRING),
                        },
                        min_size: 2,
                        bounded: uint("maxLength").is_some() || longest_enum.is_some(),
                    }
                }
            },
            "boolean" => scalar(Kind::Bool, 0, 4),
            "number" => scalar(Kind::Double, 0, 1),
            "integer" => scalar(Kind::Int, 0, 1),
            _ => return None,
        };
        Some(decl)
    }

    /// The type one step down a cost path: a field, `@items`/`@values`, `@keys`.
    pub fn step(&self, step: &str) -> Option<&Decl> {
        match (&self.kind, step) {
            (Kind::List(elem, _) | Kind::Map(elem), "@items" | "@values") => Some(elem),
            (Kind::Map(_), "@keys") => Some(&KEY),
            (Kind::Object { fields, .. }, name) => fields.get(name),
            _ => None,
        }
    }
}

fn embedded(schema: &Value) -> bool {
    schema["x-kubernetes-embedded-resource"] == true
}

fn unbounded_string() -> Decl {
    Decl {
        kind: Kind::String,
        max_elements: MAX_STRING,
        min_size: 2,
        bounded: false,
    }
}

/// An object of declared properties; a resource's also has `apiVersion`, `kind` and a
/// `metadata` of `name` and `generateName` (the apiserver's `WithTypeAndObjectMeta`).
/// Whether a resource's schema already declares what a rule sees of its type and object
/// meta (`kind` and `apiVersion` strings, a `metadata` object with `name` and
/// `generateName` strings): the apiserver then types it as declared, `metadata`'s other
/// properties included (apiserver's `WithTypeAndObjectMeta`).
pub fn declares_type_and_object_meta(schema: &Value) -> bool {
    let properties = &schema["properties"];
    let typed = |s: &Value, ty: &str| s["type"] == ty;
    let metadata = &properties["metadata"];
    typed(&properties["kind"], "string")
        && typed(&properties["apiVersion"], "string")
        && typed(metadata, "object")
        && typed(&metadata["properties"]["name"], "string")
        && typed(&metadata["properties"]["generateName"], "string")
}

fn object(schema: &Value, resource: bool, names: Names) -> Decl {
    let resource = resource && !declares_type_and_object_meta(schema);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut fields = BTreeMap::new();
    let mut min_size = 2;
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        let Some(decl) = Decl::new(property, embedded(property), names) else {
            continue;
        };
        if required.contains(&name.as_str()) && property.get("default").is_none() {
            min_size += name.len() as u64 + decl.min_size + 4;
        }
        if let Some(escaped) = escape(name) {
            fields.insert(escaped.into_owned(), decl);
        }
    }
    if resource {
        for name in ["apiVersion", "kind"] {
            fields.insert(name.to_owned(), unbounded_string());
        }
        let metadata = &schema["properties"]["metadata"];
        let meta = ["name", "generateName"]
            .into_iter()
            .map(|n| (n.to_owned(), names.decl(metadata, n)))
            .collect();
        fields.insert(
            "metadata".to_owned(),
            Decl {
                kind: Kind::Object { fields: meta },
                max_elements: 0,
                min_size: 2,
                bounded: true,
            },
        );
    }
    Decl {
        kind: Kind::Object { fields },
        max_elements: 0,
        min_size,
        bounded: true,
    }
}
