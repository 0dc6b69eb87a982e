//! Prints how long envtest takes to start a control plane (until the apiserver is ready
//! and the `default` namespace exists) and to stop it, over a few runs:
//! `hack/bench-envtest.sh`. Needs KUBEBUILDER_ASSETS (or the other envtest variables).

use std::time::{Duration, Instant};

use crdgen_runtime::testing::envtest::Environment;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args().nth(1).map_or(Ok(5), |n| n.parse())?;
    let (mut starts, mut stops) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let env = Environment::start().await?;
        starts.push(env.started_in());
        let stopping = Instant::now();
        env.stop();
        stops.push(stopping.elapsed());
    }
    let line = |what: &str, mut times: Vec<Duration>| {
        times.sort();
        println!(
            "{what}: min {:.2} s, median {:.2} s, max {:.2} s ({runs} runs)",
            times[0].as_secs_f64(),
            times[times.len() / 2].as_secs_f64(),
            times[times.len() - 1].as_secs_f64()
        );
    };
    line("envtest start", starts);
    line("envtest stop", stops);
    Ok(())
}
