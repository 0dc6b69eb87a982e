//! The operator binary as a cluster runs it, on a real control plane (envtest when
//! KUBEBUILDER_ASSETS names its binaries, or the cluster CRDGEN_E2E_KUBECONFIG names):
//! without its CRD it exits non-zero once the cache-sync timeout passes, saying why;
//! with it, two replicas serve metrics and probes, both are ready, exactly one leads and
//! reconciles, and the other takes over once the leader is killed.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crdgen_runtime::testing::{cluster, eventually};
use cronjob_operator::apis::batch::v1::{CronJob, CronJobSpec};
use cronjob_operator::client::clientset::Clientset;
use kube::api::PostParams;

/// Short leases, so that a failover takes seconds.
const LEASE: [&str; 6] = [
    "--leader-elect-lease-duration",
    "3",
    "--leader-elect-renew-deadline",
    "2",
    "--leader-elect-retry-period",
    "0.5",
];

fn free_address() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// `GET path` over HTTP/1.0: the status and the body, `None` while nothing answers.
fn get(address: SocketAddr, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(1)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\n\r\n").ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let status = answer.get(9..12)?.parse().ok()?;
    Some((status, answer.split_once("\r\n\r\n")?.1.to_owned()))
}

/// A running replica of the operator; killed when dropped.
struct Replica {
    child: Child,
    metrics: SocketAddr,
    probes: SocketAddr,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn operator(kubeconfig: &Path, metrics: SocketAddr, probes: SocketAddr) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cronjob-operator"));
    command
        .env("KUBECONFIG", kubeconfig)
        .env("RUST_LOG", "info")
        // No webhook server (it would want its certificate, and one port per replica).
        .env("ENABLE_WEBHOOKS", "false")
        // Plain HTTP, read by the test itself (the secure default is crdgen-runtime's
        // to test: its metrics_auth suite).
        .args([
            "--metrics-bind-address",
            &metrics.to_string(),
            "--metrics-secure=false",
        ])
        .args(["--health-probe-bind-address", &probes.to_string()])
        .args(["--leader-election-namespace", "default"])
        .args(LEASE);
    command
}

fn replica(kubeconfig: &Path) -> Replica {
    let (metrics, probes) = (free_address(), free_address());
    let child = operator(kubeconfig, metrics, probes)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Replica {
        child,
        metrics,
        probes,
    }
}

fn metrics(replica: &Replica) -> String {
    get(replica.metrics, "/metrics")
        .map(|(_, text)| text)
        .unwrap_or_default()
}

fn leading(replica: &Replica) -> bool {
    metrics(replica)
        .lines()
        .any(|l| l.starts_with("leader_election_master_status{") && l.ends_with(" 1"))
}

/// Whether the replica counted a sync without error: `success`, or `requeue_after` for
/// one that asked to come back (controller-runtime's labels; every replica has the
/// counters, at 0 until its controller runs).
fn reconciled(replica: &Replica) -> bool {
    let text = metrics(replica);
    ["success", "requeue_after"].iter().any(|result| {
        let counter = [
            r#"controller_runtime_reconcile_total{controller="cronjobs",result=""#,
            result,
            r#""} "#,
        ]
        .concat();
        text.lines().any(|l| {
            l.strip_prefix(counter.as_str())
                .is_some_and(|count| count != "0")
        })
    })
}

/// Creates a CronJob named `name` and waits (up to 30 s) until it is Ready.
async fn becomes_ready(clientset: &Clientset, name: &str) -> bool {
    let spec = CronJobSpec {
        schedule: "@every 1h".into(),
        ..CronJobSpec::default()
    };
    let mut object = CronJob::new(name, spec);
    object.metadata.namespace = Some("default".into());
    clientset
        .batch_v1()
        .cron_jobs("default")
        .create(&PostParams::default(), &object)
        .await
        .unwrap();
    for _ in 0..300 {
        let status = clientset
            .batch_v1()
            .cron_jobs("default")
            .get(name)
            .await
            .unwrap()
            .status
            .unwrap_or_default();
        if status
            .conditions
            .iter()
            .any(|c| c.type_ == "Ready" && c.status == "True")
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_on_a_real_control_plane() {
    let Some(cluster) =
        cluster::connect("cronjob-operator operator binary on a real control plane").await
    else {
        return;
    };
    let kubeconfig = cluster.kubeconfig.clone();

    // Without its CRD: a non-zero exit once the timeout passes, naming what and why.
    let started = Instant::now();
    let out = operator(&kubeconfig, free_address(), free_address())
        .args(["--cache-sync-timeout", "3", "--leader-elect=false"])
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(
        started.elapsed() >= Duration::from_secs(3),
        "it waited out the timeout"
    );
    assert!(
        log.contains("cronjobs.v1.batch.tutorial.crdgen.dev"),
        "names the resource: {log}"
    );
    assert!(
        log.contains("is its CustomResourceDefinition installed?"),
        "says why: {log}"
    );

    // Every kind's CRD: each controller's cache must sync.
    let bases = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/crd/bases");
    let mut files: Vec<_> = std::fs::read_dir(bases)
        .unwrap()
        .map(|f| f.unwrap().path())
        .collect();
    files.sort();
    let crds: Vec<_> = files
        .iter()
        .map(|f| cluster::read_crd(f).unwrap())
        .collect();
    cluster::install_crds(&cluster.client, &crds, "cronjob-operator-operator-tests")
        .await
        .unwrap();
    let clientset = Clientset::new(cluster.client.clone());

    // Two replicas: both alive and ready (leading or not), exactly one leads.
    let mut replicas = [Some(replica(&kubeconfig)), Some(replica(&kubeconfig))];
    for replica in replicas.iter().flatten() {
        let ready = eventually(Duration::from_secs(30), || {
            get(replica.probes, "/readyz").is_some_and(|(status, _)| status == 200)
        })
        .await;
        assert!(ready, "each replica is ready once its caches synced");
        assert_eq!(
            get(replica.probes, "/healthz").map(|(status, _)| status),
            Some(200)
        );
    }
    let leaders = || -> Vec<usize> {
        (0..2)
            .filter(|i| replicas[*i].as_ref().is_some_and(leading))
            .collect()
    };
    assert!(
        eventually(Duration::from_secs(30), || leaders().len() == 1).await,
        "one leader"
    );
    let leader = leaders()[0];
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        leaders(),
        [leader],
        "still one leader after several renewals"
    );

    // The leader reconciles; the other only keeps its caches warm.
    assert!(becomes_ready(&clientset, "first").await);
    let (led, other) = (
        replicas[leader].as_ref().unwrap(),
        replicas[1 - leader].as_ref().unwrap(),
    );
    // Its counter moves once the sync returns, a moment after the status it wrote.
    assert!(
        eventually(Duration::from_secs(10), || reconciled(led)).await,
        "{}",
        metrics(led)
    );
    assert!(!reconciled(other), "{}", metrics(other));

    // Killed (no release): the other takes over once the lease expires.
    replicas[leader] = None;
    let killed = Instant::now();
    let other = replicas[1 - leader].as_ref().unwrap();
    assert!(
        eventually(Duration::from_secs(20), || leading(other)).await,
        "the other replica took over"
    );
    eprintln!(
        "cronjob-operator: the other replica led {:.1} s after the leader was killed (lease 3 s)",
        killed.elapsed().as_secs_f64()
    );
    assert!(becomes_ready(&clientset, "second").await, "and reconciles");
}
