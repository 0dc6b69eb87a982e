//! The real cluster a real-cluster suite runs against: a kubeconfig's, or envtest's.

use kube::config::{KubeConfigOptions, Kubeconfig};

#[cfg(feature = "envtest")]
pub use super::crds::read_crd;
pub use super::crds::{ClusterError, install_crds, uninstall_crds};

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
        say(&format!(
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
                say(&format!(
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

/// The Kubernetes version a cluster runs, for suites whose expectations follow it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerVersion {
    /// The minor version: `35` for 1.35; 0 for a build from source older than 1.31,
    /// which names no version at all.
    pub minor: u32,
    /// What the server calls itself, for messages.
    pub git_version: String,
}

/// The version of the cluster `client` talks to. A release says it in `minor` ("35",
/// or "35+" for a vendor's build) and `gitVersion` ("v1.35.2"); a kube-apiserver built
/// from source without release stamping says `v0.0.0-master+…` and no minor, and from
/// 1.31 on gives its emulation version, the release it is or is becoming.
///
/// # Panics
/// When the server does not answer `/version`.
pub async fn server_version(client: &kube::Client) -> ServerVersion {
    let info = client
        .apiserver_version()
        .await
        .unwrap_or_else(|e| panic!("the apiserver's /version: {e}"));
    version_of(&info)
}

fn version_of(info: &k8s_openapi::apimachinery::pkg::version::Info) -> ServerVersion {
    let digits = |s: &str| -> Option<u32> {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        s[..end].parse().ok()
    };
    let minor = digits(&info.minor)
        .or_else(|| info.git_version.strip_prefix("v1.").and_then(digits))
        .or_else(|| info.emulation_minor.as_deref().and_then(digits))
        .unwrap_or(0);
    ServerVersion {
        minor,
        git_version: info.git_version.clone(),
    }
}

/// Says why a suite is skipped, or fails it when [`REQUIRED_VARIABLE`] asks for a real
/// control plane.
fn skip(why: &str) -> Option<Connection> {
    let required = std::env::var(REQUIRED_VARIABLE)
        .is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"));
    if required {
        panic!("{REQUIRED_VARIABLE} is set, so a real control plane must be at hand: {why}");
    }
    say(why);
    None
}

async fn from_kubeconfig(path: &std::ffi::OsStr) -> Result<kube::Client, String> {
    let kubeconfig = Kubeconfig::read_from(path).map_err(|e| e.to_string())?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    kube::Client::try_from(config).map_err(|e| e.to_string())
}

/// Writes a line to stderr past the test harness's capture, so that a run's log says
/// which suites ran where, and which were skipped.
fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::version::Info;

    fn minor(minor: &str, git_version: &str, emulation_minor: Option<&str>) -> u32 {
        version_of(&Info {
            minor: minor.into(),
            git_version: git_version.into(),
            emulation_minor: emulation_minor.map(Into::into),
            ..Info::default()
        })
        .minor
    }

    #[test]
    fn the_version_is_read_from_releases_vendor_builds_and_source_builds() {
        assert_eq!(minor("35", "v1.35.0", Some("35")), 35);
        assert_eq!(minor("33+", "v1.33.4-eks-1234", None), 33);
        assert_eq!(minor("", "v1.36.1", None), 36);
        // Builds from source: from 1.31 with the emulation version, before it with none.
        assert_eq!(minor("", "v0.0.0-master+e19964183377", Some("38")), 38);
        assert_eq!(minor("", "v0.0.0-master+e19964183377", None), 0);
    }
}
