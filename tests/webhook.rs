//! The webhook generator: `+kubebuilder:webhook` markers give the configurations
//! controller-gen gives (compared with a fixture written from its documented output),
//! and the apiserver takes them as written.

mod common;

use crdgen_runtime::testing::cluster;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use kube::api::{Api, PostParams};

const MANIFESTS: &str = "config/webhook/manifests.yaml";

fn generated() -> String {
    common::generated_file("webhook", MANIFESTS)
}

#[test]
fn markers_give_the_configurations_controller_gen_gives() {
    let expected =
        std::fs::read_to_string(common::testdata("webhook/controller-gen/manifests.yaml")).unwrap();
    assert_eq!(
        common::yaml_documents(&generated()),
        common::yaml_documents(&expected)
    );
}

/// Each configuration passes the apiserver's validation, as a server-side dry run (a
/// real one would route requests to a service that is not there).
#[tokio::test]
async fn the_apiserver_takes_the_generated_configurations() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("webhook").await else {
        return;
    };
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let docs = common::yaml_documents(&generated());
    assert_eq!(docs.len(), 2);
    for doc in docs {
        match doc["kind"].as_str().unwrap() {
            "MutatingWebhookConfiguration" => {
                let config: MutatingWebhookConfiguration = serde_json::from_value(doc).unwrap();
                let api: Api<MutatingWebhookConfiguration> = Api::all(client.clone());
                let made = api.create(&dry_run, &config).await.unwrap();
                assert_eq!(made.webhooks.map(|w| w.len()), Some(2));
            }
            "ValidatingWebhookConfiguration" => {
                let config: ValidatingWebhookConfiguration = serde_json::from_value(doc).unwrap();
                let api: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
                let made = api.create(&dry_run, &config).await.unwrap();
                assert_eq!(made.webhooks.map(|w| w.len()), Some(1));
            }
            other => panic!("unexpected kind {other}"),
        }
    }
}

/// Without kustomize to rename them, a project names its own Service and the
/// cert-manager Certificate whose CA the configurations trust.
#[test]
fn the_service_and_the_ca_source_are_the_projects() {
    let mut opts = common::case("webhook").options();
    opts.webhook_service = crdgen::WebhookService {
        namespace: "demo-system".into(),
        name: "demo-webhook".into(),
        inject_ca_from: Some("demo-system/demo-serving-cert".into()),
        name_prefix: "demo-".into(),
    };
    let files = common::generate_files(&opts);
    let (_, text) = files.iter().find(|(p, _)| p == MANIFESTS).unwrap();
    let names: Vec<String> = common::yaml_documents(text)
        .iter()
        .map(|c| c["metadata"]["name"].as_str().unwrap().to_owned())
        .collect();
    // kubebuilder's namePrefix: two operators in one cluster keep their own.
    assert_eq!(
        names,
        [
            "demo-mutating-webhook-configuration",
            "demo-validating-webhook-configuration"
        ]
    );
    for config in common::yaml_documents(text) {
        assert_eq!(
            config["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
            "demo-system/demo-serving-cert"
        );
        for hook in config["webhooks"].as_array().unwrap() {
            let service = &hook["clientConfig"]["service"];
            assert_eq!(
                (&service["namespace"], &service["name"]),
                (&"demo-system".into(), &"demo-webhook".into())
            );
        }
    }
    // A CRD that converts by webhook is reached the same way.
    let mut opts = common::case("consumer").options();
    opts.webhook_service = crdgen::WebhookService {
        namespace: "demo-system".into(),
        name: "demo-webhook".into(),
        inject_ca_from: Some("demo-system/demo-serving-cert".into()),
        name_prefix: String::new(),
    };
    let files = common::generate_files(&opts);
    let (_, gears) = files
        .iter()
        .find(|(p, _)| p.ends_with("fleet.example.com_gears.yaml"))
        .unwrap();
    let crd = &common::yaml_documents(gears)[0];
    assert_eq!(
        crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "demo-system/demo-serving-cert"
    );
    assert_eq!(
        crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"],
        serde_json::json!({"name": "demo-webhook", "namespace": "demo-system", "path": "/convert"})
    );
    // A flag value that cannot name the objects is a usage error, naming it.
    for (flag, value, why) in [
        ("--webhook-service", "Not/valid", "Not/valid"),
        (
            "--webhook-name-prefix",
            "My_Op-",
            "`My_Op-` cannot begin a name",
        ),
    ] {
        let out = common::crdgen(
            &common::testdata("webhook"),
            &[
                "generate-groups",
                "webhook",
                "client",
                "src/apis",
                "batch:v1",
                flag,
                value,
                "--verify-only",
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(why), "{flag}: {stderr}");
    }
}
