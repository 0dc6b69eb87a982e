//! crdgen: the Rust `generate-groups`. It reads Kubernetes API types written in Rust
//! under `<apis>/<group>/<version>/` and generates what an operator needs around them,
//! on the `kube` crate family.
//!
//! Three front ends share one pipeline: the `crdgen` command line, [`Config`] for
//! build.rs, and `--verify-only` for CI drift checks.
//!
//! ```text
//! source::discover → parse → markers → model → generators → emit (OutputSet) → sink
//! ```
//! Everything up to `emit` is pure; only `sink` (and `Config`, for `OUT_DIR`) writes.

pub mod cli;
mod config;
pub mod diag;
mod dns;
pub mod emit;
#[doc(hidden)]
pub mod fuzzing;
mod generators;
mod known;
pub mod markers;
pub mod model;
pub mod naming;
pub mod options;
mod parallel;
mod parse;
mod pipeline;
pub mod run;
pub mod scaffold;
mod scan;
pub mod sink;
mod source;
mod yaml;

pub use config::Config;
pub use known::KubeVersion;
pub use options::Generator;
pub use options::{GroupVersions, HeaderSource, Options};
pub use pipeline::{Error, Files, Generation, generate};
