//! envtest for Rust: a real control plane (etcd and kube-apiserver, no controllers) as
//! child processes of the test, as controller-runtime's `envtest` gives Go operators.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use crdgen_runtime::testing::envtest::Environment;
//!
//! let env = Environment::start().await?;          // or `envtest::shared().await?`
//! let client = env.client().await?;               // a kube::Client for this runtime
//! env.install_crd_files(["config/crd/bases/bcrds.example.com_examples.yaml"]).await?;
//! // … run the controller against `client` …
//! env.stop();                                     // also on drop, and at exit for `shared`
//! # Ok(()) }
//! ```
//!
//! Binaries are found as controller-runtime finds them ([`Binaries::find`]); users on
//! machines that can download get them with `setup-envtest use -p path`. Each control
//! plane gets free loopback ports, a temporary directory, fresh certificates made in
//! process and an admin bearer token; [`Environment::kubeconfig_path`] is a kubeconfig for
//! it (for kubectl while debugging). Like envtest, there is no controller-manager: deleted
//! namespaces stay Terminating and owner references are never garbage collected, so give
//! each test namespaces of its own.
//!
//! No process outlives the test binary: [`Environment::stop`], `Drop`, an exit hook for
//! [`shared`] and, on Linux, a parent-death signal each stop both processes.

mod binaries;
mod pki;
mod process;

use std::fmt;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::version::Info;
use kube::config::{KubeConfigOptions, Kubeconfig};

pub use binaries::Binaries;
use pki::Pki;
pub use pki::serving_certificates;
#[cfg(feature = "tls")]
pub use pki::trusting;
use process::Process;

use super::crds::{self as cluster, ClusterError};
use crate::panics::lock;

/// How long the apiserver may take to become ready.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// Tries at starting, for a port taken between choosing and binding it.
const ATTEMPTS: usize = 3;
/// The field manager that installs CRDs.
const MANAGER: &str = "crdgen-envtest";

/// Why a control plane could not be started or used.
#[derive(Debug)]
pub enum EnvtestError {
    /// A binary was not found; `searched` lists where it was looked for.
    BinaryNotFound {
        /// The binary.
        name: String,
        /// Where it was looked for.
        searched: Vec<String>,
    },
    /// A file or process operation failed.
    Io(String, std::io::Error),
    /// Generating certificates failed.
    Pki(String),
    /// The control plane did not become ready; the log's last lines say why.
    NotReady {
        /// What was not ready.
        why: String,
        /// The last lines of the process's log.
        log: String,
    },
    /// The kubeconfig or client could not be made.
    Client(String),
    /// A CRD file could not be read, or installing CRDs failed.
    Crds(String),
}

impl fmt::Display for EnvtestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvtestError::BinaryNotFound { name, searched } => write!(
                f,
                "envtest: {name} not found (looked in {}); set KUBEBUILDER_ASSETS to the \
                 directory `setup-envtest use -p path` prints, or TEST_ASSET_{} to the binary",
                searched.join(", "),
                name.replace('-', "_").to_uppercase()
            ),
            EnvtestError::Io(what, e) => write!(f, "envtest: {what}: {e}"),
            EnvtestError::Pki(e) => write!(f, "envtest: generating certificates: {e}"),
            EnvtestError::NotReady { why, log } => {
                write!(f, "envtest: the control plane did not start: {why}\n{log}")
            }
            EnvtestError::Client(e) => write!(f, "envtest: {e}"),
            EnvtestError::Crds(e) => write!(f, "envtest: installing CRDs: {e}"),
        }
    }
}

impl std::error::Error for EnvtestError {}

/// A running control plane. Stops on [`stop`](Self::stop) or drop.
pub struct Environment {
    /// kube-apiserver first: it is stopped before the etcd it writes to.
    processes: Mutex<Vec<Process>>,
    dir: Mutex<Option<tempfile::TempDir>>,
    kubeconfig: Kubeconfig,
    kubeconfig_path: PathBuf,
    started_in: Duration,
}

impl Environment {
    /// Starts etcd and kube-apiserver and waits until the apiserver is ready.
    ///
    /// # Errors
    ///
    /// [`EnvtestError`]: a binary not found, a process that cannot start, or a control
    /// plane not ready in time (with its log).
    pub async fn start() -> Result<Environment, EnvtestError> {
        let binaries = Binaries::find()?;
        // A port taken between choosing it and binding it: try again with others.
        let mut attempt = 1;
        loop {
            match Environment::start_with(&binaries).await {
                Err(EnvtestError::NotReady { log, .. })
                    if attempt < ATTEMPTS && log.contains("address already in use") =>
                {
                    attempt += 1;
                }
                outcome => return outcome,
            }
        }
    }

    async fn start_with(binaries: &Binaries) -> Result<Environment, EnvtestError> {
        let begun = Instant::now();
        let dir = tempfile::Builder::new()
            .prefix("crdgen-envtest-")
            .tempdir()
            .map_err(|e| EnvtestError::Io("creating a temporary directory".into(), e))?;
        let path = dir.path().to_owned();
        let pki = Pki::write(&path)?;
        let [api_port, etcd_client, etcd_peer] = free_ports()?;
        let mut env = Environment {
            processes: Mutex::new(Vec::new()),
            dir: Mutex::new(Some(dir)),
            kubeconfig: kubeconfig(api_port, &pki)?,
            kubeconfig_path: path.join("kubeconfig"),
            started_in: Duration::ZERO,
        };
        let etcd_url = |port: u16| format!("http://127.0.0.1:{port}");
        let etcd = Process::spawn(
            "etcd",
            &binaries.etcd,
            &[
                "--name=envtest".into(),
                format!("--data-dir={}", path.join("etcd").display()),
                format!("--listen-client-urls={}", etcd_url(etcd_client)),
                format!("--advertise-client-urls={}", etcd_url(etcd_client)),
                format!("--listen-peer-urls={}", etcd_url(etcd_peer)),
                format!("--initial-advertise-peer-urls={}", etcd_url(etcd_peer)),
                format!("--initial-cluster=envtest={}", etcd_url(etcd_peer)),
                // Test data need not survive a power cut; fsync dominates start time.
                "--unsafe-no-fsync".into(),
            ],
            &path.join("etcd.log"),
        )?;
        env.lock_processes().push(etcd);
        let file = |name: &str| path.join(name).display().to_string();
        let apiserver = Process::spawn(
            "kube-apiserver",
            &binaries.kube_apiserver,
            &[
                format!("--etcd-servers={}", etcd_url(etcd_client)),
                "--bind-address=127.0.0.1".into(),
                "--advertise-address=127.0.0.1".into(),
                format!("--secure-port={api_port}"),
                format!("--cert-dir={}", path.display()),
                format!("--tls-cert-file={}", file(pki::SERVING_CERT)),
                format!("--tls-private-key-file={}", file(pki::SERVING_KEY)),
                format!("--client-ca-file={}", file(pki::CA)),
                format!("--token-auth-file={}", file(pki::TOKENS)),
                "--authorization-mode=RBAC".into(),
                "--service-cluster-ip-range=10.0.0.0/24".into(),
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
                format!(
                    "--service-account-key-file={}",
                    file(pki::SERVICE_ACCOUNT_PUB)
                ),
                format!(
                    "--service-account-signing-key-file={}",
                    file(pki::SERVICE_ACCOUNT_KEY)
                ),
                "--allow-privileged=true".into(),
                // No controller-manager runs, so nothing would reconcile the endpoints.
                "--endpoint-reconciler-type=none".into(),
            ],
            &path.join("kube-apiserver.log"),
        )?;
        env.lock_processes().insert(0, apiserver);
        let config = serde_json::to_vec_pretty(&env.kubeconfig)
            .map_err(|e| EnvtestError::Client(e.to_string()))?;
        std::fs::write(&env.kubeconfig_path, config)
            .map_err(|e| EnvtestError::Io("writing the kubeconfig".into(), e))?;
        env.wait_ready(&path).await?;
        env.started_in = begun.elapsed();
        Ok(env)
    }

    /// Polls `/readyz` until it answers `ok` and the `default` namespace exists (the
    /// bootstrap controller makes it just after), failing early when a process exits.
    async fn wait_ready(&self, dir: &Path) -> Result<(), EnvtestError> {
        let client = self.client().await?;
        let deadline = Instant::now() + READY_TIMEOUT;
        let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> =
            kube::Api::all(client.clone());
        loop {
            if let Some(name) = self.exited() {
                return Err(not_ready(dir, format!("{name} exited")));
            }
            let ready = client
                .request_text(
                    http::Request::get("/readyz")
                        .body(Vec::new())
                        .expect("a valid request"),
                )
                .await
                .is_ok_and(|body| body == "ok");
            if ready
                && namespaces
                    .get_opt("default")
                    .await
                    .is_ok_and(|n| n.is_some())
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(not_ready(
                    dir,
                    format!("not ready within {} s", READY_TIMEOUT.as_secs()),
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn lock_processes(&self) -> std::sync::MutexGuard<'_, Vec<Process>> {
        lock(&self.processes)
    }

    /// The name of a process that has exited, if any.
    fn exited(&self) -> Option<&'static str> {
        self.lock_processes()
            .iter_mut()
            .find_map(|p| p.exited().then_some(p.name))
    }

    /// A client for this control plane, for the calling Tokio runtime (a client's
    /// connections belong to the runtime that made them, so each test makes its own).
    ///
    /// # Errors
    ///
    /// When the kubeconfig or the client cannot be made.
    pub async fn client(&self) -> Result<kube::Client, EnvtestError> {
        let config = kube::Config::from_custom_kubeconfig(
            self.kubeconfig.clone(),
            &KubeConfigOptions::default(),
        )
        .await
        .map_err(|e| EnvtestError::Client(e.to_string()))?;
        kube::Client::try_from(config).map_err(|e| EnvtestError::Client(e.to_string()))
    }

    /// The kubeconfig for this control plane (admin, through a bearer token).
    pub fn kubeconfig(&self) -> &Kubeconfig {
        &self.kubeconfig
    }

    /// Where that kubeconfig is written, for kubectl or a process under test; gone
    /// after [`stop`](Self::stop).
    pub fn kubeconfig_path(&self) -> &Path {
        &self.kubeconfig_path
    }

    /// How long [`start`](Self::start) took, until the apiserver was ready.
    pub fn started_in(&self) -> Duration {
        self.started_in
    }

    /// The apiserver's version (`/version`), for suites that need a newer feature.
    ///
    /// # Errors
    ///
    /// When the apiserver does not answer.
    pub async fn server_version(&self) -> Result<Info, EnvtestError> {
        self.client()
            .await?
            .apiserver_version()
            .await
            .map_err(|e| EnvtestError::Client(e.to_string()))
    }

    /// Installs CRDs and waits until each is Established and served
    /// ([`cluster::install_crds`]).
    ///
    /// # Errors
    ///
    /// As [`cluster::install_crds`].
    pub async fn install_crds(
        &self,
        crds: &[CustomResourceDefinition],
    ) -> Result<(), EnvtestError> {
        let client = self.client().await?;
        cluster::install_crds(&client, crds, MANAGER)
            .await
            .map_err(|e: ClusterError| EnvtestError::Crds(e.to_string()))
    }

    /// Reads CRDs from YAML (or JSON) files, one CRD a file, and installs them.
    ///
    /// # Errors
    ///
    /// When a file is not a CRD, or as [`cluster::install_crds`].
    pub async fn install_crd_files(
        &self,
        paths: impl IntoIterator<Item = impl AsRef<Path>>,
    ) -> Result<(), EnvtestError> {
        let crds = paths
            .into_iter()
            .map(|p| cluster::read_crd(p.as_ref()).map_err(EnvtestError::Crds))
            .collect::<Result<Vec<_>, _>>()?;
        self.install_crds(&crds).await
    }

    /// Stops both processes and removes the temporary directory.
    pub fn stop(self) {
        self.shut_down();
    }

    fn shut_down(&self) {
        for process in std::mem::take(&mut *self.lock_processes()) {
            process.stop();
        }
        drop(lock(&self.dir).take());
    }
}

impl Drop for Environment {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// One control plane for every test of a test binary: started by the first caller,
/// stopped when the process exits (statics are never dropped, so an exit hook does it).
///
/// # Errors
///
/// As [`Environment::start`], for the first caller and every later one.
pub async fn shared() -> Result<&'static Environment, EnvtestError> {
    static SHARED: tokio::sync::OnceCell<Environment> = tokio::sync::OnceCell::const_new();
    extern "C" fn stop_shared() {
        if let Some(env) = SHARED.get() {
            env.shut_down();
        }
    }
    SHARED
        .get_or_try_init(|| async {
            let env = Environment::start().await?;
            // SAFETY: registers a plain function; it runs once, at exit.
            unsafe { libc::atexit(stop_shared) };
            Ok(env)
        })
        .await
}

/// Three loopback ports that were free a moment ago.
fn free_ports() -> Result<[u16; 3], EnvtestError> {
    let io = |e| EnvtestError::Io("finding a free port".into(), e);
    // Held together, so the three differ.
    let listeners = [(); 3].map(|_| TcpListener::bind("127.0.0.1:0"));
    let mut ports = [0; 3];
    for (port, listener) in ports.iter_mut().zip(listeners) {
        *port = listener.and_then(|l| l.local_addr()).map_err(io)?.port();
    }
    Ok(ports)
}

fn kubeconfig(port: u16, pki: &Pki) -> Result<Kubeconfig, EnvtestError> {
    use base64::Engine as _;
    let ca = base64::engine::general_purpose::STANDARD.encode(&pki.ca_pem);
    serde_json::from_value(serde_json::json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "envtest", "cluster": {
            "server": format!("https://127.0.0.1:{port}"),
            "certificate-authority-data": ca,
        }}],
        "users": [{"name": "admin", "user": {"token": pki.token}}],
        "contexts": [{"name": "envtest", "context": {
            "cluster": "envtest", "user": "admin", "namespace": "default",
        }}],
        "current-context": "envtest",
    }))
    .map_err(|e| EnvtestError::Client(format!("building the kubeconfig: {e}")))
}

/// `NotReady` with the last lines of both logs.
fn not_ready(dir: &Path, why: String) -> EnvtestError {
    let mut log = String::new();
    for name in ["kube-apiserver.log", "etcd.log"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        log.push_str(&format!("--- {name} (last lines)\n"));
        for line in &lines[lines.len().saturating_sub(15)..] {
            log.push_str(line);
            log.push('\n');
        }
    }
    EnvtestError::NotReady { why, log }
}
