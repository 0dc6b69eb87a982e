//! CEL rules' cost on writes: how many rules a second `crd::Validator` evaluates on a
//! realistic CRD (the crds case's Ruled kind: a rule of every marker that writes one, at
//! every level), and what they add to a write to the in-memory server, against the same
//! CRD without its rules. Run with `hack/bench-cel.sh`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crdgen_runtime::crd::Validator;
use crdgen_runtime::testing::ApiServer;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
use serde_json::{Value, json};

const CRD: &str =
    include_str!("../../testdata/crds/expected/config/crd/bases/rules.crdgen.dev_ruleds.yaml");

fn spec() -> Value {
    json!({
        "minReplicas": 1, "maxReplicas": 3, "replicas": 2, "image": "app:1",
        "className": "standard", "region": "eu",
        "paths": ["/data", "/logs", "/cache", "/tmp"],
        "limits": {"cpu": {"min": 1, "max": 2}, "memory": {"min": 1, "max": 4}, "pods": {"min": 0, "max": 9}},
        "owners": ["ops", "dev"]
    })
}

/// How many rules a write of `value` runs under `schema`: those of every node the value
/// has (each list item's and map value's), transition rules included (an update).
fn rules_run(schema: &Value, value: &Value) -> usize {
    let own = schema["x-kubernetes-validations"]
        .as_array()
        .map_or(0, Vec::len);
    let below: usize = match value {
        Value::Object(fields) => fields
            .iter()
            .map(|(name, field)| match schema["properties"].get(name) {
                Some(property) => rules_run(property, field),
                None => schema
                    .get("additionalProperties")
                    .map_or(0, |values| rules_run(values, field)),
            })
            .sum(),
        Value::Array(items) => items
            .iter()
            .map(|item| rules_run(&schema["items"], item))
            .sum(),
        _ => 0,
    };
    own + below
}

fn object(name: &str) -> Value {
    json!({
        "apiVersion": "rules.crdgen.dev/v1", "kind": "Ruled",
        "metadata": {"name": name, "namespace": "bench"},
        "spec": spec(), "status": {"ready": 1, "total": 2}
    })
}

fn crd(with_rules: bool) -> CustomResourceDefinition {
    let mut crd: Value = serde_yaml_ng::from_str(CRD).expect("the Ruled CRD");
    if !with_rules {
        strip(&mut crd);
    }
    serde_json::from_value(crd).expect("a CRD")
}

fn strip(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("x-kubernetes-validations");
            map.values_mut().for_each(strip);
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}

/// The time per call of `f`, over at least a second.
fn per_call(mut f: impl FnMut()) -> Duration {
    for _ in 0..100 {
        f();
    }
    let mut calls = 0u32;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(1) {
        for _ in 0..100 {
            f();
        }
        calls += 100;
    }
    start.elapsed() / calls
}

async fn creates_per_second(with_rules: bool) -> Duration {
    let server = ApiServer::new();
    server.register_crd(&crd(with_rules));
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("rules.crdgen.dev", "v1", "Ruled"),
        "ruleds",
    );
    let api: Api<DynamicObject> = Api::namespaced_with(server.client(), "bench", &resource);
    let objects: Vec<DynamicObject> = (0..2_000)
        .map(|i| serde_json::from_value(object(&format!("r-{i}"))).unwrap())
        .collect();
    let start = Instant::now();
    for o in &objects {
        api.create(&PostParams::default(), o)
            .await
            .expect("a valid object");
    }
    start.elapsed() / objects.len() as u32
}

fn main() {
    let with_rules = crd(true);
    let validator = Validator::for_crd(&with_rules, "v1").expect("v1");
    let (new, old) = (object("bench"), object("bench"));
    let schema = serde_json::to_value(&with_rules.spec.versions[0].schema).unwrap();
    let rules = rules_run(&schema["openAPIV3Schema"], &new);
    let update = per_call(|| {
        black_box(validator.validate(black_box(&new), Some(&old))).expect("valid");
    });
    let rules_per_second = rules as f64 / update.as_secs_f64();
    println!(
        "Validator::validate, an update of a Ruled ({rules} rules run): {:.1} µs, {:.0} rules/s",
        update.as_secs_f64() * 1e6,
        rules_per_second
    );
    let bare = Validator::for_crd(&crd(false), "v1").expect("v1");
    let schema_only = per_call(|| {
        black_box(bare.validate(black_box(&new), Some(&old))).expect("valid");
    });
    println!(
        "the same without its rules (defaults, pruning, schema): {:.1} µs",
        schema_only.as_secs_f64() * 1e6
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let with = runtime.block_on(creates_per_second(true));
    let without = runtime.block_on(creates_per_second(false));
    println!(
        "in-memory create through kube::Api, 2,000 objects: {:.1} µs with the rules, {:.1} µs without ({:.2}x)",
        with.as_secs_f64() * 1e6,
        without.as_secs_f64() * 1e6,
        with.as_secs_f64() / without.as_secs_f64()
    );
}
