//! Where the control plane's binaries are, found the way controller-runtime's envtest
//! finds them: `TEST_ASSET_KUBE_APISERVER` and `TEST_ASSET_ETCD` name each binary, else
//! both are in `KUBEBUILDER_ASSETS`, else in `/usr/local/kubebuilder/bin`.

use std::path::{Path, PathBuf};

use super::EnvtestError;

/// The directory setup-envtest users get when they set nothing.
const DEFAULT_ASSETS: &str = "/usr/local/kubebuilder/bin";

/// The two binaries a control plane needs.
#[derive(Debug, Clone)]
pub struct Binaries {
    /// The `kube-apiserver` binary.
    pub kube_apiserver: PathBuf,
    /// The `etcd` binary.
    pub etcd: PathBuf,
}

impl Binaries {
    /// Finds both from the environment, or says where each was looked for.
    ///
    /// # Errors
    ///
    /// [`EnvtestError::BinaryNotFound`], naming where each binary was looked for.
    pub fn find() -> Result<Binaries, EnvtestError> {
        Binaries::find_in(|name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
    }

    /// [`find`](Self::find) with the environment given as a lookup, so the rules can be
    /// tested without touching the process environment.
    ///
    /// # Errors
    ///
    /// [`EnvtestError::BinaryNotFound`], naming where each binary was looked for.
    pub fn find_in(env: impl Fn(&str) -> Option<PathBuf>) -> Result<Binaries, EnvtestError> {
        let assets = env("KUBEBUILDER_ASSETS");
        let one = |name: &str, variable: &str| {
            let mut searched = Vec::new();
            let candidates = env(variable)
                .map(|p| (p, variable.to_owned()))
                .into_iter()
                .chain(
                    assets
                        .as_ref()
                        .map(|d| (d.join(name), "KUBEBUILDER_ASSETS".to_owned())),
                )
                .chain([(Path::new(DEFAULT_ASSETS).join(name), "default".to_owned())]);
            for (path, from) in candidates {
                if is_executable(&path) {
                    return Ok(path);
                }
                searched.push(format!("{} ({from})", path.display()));
            }
            Err(EnvtestError::BinaryNotFound {
                name: name.to_owned(),
                searched,
            })
        };
        Ok(Binaries {
            kube_apiserver: one("kube-apiserver", "TEST_ASSET_KUBE_APISERVER")?,
            etcd: one("etcd", "TEST_ASSET_ETCD")?,
        })
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
