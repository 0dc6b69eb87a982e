//! The one table of markers crdgen understands: name, where each may stand, and the
//! shape of its argument. Every generator reads markers through this table; a marker
//! in one of crdgen's namespaces that is not here is an error.

use super::Target::{self, Field, Package, Type};
use super::{ITEMS_PREFIX, Marker, Value, schema};

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

/// A marker: its name, where it may stand, its argument, who reads it, what it means,
/// and (for a schema marker) how it applies to a schema, as controller-tools' marker
/// definitions carry their help and `ApplyToSchema`.
pub struct MarkerDef {
    pub name: &'static str,
    pub targets: &'static [Target],
    pub arg: Arg,
    /// Also accepted as `kubebuilder:validation:items:<Name>`, applying to list items.
    pub items_form: bool,
    /// The generators that act on it, for the reference (`all`: every one).
    pub readers: &'static [&'static str],
    /// One or two sentences on what it does, for the reference.
    pub help: &'static str,
    /// What it does to a field's or type's schema; `None` for markers read elsewhere.
    pub apply: Option<Apply>,
    /// When it applies among a schema's markers, lowest first, as controller-gen orders
    /// them: a type before the bounds that need it, the one-of rules after other rules.
    pub priority: u8,
}

/// A schema marker's effect: sets its keyword on the schema, or says why it cannot.
pub type Apply = fn(&mut serde_json::Value, &Value) -> Result<(), String>;

impl std::fmt::Debug for MarkerDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "+{}", self.name)
    }
}

/// Two markers are the same marker when they have the same name.
impl PartialEq for MarkerDef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl MarkerDef {
    /// The value of the last of `markers` that is this one: a later marker overrides an
    /// earlier one.
    pub fn value<'a>(&self, markers: &'a [Marker]) -> Option<&'a Value> {
        markers
            .iter()
            .rev()
            .find(|m| m.name == self.name)
            .map(|m| &m.value)
    }

    /// Every one of `markers` that is this one, in source order (markers that may
    /// repeat: print columns, selectable fields).
    pub fn all<'a>(&'static self, markers: &'a [Marker]) -> impl Iterator<Item = &'a Marker> {
        markers.iter().filter(move |m| m.name == self.name)
    }

    /// Whether it is there, whatever its value.
    pub fn is_present(&self, markers: &[Marker]) -> bool {
        markers.iter().any(|m| m.name == self.name)
    }

    /// Whether it is set: `+name` or `+name=true`.
    pub fn is_set(&self, markers: &[Marker]) -> bool {
        matches!(self.value(markers), Some(Value::Bool(true)))
    }

    /// Its text, when it takes a string.
    pub fn text<'a>(&self, markers: &'a [Marker]) -> Option<&'a str> {
        self.value(markers).and_then(Value::as_str)
    }

    /// Its argument `key`: `+name:key=value`.
    pub fn arg<'a>(&self, markers: &'a [Marker], key: &str) -> Option<&'a Value> {
        match self.value(markers)? {
            Value::Args(args) => args.get(key),
            _ => None,
        }
    }

    /// Its argument `key` as text.
    pub fn arg_text<'a>(&self, markers: &'a [Marker], key: &str) -> Option<&'a str> {
        self.arg(markers, key).and_then(Value::as_str)
    }

    const fn applies(mut self, apply: Apply) -> Self {
        self.apply = Some(apply);
        self
    }

    const fn first(mut self) -> Self {
        self.priority = 9;
        self
    }

    const fn after_rules(mut self, order: u8) -> Self {
        self.priority = 10 + order;
        self
    }
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

const ALL: &[&str] = &["all"];
const CLIENT: &[&str] = &["register", "client", "informer", "lister"];
const CRD: &[&str] = &["crd"];

const fn m(
    name: &'static str,
    targets: &'static [Target],
    arg: Arg,
    readers: &'static [&'static str],
    help: &'static str,
) -> MarkerDef {
    MarkerDef {
        name,
        targets,
        arg,
        items_form: false,
        readers,
        help,
        apply: None,
        priority: 10,
    }
}

/// A schema marker (`crd`) on fields and types.
const fn s(name: &'static str, arg: Arg, apply: Apply, help: &'static str) -> MarkerDef {
    m(name, &[Field, Type], arg, CRD, help).applies(apply)
}

/// A validation marker, also valid in its `items:` form.
const fn v(name: &'static str, arg: Arg, apply: Apply, help: &'static str) -> MarkerDef {
    let mut def = s(name, arg, apply, help);
    def.items_form = true;
    def
}

const XVALIDATION: &[NamedArg] = &[
    req("rule", Arg::String),
    opt("message", Arg::String),
    opt("messageExpression", Arg::String),
    opt("reason", Arg::String),
    opt("fieldPath", Arg::String),
    opt("optionalOldSelf", Arg::Bool),
];

/// Declares each marker as a static of its own (what code reads it by) and lists them
/// all in [`MARKERS`], in the reference's order.
macro_rules! markers {
    ($($ident:ident = $def:expr;)*) => {
        $(pub static $ident: MarkerDef = $def;)*
        /// Every marker crdgen knows.
        pub static MARKERS: &[&MarkerDef] = &[$(&$ident),*];
        /// Each marker's static by name, to check that code reads it.
        #[cfg(test)]
        static IDENTS: &[(&str, &MarkerDef)] = &[$((stringify!($ident), &$ident)),*];
    };
}

markers! {
    // Package level (`//!` in a version's or group's module file).
    GROUP_NAME = m("groupName", &[Package], Arg::String, ALL,
        "The API group of the package's kinds (`+groupName=bcrds.example.com`); in a group's `mod.rs` it holds for all of its versions.");
    GROUP_GO_NAME = m("groupGoName", &[Package], Arg::String, ALL,
        "The name generated code gives the group (its clientset accessor), when the group's first DNS label does not make a good one.");
    // controller-gen's RBAC rule: read from every file the rbac generator scans,
    // wherever its doc comment stands (Go's is a package marker written anywhere).
    RBAC = m(
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
        &["rbac"],
        "A rule of the generated ClusterRole (or, with `namespace=`, of a Role there), read from any doc comment of the scanned files; rules merge as controller-gen merges them.",
    );
    // controller-gen's webhook configuration, read like `kubebuilder:rbac`.
    WEBHOOK = m(
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
            opt("patch", Arg::String),
        ]),
        &["webhook"],
        "A webhook of the mutating or validating webhook configuration, served by the webhook Service at `path`, read like `+kubebuilder:rbac`; `patch=` takes a strategic merge patch of the webhook as JSON (in backticks) for the fields no argument sets, such as `namespaceSelector` or `objectSelector`.",
    );
    SKIP = m("kubebuilder:skip", &[Package], Arg::Flag, ALL,
        "Leaves the package's version out of every generator's output.");
    OBJECT_GENERATE = m("kubebuilder:object:generate", &[Package, Type], Arg::Bool, &["clone"],
        "`=false` leaves the package or type without a generated `Clone` impl.");
    OPTIONAL_BY_DEFAULT = m("kubebuilder:validation:Optional", &[Package, Field], Arg::Flag, CRD,
        "On a package: fields are optional unless marked required. On a field: it is optional.");
    REQUIRED_BY_DEFAULT = m("kubebuilder:validation:Required", &[Package, Field], Arg::Flag, CRD,
        "On a package: fields are required unless marked optional (controller-gen's default). On a field: it is required.");
    // Client generation (client-gen).
    GENCLIENT = m("genclient", &[Type], Arg::Flag, CLIENT,
        "Makes the struct a kind with a typed client, informer and lister (client-gen's marker).");
    NON_NAMESPACED = m("genclient:nonNamespaced", &[Type], Arg::Flag, CLIENT,
        "The kind is cluster-scoped.");
    NO_STATUS = m("genclient:noStatus", &[Type], Arg::Flag, CLIENT,
        "The client has no status verbs, even when the kind has a status.");
    NO_VERBS = m("genclient:noVerbs", &[Type], Arg::Flag, CLIENT,
        "The client has no verbs.");
    READONLY = m("genclient:readonly", &[Type], Arg::Flag, CLIENT,
        "The client has only get, list and watch.");
    ONLY_VERBS = m("genclient:onlyVerbs", &[Type], Arg::List, CLIENT,
        "The client has only these of client-gen's verbs (`create`, `update`, `updateStatus`, `delete`, `deleteCollection`, `get`, `list`, `watch`, `patch`, `apply`, `applyStatus`).");
    SKIP_VERBS = m("genclient:skipVerbs", &[Type], Arg::List, CLIENT,
        "The client has all of client-gen's verbs but these.");
    METHOD = m(
        "genclient:method",
        &[Type],
        Arg::Named(&[
            req("", Arg::String),
            req("verb", Arg::String),
            opt("subresource", Arg::String),
            opt("input", Arg::String),
            opt("result", Arg::String),
        ]),
        CLIENT,
        "An extra client method (`+genclient:method=GetScale,verb=get,subresource=scale,result=…`), as client-gen generates it.",
    );
    RESOURCE_NAME = m("resourceName", &[Type], Arg::String, CLIENT,
        "The kind's plural resource name, when the default plural is wrong.");
    // Kinds and CRDs (controller-gen).
    OBJECT_ROOT = m("kubebuilder:object:root", &[Type], Arg::Bool, CLIENT,
        "Makes the struct a kind (controller-gen's marker), with a CRD but without a client unless also `+genclient`.");
    RESOURCE = m(
        "kubebuilder:resource",
        &[Type],
        Arg::Named(&[
            opt("path", Arg::String),
            opt("singular", Arg::String),
            opt("shortName", Arg::List),
            opt("categories", Arg::List),
            opt("scope", Arg::String),
        ]),
        CRD,
        "The kind's resource: its plural (`path`), singular, short names, categories and `scope=Cluster|Namespaced`.",
    );
    STATUS = m("kubebuilder:subresource:status", &[Type], Arg::Flag, CRD,
        "Gives the CRD the `/status` subresource.");
    SCALE = m(
        "kubebuilder:subresource:scale",
        &[Type],
        Arg::Named(&[
            req("specpath", Arg::String),
            req("statuspath", Arg::String),
            opt("selectorpath", Arg::String),
        ]),
        CRD,
        "Gives the CRD the `/scale` subresource, reading replicas at these JSON paths.",
    );
    PRINT_COLUMN = m(
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
        CRD,
        "A column of `kubectl get` (the CRD's `additionalPrinterColumns`); repeat it for more.",
    );
    STORAGE_VERSION = m("kubebuilder:storageversion", &[Type], Arg::Flag, CRD,
        "This version of the kind is the one stored (and the conversion hub); needed when a kind has several versions.");
    // Webhook conversion between the kind's versions through its storage version:
    // the CRD's `spec.conversion`, and the generated dispatch (`conversion`).
    CONVERSION_WEBHOOK = m("crdgen:conversion:webhook", &[Type], Arg::Flag, &["crd", "conversion"],
        "The kind converts between its versions by webhook, through the storage version: the CRD's `spec.conversion`, and generated dispatch a conversion webhook serves.");
    UNSERVED_VERSION = m("kubebuilder:unservedversion", &[Type], Arg::Flag, CRD,
        "This version is in the CRD but not served.");
    DEPRECATED_VERSION = m(
        "kubebuilder:deprecatedversion",
        &[Type],
        Arg::Named(&[opt("warning", Arg::String)]),
        CRD,
        "This version is deprecated; the apiserver warns with `warning` when it is used.",
    );
    SKIP_VERSION = m("kubebuilder:skipversion", &[Type], Arg::Flag, CRD,
        "Leaves this version out of the CRD.");
    SELECTABLE_FIELD = m(
        "kubebuilder:selectablefield",
        &[Type],
        Arg::Named(&[req("JSONPath", Arg::String)]),
        CRD,
        "A field selector the apiserver accepts for the kind (`selectableFields`); repeat it for more.",
    );
    METADATA = m(
        "kubebuilder:metadata",
        &[Type],
        Arg::Named(&[opt("annotations", Arg::List), opt("labels", Arg::List)]),
        CRD,
        "Annotations and labels (`key=value`) on the CRD itself.",
    );
    // Schema validation, on fields and types, most also in `items:` form.
    MINIMUM = v("kubebuilder:validation:Minimum", Arg::Number, schema::minimum,
        "The least value of a number.");
    MAXIMUM = v("kubebuilder:validation:Maximum", Arg::Number, schema::maximum,
        "The greatest value of a number.");
    EXCLUSIVE_MINIMUM = v("kubebuilder:validation:ExclusiveMinimum", Arg::Bool, schema::exclusive_minimum,
        "The minimum itself is not allowed.");
    EXCLUSIVE_MAXIMUM = v("kubebuilder:validation:ExclusiveMaximum", Arg::Bool, schema::exclusive_maximum,
        "The maximum itself is not allowed.");
    MULTIPLE_OF = v("kubebuilder:validation:MultipleOf", Arg::Number, schema::multiple_of,
        "A number must be a multiple of this.");
    MIN_LENGTH = v("kubebuilder:validation:MinLength", Arg::Int, schema::min_length,
        "The least length of a string.");
    MAX_LENGTH = v("kubebuilder:validation:MaxLength", Arg::Int, schema::max_length,
        "The greatest length of a string.");
    PATTERN = v("kubebuilder:validation:Pattern", Arg::String, schema::pattern,
        "A regular expression (RE2) a string must match; checked to compile.");
    ENUM = v("kubebuilder:validation:Enum", Arg::List, schema::enumeration,
        "The values allowed (`a;b;c`), each read as the schema's type.");
    FORMAT = v("kubebuilder:validation:Format", Arg::String, schema::format,
        "The OpenAPI format (`date-time`, `uri`, …).");
    TYPE = v("kubebuilder:validation:Type", Arg::String, schema::type_,
        "Overrides the OpenAPI type (a type with its own serialization, say).").first();
    MIN_ITEMS = v("kubebuilder:validation:MinItems", Arg::Int, schema::min_items,
        "The least number of items of a list.");
    MAX_ITEMS = v("kubebuilder:validation:MaxItems", Arg::Int, schema::max_items,
        "The greatest number of items of a list.");
    UNIQUE_ITEMS = v("kubebuilder:validation:UniqueItems", Arg::Bool, schema::unique_items,
        "Refused when true, as the apiserver refuses it: use `+listType=set`.");
    MIN_PROPERTIES = v("kubebuilder:validation:MinProperties", Arg::Int, schema::min_properties,
        "The least number of entries of a map or object.");
    MAX_PROPERTIES = v("kubebuilder:validation:MaxProperties", Arg::Int, schema::max_properties,
        "The greatest number of entries of a map or object.");
    NULLABLE_VALIDATION = v("kubebuilder:validation:Nullable", Arg::Flag, schema::nullable,
        "`null` is a valid value.");
    X_PRESERVE_UNKNOWN_FIELDS = v("kubebuilder:validation:XPreserveUnknownFields", Arg::Flag, schema::preserve_unknown_fields,
        "The apiserver keeps fields the schema does not declare.");
    X_EMBEDDED_RESOURCE = v("kubebuilder:validation:XEmbeddedResource", Arg::Flag, schema::embedded_resource,
        "The object is a Kubernetes object (apiVersion, kind, metadata) checked as one.");
    X_INT_OR_STRING = v("kubebuilder:validation:XIntOrString", Arg::Flag, schema::int_or_string,
        "The value is an integer or a string.").first();
    X_VALIDATION = v("kubebuilder:validation:XValidation", Arg::Named(XVALIDATION), schema::x_validation,
        "A CEL rule (`rule=…,message=…`) the apiserver checks (`x-kubernetes-validations`).");
    SCHEMALESS = m("kubebuilder:validation:Schemaless", &[Field], Arg::Flag, CRD,
        "The field's schema is left empty: any value.");
    EMBEDDED_RESOURCE = s("kubebuilder:validation:EmbeddedResource", Arg::Flag, schema::embedded_resource,
        "As `XEmbeddedResource`.");
    EXACTLY_ONE_OF = m("kubebuilder:validation:ExactlyOneOf", &[Type], Arg::List, CRD,
        "Exactly one of these fields is set (a CEL rule).").applies(schema::exactly_one_of).after_rules(2);
    AT_MOST_ONE_OF = m("kubebuilder:validation:AtMostOneOf", &[Type], Arg::List, CRD,
        "At most one of these fields is set (a CEL rule).").applies(schema::at_most_one_of).after_rules(1);
    AT_LEAST_ONE_OF = m("kubebuilder:validation:AtLeastOneOf", &[Type], Arg::List, CRD,
        "At least one of these fields is set (a CEL rule).").applies(schema::at_least_one_of).after_rules(3);
    EXTERNAL_DOCS = s(
        "kubebuilder:externalDocs",
        Arg::Named(&[req("url", Arg::String), opt("description", Arg::String)]),
        schema::external_docs,
        "A link to documentation (`externalDocs`): an absolute URL.",
    );
    KUBEBUILDER_DEFAULT = s("kubebuilder:default", Arg::Raw, schema::kubebuilder_default,
        "The value the apiserver fills in when the field is missing, in YAML (`{a: 1}`, `[x]`, `5`).");
    EXAMPLE = s("kubebuilder:example", Arg::Raw, schema::example,
        "An example value, in YAML.");
    TITLE = s("kubebuilder:title", Arg::String, schema::title,
        "The schema's title.");
    PRESERVE_UNKNOWN_FIELDS = s("kubebuilder:pruning:PreserveUnknownFields", Arg::Flag, schema::preserve_unknown_fields,
        "As `XPreserveUnknownFields`.");
    // Kubernetes API conventions shared by the Go tools.
    OPTIONAL = m("optional", &[Field], Arg::Flag, CRD,
        "The field is optional.");
    REQUIRED = m("required", &[Field], Arg::Flag, CRD,
        "The field is required.");
    NULLABLE = m("nullable", &[Field], Arg::Flag, CRD,
        "`null` is a valid value.").applies(schema::nullable);
    // Kubernetes' own default marker: a JSON value (`+default="TCP"`).
    DEFAULT = m("default", &[Field], Arg::Raw, CRD,
        "The default, in JSON (`+default=\"TCP\"`), as Kubernetes' own types write it; `+kubebuilder:default` wins over it.").applies(schema::default).first();
    LIST_TYPE = m("listType", &[Field, Type], Arg::String, CRD,
        "How server-side apply merges the list: `atomic`, `set` or `map` (`x-kubernetes-list-type`).").applies(schema::list_type).first();
    LIST_MAP_KEY = m("listMapKey", &[Field, Type], Arg::String, CRD,
        "A key of a `map` list's items; repeat it for more.").applies(schema::list_map_key);
    MAP_TYPE = m("mapType", &[Field, Type], Arg::String, CRD,
        "How server-side apply merges the map: `granular` or `atomic`.").applies(schema::map_type);
    STRUCT_TYPE = m("structType", &[Field, Type], Arg::String, CRD,
        "How server-side apply merges the struct: `granular` or `atomic`.").applies(schema::map_type);
    // Kubernetes' declarative validation tags, as controller-gen reads them.
    K8S_OPTIONAL = m("k8s:optional", &[Field], Arg::Flag, CRD,
        "As `+optional`.");
    K8S_REQUIRED = m("k8s:required", &[Field], Arg::Flag, CRD,
        "As `+required`.");
    K8S_LIST_TYPE = m("k8s:listType", &[Field, Type], Arg::String, CRD,
        "As `+listType`.").applies(schema::list_type).first();
    K8S_LIST_MAP_KEY = m("k8s:listMapKey", &[Field, Type], Arg::String, CRD,
        "As `+listMapKey`.").applies(schema::list_map_key);
    IMMUTABLE = m("k8s:immutable", &[Field], Arg::Flag, CRD,
        "The field cannot change once set (a CEL rule, `self == oldSelf`).").applies(schema::immutable);
    K8S_ENUM = m("k8s:enum", &[Type], Arg::Flag, CRD,
        "A unit enum's values are listed sorted, as controller-gen lists them.").applies(schema::k8s_enum);
}

/// The definition of `name`, with whether it was written in its `items:` form.
pub fn find(name: &str) -> Option<(&'static MarkerDef, bool)> {
    if let Some(base) = name.strip_prefix(ITEMS_PREFIX) {
        let full = format!("kubebuilder:validation:{base}");
        return MARKERS
            .iter()
            .find(|d| d.items_form && d.name == full)
            .map(|d| (*d, true));
    }
    MARKERS.iter().find(|d| d.name == name).map(|d| (*d, false))
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

/// Every marker of the table is acted on: a schema marker by its `apply`, any other by
/// code reading its static. A marker declared here and read nowhere would be accepted
/// and then silently dropped.
#[cfg(test)]
mod every_marker_is_read {
    use super::IDENTS;

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
    fn by_its_static_or_its_apply() {
        let mut text = String::new();
        sources(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut text,
        );
        let read = |ident: &str| {
            text.match_indices(ident).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let after = text[at + ident.len()..].chars().next();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                !word(before) && !word(after)
            })
        };
        let unread: Vec<&str> = IDENTS
            .iter()
            .filter(|(ident, def)| def.apply.is_none() && !read(ident))
            .map(|(_, def)| def.name)
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
