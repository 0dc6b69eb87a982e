//! Test cases shared by the integration tests: the testdata trees crdgen generates for.
#![allow(dead_code)] // each test binary uses its own subset

pub mod bless;
pub mod browser;
pub mod expect;

use std::path::{Path, PathBuf};

use crdgen::{HeaderSource, Options};

pub fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
}

/// A generation case: where its tree is, and how the command line would name it.
pub struct Case {
    pub name: &'static str,
    pub base: PathBuf,
    pub apis_pkg: &'static str,
    pub output_pkg: &'static str,
    pub groups: &'static str,
    pub boilerplate: Option<&'static str>,
    /// `all` unless the case is about one generator.
    pub generators: &'static str,
}

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "example",
            base: testdata("example"),
            apis_pkg: "pkg/apis",
            output_pkg: "pkg/client",
            groups: "bcrds:v1alpha1",
            boilerplate: Some("hack/boilerplate.rs.txt"),
            // Its layout has docs/api: the command line's `all` writes the reference.
            generators: "all,docs",
        },
        Case {
            name: "consumer",
            base: testdata("consumer"),
            apis_pkg: "src/apis",
            output_pkg: "src/client",
            groups: "bcrds:v1alpha1 other:v1 derived:v1 hyphens:v1 fleet:v1alpha1,v1 shop:v1,v1alpha1,v1beta1",
            boilerplate: None,
            generators: "all",
        },
        Case {
            name: "crds",
            base: testdata("crds"),
            apis_pkg: "apis",
            output_pkg: "client",
            groups: "markers:v1 types:v1 versions:v1,v1beta1,v1alpha1,v2alpha1 kinds:v1 rules:v1",
            boilerplate: None,
            generators: "crd",
        },
        Case {
            name: "rbac",
            base: testdata("rbac"),
            apis_pkg: "src/apis",
            output_pkg: "src/client",
            groups: "bcrds:v1",
            boilerplate: None,
            generators: "rbac",
        },
        Case {
            name: "webhook",
            base: testdata("webhook"),
            apis_pkg: "src/apis",
            output_pkg: "src/client",
            groups: "batch:v1",
            boilerplate: None,
            generators: "webhook",
        },
    ]
}

pub fn case(name: &str) -> Case {
    cases()
        .into_iter()
        .find(|c| c.name == name)
        .expect("no such case")
}

impl Case {
    pub fn options(&self) -> Options {
        self.options_at(&self.base, self.groups)
    }

    pub fn options_at(&self, base: &Path, groups: &str) -> Options {
        let mut opts = Options::new(base, self.output_pkg, self.apis_pkg, groups).unwrap();
        opts.generators = crdgen::Generator::parse_list(self.generators).unwrap();
        if let Some(file) = self.boilerplate {
            opts.header = HeaderSource::File(file.into());
        }
        opts
    }
}

/// Every generated file of a run, by path.
pub fn generate_files(opts: &Options) -> Vec<(String, String)> {
    let generation = crdgen::generate(opts).unwrap_or_else(|e| panic!("{e}"));
    generation
        .into_files(opts)
        .unwrap()
        .files()
        .iter()
        .map(|(path, text)| (path.display().to_string(), text.clone()))
        .collect()
}

/// Every group and version of the Rust port of controller-tools' testdata
/// (testdata/controller-tools).
pub const CONTROLLER_TOOLS_GROUPS: &str = "testdata:v1,v1beta1,v1beta2 plural:v1 bar:v1,v2";

/// The options that generate the CRDs of the controller-tools port for `groups`, as
/// controller-gen generates its golden files: on Kubernetes 1.36, the k8s.io/api of
/// controller-tools' testdata module.
pub fn controller_tools_options(groups: &str) -> Options {
    let mut opts = Options::new(testdata("controller-tools"), "client", "apis", groups).unwrap();
    opts.generators = crdgen::Generator::parse_list("crd").unwrap();
    opts.kube_version = "1.36".parse().unwrap();
    opts
}

/// The generated file at `path` (relative to the output base) of `case`.
pub fn generated_file(case: &str, path: &str) -> String {
    generate_files(&self::case(case).options())
        .into_iter()
        .find(|(p, _)| p == path)
        .unwrap_or_else(|| panic!("{case} generates no {path}"))
        .1
}

/// The documents of a YAML file, as JSON values: how manifests are compared as data.
pub fn yaml_documents(text: &str) -> Vec<serde_json::Value> {
    use serde::Deserialize as _;
    serde_yaml_ng::Deserializer::from_str(text)
        .map(|doc| serde_json::Value::deserialize(doc).unwrap())
        .collect()
}

/// Copies a directory tree.
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs the crdgen binary in `dir`.
pub fn crdgen(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_crdgen"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// CRDs installed on a real cluster with a fresh namespace to check them in; `remove`
/// takes both away again (collect a check's outcome first, remove, then assert, so that
/// a failure leaves nothing behind).
pub struct Installed {
    pub client: kube::Client,
    pub namespace: String,
    crds: Vec<String>,
}

impl Installed {
    /// Installs `crds` (established) and creates the namespace `<prefix>-<millis>`.
    pub async fn new(
        client: &kube::Client,
        crds: &[k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition],
        prefix: &str,
    ) -> Installed {
        use crdgen_runtime::testing::cluster;
        let names: Vec<String> = crds
            .iter()
            .filter_map(|c| c.metadata.name.clone())
            .collect();
        if let Err(e) = cluster::install_crds(client, crds, "crdgen-e2e").await {
            let _ = cluster::uninstall_crds(client, names.iter().map(String::as_str)).await;
            panic!("installing the CRDs: {e}");
        }
        let namespace = format!(
            "{prefix}-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis()
        );
        let object =
            serde_json::from_value(serde_json::json!({"metadata": {"name": namespace}})).unwrap();
        kube::Api::<k8s_openapi::api::core::v1::Namespace>::all(client.clone())
            .create(&kube::api::PostParams::default(), &object)
            .await
            .unwrap();
        Installed {
            client: client.clone(),
            namespace,
            crds: names,
        }
    }

    /// Deletes the namespace and uninstalls the CRDs.
    pub async fn remove(self) {
        let namespaces =
            kube::Api::<k8s_openapi::api::core::v1::Namespace>::all(self.client.clone());
        let _ = namespaces
            .delete(&self.namespace, &kube::api::DeleteParams::default())
            .await;
        crdgen_runtime::testing::cluster::uninstall_crds(
            &self.client,
            self.crds.iter().map(String::as_str),
        )
        .await
        .expect("removing the CRDs");
    }
}

/// The CRD file `file` (`<group>_<plural>.yaml`) crdgen generates for `groups` of the
/// testdata tree `tree` (its types under `apis/`), with the options `adjust` sets.
pub fn testdata_crd(
    tree: &str,
    groups: &str,
    file: &str,
    adjust: impl FnOnce(&mut Options),
) -> String {
    let mut opts = Options::new(testdata(tree), "client", "apis", groups).unwrap();
    opts.generators = crdgen::Generator::parse_list("crd").unwrap();
    adjust(&mut opts);
    generate_files(&opts)
        .into_iter()
        .find(|(path, _)| path.ends_with(file))
        .unwrap_or_else(|| panic!("{tree} generates no {file}"))
        .1
}

/// The files under `dir`, by path relative to it.
pub fn tree(dir: &Path) -> std::collections::BTreeMap<std::path::PathBuf, String> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_owned();
            (rel, std::fs::read_to_string(e.path()).unwrap())
        })
        .collect()
}
