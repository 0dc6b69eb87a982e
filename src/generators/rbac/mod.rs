//! RBAC from markers, as controller-gen's `rbac` generator makes it:
//! `+kubebuilder:rbac:groups=…,resources=…,verbs=…[,resourceNames=…][,urls=…]
//! [,namespace=…][,roleName=…]` in doc comments anywhere in the files it scans become
//! one ClusterRole (and a Role per namespace), rules merged as in `roles`.

mod roles;

use roles::roles;

use super::{Context, Definition, ManifestDir, Output};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::markers::{Marker, Value};
use crate::naming;
use crate::scan::Found;

/// The markers it reads: they belong to no type.
const MARKERS: &[&crate::markers::MarkerDef] = &[&crate::markers::RBAC];

/// The `rbac` generator: `role.yaml`, one YAML document per role, as controller-gen
/// writes it.
pub(super) const GENERATOR: Definition = Definition::manifests(
    "rbac",
    ManifestDir {
        flag: "--rbac-dir",
        // As in kubebuilder projects.
        default: "config/rbac",
        build: naming::BUILD_RBAC_DIR,
    },
    generate,
)
.reads(MARKERS, check);

/// Checks the markers with the parsing, reporting each mistake at its marker.
fn check(found: &[Found], diags: &mut Diagnostics) {
    rules(found, diags);
}

fn generate(ctx: &Context<'_>, out: &mut Output, _: &mut Diagnostics) {
    // Checked, and mistakes reported, with the parsing (`check_markers`).
    let rules = rules(ctx.markers, &mut Diagnostics::default());
    let roles = roles(&rules, &ctx.opts.role_name);
    super::add_yaml_documents(out, naming::ROLE_FILE, &roles);
}

/// One `+kubebuilder:rbac` marker, checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rule {
    /// `core` is written as the core group's `""` already.
    pub groups: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
    pub verbs: Vec<String>,
    pub urls: Vec<String>,
    /// Empty for the ClusterRole.
    pub namespace: String,
    /// The role's own name instead of the generator's.
    pub role_name: Option<String>,
}

/// The rules of the `+kubebuilder:rbac` markers `found`, in file order.
fn rules(found: &[Found], diags: &mut Diagnostics) -> Vec<Rule> {
    found
        .iter()
        .filter(|f| f.marker.def == &crate::markers::RBAC)
        .filter_map(|f| rule(&f.marker, &f.file, diags))
        .collect()
}

/// A marker's rule, or `None` after reporting why the apiserver would refuse it.
fn rule(marker: &Marker, file: &str, diags: &mut Diagnostics) -> Option<Rule> {
    let Value::Args(args) = &marker.value else {
        return None;
    };
    let list = |key: &str| match args.get(key) {
        Some(Value::List(items)) => items.clone(),
        _ => Vec::new(),
    };
    let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_owned);
    let rule = Rule {
        // "core" is the core group, as controller-gen lets people write it.
        groups: list("groups")
            .into_iter()
            .map(|g| if g == "core" { String::new() } else { g })
            .collect(),
        resources: list("resources"),
        resource_names: list("resourceNames"),
        verbs: list("verbs"),
        urls: list("urls"),
        namespace: text("namespace").unwrap_or_default(),
        role_name: text("roleName"),
    };
    match refusal(&rule) {
        Some((message, hint)) => {
            diags.push(
                Diagnostic::error(Code::BadMarkerArgument, message)
                    .at(file, marker.pos)
                    .hint(hint),
            );
            None
        }
        None => Some(rule),
    }
}

/// Why the apiserver would refuse `rule` (its own checks of a PolicyRule and of the
/// names), with a hint, so that it is found here, at the marker, rather than at
/// `kubectl apply`.
fn refusal(rule: &Rule) -> Option<(String, &'static str)> {
    let for_resources = !(rule.groups.is_empty() && rule.resources.is_empty());
    if !rule.urls.is_empty() && for_resources {
        return Some((
            "a rule is for resources or for non-resource URLs, not both".into(),
            "write the `urls=` rule as a marker of its own",
        ));
    }
    if !rule.urls.is_empty() && !rule.namespace.is_empty() {
        return Some((
            "a namespaced Role cannot grant non-resource URLs".into(),
            "drop `namespace=`: non-resource URLs belong to the ClusterRole",
        ));
    }
    if rule.urls.is_empty() && (rule.groups.is_empty() || rule.resources.is_empty()) {
        return Some((
            "a resource rule needs `groups=` and `resources=`".into(),
            "name the API groups (`groups=\"\"` or `groups=core` is the core group) and the resources, e.g. `+kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch`",
        ));
    }
    if !rule.namespace.is_empty()
        && let Err(why) = crdgen_apimachinery::names::label(&rule.namespace)
    {
        return Some((
            format!(
                "`namespace={}` is not a namespace name: {why}",
                rule.namespace
            ),
            "a namespace is a DNS-1123 label, e.g. `namespace=my-system`",
        ));
    }
    let bad_name = rule
        .role_name
        .as_deref()
        .filter(|n| !naming::is_role_name(n));
    bad_name.map(|name| {
        (
            format!("`roleName={name}` cannot name a role"),
            "a role's name is any text but `.` or `..`, without `/` or `%`",
        )
    })
}

#[cfg(test)]
mod tests;
