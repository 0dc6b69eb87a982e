//! What a sync needs besides its client: status conditions (pure), and, on a real
//! apiserver (which decides them), finalizers, owner references and events.

use std::sync::{Arc, Mutex};

use crdgen_runtime::conditions::{
    find_status_condition, is_status_condition_true, remove_status_condition, set_status_condition,
};
use crdgen_runtime::controller::SyncError;
use crdgen_runtime::events::{self, Event as KubeEvent, EventType};
use crdgen_runtime::finalizer::{Event, with_finalizer};
use crdgen_runtime::owner::{OwnerError, set_controller_reference, set_owner_reference};
use crdgen_runtime::testing::cluster;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::events::v1::Event as EventObject;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube::api::{DeleteParams, ListParams, PostParams};
use kube::{Api, Resource, ResourceExt};

fn condition(type_: &str, status: &str, reason: &str, at: i64) -> Condition {
    Condition {
        type_: type_.into(),
        status: status.into(),
        reason: reason.into(),
        message: format!("{reason} message"),
        observed_generation: Some(1),
        last_transition_time: Time(k8s_openapi::jiff::Timestamp::from_second(at).unwrap()),
    }
}

/// apimachinery's `SetStatusCondition`: the transition time moves with the status only.
#[test]
fn conditions_keep_their_transition_time_while_the_status_holds() {
    let mut conditions = Vec::new();
    assert!(set_status_condition(
        &mut conditions,
        condition("Ready", "False", "Starting", 100)
    ));
    assert!(set_status_condition(
        &mut conditions,
        condition("Synced", "True", "Done", 100)
    ));

    // Same status, new reason: the reason changes, the transition time does not.
    assert!(set_status_condition(
        &mut conditions,
        condition("Ready", "False", "Waiting", 200)
    ));
    let ready = find_status_condition(&conditions, "Ready").unwrap();
    assert_eq!(
        (
            ready.reason.as_str(),
            ready.last_transition_time.0.as_second()
        ),
        ("Waiting", 100)
    );
    // Nothing new: nothing to write.
    assert!(!set_status_condition(
        &mut conditions,
        condition("Ready", "False", "Waiting", 300)
    ));
    // A new status: a transition, at its time.
    assert!(set_status_condition(
        &mut conditions,
        condition("Ready", "True", "Running", 400)
    ));
    let ready = find_status_condition(&conditions, "Ready").unwrap();
    assert_eq!(ready.last_transition_time.0.as_second(), 400);
    assert!(is_status_condition_true(&conditions, "Ready"));
    assert_eq!(conditions.len(), 2, "one condition per type");

    assert!(remove_status_condition(&mut conditions, "Synced"));
    assert!(!remove_status_condition(&mut conditions, "Synced"));
    assert!(!is_status_condition_true(&conditions, "Synced"));
}

fn config_map(namespace: &str, name: &str) -> ConfigMap {
    ConfigMap {
        metadata: kube::api::ObjectMeta {
            name: Some(name.into()),
            namespace: Some(namespace.into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn owner_references_refuse_what_the_garbage_collector_would_not_follow() {
    let mut owner = config_map("a", "owner");
    let mut object = config_map("a", "owned");
    assert_eq!(
        set_controller_reference(&owner, &mut object),
        Err(OwnerError::Unidentified),
        "an owner not read from the apiserver has no uid"
    );
    owner.metadata.uid = Some("u-1".into());
    object.metadata.namespace = Some("b".into());
    assert!(matches!(
        set_owner_reference(&owner, &mut object),
        Err(OwnerError::Namespace { .. })
    ));
    object.metadata.namespace = None;
    assert!(
        matches!(
            set_controller_reference(&owner, &mut object),
            Err(OwnerError::Namespace { .. })
        ),
        "a cluster-scoped object cannot have a namespaced owner"
    );
    object.metadata.namespace = Some("a".into());
    set_owner_reference(&owner, &mut object).unwrap();
    set_controller_reference(&owner, &mut object).unwrap();
    let references = object.owner_references();
    assert_eq!(
        references.len(),
        1,
        "the same owner is replaced, not added twice"
    );
    assert_eq!(references[0].controller, Some(true));
    assert_eq!(references[0].block_owner_deletion, Some(true));
    assert_eq!(
        (
            references[0].api_version.as_str(),
            references[0].kind.as_str()
        ),
        ("v1", "ConfigMap")
    );
}

#[tokio::test]
async fn on_a_real_apiserver() {
    let Some(cluster) = cluster::connect("sync helpers").await else {
        return;
    };
    let ns = "default";
    let api: Api<ConfigMap> = Api::namespaced(cluster.client.clone(), ns);
    let suffix = std::process::id();
    finalizers(&api, &format!("finalized-{suffix}")).await;
    owners(&api, suffix).await;
    recorded_events(&cluster.client, &api, &format!("evented-{suffix}")).await;
}

/// Add on the first sync, apply while alive, cleanup on deletion (the apiserver keeps
/// the object until the finalizer is gone), a failed cleanup keeps it.
async fn finalizers(api: &Api<ConfigMap>, name: &str) {
    const FINALIZER: &str = "crdgen.dev/cleanup";
    api.create(&PostParams::default(), &config_map("default", name))
        .await
        .unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let sync = |outcome: Result<(), &'static str>| {
        let log = log.clone();
        move |event: Event<ConfigMap>| async move {
            log.lock().unwrap().push(match event {
                Event::Apply(_) => "apply",
                Event::Cleanup(_) => "cleanup",
            });
            outcome.map_err(SyncError::requeue)
        }
    };
    let current = || async { Arc::new(api.get(name).await.unwrap()) };

    with_finalizer(api, FINALIZER, current().await, sync(Ok(())))
        .await
        .unwrap();
    assert_eq!(
        current().await.finalizers(),
        [FINALIZER],
        "added on the first sync"
    );
    assert!(log.lock().unwrap().is_empty(), "which ends there");
    with_finalizer(api, FINALIZER, current().await, sync(Ok(())))
        .await
        .unwrap();
    assert_eq!(*log.lock().unwrap(), ["apply"]);

    api.delete(name, &DeleteParams::default()).await.unwrap();
    let deleting = current().await;
    assert!(
        deleting.meta().deletion_timestamp.is_some(),
        "kept for the finalizer"
    );
    let failed = with_finalizer(api, FINALIZER, deleting, sync(Err("not yet"))).await;
    assert!(
        matches!(failed, Err(SyncError::Requeue(_))),
        "its class kept: {failed:?}"
    );
    assert_eq!(
        current().await.finalizers(),
        [FINALIZER],
        "kept after a failed cleanup"
    );
    with_finalizer(api, FINALIZER, current().await, sync(Ok(())))
        .await
        .unwrap();
    assert_eq!(*log.lock().unwrap(), ["apply", "cleanup", "cleanup"]);
    assert!(
        api.get_opt(name).await.unwrap().is_none(),
        "deleted once the cleanup succeeded"
    );
}

/// The apiserver keeps the controller reference the helper writes, refuses a second
/// controller, and the helper refuses it before sending.
async fn owners(api: &Api<ConfigMap>, suffix: u32) {
    let create = |name: String| async move {
        api.create(&PostParams::default(), &config_map("default", &name))
            .await
            .unwrap()
    };
    let owner = create(format!("owner-{suffix}")).await;
    let rival = create(format!("rival-{suffix}")).await;
    let mut owned = config_map("default", &format!("owned-{suffix}"));
    set_controller_reference(&owner, &mut owned).unwrap();
    let owned = api.create(&PostParams::default(), &owned).await.unwrap();
    let references = owned.owner_references();
    assert_eq!(references.len(), 1);
    assert_eq!(references[0].uid, owner.uid().unwrap());
    assert_eq!(references[0].controller, Some(true));

    let mut twice = owned.clone();
    let mut second = references[0].clone();
    second.name = rival.name_any();
    second.uid = rival.uid().unwrap();
    twice
        .metadata
        .owner_references
        .as_mut()
        .unwrap()
        .push(second);
    let refused = api
        .replace(&owned.name_any(), &PostParams::default(), &twice)
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, kube::Error::Api(s) if s.code == 422),
        "{refused}"
    );
    let mut again = owned.clone();
    assert!(matches!(
        set_controller_reference(&rival, &mut again),
        Err(OwnerError::AlreadyOwned { .. })
    ));
    for name in [owned.name_any(), owner.name_any(), rival.name_any()] {
        api.delete(&name, &DeleteParams::default()).await.unwrap();
    }
}

/// An event about an object is stored as events.k8s.io/v1, regarding that object.
async fn recorded_events(client: &kube::Client, api: &Api<ConfigMap>, name: &str) {
    let object = api
        .create(&PostParams::default(), &config_map("default", name))
        .await
        .unwrap();
    let recorder = events::recorder(client.clone(), "crdgen-test");
    let event = KubeEvent {
        type_: EventType::Normal,
        reason: "Synced".into(),
        note: Some("brought to its desired state".into()),
        action: "Sync".into(),
        secondary: None,
    };
    recorder
        .publish(&event, &object.object_ref(&()))
        .await
        .unwrap();
    let stored: Api<EventObject> = Api::namespaced(client.clone(), "default");
    let found = stored
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(name))
        .expect("the event is stored");
    assert_eq!(found.reason.as_deref(), Some("Synced"));
    assert_eq!(found.type_.as_deref(), Some("Normal"));
    assert_eq!(found.reporting_controller.as_deref(), Some("crdgen-test"));
    assert_eq!(
        found.regarding.unwrap().uid,
        object.uid(),
        "about that very object"
    );
    api.delete(name, &DeleteParams::default()).await.unwrap();
}
