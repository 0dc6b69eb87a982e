//! envtest: a real etcd + kube-apiserver started and stopped by the test, found the way
//! controller-runtime finds them, and never outliving it. Needs the binaries
//! (KUBEBUILDER_ASSETS); without them each test says it is skipped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crdgen_runtime::testing::envtest::{self, Binaries, Environment, EnvtestError};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ListParams};

/// Set in the child runs of this binary that the exit tests start.
const HELPER: &str = "CRDGEN_ENVTEST_HELPER";

fn binaries_found(test: &str) -> bool {
    match Binaries::find() {
        Ok(_) => true,
        Err(e) => {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr().lock(), "{test}: skipped: {e}");
            false
        }
    }
}

/// The pids of processes whose command line names `dir` (etcd's data directory and the
/// apiserver's certificates live there).
fn processes_in(dir: &Path) -> Vec<u32> {
    let needle = dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&needle))
        })
        .collect()
}

/// Waits up to `limit` for every process in `dir` to go.
fn gone_within(dir: &Path, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if processes_in(dir).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[tokio::test]
async fn a_control_plane_serves_and_stops() {
    if !binaries_found("a_control_plane_serves_and_stops") {
        return;
    }
    let env = Environment::start().await.unwrap();
    let dir = env.kubeconfig_path().parent().unwrap().to_owned();
    assert_eq!(processes_in(&dir).len(), 2, "etcd and kube-apiserver run");
    eprintln!("envtest started in {:?}", env.started_in());

    let version = env.server_version().await.unwrap();
    assert_eq!(version.major, "1");
    // The kubeconfig on disk is a working one, as kubectl or an operator would read it.
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig_path()).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    let namespaces: Api<Namespace> = Api::all(kube::Client::try_from(config).unwrap());
    let names: Vec<String> = namespaces
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect();
    assert!(names.contains(&"default".to_owned()), "{names:?}");

    // Admin through RBAC: cluster-scoped writes are allowed.
    let crd = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "gizmos.envtest.crdgen.dev"},
        "spec": {"group": "envtest.crdgen.dev", "scope": "Namespaced",
            "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    }))
    .unwrap();
    env.install_crds(&[crd]).await.unwrap();
    let gizmos = kube::api::ApiResource::from_gvk_with_plural(
        &kube::api::GroupVersionKind::gvk("envtest.crdgen.dev", "v1", "Gizmo"),
        "gizmos",
    );
    let api: Api<kube::api::DynamicObject> =
        Api::default_namespaced_with(env.client().await.unwrap(), &gizmos);
    assert!(
        api.list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    let stopping = Instant::now();
    env.stop();
    eprintln!("envtest stopped in {:?}", stopping.elapsed());
    assert!(
        processes_in(&dir).is_empty(),
        "both processes are gone after stop"
    );
    assert!(!dir.exists(), "the temporary directory is removed");
}

#[tokio::test]
async fn a_panicking_test_leaves_nothing_behind() {
    if !binaries_found("a_panicking_test_leaves_nothing_behind") {
        return;
    }
    let dir = std::sync::Mutex::new(PathBuf::new());
    let outcome = futures_util::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(async {
        let env = Environment::start().await.unwrap();
        *dir.lock().unwrap() = env.kubeconfig_path().parent().unwrap().to_owned();
        panic!("a failing assertion");
    }))
    .await;
    assert!(outcome.is_err());
    let dir = dir.into_inner().unwrap();
    assert!(processes_in(&dir).is_empty(), "drop stopped both processes");
    assert!(!dir.exists());
}

/// A child run of this binary: starts the shared control plane, prints its directory,
/// then ends as `CRDGEN_ENVTEST_HELPER` says: `return` (the harness exits normally) or
/// `hang` (until killed).
#[tokio::test]
#[ignore = "run by the exit tests as a child process"]
async fn helper_shared_control_plane() {
    let Ok(mode) = std::env::var(HELPER) else {
        return;
    };
    let env = envtest::shared().await.unwrap();
    let again = envtest::shared().await.unwrap();
    assert!(
        std::ptr::eq(env, again),
        "one control plane per test binary"
    );
    println!("dir={}", env.kubeconfig_path().parent().unwrap().display());
    use std::io::Write as _;
    std::io::stdout().flush().unwrap();
    if mode == "hang" {
        tokio::time::sleep(Duration::from_secs(300)).await;
    }
}

/// Runs the helper with `mode` and returns it, running, with the directory it printed.
fn helper(mode: &str) -> (std::process::Child, PathBuf) {
    use std::io::BufRead as _;
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "helper_shared_control_plane",
            "--ignored",
            "--nocapture",
        ])
        .env(HELPER, mode)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let dir = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("dir=").map(PathBuf::from))
        .expect("the helper prints its control plane's directory");
    // Read the rest, so the helper's harness can print its summary.
    std::thread::spawn(move || lines.for_each(drop));
    (child, dir)
}

#[test]
fn the_shared_control_plane_stops_when_the_test_binary_exits() {
    if !binaries_found("the_shared_control_plane_stops_when_the_test_binary_exits") {
        return;
    }
    let (mut child, dir) = helper("return");
    assert!(child.wait().unwrap().success());
    assert!(
        processes_in(&dir).is_empty(),
        "the exit hook stopped both processes"
    );
    assert!(!dir.exists(), "and removed the directory");
}

#[test]
fn a_killed_test_binary_takes_its_control_plane_with_it() {
    if !binaries_found("a_killed_test_binary_takes_its_control_plane_with_it") {
        return;
    }
    let (mut child, dir) = helper("hang");
    assert_eq!(processes_in(&dir).len(), 2);
    child.kill().unwrap(); // SIGKILL: no exit hook, no drop runs
    child.wait().unwrap();
    assert!(
        gone_within(&dir, Duration::from_secs(5)),
        "the parent-death signal ended {:?}",
        processes_in(&dir)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn binaries_are_found_as_controller_runtime_finds_them() {
    let tmp = tempfile::tempdir().unwrap();
    let make = |dir: &str, name: &str| {
        use std::os::unix::fs::PermissionsExt as _;
        let path = tmp.path().join(dir).join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    };
    let assets = tmp.path().join("assets");
    let (apiserver, etcd) = (make("assets", "kube-apiserver"), make("assets", "etcd"));
    let own_etcd = make("elsewhere", "etcd");

    let from = |vars: Vec<(&'static str, PathBuf)>| {
        Binaries::find_in(move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        })
    };
    let found = from(vec![("KUBEBUILDER_ASSETS", assets.clone())]).unwrap();
    assert_eq!(
        (found.kube_apiserver, found.etcd),
        (apiserver.clone(), etcd)
    );
    let found = from(vec![
        ("KUBEBUILDER_ASSETS", assets.clone()),
        ("TEST_ASSET_ETCD", own_etcd.clone()),
    ])
    .unwrap();
    assert_eq!(found.etcd, own_etcd, "TEST_ASSET_* comes first");

    // Nothing found: the error names the binary, where it looked and what to set.
    let missing = tmp.path().join("empty");
    let err = from(vec![("KUBEBUILDER_ASSETS", missing.clone())]).unwrap_err();
    let EnvtestError::BinaryNotFound { name, searched } = &err else {
        panic!("{err}")
    };
    if Path::new("/usr/local/kubebuilder/bin/kube-apiserver").exists() {
        return; // this machine has the default layout; the rest cannot be shown here
    }
    assert_eq!(name, "kube-apiserver");
    assert_eq!(searched.len(), 2, "{searched:?}");
    let message = err.to_string();
    for part in [
        missing.join("kube-apiserver").display().to_string(),
        "/usr/local/kubebuilder/bin/kube-apiserver".to_owned(),
        "KUBEBUILDER_ASSETS".to_owned(),
        "TEST_ASSET_KUBE_APISERVER".to_owned(),
        "setup-envtest".to_owned(),
    ] {
        assert!(message.contains(&part), "{message} lacks {part}");
    }
}
