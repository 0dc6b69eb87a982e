//! crdgen: the Rust `generate-groups`. It reads Kubernetes API types written in Rust
//! under `<apis>/<group>/<version>/` and generates what an operator needs around them,
//! on the `kube` crate family.
//!
//! Three front ends share one pipeline: the `crdgen` command line, [`Config`] for
//! build.rs, and `--verify-only` for CI drift checks ([`generate_groups`] with
//! [`Mode::Verify`]).
//!
//! ```text
//! source::discover → parse → markers → model → generators → emit (OutputSet) → sink
//! ```
//! Everything up to `emit` is pure; only `sink` (and `Config`, for `OUT_DIR`) writes.
//!
//! The library is what build.rs and tools need: [`Config`], [`Options`] and the
//! [`Generator`]s, [`generate`] and its [`Generation`], and the [`diag`]nostics every
//! failure carries ([`Error`]). Everything else is the command line's and stays inside.

#![deny(missing_docs)]
// Without the `cli` feature (a build script's crdgen), what only the commands reach
// (`import`, `init`, `explain`) is built but never called.
#![cfg_attr(not(feature = "cli"), allow(dead_code, unused_imports))]

// The integration tests' expected files, which `CRDGEN_BLESS=1` rewrites: the unit
// tests that pin data (the CEL oracle's, the import's index) share them.
#[cfg(test)]
#[path = "../tests/common/bless.rs"]
mod bless;
#[cfg(feature = "cli")]
mod cli;
mod compat;
mod config;
pub mod diag;
mod emit;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod generators;
mod import;
mod known;
mod markers;
mod model;
mod naming;
mod options;
mod parallel;
mod parse;
mod pipeline;
mod prose;
mod run;
mod scaffold;
mod scan;
mod sink;
mod source;
mod yaml;

pub use config::Config;
pub use known::KubeVersion;
pub use naming::STAMP_FILE;
pub use options::{Generator, GroupVersions, HeaderSource, Options, WebhookService};
pub use pipeline::{Error, Files, Generation, generate};
pub use run::{
    CompatCheck, CompatReport, Mode, Outcome, Report, generate_groups, generate_groups_checked,
};
pub use sink::Written;

/// The `crdgen` command line, for the binary: parses the process's arguments, runs
/// the command and returns its exit code. Not an API.
#[doc(hidden)]
#[cfg(feature = "cli")]
pub fn command_line() -> std::process::ExitCode {
    cli::main()
}
