//! `crdgen init` and `crdgen create api`: lay down an operator project from
//! `templates/project`, or add a kind to one, then generate its client code and CRDs.

mod webhook;

pub use webhook::{WebhookKinds, create_webhook};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use heck::{ToKebabCase, ToSnakeCase};

use crate::Error;
use crate::naming;
use crate::options::{HeaderSource, Options};
use crate::sink::Change;

/// The template files, embedded so the binary carries them.
mod templates {
    pub const CARGO_TOML: &str = include_str!("../../templates/project/Cargo.toml.tmpl");
    pub const README: &str = include_str!("../../templates/project/README.md.tmpl");
    pub const BOILERPLATE: &str = include_str!("../../templates/project/hack/boilerplate.rs.txt");
    pub const UPDATE_CODEGEN: &str = include_str!("../../templates/project/hack/update-codegen.sh");
    pub const VERIFY_CODEGEN: &str = include_str!("../../templates/project/hack/verify-codegen.sh");
    pub const LIB: &str = include_str!("../../templates/project/src/lib.rs");
    pub const MAIN: &str = include_str!("../../templates/project/src/main.rs.tmpl");
    pub const CONTROLLER_MOD: &str =
        include_str!("../../templates/project/src/controller/mod.rs.tmpl");
    pub const CONTROLLER: &str =
        include_str!("../../templates/project/src/controller/kind.rs.tmpl");
    pub const APIS_MOD: &str = include_str!("../../templates/project/src/apis/mod.rs.tmpl");
    pub const GROUP_MOD: &str = include_str!("../../templates/project/src/apis/group_mod.rs.tmpl");
    pub const VERSION_MOD: &str =
        include_str!("../../templates/project/src/apis/version_mod.rs.tmpl");
    pub const TYPES: &str = include_str!("../../templates/project/src/apis/kind_types.rs.tmpl");
    pub const TEST: &str = include_str!("../../templates/project/tests/kind_controller.rs.tmpl");
    pub const OPERATOR_TEST: &str = include_str!("../../templates/project/tests/operator.rs.tmpl");
    pub const SAMPLE: &str =
        include_str!("../../templates/project/config/samples/sample.yaml.tmpl");
    pub const SERVICE_ACCOUNT: &str =
        include_str!("../../templates/project/config/rbac/service_account.yaml");
    pub const MANAGER: &str =
        include_str!("../../templates/project/config/manager/manager.yaml.tmpl");
    pub const WEBHOOK_MOD: &str = include_str!("../../templates/project/src/webhook/mod.rs.tmpl");
    pub const WEBHOOK: &str = include_str!("../../templates/project/src/webhook/kind.rs.tmpl");
    pub const WEBHOOK_SERVICE: &str =
        include_str!("../../templates/project/config/webhook/service.yaml");
    pub const WEBHOOK_KUSTOMIZATION: &str =
        include_str!("../../templates/project/config/webhook/kustomization.yaml");
    pub const CERTIFICATE: &str =
        include_str!("../../templates/project/config/certmanager/certificate.yaml");
    pub const CERTMANAGER_KUSTOMIZATION: &str =
        include_str!("../../templates/project/config/certmanager/kustomization.yaml");
    pub const CERTMANAGER_KUSTOMIZECONFIG: &str =
        include_str!("../../templates/project/config/certmanager/kustomizeconfig.yaml");
    pub const DEFAULT_WEBHOOKS: &str =
        include_str!("../../templates/project/config/default/webhooks.yaml.part");
    pub const DOCKERFILE: &str = include_str!("../../templates/project/Dockerfile.tmpl");
    pub const DOCKERIGNORE: &str = include_str!("../../templates/project/dockerignore");
    pub const MAKEFILE: &str = include_str!("../../templates/project/Makefile");
    pub const WORKFLOW: &str = include_str!("../../templates/project/.github/workflows/ci.yml");
    pub const DEFAULT_KUSTOMIZATION: &str =
        include_str!("../../templates/project/config/default/kustomization.yaml.tmpl");
    pub const METRICS_SERVICE: &str =
        include_str!("../../templates/project/config/default/metrics_service.yaml");
    pub const CRD_KUSTOMIZATION: &str =
        include_str!("../../templates/project/config/crd/kustomization.yaml.tmpl");
    pub const CRD_KUSTOMIZECONFIG: &str =
        include_str!("../../templates/project/config/crd/kustomizeconfig.yaml");
    pub const RBAC_KUSTOMIZATION: &str =
        include_str!("../../templates/project/config/rbac/kustomization.yaml");
    pub const MANAGER_KUSTOMIZATION: &str =
        include_str!("../../templates/project/config/manager/kustomization.yaml.tmpl");
}

/// The line of `config/crd/kustomization.yaml` before which `create api` lists a CRD.
const CRD_BASES_MARKER: &str = "# crdgen:crd-bases\n";

/// Where a new project takes crdgen-runtime from when `--runtime` does not say: the
/// published crate of crdgen's own version, which the code it generates is for.
pub fn default_runtime() -> String {
    format!("version:{}", env!("CARGO_PKG_VERSION"))
}

/// What `init` and `create api` are told.
#[derive(Clone, Debug)]
pub struct Api {
    /// The API group's DNS name: `bcrds.example.com`.
    pub group: String,
    pub version: String,
    pub kind: String,
    pub namespaced: bool,
}

/// The placeholders a kind's templates use.
fn kind_values(api: &Api) -> Result<BTreeMap<&'static str, String>, String> {
    let group_dir = api
        .group
        .split('.')
        .next()
        .unwrap_or_default()
        .to_snake_case();
    let group_ok =
        crdgen_apimachinery::names::subdomain(&api.group).map_err(|why| format!(": {why}"));
    if let Err(why) = group_ok
        .and_then(|()| {
            (api.group.contains('.'))
                .then_some(())
                .ok_or_else(|| ": it needs at least one dot".to_owned())
        })
        .and_then(|()| {
            naming::is_identifier(&group_dir)
                .then_some(())
                .ok_or_else(|| {
                    format!(": its first label `{group_dir}` must be a Rust module name")
                })
        })
    {
        return Err(format!(
            "`{}` is not an API group name like `bcrds.example.com`{why}",
            api.group
        ));
    }
    if !naming::is_api_version(&api.version) {
        return Err(format!(
            "`{}` is not a Kubernetes API version like `v1alpha1`",
            api.version
        ));
    }
    if !naming::is_identifier(&api.kind)
        || !api.kind.starts_with(|c: char| c.is_ascii_uppercase())
        || crdgen_apimachinery::names::label(&api.kind.to_ascii_lowercase()).is_err()
    {
        return Err(format!(
            "`{}` is not a kind name like `Example` (ASCII PascalCase, at most 63 characters)",
            api.kind
        ));
    }
    let plural = naming::plural(&api.kind, &naming::default_plural_exceptions());
    let plural_accessor = naming::client::kind_accessor(&api.kind, &plural);
    let gv = naming::client::group_version_accessor(&group_dir, &api.version);
    let (scope_markers, key_doc, lookup, client, test_client) = if api.namespaced {
        (
            String::new(),
            "namespace/name",
            format!(
                "self.lister.{plural_accessor}(key.namespace.unwrap_or_default()).get(key.name)"
            ),
            format!("self.clientset.{gv}().{plural_accessor}(key.namespace.unwrap_or_default())"),
            format!("clientset.{gv}().{plural_accessor}(\"default\")"),
        )
    } else {
        (
            "/// +genclient:nonNamespaced\n/// +kubebuilder:resource:scope=Cluster\n".to_owned(),
            "name",
            "self.lister.get(key.name)".to_owned(),
            format!("self.clientset.{gv}().{plural_accessor}()"),
            format!("clientset.{gv}().{plural_accessor}()"),
        )
    };
    Ok(BTreeMap::from([
        ("group", api.group.clone()),
        ("group_dir", group_dir.clone()),
        (
            "group_accessor",
            naming::informer::group_accessor(&group_dir),
        ),
        ("version", api.version.clone()),
        ("kind", api.kind.clone()),
        ("kind_snake", api.kind.to_snake_case()),
        ("kind_kebab", api.kind.to_kebab_case()),
        (
            "sample",
            format!(
                "{group_dir}_{}_{}.yaml",
                api.version,
                api.kind.to_snake_case()
            ),
        ),
        ("crd_file", naming::crd_file(&api.group, &plural)),
        ("plural", plural.clone()),
        ("plural_accessor", plural_accessor),
        ("scope_markers", scope_markers),
        ("key_doc", key_doc.to_owned()),
        ("lookup", lookup),
        ("client", client),
        ("test_client", test_client),
        // Generated names the templates use, from the one module that makes them.
        ("clientset_module", naming::modules::CLIENTSET.to_owned()),
        ("informers_module", naming::modules::INFORMERS.to_owned()),
        ("listers_module", naming::modules::LISTERS.to_owned()),
        ("clientset_type", naming::client::CLIENTSET.to_owned()),
        ("informer_factory", naming::informer::FACTORY.to_owned()),
        ("lister", naming::informer::kind_lister(&api.kind)),
        ("config_namespace", naming::scaffold::NAMESPACE.to_owned()),
        ("role", naming::scaffold::ROLE.to_owned()),
        (
            "webhook_service",
            naming::scaffold::WEBHOOK_SERVICE.to_owned(),
        ),
        (
            "serving_cert",
            naming::scaffold::SERVING_CERTIFICATE.to_owned(),
        ),
    ]))
}

/// Fills `{{name}}` placeholders in one pass over the template, so that a value is
/// never read as a template itself; a placeholder without a value is a bug in crdgen.
/// `${{ … }}` is a GitHub Actions expression, left as it is.
fn render(template: &str, values: &BTreeMap<&str, String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        if out.ends_with('$') {
            out.push_str("{{");
            rest = after;
            continue;
        }
        let value = after
            .find("}}")
            .and_then(|end| Some((values.get(&after[..end])?, end)));
        match value {
            Some((value, end)) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                debug_assert!(false, "unfilled placeholder in a template: {after}");
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `path:DIR`, `git:URL` or `version:X`, as a Cargo dependency with `features`.
fn runtime_dependency(spec: &str, features: &[&str]) -> Result<String, String> {
    let source = match spec.split_once(':') {
        Some(("path", dir)) => format!("path = {dir:?}"),
        Some(("git", url)) => format!("git = {url:?}"),
        Some(("version", v)) => format!("version = {v:?}"),
        _ => {
            return Err(format!(
                "--runtime `{spec}` is not `path:DIR`, `git:URL` or `version:X`"
            ));
        }
    };
    match features {
        [] => Ok(format!("{{ {source} }}")),
        _ => Ok(format!("{{ {source}, features = {features:?} }}")),
    }
}

/// `crdgen init`: a new operator project in `dir` (which must not exist, or be empty),
/// sharding its kind by default when `sharding`.
pub fn init(dir: &Path, api: &Api, runtime: &str, sharding: bool) -> Result<Vec<PathBuf>, Error> {
    let usage = Error::Usage;
    if dir.exists() && std::fs::read_dir(dir).map_err(Error::Io)?.next().is_some() {
        return Err(usage(format!(
            "`{}` exists and is not empty; crdgen init writes only into a new or empty directory",
            dir.display()
        )));
    }
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| usage(format!("`{}` has no usable name", dir.display())))?;
    // The name is the crate's, and the manifests' (the Deployment, its service account
    // and the `<name>-system` namespace): a DNS label short enough for that suffix, as
    // kubebuilder asks of a project name, which cargo must also take.
    let crate_name = name.replace('-', "_");
    let dns = crdgen_apimachinery::names::label(name).and_then(|()| {
        // The longest label made of it: its webhook Service's name.
        (naming::scaffold::deployed_webhook_service(name).len()
            <= crdgen_apimachinery::names::LABEL_MAX)
            .then_some(())
            .ok_or_else(|| "with `-webhook-service` it is longer than 63 characters".to_owned())
    });
    if let Err(why) = dns {
        return Err(usage(format!(
            "`{name}` cannot name a project: it names Kubernetes objects too, and {why}"
        )));
    }
    if naming::is_keyword(&crate_name)
        || ["std", "core", "alloc", "proc_macro", "test"].contains(&crate_name.as_str())
    {
        return Err(usage(format!(
            "`{name}` cannot name a Rust crate: it is a keyword or a standard crate's name"
        )));
    }
    let mut values = kind_values(api).map_err(usage)?;
    values.insert("name", name.to_owned());
    values.insert("namespace", naming::scaffold::namespace(name));
    values.insert("name_prefix", naming::scaffold::name_prefix(name));
    values.insert("crate", crate_name);
    // The crdgen its CI installs: the one whose generated code it holds.
    values.insert("crdgen_version", env!("CARGO_PKG_VERSION").to_owned());
    // The operator's `--sharding` default, and replicas enough to share the objects.
    values.insert("sharding", sharding.to_string());
    values.insert("replicas", if sharding { "3" } else { "1" }.to_owned());
    // `manager`: the metrics endpoint and probes main.rs serves.
    values.insert(
        "runtime",
        runtime_dependency(runtime, &["manager"]).map_err(usage)?,
    );
    // The tests run on a real control plane when one is found, as kubebuilder's do.
    values.insert(
        "runtime_envtest",
        runtime_dependency(runtime, &["envtest"]).map_err(usage)?,
    );
    let (group_dir, version, kind_snake) = (
        values["group_dir"].clone(),
        api.version.clone(),
        values["kind_snake"].clone(),
    );
    let files: Vec<(String, &str, bool)> = vec![
        ("Cargo.toml".into(), templates::CARGO_TOML, false),
        ("README.md".into(), templates::README, false),
        (".gitignore".into(), "target/\n.crdgen-stamp\n", false),
        (
            "hack/boilerplate.rs.txt".into(),
            templates::BOILERPLATE,
            false,
        ),
        (
            "hack/update-codegen.sh".into(),
            templates::UPDATE_CODEGEN,
            true,
        ),
        (
            "hack/verify-codegen.sh".into(),
            templates::VERIFY_CODEGEN,
            true,
        ),
        ("src/lib.rs".into(), templates::LIB, false),
        ("src/main.rs".into(), templates::MAIN, false),
        (
            "src/controller/mod.rs".into(),
            templates::CONTROLLER_MOD,
            false,
        ),
        (
            format!("src/controller/{kind_snake}.rs"),
            templates::CONTROLLER,
            false,
        ),
        ("src/apis/mod.rs".into(), templates::APIS_MOD, false),
        (
            format!("src/apis/{group_dir}/mod.rs"),
            templates::GROUP_MOD,
            false,
        ),
        (
            format!("src/apis/{group_dir}/{version}/mod.rs"),
            templates::VERSION_MOD,
            false,
        ),
        (
            format!("src/apis/{group_dir}/{version}/{kind_snake}_types.rs"),
            templates::TYPES,
            false,
        ),
        (
            format!("tests/{kind_snake}_controller.rs"),
            templates::TEST,
            false,
        ),
        ("tests/operator.rs".into(), templates::OPERATOR_TEST, false),
        (
            format!("config/samples/{}", values["sample"]),
            templates::SAMPLE,
            false,
        ),
        (
            "config/rbac/service_account.yaml".into(),
            templates::SERVICE_ACCOUNT,
            false,
        ),
        (
            "config/manager/manager.yaml".into(),
            templates::MANAGER,
            false,
        ),
        ("Dockerfile".into(), templates::DOCKERFILE, false),
        (".dockerignore".into(), templates::DOCKERIGNORE, false),
        ("Makefile".into(), templates::MAKEFILE, false),
        (
            ".github/workflows/ci.yml".into(),
            templates::WORKFLOW,
            false,
        ),
        (
            "config/default/kustomization.yaml".into(),
            templates::DEFAULT_KUSTOMIZATION,
            false,
        ),
        (
            "config/default/metrics_service.yaml".into(),
            templates::METRICS_SERVICE,
            false,
        ),
        (
            "config/crd/kustomization.yaml".into(),
            templates::CRD_KUSTOMIZATION,
            false,
        ),
        (
            "config/crd/kustomizeconfig.yaml".into(),
            templates::CRD_KUSTOMIZECONFIG,
            false,
        ),
        (
            "config/rbac/kustomization.yaml".into(),
            templates::RBAC_KUSTOMIZATION,
            false,
        ),
        (
            "config/manager/kustomization.yaml".into(),
            templates::MANAGER_KUSTOMIZATION,
            false,
        ),
    ];
    // Everything is laid down beside the target and moved into place at the end, so a
    // failure leaves nothing half-written.
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(Error::Io)?;
    let staging = tempfile::Builder::new()
        .prefix(".crdgen-init-")
        .tempdir_in(parent)
        .map_err(Error::Io)?;
    let mut written = Vec::new();
    for (path, template, executable) in files {
        let full = staging.path().join(&path);
        write(&full, &render(template, &values), executable).map_err(Error::Io)?;
        written.push(PathBuf::from(path));
    }
    written.extend(generate(staging.path(), &format!("{group_dir}:{version}"))?);
    format_rust(staging.path(), &written);
    if dir.exists() {
        std::fs::remove_dir(dir).map_err(Error::Io)?;
    }
    std::fs::rename(staging.keep(), dir).map_err(Error::Io)?;
    written.sort();
    Ok(written)
}

fn write(path: &Path, text: &str, executable: bool) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)?;
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    Ok(())
}

/// Generates a project's code, CRDs, role, webhook configurations and API reference, as
/// its `hack/update-codegen.sh` does: with kubebuilder's plain names, which
/// `config/default` prefixes.
fn generate(project: &Path, groups: &str) -> Result<Vec<PathBuf>, Error> {
    use naming::scaffold::{NAMESPACE, ROLE, SERVING_CERTIFICATE, WEBHOOK_SERVICE};
    let mut opts = Options::new(project, "src/client", "src/apis", groups).map_err(Error::Usage)?;
    // Its script's `--docs-dir docs/api`: the reference is generated, and checked, with
    // the code.
    opts.generators.insert(crate::Generator::Docs);
    opts.header = HeaderSource::File("hack/boilerplate.rs.txt".into());
    opts.role_name = ROLE.to_owned();
    opts.webhook_service = crate::options::WebhookService {
        namespace: NAMESPACE.to_owned(),
        name: WEBHOOK_SERVICE.to_owned(),
        inject_ca_from: Some(format!("{NAMESPACE}/{SERVING_CERTIFICATE}")),
        name_prefix: String::new(),
    };
    let files = crate::generate(&opts)?.into_files(&opts)?;
    files.write(project)?;
    Ok(files.output.files.into_keys().collect())
}

/// The `group:v1,v2 other:v1` list of a project's `src/apis` tree.
fn project_groups(project: &Path) -> Result<String, Error> {
    let mut groups = Vec::new();
    let apis = project.join("src/apis");
    let mut group_dirs: Vec<_> = std::fs::read_dir(&apis)
        .map_err(Error::Io)?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .collect();
    group_dirs.sort_by_key(|e| e.file_name());
    for group in group_dirs {
        let mut versions: Vec<String> = std::fs::read_dir(group.path())
            .map_err(Error::Io)?
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .collect();
        versions.sort();
        if !versions.is_empty() {
            groups.push(format!(
                "{}:{}",
                group.file_name().to_string_lossy(),
                versions.join(",")
            ));
        }
    }
    Ok(groups.join(" "))
}

/// `crdgen create api`: adds a kind (types, controller, test) to the project in `project`
/// and regenerates its code.
pub fn create_api(project: &Path, api: &Api) -> Result<Vec<PathBuf>, Error> {
    let usage = Error::Usage;
    let package = project_package(project, "create api")?;
    let mut values = kind_values(api).map_err(usage)?;
    values.insert("crate", package.replace('-', "_"));
    let (group_dir, version, kind_snake) = (
        values["group_dir"].clone(),
        api.version.clone(),
        values["kind_snake"].clone(),
    );
    let main = project.join("src/main.rs");
    let main_text = std::fs::read_to_string(&main).map_err(Error::Io)?;
    for marker in ["// crdgen:build-controllers", "// crdgen:run-controllers"] {
        if !main_text.contains(marker) {
            return Err(usage(format!(
                "src/main.rs lacks the `{marker}` line crdgen adds controllers at"
            )));
        }
    }
    // One lock for the scaffolding and the generation after it, as generate-groups takes.
    let _lock = crate::sink::lock(project).map_err(Error::diagnostic)?;
    let mut plan = crate::sink::Plan::default();
    let new_files = [
        (
            format!("src/apis/{group_dir}/{version}/{kind_snake}_types.rs"),
            templates::TYPES,
        ),
        (
            format!("src/controller/{kind_snake}.rs"),
            templates::CONTROLLER,
        ),
        (format!("tests/{kind_snake}_controller.rs"), templates::TEST),
        (
            format!("config/samples/{}", values["sample"]),
            templates::SAMPLE,
        ),
    ];
    for (rel, template) in new_files {
        plan.changes.push(new_file(
            project,
            rel,
            render(template, &values),
            "create api",
            &api.kind,
        )?);
    }
    let appends = [
        (
            "src/apis/mod.rs".to_owned(),
            format!("pub mod {group_dir};\n"),
            None,
        ),
        (
            format!("src/apis/{group_dir}/mod.rs"),
            format!("pub mod {version};\n"),
            Some(templates::GROUP_MOD),
        ),
        (
            format!("src/apis/{group_dir}/{version}/mod.rs"),
            format!("pub mod {kind_snake}_types;\npub use {kind_snake}_types::*;\n"),
            Some(templates::VERSION_MOD),
        ),
        (
            "src/controller/mod.rs".to_owned(),
            format!("pub mod {kind_snake};\n"),
            None,
        ),
    ];
    for (rel, line, template) in appends {
        let template = template.map(|t| render(t, &values));
        plan.changes
            .extend(appended(project, &rel, &line, template)?);
    }
    plan.changes
        .extend(listed_crd(project, &values["crd_file"])?);
    let new_main = main_text
        .replace("    // crdgen:build-controllers", &format!("    let {kind_snake} = controller::{kind_snake}::new(&clientset, &factory).drain_deadline(drain);\n    // crdgen:build-controllers"))
        .replace("        // crdgen:run-controllers", &format!("        {kind_snake}.run_leading(workers, &term),\n        // crdgen:run-controllers"));
    plan.changes.push((
        "src/main.rs".into(),
        Change::Update {
            old: main_text,
            new: new_main.into(),
        },
    ));
    write_and_regenerate(project, &plan)
}

/// `config/crd/kustomization.yaml` listing the CRD file `crd_file` too.
fn listed_crd(project: &Path, crd_file: &str) -> Result<Option<(PathBuf, Change<'static>)>, Error> {
    let entry = format!("- bases/{crd_file}\n");
    let listed = format!("{entry}{CRD_BASES_MARKER}");
    inserted_at_marker(
        project,
        "config/crd/kustomization.yaml",
        CRD_BASES_MARKER,
        &listed,
        &entry,
    )
}

/// `rel` with its `marker` line replaced by `text` (which keeps the marker when more
/// may come); nothing when it holds `done` already, or when the project has no such
/// file (one made before crdgen wrote it). A file that lost its marker is a usage error.
fn inserted_at_marker(
    project: &Path,
    rel: &str,
    marker: &str,
    text: &str,
    done: &str,
) -> Result<Option<(PathBuf, Change<'static>)>, Error> {
    let Ok(old) = std::fs::read_to_string(project.join(rel)) else {
        return Ok(None);
    };
    if old.contains(done) {
        return Ok(None);
    }
    if !old.contains(marker) {
        return Err(Error::Usage(format!(
            "{rel} lacks the `{}` line crdgen adds to",
            marker.trim_end()
        )));
    }
    let new = old.replacen(marker, text, 1);
    Ok(Some((
        rel.into(),
        Change::Update {
            old,
            new: new.into(),
        },
    )))
}

/// The package name in a project's Cargo.toml (`command` names what needs it).
fn project_package(project: &Path, command: &str) -> Result<String, Error> {
    let cargo = std::fs::read_to_string(project.join("Cargo.toml")).map_err(|_| {
        Error::Usage(format!(
            "`{}` has no Cargo.toml: run crdgen {command} in a project made by crdgen init",
            project.display()
        ))
    })?;
    cargo
        .lines()
        .find_map(|l| l.trim().strip_prefix("name = \"")?.strip_suffix('"'))
        .map(str::to_owned)
        .ok_or_else(|| Error::Usage("Cargo.toml names no package".into()))
}

/// A file the scaffolding adds, which must not exist yet.
fn new_file(
    project: &Path,
    rel: String,
    text: String,
    command: &str,
    kind: &str,
) -> Result<(PathBuf, Change<'static>), Error> {
    if project.join(&rel).exists() {
        return Err(Error::Usage(format!(
            "`{}` exists; crdgen {command} never overwrites a file (is it there for kind {kind} already?)",
            project.join(&rel).display()
        )));
    }
    Ok((rel.into(), Change::Create { new: text.into() }))
}

/// `line` added to the end of `rel` when it is not there yet; a missing file is made
/// from `template` when there is one.
fn appended(
    project: &Path,
    rel: &str,
    line: &str,
    template: Option<String>,
) -> Result<Option<(PathBuf, Change<'static>)>, Error> {
    let change = match std::fs::read_to_string(project.join(rel)) {
        Ok(text) if text.lines().any(|l| line.lines().next() == Some(l)) => return Ok(None),
        Ok(old) => Change::Update {
            new: format!("{old}{line}").into(),
            old,
        },
        Err(_) => match template {
            Some(template) => Change::Create {
                new: template.into(),
            },
            None => return Err(Error::Usage(format!("`{rel}` is missing"))),
        },
    };
    Ok(Some((rel.into(), change)))
}

/// Writes the scaffolding, then regenerates; when the generation fails (it reads what
/// was just written), the scaffolding goes too, so that an error always means nothing
/// changed. The files written and generated.
fn write_and_regenerate(
    project: &Path,
    plan: &crate::sink::Plan<'_>,
) -> Result<Vec<PathBuf>, Error> {
    let mut written: Vec<PathBuf> = plan.changes.iter().map(|(rel, _)| rel.clone()).collect();
    let (_, journal) = crate::sink::write(plan, project, &[])
        .map_err(|d| Error::diagnostics(vec![d], &Default::default()))?;
    let generated = project_groups(project).and_then(|groups| generate(project, &groups));
    match generated {
        Ok(files) => {
            written.extend(files);
            format_rust(project, &written);
        }
        Err(e) => {
            return Err(match journal.undo() {
                Ok(()) => e,
                Err(d) => Error::Diagnostics {
                    rendered: format!("{e}\n{}", d.render(&Default::default())),
                    diagnostics: vec![d],
                },
            });
        }
    }
    written.sort();
    written.dedup();
    Ok(written)
}

/// Lays the scaffolded Rust files out as `cargo fmt` does (kubebuilder runs `go fmt`
/// after it scaffolds): where a template's lines break depends on the names put in it.
/// Generated code (`src/client`) carries `rustfmt::skip` and is left as written. Without
/// rustfmt, or where it fails on the user's own code, the files stay as written: the
/// project's `cargo fmt` does the rest.
fn format_rust(root: &Path, files: &[PathBuf]) {
    let rust: Vec<PathBuf> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs") && !f.starts_with("src/client"))
        .map(|f| root.join(f))
        .collect();
    if rust.is_empty() {
        return;
    }
    let _ = std::process::Command::new("rustfmt")
        .args(["--edition", "2024"])
        .args(&rust)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_have_a_value_for_every_placeholder() {
        let api = Api {
            group: "bcrds.example.com".into(),
            version: "v1alpha1".into(),
            kind: "Example".into(),
            namespaced: true,
        };
        let mut values = kind_values(&api).unwrap();
        for key in [
            "name",
            "namespace",
            "name_prefix",
            "crate",
            "crdgen_version",
            "runtime",
            "runtime_envtest",
            "sharding",
            "replicas",
        ] {
            values.insert(key, "x".into());
        }
        let all = [
            templates::CARGO_TOML,
            templates::README,
            templates::UPDATE_CODEGEN,
            templates::MAIN,
            templates::CONTROLLER_MOD,
            templates::CONTROLLER,
            templates::APIS_MOD,
            templates::GROUP_MOD,
            templates::VERSION_MOD,
            templates::TYPES,
            templates::TEST,
            templates::OPERATOR_TEST,
            templates::SAMPLE,
            templates::SERVICE_ACCOUNT,
            templates::MANAGER,
            templates::DOCKERFILE,
            templates::DEFAULT_KUSTOMIZATION,
            templates::CRD_KUSTOMIZATION,
            templates::MANAGER_KUSTOMIZATION,
            templates::METRICS_SERVICE,
            templates::WEBHOOK_SERVICE,
            templates::CERTIFICATE,
            templates::DEFAULT_WEBHOOKS,
            templates::WORKFLOW,
        ];
        for template in all {
            let rendered = render(template, &values).replace("${{", "");
            assert!(!rendered.contains("{{"), "{template}");
        }
        // The workflow's expressions are GitHub's, not placeholders.
        assert!(
            render(templates::WORKFLOW, &values)
                .contains("${{ github.event.pull_request.base.sha }}")
        );
    }

    #[test]
    fn names_and_versions_are_checked() {
        let api = |group: &str, version: &str, kind: &str| Api {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            namespaced: true,
        };
        assert!(
            kind_values(&api("bcrds", "v1", "Example"))
                .unwrap_err()
                .contains("API group")
        );
        assert!(
            kind_values(&api("a.b", "1", "Example"))
                .unwrap_err()
                .contains("API version")
        );
        assert!(
            kind_values(&api("a.b", "v1", "example"))
                .unwrap_err()
                .contains("kind name")
        );
        assert_eq!(
            runtime_dependency("path:../runtime", &[]).unwrap(),
            "{ path = \"../runtime\" }"
        );
        assert_eq!(
            runtime_dependency("version:0.1", &["envtest"]).unwrap(),
            "{ version = \"0.1\", features = [\"envtest\"] }"
        );
        assert!(runtime_dependency("nowhere", &[]).is_err());
    }
}
