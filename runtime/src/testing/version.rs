//! The Kubernetes version of a real cluster, and what of a CRD each version has: the
//! real-cluster suites read it to leave out, saying so, what their server lacks.

/// The Kubernetes version a cluster runs, for suites whose expectations follow it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerVersion {
    /// The minor version: `35` for 1.35; 0 for a build from source older than 1.31,
    /// which names no version at all.
    pub minor: u32,
    /// What the server calls itself, for messages.
    pub git_version: String,
}

/// What a CRD may hold that an older apiserver lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CrdFeature {
    /// `selectableFields` of a version (field selectors on custom resources).
    SelectableFields,
    /// `optionalOldSelf` of a rule: a transition rule that also runs on creates.
    OptionalOldSelf,
    /// Validation ratcheting: a failing rule or bound passes where the value is
    /// unchanged.
    Ratcheting,
}

impl CrdFeature {
    /// The first release that has it on by default (kubernetes/apiextensions-apiserver's
    /// `pkg/features`: `CRDValidationRatcheting` beta in 1.30, which `optionalOldSelf`
    /// also needs; `CustomResourceFieldSelectors` beta in 1.31).
    pub fn since_minor(self) -> u32 {
        match self {
            CrdFeature::OptionalOldSelf | CrdFeature::Ratcheting => 30,
            CrdFeature::SelectableFields => 31,
        }
    }

    /// Its name in a CRD.
    pub fn name(self) -> &'static str {
        match self {
            CrdFeature::SelectableFields => "selectableFields",
            CrdFeature::OptionalOldSelf => "optionalOldSelf",
            CrdFeature::Ratcheting => "validation ratcheting",
        }
    }
}

impl ServerVersion {
    /// Whether the server has `feature`. A build from source that names no version is
    /// older than 1.31, and is taken as the oldest the suites run on, 1.28.
    pub fn has(&self, feature: CrdFeature) -> bool {
        let minor = match self.minor {
            0 => 28,
            minor => minor,
        };
        minor >= feature.since_minor()
    }
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

    #[test]
    fn features_come_with_their_release_and_a_nameless_build_is_taken_as_1_28() {
        let at = |minor| ServerVersion {
            minor,
            git_version: String::new(),
        };
        assert!(!at(28).has(CrdFeature::OptionalOldSelf));
        assert!(at(30).has(CrdFeature::OptionalOldSelf));
        assert!(!at(30).has(CrdFeature::SelectableFields));
        assert!(at(31).has(CrdFeature::SelectableFields));
        assert!(!at(0).has(CrdFeature::Ratcheting));
    }
}
