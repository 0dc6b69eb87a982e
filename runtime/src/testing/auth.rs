//! Who is who, and who may do what, answered as the apiserver answers it for those who
//! ask: a TokenRequest (`serviceaccounts/<name>/token`) issues a ServiceAccount's token,
//! a TokenReview says whose a token is (the ServiceAccount's user and groups), and a
//! SubjectAccessReview is decided by RBAC over the stored ClusterRoles, Roles and their
//! bindings (`system:masters` may do anything), as the apiserver's RBAC authoriser
//! decides it. Requests to the server itself are not authenticated.
//!
//! Differences: tokens are opaque strings that never expire; aggregated ClusterRoles
//! are read as stored (their rules are filled in by a controller, which envtest does not
//! run either); the answer's `reason` is worded as RBAC's but not byte for byte.

use std::collections::HashMap;

use http::{Method, StatusCode};
use k8s_openapi::api::authentication::v1::UserInfo;
use k8s_openapi::api::authorization::v1::SubjectAccessReviewSpec;
use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, PolicyRule, RoleBinding, Subject,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::ApiServer;
use super::status::ApiError;
use super::store::{ResourceKey, Storage};

/// The tokens issued, by token.
#[derive(Default)]
pub(super) struct Tokens {
    users: HashMap<String, UserInfo>,
}

const TOKEN_REVIEWS: &str = "/apis/authentication.k8s.io/v1/tokenreviews";
const ACCESS_REVIEWS: &str = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
const RBAC_GROUP: &str = "rbac.authorization.k8s.io";
/// How long an issued token says it lasts (the apiserver's default `expirationSeconds`).
const TOKEN_SECONDS: i64 = 3600;

impl ApiServer {
    /// The answer to a review or token request at `path`; `None` for any other path.
    pub(super) fn review(
        &self,
        method: &Method,
        path: &str,
        body: &[u8],
    ) -> Option<Result<(StatusCode, Value), ApiError>> {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        let answer = match (method, segments.as_slice()) {
            (&Method::POST, _) if path == TOKEN_REVIEWS => {
                parse(body).map(|r| self.token_review(r))
            }
            (&Method::POST, _) if path == ACCESS_REVIEWS => {
                parse(body).and_then(|r| self.access_review(r))
            }
            (
                &Method::POST,
                [
                    "api",
                    "v1",
                    "namespaces",
                    ns,
                    "serviceaccounts",
                    name,
                    "token",
                ],
            ) => parse(body).and_then(|r| self.token_request(ns, name, r)),
            _ => return None,
        };
        Some(answer.map(|value| (StatusCode::CREATED, value)))
    }

    fn token_request(
        &self,
        namespace: &str,
        name: &str,
        mut request: Value,
    ) -> Result<Value, ApiError> {
        let key: ResourceKey = (String::new(), "v1".into(), "serviceaccounts".into());
        let account = self.store().get(&key, Some(namespace), name).map_err(|_| {
            ApiError::new(
                404,
                "NotFound",
                format!("serviceaccounts \"{name}\" not found"),
            )
            .with_details(name, "", "serviceaccounts")
        })?;
        let mut tokens = self.tokens();
        let token = format!(
            "crdgen-in-memory-{}-{namespace}-{name}",
            tokens.users.len() + 1
        );
        let user = UserInfo {
            username: Some(format!("system:serviceaccount:{namespace}:{name}")),
            uid: account["metadata"]["uid"].as_str().map(str::to_owned),
            groups: Some(vec![
                "system:serviceaccounts".to_owned(),
                format!("system:serviceaccounts:{namespace}"),
                "system:authenticated".to_owned(),
            ]),
            extra: None,
        };
        tokens.users.insert(token.clone(), user);
        let expires = k8s_openapi::jiff::Timestamp::now()
            + k8s_openapi::jiff::SignedDuration::from_secs(TOKEN_SECONDS);
        request["apiVersion"] = json!("authentication.k8s.io/v1");
        request["kind"] = json!("TokenRequest");
        request["metadata"] = json!({"name": name, "namespace": namespace});
        request["spec"]["expirationSeconds"] = json!(TOKEN_SECONDS);
        request["status"] = json!({"token": token, "expirationTimestamp": expires.to_string()});
        Ok(request)
    }

    fn token_review(&self, mut review: Value) -> Value {
        let token = review["spec"]["token"].as_str().unwrap_or_default();
        review["status"] = match self.tokens().users.get(token) {
            Some(user) => json!({"authenticated": true, "user": user}),
            None => json!({"user": {}, "error": "invalid bearer token"}),
        };
        review
    }

    fn access_review(&self, mut review: Value) -> Result<Value, ApiError> {
        let spec: SubjectAccessReviewSpec = serde_json::from_value(review["spec"].clone())
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        if spec.user.is_none() && spec.groups.is_none() {
            return Err(invalid(
                "spec.user,spec.groups: Invalid value: \"null\": at least one of user or group must be specified",
            ));
        }
        if spec.resource_attributes.is_some() == spec.non_resource_attributes.is_some() {
            return Err(invalid(
                "spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified",
            ));
        }
        let reason = decide(&self.store(), &spec);
        review["status"] = match reason {
            Some(reason) => json!({"allowed": true, "reason": reason}),
            None => json!({"allowed": false}),
        };
        Ok(review)
    }

    fn tokens(&self) -> std::sync::MutexGuard<'_, Tokens> {
        crate::panics::lock(&self.tokens)
    }
}

fn parse(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the body of the request is not JSON: {e}")))
}

fn invalid(why: &str) -> ApiError {
    ApiError::new(
        422,
        "Invalid",
        format!("SubjectAccessReview.authorization.k8s.io \"\" is invalid: {why}"),
    )
}

/// Why RBAC allows what `spec` asks, `None` when it does not.
fn decide(store: &Storage, spec: &SubjectAccessReviewSpec) -> Option<String> {
    let user = spec.user.as_deref().unwrap_or_default();
    let groups = spec.groups.as_deref().unwrap_or_default();
    if groups.iter().any(|g| g == "system:masters") {
        return Some("allowed by the system:masters group".to_owned());
    }
    let namespace = spec
        .resource_attributes
        .as_ref()
        .and_then(|r| r.namespace.as_deref())
        .filter(|n| !n.is_empty());
    // A binding's role, read by name: a ClusterRole, or a Role in the binding's namespace.
    let rules_of = |kind: &str, name: &str, ns: Option<&str>| -> Vec<PolicyRule> {
        let (plural, ns) = match kind {
            "ClusterRole" => ("clusterroles", None),
            _ => ("roles", ns),
        };
        let key: ResourceKey = (RBAC_GROUP.into(), "v1".into(), plural.into());
        let role = store.get(&key, ns, name).ok();
        role.and_then(|r| serde_json::from_value::<ClusterRole>(r).ok())
            .and_then(|r| r.rules)
            .unwrap_or_default()
    };
    // Cluster-wide bindings, then the namespace's (whose ServiceAccount subjects may
    // leave the namespace out): each as what it is, its role and its subjects.
    let cluster = objects::<ClusterRoleBinding>(store, "clusterrolebindings", None).map(|b| {
        let what = format!(
            "ClusterRoleBinding \"{}\"",
            b.metadata.name.unwrap_or_default()
        );
        (what, b.role_ref, b.subjects, None)
    });
    let local = namespace.into_iter().flat_map(|ns| {
        objects::<RoleBinding>(store, "rolebindings", Some(ns)).map(move |b| {
            let what = format!(
                "RoleBinding \"{}/{ns}\"",
                b.metadata.name.unwrap_or_default()
            );
            (what, b.role_ref, b.subjects, Some(ns))
        })
    });
    for (what, role_ref, subjects, ns) in cluster.chain(local) {
        let bound = subjects
            .iter()
            .flatten()
            .find(|s| subject_is(s, user, groups, ns));
        if let Some(subject) = bound
            && rules_of(&role_ref.kind, &role_ref.name, ns)
                .iter()
                .any(|rule| matches(rule, spec))
        {
            return Some(format!(
                "RBAC: allowed by {what} of {} \"{}\" to {} \"{}\"",
                role_ref.kind, role_ref.name, subject.kind, subject.name
            ));
        }
    }
    None
}

/// The stored objects of an `rbac.authorization.k8s.io/v1` resource (in `namespace`,
/// when given) that read as `K`.
fn objects<'a, K: DeserializeOwned + 'a>(
    store: &'a Storage,
    plural: &str,
    namespace: Option<&'a str>,
) -> impl Iterator<Item = K> + 'a {
    let key: ResourceKey = (
        "rbac.authorization.k8s.io".into(),
        "v1".into(),
        plural.into(),
    );
    store
        .objects(&key)
        .filter(move |o| namespace.is_none_or(|ns| o["metadata"]["namespace"] == ns))
        .filter_map(|o| serde_json::from_value(o.clone()).ok())
}

/// Whether a binding's subject names this user or one of its groups. A ServiceAccount
/// subject without a namespace takes the RoleBinding's.
fn subject_is(subject: &Subject, user: &str, groups: &[String], binding_ns: Option<&str>) -> bool {
    match subject.kind.as_str() {
        "User" => subject.name == user,
        "Group" => groups.contains(&subject.name),
        "ServiceAccount" => {
            let namespace = subject
                .namespace
                .as_deref()
                .or(binding_ns)
                .unwrap_or_default();
            user == format!("system:serviceaccount:{namespace}:{}", subject.name)
        }
        _ => false,
    }
}

/// Whether `rule` grants what `spec` asks, as RBAC's `RuleAllows` decides.
fn matches(rule: &PolicyRule, spec: &SubjectAccessReviewSpec) -> bool {
    let any = |list: Option<&Vec<String>>, value: &str| {
        list.into_iter().flatten().any(|v| v == "*" || v == value)
    };
    if let Some(asked) = &spec.non_resource_attributes {
        let path = asked.path.as_deref().unwrap_or_default();
        let urls = rule.non_resource_urls.iter().flatten().any(|url| {
            url == "*"
                || url == path
                || url
                    .strip_suffix('*')
                    .is_some_and(|prefix| path.starts_with(prefix))
        });
        return urls && any(Some(&rule.verbs), asked.verb.as_deref().unwrap_or_default());
    }
    let Some(asked) = &spec.resource_attributes else {
        return false;
    };
    let resource = asked.resource.as_deref().unwrap_or_default();
    let subresource = asked.subresource.as_deref().filter(|s| !s.is_empty());
    let resources = rule.resources.iter().flatten().any(|r| match subresource {
        None => r == "*" || r == resource,
        Some(sub) => r == "*" || *r == format!("{resource}/{sub}") || *r == format!("*/{sub}"),
    });
    let name = asked.name.as_deref().unwrap_or_default();
    let named = rule.resource_names.as_ref().is_none_or(|names| {
        names.is_empty() || (!name.is_empty() && names.iter().any(|n| n == name))
    });
    any(Some(&rule.verbs), asked.verb.as_deref().unwrap_or_default())
        && any(
            rule.api_groups.as_ref(),
            asked.group.as_deref().unwrap_or_default(),
        )
        && resources
        && named
}
