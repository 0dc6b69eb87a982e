//! The one table of markers crdgen understands: name, where each may stand, and the
//! shape of its argument. Every generator reads markers through this table; a marker
//! in one of crdgen's namespaces that is not here is an error.

use super::Target::{self, Field, Package, Type};

/// The shape of a marker's argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// `+name`, optionally `+name=true|false`.
    Flag,
    Bool,
    Int,
    Number,
    String,
    /// `a;b;c`, `a,b,c` or `{a,b,c}`.
    List,
    /// A list of API groups, in which `""` is an item: the core group (`groups="";apps`).
    Groups,
    /// Any value, kept as written (defaults, examples): read by the generator using it.
    Raw,
    /// `+name:key=value,key=value`; an entry named `""` is a leading unnamed value.
    Named(&'static [NamedArg]),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedArg {
    pub name: &'static str,
    pub arg: Arg,
    pub required: bool,
}

#[derive(Debug)]
pub struct MarkerDef {
    pub name: &'static str,
    pub targets: &'static [Target],
    pub arg: Arg,
    /// Also accepted as `kubebuilder:validation:items:<Name>`, applying to list items.
    pub items_form: bool,
}

/// Namespaces crdgen owns: an unknown marker in one of them is an error. Markers of
/// other tools (`+k8s:deepcopy-gen`, `+operator-sdk:…`) are ignored.
pub const OWNED_NAMESPACES: &[&str] = &[
    "genclient",
    "kubebuilder",
    "groupName",
    "groupGoName",
    "crdgen",
];

/// The prefix of the list-item forms of validation markers.
pub const ITEMS_PREFIX: &str = "kubebuilder:validation:items:";

const fn req(name: &'static str, arg: Arg) -> NamedArg {
    NamedArg {
        name,
        arg,
        required: true,
    }
}

const fn opt(name: &'static str, arg: Arg) -> NamedArg {
    NamedArg {
        name,
        arg,
        required: false,
    }
}

const fn m(name: &'static str, targets: &'static [Target], arg: Arg) -> MarkerDef {
    MarkerDef {
        name,
        targets,
        arg,
        items_form: false,
    }
}

/// A validation marker, also valid in its `items:` form.
const fn v(name: &'static str, arg: Arg) -> MarkerDef {
    MarkerDef {
        name,
        targets: &[Field, Type],
        arg,
        items_form: true,
    }
}

const XVALIDATION: &[NamedArg] = &[
    req("rule", Arg::String),
    opt("message", Arg::String),
    opt("messageExpression", Arg::String),
    opt("reason", Arg::String),
    opt("fieldPath", Arg::String),
    opt("optionalOldSelf", Arg::Bool),
];

pub static MARKERS: &[MarkerDef] = &[
    // Package level (`//!` in a version's or group's module file).
    m("groupName", &[Package], Arg::String),
    m("groupGoName", &[Package], Arg::String),
    // controller-gen's RBAC rule: read from every file the rbac generator scans,
    // wherever its doc comment stands (Go's is a package marker written anywhere).
    m(
        "kubebuilder:rbac",
        &[Package, Type, Field],
        Arg::Named(&[
            opt("groups", Arg::Groups),
            opt("resources", Arg::List),
            opt("resourceNames", Arg::List),
            req("verbs", Arg::List),
            opt("urls", Arg::List),
            opt("namespace", Arg::String),
            opt("roleName", Arg::String),
        ]),
    ),
    // controller-gen's webhook configuration, read like `kubebuilder:rbac`.
    m(
        "kubebuilder:webhook",
        &[Package, Type, Field],
        Arg::Named(&[
            req("path", Arg::String),
            req("mutating", Arg::Bool),
            req("failurePolicy", Arg::String),
            opt("sideEffects", Arg::String),
            req("groups", Arg::Groups),
            req("resources", Arg::List),
            req("verbs", Arg::List),
            req("versions", Arg::List),
            req("name", Arg::String),
            req("admissionReviewVersions", Arg::List),
            opt("matchPolicy", Arg::String),
            opt("timeoutSeconds", Arg::Int),
            opt("reinvocationPolicy", Arg::String),
        ]),
    ),
    m("kubebuilder:skip", &[Package], Arg::Flag),
    m("kubebuilder:object:generate", &[Package, Type], Arg::Bool),
    m(
        "kubebuilder:validation:Optional",
        &[Package, Field],
        Arg::Flag,
    ),
    m(
        "kubebuilder:validation:Required",
        &[Package, Field],
        Arg::Flag,
    ),
    // Client generation (client-gen).
    m("genclient", &[Type], Arg::Flag),
    m("genclient:nonNamespaced", &[Type], Arg::Flag),
    m("genclient:noStatus", &[Type], Arg::Flag),
    m("genclient:noVerbs", &[Type], Arg::Flag),
    m("genclient:readonly", &[Type], Arg::Flag),
    m("genclient:onlyVerbs", &[Type], Arg::List),
    m("genclient:skipVerbs", &[Type], Arg::List),
    m(
        "genclient:method",
        &[Type],
        Arg::Named(&[
            req("", Arg::String),
            req("verb", Arg::String),
            opt("subresource", Arg::String),
            opt("input", Arg::String),
            opt("result", Arg::String),
        ]),
    ),
    m("resourceName", &[Type], Arg::String),
    // Kinds and CRDs (controller-gen).
    m("kubebuilder:object:root", &[Type], Arg::Bool),
    m(
        "kubebuilder:resource",
        &[Type],
        Arg::Named(&[
            opt("path", Arg::String),
            opt("singular", Arg::String),
            opt("shortName", Arg::List),
            opt("categories", Arg::List),
            opt("scope", Arg::String),
        ]),
    ),
    m("kubebuilder:subresource:status", &[Type], Arg::Flag),
    m(
        "kubebuilder:subresource:scale",
        &[Type],
        Arg::Named(&[
            req("specpath", Arg::String),
            req("statuspath", Arg::String),
            opt("selectorpath", Arg::String),
        ]),
    ),
    m(
        "kubebuilder:printcolumn",
        &[Type],
        Arg::Named(&[
            req("name", Arg::String),
            req("type", Arg::String),
            req("JSONPath", Arg::String),
            opt("description", Arg::String),
            opt("format", Arg::String),
            opt("priority", Arg::Int),
        ]),
    ),
    m("kubebuilder:storageversion", &[Type], Arg::Flag),
    // Webhook conversion between the kind's versions through its storage version:
    // the CRD's `spec.conversion`, and the generated dispatch (`register`).
    m("crdgen:conversion:webhook", &[Type], Arg::Flag),
    m("kubebuilder:unservedversion", &[Type], Arg::Flag),
    m(
        "kubebuilder:deprecatedversion",
        &[Type],
        Arg::Named(&[opt("warning", Arg::String)]),
    ),
    m("kubebuilder:skipversion", &[Type], Arg::Flag),
    m(
        "kubebuilder:selectablefield",
        &[Type],
        Arg::Named(&[req("JSONPath", Arg::String)]),
    ),
    m(
        "kubebuilder:metadata",
        &[Type],
        Arg::Named(&[opt("annotations", Arg::List), opt("labels", Arg::List)]),
    ),
    // Schema validation, on fields and types, most also in `items:` form.
    v("kubebuilder:validation:Minimum", Arg::Number),
    v("kubebuilder:validation:Maximum", Arg::Number),
    v("kubebuilder:validation:ExclusiveMinimum", Arg::Bool),
    v("kubebuilder:validation:ExclusiveMaximum", Arg::Bool),
    v("kubebuilder:validation:MultipleOf", Arg::Number),
    v("kubebuilder:validation:MinLength", Arg::Int),
    v("kubebuilder:validation:MaxLength", Arg::Int),
    v("kubebuilder:validation:Pattern", Arg::String),
    v("kubebuilder:validation:Enum", Arg::List),
    v("kubebuilder:validation:Format", Arg::String),
    v("kubebuilder:validation:Type", Arg::String),
    v("kubebuilder:validation:MinItems", Arg::Int),
    v("kubebuilder:validation:MaxItems", Arg::Int),
    v("kubebuilder:validation:UniqueItems", Arg::Bool),
    v("kubebuilder:validation:MinProperties", Arg::Int),
    v("kubebuilder:validation:MaxProperties", Arg::Int),
    v("kubebuilder:validation:Nullable", Arg::Flag),
    v("kubebuilder:validation:XPreserveUnknownFields", Arg::Flag),
    v("kubebuilder:validation:XEmbeddedResource", Arg::Flag),
    v("kubebuilder:validation:XIntOrString", Arg::Flag),
    v(
        "kubebuilder:validation:XValidation",
        Arg::Named(XVALIDATION),
    ),
    m("kubebuilder:validation:Schemaless", &[Field], Arg::Flag),
    m(
        "kubebuilder:validation:EmbeddedResource",
        &[Field, Type],
        Arg::Flag,
    ),
    m("kubebuilder:validation:ExactlyOneOf", &[Type], Arg::List),
    m("kubebuilder:validation:AtMostOneOf", &[Type], Arg::List),
    m("kubebuilder:validation:AtLeastOneOf", &[Type], Arg::List),
    m(
        "kubebuilder:externalDocs",
        &[Field, Type],
        Arg::Named(&[req("url", Arg::String), opt("description", Arg::String)]),
    ),
    m("kubebuilder:default", &[Field, Type], Arg::Raw),
    m("kubebuilder:example", &[Field, Type], Arg::Raw),
    m("kubebuilder:title", &[Field, Type], Arg::String),
    m(
        "kubebuilder:pruning:PreserveUnknownFields",
        &[Field, Type],
        Arg::Flag,
    ),
    // Kubernetes API conventions shared by the Go tools.
    m("optional", &[Field], Arg::Flag),
    m("required", &[Field], Arg::Flag),
    m("nullable", &[Field], Arg::Flag),
    // Kubernetes' own default marker: a JSON value (`+default="TCP"`).
    m("default", &[Field], Arg::Raw),
    m("listType", &[Field, Type], Arg::String),
    m("listMapKey", &[Field, Type], Arg::String),
    m("mapType", &[Field, Type], Arg::String),
    m("structType", &[Field, Type], Arg::String),
    // Kubernetes' declarative validation tags, as controller-gen reads them.
    m("k8s:optional", &[Field], Arg::Flag),
    m("k8s:required", &[Field], Arg::Flag),
    m("k8s:listType", &[Field, Type], Arg::String),
    m("k8s:listMapKey", &[Field, Type], Arg::String),
    m("k8s:immutable", &[Field], Arg::Flag),
    m("k8s:enum", &[Type], Arg::Flag),
];

/// The definition of `name`, with whether it was written in its `items:` form.
pub fn find(name: &str) -> Option<(&'static MarkerDef, bool)> {
    if let Some(base) = name.strip_prefix(ITEMS_PREFIX) {
        let full = format!("kubebuilder:validation:{base}");
        return MARKERS
            .iter()
            .find(|d| d.items_form && d.name == full)
            .map(|d| (d, true));
    }
    MARKERS.iter().find(|d| d.name == name).map(|d| (d, false))
}

/// Every name the table accepts, for suggestions.
pub fn all_names() -> impl Iterator<Item = String> {
    MARKERS.iter().flat_map(|d| {
        let items = d
            .items_form
            .then(|| d.name.replace("kubebuilder:validation:", ITEMS_PREFIX));
        std::iter::once(d.name.to_owned()).chain(items)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_lists_every_marker() {
        let readme = include_str!("../../README.md");
        let table = &readme[readme
            .find("| generator | markers |")
            .expect("the marker table")..];
        let table = &table[..table.find("\n\n").unwrap_or(table.len())];
        for def in MARKERS {
            let written = format!("`+{}", def.name);
            let listed = table
                .match_indices(&written)
                .any(|(at, _)| table[at + written.len()..].starts_with(['`', '=', ':']));
            assert!(listed, "the README's marker table lacks +{}", def.name);
        }
    }

    #[test]
    fn names_are_unique_and_in_owned_or_convention_namespaces() {
        let mut names: Vec<String> = all_names().collect();
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "a marker is declared twice");
        for def in MARKERS {
            let ns = def.name.split(':').next().unwrap();
            let convention = [
                "optional",
                "required",
                "nullable",
                "default",
                "listType",
                "listMapKey",
                "mapType",
                "structType",
                "resourceName",
            ];
            assert!(
                OWNED_NAMESPACES.contains(&ns) || convention.contains(&def.name) || ns == "k8s",
                "{}",
                def.name
            );
        }
    }

    #[test]
    fn items_forms_resolve_to_their_validation_marker() {
        let (def, items) = find("kubebuilder:validation:items:Minimum").unwrap();
        assert_eq!(def.name, "kubebuilder:validation:Minimum");
        assert!(items);
        assert!(find("kubebuilder:validation:items:Schemaless").is_none());
    }
}

/// Every marker of the table is read somewhere: a schema marker by its arm in
/// `markers/schema.rs`, any other by the generator or model code naming it. A marker
/// declared here and read nowhere would be accepted and then silently dropped.
#[cfg(test)]
mod every_marker_is_read {
    use super::MARKERS;

    fn sources(dir: &std::path::Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs")
                && !path.ends_with("markers/table.rs")
            {
                out.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }

    #[test]
    fn by_name() {
        let mut text = String::new();
        sources(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut text,
        );
        let unread: Vec<&str> = MARKERS
            .iter()
            .map(|def| def.name)
            .filter(|name| {
                let short = name.trim_start_matches("kubebuilder:validation:");
                !text.contains(&format!("\"{name}\"")) && !text.contains(&format!("\"{short}\""))
            })
            .collect();
        assert!(unread.is_empty(), "declared, read nowhere: {unread:?}");
    }
}

/// controller-gen makes an `items:` form of each of its validation markers; so does crdgen.
#[cfg(test)]
#[test]
fn every_validation_marker_of_controller_gen_has_its_items_form() {
    for name in [
        "Maximum",
        "Minimum",
        "ExclusiveMaximum",
        "ExclusiveMinimum",
        "MultipleOf",
        "MinProperties",
        "MaxProperties",
        "MaxLength",
        "MinLength",
        "Pattern",
        "MaxItems",
        "MinItems",
        "UniqueItems",
        "Enum",
        "Format",
        "Type",
        "XPreserveUnknownFields",
        "XEmbeddedResource",
        "XIntOrString",
        "XValidation",
    ] {
        let items = format!("{ITEMS_PREFIX}{name}");
        assert!(find(&items).is_some_and(|(_, items)| items), "{items}");
    }
}
