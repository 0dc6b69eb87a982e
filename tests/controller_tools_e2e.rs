//! controller-tools' envtest suite of its testdata (`crd_test.go`, `immutable_test.go`),
//! on the Rust port of that testdata (testdata/controller-tools): the CRDs crdgen writes
//! for it install on a real apiserver, and the Enum and ImmutableType kinds answer
//! controller-tools' writes as it expects. The same writes run against the in-memory
//! server and a real apiserver (CRDGEN_E2E_KUBECONFIG, else envtest).

mod common;

use crdgen_runtime::testing::{ApiServer, cluster};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
use serde_json::{Value, json};

/// Every CRD of the port, as tests/fidelity.rs compares them with controller-gen's.
fn crds() -> Vec<CustomResourceDefinition> {
    let opts = common::controller_tools_options(common::CONTROLLER_TOOLS_GROUPS);
    common::generate_files(&opts)
        .iter()
        .map(|(_, text)| serde_yaml_ng::from_str(text).unwrap())
        .collect()
}

fn kind(kind: &str, plural: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("testdata.kubebuilder.io", "v1", kind),
        plural,
    )
}

fn object(resource: &ApiResource, name: &str, spec: Value) -> DynamicObject {
    let mut o = DynamicObject::new(name, resource);
    o.data = json!({ "spec": spec });
    o
}

/// An ImmutableType's spec with every required field (`newObj` of immutable_test.go).
fn immutable_spec() -> Value {
    json!({
        "requiredString": "original",
        "requiredStruct": {"key": "k", "value": "v"},
        "requiredSlice": ["a", "b"],
        "requiredMap": {"k1": "v1"},
        "mutableString": "can-change",
    })
}

/// The outcome of a write: `Ok`, or the apiserver's message.
fn outcome<T>(result: Result<T, kube::Error>) -> Result<(), String> {
    match result {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) => Err(status.message),
        Err(other) => Err(other.to_string()),
    }
}

struct Checks {
    enums: Api<DynamicObject>,
    immutables: Api<DynamicObject>,
    wrong: Vec<String>,
}

impl Checks {
    /// Records a difference unless `result` is `Ok` when `expected` is `None`, or an
    /// error whose message holds `expected` (controller-tools' `ContainSubstring`).
    fn expect<T>(&mut self, what: &str, result: Result<T, kube::Error>, expected: Option<&str>) {
        match (outcome(result), expected) {
            (Ok(()), None) => {}
            (Err(message), Some(part)) if message.contains(part) => {}
            (got, expected) => self
                .wrong
                .push(format!("{what}: got {got:?}, expected {expected:?}")),
        }
    }

    /// Replaces `name`'s spec field `field` (removes it for `Value::Null`) on a fresh read.
    async fn update(
        &self,
        name: &str,
        field: &str,
        value: Value,
    ) -> Result<DynamicObject, kube::Error> {
        let mut object = self.immutables.get(name).await?;
        match value {
            Value::Null => {
                object.data["spec"].as_object_mut().unwrap().remove(field);
            }
            value => object.data["spec"][field] = value,
        }
        self.immutables
            .replace(name, &PostParams::default(), &object)
            .await
    }

    /// Creates the ImmutableType `name` with `immutable_spec()`.
    async fn create_immutable(&mut self, name: &str) {
        let spec = object(
            &kind("ImmutableType", "immutabletypes"),
            name,
            immutable_spec(),
        );
        let result = self.immutables.create(&PostParams::default(), &spec).await;
        self.expect(&format!("create {name}"), result, None);
    }

    async fn run(mut self) -> Vec<String> {
        let create = PostParams::default();
        let enum_kind = kind("Enum", "enums");

        // crd_test.go's Enum CRD.
        for (name, value, expected) in [
            ("valid-value1", "Value1", None),
            ("valid-value2", "Value2", None),
            (
                "invalid-value",
                "Invalid",
                Some("Unsupported value: \"Invalid\""),
            ),
        ] {
            let result = self
                .enums
                .create(&create, &object(&enum_kind, name, json!({"field": value})))
                .await;
            self.expect(&format!("enum {value}"), result, expected);
        }

        // immutable_test.go.
        self.create_immutable("test-noop").await;
        let result = self
            .update("test-noop", "mutableString", json!("updated"))
            .await;
        self.expect("a mutable field changed", result, None);

        let required = [
            ("requiredString", json!("changed")),
            ("requiredStruct", json!({"key": "k", "value": "changed"})),
            ("requiredSlice", json!(["a", "c"])),
            ("requiredMap", json!({"k1": "changed"})),
        ];
        for (i, (field, changed)) in required.into_iter().enumerate() {
            let name = format!("test-req-{i}");
            self.create_immutable(&name).await;
            let result = self.update(&name, field, changed).await;
            self.expect(
                &format!("{field} changed"),
                result,
                Some("field is immutable"),
            );
            let result = self.update(&name, field, Value::Null).await;
            self.expect(&format!("{field} removed"), result, Some("Required value"));
        }

        let optional = [
            (
                "optionalString",
                json!("first-value"),
                json!("second-value"),
            ),
            (
                "optionalLiteralString",
                json!("first-value"),
                json!("second-value"),
            ),
            (
                "optionalStruct",
                json!({"key": "k", "value": "v"}),
                json!({"key": "k", "value": "changed"}),
            ),
            (
                "optionalOmitZeroStruct",
                json!({"key": "k", "value": "v"}),
                json!({"key": "k", "value": "changed"}),
            ),
            ("optionalSlice", json!(["x", "y"]), json!(["x", "z"])),
            ("optionalMap", json!({"a": "1"}), json!({"a": "2"})),
        ];
        for (i, (field, initial, changed)) in optional.into_iter().enumerate() {
            let name = format!("test-opt-{i}");
            self.create_immutable(&name).await;
            let result = self.update(&name, "requiredString", json!("changed")).await;
            self.expect(
                &format!("{name}: requiredString changed"),
                result,
                Some("field is immutable"),
            );
            let result = self.update(&name, field, initial).await;
            self.expect(&format!("{field} set the first time"), result, None);
            let result = self.update(&name, field, changed).await;
            self.expect(
                &format!("{field} changed"),
                result,
                Some("field is immutable"),
            );
            let result = self.update(&name, field, Value::Null).await;
            self.expect(
                &format!("{field} removed"),
                result,
                Some("is immutable once set"),
            );
        }
        self.wrong
    }
}

fn checks(client: &kube::Client, namespace: &str) -> Checks {
    Checks {
        enums: Api::namespaced_with(client.clone(), namespace, &kind("Enum", "enums")),
        immutables: Api::namespaced_with(
            client.clone(),
            namespace,
            &kind("ImmutableType", "immutabletypes"),
        ),
        wrong: Vec::new(),
    }
}

#[tokio::test]
async fn the_in_memory_server_answers_controller_tools_writes_as_the_apiserver() {
    let server = ApiServer::new();
    for crd in crds() {
        server.register_crd(&crd);
    }
    let wrong = checks(&server.client(), "default").run().await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[tokio::test]
async fn the_apiserver_takes_the_ports_crds_and_answers_controller_tools_writes() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("controller_tools_e2e").await
    else {
        return;
    };
    // Installing them is crd_test.go's first check: each is established.
    let installed = common::Installed::new(&client, &crds(), "crdgen-controller-tools").await;
    let wrong = checks(&client, &installed.namespace).run().await;
    installed.remove().await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}
