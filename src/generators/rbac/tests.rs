//! Merging as controller-gen documents and does it (pkg/rbac/parser.go, its testdata).

use serde_json::{Value, json};

use super::{Rule, roles};

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> Rule {
    let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
    Rule {
        groups: strings(groups),
        resources: strings(resources),
        verbs: strings(verbs),
        ..Rule::default()
    }
}

fn rules_of(role: &Value) -> &Value {
    &role["rules"]
}

#[test]
fn rules_for_the_same_resources_unite_their_verbs_sorted() {
    let out = roles(
        &[
            rule(&["apps"], &["deployments"], &["watch", "get"]),
            rule(&["apps"], &["deployments"], &["list", "get"]),
        ],
        "manager-role",
    );
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0],
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "manager-role"},
            "rules": [{"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list", "watch"]}],
        })
    );
}

#[test]
fn rules_that_differ_only_in_resources_or_groups_become_one() {
    let out = roles(
        &[
            rule(&["apps"], &["statefulsets"], &["get", "list"]),
            rule(&["apps"], &["deployments"], &["list", "get"]),
            // Same resources and verbs, another group: the groups unite.
            rule(
                &["extensions"],
                &["deployments", "statefulsets"],
                &["get", "list"],
            ),
            // Other verbs: a rule of its own.
            rule(&["apps"], &["deployments/status"], &["update"]),
        ],
        "r",
    );
    assert_eq!(
        *rules_of(&out[0]),
        json!([
            {"apiGroups": ["apps"], "resources": ["deployments/status"], "verbs": ["update"]},
            {"apiGroups": ["apps", "extensions"], "resources": ["deployments", "statefulsets"], "verbs": ["get", "list"]},
        ])
    );
}

#[test]
fn a_rule_with_several_resources_is_split_before_merging() {
    // controller-gen splits `resources=a;b` into one rule per resource, so `a` can take
    // verbs from another marker without `b` getting them.
    let out = roles(
        &[
            rule(&[""], &["pods", "secrets"], &["get"]),
            rule(&[""], &["pods"], &["list"]),
        ],
        "r",
    );
    assert_eq!(
        *rules_of(&out[0]),
        json!([
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]},
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]},
        ])
    );
}

#[test]
fn urls_unite_and_a_star_verb_is_all_verbs() {
    let urls = |url: &str, verbs: &[&str]| Rule {
        urls: vec![url.to_owned()],
        verbs: verbs.iter().map(|s| s.to_string()).collect(),
        ..Rule::default()
    };
    let out = roles(
        &[
            urls("/metrics", &["get"]),
            urls("/healthz", &["get"]),
            rule(&["batch"], &["jobs"], &["get", "*"]),
        ],
        "r",
    );
    assert_eq!(
        *rules_of(&out[0]),
        json!([
            // The URL rule's key starts with its empty groups: it sorts first.
            {"nonResourceURLs": ["/healthz", "/metrics"], "verbs": ["get"]},
            {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["*"]},
        ])
    );
}

#[test]
fn namespaces_and_role_names_make_roles_of_their_own_in_order() {
    let mut in_ns = rule(&[""], &["secrets"], &["get"]);
    in_ns.namespace = "b-system".into();
    let mut other_ns = in_ns.clone();
    other_ns.namespace = "a-system".into();
    let mut named = rule(&[""], &["configmaps"], &["get"]);
    named.role_name = Some("config-reader".into());
    let out = roles(
        &[
            in_ns,
            rule(&["apps"], &["deployments"], &["get"]),
            other_ns,
            named,
        ],
        "manager-role",
    );
    let heads: Vec<(String, String, String)> = out
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_owned(),
                r["metadata"]["namespace"].as_str().unwrap_or("").to_owned(),
                r["metadata"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("ClusterRole", "", "config-reader"),
        ("ClusterRole", "", "manager-role"),
        ("Role", "a-system", "manager-role"),
        ("Role", "b-system", "manager-role"),
    ]
    .map(|(k, n, m)| (k.to_owned(), n.to_owned(), m.to_owned()));
    assert_eq!(heads, expected);
}

#[test]
fn no_rules_no_roles() {
    assert!(roles(&[], "manager-role").is_empty());
}
