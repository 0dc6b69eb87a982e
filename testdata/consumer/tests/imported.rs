//! The package `crdgen import` made of testdata/import/features (src/apis/shop), with
//! the client, informer and lister crdgen generated for it: its kinds are served from
//! their CRDs' defaults and rules, against the in-memory server and a real apiserver
//! alike.

#[macro_use]
mod support;

use crdgen_consumer::apis::shop::v1::{Widget, WidgetSpec, WidgetSpecShipping, WidgetSpecSize};
use kube::api::PostParams;
use serde_json::json;
use support::{Env, in_memory};

/// A Widget with only what its Rust type requires (and the required, nullable owner).
fn widget(name: &str, replicas: i32, max_replicas: Option<i32>) -> Widget {
    let spec: WidgetSpec = serde_json::from_value(json!({
        "size": "x-large",
        "replicas": replicas,
        "maxReplicas": max_replicas,
        "owner": null,
    }))
    .unwrap();
    Widget::new(name, spec)
}

/// The server fills in the schema's defaults, which the import kept as markers.
async fn defaults_come_from_the_imported_markers(env: &Env) {
    let widgets = env.cs.shop_v1().widgets(&env.ns);
    let made = widgets
        .create(&PostParams::default(), &widget("w1", 2, None))
        .await
        .unwrap();
    assert_eq!(made.spec.size, WidgetSpecSize::XLarge);
    assert_eq!(made.spec.self_, Some(false));
    assert_eq!(
        made.spec.shipping,
        Some(WidgetSpecShipping {
            carrier: Some("post".into()),
            express: None,
        })
    );
    assert_eq!(made.spec.owner, None);
}

/// The CEL rule the import kept refuses what it refused, with its message expression.
async fn rules_come_from_the_imported_markers(env: &Env) {
    let widgets = env.cs.shop_v1().widgets(&env.ns);
    let err = widgets
        .create(&PostParams::default(), &widget("w2", 60, Some(5)))
        .await
        .unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("expected an API error, got {err}")
    };
    assert_eq!(status.code, 422, "{status:?}");
    assert!(
        status.message.contains("far too many replicas"),
        "{}",
        status.message
    );
    widgets
        .create(&PostParams::default(), &widget("w3", 5, Some(5)))
        .await
        .unwrap();
}

mod in_memory_server {
    in_memory_tests!(
        defaults_come_from_the_imported_markers,
        rules_come_from_the_imported_markers
    );
}

real_cluster_checks!(
    defaults_come_from_the_imported_markers,
    rules_come_from_the_imported_markers
);
