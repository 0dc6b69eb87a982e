//! The in-memory server on a loopback port, for what reaches a cluster through a
//! kubeconfig rather than a `kube::Client` handed to it: a command line run as a child
//! process, say. Plain HTTP, no authentication, the same answers as
//! [`ApiServer::client`]'s.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;

use http_body_util::BodyExt;
use hyper::Request;
use hyper::body::Incoming;
use kube::config::Kubeconfig;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::ApiServer;
use crate::serve::{Limits, serve};

/// A server listening: see [`ApiServer::listen`]. It stops when dropped.
#[must_use = "the server stops listening when this is dropped"]
pub struct Listening {
    address: SocketAddr,
    stop: CancellationToken,
}

impl ApiServer {
    /// Serves this server over HTTP on a free loopback port until the returned
    /// [`Listening`] is dropped. Needs a Tokio runtime, which serves it.
    ///
    /// # Errors
    /// When no loopback port can be bound.
    pub async fn listen(&self) -> std::io::Result<Listening> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let address = listener.local_addr()?;
        let stop = CancellationToken::new();
        let server = self.clone();
        tokio::spawn(serve(
            "in-memory apiserver",
            listener,
            Limits::default(),
            stop.clone(),
            |stream| async { Some(stream) },
            move |request: Request<Incoming>| {
                let server = server.clone();
                async move {
                    let (parts, body) = request.into_parts();
                    // An unreadable body reaches the server empty, which refuses it
                    // as it refuses any body that is not the object.
                    let bytes = body
                        .collect()
                        .await
                        .map(|b| b.to_bytes())
                        .unwrap_or_default();
                    let request = Request::from_parts(parts, kube::client::Body::from(bytes));
                    server.handle(request).await
                }
            },
        ));
        Ok(Listening { address, stop })
    }
}

impl Listening {
    /// Where it listens: `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// A kubeconfig whose one context, current, is this server (namespace `default`).
    pub fn kubeconfig(&self) -> Kubeconfig {
        serde_json::from_value(self.kubeconfig_json()).expect("a kubeconfig of known shape")
    }

    fn kubeconfig_json(&self) -> serde_json::Value {
        serde_json::json!({
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "in-memory", "cluster": {"server": self.url()}}],
            "users": [{"name": "anyone", "user": {}}],
            "contexts": [{"name": "in-memory", "context": {
                "cluster": "in-memory", "user": "anyone", "namespace": "default",
            }}],
            "current-context": "in-memory",
        })
    }

    /// Writes [`Listening::kubeconfig`] to `path` (as JSON, which is YAML).
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn write_kubeconfig(&self, path: &Path) -> std::io::Result<()> {
        let text =
            serde_json::to_vec_pretty(&self.kubeconfig_json()).map_err(std::io::Error::other)?;
        std::fs::write(path, text)
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}
