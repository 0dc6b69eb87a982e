//! The real cluster a real-cluster suite runs against: a kubeconfig's, or envtest's.

use kube::config::{KubeConfigOptions, Kubeconfig};

#[cfg(feature = "envtest")]
pub use super::crds::read_crd;
pub use super::crds::{ClusterError, fit_crd, install_crds, uninstall_crds};
pub use super::version::{CrdFeature, ServerVersion, server_version};

/// The environment variable naming a kubeconfig of a real cluster for the suites.
pub const KUBECONFIG_VARIABLE: &str = "CRDGEN_E2E_KUBECONFIG";

/// The environment variable that turns a skip into a failure: set (to anything but
/// `0` or `false`) where a real control plane must be at hand, as in a project's CI
/// that installs envtest's binaries, so that a CI which lost them goes red, not green.
pub const REQUIRED_VARIABLE: &str = "CRDGEN_E2E_REQUIRED";

/// A real cluster to run a suite against.
pub struct Connection {
    /// A client for the calling Tokio runtime.
    pub client: kube::Client,
    /// A kubeconfig file for it, for processes under test.
    pub kubeconfig: std::path::PathBuf,
}

/// The real cluster a suite runs against: the one the kubeconfig named by
/// `CRDGEN_E2E_KUBECONFIG` points at, else (with the `envtest` feature) this test
/// binary's shared [envtest](super::envtest) control plane when its binaries are found,
/// else `None`, after saying on stderr why `what` is skipped. Either way one line on
/// stderr (past the test harness's capture) says where `what` ran.
///
/// # Panics
/// When the kubeconfig cannot be used or a found control plane does not start: a broken
/// test setup, not a skip. And instead of skipping, when [`REQUIRED_VARIABLE`] is set.
pub async fn connect(what: &str) -> Option<Connection> {
    if let Some(path) = std::env::var_os(KUBECONFIG_VARIABLE) {
        let client = from_kubeconfig(&path)
            .await
            .unwrap_or_else(|e| panic!("{KUBECONFIG_VARIABLE}={path:?}: {e}"));
        super::say(&format!(
            "{what}: real-cluster suite ran against {KUBECONFIG_VARIABLE}={path:?}"
        ));
        return Some(Connection {
            client,
            kubeconfig: path.into(),
        });
    }
    #[cfg(feature = "envtest")]
    {
        use super::envtest;
        match envtest::Binaries::find() {
            Ok(_) => {
                let env = envtest::shared()
                    .await
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let client = env.client().await.unwrap_or_else(|e| panic!("{what}: {e}"));
                let version = client
                    .apiserver_version()
                    .await
                    .map(|v| v.git_version)
                    .unwrap_or_default();
                super::say(&format!(
                    "{what}: real-cluster suite ran against envtest (kube-apiserver {version}, started in {:.1} s)",
                    env.started_in().as_secs_f64()
                ));
                Some(Connection {
                    client,
                    kubeconfig: env.kubeconfig_path().to_owned(),
                })
            }
            Err(missing) => skip(&format!(
                "{what}: skipped: no {KUBECONFIG_VARIABLE}, and {missing}"
            )),
        }
    }
    #[cfg(not(feature = "envtest"))]
    {
        skip(&format!(
            "{what}: skipped: set {KUBECONFIG_VARIABLE} to a kubeconfig, or enable crdgen-runtime's `envtest` feature"
        ))
    }
}

/// Whether [`REQUIRED_VARIABLE`] asks that no suite skip: set to anything but `0` or
/// `false`. Suites that need other tools than a control plane (the Go oracles) read it
/// too.
pub fn required() -> bool {
    std::env::var(REQUIRED_VARIABLE)
        .is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// Says why a suite is skipped, or fails it when [`REQUIRED_VARIABLE`] asks for a real
/// control plane.
fn skip(why: &str) -> Option<Connection> {
    if required() {
        panic!("{REQUIRED_VARIABLE} is set, so a real control plane must be at hand: {why}");
    }
    super::say(why);
    None
}

async fn from_kubeconfig(path: &std::ffi::OsStr) -> Result<kube::Client, String> {
    let kubeconfig = Kubeconfig::read_from(path).map_err(|e| e.to_string())?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    kube::Client::try_from(config).map_err(|e| e.to_string())
}
