//! Rules to roles, merged as controller-gen (sigs.k8s.io/controller-tools, pkg/rbac)
//! merges them, so that a kubebuilder user's markers give the role they know:
//!
//! - rules go to one role per (namespace, role name): the ClusterRole for no namespace,
//!   a Role per namespace; roles in that order;
//! - a rule is split into one per resource, then rules for the same groups, resources,
//!   resource names and URLs unite their verbs; then rules that differ only in their
//!   resources unite those, then only in their groups, then only in their URLs;
//! - every list is sorted and without duplicates; rules are sorted by
//!   `groups + resources + resourceNames + urls` (each list joined by `&`);
//! - verbs that include `*` are just `*`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::Rule;

const API_VERSION: &str = "rbac.authorization.k8s.io/v1";

/// The ClusterRole and Roles of `rules`, as Kubernetes objects, in controller-gen's
/// order. A rule without a role name of its own goes to `default_name`.
pub fn roles(rules: &[Rule], default_name: &str) -> Vec<Value> {
    let mut by_role: BTreeMap<(&str, &str), Vec<Rule>> = BTreeMap::new();
    for rule in rules {
        let name = rule.role_name.as_deref().unwrap_or(default_name);
        let role = by_role.entry((&rule.namespace, name)).or_default();
        if rule.resources.is_empty() {
            role.push(rule.clone());
        }
        for resource in &rule.resources {
            role.push(Rule {
                resources: vec![resource.clone()],
                ..rule.clone()
            });
        }
    }
    by_role
        .into_iter()
        .map(|((namespace, name), rules)| role(namespace, name, merge(rules)))
        .collect()
}

/// Which list of a rule a merge step unites.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Verbs,
    Resources,
    Groups,
    Urls,
}

impl Part {
    fn of(self, rule: &mut Rule) -> &mut Vec<String> {
        match self {
            Part::Verbs => &mut rule.verbs,
            Part::Resources => &mut rule.resources,
            Part::Groups => &mut rule.groups,
            Part::Urls => &mut rule.urls,
        }
    }
}

fn merge(rules: Vec<Rule>) -> Vec<Rule> {
    let mut rules: Vec<Rule> = rules.into_iter().map(normalized).collect();
    for part in [Part::Verbs, Part::Resources, Part::Groups, Part::Urls] {
        rules = unite(rules, part);
    }
    rules.sort_by_cached_key(sort_key);
    for rule in &mut rules {
        if rule.verbs.iter().any(|v| v == "*") {
            rule.verbs = vec!["*".to_owned()];
        }
    }
    rules
}

/// Rules equal in everything but `part` become one, with the union of their `part`.
/// (The verbs step compares all but the verbs; the others compare the verbs too.)
fn unite(rules: Vec<Rule>, part: Part) -> Vec<Rule> {
    let mut united: BTreeMap<Rule, Rule> = BTreeMap::new();
    for mut rule in rules {
        let mut key = rule.clone();
        part.of(&mut key).clear();
        match united.get_mut(&key) {
            Some(into) => {
                part.of(into).append(part.of(&mut rule));
                *into = normalized(std::mem::take(into));
            }
            None => {
                united.insert(key, rule);
            }
        }
    }
    united.into_values().collect()
}

fn normalized(mut rule: Rule) -> Rule {
    for list in [
        &mut rule.groups,
        &mut rule.resources,
        &mut rule.resource_names,
        &mut rule.verbs,
        &mut rule.urls,
    ] {
        list.sort();
        list.dedup();
    }
    rule
}

/// controller-gen's order of rules: its rule key as text.
fn sort_key(rule: &Rule) -> String {
    format!(
        "{} + {} + {} + {}",
        rule.groups.join("&"),
        rule.resources.join("&"),
        rule.resource_names.join("&"),
        rule.urls.join("&")
    )
}

fn role(namespace: &str, name: &str, rules: Vec<Rule>) -> Value {
    let mut metadata = Map::new();
    metadata.insert("name".into(), name.into());
    if !namespace.is_empty() {
        metadata.insert("namespace".into(), namespace.into());
    }
    let kind = if namespace.is_empty() {
        "ClusterRole"
    } else {
        "Role"
    };
    let mut role = Map::new();
    role.insert("apiVersion".into(), API_VERSION.into());
    role.insert("kind".into(), kind.into());
    role.insert("metadata".into(), metadata.into());
    role.insert(
        "rules".into(),
        rules
            .into_iter()
            .map(policy_rule)
            .collect::<Vec<_>>()
            .into(),
    );
    role.into()
}

/// A rule as a PolicyRule, its fields in the order sigs.k8s.io/yaml writes them
/// (alphabetical), empty lists left out as Go's `omitempty` leaves them.
fn policy_rule(rule: Rule) -> Value {
    let mut out = Map::new();
    for (key, list) in [
        ("apiGroups", rule.groups),
        ("nonResourceURLs", rule.urls),
        ("resourceNames", rule.resource_names),
        ("resources", rule.resources),
        ("verbs", rule.verbs),
    ] {
        if !list.is_empty() {
            out.insert(key.into(), list.into());
        }
    }
    out.into()
}
