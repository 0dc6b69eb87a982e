//! Wired as controller-runtime's manager: serve `/metrics` (HTTPS, each scrape's token
//! and access reviewed by the apiserver, unless `--metrics-secure=false`) and the `/healthz` and
//! `/readyz` probes; build the controllers; start the informers on every replica and
//! wait for their caches (an operator whose CRD is missing or whose RBAC role falls
//! short exits non-zero after `--cache-sync-timeout`, naming the resource and why);
//! then, while this replica holds the leader Lease, run each controller with
//! `--workers` workers until SIGTERM or Ctrl-C, which drains them for at most
//! `--graceful-shutdown-timeout` while the lease is still renewed, then releases it.
//! Losing the lease stops every sync at once and exits non-zero, as in
//! controller-runtime: the pod restarts and competes again. So does an informer that
//! dies (its cache would freeze): `/readyz` fails with why, and the operator exits.
//!
// ANCHOR: rbac
//! The leader Lease, and the events controllers record:
//! +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete,namespace=system
//! +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
//!
//! Secure metrics: who a scraper is (TokenReview) and whether it may (SubjectAccessReview).
//! +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
//! +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
//! Whoever scrapes /metrics needs this role (bind Prometheus' service account to it):
//! +kubebuilder:rbac:urls=/metrics,verbs=get,roleName=metrics-reader
// ANCHOR_END: rbac

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use crdgen_runtime::CancellationToken;
use crdgen_runtime::controller::cancel_on_signal;
use crdgen_runtime::informer::FactoryOptions;
use crdgen_runtime::leaderelection::{LeaderElectionConfig, LeaderElector, Term, default_identity};
use crdgen_runtime::manager::{self, Readiness, SecureMetrics, stop_on_informer_failure};
use cronjob_operator::client::clientset::Clientset;
use cronjob_operator::client::informers::SharedInformerFactory;
use cronjob_operator::controller;

#[derive(Parser)]
#[command(about = "The cronjob-operator operator")]
struct Args {
    /// Workers per controller.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Run the controllers only while holding the leader Lease, so that of several
    /// replicas one reconciles (`--leader-elect=false` for a lone local run).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    leader_elect: bool,
    /// Namespace of the leader Lease [default: POD_NAMESPACE, else the kubeconfig's].
    #[arg(long)]
    leader_election_namespace: Option<String>,
    /// Seconds another replica waits, after the leader's last renewal, to take over.
    #[arg(long, default_value = "15", value_parser = seconds)]
    leader_elect_lease_duration: Duration,
    /// Seconds the leader retries a failed renewal before it gives up (and exits).
    #[arg(long, default_value = "10", value_parser = seconds)]
    leader_elect_renew_deadline: Duration,
    /// Seconds between tries to acquire or renew the lease.
    #[arg(long, default_value = "2", value_parser = seconds)]
    leader_elect_retry_period: Duration,
    /// Seconds in-flight syncs may take to finish after SIGTERM (the lease is renewed
    /// meanwhile, then released): with the release, within the pod's
    /// terminationGracePeriodSeconds.
    #[arg(long, default_value = "10", value_parser = seconds)]
    graceful_shutdown_timeout: Duration,
    /// Where /metrics is served (Prometheus text format).
    #[arg(long, default_value = "0.0.0.0:8443")]
    metrics_bind_address: SocketAddr,
    /// Serve /metrics over HTTPS to those the apiserver authenticates and authorises
    /// (`get` on the /metrics URL: the metrics-reader role); `false` for plain HTTP.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    metrics_secure: bool,
    /// The metrics server's certificate directory (`tls.crt`, `tls.key`); a
    /// self-signed certificate when not given.
    #[arg(long)]
    metrics_cert_path: Option<PathBuf>,
    /// Where /healthz and /readyz are served.
    #[arg(long, default_value = "0.0.0.0:8081")]
    health_probe_bind_address: SocketAddr,
    /// Seconds the informers' caches may take to sync before the operator gives up.
    #[arg(long, default_value = "120", value_parser = seconds)]
    cache_sync_timeout: Duration,
    /// Port of the webhook server.
    #[arg(long, default_value_t = 9443)]
    webhook_port: u16,
    /// Directory of the webhook server's certificate (`tls.crt`, `tls.key`).
    #[arg(long, default_value = "/tmp/k8s-webhook-server/serving-certs")]
    cert_dir: std::path::PathBuf,
    /// Run without the webhook server, e.g. on a workstation without its certificate
    /// (or set kubebuilder's `ENABLE_WEBHOOKS=false`).
    #[arg(long)]
    no_webhooks: bool,
    // crdgen:args
}

fn seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|e| format!("{e}"))?;
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("{e}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args = Args::parse();
    let metrics = match manager::install_prometheus() {
        Ok(metrics) => metrics,
        Err(e) => {
            tracing::error!(error = %e, "cannot install the metrics recorder");
            return ExitCode::FAILURE;
        }
    };
    let client = match kube::Client::try_default().await {
        Ok(client) => client,
        Err(e) => {
            tracing::error!(error = %e, "cannot build a Kubernetes client");
            return ExitCode::FAILURE;
        }
    };
    let clientset = Clientset::new(client.clone());
    let options = FactoryOptions::default().cache_sync_timeout(args.cache_sync_timeout);
    let factory = SharedInformerFactory::with_options(client.clone(), options);

    // Initialize all controllers before their informers start.
    let drain = args.graceful_shutdown_timeout;
    let cron_job = controller::cron_job::new(&clientset, &factory).drain_deadline(drain);
    // crdgen:build-controllers

    let shutdown = CancellationToken::new();
    cancel_on_signal(&shutdown);
    let readiness = Readiness::new();
    let servers = match serve(&args, &client, metrics, readiness.clone(), &shutdown).await {
        Ok(servers) => servers,
        Err(e) => {
            tracing::error!(error = %e, "cannot serve metrics and probes");
            return ExitCode::FAILURE;
        }
    };

    // Every replica keeps its caches warm, and is ready once they synced.
    factory.start(&shutdown);
    if let Err(e) = factory.ensure_cache_sync().await {
        tracing::error!("{e}");
        return ExitCode::FAILURE;
    }
    readiness.set_ready();
    tracing::info!("caches synced");

    // ANCHOR: serve
    // The webhook server, beside the controllers until shutdown.
    let mut webhooks = None;
    if !args.no_webhooks && std::env::var("ENABLE_WEBHOOKS").as_deref() != Ok("false") {
        let address = std::net::SocketAddr::from(([0, 0, 0, 0], args.webhook_port));
        match cronjob_operator::webhook::webhooks()
            .bind(address, &args.cert_dir)
            .await
        {
            Ok(server) => webhooks = Some(tokio::spawn(server.run(shutdown.clone()))),
            Err(e) => {
                tracing::error!(error = %e, "cannot start the webhook server (--no-webhooks runs without it)");
                return ExitCode::FAILURE;
            }
        }
    }
    // ANCHOR_END: serve
    // crdgen:start-webhooks
    // Run every controller for this replica's term as leader: until shutdown (then they
    // drain), or until the lease is lost (then they stop at once).
    let workers = args.workers;
    let controllers = move |term: Term| async move {
        tokio::join!(
            cron_job.run_leading(workers, &term),
            // crdgen:run-controllers
        );
    };
    let lead = async {
        let led = match leader_elector(&args, &client) {
            Some(elector) => elector.run(&shutdown, controllers).await,
            None => {
                controllers(Term::unelected(&shutdown)).await;
                Ok(())
            }
        };
        shutdown.cancel();
        led
    };
    let informer_failure = stop_on_informer_failure(factory.factory(), &readiness, &shutdown);
    let (led, informer_failure) = tokio::join!(lead, informer_failure);
    if let Err(e) = led {
        // As controller-runtime's manager: no graceful stop once another replica may lead.
        tracing::error!("{e}");
        return ExitCode::FAILURE;
    }
    if let Some(webhooks) = webhooks
        && let Ok(Err(e)) = webhooks.await
    {
        tracing::error!(error = %e, "the webhook server failed");
    }
    // crdgen:stop-webhooks
    factory.shutdown().await;
    let _ = servers.await;
    match informer_failure {
        None => ExitCode::SUCCESS,
        Some(failure) => {
            tracing::error!("{failure}");
            ExitCode::FAILURE
        }
    }
}

/// Serves /metrics and the probes until `shutdown`.
async fn serve(
    args: &Args,
    client: &kube::Client,
    metrics: manager::PrometheusHandle,
    readiness: Readiness,
    shutdown: &CancellationToken,
) -> std::io::Result<tokio::task::JoinHandle<()>> {
    let address = args.metrics_bind_address;
    let (metrics_at, metrics) = if args.metrics_secure {
        let mut secure = SecureMetrics::new(client.clone());
        if let Some(dir) = &args.metrics_cert_path {
            secure = secure.cert_dir(dir);
        }
        let (at, server) =
            manager::serve_metrics_secure(address, metrics, secure, shutdown.clone()).await?;
        (at, tokio::spawn(server))
    } else {
        let (at, server) = manager::serve_metrics(address, metrics, shutdown.clone()).await?;
        (at, tokio::spawn(server))
    };
    let (probes_at, probes) =
        manager::serve_probes(args.health_probe_bind_address, readiness, shutdown.clone()).await?;
    let scheme = if args.metrics_secure { "https" } else { "http" };
    tracing::info!(%metrics_at, %probes_at, scheme, "serving /metrics and /healthz, /readyz");
    Ok(tokio::spawn(async move {
        let _ = tokio::join!(metrics, probes);
    }))
}

/// This replica's candidacy for the leader Lease, unless `--leader-elect=false`.
fn leader_elector(args: &Args, client: &kube::Client) -> Option<LeaderElector> {
    if !args.leader_elect {
        return None;
    }
    let namespace = args
        .leader_election_namespace
        .clone()
        .or_else(|| std::env::var("POD_NAMESPACE").ok())
        .unwrap_or_else(|| client.default_namespace().to_owned());
    let config = LeaderElectionConfig::new(
        &namespace,
        "cronjob-operator-leader-election",
        &default_identity(),
    )
    .timings(
        args.leader_elect_lease_duration,
        args.leader_elect_renew_deadline,
        args.leader_elect_retry_period,
    );
    Some(LeaderElector::new(client.clone(), config))
}
