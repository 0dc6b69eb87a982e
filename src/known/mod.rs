//! Kubernetes' own types in API types: every type of k8s-openapi, in every Kubernetes
//! version it supports, with the schema controller-gen writes for it. The facts come from
//! the Kubernetes Go source (`types.jsonl`, written by `hack/update-known-types.sh`);
//! `schema` turns them into controller-gen's schema for the version being generated for.

mod data;
mod go;
pub mod manifest;
mod schema;
mod version;

use serde_json::{Value, json};

#[cfg(test)]
pub use data::versions;
pub use schema::{Options, Problem, QUANTITY_PATTERN};
pub use version::KubeVersion;

/// Whether `path` (absolute, `k8s_openapi::api::core::v1::PodSpec`) is a Kubernetes type
/// crdgen has the schema of, in any version.
pub fn knows(path: &str) -> bool {
    special(path).is_some() || data::rust(path).is_some()
}

/// The Go type (`k8s.io/api/core/v1.PodSpec`) a k8s-openapi path is in `version`;
/// `None` for a path that names none of Kubernetes' types there.
pub fn go_name(path: &str, version: KubeVersion) -> Option<String> {
    data::rust(path)?
        .into_iter()
        .find(|t| t.versions.contains(version))
        .map(|t| t.go)
}

/// The schema of a Kubernetes type named by its absolute Rust path (or, when the path
/// could not be resolved, by a bare name that only one such type has); `Ok(None)` for a
/// type that is none of Kubernetes'.
pub fn schema(
    path: &str,
    bare_name: Option<&str>,
    options: Options,
) -> Result<Option<Value>, Problem> {
    if let Some(special) = special(path) {
        return Ok(Some(special));
    }
    let path = match (data::rust(path), bare_name) {
        (Some(_), _) => path,
        (None, Some(name)) => {
            let mut matches = data::rust_paths().filter(|p| p.rsplit("::").next() == Some(name));
            match (matches.next(), matches.next()) {
                (Some(only), None) => only,
                _ => return Ok(None),
            }
        }
        (None, None) => return Ok(None),
    };
    let types = data::rust(path).unwrap_or_default();
    let Some(rust) = types.iter().find(|t| t.versions.contains(options.version)) else {
        let available: Vec<String> = types.iter().map(|t| t.versions.to_string()).collect();
        return Err(Problem::NotInVersion {
            name: path.to_owned(),
            version: options.version,
            available: available.join(", "),
        });
    };
    schema::go_type(&rust.go, options).map(Some)
}

/// The properties of metav1.TypeMeta, `apiVersion` and `kind`, as a Go kind embeds them.
pub fn type_meta(options: Options) -> Value {
    let type_meta = schema::go_type("k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta", options)
        .expect("types.jsonl has metav1.TypeMeta in every version");
    type_meta["properties"].clone()
}

/// Types with no Go twin, mapped as Kubernetes serializes them.
fn special(path: &str) -> Option<Value> {
    Some(match path {
        // Go's []byte: base64 on the wire.
        "k8s_openapi::ByteString" => json!({"type": "string", "format": "byte"}),
        // kube's Duration serializes as metav1.Duration does, a Go duration string.
        "kube::core::Duration" | "kube_core::Duration" | "kube::core::duration::Duration" => {
            json!({"type": "string"})
        }
        "serde_json::Value" => json!({"x-kubernetes-preserve-unknown-fields": true}),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(version: &str) -> Options {
        Options {
            version: version.parse().unwrap(),
            embedded_object_meta: false,
        }
    }

    fn known(path: &str) -> Value {
        schema(path, None, options("1.33")).unwrap().unwrap()
    }

    #[test]
    fn condition_carries_the_go_validations() {
        let condition = known("k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition");
        let field = |name: &str| &condition["properties"][name];
        assert_eq!(field("type")["maxLength"], 316);
        assert_eq!(field("status")["enum"], json!(["True", "False", "Unknown"]));
        assert_eq!(field("reason")["minLength"], 1);
        assert_eq!(field("reason")["maxLength"], 1024);
        assert_eq!(
            field("reason")["pattern"],
            "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"
        );
        assert_eq!(field("message")["maxLength"], 32768);
        assert_eq!(field("observedGeneration")["minimum"], 0);
        assert_eq!(field("lastTransitionTime")["format"], "date-time");
        assert_eq!(
            condition["required"],
            json!(["lastTransitionTime", "message", "reason", "status", "type"])
        );
    }

    #[test]
    fn lists_maps_and_defaults_come_from_the_go_markers() {
        let spec = known("k8s_openapi::api::core::v1::PodSpec");
        let containers = &spec["properties"]["containers"];
        assert_eq!(containers["x-kubernetes-list-type"], "map");
        assert_eq!(containers["x-kubernetes-list-map-keys"], json!(["name"]));
        let ports = &containers["items"]["properties"]["ports"];
        assert_eq!(
            ports["x-kubernetes-list-map-keys"],
            json!(["containerPort", "protocol"])
        );
        assert_eq!(ports["items"]["properties"]["protocol"]["default"], "TCP");
        let env = &containers["items"]["properties"]["env"]["items"]["properties"];
        let secret = &env["valueFrom"]["properties"]["secretKeyRef"];
        assert_eq!(secret["x-kubernetes-map-type"], "atomic");
        assert_eq!(secret["required"], json!(["key"]));
        assert_eq!(secret["properties"]["name"]["default"], "");
        let limits = &containers["items"]["properties"]["resources"]["properties"]["limits"];
        assert_eq!(
            limits["additionalProperties"]["pattern"],
            schema::QUANTITY_PATTERN
        );
        assert!(!serde_json::to_string(&spec).unwrap().contains("$ref"));
    }

    #[test]
    fn a_type_outside_the_version_names_the_versions_that_have_it() {
        let path = "k8s_openapi::api::lifecycle::v1alpha1::EvictionRequest";
        assert!(schema(path, None, options("1.37")).unwrap().is_some());
        let err = schema(path, None, options("1.33")).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("`{path}` is not in Kubernetes 1.33; k8s-openapi has it in 1.37")
        );
    }

    #[test]
    fn bare_names_resolve_when_only_one_type_has_them() {
        let time = schema("nowhere::Time", Some("Time"), options("1.33")).unwrap();
        assert_eq!(time.unwrap()["format"], "date-time");
        assert_eq!(
            schema("nowhere::Nothing", Some("Nothing"), options("1.33")),
            Ok(None)
        );
        // rbac/v1 and flowcontrol have a Subject each.
        assert_eq!(
            schema("x::Subject", Some("Subject"), options("1.33")),
            Ok(None)
        );
    }

    #[test]
    fn a_type_controller_gen_cannot_place_is_refused_naming_the_field() {
        let path =
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps";
        let err = schema(path, None, options("1.33")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "field `Schema` of `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray` has no JSON tag"
        );
    }

    /// Every type of every version, built; the few that cannot be are the ones
    /// controller-gen refuses too, and their reasons.
    #[test]
    fn every_type_of_every_version_has_its_schema_or_says_why_not() {
        let mut refused = std::collections::BTreeSet::new();
        let mut misplaced = std::collections::BTreeSet::new();
        let mut built = 0;
        for version in data::versions() {
            for path in data::rust_paths() {
                let types = data::rust(path).unwrap();
                let Some(go) = types.iter().find(|t| t.versions.contains(version)) else {
                    continue;
                };
                let options = Options {
                    version,
                    embedded_object_meta: false,
                };
                match schema(path, None, options) {
                    Ok(Some(_)) => built += 1,
                    Ok(None) => panic!("{path} is known and has no schema"),
                    Err(problem) => {
                        refused.insert(problem.to_string());
                    }
                }
                misplaced.extend(schema::misplaced_markers(&go.go, options));
            }
        }
        assert!(built > 3000, "{built} schemas");
        let apiextensions = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1";
        assert_eq!(
            refused.into_iter().collect::<Vec<_>>(),
            [
                // Recursive (a 1.37 alpha API).
                "`CompositePodGroupTemplate` is recursive (CompositePodGroupTemplate → CompositePodGroupTemplate), which a CRD schema cannot express".to_owned(),
                // Missing from the last snapshot of k8s.io/api read for 1.37.
                "`k8s.io/api/resource/v1.DeviceDerivedAttribute` is not in the Kubernetes source crdgen's types were read from".to_owned(),
                "`k8s.io/api/resource/v1beta1.DeviceDerivedAttribute` is not in the Kubernetes source crdgen's types were read from".to_owned(),
                "`k8s.io/api/resource/v1beta2.DeviceDerivedAttribute` is not in the Kubernetes source crdgen's types were read from".to_owned(),
                // JSON Schema itself: its own JSON forms, recursive.
                format!("field `Allows` of `{apiextensions}.JSONSchemaPropsOrBool` has no JSON tag"),
                format!("field `Schema` of `{apiextensions}.JSONSchemaPropsOrArray` has no JSON tag"),
                format!("field `Schema` of `{apiextensions}.JSONSchemaPropsOrStringArray` has no JSON tag"),
            ]
        );
        assert_eq!(
            misplaced.into_iter().collect::<Vec<_>>(),
            [
                "APIServiceSpec: `+listType` cannot apply here: it constrains lists, and this is a string",
                "CertificateSigningRequestSpec: `+listType` cannot apply here: it constrains lists, and this is a string",
                "CertificateSigningRequestStatus: `+listType` cannot apply here: it constrains lists, and this is a string",
                "Status: `+listType` cannot apply here: it constrains lists, and this is a object",
            ]
        );
    }
}
