//! The names `crdgen import` gives what it writes: group directories, kind files, Rust
//! types named from their schema path, fields and enum variants, each unique where Rust
//! needs it to be and renamed to its JSON name where serde would not find it.

use std::collections::BTreeSet;

use heck::{ToSnakeCase, ToUpperCamelCase};

use super::rust::{is_identifier, is_keyword, module_name};

/// The names no imported type takes, beside those its files import: the prelude's and
/// serde's derives, which a type of the same name would shadow in every file.
pub const PRELUDE_NAMES: &[&str] = &[
    "Box",
    "Deserialize",
    "Option",
    "Result",
    "Serialize",
    "String",
    "Vec",
];

/// The directory (and module) of each API group: its first DNS label as a Rust module
/// (`cert-manager.io` → `cert_manager`), with more labels where two groups of one run
/// share it (`monitoring.coreos.com` and `monitoring.example.com` → `monitoring_coreos`,
/// `monitoring_example`). In the order of `groups`.
pub fn group_dirs(groups: &[&str]) -> Vec<String> {
    let labels = |group: &str, n: usize| -> String {
        let taken: Vec<&str> = group.split('.').take(n).collect();
        module_name(&safe_snake(&taken.join("_"), "group"))
    };
    groups
        .iter()
        .map(|group| {
            let depth = group.split('.').count();
            (1..=depth)
                .map(|n| labels(group, n))
                .find(|dir| {
                    groups.iter().filter(|other| *other != group).all(|other| {
                        (1..=other.split('.').count()).all(|n| labels(other, n) != *dir)
                    })
                })
                .unwrap_or_else(|| labels(group, depth))
        })
        .collect()
}

/// The file (and module) of a kind's types: `Certificate` → `certificate.rs`.
pub fn kind_module(kind: &str) -> String {
    module_name(&safe_snake(kind, "kind"))
}

/// `s` in snake_case, made an identifier: `fallback` where nothing of it is left, a
/// leading `_` before a digit.
fn safe_snake(s: &str, fallback: &str) -> String {
    let snake = s.to_snake_case();
    match snake.chars().next() {
        None => fallback.to_owned(),
        Some(c) if c.is_ascii_digit() => format!("_{snake}"),
        Some(_) => snake,
    }
}

/// `s` in UpperCamelCase, made a type name: `fallback` where nothing is left, a leading
/// `_` before a digit.
fn safe_camel(s: &str) -> String {
    let camel = s.to_upper_camel_case();
    match camel.chars().next() {
        Some(c) if c.is_ascii_digit() => format!("_{camel}"),
        _ => camel,
    }
}

/// The type names of one group version: every struct, enum and alias of its kinds, each
/// named from its schema path (`Certificate` + `spec` + `privateKey` →
/// `CertificateSpecPrivateKey`) and numbered where the name is taken.
#[derive(Default)]
pub struct TypeNames(BTreeSet<String>);

impl TypeNames {
    /// Names `taken` (what the files import, the prelude) and `kinds` first, so that no
    /// nested type takes their names.
    pub fn with<'a, 'b>(
        taken: impl IntoIterator<Item = &'a str>,
        kinds: impl IntoIterator<Item = &'b str>,
    ) -> TypeNames {
        let names = taken.into_iter().map(str::to_owned);
        TypeNames(names.chain(kinds.into_iter().map(str::to_owned)).collect())
    }

    /// A new name for the type at `parent` + `segment` (a property's JSON name).
    pub fn nested(&mut self, parent: &str, segment: &str) -> String {
        let base = format!("{parent}{}", safe_camel(segment));
        let base = if is_identifier(&base) && !is_keyword(&base) {
            base
        } else {
            format!("{parent}Value")
        };
        take_first_free(&mut self.0, &base, "")
    }

    /// A new name for the items (`suffix` `Item`) or values (`Value`) of the property
    /// `segment` of `owner`: `WidgetSpecTagsItem`.
    pub fn element(&mut self, owner: &str, segment: &str, suffix: &str) -> String {
        self.nested(&format!("{owner}{}", safe_camel(segment)), suffix)
    }
}

/// `base`, or the first of `base{sep}2`, `base{sep}3`, … not in `taken`; taken from then on.
fn take_first_free(taken: &mut BTreeSet<String>, base: &str, sep: &str) -> String {
    let name = (1..)
        .map(|n| match n {
            1 => base.to_owned(),
            n => format!("{base}{sep}{n}"),
        })
        .find(|name| !taken.contains(name))
        .unwrap_or_else(|| base.to_owned());
    taken.insert(name.clone());
    name
}

/// A struct's field names: snake_case Rust names, unique within the struct.
#[derive(Default)]
pub struct FieldNames(BTreeSet<String>);

impl FieldNames {
    /// The Rust name of the property `json`, raw where it is a keyword.
    pub fn field(&mut self, json: &str) -> String {
        let base = safe_snake(json, "field");
        let base = if matches!(base.as_str(), "self" | "super" | "crate" | "_") {
            format!("{base}_")
        } else {
            base
        };
        let name = take_first_free(&mut self.0, &base, "_");
        if is_keyword(&name) {
            format!("r#{name}")
        } else {
            name
        }
    }
}

/// The variants of a string enum, with each one's rename, or `None` where the values do
/// not make distinct Rust names (an empty value, `a-b` beside `aB`, `Self`).
pub fn variants(values: &[&str]) -> Option<Vec<(String, Option<String>)>> {
    let mut seen = BTreeSet::new();
    values
        .iter()
        .map(|value| {
            let name = safe_camel(value);
            let fine = !name.is_empty()
                && is_identifier(&name)
                && !is_keyword(&name)
                && !name.starts_with('_')
                && seen.insert(name.clone());
            fine.then(|| {
                let rename = (name != *value).then(|| (*value).to_owned());
                (name, rename)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_take_their_first_label_unless_another_group_shares_it() {
        assert_eq!(
            group_dirs(&[
                "cert-manager.io",
                "acme.cert-manager.io",
                "type.example.com"
            ]),
            ["cert_manager", "acme", "r#type"].map(module_name)
        );
        assert_eq!(
            group_dirs(&["monitoring.coreos.com", "monitoring.example.com"]),
            ["monitoring_coreos", "monitoring_example"]
        );
    }

    #[test]
    fn fields_are_snake_case_unique_and_raw_where_they_are_keywords() {
        let mut names = FieldNames::default();
        let mut field = |json| names.field(json);
        assert_eq!(field("replicas"), "replicas");
        assert_eq!(field("privateKey"), "private_key");
        assert_eq!(field("caURL"), "ca_url");
        assert_eq!(field("type"), "r#type");
        assert_eq!(field("x-foo"), "x_foo");
        // `x_foo` is taken: the next one is numbered.
        assert_eq!(field("xFoo"), "x_foo_2");
        assert_eq!(field("$ref"), "r#ref");
        assert_eq!(field("self"), "self_");
        assert_eq!(field("1st"), "_1st");
    }

    #[test]
    fn nested_types_are_named_from_their_path_and_numbered_when_taken() {
        let mut names = TypeNames::with(["Time"], ["Certificate", "CertificateSpec2"]);
        assert_eq!(names.nested("Certificate", "spec"), "CertificateSpec");
        assert_eq!(names.nested("Certificate", "spec"), "CertificateSpec3");
        assert_eq!(
            names.nested("CertificateSpec", "privateKey"),
            "CertificateSpecPrivateKey"
        );
        assert_eq!(names.nested("", "time"), "Time2");
        assert_eq!(
            names.element("WidgetSpec", "tags", "Item"),
            "WidgetSpecTagsItem"
        );
    }

    #[test]
    fn enum_values_become_variants_only_where_each_makes_a_distinct_name() {
        assert_eq!(
            variants(&["RSA", "Ed25519", "ecdsa-p256"]),
            Some(vec![
                ("Rsa".into(), Some("RSA".into())),
                ("Ed25519".into(), None),
                ("EcdsaP256".into(), Some("ecdsa-p256".into())),
            ])
        );
        assert_eq!(variants(&["a-b", "aB"]), None);
        assert_eq!(variants(&["", "x"]), None);
        assert_eq!(variants(&["self"]), None);
        assert_eq!(variants(&["1"]), None);
    }
}
