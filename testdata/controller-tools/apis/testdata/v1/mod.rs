//! controller-tools' `pkg/crd/testdata` packages of version v1, written in Rust as a
//! Rust operator author would write their Go (README.md): the CronJob (`cronjob_types.go`),
//! `enum`, `external_docs` and `immutable`.
//!
//! +groupName=testdata.kubebuilder.io

pub mod corev1;
pub mod cronjob_types;
pub mod enum_types;
pub mod external_docs_types;
pub mod immutable_types;

pub use cronjob_types::*;
pub use enum_types::*;
pub use external_docs_types::*;
pub use immutable_types::*;
