//! Generation from build.rs, on the model of prost-build's `Config`: the same pipeline
//! as the command line, written as one includable file into `OUT_DIR`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::known::KubeVersion;
use crate::naming::{self, ModulePath};
use crate::options::{Generator, GroupVersions, HeaderSource, Options};
use crate::pipeline::{Error, generate};

/// Builder for build.rs:
///
/// ```no_run
/// // build.rs
/// fn main() -> Result<(), crdgen::Error> {
///     crdgen::Config::new()
///         .apis_dir("src/apis")
///         .apis_module("crate::apis")
///         .group("bcrds", ["v1alpha1"])
///         .generate()?;
///     Ok(())
/// }
/// ```
/// and in the crate: `pub mod client { include!(concat!(env!("OUT_DIR"), "/crdgen.rs")); }`
#[derive(Clone, Debug)]
pub struct Config {
    apis_dir: PathBuf,
    groups: Vec<GroupVersions>,
    generators: BTreeSet<Generator>,
    apis_module: Option<String>,
    output_module: String,
    boilerplate: Option<PathBuf>,
    year: Option<String>,
    plural_exceptions: BTreeMap<String, String>,
    out_dir: Option<PathBuf>,
    role_name: String,
    kube_version: Option<String>,
    embedded_object_meta: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            apis_dir: PathBuf::from("src/apis"),
            groups: Vec::new(),
            generators: Generator::in_all().collect(),
            apis_module: None,
            output_module: "crate::client".to_owned(),
            boilerplate: None,
            year: None,
            plural_exceptions: BTreeMap::new(),
            out_dir: None,
            role_name: crate::options::DEFAULT_ROLE_NAME.to_owned(),
            kube_version: None,
            embedded_object_meta: false,
        }
    }
}

impl Config {
    /// Every generator over `src/apis`, written to `OUT_DIR`.
    pub fn new() -> Self {
        Config::default()
    }

    /// The API types' directory, relative to the crate root (default `src/apis`).
    pub fn apis_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.apis_dir = dir.into();
        self
    }

    /// A group directory under `apis_dir` and the versions to generate for it; call it
    /// once per group: `.group("bcrds", ["v1alpha1", "v1beta1"]).group("other", ["v1"])`.
    pub fn group<V: Into<String>>(
        &mut self,
        dir: &str,
        versions: impl IntoIterator<Item = V>,
    ) -> &mut Self {
        GroupVersions::add(&mut self.groups, dir, versions.into_iter().map(Into::into));
        self
    }

    /// The generators to run (default: those `all` selects); each brings along those whose
    /// output it uses, as on the command line: `.generators([Generator::Client])`.
    pub fn generators(&mut self, generators: impl IntoIterator<Item = Generator>) -> &mut Self {
        self.generators = Generator::with_requirements(generators);
        self
    }

    /// Rust module path of the API types (default: from `apis_dir`, `src/apis` →
    /// `crate::apis`).
    pub fn apis_module(&mut self, path: &str) -> &mut Self {
        self.apis_module = Some(path.to_owned());
        self
    }

    /// Rust module path the generated file is included at (default `crate::client`).
    pub fn output_module(&mut self, path: &str) -> &mut Self {
        self.output_module = path.to_owned();
        self
    }

    /// Header file for the generated code, relative to the crate root.
    pub fn boilerplate(&mut self, file: impl Into<PathBuf>) -> &mut Self {
        self.boilerplate = Some(file.into());
        self
    }

    /// Replaces `YEAR` in the boilerplate.
    pub fn year(&mut self, year: &str) -> &mut Self {
        self.year = Some(year.to_owned());
        self
    }

    /// The plural of `kind`, where the English rules get it wrong (`Mouse`, `mice`).
    pub fn plural_exception(&mut self, kind: &str, plural: &str) -> &mut Self {
        self.plural_exceptions
            .insert(kind.to_owned(), plural.to_owned());
        self
    }

    /// The Kubernetes version (`"1.33"`) whose types the API types embed. Default: the
    /// one the crate's k8s-openapi feature selects (k8s-openapi tells build scripts),
    /// else the newest crdgen has.
    pub fn kube_version(&mut self, version: &str) -> &mut Self {
        self.kube_version = Some(version.to_owned());
        self
    }

    /// controller-gen's `crd:generateEmbeddedObjectMeta`: embedded `ObjectMeta` schemas
    /// (a pod template's `metadata`) list name, namespace, labels, annotations and
    /// finalizers.
    pub fn embedded_object_meta(&mut self, on: bool) -> &mut Self {
        self.embedded_object_meta = on;
        self
    }

    /// The name of the ClusterRole the `rbac` generator writes (default `manager-role`).
    pub fn role_name(&mut self, name: &str) -> &mut Self {
        self.role_name = name.to_owned();
        self
    }

    /// Where to write `crdgen.rs` (default `$OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Generates `crdgen.rs` (and, with the `crd` generator, `crds/<group>_<plural>.yaml`)
    /// into the output directory, writing only what changed, and tells cargo what to
    /// watch. Returns the path of `crdgen.rs`.
    pub fn generate(&self) -> Result<PathBuf, Error> {
        let base = std::env::var_os("CARGO_MANIFEST_DIR")
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        let out_dir = match (&self.out_dir, std::env::var_os("OUT_DIR")) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dir)) => PathBuf::from(dir),
            (None, None) => {
                return Err(Error::Usage(
                    "OUT_DIR is not set: run from build.rs, or call .out_dir(..)".into(),
                ));
            }
        };
        let opts = self.options(&base)?;
        let generation = generate(&opts);
        // Watch the inputs even when they are wrong, so that fixing them reruns us.
        println!(
            "cargo:rerun-if-changed={}",
            base.join(&self.apis_dir).display()
        );
        if let Some(file) = &self.boilerplate {
            println!("cargo:rerun-if-changed={}", base.join(file).display());
        }
        let generation = generation?;
        for input in &generation.inputs {
            println!("cargo:rerun-if-changed={}", input.display());
        }
        for line in generation.render_warnings().lines() {
            println!("cargo:warning={line}");
        }
        // Written as the command line writes: only what changed, all or nothing, stale
        // CRDs pruned.
        std::fs::create_dir_all(&out_dir).map_err(Error::Io)?;
        generation.into_build_files()?.write(&out_dir)?;
        Ok(out_dir.join(naming::BUILD_OUTPUT_FILE))
    }

    fn resolved_kube_version(&self) -> Result<KubeVersion, String> {
        let Some(text) = &self.kube_version else {
            // k8s-openapi's `links` key passes its version to the build scripts of the
            // crates that depend on it: DEP_K8S_OPENAPI_<its version>_VERSION.
            let from_build = std::env::vars()
                .filter(|(k, _)| k.starts_with("DEP_K8S_OPENAPI_") && k.ends_with("_VERSION"))
                .find_map(|(_, v)| KubeVersion::of_build_metadata(&v))
                .filter(|v| v.is_supported());
            return Ok(from_build.unwrap_or_else(KubeVersion::latest));
        };
        crate::options::parse_kube_version(text).map_err(|e| format!("kube_version: {e}"))
    }

    fn options(&self, base: &Path) -> Result<Options, Error> {
        let usage = Error::Usage;
        if self.groups.is_empty() {
            return Err(usage(
                "no groups given: call `.group(\"bcrds\", [\"v1alpha1\"])`".into(),
            ));
        }
        if let Some(g) = self.groups.iter().find(|g| g.versions.is_empty()) {
            return Err(usage(format!("group `{}` has no versions", g.group)));
        }
        let apis_module = match &self.apis_module {
            Some(path) => ModulePath::parse(path),
            None => ModulePath::from_dir(&self.apis_dir),
        }
        .map_err(usage)?;
        Ok(Options {
            generators: self.generators.clone(),
            output_base: base.to_owned(),
            // Nothing is written there; it only keeps the options' shared checks true.
            output_pkg: PathBuf::from("target/crdgen"),
            apis_pkg: self.apis_dir.clone(),
            groups: self.groups.clone(),
            header: self
                .boilerplate
                .clone()
                .map_or(HeaderSource::Default, HeaderSource::File),
            year: self.year.clone(),
            plural_exceptions: self.plural_exceptions.clone(),
            apis_module,
            output_module: ModulePath::parse(&self.output_module).map_err(usage)?,
            // Each YAML generator's files go to its directory under `OUT_DIR`.
            manifest_dirs: BTreeMap::new(),
            max_description_len: None,
            kube_version: self.resolved_kube_version().map_err(usage)?,
            embedded_object_meta: self.embedded_object_meta,
            // `src` of the crate, as the command line's default; the role goes to
            // `OUT_DIR/rbac/role.yaml`.
            marker_paths: None,
            role_name: self.role_name.clone(),
            // Written to `OUT_DIR/webhook/manifests.yaml`.
            webhook_service: crate::options::WebhookService::default(),
        })
    }
}
