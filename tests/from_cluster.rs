//! `crdgen import --from-cluster` and `crdgen compat --from-cluster`, run as a user runs
//! them, against the cluster a kubeconfig names: the in-memory API server on a loopback
//! port, and a real apiserver where one is at hand. Both must give what the same CRDs
//! from their file give, and both answer a wrong name the same way.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{testdata, tree};
use crdgen_runtime::testing::{ApiServer, Listening, cluster};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, PostParams};

/// The features fixture: two kinds of one group, every form the import writes.
fn fixture() -> PathBuf {
    testdata("import/features/widgets.yaml")
}

/// Runs crdgen in `dir` finding its cluster through `kubeconfig` alone: no home
/// directory's kubeconfig, no in-cluster service account.
async fn crdgen_with(dir: &Path, kubeconfig: &Path, args: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_crdgen"));
    command
        .current_dir(dir)
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", dir)
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    // The server under test answers on this runtime: wait for the child off it.
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// What the warnings say, without where.
fn warnings(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|line| line.starts_with("warning["))
        .map(str::to_owned)
        .collect()
}

/// What a cluster serving the fixture's CRDs must give: the same package as the file,
/// a misspelt name refused with the served name suggested and nothing written, and
/// `--context` honoured.
async fn check_against(kubeconfig: &Path) {
    let names: Vec<String> = documents(&fixture())
        .iter()
        .map(|crd| crd["metadata"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        ["widgets.shop.example.com", "gadgets.shop.example.com"]
    );

    let from_file = tempfile::tempdir().unwrap();
    let out = crdgen_with(
        from_file.path(),
        kubeconfig,
        &["import", fixture().to_str().unwrap()],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let file_warnings = warnings(&out);
    assert_eq!(
        file_warnings.len(),
        1,
        "the fixture's one oneOf: {file_warnings:?}"
    );

    let from_cluster = tempfile::tempdir().unwrap();
    let mut args = vec!["import", "--from-cluster"];
    args.extend(names.iter().map(String::as_str));
    let out = crdgen_with(from_cluster.path(), kubeconfig, &args).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let package = tree(&from_cluster.path().join("pkg"));
    assert_eq!(package, tree(&from_file.path().join("pkg")));
    assert!(
        package
            .iter()
            .any(|(p, _)| p.ends_with("shop/v1/widget.rs")),
        "{package:?}"
    );
    assert_eq!(warnings(&out), file_warnings, "the same paths are lost");

    let wrong = tempfile::tempdir().unwrap();
    let out = crdgen_with(
        wrong.path(),
        kubeconfig,
        &["import", "--from-cluster", "widget.shop.example.com"],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("error[E0026]: the cluster has no CRD `widget.shop.example.com`"),
        "{said}"
    );
    assert!(
        said.contains("did you mean `widgets.shop.example.com`?"),
        "{said}"
    );
    assert!(tree(wrong.path()).is_empty(), "nothing is written");

    let out = crdgen_with(
        wrong.path(),
        kubeconfig,
        &[
            "import",
            "--from-cluster",
            &names[0],
            "--context",
            "elsewhere",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("error[E0026]: no cluster to read CRDs from") && said.contains("elsewhere"),
        "{said}"
    );
}

/// What `crdgen compat --from-cluster` says of new CRDs against a cluster serving the
/// field-removed fixture's old one: the removal, the old side named as the cluster's,
/// and a CRD the cluster lacks passed over as new.
async fn check_compat_against(kubeconfig: &Path) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        testdata("compat/field-removed/new.yaml"),
        dir.path().join("widgets.yaml"),
    )
    .unwrap();
    std::fs::copy(
        testdata("crds/expected/config/crd/bases/versions.crdgen.dev_multis.yaml"),
        dir.path().join("multis.yaml"),
    )
    .unwrap();
    let out = crdgen_with(
        dir.path(),
        kubeconfig,
        &["compat", "--from-cluster", ".", "--format", "json"],
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{json:#}");
    assert_eq!(findings[0]["rule"], "field-removed");
    assert_eq!(findings[0]["path"], ".spec.name");
    assert_eq!(findings[0]["file"], "./widgets.yaml");
}

/// The CRD documents of a YAML file.
fn documents(path: &Path) -> Vec<serde_json::Value> {
    common::yaml_documents(&std::fs::read_to_string(path).unwrap())
}

/// The in-memory server serving `crds` on a loopback port, and a kubeconfig for it
/// (in the returned directory). The CRDs are created as their files' JSON: the
/// in-memory server keeps numbers as written, where an apiserver writes an integral
/// `100.0` back as `100`, as the files have it.
async fn serving(crds: Vec<serde_json::Value>) -> (Listening, tempfile::TempDir, PathBuf) {
    let server = ApiServer::new();
    server.register::<CustomResourceDefinition>();
    let resource = ApiResource::erase::<CustomResourceDefinition>(&());
    let api: Api<DynamicObject> = Api::all_with(server.client(), &resource);
    for crd in crds {
        let crd: DynamicObject = serde_json::from_value(crd).unwrap();
        api.create(&PostParams::default(), &crd).await.unwrap();
    }
    let listening = server.listen().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    listening.write_kubeconfig(&kubeconfig).unwrap();
    (listening, dir, kubeconfig)
}

/// Runs `check` against a real apiserver with `crds` installed, when there is one;
/// the CRDs are removed again before a failed check's panic goes on.
async fn on_a_real_apiserver<F>(what: &str, crds: Vec<serde_json::Value>, check: fn(PathBuf) -> F)
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    // The checks install CRDs of the same names on the one control plane of this test
    // binary: one at a time.
    static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(cluster::Connection { client, kubeconfig }) = cluster::connect(what).await else {
        return;
    };
    let crds: Vec<CustomResourceDefinition> = crds
        .into_iter()
        .map(|c| serde_json::from_value(c).unwrap())
        .collect();
    cluster::install_crds(&client, &crds, "crdgen-from-cluster-test")
        .await
        .unwrap();
    let outcome = tokio::spawn(check(kubeconfig)).await;
    let names: Vec<String> = crds.into_iter().map(|c| c.metadata.name.unwrap()).collect();
    cluster::uninstall_crds(&client, names.iter().map(String::as_str))
        .await
        .unwrap();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic.into_panic());
    }
}

fn compat_old_crds() -> Vec<serde_json::Value> {
    documents(&testdata("compat/field-removed/old.yaml"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compat_from_the_in_memory_server_finds_what_the_files_would() {
    let (_listening, _dir, kubeconfig) = serving(compat_old_crds()).await;
    check_compat_against(&kubeconfig).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compat_from_a_real_apiserver_finds_what_the_files_would() {
    on_a_real_apiserver(
        "compat --from-cluster",
        compat_old_crds(),
        |kubeconfig| async move { check_compat_against(&kubeconfig).await },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_server_gives_what_the_file_gives() {
    let (_listening, _dir, kubeconfig) = serving(documents(&fixture())).await;
    check_against(&kubeconfig).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_apiserver_gives_what_the_file_gives() {
    on_a_real_apiserver(
        "import --from-cluster",
        documents(&fixture()),
        |kubeconfig| async move { check_against(&kubeconfig).await },
    )
    .await;
}

#[tokio::test]
async fn no_cluster_is_a_clear_error_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = crdgen_with(
        dir.path(),
        &dir.path().join("no-such-kubeconfig"),
        &["import", "--from-cluster", "widgets.shop.example.com"],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("error[E0026]: no cluster to read CRDs from"),
        "{said}"
    );
    assert!(
        said.contains("hint: point KUBECONFIG at a kubeconfig"),
        "{said}"
    );
    assert!(tree(dir.path()).is_empty(), "nothing is written");
}
