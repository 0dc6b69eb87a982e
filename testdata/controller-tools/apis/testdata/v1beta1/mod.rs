//! controller-tools' `pkg/crd/testdata` packages of version v1beta1: `unserved` (the
//! CronJob's v1beta1), `job`, `oneof`, and `multiple_versions/v1beta1`.
//!
//! +groupName=testdata.kubebuilder.io

pub mod job_types;
pub mod multiple_versions;
pub mod oneof_types;
pub mod unserved_types;
pub mod versioned_types;

pub use job_types::*;
pub use oneof_types::*;
pub use unserved_types::*;
pub use versioned_types::*;
