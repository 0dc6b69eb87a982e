//! The tutorial's CronJob controller shared among replicas by hand, as the sharding
//! chapter wires it (`crdgen init --sharding` writes the same into `main.rs`): run it as
//! several replicas, each with its own `POD_NAME`, against the cluster of your kubectl
//! context (`cargo run --example sharded`).

use std::error::Error;

use crdgen_runtime::CancellationToken;
use crdgen_runtime::controller::cancel_on_signal;
use crdgen_runtime::informer::FactoryOptions;
use crdgen_runtime::sharding::{Assigner, Ring};
use cronjob_operator::apis::batch::v1::CronJob;
use cronjob_operator::client::clientset::Clientset;
use cronjob_operator::client::informers::SharedInformerFactory;
use cronjob_operator::controller::cron_job;
use k8s_openapi::api::batch::v1::Job;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let client = kube::Client::try_default().await?;
    let clientset = Clientset::new(client.clone());
    let namespace = client.default_namespace().to_owned();
    let (workers, shutdown) = (2, CancellationToken::new());
    cancel_on_signal(&shutdown);
    // ANCHOR: wiring
    let ring = Ring::new("cronjobs", &namespace); // names the labels and Leases
    let identity = std::env::var("POD_NAME")?; // this replica in the ring
    // This replica's informers watch its shard only: what is labelled for it.
    let shard = SharedInformerFactory::with_options(
        client.clone(),
        FactoryOptions::default().shard(ring.shard(&identity)),
    );
    // The controller chapter's: `for_kind` on the shard's CronJobs (it syncs its shard's
    // objects only), `owns` on its Jobs (they follow their CronJob).
    let controller = cron_job::new(&clientset, &shard);
    shard.start(&shutdown);
    shard.ensure_cache_sync().await?;
    // Only the ring's leader assigns; every replica is a member while it holds its Lease.
    let assigner = Assigner::<CronJob>::new(client.clone(), ring.clone()).owns::<Job>();
    ring.run(
        &client,
        &identity,
        &assigner,
        &shutdown,
        |term| async move { controller.run_leading(workers, &term).await },
    )
    .await?;
    // ANCHOR_END: wiring
    shard.shutdown().await;
    Ok(())
}
