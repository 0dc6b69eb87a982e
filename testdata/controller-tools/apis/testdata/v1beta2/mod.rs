//! controller-tools' `pkg/crd/testdata` packages of version v1beta2: `deprecated` (the
//! CronJob's v1beta2) and `multiple_versions/v1beta2`.
//!
//! +groupName=testdata.kubebuilder.io

pub mod deprecated_types;
pub mod versioned_types;

pub use deprecated_types::*;
pub use versioned_types::*;
