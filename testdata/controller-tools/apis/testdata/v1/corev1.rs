//! Stands for Go's `k8s.io/api/core/v1` in `aliasFromPackage`: an alias declared in
//! another module (k8s-openapi has no such alias; it writes the field `String`).

/// IPFamilyPolicy represents the dual-stack-ness requested or required by a Service
pub type IPFamilyPolicyType = String;
