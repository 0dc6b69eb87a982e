//! One set of options behind all three front ends: the CLI, the build.rs `Config`, and
//! the CLI's `--verify-only` drift check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

mod generator;

pub use generator::Generator;
pub(crate) use generator::generator_list;

use crate::known::KubeVersion;
use crate::naming::ModulePath;

/// One group directory and the versions to generate for it: `bcrds:v1alpha1,v1beta1`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GroupVersions {
    /// The group's directory under APIS_PKG.
    pub group: String,
    /// Its versions' directories.
    pub versions: Vec<String>,
}

impl GroupVersions {
    /// Adds `versions` of `group` to `list`, to the group's entry when it has one.
    pub fn add(
        list: &mut Vec<GroupVersions>,
        group: &str,
        versions: impl IntoIterator<Item = String>,
    ) {
        match list.iter_mut().find(|gv| gv.group == group) {
            Some(existing) => existing.versions.extend(versions),
            None => list.push(GroupVersions {
                group: group.to_owned(),
                versions: versions.into_iter().collect(),
            }),
        }
    }

    /// Parses `"bcrds:v1alpha1,v1beta1 other:v1"`: groups separated by white space, each
    /// `dir:version[,version…]`.
    pub fn parse_all(spec: &str) -> Result<Vec<GroupVersions>, String> {
        let mut out: Vec<GroupVersions> = Vec::new();
        for item in spec.split_whitespace() {
            let Some((group, versions)) = item.split_once(':') else {
                return Err(format!(
                    "`{item}` has no versions; write it as `{item}:v1` (group directory, a colon, versions separated by commas)"
                ));
            };
            if group.is_empty() {
                return Err(format!(
                    "`{item}` names no group directory before the colon"
                ));
            }
            let versions: Vec<String> = versions.split(',').map(str::to_owned).collect();
            if versions.iter().any(String::is_empty) {
                return Err(format!("`{item}` has an empty version"));
            }
            GroupVersions::add(&mut out, group, versions);
        }
        if out.is_empty() {
            return Err("no groups given; write them as `group:v1alpha1,v1beta1 other:v1`".into());
        }
        Ok(out)
    }
}

/// Parses `Kind:plural,Kind2:plural2`.
pub fn parse_plural_exceptions(spec: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item.split_once(':') {
            Some((kind, plural)) if !kind.is_empty() && !plural.is_empty() => {
                out.insert(kind.to_owned(), plural.to_owned());
            }
            _ => {
                return Err(format!(
                    "`{item}` is not `Kind:plural` (for example `Endpoints:endpoints`)"
                ));
            }
        }
    }
    Ok(out)
}

/// The role's name by default: kubebuilder's (`rbac:roleName=manager-role`).
pub const DEFAULT_ROLE_NAME: &str = "manager-role";
/// What the rbac generator scans by default, when it exists: the crate's sources.
pub const DEFAULT_MARKER_PATH: &str = "src";

/// Where the apiserver reaches the webhooks (admission and CRD conversion): a Service,
/// and the cert-manager Certificate whose CA the configurations are to trust.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct WebhookService {
    /// The Service's namespace.
    pub namespace: String,
    /// The Service's name.
    pub name: String,
    /// `namespace/certificate`: cert-manager's `cert-manager.io/inject-ca-from`
    /// annotation, so that its CA injector fills in every `caBundle`.
    pub inject_ca_from: Option<String>,
    /// Put before the configurations' names (`my-operator-`: kustomize's `namePrefix`,
    /// as kubebuilder sets it), so that two operators in one cluster keep their own.
    pub name_prefix: String,
}

impl Default for WebhookService {
    /// controller-gen's: the `webhook-service` in `system`, kustomize's placeholders.
    fn default() -> Self {
        WebhookService {
            namespace: "system".to_owned(),
            name: "webhook-service".to_owned(),
            inject_ca_from: None,
            name_prefix: String::new(),
        }
    }
}

/// Parses `namespace/name`, each a DNS label.
pub fn parse_namespaced_name(text: &str) -> Result<(String, String), String> {
    let (namespace, name) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not `namespace/name`"))?;
    for part in [namespace, name] {
        crdgen_apimachinery::names::label(part)
            .map_err(|why| format!("`{part}` in `{text}`: {why}"))?;
    }
    Ok((namespace.to_owned(), name.to_owned()))
}

/// A Kubernetes version crdgen has the types of (`1.33`).
pub fn parse_kube_version(text: &str) -> Result<KubeVersion, String> {
    let version: KubeVersion = text.parse()?;
    if !version.is_supported() {
        return Err(format!(
            "crdgen has the Kubernetes types of {}, not {version}",
            KubeVersion::supported()
        ));
    }
    Ok(version)
}

/// Where the header of every generated file comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeaderSource {
    /// `boilerplate/boilerplate.rs.txt`, built into crdgen.
    Default,
    /// A file of the user's, relative to the working directory.
    File(PathBuf),
}

/// Everything a run is told: one set behind the command line, `Config` and the
/// drift check.
#[derive(Clone, Debug, Hash)]
pub struct Options {
    /// The generators to run, with those their output uses.
    pub generators: BTreeSet<Generator>,
    /// Directory that OUTPUT_PKG and APIS_PKG are relative to.
    pub output_base: PathBuf,
    /// Directory crdgen owns and writes generated Rust into, relative to `output_base`.
    pub output_pkg: PathBuf,
    /// Directory of the API types, relative to `output_base`.
    pub apis_pkg: PathBuf,
    /// The group versions to read, under APIS_PKG.
    pub groups: Vec<GroupVersions>,
    /// The header every generated file starts with.
    pub header: HeaderSource,
    /// Replaces `YEAR` in the header; left as written when unset, so output does not
    /// change when the calendar does.
    pub year: Option<String>,
    /// Kind → plural, on top of `naming::default_plural_exceptions`.
    pub plural_exceptions: BTreeMap<String, String>,
    /// Rust module path of APIS_PKG, e.g. `crate::pkg::apis`.
    pub apis_module: ModulePath,
    /// Rust module path of OUTPUT_PKG, e.g. `crate::pkg::client`.
    pub output_module: ModulePath,
    /// Where a YAML generator's files go, relative to `output_base`, for those not in
    /// their default directory (`config/crd/bases` for CRDs, as in kubebuilder
    /// projects); crdgen owns the files in it that it generated, and no others.
    pub manifest_dirs: BTreeMap<Generator, PathBuf>,
    /// Descriptions in CRD schemas are cut to this many characters.
    pub max_description_len: Option<usize>,
    /// The Kubernetes version whose types (k8s-openapi's) the API types embed.
    pub kube_version: KubeVersion,
    /// controller-gen's `crd:generateEmbeddedObjectMeta`: an embedded `ObjectMeta`
    /// (a pod template's `metadata`) gets its name, namespace, labels, annotations and
    /// finalizers in the schema, not a bare object.
    pub embedded_object_meta: bool,
    /// Files and directories besides APIS_PKG that `+kubebuilder:rbac` and
    /// `+kubebuilder:webhook` markers are read from, relative to `output_base`; `None`
    /// for `src` when there is one.
    pub marker_paths: Option<Vec<PathBuf>>,
    /// The name of the ClusterRole and of Roles whose markers name none.
    pub role_name: String,
    /// Where the apiserver reaches the webhooks, in the configurations and in the CRDs
    /// that convert by webhook.
    pub webhook_service: WebhookService,
}

impl Options {
    /// Options with every default: the generators of `all`, crdgen's header, module paths
    /// derived from the directories.
    pub fn new(
        output_base: impl Into<PathBuf>,
        output_pkg: impl Into<PathBuf>,
        apis_pkg: impl Into<PathBuf>,
        groups_versions: &str,
    ) -> Result<Options, String> {
        let (output_pkg, apis_pkg) = (output_pkg.into(), apis_pkg.into());
        Ok(Options {
            generators: Generator::in_all().collect(),
            output_base: output_base.into(),
            groups: GroupVersions::parse_all(groups_versions)?,
            header: HeaderSource::Default,
            year: None,
            plural_exceptions: BTreeMap::new(),
            apis_module: ModulePath::from_dir(&apis_pkg)?,
            output_module: ModulePath::from_dir(&output_pkg)?,
            manifest_dirs: BTreeMap::new(),
            max_description_len: None,
            kube_version: KubeVersion::latest(),
            embedded_object_meta: false,
            marker_paths: None,
            role_name: DEFAULT_ROLE_NAME.to_owned(),
            webhook_service: WebhookService::default(),
            output_pkg,
            apis_pkg,
        })
    }

    /// Checks what the types alone cannot: both trees and the YAML generators'
    /// directories (`yaml_dirs`, each with its flag) are plain relative paths below the
    /// output base, and none contains another. (`Options::validate`, in `generators`,
    /// names the directories.)
    pub(crate) fn validate_with(&self, yaml_dirs: &[(&str, PathBuf)]) -> Result<(), String> {
        let marker_paths = self
            .marker_paths
            .iter()
            .flatten()
            .map(|p| ("--paths", p.clone()));
        for (name, dir) in [
            ("OUTPUT_PKG", self.output_pkg.clone()),
            ("APIS_PKG", self.apis_pkg.clone()),
        ]
        .into_iter()
        .chain(yaml_dirs.iter().cloned())
        .chain(marker_paths)
        {
            let plain = dir.components().all(|c| {
                matches!(
                    c,
                    std::path::Component::Normal(_) | std::path::Component::CurDir
                )
            });
            if !plain || dir.as_os_str().is_empty() {
                return Err(format!(
                    "{name} `{}` must be a relative path below the output base, without `..`",
                    dir.display()
                ));
            }
        }
        let (out, apis) = (normalize(&self.output_pkg), normalize(&self.apis_pkg));
        if out.starts_with(&apis) || apis.starts_with(&out) {
            return Err(format!(
                "OUTPUT_PKG `{}` and APIS_PKG `{}` overlap; crdgen owns OUTPUT_PKG and prunes stale files in it",
                self.output_pkg.display(),
                self.apis_pkg.display()
            ));
        }
        // Each YAML generator's directory apart from the trees and the others.
        for (i, (flag, dir)) in yaml_dirs.iter().enumerate() {
            let dir = normalize(dir);
            let overlaps = |d: &PathBuf| dir.starts_with(d) || d.starts_with(&dir);
            let others = yaml_dirs[..i].iter().map(|(_, d)| normalize(d));
            if overlaps(&out) || overlaps(&apis) || others.into_iter().any(|d| overlaps(&d)) {
                return Err(format!(
                    "{flag} `{}` overlaps OUTPUT_PKG, APIS_PKG or another generator's directory; each gets a directory of its own",
                    dir.display()
                ));
            }
        }
        if !crate::naming::is_role_name(&self.role_name) {
            return Err(format!(
                "--role-name `{}` cannot name a role: it is any text but `.` or `..`, without `/` or `%`",
                self.role_name
            ));
        }
        for gv in &self.groups {
            if !crate::naming::is_identifier(&gv.group) {
                return Err(format!(
                    "group directory `{}` is not a Rust module name; name it after the group's first DNS label in snake_case, e.g. `bcrds`",
                    gv.group
                ));
            }
            if let Some(v) = gv
                .versions
                .iter()
                .find(|v| !crate::naming::is_api_version(v))
            {
                return Err(format!(
                    "`{v}` (group `{}`) is not a Kubernetes API version such as `v1`, `v1alpha1` or `v2beta3`",
                    gv.group
                ));
            }
        }
        for (kind, plural) in &self.plural_exceptions {
            if !crate::naming::is_identifier(kind) {
                return Err(format!(
                    "plural exception `{kind}:{plural}`: `{kind}` is not a kind name"
                ));
            }
            crdgen_apimachinery::names::label(plural).map_err(|why| {
                format!(
                    "plural exception `{kind}:{plural}`: `{plural}` is not a DNS-1035 label: {why}"
                )
            })?;
        }
        Ok(())
    }
}

fn normalize(path: &std::path::Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(out: &str, apis: &str) -> Options {
        let mut opts = Options::new(".", "client", "apis", "g:v1").unwrap();
        opts.output_pkg = out.into();
        opts.apis_pkg = apis.into();
        opts
    }

    #[test]
    fn validates_output_and_apis_directories() {
        assert!(options("pkg/client", "pkg/apis").validate().is_ok());
        assert!(
            options("pkg/apis/client", "pkg/apis")
                .validate()
                .unwrap_err()
                .contains("overlap")
        );
        assert!(
            options("./pkg", "pkg/apis")
                .validate()
                .unwrap_err()
                .contains("overlap")
        );
        assert!(
            options("../elsewhere", "pkg/apis")
                .validate()
                .unwrap_err()
                .contains("without `..`")
        );
        assert!(options("/abs", "pkg/apis").validate().is_err());
        for (groups, wrong) in [
            ("../../x:v1", "Rust module name"),
            ("g:v1/../..", "API version"),
        ] {
            let mut opts = options("pkg/client", "pkg/apis");
            opts.groups = GroupVersions::parse_all(groups).unwrap();
            let err = opts.validate().unwrap_err();
            assert!(err.contains(wrong), "{err}");
        }
        for hostile in ["../../x", "r#match", "Mice", "a".repeat(64).as_str()] {
            let mut opts = options("pkg/client", "pkg/apis");
            opts.plural_exceptions
                .insert("Example".into(), hostile.into());
            assert!(
                opts.validate().unwrap_err().contains("DNS-1035"),
                "{hostile}"
            );
        }
    }

    #[test]
    fn parses_groups_and_versions() {
        let gvs = GroupVersions::parse_all("bcrds:v1alpha1,v1beta1  other:v1 bcrds:v1").unwrap();
        assert_eq!(
            gvs,
            vec![
                GroupVersions {
                    group: "bcrds".into(),
                    versions: vec!["v1alpha1".into(), "v1beta1".into(), "v1".into()]
                },
                GroupVersions {
                    group: "other".into(),
                    versions: vec!["v1".into()]
                },
            ]
        );
        assert!(
            GroupVersions::parse_all("bcrds")
                .unwrap_err()
                .contains("bcrds:v1")
        );
        assert!(GroupVersions::parse_all("bcrds:v1,").is_err());
        assert!(GroupVersions::parse_all("  ").is_err());
    }

    #[test]
    fn parses_plural_exceptions() {
        let p = parse_plural_exceptions("Endpoints:endpoints, Mouse:mice").unwrap();
        assert_eq!(p["Mouse"], "mice");
        assert!(parse_plural_exceptions("Mouse").is_err());
    }
}
