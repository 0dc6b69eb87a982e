//! The CronJob webhooks, called with AdmissionReviews as the apiserver sends them (no
//! cluster needed).

use serde_json::{Value, json};

fn review(object: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {
            "uid": "1", "kind": {"group": "batch.tutorial.crdgen.dev", "version": "v1", "kind": "CronJob"},
            "resource": {"group": "batch.tutorial.crdgen.dev", "version": "v1", "resource": "cronjobs"},
            "name": "sample", "namespace": "default", "operation": "CREATE",
            "userInfo": {"username": "admin"}, "object": object, "dryRun": false
        }
    }))
    .unwrap()
}

fn object(spec: Value) -> Value {
    json!({"apiVersion": "batch.tutorial.crdgen.dev/v1", "kind": "CronJob",
            "metadata": {"name": "sample", "namespace": "default"}, "spec": spec})
}

// ANCHOR: call
/// The webhook's answer to an AdmissionReview of a CronJob with `spec`.
async fn answer(path: &str, spec: Value) -> Value {
    let reply = cronjob_operator::webhook::webhooks()
        .call(path, &review(object(spec)))
        .await;
    assert_eq!(reply.status, 200);
    serde_json::from_slice::<Value>(&reply.body).unwrap()["response"].clone()
}
// ANCHOR_END: call

fn every_second() -> Value {
    json!({"schedule": "@every 1s", "jobTemplate": {"spec": {"template": {"spec": {
        "containers": [{"name": "hello", "image": "busybox:1.36"}]
    }}}}})
}

#[tokio::test]
async fn the_defaulter_fills_in_the_policies_and_limits() {
    let response = answer(
        "/mutate-batch-tutorial-crdgen-dev-v1-cronjob",
        every_second(),
    )
    .await;
    assert_eq!(response["allowed"], true);
    let patch: Vec<u8> = serde_json::from_value(response["patch"].clone()).unwrap();
    let mut patch: Vec<Value> = serde_json::from_slice(&patch).unwrap();
    patch.sort_by_key(|op| op["path"].as_str().unwrap().to_owned());
    assert_eq!(
        patch,
        [
            json!({"op": "add", "path": "/spec/concurrencyPolicy", "value": "Allow"}),
            json!({"op": "add", "path": "/spec/failedJobsHistoryLimit", "value": 1}),
            json!({"op": "add", "path": "/spec/successfulJobsHistoryLimit", "value": 3}),
            json!({"op": "add", "path": "/spec/suspend", "value": false}),
        ]
    );
}

#[tokio::test]
async fn the_validator_denies_a_schedule_it_cannot_read() {
    let path = "/validate-batch-tutorial-crdgen-dev-v1-cronjob";
    assert_eq!(answer(path, every_second()).await["allowed"], true);
    let mut cron = every_second();
    cron["schedule"] = json!("*/5 * * * *");
    let denied = answer(path, cron).await;
    assert_eq!(denied["allowed"], false);
    assert_eq!(denied["status"]["code"], 422);
    assert_eq!(
        denied["status"]["details"]["causes"][0]["field"],
        "spec.schedule"
    );
    // ANCHOR: denied
    assert_eq!(
        denied["status"]["message"],
        r#"CronJob.batch.tutorial.crdgen.dev "sample" is invalid: spec.schedule: Invalid value: "*/5 * * * *": `*/5 * * * *` is not `@every <duration>`"#
    );
    // ANCHOR_END: denied
}
