//! The in-memory server held to what the real apiserver does: each check runs against
//! both (the real one is CRDGEN_E2E_KUBECONFIG, else envtest) with the same expectations.
//! Each one is a place where the two once differed.

#[macro_use]
mod support;

use crdgen_consumer::apis::bcrds::v1alpha1::variant_types::Gizmo;
use crdgen_consumer::client::applyconfigurations::bcrds::v1alpha1::{
    ExampleApplyConfiguration, ExampleSpecApplyConfiguration, ExampleStatusApplyConfiguration,
};
use crdgen_consumer::client::clientset::bcrds::v1alpha1::ExampleClient;
use crdgen_runtime::client::Either;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use serde_json::json;
use support::{Env, example, example_config, in_memory};

fn code(err: kube::Error) -> u16 {
    match err {
        kube::Error::Api(status) => status.code,
        other => panic!("expected an API error, got {other}"),
    }
}

/// A kind without `+kubebuilder:subresource:status` has no `/status`: 404 for every verb,
/// though its objects have a `status` field.
async fn status_needs_the_subresource(env: &Env) {
    let gizmos = env.cs.bcrds_v1alpha1().gizmos(&env.ns);
    let mut gizmo = Gizmo::default();
    gizmo.metadata.name = Some("g".into());
    gizmo.status = Some("set on create".into());
    let created = gizmos.create(&PostParams::default(), &gizmo).await.unwrap();
    assert_eq!(
        created.status.as_deref(),
        Some("set on create"),
        "status is an ordinary field"
    );

    let api = gizmos.api();
    assert_eq!(code(api.get_status("g").await.unwrap_err()), 404);
    let patch = Patch::Merge(json!({"status": "through /status"}));
    assert_eq!(
        code(
            api.patch_status("g", &PatchParams::default(), &patch)
                .await
                .unwrap_err()
        ),
        404
    );
    assert_eq!(
        code(
            api.replace_status("g", &PostParams::default(), &created)
                .await
                .unwrap_err()
        ),
        404
    );
}

/// Creates an Example that holds the finalizer `bcrds.example.com/a`.
async fn held(examples: &ExampleClient, name: &str) {
    let mut object = example(name, 1);
    object.metadata.finalizers = Some(vec!["bcrds.example.com/a".into()]);
    examples
        .create(&PostParams::default(), &object)
        .await
        .unwrap();
}

/// Removes every finalizer of an object being deleted: the apiserver then deletes it.
async fn release(examples: &ExampleClient, name: &str) {
    let none = Patch::Merge(json!({"metadata": {"finalizers": null}}));
    examples
        .patch(name, &PatchParams::default(), &none)
        .await
        .unwrap();
    assert_eq!(examples.get_opt(name).await.unwrap(), None);
}

/// Deleting: without finalizers the answer is a `Status` naming what went; with them the
/// object, marked, and its generation moves.
async fn delete_answers(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    let pp = PostParams::default();
    let plain = examples.create(&pp, &example("plain", 1)).await.unwrap();
    match examples
        .delete("plain", &DeleteParams::default())
        .await
        .unwrap()
    {
        Either::Right(status) => {
            let details = status.details.expect("a Status naming the object");
            assert_eq!(
                (details.name.as_str(), Some(details.uid)),
                ("plain", plain.metadata.uid)
            );
            assert_eq!(details.group, "bcrds.example.com");
        }
        Either::Left(object) => panic!("answered with the object: {object:?}"),
    }

    held(&examples, "held").await;
    match examples
        .delete("held", &DeleteParams::default())
        .await
        .unwrap()
    {
        Either::Left(object) => {
            assert!(object.metadata.deletion_timestamp.is_some());
            assert_eq!(
                object.metadata.generation,
                Some(2),
                "marking bumps the generation"
            );
        }
        Either::Right(status) => panic!("answered with a Status: {status:?}"),
    }
    // A second delete changes nothing.
    let Either::Left(again) = examples
        .delete("held", &DeleteParams::default())
        .await
        .unwrap()
    else {
        panic!("still held");
    };
    assert_eq!(again.metadata.generation, Some(2));
    release(&examples, "held").await;
}

/// An object being deleted may lose finalizers but gain none.
async fn no_new_finalizers_while_deleting(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    held(&examples, "closing").await;
    examples
        .delete("closing", &DeleteParams::default())
        .await
        .unwrap();

    let add = Patch::Merge(
        json!({"metadata": {"finalizers": ["bcrds.example.com/a", "bcrds.example.com/b"]}}),
    );
    let refused = examples
        .patch("closing", &PatchParams::default(), &add)
        .await
        .unwrap_err();
    let kube::Error::Api(status) = refused else {
        panic!("{refused}")
    };
    assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
    assert!(
        status.message.contains("no new finalizers"),
        "{}",
        status.message
    );

    release(&examples, "closing").await;
}

/// Server-side apply that creates an object of a kind with a status subresource drops
/// the status it was sent, as a create does.
async fn apply_create_drops_status(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    let desired = example_config("applied", &env.ns, 2)
        .with_status(ExampleStatusApplyConfiguration::default().with_observed_generation(7));
    let created = examples
        .apply(&desired, &PatchParams::apply("crdgen-e2e"))
        .await
        .unwrap();
    assert_eq!(created.status, None, "{created:?}");
    assert_eq!(created.spec.replicas, 2);
}

/// Server-side apply by two managers of one field: the apiserver refuses the second
/// without `force` (409 Conflict) and gives it the field with `force`.
async fn apply_conflicts_between_managers(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    examples
        .apply(
            &example_config("owned", &env.ns, 1),
            &PatchParams::apply("manager-a"),
        )
        .await
        .unwrap();
    let second = examples
        .apply(
            &example_config("owned", &env.ns, 2),
            &PatchParams::apply("manager-b"),
        )
        .await;
    assert_eq!(
        code(second.unwrap_err()),
        409,
        "a conflict on spec.replicas"
    );
    let forced = examples
        .apply(
            &example_config("owned", &env.ns, 3),
            &PatchParams::apply("manager-b").force(),
        )
        .await
        .unwrap();
    assert_eq!(forced.spec.replicas, 3);
}

/// Apply configurations send only what is set, so two field managers own disjoint
/// fields of one object: each applies its own again without the other's, and neither
/// clobbers the other. A manager that reaches for a field the other owns is refused
/// (409) unless it forces.
async fn apply_configurations_own_only_what_they_set(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    let (spec_owner, label_owner) = (
        PatchParams::apply("spec-owner"),
        PatchParams::apply("label-owner"),
    );
    examples
        .apply(&example_config("shared", &env.ns, 1), &spec_owner)
        .await
        .unwrap();
    let labels = ExampleApplyConfiguration::new("shared", &env.ns).with_labels([("team", "b")]);
    let labeled = examples.apply(&labels, &label_owner).await.unwrap();
    assert_eq!(labeled.spec.replicas, 1, "the label owner sent no spec");

    // Each applies its own fields again; the other's stay.
    let scaled = examples
        .apply(&example_config("shared", &env.ns, 2), &spec_owner)
        .await
        .unwrap();
    assert_eq!(
        scaled
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("team"))
            .map(String::as_str),
        Some("b"),
        "the spec owner's apply kept the label it does not own"
    );
    let relabeled = examples
        .apply(&labels.clone().with_labels([("tier", "web")]), &label_owner)
        .await
        .unwrap();
    assert_eq!(
        relabeled.spec.replicas, 2,
        "the label owner's apply kept the spec"
    );
    let owned = |manager: &str| {
        let entry = relabeled
            .metadata
            .managed_fields
            .iter()
            .flatten()
            .find(|m| m.manager.as_deref() == Some(manager))
            .unwrap_or_else(|| panic!("{manager} owns fields"));
        serde_json::to_string(&entry.fields_v1).unwrap()
    };
    assert!(
        !owned("label-owner").contains("f:spec"),
        "{}",
        owned("label-owner")
    );
    assert!(
        !owned("spec-owner").contains("f:labels"),
        "{}",
        owned("spec-owner")
    );

    // Reaching for the other's field: a conflict, unless forced.
    let takeover = ExampleApplyConfiguration::new("shared", &env.ns)
        .with_spec(ExampleSpecApplyConfiguration::default().with_replicas(5));
    let refused = examples.apply(&takeover, &label_owner).await;
    assert_eq!(
        code(refused.unwrap_err()),
        409,
        "spec.replicas is the spec owner's"
    );
    let forced = examples
        .apply(&takeover, &PatchParams::apply("label-owner").force())
        .await
        .unwrap();
    assert_eq!(forced.spec.replicas, 5);
    // A configuration without a name is refused before it is sent.
    let nameless = ExampleApplyConfiguration::default();
    assert!(matches!(
        examples.apply(&nameless, &label_owner).await,
        Err(kube::Error::BuildRequest(_))
    ));
}

/// The CRD's schema on the wire: a required field missing and a value of the wrong type
/// are 422, an unknown field is pruned; on update as on create.
async fn schema_on_every_write(env: &Env) {
    let examples = env.cs.bcrds_v1alpha1().examples(&env.ns);
    let raw = kube::Api::<kube::api::DynamicObject>::namespaced_with(
        env.cs.client().clone(),
        &env.ns,
        &kube::api::ApiResource::erase::<crdgen_consumer::apis::bcrds::v1alpha1::Example>(&()),
    );
    let body = |spec: serde_json::Value| -> kube::api::DynamicObject {
        serde_json::from_value(json!({
            "apiVersion": "bcrds.example.com/v1alpha1", "kind": "Example",
            "metadata": {"name": "schema"}, "spec": spec
        }))
        .unwrap()
    };
    let pp = PostParams::default();
    let missing = raw
        .create(&pp, &body(json!({"replicas": 1})))
        .await
        .unwrap_err();
    assert_eq!(code(missing), 422, "workerImage is required");
    let created = raw
        .create(
            &pp,
            &body(json!({"replicas": 1, "workerImage": "busybox", "extra": true})),
        )
        .await
        .unwrap();
    assert!(
        created.data["spec"].get("extra").is_none(),
        "pruned: {:?}",
        created.data
    );

    let wrong = Patch::Merge(json!({"spec": {"replicas": "two"}}));
    assert_eq!(
        code(
            examples
                .patch("schema", &PatchParams::default(), &wrong)
                .await
                .unwrap_err()
        ),
        422
    );
    let extra = Patch::Merge(json!({"spec": {"extra": 1, "replicas": 3}}));
    let patched = raw
        .patch("schema", &PatchParams::default(), &extra)
        .await
        .unwrap();
    assert!(patched.data["spec"].get("extra").is_none());
    assert_eq!(patched.data["spec"]["replicas"], 3);
}

mod in_memory_server {
    in_memory_tests!(
        status_needs_the_subresource,
        delete_answers,
        no_new_finalizers_while_deleting,
        apply_create_drops_status,
        apply_conflicts_between_managers,
        apply_configurations_own_only_what_they_set,
        schema_on_every_write
    );
}

real_cluster_checks!(
    status_needs_the_subresource,
    delete_answers,
    no_new_finalizers_while_deleting,
    apply_create_drops_status,
    apply_conflicts_between_managers,
    apply_configurations_own_only_what_they_set,
    schema_on_every_write
);
