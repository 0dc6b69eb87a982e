//! The Kubernetes names of the model, checked where they enter: a kind, plural,
//! singular, short name, category or group ends up in a URL, a file name and a Rust
//! identifier, so each must be what the apiserver accepts, and no two kinds may share
//! one (the apiserver would refuse the second CRD's names; rustc the generated code).

use std::collections::{BTreeMap, BTreeSet};

use super::{Group, Kind};
use crate::diag::{Code, Diagnostic, Diagnostics, Pos};
use crate::naming::{self, Namespace};
use crdgen_apimachinery::names as dns;

/// Checks the names of one kind against the apiserver's rules.
pub fn check_kind(kind: &Kind, diags: &mut Diagnostics) {
    let lower = kind.name.to_ascii_lowercase();
    if let Err(why) = dns::label(&lower) {
        diags.push(
            Diagnostic::error(
                Code::InvalidName,
                format!(
                    "kind `{}` cannot be a Kubernetes kind: its lower-case form is not a DNS-1035 label: {why}",
                    shorten(&kind.name),
                ),
            )
            .at(&kind.file, kind.pos)
            .hint("a kind is an ASCII PascalCase name whose lower-case form is a DNS-1035 label (at most 63 characters), e.g. `Example`"),
        );
        // Every other name derives from the kind; one error says it all.
        return;
    }
    let lists = [
        ("plural", std::slice::from_ref(&kind.plural)),
        ("singular", std::slice::from_ref(&kind.singular)),
        ("short name", kind.short_names.as_slice()),
        ("category", kind.categories.as_slice()),
    ];
    for (what, names) in lists {
        for name in names {
            if let Err(why) = dns::label(name) {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidName,
                        format!(
                            "{what} `{}` of kind `{}` is not a DNS-1035 label: {why}",
                            shorten(name),
                            kind.name
                        ),
                    )
                    .at(&kind.file, kind.names_pos)
                    .hint("resource names are lower-case words such as `examples`, at most 63 characters; set them with `+kubebuilder:resource:path=…,singular=…,shortName=…`"),
                );
            }
        }
    }
}

/// Checks an API group's name where it is declared. CRDs also need a dot in it.
pub fn check_group(name: &str, crd: bool, file: &str, pos: Pos) -> Result<(), Diagnostic> {
    let why = match dns::subdomain(name) {
        Err(why) => why,
        Ok(()) if crd && !name.contains('.') => {
            "a CustomResourceDefinition's group needs at least one dot".to_owned()
        }
        Ok(()) => return Ok(()),
    };
    Err(Diagnostic::error(
        Code::InvalidName,
        format!(
            "group name `{}` is not a DNS-1123 subdomain: {why}",
            shorten(name)
        ),
    )
    .at(file, pos)
    .hint("an API group is a lower-case domain name you own, e.g. `bcrds.example.com`"))
}

/// A `+groupGoName` the generated names can be made from: ASCII letters and digits,
/// starting with a letter (client-gen's `ExampleGroup`).
pub fn check_group_go_name(name: &str, file: &str, pos: Pos) -> Result<(), Diagnostic> {
    if name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return Ok(());
    }
    Err(Diagnostic::error(
        Code::InvalidName,
        format!(
            "`+groupGoName={}` cannot name generated code",
            shorten(name)
        ),
    )
    .at(file, pos)
    .hint("use ASCII letters and digits, starting with a letter, e.g. `+groupGoName=ExampleGroup`"))
}

/// Finds two kinds of `group` that share a resource name or a kind name (as the
/// apiserver's naming controller does), a CRD name longer than the apiserver allows,
/// and two kinds of one version whose generated code would declare one name twice.
/// Each pair of kinds is reported once, at its first shared name.
pub fn check_collisions(group: &Group, diags: &mut Diagnostics) {
    let mut claims = Claims {
        reported: BTreeSet::new(),
        diags,
    };
    let mut group_names = Names::new();
    for version in group.versions.values() {
        let mut generated = Names::new();
        let owner = Owner {
            what: "generated name".to_owned(),
            kind: format!("the `{}/{}` group version", group.dir, version.name),
            place: None,
        };
        for (namespace, name) in naming::version_items(&group.code_name, &version.name) {
            generated.insert((space_of(namespace), name), owner.clone());
        }
        for kind in version.kinds.values() {
            check_crd_name(kind, &group.name, claims.diags);
            let resource_names = [("plural", &kind.plural), ("singular", &kind.singular)]
                .into_iter()
                .chain(kind.short_names.iter().map(|s| ("short name", s)));
            for (what, name) in resource_names {
                let space = if what == "short name" {
                    "short names"
                } else {
                    "resources"
                };
                claims.claim(&mut group_names, space, name, Owner::kind(kind, what), "give one of them another name with `+kubebuilder:resource:path=…,singular=…,shortName=…`");
            }
            for (what, name) in [
                ("kind", kind.name.clone()),
                ("list kind", format!("{}List", kind.name)),
            ] {
                claims.claim(
                    &mut group_names,
                    "kinds",
                    &name,
                    Owner::kind(kind, what),
                    "rename one of the kinds; Kubernetes names a kind's list `<Kind>List`",
                );
            }
            for (namespace, name) in naming::kind_items(&kind.name, &kind.plural) {
                claims.claim(&mut generated, space_of(namespace), &name, Owner::kind(kind, "generated name"), "rename one of the kinds (or give it another plural): generated code would declare this name twice");
            }
        }
    }
}

/// A CRD is named `<plural>.<group>`, which must fit a DNS-1123 subdomain.
fn check_crd_name(kind: &Kind, group: &str, diags: &mut Diagnostics) {
    let crd_name = format!("{}.{group}", kind.plural);
    // An invalid plural or group has been reported where it is declared.
    let parts_valid = dns::label(&kind.plural).is_ok() && dns::subdomain(group).is_ok();
    if crd_name.len() > dns::SUBDOMAIN_MAX && parts_valid {
        diags.push(
            Diagnostic::error(
                Code::InvalidName,
                format!(
                    "the CRD name `{}` of kind `{}` is {} characters long; the most is {}",
                    shorten(&crd_name),
                    kind.name,
                    crd_name.len(),
                    dns::SUBDOMAIN_MAX
                ),
            )
            .at(&kind.file, kind.names_pos)
            .hint("a CRD is named `<plural>.<group>`: shorten the plural or the group"),
        );
    }
}

/// A name's first owner, to name both sides of a collision.
#[derive(Clone)]
struct Owner {
    what: String,
    kind: String,
    place: Option<(String, Pos)>,
}

impl Owner {
    fn kind(kind: &Kind, what: &str) -> Owner {
        Owner {
            what: what.to_owned(),
            kind: kind.name.clone(),
            place: Some((kind.file.clone(), kind.names_pos)),
        }
    }

    fn describe(&self) -> String {
        match &self.place {
            Some((file, pos)) => format!(
                "the {} of kind `{}` ({file}:{}:{})",
                self.what, self.kind, pos.line, pos.col
            ),
            None => format!("a {} of {}", self.what, self.kind),
        }
    }
}

fn space_of(namespace: Namespace) -> &'static str {
    match namespace {
        Namespace::Item => "generated items",
        Namespace::Method => "generated methods",
    }
}

/// Names claimed so far, by the namespace they must be unique in.
type Names = BTreeMap<(&'static str, String), Owner>;

struct Claims<'d> {
    /// Pairs of owners already reported, so that two kinds sharing a plural are not
    /// reported again for every name derived from it.
    reported: BTreeSet<(String, String)>,
    diags: &'d mut Diagnostics,
}

impl Claims<'_> {
    fn claim(
        &mut self,
        names: &mut Names,
        space: &'static str,
        name: &str,
        owner: Owner,
        hint: &str,
    ) {
        let key = (space, name.to_owned());
        let Some(first) = names.get(&key) else {
            names.insert(key, owner);
            return;
        };
        // A kind served in several versions names itself again: not a collision.
        if first.kind == owner.kind
            || !self
                .reported
                .insert((first.kind.clone(), owner.kind.clone()))
        {
            return;
        }
        let (file, pos) = owner.place.clone().unwrap_or_default();
        self.diags.push(
            Diagnostic::error(
                Code::Conflict,
                format!(
                    "`{name}` is both {} and the {} of kind `{}`",
                    first.describe(),
                    owner.what,
                    owner.kind
                ),
            )
            .at(&file, pos)
            .hint(hint),
        );
    }
}

/// A name cut for a message: a 300-character kind is not worth repeating in full.
fn shorten(name: &str) -> String {
    const MAX: usize = 80;
    if name.chars().count() <= MAX {
        name.to_owned()
    } else {
        format!("{}…", name.chars().take(MAX).collect::<String>())
    }
}
