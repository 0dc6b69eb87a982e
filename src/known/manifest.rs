//! The Kubernetes version a crate builds k8s-openapi for, read as cargo resolves it: the
//! `v1_NN` feature of k8s-openapi in `cargo tree` of the nearest Cargo.toml (through
//! workspace inheritance, `latest`, and features other crates turn on), on the host
//! platform. The command line's default, as build.rs's is k8s-openapi's own word.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::version::KubeVersion;

/// Where the version was read, for the line that says which was chosen.
#[derive(Debug, PartialEq)]
pub struct Found {
    pub version: KubeVersion,
    pub feature: String,
    pub manifest: PathBuf,
}

/// The nearest Cargo.toml at or above `dir`.
pub fn nearest(dir: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(dir).ok()?;
    dir.ancestors()
        .map(|d| d.join("Cargo.toml"))
        .find(|m| m.is_file())
}

/// What decides [`kube_version`] for the crate of the nearest Cargo.toml at or above
/// `dir`, reduced to 64 bits: the bytes of that manifest, of every Cargo.toml above it up
/// to the Cargo.lock (a workspace's, whose dependencies and features its members share),
/// and of the lock. A run with nothing to generate compares this, not cargo's answer, so
/// it never waits for `cargo tree`.
pub fn fingerprint(dir: &Path) -> u64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    if let Some(manifest) = nearest(dir) {
        for dir in manifest.ancestors().skip(1) {
            let toml = dir.join("Cargo.toml");
            (&toml, std::fs::read(&toml).ok()).hash(&mut hasher);
            if let Ok(lock) = std::fs::read(dir.join("Cargo.lock")) {
                lock.hash(&mut hasher);
                break;
            }
        }
    }
    hasher.finish()
}

/// The version the crate of `manifest` builds k8s-openapi for: `Ok(None)` when nothing
/// it builds depends on k8s-openapi, `Err` when cargo cannot say (it is not installed,
/// the crate has no Cargo.lock yet or one that is not current, or its dependencies are
/// not downloaded). Cargo reads the lock as it is (`--locked --offline`): nothing is
/// written or fetched.
pub fn kube_version(manifest: &Path) -> Result<Option<Found>, String> {
    let has_lock = manifest
        .ancestors()
        .skip(1)
        .any(|dir| dir.join("Cargo.lock").is_file());
    if !has_lock {
        return Err(format!(
            "{} has no Cargo.lock yet: build it once",
            manifest.display()
        ));
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(&cargo)
        .args(["tree", "--offline", "--locked", "--invert", "k8s-openapi"])
        .args(["--depth", "0", "--prefix", "none", "--format", "{p}|{f}"])
        .arg("--manifest-path")
        .arg(manifest)
        .output()
        .map_err(|e| format!("running `cargo tree`: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        if stderr.contains("did not match any packages") {
            return Ok(None);
        }
        let error = stderr
            .lines()
            .find(|l| l.starts_with("error"))
            .unwrap_or("it failed");
        return Err(format!("`cargo tree` of {}: {error}", manifest.display()));
    }
    let tree = String::from_utf8_lossy(&output.stdout);
    Ok(resolved_feature(&tree)?.map(|(version, feature)| Found {
        version,
        feature,
        manifest: manifest.to_owned(),
    }))
}

/// The `v1_NN` feature in `cargo tree`'s `{p}|{f}` line of k8s-openapi.
fn resolved_feature(tree: &str) -> Result<Option<(KubeVersion, String)>, String> {
    let features: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_once('|'))
        .flat_map(|(_, features)| features.split(','))
        .filter(|f| f.starts_with("v1_"))
        .collect();
    match features.as_slice() {
        [] => Ok(None),
        [feature] => {
            let version: KubeVersion = feature.replacen('_', ".", 1).parse()?;
            Ok(Some((version, (*feature).to_owned())))
        }
        several => Err(format!(
            "k8s-openapi is built with several versions ({}), which it refuses",
            several.join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_k8s_openapis_resolved_feature() {
        assert_eq!(
            resolved_feature("k8s-openapi v0.29.0|latest,std,v1_37\n").unwrap(),
            Some(("1.37".parse().unwrap(), "v1_37".to_owned()))
        );
        assert_eq!(resolved_feature("k8s-openapi v0.29.0|std\n").unwrap(), None);
        assert!(resolved_feature("k8s-openapi v0.29.0|v1_33,v1_34\n").is_err());
    }
}
