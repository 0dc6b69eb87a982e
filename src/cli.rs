//! The `crdgen` command line. Exit codes: 0 success, 1 drift found or a mistake in the
//! input, 2 a usage error.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::Error;
use crate::naming::ModulePath;
use crate::options::{Generator, GroupVersions, HeaderSource, Options, parse_plural_exceptions};
use crate::run::{self, Mode, Outcome};

#[cfg(feature = "cluster")]
mod cluster;
mod compat;
mod import;

const USAGE_ERROR: u8 = 2;

#[derive(Parser)]
#[command(
    name = "crdgen",
    version,
    about = "Generate Kubernetes operator code for Rust API types, on the kube crate family",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process: boxing the larger variant would save nothing worth having.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Generate code for API groups, like k8s.io/code-generator's generate-groups.sh.
    GenerateGroups(GenerateGroups),
    /// Turn CRDs (files, directories, `-`) into Rust API types with every validation as
    /// markers, which generate the same CRDs back.
    Import(import::Import),
    /// Compare CRDs as released with CRDs now and report every change that would
    /// break a user: fields removed, bounds tightened, versions dropped…
    Compat(compat::Compat),
    /// Scaffold a new operator project that builds, runs and is tested, like kubebuilder init.
    Init(Init),
    /// Add to an operator project made by `crdgen init`.
    #[command(subcommand)]
    Create(Create),
    /// Print the reference of every marker crdgen reads, as Markdown (what
    /// docs/src/reference/markers.md holds), like controller-gen's marker help.
    Markers,
    /// Explain a diagnostic code (`crdgen explain E0007`): what it means, an example and
    /// the fix, like `rustc --explain`; without a code, list them all.
    Explain {
        /// The code, as diagnostics print it: E0007.
        code: Option<String>,
    },
}

/// The API a scaffolded kind belongs to.
#[derive(Args)]
struct ApiArgs {
    /// The API group's DNS name, e.g. bcrds.example.com.
    #[arg(long)]
    group: String,
    /// The API version, e.g. v1alpha1.
    #[arg(long)]
    version: String,
    /// The kind, e.g. Example.
    #[arg(long)]
    kind: String,
    /// Namespaced kind (the default).
    #[arg(long, conflicts_with = "cluster")]
    namespaced: bool,
    /// Cluster-scoped kind.
    #[arg(long)]
    cluster: bool,
}

impl ApiArgs {
    fn api(&self) -> crate::scaffold::Api {
        crate::scaffold::Api {
            group: self.group.clone(),
            version: self.version.clone(),
            kind: self.kind.clone(),
            namespaced: !self.cluster,
        }
    }
}

#[derive(Args)]
struct Init {
    /// The project directory to create (its name names the crate).
    #[arg(value_name = "NAME")]
    name: PathBuf,
    #[command(flatten)]
    api: ApiArgs,
    /// Where the project takes crdgen-runtime from: path:DIR, git:URL or version:X
    /// [default: version:<this crdgen's version>, the published crate it generates for].
    #[arg(long, value_name = "SOURCE", conflicts_with = "runtime_path")]
    runtime: Option<String>,
    /// Take crdgen-runtime from this directory (a checkout's `runtime/`): for working on
    /// crdgen itself; the same as `--runtime path:DIR`.
    #[arg(long, value_name = "DIR", env = "CRDGEN_RUNTIME_PATH")]
    runtime_path: Option<PathBuf>,
    /// Make the operator share the kind's objects among its replicas (a controller
    /// ring: each replica reconciles and caches its shard) rather than elect one
    /// leader, and deploy three replicas; the operator's `--sharding` flag switches it.
    #[arg(long)]
    sharding: bool,
}

#[derive(Subcommand)]
enum Create {
    /// Add a kind (types, controller, test) and regenerate, like kubebuilder create api.
    Api {
        #[command(flatten)]
        api: ApiArgs,
        /// The project's directory.
        #[arg(long, value_name = "DIR", default_value = ".")]
        dir: PathBuf,
    },
    /// Add a kind's webhooks (handlers with their markers, server wiring, manifests,
    /// tests) and regenerate, like kubebuilder create webhook.
    Webhook {
        #[command(flatten)]
        api: ApiArgs,
        /// A mutating webhook that sets defaults.
        #[arg(long)]
        defaulting: bool,
        /// A validating webhook for create, update and delete.
        #[arg(long)]
        programmatic_validation: bool,
        /// Conversion between the kind's versions through this version (its hub).
        #[arg(long)]
        conversion: bool,
        /// The project's directory.
        #[arg(long, value_name = "DIR", default_value = ".")]
        dir: PathBuf,
    },
}

fn scaffolded(result: Result<Vec<PathBuf>, Error>, root: &std::path::Path) -> ExitCode {
    match result {
        Ok(files) => {
            for file in files {
                eprintln!("  {}", root.join(file).display());
            }
            ExitCode::SUCCESS
        }
        Err(e @ Error::Usage(_)) => {
            eprintln!("{e}");
            ExitCode::from(USAGE_ERROR)
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

const GENERATE_GROUPS_HELP: &str = "\
Reads the API types under APIS_PKG/<group>/<version>/ and writes generated Rust under
OUTPUT_PKG, which crdgen owns: every run rewrites it to exactly what the selected
generators produce and removes generated files that are no longer produced. Add one
line to your crate to compile it, e.g. `pub mod client;` in pkg/mod.rs.

Generators:
  register   impl kube::Resource, GROUP/VERSION/API_VERSION constants and Kind::new
             for marker-style kinds (kube-derive kinds already have them)
  clone      impl Clone for API types that do not derive it (alias: deepcopy)
  applyconfiguration
             apply configurations: every field optional, only what is set sent
             (with register and clone)
  client     a typed clientset on kube::Api (with register, clone and
             applyconfiguration)
  lister     listers over informer caches (with register)
  informer   shared informers and their factory (with lister, register, clone)
  crd        CustomResourceDefinition YAML under --crd-dir
  rbac       role.yaml under --rbac-dir from +kubebuilder:rbac markers in APIS_PKG
             and --paths
  webhook    manifests.yaml under --webhook-dir from +kubebuilder:webhook markers
             in APIS_PKG and --paths
  docs       the API reference under --docs-dir: a Markdown page per group version,
             SUMMARY.md and one self-contained index.html, every validation in
             words; the samples under config/samples shown and checked
  all        every generator above; docs only when --docs-dir is given or
             docs/api exists

Examples:
  crdgen generate-groups all pkg/client pkg/apis bcrds:v1alpha1
  crdgen generate-groups register,clone pkg/client pkg/apis \"bcrds:v1alpha1,v1beta1 other:v1\" \\
      --output-base . --boilerplate hack/boilerplate.rs.txt
  crdgen generate-groups all pkg/client pkg/apis bcrds:v1alpha1 --verify-only

Exit status: 0 on success, 1 when --verify-only finds drift or the input has mistakes,
2 on a usage error.";

#[derive(Args)]
#[command(after_long_help = GENERATE_GROUPS_HELP, after_help = "Run with --help for generators, examples and exit codes.")]
struct GenerateGroups {
    /// Comma-separated generators: register, clone (alias deepcopy), applyconfiguration,
    /// client, lister, informer, crd, rbac, webhook, docs, or all.
    #[arg(value_name = "GENERATORS", value_parser = Generator::parse_list)]
    generators: BTreeSet<Generator>,

    /// Directory crdgen writes into and owns, relative to --output-base (e.g. pkg/client).
    #[arg(value_name = "OUTPUT_PKG")]
    output_pkg: PathBuf,

    /// Directory of the API types, relative to --output-base (e.g. pkg/apis).
    #[arg(value_name = "APIS_PKG")]
    apis_pkg: PathBuf,

    /// Groups and versions: "group:v1alpha1,v1beta1 other:v1"; a group is a directory
    /// under APIS_PKG.
    #[arg(value_name = "GROUPS_VERSIONS", value_parser = parse_groups)]
    groups: GroupsArg,

    /// Directory OUTPUT_PKG and APIS_PKG are relative to.
    #[arg(long, value_name = "DIR", default_value = ".")]
    output_base: PathBuf,

    /// File whose text (Rust comments) heads every generated file [default: crdgen's own].
    #[arg(long, value_name = "FILE", visible_alias = "go-header-file")]
    boilerplate: Option<PathBuf>,

    /// Replace YEAR in the boilerplate with this; without it YEAR stays as written, so
    /// output does not change on New Year's day.
    #[arg(long, value_name = "YEAR")]
    year: Option<String>,

    /// Write nothing; print a unified diff of every file that would change and exit 1
    /// if there is any.
    #[arg(long, visible_alias = "verify")]
    verify_only: bool,

    /// Also check the CRDs the run writes against those of a git revision (`main`) or
    /// a directory, and fail on a change that would break users (see `crdgen compat`).
    #[arg(long, value_name = "REVISION|DIR")]
    compat: Option<String>,

    /// The compatibility check's configuration [default: crdgen-compat.yaml in
    /// --output-base, when there is one].
    #[arg(long, value_name = "FILE", requires = "compat")]
    compat_config: Option<PathBuf>,

    /// Write the compatibility check's findings as JSON on standard output.
    #[arg(long, requires = "compat")]
    compat_json: bool,

    /// Plurals that the English rule gets wrong: Kind:plural,Kind:plural.
    #[arg(long, value_name = "EXCEPTIONS", value_parser = parse_plural_exceptions)]
    plural_exceptions: Option<BTreeMap<String, String>>,

    /// Rust module path of APIS_PKG [default: from the directory, e.g. crate::pkg::apis].
    #[arg(long, value_name = "PATH")]
    apis_module: Option<String>,

    /// Rust module path of OUTPUT_PKG [default: from the directory, e.g. crate::pkg::client].
    #[arg(long, value_name = "PATH")]
    output_module: Option<String>,

    /// Directory for CRD YAML (one `<group>_<plural>.yaml` per kind), relative to --output-base.
    #[arg(long, value_name = "DIR", default_value = Generator::Crd.default_dir())]
    crd_dir: PathBuf,

    /// Cut descriptions in CRD schemas to this many characters.
    #[arg(long, value_name = "N")]
    max_description_len: Option<usize>,

    /// The Kubernetes version whose types (k8s-openapi's) the API types embed [default:
    /// the k8s-openapi feature (v1_33 is 1.33) the nearest Cargo.toml above APIS_PKG builds
    /// with, as cargo resolves it; else 1.37, what k8s-openapi's `latest` is;
    /// crdgen has 1.33 to 1.37].
    #[arg(long, value_name = "1.NN", value_parser = crate::options::parse_kube_version)]
    kube_version: Option<crate::known::KubeVersion>,

    /// Give embedded ObjectMeta schemas (a pod template's `metadata`) name, namespace,
    /// labels, annotations and finalizers, as controller-gen's
    /// `crd:generateEmbeddedObjectMeta=true` does [default: a bare object].
    #[arg(long)]
    generate_embedded_object_meta: bool,

    /// Files and directories to read `+kubebuilder:rbac` and `+kubebuilder:webhook`
    /// markers from besides APIS_PKG, relative to --output-base, comma-separated
    /// [default: src, when there is one].
    #[arg(long = "paths", value_name = "PATHS", value_delimiter = ',')]
    marker_paths: Option<Vec<PathBuf>>,

    /// Directory for the generated role.yaml, relative to --output-base.
    #[arg(long, value_name = "DIR", default_value = Generator::Rbac.default_dir())]
    rbac_dir: PathBuf,

    /// Directory for the generated webhook configurations (manifests.yaml), relative to
    /// --output-base.
    #[arg(long, value_name = "DIR", default_value = Generator::Webhook.default_dir())]
    webhook_dir: PathBuf,

    /// Directory for the API reference (a Markdown page per group version, SUMMARY.md,
    /// index.html), relative to --output-base; giving it runs the docs generator with
    /// `all` [default: docs/api, where `all` runs it when the directory exists].
    #[arg(long, value_name = "DIR")]
    docs_dir: Option<PathBuf>,

    /// The Service the apiserver reaches the webhooks (and conversion) through
    /// [default: system/webhook-service, kustomize's placeholders].
    #[arg(long, value_name = "NAMESPACE/NAME", value_parser = crate::options::parse_namespaced_name)]
    webhook_service: Option<(String, String)>,

    /// The cert-manager Certificate whose CA the webhook configurations and converting
    /// CRDs trust (cert-manager's `inject-ca-from` annotation).
    #[arg(long, value_name = "NAMESPACE/CERTIFICATE", value_parser = crate::options::parse_namespaced_name)]
    inject_ca_from: Option<(String, String)>,

    /// Put before the webhook configurations' names (`my-operator-`, kubebuilder's
    /// kustomize namePrefix), so that two operators in one cluster keep their own
    /// [default: none, controller-gen's names].
    #[arg(long, value_name = "PREFIX", value_parser = parse_name_prefix)]
    webhook_name_prefix: Option<String>,

    /// Name of the generated ClusterRole (and of Roles whose markers name none).
    #[arg(long, value_name = "NAME", default_value = crate::options::DEFAULT_ROLE_NAME)]
    role_name: String,
}

/// A prefix that keeps a configuration's name a DNS subdomain: lowercase letters,
/// digits, `-` and `.`, starting with a letter or digit.
fn parse_name_prefix(prefix: &str) -> Result<String, String> {
    let fits = prefix
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
        && prefix.starts_with(|c: char| c.is_ascii_alphanumeric());
    match fits {
        true => Ok(prefix.to_owned()),
        false => Err(format!(
            "`{prefix}` cannot begin a name: use lowercase letters, digits, `-` and `.`, from a letter or digit"
        )),
    }
}

#[derive(Clone)]
struct GroupsArg(Vec<GroupVersions>);

fn parse_groups(spec: &str) -> Result<GroupsArg, String> {
    GroupVersions::parse_all(spec).map(GroupsArg)
}

fn module_path(
    flag: Option<&str>,
    dir: &std::path::Path,
    name: &str,
) -> Result<ModulePath, String> {
    match flag {
        Some(path) => ModulePath::parse(path).map_err(|e| format!("--{name}: {e}")),
        None => ModulePath::from_dir(dir).map_err(|e| format!("{e}; pass --{name}")),
    }
}

impl GenerateGroups {
    /// Without `--kube-version`, the CRDs follow the k8s-openapi the crate builds, which
    /// cargo is asked for once the run has to generate.
    fn deferred_kube_version(&self, opts: &Options) -> Option<run::Deferred<'_>> {
        if self.kube_version.is_some() || !opts.generators.contains(&Generator::Crd) {
            return None;
        }
        let apis = self.output_base.join(&self.apis_pkg);
        Some(run::Deferred {
            fingerprint: crate::known::manifest::fingerprint(&apis),
            settle: Box::new(move |opts| {
                let said = self.choose_kube_version(opts, &apis)?;
                eprintln!("crdgen: {said}");
                Ok(())
            }),
        })
    }

    /// A run that writes CRDs takes the version the crate of APIS_PKG builds k8s-openapi
    /// for (what the schemas of its Kubernetes types must follow), else the newest; what
    /// it says of its choice.
    fn choose_kube_version(
        &self,
        opts: &mut Options,
        apis: &std::path::Path,
    ) -> Result<String, String> {
        use crate::known::manifest;
        let newest = crate::known::KubeVersion::latest();
        let why = match manifest::nearest(apis).map(|m| (manifest::kube_version(&m), m)) {
            None => format!("no Cargo.toml at or above {}", apis.display()),
            Some((Ok(Some(found)), _)) if found.version.is_supported() => {
                opts.kube_version = found.version;
                return Ok(format!(
                    "Kubernetes {}, the k8s-openapi feature {} of {} (--kube-version to choose another)",
                    found.version,
                    found.feature,
                    found.manifest.display()
                ));
            }
            Some((Ok(Some(found)), _)) => {
                return Err(format!(
                    "{} builds k8s-openapi for Kubernetes {} (its feature {}), which crdgen has no types for: it has {}; pass --kube-version",
                    found.manifest.display(),
                    found.version,
                    found.feature,
                    crate::known::KubeVersion::supported()
                ));
            }
            Some((Ok(None), manifest)) => {
                format!("{} builds no k8s-openapi", manifest.display())
            }
            Some((Err(e), _)) => e,
        };
        opts.kube_version = newest;
        Ok(format!(
            "Kubernetes {newest}, the newest crdgen has ({why}; --kube-version to choose another)"
        ))
    }

    /// The generators asked for, and the docs generator with `all` when the layout wants
    /// a reference: `--docs-dir` given, or its default directory there.
    fn generators_for_layout(&self) -> BTreeSet<Generator> {
        let mut generators = self.generators.clone();
        let all = Generator::in_all().all(|g| generators.contains(&g));
        let wanted = self.docs_dir.is_some()
            || self
                .output_base
                .join(Generator::Docs.default_dir())
                .is_dir();
        if all && wanted {
            generators.insert(Generator::Docs);
        }
        generators
    }

    fn options(&self) -> Result<Options, String> {
        Ok(Options {
            generators: self.generators_for_layout(),
            output_base: self.output_base.clone(),
            output_pkg: self.output_pkg.clone(),
            apis_pkg: self.apis_pkg.clone(),
            groups: self.groups.0.clone(),
            header: self
                .boilerplate
                .clone()
                .map_or(HeaderSource::Default, HeaderSource::File),
            year: self.year.clone(),
            plural_exceptions: self.plural_exceptions.clone().unwrap_or_default(),
            apis_module: module_path(self.apis_module.as_deref(), &self.apis_pkg, "apis-module")?,
            output_module: module_path(
                self.output_module.as_deref(),
                &self.output_pkg,
                "output-module",
            )?,
            manifest_dirs: BTreeMap::from([
                (Generator::Crd, self.crd_dir.clone()),
                (Generator::Rbac, self.rbac_dir.clone()),
                (Generator::Webhook, self.webhook_dir.clone()),
                (
                    Generator::Docs,
                    self.docs_dir
                        .clone()
                        .unwrap_or_else(|| Generator::Docs.default_dir().into()),
                ),
            ]),
            max_description_len: self.max_description_len,
            kube_version: self
                .kube_version
                .unwrap_or_else(crate::known::KubeVersion::latest),
            embedded_object_meta: self.generate_embedded_object_meta,
            marker_paths: self.marker_paths.clone(),
            role_name: self.role_name.clone(),
            webhook_service: {
                let mut service = crate::options::WebhookService::default();
                if let Some((namespace, name)) = &self.webhook_service {
                    (service.namespace, service.name) = (namespace.clone(), name.clone());
                }
                service.inject_ca_from = self
                    .inject_ca_from
                    .as_ref()
                    .map(|(namespace, name)| format!("{namespace}/{name}"));
                service.name_prefix = self.webhook_name_prefix.clone().unwrap_or_default();
                service
            },
        })
    }
}

/// `crdgen explain`: a code's page, or every code with its title.
fn explain(code: Option<&str>) -> ExitCode {
    use crate::diag::Code;
    let titles = || {
        Code::ALL
            .iter()
            .map(|code| format!("{}: {}", code.as_str(), code.title()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    match code.map(|text| (text, Code::parse(text))) {
        None => {
            println!("{}", titles());
            ExitCode::SUCCESS
        }
        Some((_, Some(code))) => {
            print!("{}", code.explanation());
            ExitCode::SUCCESS
        }
        Some((text, None)) => {
            eprintln!(
                "error: `{text}` is not a crdgen diagnostic code; they are:\n{}",
                titles()
            );
            ExitCode::from(USAGE_ERROR)
        }
    }
}

/// Runs the command line and returns the process's exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { USAGE_ERROR } else { 0 });
        }
    };
    match cli.command {
        Command::GenerateGroups(args) => generate_groups(&args),
        Command::Import(args) => import::run(&args),
        Command::Compat(args) => compat::run(&args),
        Command::Markers => {
            print!("{}", crate::markers::reference());
            ExitCode::SUCCESS
        }
        Command::Explain { code } => explain(code.as_deref()),
        Command::Init(args) => {
            let runtime = match (&args.runtime, &args.runtime_path) {
                (Some(spec), _) => spec.clone(),
                (None, Some(dir)) => format!("path:{}", dir.display()),
                (None, None) => crate::scaffold::default_runtime(),
            };
            eprintln!("crdgen-runtime from {runtime}");
            let made = crate::scaffold::init(&args.name, &args.api.api(), &runtime, args.sharding);
            let ok = made.is_ok();
            let code = scaffolded(made, &args.name);
            if ok {
                eprintln!("{}", next_steps(&args.name));
            }
            code
        }
        Command::Create(Create::Api { api, dir }) => {
            scaffolded(crate::scaffold::create_api(&dir, &api.api()), &dir)
        }
        Command::Create(Create::Webhook {
            api,
            defaulting,
            programmatic_validation,
            conversion,
            dir,
        }) => {
            let kinds = crate::scaffold::WebhookKinds {
                defaulting,
                validation: programmatic_validation,
                conversion,
            };
            scaffolded(
                crate::scaffold::create_webhook(&dir, &api.api(), kinds),
                &dir,
            )
        }
    }
}

/// What to do after `init`, as kubebuilder says it.
fn next_steps(project: &std::path::Path) -> String {
    format!(
        "Next steps:\n  cd {}\n  make test       # the controllers, in memory (and on envtest when setup-envtest is installed)\n  make install    # the CRDs, into the cluster of the current kubectl context\n  make run        # the operator, against that cluster\n  make docker-build docker-push deploy IMG=<registry>/<name>:<tag>   # ship it\n  crdgen create api --group … --version … --kind …   # another kind\nAfter changing src/apis, run make generate (crdgen from PATH, or $CRDGEN); make help lists the rest.",
        project.display()
    )
}

fn generate_groups(args: &GenerateGroups) -> ExitCode {
    let opts = match args.options().and_then(|o| o.validate().map(|()| o)) {
        Ok(opts) => opts,
        Err(msg) => {
            eprintln!("error: {msg}");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let mode = if args.verify_only {
        Mode::Verify
    } else {
        Mode::Write
    };
    if args.compat.is_some() && !opts.generators.contains(&Generator::Crd) {
        eprintln!(
            "error: --compat checks the CRDs the run writes: select the crd generator (or all)"
        );
        return ExitCode::from(USAGE_ERROR);
    }
    let check = args.compat.as_ref().map(|against| run::CompatCheck {
        against: against.clone(),
        config: args.compat_config.clone(),
        json: args.compat_json,
    });
    let report = match run::generate_groups_deferred(
        &opts,
        mode,
        args.deferred_kube_version(&opts),
        check.as_ref(),
    ) {
        Ok(report) => report,
        Err(Error::Usage(msg)) => {
            eprintln!("error: {msg}");
            return ExitCode::from(USAGE_ERROR);
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    eprint!("{}", report.warnings);
    // The check's findings come first: a drift below them says what to regenerate.
    let breaks = match &report.compat {
        Some(compat) if args.compat_json => {
            print!("{}", compat.rendered);
            compat.errors > 0
        }
        Some(compat) => {
            eprint!("{}", compat.rendered);
            compat.errors > 0
        }
        None => false,
    };
    let code = if breaks {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    };
    match report.outcome {
        Outcome::Current { files } if args.verify_only => {
            eprintln!("crdgen: {files} generated files are up to date");
        }
        Outcome::Current { files } => {
            eprintln!("crdgen: 0 written, {files} unchanged, 0 removed");
        }
        Outcome::Written(w) => {
            eprintln!(
                "crdgen: {} written, {} unchanged, {} removed",
                w.written, w.unchanged, w.removed
            );
        }
        Outcome::Drift {
            diff,
            changed,
            total,
            generated_by,
        } => {
            print!("{diff}");
            if let Some(release) = generated_by {
                let before = match release.as_str() {
                    "" => "an earlier crdgen".to_owned(),
                    release => format!("crdgen {release}"),
                };
                eprintln!(
                    "crdgen: the generated files are {before}'s, and this is crdgen {}: regenerate them with it (the CHANGELOG and the book's upgrading page say what else the upgrade changes)",
                    env!("CARGO_PKG_VERSION")
                );
            }
            eprintln!(
                "crdgen: {changed} of {total} generated files differ; run the same command without --verify-only to update them"
            );
            return ExitCode::FAILURE;
        }
    }
    code
}
