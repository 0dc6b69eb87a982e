//! Kubernetes' own rules, as k8s.io/apimachinery writes them, in the one place both
//! crdgen and crdgen-runtime read them from: crdgen checks the names in API types
//! against them before the apiserver would refuse a CRD, and the runtime's in-memory API
//! server answers with them as the apiserver does.

#![deny(missing_docs)]

pub mod cel;
pub mod content;
pub mod names;

/// The group of an `apiVersion` (`""` for the core group's `v1`): apimachinery's
/// `ParseGroupVersion`, without the allocations of parsing one (controllers call it on
/// every owned object's event).
pub fn group_of(api_version: &str) -> &str {
    api_version.split_once('/').map_or("", |(group, _)| group)
}

#[cfg(test)]
mod tests {
    use super::group_of;

    #[test]
    fn the_group_is_before_the_slash() {
        assert_eq!(group_of("apps/v1"), "apps");
        assert_eq!(group_of("bcrds.example.com/v1alpha1"), "bcrds.example.com");
        assert_eq!(group_of("v1"), "");
    }
}
