//! A CRD whose schema refuses its own defaults is refused when it is written, by
//! kube-apiserver and by the in-memory API server alike, cause by cause. The causes
//! pinned here were read off kube-apiserver v1.37.2; the real-cluster half holds every
//! release the suites run on to them.

use std::collections::BTreeSet;

use crdgen_runtime::testing::{ApiServer, cluster};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use serde_json::json;

/// Each default breaks one validation of its own field (the apiserver's Go maps give
/// them in no order: compared as a set). A default's own default below it is not filled
/// in before it is checked.
const CAUSES: &[&str] = &[
    "FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].properties[any].default: Invalid value: \"\": \"\" must validate at least one schema (anyOf)",
    "FieldValueRequired spec.validation.openAPIV3Schema.properties[spec].properties[any].default.a: Required value",
    "FieldValueNotSupported spec.validation.openAPIV3Schema.properties[spec].properties[en].default: Unsupported value: \"z\": supported values: \"a\", \"b\"",
    "FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].properties[keep].default: Invalid value: 300:  in body should be less than or equal to 100",
    "FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].properties[listy].default: Invalid value: 1:  in body should have at least 2 items",
    "FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].properties[nested].default: Invalid value: \"object\": no such key: n evaluating rule: self.n == 3",
    "FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].properties[notted].default: Invalid value: \"\": \"\" must not validate the schema (not)",
    "FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].properties[pat].default: Invalid value: \"ABC\":  in body should match '^[a-z]+$'",
    "FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].properties[pruned].default: Invalid value: {\"a\":1,\"b\":2}: must not have unknown fields",
    "FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].properties[shipping].default: Invalid value: \"\": \"\" must validate one and only one schema (oneOf). Found 2 valid alternatives",
];

fn crd() -> CustomResourceDefinition {
    let spec = json!({"type": "object", "properties": {
        "keep": {"type": "integer", "maximum": 100, "default": 300},
        "shipping": {
            "type": "object", "default": {"carrier": "post", "express": false},
            "properties": {"carrier": {"type": "string"}, "express": {"type": "boolean"}},
            "oneOf": [{"required": ["carrier"]}, {"required": ["express"]}],
        },
        "any": {
            "type": "object", "default": {}, "properties": {"a": {"type": "string"}},
            "anyOf": [{"required": ["a"]}],
        },
        "ruled": {
            "type": "string", "default": "x",
            "x-kubernetes-validations": [{"rule": "self.size() > 2", "message": "too short"}],
        },
        "notted": {"type": "integer", "default": 0, "not": {"enum": [0]}},
        "pruned": {
            "type": "object", "default": {"a": 1, "b": 2},
            "properties": {"a": {"type": "integer"}},
        },
        "pat": {"type": "string", "default": "ABC", "pattern": "^[a-z]+$"},
        "en": {"type": "string", "default": "z", "enum": ["a", "b"]},
        "listy": {"type": "array", "default": ["a"], "minItems": 2, "items": {"type": "string"}},
        // A default is checked as written: the one below it is not filled in first.
        "nested": {
            "type": "object", "default": {},
            "properties": {"n": {"type": "integer", "default": 3, "minimum": 1}},
            "x-kubernetes-validations": [{"rule": "self.n == 3"}],
        },
    }});
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "defaults.e2e.crdgen.dev"},
        "spec": {
            "group": "e2e.crdgen.dev",
            "names": {"kind": "Default", "plural": "defaults", "singular": "default", "listKind": "DefaultList"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}}]
        }
    }))
    .unwrap()
}

/// The causes of Kubernetes 1.`minor`: a failed rule names its node's type in place of
/// its value before 1.35.
fn pinned(minor: u16) -> BTreeSet<String> {
    let shown = if minor < 35 { "\"string\"" } else { "\"x\"" };
    let rule = format!(
        "FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].properties[ruled].default: Invalid value: {shown}: too short"
    );
    CAUSES
        .iter()
        .map(|c| (*c).to_owned())
        .chain([rule])
        .collect()
}

#[tokio::test]
async fn defaults_the_schema_refuses_are_refused_with_the_apiservers_words() {
    // The in-memory server answers as the real one's release, where there is one.
    let real = cluster::connect("crd defaults").await;
    let minor = match &real {
        Some(cluster::Connection { client, .. }) => cluster::server_version(client).await.minor,
        None => u32::from(crdgen_runtime::crd::KUBERNETES_MINOR),
    } as u16;
    let server = ApiServer::new().kubernetes_minor(minor);
    let Err(refused) = server.try_register_crd(&crd()) else {
        panic!("the in-memory server took the CRD");
    };
    assert_eq!((refused.code, refused.reason), (422, "Invalid"));
    assert!(
        refused.message.starts_with(
            "CustomResourceDefinition.apiextensions.k8s.io \"defaults.e2e.crdgen.dev\" is invalid: ["
        ),
        "{}",
        refused.message
    );
    let causes: BTreeSet<String> = refused
        .details
        .unwrap()
        .causes
        .into_iter()
        .map(|c| format!("{} {}: {}", c.reason, c.field, c.message))
        .collect();
    assert_eq!(causes, pinned(minor));

    let Some(cluster::Connection { client, .. }) = real else {
        return;
    };
    let crds: Api<CustomResourceDefinition> = Api::all(client);
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let status = match crds.create(&dry_run, &crd()).await {
        Err(kube::Error::Api(status)) => status,
        other => panic!("the apiserver took the CRD: {other:?}"),
    };
    assert_eq!(status.code, 422, "{status:?}");
    let causes: BTreeSet<String> = status
        .details
        .map(|d| d.causes)
        .unwrap_or_default()
        .into_iter()
        .map(|c| format!("{} {}: {}", c.reason, c.field, c.message))
        .collect();
    assert_eq!(causes, pinned(minor));
}
