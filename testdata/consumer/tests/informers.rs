//! Generated shared informers and listers on crdgen-runtime, through kube's client:
//! against the in-memory API server always, against a real cluster when
//! CRDGEN_E2E_KUBECONFIG names a kubeconfig.

#[macro_use]
mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crdgen_consumer::apis::bcrds::v1alpha1::{Example, ExampleSpec};
use crdgen_consumer::apis::hyphens::v1::{ClusterTestType, ClusterTestTypeSpec};
use crdgen_consumer::client::informers::SharedInformerFactory;
use crdgen_runtime::CancellationToken;
use crdgen_runtime::informer::{FactoryOptions, HandlerFns, Notification};
use crdgen_runtime::testing::eventually;
use futures_util::StreamExt;
use kube::ResourceExt;
use kube::api::{DeleteParams, ListParams, PostParams};
use kube::core::Selector;
use support::{Env, example, in_memory};

type Log = Arc<Mutex<Vec<String>>>;

/// A handler that logs `add x`, `update x`, `delete x` for the objects of `namespace`.
fn recorder(namespace: &str) -> (HandlerFns<Example>, Log) {
    recorder_of(namespace, |_| true)
}

/// `recorder`, for the objects whose names `wanted` accepts.
fn recorder_of(namespace: &str, wanted: fn(&str) -> bool) -> (HandlerFns<Example>, Log) {
    let log: Log = Arc::default();
    let ns = namespace.to_owned();
    let entry = move |what: &str, o: &Example| {
        (o.namespace().as_deref() == Some(&ns) && wanted(&o.name_any()))
            .then(|| format!("{what} {}", o.name_any()))
    };
    let (l1, l2, l3) = (log.clone(), log.clone(), log.clone());
    let (e1, e2, e3) = (entry.clone(), entry.clone(), entry);
    let handler = HandlerFns::new()
        .on_add(move |o| l1.lock().unwrap().extend(e1("add", o)))
        .on_update(move |_, n| l2.lock().unwrap().extend(e2("update", n)))
        .on_delete(move |o| l3.lock().unwrap().extend(e3("delete", o)));
    (handler, log)
}

/// Waits (up to 30 s) until the log holds `n` entries, and returns them.
async fn wait_for(log: &Log, n: usize) -> Vec<String> {
    eventually(Duration::from_secs(30), || log.lock().unwrap().len() >= n).await;
    log.lock().unwrap().clone()
}

fn names(objects: Vec<Arc<Example>>) -> Vec<String> {
    objects.iter().map(|o| o.name_any()).collect()
}

async fn seed(env: &Env, objects: &[(&str, &str)]) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    for (name, tier) in objects {
        let mut object = example(name, 1);
        if !tier.is_empty() {
            object.metadata.labels = Some(BTreeMap::from([("tier".to_owned(), tier.to_string())]));
        }
        examples
            .create(&PostParams::default(), &object)
            .await
            .unwrap();
    }
}

/// Starts a factory over `env` with `options`, waits for its caches, checks the result.
async fn started(env: &Env, options: FactoryOptions) -> (SharedInformerFactory, CancellationToken) {
    let factory = SharedInformerFactory::with_options(env.cs.client().clone(), options);
    let _ = factory.bcrds().v1alpha1().examples();
    let token = CancellationToken::new();
    factory.start(&token);
    let synced = factory.wait_for_cache_sync().await;
    assert_eq!(
        synced,
        BTreeMap::from([("examples.v1alpha1.bcrds.example.com".to_owned(), true)])
    );
    (factory, token)
}

pub async fn lifecycle_and_listers(env: &Env) {
    seed(env, &[("a", "web"), ("b", "db")]).await;
    let (factory, _token) = started(env, FactoryOptions::default()).await;
    let informer = factory.bcrds().v1alpha1().examples();
    assert!(informer.has_synced());
    let lister = informer.lister().examples(&env.ns);
    assert_eq!(names(lister.list(&Selector::default())), ["a", "b"]);
    let web = Selector::from_iter([("tier", "web")]);
    assert_eq!(names(lister.list(&web)), ["a"]);
    assert_eq!(lister.get("b").unwrap().spec.replicas, 1);
    assert!(lister.get("missing").is_none());
    assert!(
        Arc::ptr_eq(
            &lister.get("a").unwrap(),
            &informer.lister().examples(&env.ns).get("a").unwrap()
        ),
        "listers share cached objects"
    );

    // Informers requested after start start on the next call.
    let widgets = factory.bcrds().v1alpha1().widgetz();
    assert!(!widgets.has_synced());
    factory.start(&CancellationToken::new());
    let synced = factory.wait_for_cache_sync().await;
    assert_eq!(synced.len(), 2);
    assert!(synced.values().all(|s| *s), "{synced:?}");

    factory.shutdown().await;
}

pub async fn handler_event_order(env: &Env) {
    let (factory, _token) = started(env, FactoryOptions::default()).await;
    let (handler, log) = recorder_of(&env.ns, |name| name == "h");
    factory
        .bcrds()
        .v1alpha1()
        .examples()
        .add_event_handler(handler);

    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    let created = examples
        .create(&PostParams::default(), &example("h", 1))
        .await
        .unwrap();
    let mut changed = created.clone();
    changed.spec.replicas = 2;
    examples
        .update(&PostParams::default(), &changed)
        .await
        .unwrap();
    examples
        .delete("h", &DeleteParams::default())
        .await
        .unwrap();
    assert_eq!(wait_for(&log, 3).await, ["add h", "update h", "delete h"]);
    factory.shutdown().await;
}

pub async fn late_handlers_and_subscribers_get_synthetic_adds(env: &Env) {
    seed(env, &[("x", ""), ("y", ""), ("z", "")]).await;
    let (factory, _token) = started(env, FactoryOptions::default()).await;
    let informer = factory.bcrds().v1alpha1().examples();
    let (handler, log) = recorder(&env.ns);
    informer.add_event_handler(handler);
    assert_eq!(wait_for(&log, 3).await, ["add x", "add y", "add z"]);

    let ns = env.ns.clone();
    let mut stream = informer
        .subscribe()
        .filter(move |n| std::future::ready(n.object().namespace().as_deref() == Some(ns.as_str())))
        .boxed();
    for expected in ["x", "y", "z"] {
        assert!(
            matches!(stream.next().await, Some(Notification::Add(o)) if o.name_any() == expected)
        );
    }
    env.cs
        .bcrds_v1alpha1()
        .examples(&env.ns)
        .delete("y", &DeleteParams::default())
        .await
        .unwrap();
    assert!(matches!(stream.next().await, Some(Notification::Delete(o)) if o.name_any() == "y"));
    factory.shutdown().await;
}

pub async fn namespace_restriction_and_selector_tweaks(env: &Env) {
    seed(env, &[("n1", "web"), ("n2", "db")]).await;
    let others = env.cs.bcrds_v1alpha1().examples(&env.other_ns);
    others
        .create(&PostParams::default(), &example("elsewhere", 1))
        .await
        .unwrap();

    let (factory, _token) = started(env, FactoryOptions::default().namespace(&env.ns)).await;
    let lister = factory.bcrds().v1alpha1().examples().lister();
    assert_eq!(
        names(lister.list(&Selector::default())),
        ["n1", "n2"],
        "a namespace-restricted factory sees nothing else"
    );
    factory.shutdown().await;

    let options = FactoryOptions::default().tweak(|c| c.labels("tier=web"));
    let (factory, _token) = started(env, options).await;
    let lister = factory.bcrds().v1alpha1().examples().lister();
    assert_eq!(
        names(lister.examples(&env.ns).list(&Selector::default())),
        ["n1"]
    );
    factory.shutdown().await;
}

/// A metadata-only informer caches what the apiserver sends for such a read: each
/// object's metadata (labels, resourceVersion, …) as `PartialObjectMetadata`, and shares
/// no watch with the full informer of the same resource.
pub async fn metadata_only_informers(env: &Env) {
    seed(env, &[("m1", "web"), ("m2", "db")]).await;
    let factory = SharedInformerFactory::with_options(
        env.cs.client().clone(),
        FactoryOptions::default().namespace(&env.ns),
    );
    let metadata = factory.bcrds().v1alpha1().examples_metadata();
    let full = factory.bcrds().v1alpha1().examples();
    let token = CancellationToken::new();
    factory.start(&token);
    factory.ensure_cache_sync().await.unwrap();
    let key = format!("{}/m1", env.ns);
    let cached = metadata.store().get(&key).expect("cached");
    assert_eq!(cached.metadata.labels.as_ref().unwrap()["tier"], "web");
    let types = cached.types.as_ref().expect("apiVersion and kind");
    assert_eq!(
        (types.api_version.as_str(), types.kind.as_str()),
        ("meta.k8s.io/v1", "PartialObjectMetadata")
    );
    assert_eq!(
        cached.metadata.resource_version,
        full.store().get(&key).unwrap().metadata.resource_version
    );
    assert_eq!(metadata.store().len(), 2);

    // It follows changes as the full one does.
    let log: Log = Arc::default();
    let deletes = log.clone();
    metadata.add_event_handler(HandlerFns::new().on_delete(
        move |o: &Arc<kube::core::PartialObjectMeta<Example>>| {
            deletes
                .lock()
                .unwrap()
                .push(format!("delete {}", o.name_any()))
        },
    ));
    env.cs
        .bcrds_v1alpha1()
        .examples(&env.ns)
        .delete("m2", &DeleteParams::default())
        .await
        .unwrap();
    assert_eq!(wait_for(&log, 1).await, ["delete m2"]);
    factory.shutdown().await;
}

pub async fn custom_indexers(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    for (name, image) in [("i1", "nginx"), ("i2", "redis"), ("i3", "nginx")] {
        let object = Example::new(
            name,
            ExampleSpec {
                replicas: 1,
                worker_image: image.into(),
            },
        );
        examples
            .create(&PostParams::default(), &object)
            .await
            .unwrap();
    }
    let (factory, _token) = started(env, FactoryOptions::default()).await;
    let examples = factory.bcrds().v1alpha1().examples();
    examples
        .informer()
        .add_index("image", |e: &Example| vec![e.spec.worker_image.clone()])
        .unwrap();
    let lister = examples.lister();
    let mut nginx = names(lister.by_index("image", "nginx").unwrap());
    nginx.retain(|n| n.starts_with('i'));
    assert_eq!(nginx, ["i1", "i3"]);
    assert!(lister.by_index("no-such-index", "x").is_none());
    factory.shutdown().await;
}

mod in_memory_server {
    use super::*;

    in_memory_tests!(
        lifecycle_and_listers,
        handler_event_order,
        late_handlers_and_subscribers_get_synthetic_adds,
        namespace_restriction_and_selector_tweaks,
        custom_indexers,
        metadata_only_informers,
        group_go_name_and_multi_word_kind,
    );

    #[tokio::test]
    async fn one_watch_per_resource_however_many_consumers() {
        let env = in_memory();
        let (factory, _token) = started(&env, FactoryOptions::default()).await;
        let (first, second) = (
            factory.bcrds().v1alpha1().examples(),
            factory.bcrds().v1alpha1().examples(),
        );
        let (one, first_log) = recorder(&env.ns);
        let (two, second_log) = recorder(&env.ns);
        first.add_event_handler(one);
        second.add_event_handler(two);
        let _listers = (first.lister(), second.lister());
        factory.start(&CancellationToken::new());
        factory.wait_for_cache_sync().await;

        // Once a change reaches both handlers, the watch is up: there is one.
        seed(&env, &[("w", "")]).await;
        assert_eq!(
            (
                wait_for(&first_log, 1).await,
                wait_for(&second_log, 1).await
            ),
            (vec!["add w".to_owned()], vec!["add w".to_owned()])
        );
        assert_eq!(env.server.as_ref().unwrap().watch_count::<Example>(), 1);
        factory.shutdown().await;
    }

    /// Changes made while the watch is down reach the cache through a relist, as
    /// exactly one notification each, and the cache ends equal to the server.
    #[tokio::test(start_paused = true)]
    async fn a_broken_watch_loses_nothing_and_repeats_nothing() {
        let env = in_memory();
        let server = env.server.clone().unwrap();
        seed(&env, &[("keep", ""), ("change", ""), ("remove", "")]).await;
        let (factory, _token) = started(&env, FactoryOptions::default()).await;
        let informer = factory.bcrds().v1alpha1().examples();
        let (handler, log) = recorder(&env.ns);
        informer.add_event_handler(handler);
        assert_eq!(wait_for(&log, 3).await.len(), 3);
        log.lock().unwrap().clear();

        let outage = server.watch_outage();
        let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
        examples
            .create(&PostParams::default(), &example("new", 1))
            .await
            .unwrap();
        let mut changed = examples.get("change").await.unwrap();
        changed.spec.replicas = 9;
        examples
            .update(&PostParams::default(), &changed)
            .await
            .unwrap();
        examples
            .delete("remove", &DeleteParams::default())
            .await
            .unwrap();
        server.compact(); // the re-watch gets 410 Gone: only a relist can catch up
        drop(outage);

        let mut seen = wait_for(&log, 3).await;
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(
            log.lock().unwrap().len(),
            3,
            "nothing is delivered twice: {:?}",
            log.lock().unwrap()
        );
        seen.sort();
        assert_eq!(seen, ["add new", "delete remove", "update change"]);

        let cached: Vec<(String, Option<String>)> = informer
            .lister()
            .list(&Selector::default())
            .iter()
            .map(|o| (o.name_any(), o.resource_version()))
            .collect();
        let served: Vec<(String, Option<String>)> = examples
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .iter()
            .map(|o| (o.name_any(), o.resource_version()))
            .collect();
        assert_eq!(cached, served);
        factory.shutdown().await;
    }

    #[tokio::test]
    async fn managed_fields_are_dropped_unless_asked_to_keep_them() {
        let env = in_memory();
        let mut object = example("mf", 1);
        object.metadata.namespace = Some(env.ns.clone());
        object.metadata.managed_fields = Some(vec![Default::default()]);
        env.server.as_ref().unwrap().insert(&object).unwrap();

        let (factory, _token) = started(&env, FactoryOptions::default()).await;
        let cached = factory
            .bcrds()
            .v1alpha1()
            .examples()
            .lister()
            .examples(&env.ns)
            .get("mf")
            .unwrap();
        assert_eq!(cached.metadata.managed_fields, None);
        factory.shutdown().await;

        let (factory, _token) = started(&env, FactoryOptions::default().transform(None)).await;
        let cached = factory
            .bcrds()
            .v1alpha1()
            .examples()
            .lister()
            .examples(&env.ns)
            .get("mf")
            .unwrap();
        assert_eq!(
            cached.metadata.managed_fields.as_ref().map(Vec::len),
            Some(1)
        );
        factory.shutdown().await;
    }

    #[tokio::test]
    async fn a_typed_transform_runs_before_caching() {
        let env = in_memory();
        seed(&env, &[("t", "")]).await;
        let factory = SharedInformerFactory::new(env.cs.client().clone());
        let informer = factory.bcrds().v1alpha1().examples();
        informer.set_transform(|e: &mut Example| e.spec.worker_image = "redacted".into());
        factory.start(&CancellationToken::new());
        assert!(factory.wait_for_cache_sync().await.values().all(|s| *s));
        let cached = informer.lister().examples(&env.ns).get("t").unwrap();
        assert_eq!(cached.spec.worker_image, "redacted");
        factory.shutdown().await;
        assert!(
            informer.has_synced(),
            "an informer that synced stays synced after shutdown"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn resync_redelivers_every_object_as_an_update() {
        let env = in_memory();
        seed(&env, &[("r", "")]).await;
        let (factory, _token) = started(
            &env,
            FactoryOptions::default().resync(Duration::from_secs(1)),
        )
        .await;
        let (handler, log) = recorder(&env.ns);
        factory
            .bcrds()
            .v1alpha1()
            .examples()
            .add_event_handler(handler);
        assert_eq!(wait_for(&log, 3).await, ["add r", "update r", "update r"]);
        factory.shutdown().await;
    }

    #[tokio::test(start_paused = true)]
    async fn a_handler_resync_period_is_its_own_and_ends_with_the_informer() {
        let env = in_memory();
        seed(&env, &[("p", "")]).await;
        let (factory, _token) = started(&env, FactoryOptions::default()).await;
        let informer = factory.bcrds().v1alpha1().examples();
        let (resynced, resynced_log) = recorder(&env.ns);
        informer.add_event_handler_with_resync(resynced, Duration::from_secs(10));
        let (plain, plain_log) = recorder(&env.ns);
        informer.add_event_handler(plain);

        tokio::time::sleep(Duration::from_secs(25)).await;
        assert_eq!(
            wait_for(&resynced_log, 3).await,
            ["add p", "update p", "update p"],
            "two resyncs in 25 s at a 10 s period"
        );
        assert_eq!(
            wait_for(&plain_log, 1).await,
            ["add p"],
            "no factory resync"
        );

        factory.shutdown().await;
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(
            resynced_log.lock().unwrap().len(),
            3,
            "no resync after the informer stopped"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_slow_handler_delays_neither_the_cache_nor_other_handlers() {
        let env = in_memory();
        let (factory, _token) = started(&env, FactoryOptions::default()).await;
        let informer = factory.bcrds().v1alpha1().examples();
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let blocked = Mutex::new(blocked);
        informer.add_event_handler(HandlerFns::new().on_add(move |_| {
            let _ = blocked.lock().unwrap().recv();
        }));
        let (handler, log) = recorder(&env.ns);
        informer.add_event_handler(handler);

        let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
        examples
            .create(&PostParams::default(), &example("s1", 1))
            .await
            .unwrap();
        examples
            .create(&PostParams::default(), &example("s2", 1))
            .await
            .unwrap();
        assert_eq!(wait_for(&log, 2).await, ["add s1", "add s2"]);
        assert_eq!(
            names(
                informer
                    .lister()
                    .examples(&env.ns)
                    .list(&Selector::default())
            ),
            ["s1", "s2"]
        );
        drop(release);
        factory.shutdown().await;
    }
}

/// The informers and listers of a `+groupGoName` group and a multi-word kind take the
/// same names as its client: `factory.example_group().v1().cluster_test_types()`.
pub async fn group_go_name_and_multi_word_kind(env: &Env) {
    let name = format!("{}-ctt", env.ns);
    env.cs
        .example_group_v1()
        .cluster_test_types()
        .create(
            &PostParams::default(),
            &ClusterTestType::new(&name, ClusterTestTypeSpec { replicas: 3 }),
        )
        .await
        .unwrap();
    let factory = SharedInformerFactory::new(env.cs.client().clone());
    let informer = factory.example_group().v1().cluster_test_types();
    let token = CancellationToken::new();
    factory.start(&token);
    let synced = factory.wait_for_cache_sync().await;
    assert_eq!(
        synced,
        BTreeMap::from([(
            "clustertesttypes.v1.example-group.hyphens.example.com".to_owned(),
            true
        )])
    );
    assert_eq!(informer.lister().get(&name).unwrap().spec.replicas, 3);
    factory.shutdown().await;
    env.cs
        .example_group_v1()
        .cluster_test_types()
        .delete(&name, &DeleteParams::default())
        .await
        .unwrap();
}

real_cluster_checks!(
    lifecycle_and_listers,
    handler_event_order,
    late_handlers_and_subscribers_get_synthetic_adds,
    namespace_restriction_and_selector_tweaks,
    custom_indexers,
    metadata_only_informers,
    group_go_name_and_multi_word_kind
);
