//! Graceful shutdown starts on SIGTERM. (A test binary of its own: it takes over the
//! process's SIGTERM handling.)

#[cfg(unix)]
#[tokio::test]
async fn sigterm_cancels_the_shutdown_token() {
    use std::time::Duration;

    let shutdown = crdgen_runtime::CancellationToken::new();
    crdgen_runtime::controller::cancel_on_signal(&shutdown);
    // Let the listener register before the signal is sent.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!shutdown.is_cancelled());
    let status = std::process::Command::new("kill")
        .args(["-TERM", &std::process::id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    tokio::time::timeout(Duration::from_secs(10), shutdown.cancelled())
        .await
        .expect("SIGTERM cancels the token");
}
