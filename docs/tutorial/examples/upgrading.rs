//! The code after each change of crdgen 0.1 that CHANGELOG.md shows (and the book's
//! upgrading page with it), compiled: crdgen's `tests/book.rs` checks that every
//! "After" block there is a run of this file's lines.

use std::time::Duration;

use crdgen_runtime::CancellationToken;
use crdgen_runtime::controller::{Action, ObjectKey, QueueController, SyncError, SyncHandler};
use crdgen_runtime::informer::{FactoryOptions, InformerFactory};
use crdgen_runtime::leaderelection::{LeaderElectionConfig, LeaderElectionError, LeaderElector};
use crdgen_runtime::testing::ApiServer;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::Job;

/// A sync of its own.
pub struct MySync;

impl SyncHandler for MySync {
    async fn sync(&self, key: ObjectKey<'_>) -> Result<Action, SyncError> {
        let (namespace, name) = (key.namespace, key.name);
        // ...
        println!("{namespace:?}/{name}");
        Ok(Action::RequeueAfter(Duration::from_secs(60)))
    }
}

/// An index of Jobs by their owners' names, on the informer.
pub fn index(client: kube::Client) {
    let factory = InformerFactory::new(client, FactoryOptions::default());
    let informer = factory.informer::<Job>();
    let owners = |job: &Job| {
        job.metadata
            .owner_references
            .iter()
            .flatten()
            .map(|o| o.name.clone())
            .collect()
    };
    informer
        .add_index("by-owner", owners)
        .expect("the name is ours alone");
}

/// Kubernetes' own kinds on the in-memory server, with and without `/status`.
pub fn register(server: &ApiServer) {
    server.register_with_status::<Deployment>();
    server.register::<Job>();
}

/// The controller, run while this replica leads.
pub async fn lead(
    client: kube::Client,
    controller: QueueController<MySync>,
    shutdown: CancellationToken,
) -> Result<(), LeaderElectionError> {
    let elector = LeaderElector::new(
        client,
        LeaderElectionConfig::new("default", "my-operator", "me"),
    );
    elector
        .run(&shutdown, |term| async move {
            controller.run_leading(2, &term).await
        })
        .await?;
    Ok(())
}

/// Built and not run: what matters is that it compiles.
fn main() {}
