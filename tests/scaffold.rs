//! `crdgen init` and `crdgen create api`: the scaffolded project is built and its own
//! tests run (its controller against the in-memory API server), its drift check passes,
//! and with CRDGEN_E2E_KUBECONFIG the operator reconciles an object in a real cluster.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crdgen_runtime::testing::cluster;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::Deserialize;

/// A YAML file of two documents, as the two types.
/// The documents of a multi-document YAML file, as values.
fn documents(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    serde_yaml_ng::Deserializer::from_str(&text)
        .map(|doc| serde_json::Value::deserialize(doc).unwrap())
        .collect()
}

/// The one document of `kind` in `path`, typed.
fn document<T: for<'de> Deserialize<'de>>(path: &Path, kind: &str) -> T {
    let mut found = documents(path).into_iter().filter(|d| d["kind"] == kind);
    let one = found
        .next()
        .unwrap_or_else(|| panic!("no {kind} in {}", path.display()));
    assert!(found.next().is_none(), "one {kind} in {}", path.display());
    serde_json::from_value(one).unwrap()
}

use common::crdgen;

fn runtime_path() -> String {
    format!(
        "path:{}",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("runtime")
            .display()
    )
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
            "--runtime",
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
        "config/rbac/role.yaml",
        "config/rbac/service_account.yaml",
        "config/manager/manager.yaml",
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
        "config/certmanager/certificate.yaml",
    ] {
        assert!(project.join(file).is_file(), "{file} was not laid down");
    }
    let manifests = std::fs::read_to_string(project.join("config/webhook/manifests.yaml")).unwrap();
    let configurations: Vec<serde_json::Value> = serde_yaml_ng::Deserializer::from_str(&manifests)
        .map(|doc| serde::Deserialize::deserialize(doc).unwrap())
        .collect();
    assert_eq!(configurations.len(), 2, "{manifests}");
    let service: k8s_openapi::api::core::v1::Service = serde_yaml_ng::from_str(
        &std::fs::read_to_string(project.join("config/webhook/service.yaml")).unwrap(),
    )
    .unwrap();
    for configuration in &configurations {
        assert_eq!(
            configuration["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
            "my-operator-system/my-operator-serving-cert"
        );
        let reference = &configuration["webhooks"][0]["clientConfig"]["service"];
        assert_eq!(reference["name"].as_str(), service.metadata.name.as_deref());
        assert_eq!(
            reference["namespace"].as_str(),
            service.metadata.namespace.as_deref()
        );
    }
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

    // The role grants what each kind's controller does: watch it, write its status;
    // and what main.rs does: record events, and (in its namespace) hold the leader Lease.
    let roles = project.join("config/rbac/role.yaml");
    let role: ClusterRole = document(&roles, "ClusterRole");
    let lease_role: Role = document(&roles, "Role");
    let grants = |rules: &Option<Vec<PolicyRule>>, group: &str, resource: &str, verb: &str| {
        rules.iter().flatten().any(|rule| {
            rule.api_groups.iter().flatten().any(|g| g == group)
                && rule.resources.iter().flatten().any(|r| r == resource)
                && rule.verbs.iter().any(|v| v == verb)
        })
    };
    let granted =
        |resource: &str, verb: &str| grants(&role.rules, "bcrds.example.com", resource, verb);
    for resource in ["examples", "widgets"] {
        for verb in ["list", "watch", "get"] {
            assert!(granted(resource, verb), "{verb} {resource} in {role:?}");
        }
        assert!(granted(&format!("{resource}/status"), "patch"), "{role:?}");
    }
    assert!(
        grants(&role.rules, "events.k8s.io", "events", "create"),
        "{role:?}"
    );
    assert_eq!(
        lease_role.metadata.namespace.as_deref(),
        Some("my-operator-system")
    );
    for verb in ["get", "create", "update"] {
        assert!(
            grants(&lease_role.rules, "coordination.k8s.io", "leases", verb),
            "{lease_role:?}"
        );
    }
    // The deployment runs as the service account both roles are bound to, in one
    // namespace, electing a leader there, with its probes and metrics port.
    let accounts = project.join("config/rbac/service_account.yaml");
    let account: ServiceAccount = document(&accounts, "ServiceAccount");
    let binding: ClusterRoleBinding = document(&accounts, "ClusterRoleBinding");
    let lease_binding: RoleBinding = document(&accounts, "RoleBinding");
    let manager = project.join("config/manager/manager.yaml");
    let namespace: Namespace = document(&manager, "Namespace");
    let deployment: Deployment = document(&manager, "Deployment");
    assert_eq!(binding.role_ref.name, role.metadata.name.clone().unwrap());
    assert_eq!(
        (
            &lease_binding.role_ref.kind,
            Some(&lease_binding.role_ref.name)
        ),
        (&"Role".to_owned(), lease_role.metadata.name.as_ref())
    );
    assert_eq!(
        lease_binding.metadata.namespace,
        lease_role.metadata.namespace
    );
    assert_eq!(lease_binding.subjects, binding.subjects);
    let subject = &binding.subjects.unwrap()[0];
    assert_eq!(
        (Some(&subject.name), subject.namespace.as_ref()),
        (
            account.metadata.name.as_ref(),
            account.metadata.namespace.as_ref()
        )
    );
    assert_eq!(account.metadata.namespace, namespace.metadata.name);
    assert_eq!(deployment.metadata.namespace, namespace.metadata.name);
    let pod = deployment.spec.template.spec.unwrap();
    assert_eq!(pod.service_account_name, account.metadata.name);
    let container = &pod.containers[0];
    let args = container.args.clone().unwrap_or_default();
    assert!(args.contains(&"--leader-elect=true".to_owned()), "{args:?}");
    let port = |name: &str| {
        container
            .ports
            .iter()
            .flatten()
            .find(|p| p.name.as_deref() == Some(name))
            .map(|p| p.container_port)
    };
    assert_eq!((port("metrics"), port("health")), (Some(8080), Some(8081)));
    assert!(args.contains(&"--metrics-bind-address=0.0.0.0:8080".to_owned()));
    assert!(args.contains(&"--health-probe-bind-address=0.0.0.0:8081".to_owned()));
    for (probe, path) in [
        (&container.liveness_probe, "/healthz"),
        (&container.readiness_probe, "/readyz"),
    ] {
        let get = probe.as_ref().and_then(|p| p.http_get.as_ref()).unwrap();
        assert_eq!(get.path.as_deref(), Some(path));
        assert_eq!(get.port, IntOrString::String("health".into()));
    }
    let lease_namespace = container
        .env
        .iter()
        .flatten()
        .find(|e| e.name == "POD_NAMESPACE");
    assert_eq!(
        lease_namespace
            .and_then(|e| e.value_from.as_ref())
            .and_then(|v| v.field_ref.as_ref())
            .map(|f| f.field_path.as_str()),
        Some("metadata.namespace")
    );
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
        ignored.lines().any(|l| l == crdgen::naming::STAMP_FILE),
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
    let verify = Command::new(project.join("hack/verify-codegen.sh"))
        .env("CRDGEN", env!("CARGO_BIN_EXE_crdgen"))
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify));
}

/// Without `--runtime`, a crdgen built from a checkout points the project at that
/// checkout's runtime, so that the project builds as it is, and says so.
#[test]
fn init_takes_the_runtime_of_crdgens_checkout_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let out = crdgen(
        dir.path(),
        &[
            "init",
            "plain",
            "--group",
            "a.example.com",
            "--version",
            "v1",
            "--kind",
            "A",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
    assert!(text(&out).contains(&format!("crdgen-runtime from path:{}", runtime.display())));
    let manifest = std::fs::read_to_string(dir.path().join("plain/Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!(
            "crdgen-runtime = {{ path = {:?}, features = [\"manager\"] }}",
            runtime.display().to_string()
        )),
        "{manifest}"
    );
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

/// Creates `object` as a server-side dry run: what the apiserver's validation says of it.
async fn dry_run<K>(api: kube::Api<K>, object: &K) -> Result<(), kube::Error>
where
    K: kube::Resource + Clone + serde::Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let dry_run = kube::api::PostParams {
        dry_run: true,
        ..Default::default()
    };
    api.create(&dry_run, object).await.map(drop)
}

/// `crdgen init NAME` in `dir` for a namespaced `e2e.crdgen.dev/v1alpha1` Probe.
fn init_probe_project(dir: &Path, name: &str) -> PathBuf {
    let args = [
        "init",
        name,
        "--group",
        "e2e.crdgen.dev",
        "--version",
        "v1alpha1",
        "--kind",
        "Probe",
        "--runtime",
        &runtime_path(),
    ];
    assert_eq!(crdgen(dir, &args).status.code(), Some(0));
    dir.join(name)
}

/// With CRDGEN_E2E_KUBECONFIG: the scaffolded RBAC and Deployment pass the apiserver's
/// validation, as server-side dry runs (the namespaced ones in `default`).
#[tokio::test]
async fn the_scaffolded_manifests_pass_the_apiservers_validation() {
    use kube::api::Api;

    let Some(cluster::Connection { client, .. }) =
        cluster::connect("scaffold e2e (manifests)").await
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let project = init_probe_project(dir.path(), "manifests");
    let (roles, accounts, manager) = (
        project.join("config/rbac/role.yaml"),
        project.join("config/rbac/service_account.yaml"),
        project.join("config/manager/manager.yaml"),
    );
    let role: ClusterRole = document(&roles, "ClusterRole");
    let mut lease_role: Role = document(&roles, "Role");
    let mut account: ServiceAccount = document(&accounts, "ServiceAccount");
    let binding: ClusterRoleBinding = document(&accounts, "ClusterRoleBinding");
    let mut lease_binding: RoleBinding = document(&accounts, "RoleBinding");
    let namespace: Namespace = document(&manager, "Namespace");
    let mut deployment: Deployment = document(&manager, "Deployment");
    account.metadata.namespace = Some("default".into());
    deployment.metadata.namespace = Some("default".into());
    lease_role.metadata.namespace = Some("default".into());
    lease_binding.metadata.namespace = Some("default".into());

    let c = &client;
    let outcomes = [
        ("Namespace", dry_run(Api::all(c.clone()), &namespace).await),
        ("ClusterRole", dry_run(Api::all(c.clone()), &role).await),
        (
            "ClusterRoleBinding",
            dry_run(Api::all(c.clone()), &binding).await,
        ),
        (
            "Role",
            dry_run(Api::namespaced(c.clone(), "default"), &lease_role).await,
        ),
        (
            "RoleBinding",
            dry_run(Api::namespaced(c.clone(), "default"), &lease_binding).await,
        ),
        (
            "ServiceAccount",
            dry_run(Api::namespaced(c.clone(), "default"), &account).await,
        ),
        (
            "Deployment",
            dry_run(Api::namespaced(c.clone(), "default"), &deployment).await,
        ),
    ];
    let refused: Vec<_> = outcomes
        .into_iter()
        .filter_map(|(kind, outcome)| outcome.err().map(|e| format!("{kind}: {e}")))
        .collect();
    assert!(refused.is_empty(), "the apiserver refused: {refused:#?}");
}
