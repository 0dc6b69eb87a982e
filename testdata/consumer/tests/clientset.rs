//! The generated clientset, every verb and marker variant, through kube's real client
//! stack: against the in-memory API server always, and against a real apiserver
//! (CRDGEN_E2E_KUBECONFIG, else envtest) when there is one.

#[macro_use]
mod support;

use std::collections::BTreeMap;

use crdgen_consumer::apis::bcrds::v1alpha1::variant_types::{Doohickey, Gizmo};
use crdgen_consumer::apis::bcrds::v1alpha1::widget_types::{Widget, WidgetSpec};
use crdgen_consumer::apis::bcrds::v1alpha1::{Example, ExampleStatus};
use crdgen_consumer::apis::hyphens::v1::{
    ClusterTestType, ClusterTestTypeSpec, ClusterTestTypeStatus,
};
use crdgen_consumer::apis::other::v1::{
    Endpoint, Everyday, Gadget, GadgetSpec, GadgetStatus, Size,
};
use crdgen_consumer::client::applyconfigurations::bcrds::v1alpha1::{
    ExampleApplyConfiguration, ExampleStatusApplyConfiguration,
};
use crdgen_consumer::client::clientset::Clientset;
use crdgen_consumer::client::clientset::bcrds::v1alpha1::ExampleClient;
use crdgen_consumer::client::clientset::hyphens::v1::ExampleGroupV1Client;
use crdgen_runtime::client::Either;
use crdgen_runtime::testing::ApiServer;
use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::autoscaling::v1::ScaleSpec;
use kube::ResourceExt;
use kube::api::{
    DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use serde_json::json;
use support::{Env, example, example_config, in_memory};

fn code(err: kube::Error) -> (u16, String) {
    match err {
        kube::Error::Api(status) => (status.code, status.reason),
        other => panic!("expected an API error, got {other}"),
    }
}

fn labeled(mut object: Example, labels: &[(&str, &str)]) -> Example {
    object.metadata.labels = Some(
        labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    object
}

pub async fn round_trip(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    let pp = PostParams::default();

    let created = examples.create(&pp, &example("rt", 1)).await.unwrap();
    assert!(created.uid().is_some() && created.resource_version().is_some());
    assert!(created.creation_timestamp().is_some());
    assert_eq!(created.metadata.generation, Some(1));
    assert_eq!(
        code(examples.create(&pp, &example("rt", 1)).await.unwrap_err()),
        (409, "AlreadyExists".into())
    );

    let got = examples.get("rt").await.unwrap();
    assert_eq!(got.spec, created.spec);
    assert_eq!(examples.get_opt("missing").await.unwrap(), None);
    assert_eq!(
        code(examples.get("missing").await.unwrap_err()),
        (404, "NotFound".into())
    );

    // Someone else writes: `got` is now stale, and updating it is a conflict.
    let touch = Patch::Merge(json!({"metadata": {"annotations": {"touched": "yes"}}}));
    let current = examples
        .patch("rt", &PatchParams::default(), &touch)
        .await
        .unwrap();
    assert_eq!(
        current.metadata.generation,
        Some(1),
        "metadata changes keep the generation"
    );
    let mut stale = got.clone();
    stale.spec.replicas = 5;
    assert_eq!(
        code(examples.update(&pp, &stale).await.unwrap_err()),
        (409, "Conflict".into())
    );
    let mut changed = current.clone();
    changed.spec.replicas = 2;
    changed.status = Some(ExampleStatus {
        observed_generation: Some(99),
        conditions: vec![],
        ..Default::default()
    });
    let updated = examples.update(&pp, &changed).await.unwrap();
    assert_eq!(updated.metadata.generation, Some(2));
    assert_eq!(updated.status, None, "the main resource ignores status");

    // /status writes status only, and leaves generation alone.
    let mut with_status = updated.clone();
    with_status.spec.replicas = 7;
    with_status.status = Some(ExampleStatus {
        observed_generation: Some(2),
        conditions: vec![],
        ..Default::default()
    });
    let status_updated = examples.update_status(&pp, &with_status).await.unwrap();
    assert_eq!(
        status_updated.status.as_ref().unwrap().observed_generation,
        Some(2)
    );
    assert_eq!(status_updated.spec.replicas, 2, "/status ignores the spec");
    assert_eq!(status_updated.metadata.generation, Some(2));

    // Patches: metadata-only changes keep the generation, spec changes bump it.
    let labels = Patch::Merge(json!({"metadata": {"labels": {"team": "a"}}}));
    let patched = examples
        .patch("rt", &PatchParams::default(), &labels)
        .await
        .unwrap();
    assert_eq!(
        (
            patched.labels()["team"].as_str(),
            patched.metadata.generation
        ),
        ("a", Some(2))
    );
    let ops: json_patch::Patch =
        serde_json::from_value(json!([{"op": "replace", "path": "/spec/replicas", "value": 3}]))
            .unwrap();
    let patched = examples
        .patch("rt", &PatchParams::default(), &Patch::<()>::Json(ops))
        .await
        .unwrap();
    assert_eq!(
        (patched.spec.replicas, patched.metadata.generation),
        (3, Some(3))
    );
    // A method of our own (src/expansion.rs) on the generated client.
    let scaled = examples.scale_to("rt", 4).await.unwrap();
    assert_eq!(
        (scaled.spec.replicas, scaled.metadata.generation),
        (4, Some(4))
    );
    let patched = examples
        .patch(
            "rt",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.metadata.generation, Some(5));
    let status = Patch::Merge(json!({"status": {"observedGeneration": 3}}));
    let patched = examples
        .patch_status("rt", &PatchParams::default(), &status)
        .await
        .unwrap();
    assert_eq!(patched.status.unwrap().observed_generation, Some(3));

    // Server-side apply creates, then updates, with a field manager.
    let apply = PatchParams::apply("crdgen-test");
    let applied = examples
        .apply(&example_config("applied", &env.ns, 4), &apply)
        .await
        .unwrap();
    assert_eq!(applied.spec.replicas, 4);
    let applied = examples
        .apply(&example_config("applied", &env.ns, 6), &apply)
        .await
        .unwrap();
    assert_eq!(
        (applied.spec.replicas, applied.metadata.generation),
        (6, Some(2))
    );
    let status_config = ExampleApplyConfiguration::new("applied", &env.ns)
        .with_status(ExampleStatusApplyConfiguration::default().with_observed_generation(2));
    let applied = examples.apply_status(&status_config, &apply).await.unwrap();
    assert_eq!(applied.status.unwrap().observed_generation, Some(2));

    // Delete without finalizers: gone at once, and the apiserver answers with a Status.
    let deleted = examples
        .delete("rt", &DeleteParams::default())
        .await
        .unwrap();
    assert!(
        matches!(deleted, Either::Right(ref s) if s.details.as_ref().is_some_and(|d| d.name == "rt")),
        "{deleted:?}"
    );
    assert_eq!(examples.get_opt("rt").await.unwrap(), None);
    assert_eq!(
        code(
            examples
                .delete("rt", &DeleteParams::default())
                .await
                .unwrap_err()
        )
        .0,
        404
    );
}

pub async fn finalizers(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    let mut object = example("fin", 1);
    object.metadata.finalizers = Some(vec!["bcrds.example.com/cleanup".into()]);
    examples
        .create(&PostParams::default(), &object)
        .await
        .unwrap();

    let Either::Left(deleting) = examples
        .delete("fin", &DeleteParams::default())
        .await
        .unwrap()
    else {
        panic!("an object with finalizers is kept");
    };
    assert!(deleting.metadata.deletion_timestamp.is_some());
    let still = examples.get("fin").await.unwrap();
    assert!(still.metadata.deletion_timestamp.is_some());

    let mut done = still.clone();
    done.metadata.finalizers = Some(vec![]);
    examples
        .update(&PostParams::default(), &done)
        .await
        .unwrap();
    assert_eq!(
        examples.get_opt("fin").await.unwrap(),
        None,
        "removing the last finalizer deletes"
    );
}

pub async fn selectors_and_paging(env: &Env) {
    let v1 = env.cs.bcrds_v1alpha1();
    let (examples, others) = (v1.examples(&env.ns), v1.examples(&env.other_ns));
    let pp = PostParams::default();
    for (name, tier) in [
        ("s1", "web"),
        ("s2", "web"),
        ("s3", "db"),
        ("s4", "cache"),
        ("s5", ""),
    ] {
        let labels: &[(&str, &str)] = if tier.is_empty() {
            &[]
        } else {
            &[("tier", tier)]
        };
        examples
            .create(&pp, &labeled(example(name, 1), labels))
            .await
            .unwrap();
    }
    others
        .create(&pp, &labeled(example("s6", 1), &[("tier", "web")]))
        .await
        .unwrap();

    let names = |list: kube::core::ObjectList<Example>| -> Vec<String> {
        let mut names: Vec<String> = list.items.iter().map(ResourceExt::name_any).collect();
        names.sort();
        names
    };
    for (selector, expected) in [
        ("tier=web", vec!["s1", "s2"]),
        ("tier!=web", vec!["s3", "s4", "s5"]),
        ("tier in (db,cache)", vec!["s3", "s4"]),
        ("tier notin (web,db)", vec!["s4", "s5"]),
        ("tier", vec!["s1", "s2", "s3", "s4"]),
        ("!tier", vec!["s5"]),
    ] {
        let list = examples
            .list(&ListParams::default().labels(selector))
            .await
            .unwrap();
        assert_eq!(names(list), expected, "{selector}");
    }
    let by_name = examples
        .list(&ListParams::default().fields("metadata.name=s3"))
        .await
        .unwrap();
    assert_eq!(names(by_name), ["s3"]);
    // Across namespaces (a real cluster may hold other namespaces' examples: keep ours).
    let mut everywhere = v1
        .all_examples()
        .list(&ListParams::default().labels("tier=web"))
        .await
        .unwrap();
    everywhere
        .items
        .retain(|o| [&env.ns, &env.other_ns].contains(&&o.namespace().unwrap_or_default()));
    assert_eq!(names(everywhere), ["s1", "s2", "s6"]);
    let by_namespace = v1
        .all_examples()
        .list(&ListParams::default().fields(&format!("metadata.namespace={}", env.other_ns)))
        .await
        .unwrap();
    assert_eq!(names(by_namespace), ["s6"]);

    // Paging: two at a time, in order, until no continue token.
    let mut seen = Vec::new();
    let mut lp = ListParams::default().limit(2);
    loop {
        let page = examples.list(&lp).await.unwrap();
        assert!(page.items.len() <= 2);
        seen.extend(page.items.iter().map(ResourceExt::name_any));
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => {
                assert!(page.metadata.remaining_item_count.unwrap_or(1) > 0);
                lp = lp.continue_token(&token);
            }
            None => break,
        }
    }
    assert_eq!(seen, ["s1", "s2", "s3", "s4", "s5"]);
    assert!(
        !examples
            .list(&ListParams::default())
            .await
            .unwrap()
            .metadata
            .resource_version
            .unwrap_or_default()
            .is_empty()
    );

    let Either::Left(deleted) = examples
        .delete_collection(
            &DeleteParams::default(),
            &ListParams::default().labels("tier=web"),
        )
        .await
        .unwrap()
    else {
        panic!("delete_collection answers with the deleted objects");
    };
    assert_eq!(names(deleted), ["s1", "s2"]);
    assert_eq!(
        names(examples.list(&ListParams::default()).await.unwrap()),
        ["s3", "s4", "s5"]
    );
}

/// The list's resourceVersion: where a watch that should see only later changes starts.
async fn current_rv(examples: &ExampleClient) -> String {
    let list = examples.list(&ListParams::default()).await.unwrap();
    list.metadata.resource_version.unwrap()
}

/// The next `n` watch events, as (type, name).
async fn next_events(
    stream: &mut (impl futures_util::Stream<Item = kube::Result<WatchEvent<Example>>> + Unpin),
    n: usize,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    while out.len() < n {
        let event = tokio::time::timeout(std::time::Duration::from_secs(30), stream.next())
            .await
            .expect("a watch event within 30 s")
            .expect("the watch is open")
            .expect("a decodable event");
        match event {
            WatchEvent::Added(o) => out.push(("ADDED", o.name_any())),
            WatchEvent::Modified(o) => out.push(("MODIFIED", o.name_any())),
            WatchEvent::Deleted(o) => out.push(("DELETED", o.name_any())),
            WatchEvent::Bookmark(_) => {}
            WatchEvent::Error(e) => panic!("watch error: {e:?}"),
        }
    }
    out
}

pub async fn watch_order(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    let pp = PostParams::default();
    examples.create(&pp, &example("before", 1)).await.unwrap();
    let rv = current_rv(&examples).await;
    let mut stream = examples
        .watch(&WatchParams::default(), &rv)
        .await
        .unwrap()
        .boxed();

    let created = examples.create(&pp, &example("w", 1)).await.unwrap();
    let mut changed = created.clone();
    changed.spec.replicas = 2;
    examples.update(&pp, &changed).await.unwrap();
    examples
        .delete("w", &DeleteParams::default())
        .await
        .unwrap();
    assert_eq!(
        next_events(&mut stream, 3).await,
        [
            ("ADDED", "w".to_owned()),
            ("MODIFIED", "w".to_owned()),
            ("DELETED", "w".to_owned())
        ]
    );

    // A label watch sees an object leave and enter its selection.
    let wp = WatchParams::default().labels("tier=web");
    let rv = current_rv(&examples).await;
    let mut selected = examples.watch(&wp, &rv).await.unwrap().boxed();
    let web = examples
        .create(&pp, &labeled(example("sel", 1), &[("tier", "web")]))
        .await
        .unwrap();
    let mut moved = web.clone();
    moved.metadata.labels = Some(BTreeMap::from([("tier".to_owned(), "db".to_owned())]));
    examples.update(&pp, &moved).await.unwrap();
    assert_eq!(
        next_events(&mut selected, 2).await,
        [("ADDED", "sel".to_owned()), ("DELETED", "sel".to_owned())]
    );
}

/// In-memory only: the test hooks for bookmarks, broken watches and compaction.
pub async fn watch_hooks(env: &Env, server: &ApiServer) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    let pp = PostParams::default();
    examples.create(&pp, &example("h1", 1)).await.unwrap();
    let old_rv = current_rv(&examples).await;

    let mut watch = examples
        .watch(&WatchParams::default(), &old_rv)
        .await
        .unwrap()
        .boxed();
    let first = watch.next().await.unwrap().unwrap();
    assert!(
        matches!(first, WatchEvent::Bookmark(ref b) if b.metadata.resource_version == old_rv),
        "{first:?}"
    );
    examples.create(&pp, &example("h2", 1)).await.unwrap();
    server.send_bookmarks();
    let events: Vec<_> = watch.by_ref().take(2).try_collect().await.unwrap();
    assert!(matches!(&events[0], WatchEvent::Added(o) if o.name_any() == "h2"));
    assert!(matches!(&events[1], WatchEvent::Bookmark(b) if b.metadata.resource_version != old_rv));

    // A broken watch ends; a watch from a compacted resourceVersion gets 410 Gone.
    server.break_watches();
    assert!(
        watch.next().await.is_none(),
        "break_watches ends open watches"
    );
    server.compact();
    let mut gone = examples
        .watch(&WatchParams::default(), &old_rv)
        .await
        .unwrap()
        .boxed();
    match gone.next().await.unwrap().unwrap() {
        WatchEvent::Error(e) => assert_eq!((e.code, e.reason.as_str()), (410, "Expired")),
        other => panic!("expected 410, got {other:?}"),
    }
    let page = examples
        .list(&ListParams::default().limit(1))
        .await
        .unwrap();
    server.compact();
    examples.create(&pp, &example("h3", 1)).await.unwrap();
    server.compact();
    let token = page.metadata.continue_.unwrap();
    assert_eq!(
        code(
            examples
                .list(&ListParams::default().limit(1).continue_token(&token))
                .await
                .unwrap_err()
        )
        .0,
        410
    );
}

pub async fn other_kinds(env: &Env) {
    let pp = PostParams::default();
    // Cluster-scoped, with its plural from a marker.
    let widgets = env.cs.bcrds_v1alpha1().widgetz();
    let name = format!("{}-widget", env.ns);
    let widget = widgets
        .create(&pp, &Widget::new(&name, WidgetSpec::Sized(3, "m".into())))
        .await
        .unwrap();
    assert_eq!(widget.metadata.namespace, None);
    assert_eq!(
        widgets.get(&name).await.unwrap().spec,
        WidgetSpec::Sized(3, "m".into())
    );
    assert!(
        widgets
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .iter()
            .any(|w| w.name_any() == name)
    );
    widgets
        .delete(&name, &DeleteParams::default())
        .await
        .unwrap();

    // kube-derive: the same clientset, and an extra subresource method.
    let gadgets = env.cs.other_v1().gadgets(&env.ns);
    let gadget = Gadget::new(
        "g",
        GadgetSpec {
            size: Size::Small,
            labels: BTreeMap::new(),
            ports: [8080, 8443],
            everyday: None,
        },
    );
    let mut created = gadgets.create(&pp, &gadget).await.unwrap();
    created.status = Some(GadgetStatus { ready: true });
    gadgets.update_status(&pp, &created).await.unwrap();
    assert_eq!(
        gadgets.get_status("g").await.unwrap().status,
        Some(GadgetStatus { ready: true })
    );

    // Verb-filtered kinds: what exists works.
    let gizmos = env.cs.bcrds_v1alpha1().gizmos(&env.ns);
    let gizmo = Gizmo {
        metadata: kube::api::ObjectMeta {
            name: Some("gz".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    gizmos.create(&pp, &gizmo).await.unwrap();
    assert_eq!(
        gizmos.get("gz").await.unwrap().types,
        Some(kube::core::TypeMeta::resource::<Gizmo>())
    );
    assert_eq!(
        gizmos
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .len(),
        1
    );
    let doohickeys = env.cs.bcrds_v1alpha1().doohickeys(&env.ns);
    let raw = kube::Api::<Doohickey>::namespaced(env.cs.client().clone(), &env.ns);
    let doohickey = Doohickey {
        metadata: kube::api::ObjectMeta {
            name: Some("dh".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    raw.create(&pp, &doohickey_typed(doohickey)).await.unwrap();
    assert_eq!(doohickeys.get("dh").await.unwrap().name_any(), "dh");
    let things = env.cs.bcrds_v1alpha1().thingamajigs(&env.ns);
    assert!(
        things
            .api()
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    // generateName, and bodies the server refuses.
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    let mut generated = example("", 1);
    generated.metadata.name = None;
    generated.metadata.generate_name = Some("gen-".into());
    let made = examples.create(&pp, &generated).await.unwrap();
    assert!(
        made.name_any().starts_with("gen-") && made.name_any().len() == 9,
        "{}",
        made.name_any()
    );
    assert_eq!(
        code(
            examples
                .create(&pp, &example("Not_A_Name", 1))
                .await
                .unwrap_err()
        ),
        (422, "Invalid".into())
    );
    let mut no_version = made.clone();
    no_version.metadata.resource_version = None;
    assert_eq!(
        code(examples.update(&pp, &no_version).await.unwrap_err()).0,
        422
    );
}

fn doohickey_typed(mut d: Doohickey) -> Doohickey {
    d.types = Some(kube::core::TypeMeta::resource::<Doohickey>());
    d
}

/// A body that does not fit the kind is 422 Invalid: both servers check it against the
/// CRD's schema (the in-memory one against the Rust type too).
async fn misfit_body(env: &Env) {
    let raw = kube::Api::<kube::api::DynamicObject>::namespaced_with(
        env.cs.client().clone(),
        &env.ns,
        &kube::api::ApiResource::erase::<Example>(&()),
    );
    let body: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "bcrds.example.com/v1alpha1", "kind": "Example",
        "metadata": {"name": "misfit"}, "spec": {"replicas": "three"}
    }))
    .unwrap();
    assert_eq!(
        code(raw.create(&PostParams::default(), &body).await.unwrap_err()),
        (422, "Invalid".into())
    );
}

/// The `/scale` subresource (`+kubebuilder:subresource:scale`), through the methods
/// `+genclient:method=GetScale/UpdateScale` generated: what an autoscaler reads and writes.
async fn scale(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    examples
        .create(&PostParams::default(), &example("scaled", 2))
        .await
        .unwrap();
    let status = Patch::Merge(json!({"status": {"replicas": 1, "selector": "app=scaled"}}));
    examples
        .patch_status("scaled", &PatchParams::default(), &status)
        .await
        .unwrap();

    let scale = examples.get_scale("scaled").await.unwrap();
    assert_eq!(scale.spec.as_ref().and_then(|s| s.replicas), Some(2));
    let seen = scale.status.as_ref().unwrap();
    assert_eq!(
        (seen.replicas, seen.selector.as_deref()),
        (1, Some("app=scaled"))
    );

    let mut wanted = scale.clone();
    wanted.spec = Some(ScaleSpec { replicas: Some(4) });
    let updated = examples
        .update_scale("scaled", &PostParams::default(), &wanted)
        .await
        .unwrap();
    assert_eq!(updated.spec.and_then(|s| s.replicas), Some(4));
    let object = examples.get("scaled").await.unwrap();
    assert_eq!(
        (object.spec.replicas, object.metadata.generation),
        (4, Some(2)),
        "scaling changes the spec, and so the generation"
    );
    assert_eq!(
        code(
            examples
                .update_scale("scaled", &PostParams::default(), &wanted)
                .await
                .unwrap_err()
        ),
        (409, "Conflict".into()),
        "a Scale read before the change is stale"
    );
}

mod in_memory_server {
    in_memory_tests!(
        everyday_types,
        round_trip,
        finalizers,
        selectors_and_paging,
        watch_order,
        other_kinds,
        group_go_name_and_multi_word_kind,
        misfit_body,
        scale
    );

    #[tokio::test]
    async fn watch_hooks() {
        let env = super::in_memory();
        super::watch_hooks(&env, env.server.as_ref().unwrap()).await;
    }

    #[tokio::test]
    async fn a_seeded_clientset_in_one_line() {
        let mut seeded = super::example("seeded", 1);
        seeded.metadata.namespace = Some("test".into());
        seeded.status = Some(super::ExampleStatus {
            observed_generation: Some(1),
            conditions: vec![],
            ..Default::default()
        });
        let cs =
            super::Clientset::in_memory(&crdgen_runtime::testing::ApiServer::new().with(&seeded));

        let examples = cs.bcrds_v1alpha1().examples("test");
        let got = examples.get("seeded").await.unwrap();
        assert_eq!(
            got.status.as_ref().unwrap().observed_generation,
            Some(1),
            "seeds keep their status"
        );
        // in_memory registered Example again, with its status subresource, keeping the seed.
        let mut update = got.clone();
        update.status = None;
        let updated = examples.update(&Default::default(), &update).await.unwrap();
        assert!(updated.status.is_some(), "the main resource ignores status");
    }
}

/// The everyday Rust types go through the server with crdgen's schema for them as they
/// left, and a value outside a type's format or bounds is refused.
pub async fn everyday_types(env: &Env) {
    let everyday = Everyday {
        url: "https://example.com/a?b=c".parse().unwrap(),
        created: "2026-12-03T10:00:00Z".parse().unwrap(),
        day: "2026-12-03".parse().unwrap(),
        stamped: time::OffsetDateTime::from_unix_timestamp(1_790_000_000).unwrap(),
        id: "0191b1a5-6f3e-7c9a-8b4e-2a6f1d0c9e11".parse().unwrap(),
        ip: "fd00::1".parse().unwrap(),
        ipv4: "10.0.0.1".parse().unwrap(),
        ipv6: "fd00::2".parse().unwrap(),
        listen: "127.0.0.1:8080".parse().unwrap(),
        replicas: std::num::NonZeroU32::new(3).unwrap(),
        offset: std::num::NonZeroI32::new(-1).unwrap(),
        port: std::num::NonZero::new(443).unwrap(),
        tags: ["a".to_owned(), "b".to_owned()].into(),
        hashed: ["c".to_owned()].into(),
        timeout: std::time::Duration::from_millis(1500),
        payload: bytes::Bytes::from_static(b"hi"),
        boxed: "boxed".into(),
        cow: "cow".into(),
        extra: json!({"any": ["thing", 1]}),
        object: json!({"free": {"form": true}}).as_object().unwrap().clone(),
        ratio: ordered_float::OrderedFloat(0.5),
        weight: ordered_float::NotNan::new(2.5).unwrap(),
        endpoint: Endpoint {
            url: "https://logs.example.com/".parse().unwrap(),
        },
        path: "/var/log/gadget".into(),
    };
    let gadgets = env.cs.other_v1().gadgets(&env.ns);
    let spec = GadgetSpec {
        size: Size::Large,
        labels: BTreeMap::new(),
        ports: [80, 443],
        everyday: Some(everyday),
    };
    let created = gadgets
        .create(&PostParams::default(), &Gadget::new("everyday", spec))
        .await
        .unwrap();
    let got = gadgets.get("everyday").await.unwrap();
    assert_eq!(got.spec, created.spec, "read back as written");
    assert_eq!(
        got.spec.everyday.as_ref().unwrap().timeout,
        std::time::Duration::from_millis(1500)
    );

    // The same object with one field out of its type's form, sent as JSON.
    let api: kube::Api<kube::api::DynamicObject> = kube::Api::namespaced_with(
        env.cs.client().clone(),
        &env.ns,
        &kube::api::ApiResource::erase::<Gadget>(&()),
    );
    let mut refused = Vec::new();
    for (field, value) in [
        ("url", json!("example.com")),
        ("created", json!("3 Dec 2026")),
        ("day", json!("2026-12-03T10:00:00Z")),
        ("id", json!("not-a-uuid")),
        ("ipv4", json!("fd00::1")),
        ("ipv6", json!("10.0.0.1")),
        ("replicas", json!(0)),
        ("offset", json!(0)),
        ("port", json!(0)),
        ("tags", json!(["a", "a"])),
        ("endpoint", json!("http://logs.example.com/")),
        ("path", json!("var/log")),
    ] {
        let mut object = serde_json::to_value(&created).unwrap();
        object["metadata"] = json!({"name": format!("bad-{}", field.to_lowercase())});
        object["spec"]["everyday"][field] = value;
        let object: kube::api::DynamicObject = serde_json::from_value(object).unwrap();
        match api.create(&PostParams::default(), &object).await {
            Err(kube::Error::Api(status)) if status.code == 422 => {}
            other => refused.push(format!("{field}: {other:?}")),
        }
    }
    assert!(refused.is_empty(), "accepted: {refused:#?}");
}

/// A group named by `+groupGoName` and a multi-word kind: `example_group_v1()`,
/// `ExampleGroupV1Client`, `cluster_test_types()`.
pub async fn group_go_name_and_multi_word_kind(env: &Env) {
    let group: ExampleGroupV1Client = env.cs.example_group_v1();
    let objects = group.cluster_test_types();
    let name = format!("{}-ctt", env.ns);
    let mut created = objects
        .create(
            &PostParams::default(),
            &ClusterTestType::new(&name, ClusterTestTypeSpec { replicas: 2 }),
        )
        .await
        .unwrap();
    assert_eq!(created.metadata.namespace, None);
    created.status = Some(ClusterTestTypeStatus { ready: true });
    objects
        .update_status(&PostParams::default(), &created)
        .await
        .unwrap();
    let got = objects.get(&name).await.unwrap();
    assert_eq!(
        (got.spec.replicas, got.status),
        (2, Some(ClusterTestTypeStatus { ready: true }))
    );
    objects
        .delete(&name, &DeleteParams::default())
        .await
        .unwrap();
    assert_eq!(objects.get_opt(&name).await.unwrap(), None);
}

real_cluster_checks!(
    everyday_types,
    round_trip,
    finalizers,
    selectors_and_paging,
    watch_order,
    other_kinds,
    group_go_name_and_multi_word_kind,
    misfit_body,
    scale
);
