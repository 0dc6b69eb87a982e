//! The Kubernetes version whose types a CRD embeds: one of k8s-openapi's `v1_NN`
//! features, written `1.NN`.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

/// A Kubernetes minor version (`1.33`): whose types (k8s-openapi's) the API types
/// embed, and so which schemas their CRDs carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    minor: u16,
}

impl KubeVersion {
    /// The newest version crdgen has the types of: what k8s-openapi's `latest` is. A
    /// constant, so that a run that generates nothing never reads the type data (a test
    /// holds it to the data).
    pub const fn latest() -> KubeVersion {
        KubeVersion { minor: 37 }
    }

    /// The minor version: 33 for 1.33.
    pub const fn minor(self) -> u16 {
        self.minor
    }

    /// k8s-openapi's build script tells dependents' build scripts its version as
    /// `DEP_K8S_OPENAPI_<crate version>_VERSION`: `0x00_01_NN_00`, in decimal.
    pub fn of_build_metadata(value: &str) -> Option<KubeVersion> {
        let value = value.trim();
        let n = match value.strip_prefix("0x") {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => value.parse().ok()?,
        };
        (n >> 16 == 1).then_some(KubeVersion {
            minor: ((n >> 8) & 0xff) as u16,
        })
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

impl FromStr for KubeVersion {
    type Err = String;

    /// `1.33` (also `v1.33`, and `1.33.2`: patch releases do not change the API).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || format!("`{text}` is not a Kubernetes version such as 1.33");
        let rest = text.strip_prefix('v').unwrap_or(text);
        let rest = rest.strip_prefix("1.").ok_or_else(bad)?;
        let minor = rest.split('.').next().unwrap_or_default();
        let minor: u16 = minor.parse().map_err(|_| bad())?;
        Ok(KubeVersion { minor })
    }
}

/// `1.33-1.35,1.37`: the versions a fact holds in.
#[derive(Deserialize)]
#[serde(transparent)]
pub struct Versions(String);

impl Versions {
    pub fn contains(&self, version: KubeVersion) -> bool {
        self.0.split(',').any(|run| {
            let (from, to) = run.split_once('-').unwrap_or((run, run));
            match (from.parse::<KubeVersion>(), to.parse::<KubeVersion>()) {
                (Ok(from), Ok(to)) => (from..=to).contains(&version),
                _ => false,
            }
        })
    }
}

impl std::fmt::Display for Versions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.replace(',', ", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_as_kubernetes_writes_them() {
        let v: KubeVersion = "1.34".parse().unwrap();
        assert_eq!(v.to_string(), "1.34");
        assert_eq!("v1.34.2".parse::<KubeVersion>(), Ok(v));
        assert!("2.1".parse::<KubeVersion>().is_err());
        assert!("1.x".parse::<KubeVersion>().is_err());
        // What k8s-openapi 0.29's build script prints for v1_34: 0x00_01_22_00.
        assert_eq!(KubeVersion::of_build_metadata("74240"), Some(v));
        assert_eq!(KubeVersion::of_build_metadata("0x12200"), Some(v));
        assert_eq!(KubeVersion::of_build_metadata("12"), None);
    }

    #[test]
    fn version_runs_hold_their_versions_only() {
        let runs: Versions = serde_json::from_str("\"1.33-1.34,1.36\"").unwrap();
        let has = |v: &str| runs.contains(v.parse().unwrap());
        assert!(has("1.33") && has("1.34") && has("1.36"));
        assert!(!has("1.35") && !has("1.37") && !has("1.32"));
        assert_eq!(runs.to_string(), "1.33-1.34, 1.36");
    }
}
