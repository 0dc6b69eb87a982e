//! An imported package's Rust source: the `use` lines its types need, each item with its
//! doc comment and markers, laid out as rustfmt would.

use std::fmt::Write as _;

use super::schema::{Enum, Field, Item, Struct};

/// Where each type an imported file may name comes from, for its `use` lines.
pub const IMPORTS: &[(&str, &str)] = &[
    ("ByteString", "k8s_openapi::ByteString"),
    (
        "IntOrString",
        "k8s_openapi::apimachinery::pkg::util::intstr::IntOrString",
    ),
    (
        "ObjectMeta",
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta",
    ),
    (
        "Quantity",
        "k8s_openapi::apimachinery::pkg::api::resource::Quantity",
    ),
    (
        "Time",
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::Time",
    ),
    ("TypeMeta", "kube::core::TypeMeta"),
    ("Value", "serde_json::Value"),
    ("BTreeMap", "std::collections::BTreeMap"),
];

/// A kind's file: the kind's struct, then every type of its schema.
pub fn kind_file(kind: &Struct, kind_markers: &[String], items: &[Item]) -> String {
    let mut body = String::new();
    write_kind(&mut body, kind, kind_markers);
    for item in items {
        body.push('\n');
        match item {
            Item::Struct(s) => write_struct(&mut body, s),
            Item::Enum(e) => write_enum(&mut body, e),
            Item::Alias {
                name,
                doc,
                markers,
                target,
            } => {
                write_doc(&mut body, "", doc.as_deref(), markers);
                let _ = writeln!(body, "pub type {name} = {target};");
            }
        }
    }
    // The kind's own fields' types, then every item's: what the file names (its docs
    // may name more, which it does not use).
    let types = ["TypeMeta", "ObjectMeta"]
        .into_iter()
        .chain(kind.fields.iter().map(|f| f.ty.as_str()))
        .chain(
            items
                .iter()
                .flat_map(|item| -> Box<dyn Iterator<Item = &str>> {
                    match item {
                        Item::Struct(s) => Box::new(s.fields.iter().map(|f| f.ty.as_str())),
                        Item::Alias { target, .. } => Box::new(std::iter::once(target.as_str())),
                        Item::Enum(_) => Box::new(std::iter::empty()),
                    }
                }),
        );
    format!("{}\n{body}", uses(types))
}

/// The `use` lines of what `types` name, grouped by path as rustfmt sorts them.
fn uses<'a>(types: impl Iterator<Item = &'a str>) -> String {
    let importable = || IMPORTS.iter().chain(super::known::TYPES);
    let names: std::collections::HashSet<&str> = importable().map(|(name, _)| *name).collect();
    let words: std::collections::HashSet<&str> = types
        .flat_map(|ty| ty.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|word| names.contains(word))
        .collect();
    let mut paths: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for (name, path) in importable() {
        if words.contains(name) {
            let module = path.rsplit_once("::").map_or("", |(module, _)| module);
            paths.entry(module).or_default().push(name);
        }
    }
    paths
        .entry("serde")
        .or_default()
        .extend(["Deserialize", "Serialize"]);
    let mut out = String::new();
    for (module, mut names) in paths {
        names.sort_unstable();
        match names.as_slice() {
            [one] => {
                let _ = writeln!(out, "use {module}::{one};");
            }
            many => {
                let _ = writeln!(out, "use {module}::{{{}}};", many.join(", "));
            }
        }
    }
    out
}

/// A doc comment: the description's lines, then a blank line and the markers.
fn write_doc(out: &mut String, indent: &str, doc: Option<&str>, markers: &[String]) {
    if let Some(doc) = doc {
        for line in crate::prose::to_doc_comment(doc) {
            match line.is_empty() {
                true => {
                    let _ = writeln!(out, "{indent}///");
                }
                false => {
                    let _ = writeln!(out, "{indent}/// {line}");
                }
            }
        }
        if !markers.is_empty() {
            let _ = writeln!(out, "{indent}///");
        }
    }
    for marker in markers {
        let _ = writeln!(out, "{indent}/// {marker}");
    }
}

const STRUCT_DERIVES: &str = "#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]";

fn write_kind(out: &mut String, kind: &Struct, kind_markers: &[String]) {
    let markers: Vec<String> = kind_markers.iter().chain(&kind.markers).cloned().collect();
    write_doc(out, "", kind.doc.as_deref(), &markers);
    let _ = writeln!(out, "{STRUCT_DERIVES}");
    let _ = writeln!(out, "#[serde(rename_all = \"camelCase\")]");
    let _ = writeln!(out, "pub struct {} {{", kind.name);
    out.push_str("    /// apiVersion and kind; absent on list items.\n");
    out.push_str("    #[serde(flatten, default)]\n    pub types: Option<TypeMeta>,\n");
    match kind.metadata_required {
        true => out.push_str("    /// +required\n"),
        false => out.push_str("    #[serde(default)]\n"),
    }
    out.push_str("    pub metadata: ObjectMeta,\n");
    kind.fields.iter().for_each(|f| write_field(out, f));
    out.push_str("}\n");
}

fn write_struct(out: &mut String, s: &Struct) {
    write_doc(out, "", s.doc.as_deref(), &s.markers);
    let _ = writeln!(out, "{STRUCT_DERIVES}");
    let _ = writeln!(out, "#[serde(rename_all = \"camelCase\")]");
    let _ = writeln!(out, "pub struct {} {{", s.name);
    s.fields.iter().for_each(|f| write_field(out, f));
    out.push_str("}\n");
}

fn write_field(out: &mut String, f: &Field) {
    write_doc(out, "    ", f.doc.as_deref(), &f.markers);
    if let Some(json) = &f.rename {
        let _ = writeln!(out, "    #[serde(rename = {json:?})]");
    }
    if f.optional {
        // `None` is left out, not sent as `null`, unless the schema allows `null`.
        match f.nullable {
            true => out.push_str("    #[serde(default)]\n"),
            false => {
                out.push_str("    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n")
            }
        }
    }
    let _ = writeln!(out, "    pub {}: {},", f.name, f.ty);
}

fn write_enum(out: &mut String, e: &Enum) {
    write_doc(out, "", e.doc.as_deref(), &e.markers);
    out.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]\n");
    let _ = writeln!(out, "pub enum {} {{", e.name);
    for (variant, json) in &e.variants {
        if let Some(json) = json {
            let _ = writeln!(out, "    #[serde(rename = {json:?})]");
        }
        let _ = writeln!(out, "    {variant},");
    }
    out.push_str("}\n");
}
