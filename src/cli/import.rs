//! `crdgen import`: the command line of [`crate::import`].

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::diag::{Diagnostic, Sources};
use crate::import::{ImportOptions, Input, import};
use crate::options::HeaderSource;

/// Turn CRDs into an API package crdgen reads: Rust types with every validation as
/// markers, generating the same CRDs back.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  crdgen import config/crds/\n  crdgen import --from-cluster certificates.cert-manager.io issuers.cert-manager.io\n  kubectl get crd certificates.cert-manager.io -o yaml | crdgen import -\n\nEach run generates what it wrote back into CRDs and warns (E0025) of every schema path that does not come back the same."
)]
pub struct Import {
    /// CRD files (YAML or JSON, any number of documents each), directories of them, or
    /// `-` for standard input.
    #[arg(value_name = "CRDS", required_unless_present = "from_cluster")]
    inputs: Vec<PathBuf>,

    /// Read these CRDs (PLURAL.GROUP, as `kubectl get crd` names them) from the cluster,
    /// found as kubectl finds it: KUBECONFIG, else ~/.kube/config, else in-cluster.
    #[arg(long, value_name = "NAME", num_args = 1..)]
    from_cluster: Vec<String>,

    /// The kubeconfig context --from-cluster reads through [default: the current one].
    #[arg(long, value_name = "CONTEXT", requires = "from_cluster")]
    context: Option<String>,

    /// Where the packages go: APIS_PKG/<group>/<version>/, relative to --output-base.
    #[arg(long, value_name = "DIR", default_value = "pkg/apis")]
    apis_pkg: PathBuf,

    /// Directory APIS_PKG is relative to.
    #[arg(long, value_name = "DIR", default_value = ".")]
    output_base: PathBuf,

    /// File whose text (Rust comments) heads every written file [default: crdgen's own].
    #[arg(long, value_name = "FILE")]
    boilerplate: Option<PathBuf>,

    /// Replace YEAR in the boilerplate with this.
    #[arg(long, value_name = "YEAR")]
    year: Option<String>,

    /// Also write the API reference of what is imported here, relative to
    /// --output-base, as `generate-groups docs` writes it [default: docs/api when that
    /// directory exists, else none].
    #[arg(long, value_name = "DIR")]
    docs_dir: Option<PathBuf>,
}

pub fn run(args: &Import) -> ExitCode {
    let mut inputs: Vec<Input> = args
        .inputs
        .iter()
        .map(|p| match p.to_str() {
            Some("-") => Input::Stdin,
            _ => Input::Path(p.clone()),
        })
        .collect();
    if !args.from_cluster.is_empty() {
        match from_cluster(&args.from_cluster, args.context.as_deref()) {
            Ok(read) => inputs.extend(read),
            Err(errors) => {
                for e in errors {
                    eprint!("{}", e.render(&Sources::default()));
                }
                return ExitCode::FAILURE;
            }
        }
    }
    let opts = ImportOptions {
        inputs,
        output_base: args.output_base.clone(),
        apis_pkg: args.apis_pkg.clone(),
        header: args
            .boilerplate
            .clone()
            .map_or(HeaderSource::Default, HeaderSource::File),
        year: args.year.clone(),
        docs_dir: args.docs_dir.clone().or_else(|| {
            let default = crate::Generator::Docs.default_dir();
            args.output_base
                .join(default)
                .is_dir()
                .then(|| default.into())
        }),
    };
    match import(&opts) {
        Ok(imported) => {
            eprint!("{}", imported.warnings);
            let w = &imported.written;
            eprintln!(
                "crdgen: {} written, {} unchanged, {} removed",
                w.written, w.unchanged, w.removed
            );
            // The types' version is what generate-groups must write the CRDs for.
            let version = match imported.kube_version {
                Some(version) => {
                    eprintln!(
                        "crdgen: the Kubernetes types are written as in {version}: build with k8s-openapi's `v1_{}` feature",
                        version.minor()
                    );
                    format!(" --kube-version {version}")
                }
                None => String::new(),
            };
            eprintln!(
                "crdgen: declare the groups in {}/mod.rs, then: crdgen generate-groups all pkg/client {} \"{}\"{version}",
                args.apis_pkg.display(),
                args.apis_pkg.display(),
                imported.groups.join(" ")
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(feature = "cluster")]
fn from_cluster(names: &[String], context: Option<&str>) -> Result<Vec<Input>, Vec<Diagnostic>> {
    super::cluster::read(names, context)
}

/// Those of the CRDs `names` the cluster has, as (the name shown, their JSON): what
/// `crdgen compat --from-cluster` compares with.
#[cfg(feature = "cluster")]
pub(super) fn from_cluster_present(
    names: &[String],
    context: Option<&str>,
) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    super::cluster::read_present(names, context)
}

#[cfg(not(feature = "cluster"))]
fn from_cluster(_: &[String], _: Option<&str>) -> Result<Vec<Input>, Vec<Diagnostic>> {
    Err(vec![without_cluster()])
}

#[cfg(not(feature = "cluster"))]
pub(super) fn from_cluster_present(
    _: &[String],
    _: Option<&str>,
) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    Err(vec![without_cluster()])
}

#[cfg(not(feature = "cluster"))]
fn without_cluster() -> Diagnostic {
    Diagnostic::error(
        crate::diag::Code::Cluster,
        "this crdgen was built without its `cluster` feature, which --from-cluster needs",
    )
    .hint("install crdgen with its default features, or save `kubectl get crd NAME -o yaml` to a file and give that")
}
