//! The book's clients chapter, compiled against this crate's generated code: the
//! clientset, and informers and listers (`cargo run --example clients` runs it against
//! the cluster of your kubectl context, with the bcrds CRDs installed).

use std::error::Error;
use std::time::Duration;

use crdgen_consumer::apis::bcrds::v1alpha1::{Example, ExampleSpec};
use kube::ResourceExt;
use kube::core::Selector;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let client = kube::Client::try_default().await?;
    let spec = ExampleSpec {
        replicas: 1,
        worker_image: "busybox".into(),
    };
    clientset(spec).await?;
    informers(client).await?;
    Ok(())
}

async fn clientset(spec: ExampleSpec) -> Result<(), Box<dyn Error>> {
    // ANCHOR: clientset
    use crdgen_consumer::client::clientset::Clientset;
    use kube::api::{ListParams, PatchParams, PostParams};

    let cs = Clientset::try_default().await?; // or Clientset::new(kube_client)
    let examples = cs.bcrds_v1alpha1().examples("default"); // namespaced kind
    let created = examples
        .create(&PostParams::default(), &Example::new("demo", spec))
        .await?;
    let maybe = examples.get_opt("demo").await?; // None instead of a 404
    let all = cs
        .bcrds_v1alpha1()
        .all_examples()
        .list(&ListParams::default())
        .await?;
    let widgets = cs.bcrds_v1alpha1().widgetz(); // cluster-scoped kind
    // Server-side apply claims only what the configuration sets (client-go's
    // applyconfigurations):
    use crdgen_consumer::client::applyconfigurations::bcrds::v1alpha1::{
        ExampleApplyConfiguration, ExampleSpecApplyConfiguration,
    };
    let desired = ExampleApplyConfiguration::new("demo", "default")
        .with_labels([("team", "a")])
        .with_spec(ExampleSpecApplyConfiguration::default().with_replicas(3));
    examples
        .apply(&desired, &PatchParams::apply("my-controller"))
        .await?;
    // ANCHOR_END: clientset
    println!(
        "created {}, found {}, {} in all, widgets at {:?}",
        created.name_any(),
        maybe.is_some(),
        all.items.len(),
        widgets.api().resource_url()
    );
    Ok(())
}

async fn informers(client: kube::Client) -> Result<(), Box<dyn Error>> {
    // ANCHOR: informers
    use crdgen_consumer::client::informers::SharedInformerFactory;
    use crdgen_runtime::CancellationToken;
    use crdgen_runtime::informer::{FactoryOptions, HandlerFns};

    let factory = SharedInformerFactory::with_options(
        client,
        FactoryOptions::default()
            .namespace("prod") // or every namespace
            .tweak(|c| c.labels("app=web")) // list/watch selectors
            .resync(Duration::from_secs(300)), // re-deliver everything as updates
    );
    let examples = factory.bcrds().v1alpha1().examples();
    examples.add_event_handler(
        HandlerFns::new()
            .on_add(|o: &std::sync::Arc<Example>| println!("add {}", o.name_any()))
            .on_update(|_old, _new| { /* … */ })
            .on_delete(|_last| { /* … */ }),
    );
    let lister = examples.lister();

    let shutdown = CancellationToken::new();
    factory.start(&shutdown);
    factory.ensure_cache_sync().await?; // or wait_for_cache_sync(): resource -> synced
    let one = lister.examples("prod").get("demo"); // Option<Arc<Example>>, O(1)
    let web = lister
        .examples("prod")
        .list(&Selector::from_iter([("tier", "web")]));
    // ANCHOR_END: informers
    println!("demo: {}, web: {}", one.is_some(), web.len());
    shutdown.cancel();
    factory.shutdown().await;
    Ok(())
}
