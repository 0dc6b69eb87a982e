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
        std::fs::read_to_string(common::testdata("webhook/expected/manifests.yaml")).unwrap();
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
