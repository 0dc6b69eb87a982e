//! `crdgen init` and `crdgen create api`: the scaffolded project is built and its own
//! tests run (its controller against the in-memory API server), its drift check passes,
//! and with CRDGEN_E2E_KUBECONFIG the operator reconciles an object in a real cluster.

mod common;
#[path = "scaffold/deployed.rs"]
mod deployed;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crdgen_runtime::testing::cluster;
use deployed::{Deployed, shipping_checks};
use serde::Deserialize;

/// The documents of a multi-document YAML file, as values.
fn documents(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    serde_yaml_ng::Deserializer::from_str(&text)
        .map(|doc| serde_json::Value::deserialize(doc).unwrap())
        .collect()
}

use common::crdgen;

/// This checkout's runtime, which scaffolded projects take (`--runtime-path`) to build
/// against the code under test.
fn runtime_path() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("runtime")
        .display()
        .to_string()
}

/// Builds and tests a scaffolded project with this workspace's lock file (so it uses the
/// same dependency versions) in a target directory kept between runs.
fn cargo_test(project: &Path) -> Output {
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock"),
        project.join("Cargo.lock"),
    )
    .unwrap();
    Command::new(env!("CARGO"))
        .current_dir(project)
        .args(["test", "--quiet"])
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap()
}

/// `create webhook` for the first kind of the project `init_builds…` makes, with `flags`.
fn example_webhook<'a>(flags: &[&'a str]) -> Vec<&'a str> {
    let kind = [
        "create",
        "webhook",
        "--group",
        "bcrds.example.com",
        "--version",
        "v1alpha1",
        "--kind",
        "Example",
    ];
    kind.into_iter().chain(flags.iter().copied()).collect()
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("scaffolded")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn init_builds_a_project_that_tests_itself_and_create_api_adds_a_kind() {
    let dir = tempfile::tempdir().unwrap();
    let out = crdgen(
        dir.path(),
        &[
            "init",
            "my-operator",
            "--group",
            "bcrds.example.com",
            "--version",
            "v1alpha1",
            "--kind",
            "Example",
            "--runtime-path",
            &runtime_path(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("Next steps:\n  cd "), "{}", text(&out));
    let project = dir.path().join("my-operator");
    // Without crdgen on PATH or $CRDGEN, the script says where it looks.
    let script = Command::new("bash")
        .arg(project.join("hack/update-codegen.sh"))
        .env("PATH", "/usr/bin:/bin")
        .env_remove("CRDGEN")
        .output()
        .unwrap();
    assert_eq!(script.status.code(), Some(1));
    assert!(
        text(&script).contains("set CRDGEN to its binary"),
        "{}",
        text(&script)
    );
    for file in [
        "Cargo.toml",
        "src/main.rs",
        "src/apis/bcrds/v1alpha1/example_types.rs",
        "src/controller/example.rs",
        "src/client/clientset/mod.rs",
        "src/client/informers/mod.rs",
        "src/client/listers/mod.rs",
        "config/crd/bases/bcrds.example.com_examples.yaml",
        "hack/update-codegen.sh",
        "hack/verify-codegen.sh",
        "hack/boilerplate.rs.txt",
        "config/samples/bcrds_v1alpha1_example.yaml",
        "docs/api/bcrds.example.com_v1alpha1.md",
        "docs/api/index.html",
        "config/rbac/role.yaml",
        "config/rbac/service_account.yaml",
        "config/manager/manager.yaml",
        "config/default/kustomization.yaml",
        "config/default/metrics_service.yaml",
        "config/crd/kustomization.yaml",
        "config/rbac/kustomization.yaml",
        "config/manager/kustomization.yaml",
        "Dockerfile",
        ".dockerignore",
        "Makefile",
        ".github/workflows/ci.yml",
    ] {
        assert!(project.join(file).is_file(), "{file} was not laid down");
    }

    // A second kind, cluster-scoped, in another version.
    let out = crdgen(
        &project,
        &[
            "create",
            "api",
            "--group",
            "bcrds.example.com",
            "--version",
            "v1beta1",
            "--kind",
            "Widget",
            "--cluster",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for file in [
        "config/crd/bases/bcrds.example.com_widgets.yaml",
        "config/samples/bcrds_v1beta1_widget.yaml",
    ] {
        assert!(project.join(file).is_file(), "{file} was not laid down");
    }
    // The first kind's webhooks: handlers with their markers, the server in main.rs, the
    // Service and Certificate, the configurations naming them, the CRD converting.
    let out = crdgen(
        &project,
        &example_webhook(&["--defaulting", "--programmatic-validation", "--conversion"]),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for file in [
        "src/webhook/mod.rs",
        "src/webhook/example.rs",
        "tests/example_webhook.rs",
        "config/webhook/service.yaml",
        "config/webhook/manifests.yaml",
        "config/webhook/kustomization.yaml",
        "config/certmanager/certificate.yaml",
        "config/certmanager/kustomization.yaml",
    ] {
        assert!(project.join(file).is_file(), "{file} was not laid down");
    }
    let configurations: Vec<_> = documents(&project.join("config/webhook/manifests.yaml"));
    assert_eq!(configurations.len(), 2, "{configurations:#?}");
    let crd =
        std::fs::read_to_string(project.join("config/crd/bases/bcrds.example.com_examples.yaml"))
            .unwrap();
    assert!(crd.contains("strategy: Webhook"), "{crd}");
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    assert!(
        readme.contains("## Running with webhooks") && readme.contains("--no-webhooks"),
        "{readme}"
    );
    let again = crdgen(&project, &example_webhook(&["--defaulting"]));
    assert_eq!(
        again.status.code(),
        Some(2),
        "a second time is a usage error: {}",
        text(&again)
    );

    // What `kubectl apply -k config/default` deploys: every object in its place.
    let deployed = Deployed::render(&project);
    deployed.check("my-operator");
    shipping_checks(&project, &deployed);
    let main = std::fs::read_to_string(project.join("src/main.rs")).unwrap();
    assert!(
        main.contains(
            "let widget = controller::widget::new(&clientset, &factory).drain_deadline(drain);"
        ),
        "{main}"
    );
    assert!(
        main.contains("widget.run_leading(workers, &term),"),
        "{main}"
    );

    // The package and its binary keep the name typed, as `cargo new my-operator` does.
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"my-operator\""), "{manifest}");
    // The stamp crdgen leaves beside generated code is a cache, never committed.
    let ignored = std::fs::read_to_string(project.join(".gitignore")).unwrap();
    assert!(
        ignored.lines().any(|l| l == crdgen::STAMP_FILE),
        "{ignored}"
    );

    // Its own tests: each controller against the in-memory API server, and on a real
    // control plane when this run has one (envtest or CRDGEN_E2E_KUBECONFIG).
    let out = cargo_test(&project);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report = text(&out);
    assert_eq!(
        report.matches("test result: ok. 6 passed").count(),
        2,
        "six tests per kind:\n{report}"
    );
    let real = std::env::var_os(cluster::KUBECONFIG_VARIABLE).is_some()
        || crdgen_runtime::testing::envtest::Binaries::find().is_ok();
    assert_eq!(
        report.matches("real-cluster suite ran against").count(),
        if real { 3 } else { 0 },
        "each kind's controller, and the operator binary, on the real control plane:\n{report}"
    );
    // A CI that sets CRDGEN_E2E_REQUIRED fails where a real-cluster test would skip.
    if !real {
        let required = Command::new(env!("CARGO"))
            .current_dir(&project)
            .args(["test", "--quiet", "--test", "operator"])
            .env("CARGO_TARGET_DIR", target_dir())
            .env("CRDGEN_E2E_REQUIRED", "true")
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap();
        assert_ne!(required.status.code(), Some(0), "{}", text(&required));
        assert!(
            text(&required)
                .contains("CRDGEN_E2E_REQUIRED is set, so a real control plane must be at hand"),
            "{}",
            text(&required)
        );
    }
    // Clean as a project's own CI wants it: formatted, and no clippy warning (where the
    // toolchain has rustfmt and clippy; the scaffold formats with rustfmt when it can).
    let has = |tool: &str| {
        Command::new(env!("CARGO"))
            .args([tool, "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if has("fmt") {
        let fmt = Command::new(env!("CARGO"))
            .current_dir(&project)
            .args(["fmt", "--check"])
            .output()
            .unwrap();
        assert_eq!(
            fmt.status.code(),
            Some(0),
            "cargo fmt --check:\n{}",
            text(&fmt)
        );
    }
    if has("clippy") {
        let clippy = Command::new(env!("CARGO"))
            .current_dir(&project)
            .args(["clippy", "--quiet", "--all-targets", "--", "-D", "warnings"])
            .env("CARGO_TARGET_DIR", target_dir())
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap();
        assert_eq!(
            clippy.status.code(),
            Some(0),
            "cargo clippy:\n{}",
            text(&clippy)
        );
    }
    // The in-memory server is for tests: a release build leaves it out.
    let tree = Command::new(env!("CARGO"))
        .current_dir(&project)
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,features",
            "-i",
            "crdgen-runtime",
        ])
        .output()
        .unwrap();
    let tree = text(&tree);
    assert!(
        tree.contains(r#"crdgen-runtime feature "manager""#),
        "{tree}"
    );
    assert!(!tree.contains(r#"feature "testing""#), "{tree}");

    // Its drift check, with this crdgen.
    let verify = |base: Option<&str>| {
        let mut command = Command::new(project.join("hack/verify-codegen.sh"));
        command.env("CRDGEN", env!("CARGO_BIN_EXE_crdgen"));
        if let Some(base) = base {
            command.env("COMPAT_BASE", base);
        }
        command.output().unwrap()
    };
    let out = verify(None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // A stale page of the API reference fails it, as stale code does.
    let page = project.join("docs/api/index.html");
    let reference = std::fs::read_to_string(&page).unwrap();
    assert!(reference.contains("example-sample"), "the sample is shown");
    std::fs::write(
        &page,
        reference.replace("<h3>Example</h3>", "<h3>Sample</h3>"),
    )
    .unwrap();
    let out = verify(None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("docs/api/index.html"), "{}", text(&out));
    std::fs::write(&page, reference).unwrap();

    // Its CI's compatibility check against the base branch: nothing breaks, then a
    // tightened bound does, where its marker is.
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .current_dir(&project)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", text(&out));
    };
    git(&["init", "-q"]);
    git(&["add", "config", "src"]);
    git(&[
        "-c",
        "user.name=CI",
        "-c",
        "user.email=ci@example.com",
        "commit",
        "-qm",
        "scaffold",
    ]);
    let out = verify(Some("HEAD"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("crdgen compat: 0 breaking"),
        "{}",
        text(&out)
    );
    let types = project.join("src/apis/bcrds/v1alpha1/example_types.rs");
    let source = std::fs::read_to_string(&types).unwrap();
    let bounded = source.replacen(
        "    pub foo: Option<String>,",
        "    /// +kubebuilder:validation:MinLength=3\n    pub foo: Option<String>,",
        1,
    );
    assert_ne!(bounded, source, "the scaffold's spec has its `foo`");
    std::fs::write(&types, bounded).unwrap();
    let update = Command::new(project.join("hack/update-codegen.sh"))
        .env("CRDGEN", env!("CARGO_BIN_EXE_crdgen"))
        .output()
        .unwrap();
    assert!(update.status.success(), "{}", text(&update));
    let out = verify(Some("HEAD"));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("error[E0039]: examples.bcrds.example.com v1alpha1 `.spec.foo`: its minLength tightened from none to 3")
            && text(&out).contains("--> src/apis/bcrds/v1alpha1/example_types.rs:"),
        "{}",
        text(&out)
    );
}

/// Without `--runtime`, the project takes the published crdgen-runtime of crdgen's own
/// version, so that it builds anywhere (its image too); `--runtime-path`, or
/// CRDGEN_RUNTIME_PATH, takes a checkout's instead, for working on crdgen itself.
#[test]
fn init_takes_the_published_runtime_of_its_version_unless_told_a_path() {
    let dir = tempfile::tempdir().unwrap();
    // `init NAME` with `extra` arguments and CRDGEN_RUNTIME_PATH set to `env`.
    let init = |name: &str, extra: &[&str], env: Option<&str>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_crdgen"));
        command
            .current_dir(dir.path())
            .env_remove("CRDGEN_RUNTIME_PATH");
        if let Some(path) = env {
            command.env("CRDGEN_RUNTIME_PATH", path);
        }
        let api = ["--group", "a.example.com", "--version", "v1", "--kind", "A"];
        let out = command
            .args(["init", name])
            .args(api)
            .args(extra)
            .output()
            .unwrap();
        let manifest = std::fs::read_to_string(dir.path().join(name).join("Cargo.toml"));
        (out, manifest.unwrap_or_default())
    };
    let version = env!("CARGO_PKG_VERSION");
    let (out, manifest) = init("plain", &[], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("crdgen-runtime from version:{version}")),
        "{}",
        text(&out)
    );
    assert!(
        manifest.contains(&format!(
            "crdgen-runtime = {{ version = \"{version}\", features = [\"manager\"] }}"
        )),
        "{manifest}"
    );
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
    let shown = runtime.display().to_string();
    let path_dependency =
        format!("crdgen-runtime = {{ path = {shown:?}, features = [\"manager\"] }}");
    let (out, manifest) = init("flag", &["--runtime-path", &shown], None);
    assert!(
        text(&out).contains(&format!("crdgen-runtime from path:{shown}")),
        "{}",
        text(&out)
    );
    assert!(manifest.contains(&path_dependency), "{manifest}");
    let (_, manifest) = init("env", &[], Some(&shown));
    assert!(manifest.contains(&path_dependency), "{manifest}");
    // Both ways at once is a mistake, not a choice.
    let (out, _) = init(
        "both",
        &["--runtime", "version:9", "--runtime-path", &shown],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn init_refuses_a_directory_that_is_not_empty() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("taken")).unwrap();
    std::fs::write(dir.path().join("taken/keep.txt"), "mine").unwrap();
    let out = crdgen(
        dir.path(),
        &[
            "init",
            "taken",
            "--group",
            "a.example.com",
            "--version",
            "v1",
            "--kind",
            "A",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(
        text(&out).contains("exists and is not empty"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_dir(dir.path().join("taken")).unwrap().count(),
        1
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "nothing was left beside it"
    );
}

/// `--sharding` makes sharding the operator's default and deploys three replicas, each
/// told its pod name (its name in the ring); without it, one replica that elects.
#[test]
fn init_sharding_shares_the_objects_among_three_replicas() {
    let dir = tempfile::tempdir().unwrap();
    let sharded = init_probe_project(dir.path(), "sharded", &["--sharding"]);
    let unsharded = init_probe_project(dir.path(), "unsharded", &[]);
    for (project, sharding, replicas) in [(sharded, "true", 3), (unsharded, "false", 1)] {
        let main = std::fs::read_to_string(project.join("src/main.rs")).unwrap();
        let flag = format!(
            "#[arg(long, default_value_t = {sharding}, action = clap::ArgAction::Set)]\n    sharding: bool,"
        );
        assert!(main.contains(&flag), "{main}");
        let deployed = documents(&project.join("config/manager/manager.yaml"));
        let deployment = deployed.iter().find(|d| d["kind"] == "Deployment").unwrap();
        assert_eq!(deployment["spec"]["replicas"], replicas);
        let env = &deployment["spec"]["template"]["spec"]["containers"][0]["env"];
        let pod_name = env
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "POD_NAME");
        assert_eq!(
            pod_name.unwrap()["valueFrom"]["fieldRef"]["fieldPath"],
            "metadata.name"
        );
    }
}

/// `crdgen init NAME` in `dir` for a namespaced `e2e.crdgen.dev/v1alpha1` Probe, with
/// `flags` more.
fn init_probe_project(dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let runtime = runtime_path();
    let args = [
        "init",
        name,
        "--group",
        "e2e.crdgen.dev",
        "--version",
        "v1alpha1",
        "--kind",
        "Probe",
        "--runtime-path",
        &runtime,
    ];
    let out = crdgen(dir, &[&args[..], flags].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    dir.join(name)
}

/// With a real apiserver: everything `kubectl apply -k config/default` sends (webhooks
/// included) passes its validation, as server-side dry runs in the project's namespace
/// (created for real first). cert-manager's Issuer and Certificate are left out: their
/// CRDs are cert-manager's, not in an envtest control plane.
#[tokio::test]
async fn the_deployed_manifests_pass_the_apiservers_validation() {
    use kube::api::{Api, DynamicObject, PostParams};
    use kube::discovery::pinned_kind;

    let Some(cluster::Connection { client, .. }) =
        cluster::connect("scaffold e2e (manifests)").await
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A fresh name per run: its namespace stays behind (envtest never finishes a
    // namespace's deletion).
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let name = format!("dry{}", millis % 1_000_000_000);
    let project = init_probe_project(dir.path(), &name, &[]);
    let webhook = [
        "create",
        "webhook",
        "--group",
        "e2e.crdgen.dev",
        "--version",
        "v1alpha1",
        "--kind",
        "Probe",
        "--defaulting",
        "--programmatic-validation",
    ];
    assert_eq!(crdgen(&project, &webhook).status.code(), Some(0));
    let deployed = Deployed::render(&project);
    let mut refused = Vec::new();
    let (real, dry) = (
        PostParams::default(),
        PostParams {
            dry_run: true,
            ..Default::default()
        },
    );
    for object in &deployed.objects {
        if object["apiVersion"] == "cert-manager.io/v1" {
            continue;
        }
        let object: DynamicObject = serde_json::from_value(object.clone()).unwrap();
        let types = object.types.clone().unwrap();
        let gvk = kube::api::GroupVersionKind::try_from(&types).unwrap();
        let (resource, capabilities) = pinned_kind(&client, &gvk).await.unwrap();
        let api: Api<DynamicObject> = match (capabilities.scope, &object.metadata.namespace) {
            (kube::discovery::Scope::Namespaced, Some(ns)) => {
                Api::namespaced_with(client.clone(), ns, &resource)
            }
            _ => Api::all_with(client.clone(), &resource),
        };
        let params = if types.kind == "Namespace" {
            &real
        } else {
            &dry
        };
        if let Err(e) = api.create(params, &object).await {
            refused.push(format!(
                "{} {}: {e}",
                types.kind,
                object.metadata.name.unwrap_or_default()
            ));
        }
    }
    assert!(refused.is_empty(), "the apiserver refused: {refused:#?}");
}
