//! What an operator binary serves beside its controllers, as controller-runtime's
//! manager does: a Prometheus endpoint (`/metrics`) with everything the runtime records
//! (work queues, reconciles, informer lag, leadership), served over HTTPS to those the
//! apiserver says may read it ([`serve_metrics_secure`], kubebuilder's default) or as
//! plain HTTP ([`serve_metrics`]), and the container probes
//! `/healthz` (alive while it serves) and `/readyz` (once the caches synced, until an
//! informer fails; not tied to leading, so that replicas waiting for the lease are
//! ready too and a rolling update can proceed).

mod auth;

pub use auth::{ALLOW_TTL, DENY_TTL, MetricsAuth, Refusal, TOKEN_TTL};

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::Request;
use hyper::body::Incoming;
pub use metrics_exporter_prometheus::PrometheusHandle;
use metrics_exporter_prometheus::{BuildError, Matcher, PrometheusBuilder};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::informer::{InformerFactory, InformerFailure};
use crate::panics::lock;
use crate::serve::{Limits, TEXT, response, serve};

/// Histogram buckets for every `*_seconds` metric: controller-runtime's reconcile-time
/// buckets, which also cover client-go's queue and work durations.
const SECONDS_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0,
    25.0, 30.0, 40.0, 50.0, 60.0,
];

/// How often histogram data past its window is dropped.
const UPKEEP_PERIOD: Duration = Duration::from_secs(5);

/// Installs the process-wide Prometheus recorder; what it records is rendered by the
/// returned handle (served by [`serve_metrics`]). Call it once, first thing in `main`.
///
/// # Errors
///
/// When the recorder cannot be built, or one is installed already.
pub fn install_prometheus() -> Result<PrometheusHandle, BuildError> {
    PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)?
        .install_recorder()
}

/// Whether the operator is ready, shared by whoever decides it and the `/readyz` probe.
#[derive(Clone, Default)]
pub struct Readiness {
    state: Arc<Mutex<State>>,
}

#[derive(Clone, Default)]
enum State {
    #[default]
    NotYet,
    Ready,
    /// For good: why the operator cannot serve any more.
    Failed(String),
}

impl Readiness {
    /// Not ready yet (`/readyz` answers 503 until [`Readiness::set_ready`]).
    pub fn new() -> Self {
        Readiness::default()
    }

    /// Marks the operator ready: its caches synced. A failure stays.
    pub fn set_ready(&self) {
        let mut state = lock(&self.state);
        if matches!(*state, State::NotYet) {
            *state = State::Ready;
        }
    }

    /// Marks the operator not ready for good, with why (what `/readyz` answers).
    pub fn set_failed(&self, reason: impl Into<String>) {
        *lock(&self.state) = State::Failed(reason.into());
    }

    /// Whether `/readyz` answers 200.
    pub fn is_ready(&self) -> bool {
        matches!(*lock(&self.state), State::Ready)
    }

    /// What `/readyz` answers: 200 once ready, 503 with why not.
    fn probe(&self) -> (u16, String) {
        match &*lock(&self.state) {
            State::Ready => (200, "ok".to_owned()),
            State::NotYet => (503, "caches not synced yet".to_owned()),
            State::Failed(reason) => (503, reason.clone()),
        }
    }
}

/// Stops the operator when one of `factory`'s informers fails (its cache would stay
/// frozen while `/readyz` said ready): fails readiness with the reason, cancels
/// `shutdown` and answers the failure, on which an operator exits non-zero. `None`
/// when `shutdown` comes first.
pub async fn stop_on_informer_failure(
    factory: &InformerFactory,
    readiness: &Readiness,
    shutdown: &CancellationToken,
) -> Option<InformerFailure> {
    let failure = tokio::select! {
        () = shutdown.cancelled() => return None,
        failure = factory.failed() => failure,
    };
    readiness.set_failed(failure.to_string());
    shutdown.cancel();
    Some(failure)
}

/// Binds `addr` and serves `/healthz` and `/readyz` from `readiness` until `shutdown`.
/// Returns the bound address (port 0 picks one) and the server's future.
///
/// # Errors
///
/// When `addr` cannot be bound.
pub async fn serve_probes(
    addr: SocketAddr,
    readiness: Readiness,
    shutdown: CancellationToken,
) -> std::io::Result<(SocketAddr, impl Future<Output = ()> + Send + 'static)> {
    let listener = TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let respond = move |request: Request<Incoming>| {
        let answer = match request.uri().path() {
            "/healthz" => (200, "ok".to_owned()),
            "/readyz" => readiness.probe(),
            _ => (404, "not found: /healthz, /readyz".to_owned()),
        };
        async move { response(answer.0, TEXT, answer.1) }
    };
    Ok((
        bound,
        serve(
            "probe server",
            listener,
            Limits::default(),
            shutdown,
            plain,
            respond,
        ),
    ))
}

/// Binds `addr` and serves `/metrics` from `metrics` as plain HTTP until `shutdown`,
/// keeping its histograms within their window: for a scraper on a trusted network, or
/// a local run. Returns the bound address (port 0 picks one) and the server's future.
///
/// # Errors
///
/// When `addr` cannot be bound.
pub async fn serve_metrics(
    addr: SocketAddr,
    metrics: PrometheusHandle,
    shutdown: CancellationToken,
) -> std::io::Result<(SocketAddr, impl Future<Output = ()> + Send + 'static)> {
    let listener = TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    Ok((
        bound,
        metrics_server(listener, metrics, None, plain, shutdown),
    ))
}

/// How [`serve_metrics_secure`] serves: who reviews the requests, and the certificate.
pub struct SecureMetrics {
    auth: MetricsAuth,
    cert_dir: Option<PathBuf>,
}

impl SecureMetrics {
    /// Requests reviewed by the apiserver `client` talks to (see [`MetricsAuth`]); a
    /// self-signed certificate unless [`cert_dir`](Self::cert_dir) names one.
    pub fn new(client: kube::Client) -> Self {
        SecureMetrics {
            auth: MetricsAuth::new(client),
            cert_dir: None,
        }
    }

    /// Serve the certificate in `dir` (`tls.crt`, `tls.key`: a mounted TLS Secret, as
    /// cert-manager writes one), read again when it changes.
    #[must_use]
    pub fn cert_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cert_dir = Some(dir.into());
        self
    }
}

/// Binds `addr` and serves `/metrics` from `metrics` over HTTPS until `shutdown`, each
/// request authenticated and authorised by the apiserver as controller-runtime's
/// secure metrics server does it ([`MetricsAuth`]: 401 without a token the apiserver
/// knows, 403 without a grant of `get` on the `/metrics` non-resource URL). Returns the
/// bound address and the server's future; an error when the certificate cannot be
/// read or made.
///
/// # Errors
///
/// When `addr` cannot be bound, or the certificate cannot be read or made.
pub async fn serve_metrics_secure(
    addr: SocketAddr,
    metrics: PrometheusHandle,
    secure: SecureMetrics,
    shutdown: CancellationToken,
) -> std::io::Result<(SocketAddr, impl Future<Output = ()> + Send + 'static)> {
    let tls = match &secure.cert_dir {
        Some(dir) => crate::tls::Reloading::new(dir),
        None => crate::tls::Reloading::self_signed(),
    }
    .map_err(std::io::Error::other)?;
    let listener = TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let watcher = tls
        .clone()
        .watch(crate::tls::RELOAD_PERIOD, shutdown.clone());
    let server = metrics_server(
        listener,
        metrics,
        Some(secure.auth),
        tls.handshake(),
        shutdown,
    );
    Ok((bound, async move {
        tokio::join!(server, watcher);
    }))
}

/// Serves `/metrics` on `listener` through `handshake`, asking `auth` first when there
/// is one, and keeps the histograms within their window, until `shutdown`.
async fn metrics_server<H, HFut, S>(
    listener: TcpListener,
    metrics: PrometheusHandle,
    auth: Option<MetricsAuth>,
    handshake: H,
    shutdown: CancellationToken,
) where
    H: Fn(tokio::net::TcpStream) -> HFut + Clone + Send + 'static,
    HFut: Future<Output = Option<S>> + Send,
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let upkeep = {
        let (metrics, shutdown) = (metrics.clone(), shutdown.clone());
        async move {
            let mut ticks = tokio::time::interval(UPKEEP_PERIOD);
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    _ = ticks.tick() => metrics.run_upkeep(),
                }
            }
        }
    };
    let respond = move |request: Request<Incoming>| {
        let (metrics, auth) = (metrics.clone(), auth.clone());
        async move {
            if let Some(auth) = auth {
                let authorization = request
                    .headers()
                    .get(hyper::header::AUTHORIZATION)
                    .map(|v| v.as_bytes());
                let checked = auth
                    .check(
                        authorization,
                        request.method().as_str(),
                        request.uri().path(),
                    )
                    .await;
                if let Err(refused) = checked {
                    return response(refused.status, TEXT, refused.message);
                }
            }
            match request.uri().path() {
                "/metrics" => response(200, PROMETHEUS_TEXT, metrics.render()),
                _ => response(404, TEXT, "not found: /metrics"),
            }
        }
    };
    let server = serve(
        "metrics server",
        listener,
        Limits::default(),
        shutdown,
        handshake,
        respond,
    );
    tokio::join!(server, upkeep);
}

/// The Prometheus text exposition format.
const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// No handshake: plain HTTP, as the probes and (in-cluster) metrics are scraped.
async fn plain(stream: tokio::net::TcpStream) -> Option<tokio::net::TcpStream> {
    Some(stream)
}
