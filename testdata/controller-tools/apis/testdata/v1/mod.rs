//! controller-tools' `pkg/crd/testdata` CronJob (`cronjob_types.go`), written in Rust
//! as a Rust operator author would write its Go: the cases ported so far (README.md).
//!
//! +groupName=testdata.kubebuilder.io

pub mod cronjob_types;

pub use cronjob_types::*;
