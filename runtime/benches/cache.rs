//! Memory per cached object and lister speed, side by side with kube-runtime's
//! reflector store. Run with `hack/bench-informer.sh`.
//!
//! Memory is measured exactly, with a counting allocator: the live bytes a store holds
//! after being fed 10,000 realistic Pods (labels, annotations, two containers, status,
//! three managedFields entries), divided by 10,000. The same allocator measures what a
//! slow handler's backlog costs per pending notification.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use crdgen_runtime::cache::{NAMESPACE_INDEX, Writer};
use k8s_openapi::api::core::v1::{
    Container, ContainerPort, Pod, PodSpec, PodStatus, ResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, ManagedFieldsEntry, ObjectMeta};
use kube::runtime::reflector;
use kube::runtime::watcher::Event;

#[path = "support/counting.rs"]
mod counting;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

fn container(name: &str, image: &str) -> Container {
    let quantity = |q: &str| Quantity(q.to_owned());
    Container {
        name: name.to_owned(),
        image: Some(image.to_owned()),
        args: Some(vec!["--port=8080".into(), "--log-level=info".into()]),
        ports: Some(vec![ContainerPort {
            container_port: 8080,
            name: Some("http".into()),
            ..Default::default()
        }]),
        resources: Some(ResourceRequirements {
            requests: Some(BTreeMap::from([
                ("cpu".into(), quantity("100m")),
                ("memory".into(), quantity("128Mi")),
            ])),
            limits: Some(BTreeMap::from([("memory".into(), quantity("256Mi"))])),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn managed(manager: &str, fields: serde_json::Value) -> ManagedFieldsEntry {
    ManagedFieldsEntry {
        manager: Some(manager.to_owned()),
        operation: Some("Update".into()),
        api_version: Some("v1".into()),
        fields_type: Some("FieldsV1".into()),
        fields_v1: Some(FieldsV1(fields)),
        ..Default::default()
    }
}

/// A Pod as the apiserver serves one: metadata with labels, annotations, owner and
/// managedFields; a spec with two containers; a status.
fn pod(namespace: &str, i: usize, with_managed_fields: bool) -> Pod {
    let fields = serde_json::json!({
        "f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}}, "f:ownerReferences": {".": {}}},
        "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}, "f:ports": {}, "f:resources": {}},
                                     "k:{\"name\":\"sidecar\"}": {".": {}, "f:image": {}, "f:name": {}}}}
    });
    let status_fields = serde_json::json!({"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:phase": {}, "f:podIP": {}, "f:startTime": {}}});
    Pod {
        metadata: ObjectMeta {
            name: Some(format!("app-7d9f8c6b5-{i:05}")),
            namespace: Some(namespace.to_owned()),
            uid: Some(format!("6f1c2e94-3b7a-4d3e-9a52-{i:012}")),
            resource_version: Some(format!("{}", 100_000 + i)),
            labels: Some(BTreeMap::from([
                ("app".into(), "web".into()),
                ("pod-template-hash".into(), "7d9f8c6b5".into()),
            ])),
            annotations: Some(BTreeMap::from([(
                "kubectl.kubernetes.io/restartedAt".into(),
                "2026-11-01T10:00:00Z".into(),
            )])),
            managed_fields: with_managed_fields.then(|| {
                vec![
                    managed("kube-controller-manager", fields.clone()),
                    managed("kubelet", status_fields.clone()),
                    managed("kubectl", fields.clone()),
                ]
            }),
            ..Default::default()
        },
        spec: Some(PodSpec {
            containers: vec![
                container("app", "registry.example.com/web:1.2.3"),
                container("sidecar", "registry.example.com/proxy:2.0"),
            ],
            node_name: Some(format!("node-{:03}", i % 200)),
            service_account_name: Some("web".into()),
            ..Default::default()
        }),
        status: Some(PodStatus {
            phase: Some("Running".into()),
            pod_ip: Some(format!("10.1.{}.{}", i / 250, i % 250)),
            ..Default::default()
        }),
    }
}

const OBJECTS: usize = 10_000;

/// The Pod as a metadata-only informer caches it: what the apiserver answers a
/// `PartialObjectMetadata` read with, deserialized as the informer does.
fn metadata_only(pod: Pod) -> kube::core::PartialObjectMeta<Pod> {
    serde_json::from_value(serde_json::json!({
        "apiVersion": "meta.k8s.io/v1",
        "kind": "PartialObjectMetadata",
        "metadata": pod.metadata,
    }))
    .unwrap()
}

/// Live bytes per object held by whatever `fill` builds.
fn bytes_per_object<T>(fill: impl FnOnce() -> T) -> (f64, T) {
    let before = counting::live();
    let held = fill();
    let after = counting::live();
    ((after - before) as f64 / OBJECTS as f64, held)
}

fn main() {
    println!("memory per cached object, {OBJECTS} Pods with 3 managedFields entries each:");
    let (ours_dropped, store) = bytes_per_object(|| {
        let store = Writer::new();
        for i in 0..OBJECTS {
            let mut p = pod("default", i, true);
            p.metadata.managed_fields = None; // what the factory's default transform does
            store.insert(Arc::new(p));
        }
        store
    });
    drop(store);
    let (ours_kept, store) = bytes_per_object(|| {
        let store = Writer::new();
        for i in 0..OBJECTS {
            store.insert(Arc::new(pod("default", i, true)));
        }
        store
    });
    drop(store);
    let (theirs, reader) = bytes_per_object(|| {
        let (reader, mut writer) = reflector::store::<Pod>();
        for i in 0..OBJECTS {
            writer.apply_watcher_event(&Event::Apply(pod("default", i, true)));
        }
        (reader, writer)
    });
    drop(reader);
    // The objects alone, to tell the store's own bytes from theirs.
    let (objects_alone, objects) = bytes_per_object(|| {
        (0..OBJECTS)
            .map(|i| {
                let mut p = pod("default", i, true);
                p.metadata.managed_fields = None;
                Arc::new(p)
            })
            .collect::<Vec<_>>()
    });
    drop(objects);
    let (metadata_only, store) = bytes_per_object(|| {
        let store = Writer::new();
        for i in 0..OBJECTS {
            let mut p = pod("default", i, true);
            p.metadata.managed_fields = None;
            store.insert(Arc::new(metadata_only(p)));
        }
        store
    });
    drop(store);
    println!("  crdgen-runtime Store, managedFields dropped (default)  {ours_dropped:>8.0} bytes");
    println!("  the same Pods in a Vec<Arc<Pod>>, no store             {objects_alone:>8.0} bytes");
    // k8s-openapi keeps optional structs inline: the bench's Pod and its two containers
    // take this much before any string, map or list they hold.
    let inline = size_of::<Pod>() + 2 * size_of::<Container>();
    println!("    of which their structs alone (Pod, 2 Containers)     {inline:>8} bytes");
    println!("  crdgen-runtime Store, managedFields kept               {ours_kept:>8.0} bytes");
    println!("  kube_runtime::reflector::Store (keeps them)            {theirs:>8.0} bytes");
    println!("  metadata-only informer's Store (PartialObjectMetadata) {metadata_only:>8.0} bytes");

    slow_handler_backlog();

    println!("lister speed, 100,000 Pods across 100 namespaces:");
    // Each store is filled on its own, as an operator's store would be: filled together,
    // their objects would interleave in memory and each store's reads would touch
    // twice as many pages.
    let lister_pod = |i: usize| pod(&format!("ns-{:03}", i % 100), i, false);
    let store = Writer::new();
    for i in 0..100_000 {
        store.insert(Arc::new(lister_pod(i)));
    }
    let store = store.reader();
    let (reader, mut writer) = reflector::store::<Pod>();
    for i in 0..100_000 {
        writer.apply_watcher_event(&Event::Apply(lister_pod(i)));
    }
    let keys: Vec<String> = (0..100_000)
        .map(|i| format!("ns-{:03}/app-7d9f8c6b5-{i:05}", i % 100))
        .collect();
    let get = ns_per_call(GETS, |i| {
        black_box(store.get(&keys[i % keys.len()]));
    });
    println!("  get                                  {get:>9.0} ns per call");
    // For scale: a get from a plain map with no lock at all, handing out an `Arc` as
    // every Rust store does (its reference count is in the object's own, cold, memory).
    let plain: std::collections::HashMap<String, Arc<Pod>, foldhash::fast::RandomState> = keys
        .iter()
        .map(|k| (k.clone(), store.get(k).unwrap()))
        .collect();
    let plain_get = ns_per_call(GETS, |i| {
        black_box(plain.get(&keys[i % keys.len()]).cloned());
    });
    println!("  std HashMap, no lock, get            {plain_get:>9.0} ns per call");
    drop(plain);
    let refs: Vec<reflector::ObjectRef<Pod>> = (0..100_000)
        .map(|i| {
            reflector::ObjectRef::new(&format!("app-7d9f8c6b5-{i:05}"))
                .within(&format!("ns-{:03}", i % 100))
        })
        .collect();
    let theirs_get = ns_per_call(GETS, |i| {
        black_box(reader.get(&refs[i % refs.len()]));
    });
    println!("  kube reflector Store, get            {theirs_get:>9.0} ns per call");
    let namespace = |n: usize| format!("ns-{:03}", n % 100);
    let list = ns_per_call(1_000, |n| {
        let objects = store.by_index(NAMESPACE_INDEX, &namespace(n)).unwrap();
        assert_eq!(black_box(objects).len(), 1_000);
    });
    println!(
        "  namespace list (1,000 of 100,000)    {:>9.1} µs per call",
        list / 1e3
    );
    let filter = ns_per_call(100, |n| {
        let ns = namespace(n);
        let objects = reader.state_filter(|p| p.metadata.namespace.as_deref() == Some(ns.as_str()));
        assert_eq!(black_box(objects).len(), 1_000);
    });
    println!(
        "  kube reflector Store, namespace filter {:>7.1} µs per call (scans every object)",
        filter / 1e3
    );
}

/// How many gets each lister-speed figure averages over.
const GETS: usize = 1_000_000;

/// Nanoseconds per call of `call`, given the call's number, over `calls` calls.
fn ns_per_call(calls: usize, mut call: impl FnMut(usize)) -> f64 {
    let start = Instant::now();
    for i in 0..calls {
        call(i);
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

/// A handler that never returns from its first event, added to an informer caching
/// 10,000 Pods: every cached object waits in its channel (as after a resync). The live
/// bytes added, per pending notification: what a slow handler costs.
fn slow_handler_backlog() {
    use crdgen_runtime::CancellationToken;
    use crdgen_runtime::informer::{HandlerFns, SharedInformer};
    use crdgen_runtime::testing::ApiServer;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let server = ApiServer::new();
        server.register_with_status::<Pod>();
        for i in 0..OBJECTS {
            let mut p = pod("default", i, false);
            p.metadata.resource_version = None;
            server.insert(&p).unwrap();
        }
        let api = kube::Api::<Pod>::namespaced(server.client(), "default");
        let informer = SharedInformer::new(api, Default::default(), None, None);
        let stop = CancellationToken::new();
        let task = tokio::spawn(informer.clone().run(stop.clone()));
        assert!(informer.wait_for_sync().await);
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let blocked = std::sync::Mutex::new(blocked);
        let (per_notification, ()) = bytes_per_object(|| {
            informer.add_event_handler(HandlerFns::new().on_add(move |_: &Arc<Pod>| {
                let _ = blocked.lock().unwrap().recv();
            }));
        });
        let pending = informer.handler_lag()[0];
        println!(
            "slow handler backlog, {pending} notifications pending (Arcs to cached Pods):\n  \
             {per_notification:>8.0} bytes per pending notification"
        );
        drop(release);
        stop.cancel();
        task.await.unwrap();
    });
}
