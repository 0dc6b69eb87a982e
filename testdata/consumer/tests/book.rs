//! The testing chapter's examples, run: a seeded in-memory server with a CRD's schema,
//! Kubernetes' own kinds registered beside this crate's, and a CRD's validation (its
//! CEL rules included) without a server.

use crdgen_consumer::apis::bcrds::v1alpha1::widget_types::{Widget, WidgetSpec};
use crdgen_consumer::apis::bcrds::v1alpha1::{Example, ExampleSpec};
use crdgen_consumer::client::clientset::Clientset;
use crdgen_runtime::testing::ApiServer;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams};

/// A CRD this crate's build wrote.
fn crd(file: &str) -> CustomResourceDefinition {
    let path = std::path::Path::new(env!("OUT_DIR"))
        .join("crds")
        .join(file);
    serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn a_seeded_server_serves_its_objects_and_the_crds_schema() {
    let spec = ExampleSpec {
        replicas: 2,
        worker_image: "busybox".into(),
    };
    let example = Example::new("demo", spec);
    let widget = Widget::new("w", WidgetSpec::Sized(3, "m".into()));
    let crd = crd("bcrds.example.com_examples.yaml");
    // ANCHOR: seeded
    let server = ApiServer::new().with(&example).with(&widget);
    let cs = Clientset::in_memory(&server); // registers the crate's kinds, without schemas
    server.register_crd(&crd); // optional: the CRD's schema defaults, prunes and validates
    // ANCHOR_END: seeded
    let found = cs.bcrds_v1alpha1().examples("default").get("demo").await;
    assert_eq!(found.unwrap().spec.replicas, 2);
    assert!(cs.bcrds_v1alpha1().widgetz().get("w").await.is_ok());
    // The schema is the CRD's now: a field it does not have is pruned.
    let api: Api<DynamicObject> = Api::namespaced_with(
        cs.client().clone(),
        "default",
        &ApiResource::erase::<Example>(&()),
    );
    let sent: DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "bcrds.example.com/v1alpha1", "kind": "Example",
        "metadata": {"name": "pruned"},
        "spec": {"replicas": 1, "workerImage": "busybox", "unknown": true},
    }))
    .unwrap();
    let stored = api.create(&Default::default(), &sent).await.unwrap();
    assert_eq!(
        stored.data["spec"],
        serde_json::json!({"replicas": 1, "workerImage": "busybox"})
    );
}

#[tokio::test]
async fn kubernetes_kinds_are_registered_beside_the_crates_own() {
    // ANCHOR: built_in
    let server = crdgen_runtime::testing::ApiServer::new();
    server.register::<k8s_openapi::api::batch::v1::Job>(); // status with the object
    server.register_with_status::<k8s_openapi::api::apps::v1::Deployment>(); // a /status subresource
    let clientset = Clientset::in_memory(&server);
    // ANCHOR_END: built_in
    // A Job's status is written with it; a Deployment's only through `/status`.
    let client = clientset.client().clone();
    let jobs: Api<Job> = Api::namespaced(client.clone(), "default");
    let job: Job = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "j"}, "status": {"active": 1},
    }))
    .unwrap();
    let created = jobs.create(&Default::default(), &job).await.unwrap();
    assert_eq!(created.status.and_then(|s| s.active), Some(1));
    let deployments: Api<Deployment> = Api::namespaced(client, "default");
    let deployment: Deployment = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "d"}, "status": {"replicas": 2},
    }))
    .unwrap();
    let created = deployments
        .create(&Default::default(), &deployment)
        .await
        .unwrap();
    assert_eq!(created.status.and_then(|s| s.replicas), None);
    let status = Patch::Merge(serde_json::json!({"status": {"replicas": 2}}));
    let patched = deployments
        .patch_status("d", &PatchParams::default(), &status)
        .await
        .unwrap();
    assert_eq!(patched.status.and_then(|s| s.replicas), Some(2));
}

#[test]
fn a_crds_rules_are_checked_without_a_server() -> Result<(), Box<dyn std::error::Error>> {
    // ANCHOR: validator
    use crdgen_runtime::crd::Validator;

    // The CRD crdgen wrote (or `Validator::for_resource::<K>()` for a kube-derive kind).
    let crd = serde_yaml_ng::from_str(&std::fs::read_to_string(
        std::path::Path::new(env!("OUT_DIR")).join("crds/shop.example.com_widgets.yaml"),
    )?)?;
    let validator = Validator::for_crd(&crd, "v1").unwrap();
    let old = serde_json::json!({
        "metadata": {"name": "w"},
        "spec": {"replicas": 2, "maxReplicas": 3, "size": "small", "owner": null},
    });
    let new = serde_json::json!({
        "metadata": {"name": "w"},
        "spec": {"replicas": 5, "maxReplicas": 3, "size": "small", "owner": null},
    });
    let errors = validator.validate(&new, Some(&old)).unwrap_err();
    assert_eq!(
        errors[0].to_string(),
        "spec.replicas: Invalid value: too many replicas"
    );
    // ANCHOR_END: validator
    Ok(())
}
