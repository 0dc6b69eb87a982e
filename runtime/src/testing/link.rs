//! A faulty network between a client and its apiserver (the in-memory one, or a real
//! one through its client), for tests of what an operator does when its apiserver is
//! cut off, stopped or slow: requests through a
//! [`Link`] hang while it is cut (a partition: only the client's own timeouts end
//! them), fail at once while it refuses (a stopped apiserver: connection refused),
//! and wait a while when it is slow. Every request is logged with the Tokio clock's
//! instant, so tests can set what an operator did against when it last reached the
//! apiserver.

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::future::BoxFuture;
use http_body_util::BodyExt;
use http_body_util::combinators::UnsyncBoxBody;
use tokio::sync::watch;
use tokio::time::Instant;

use super::ApiServer;
use crate::panics::lock;

/// The state of a [`Link`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkState {
    /// Requests pass.
    Up,
    /// Requests hang until the link is up again: a cut network.
    Cut,
    /// Requests fail at once with a refused connection: a stopped apiserver.
    Refusing,
    /// Requests pass, each after this long.
    Slow(Duration),
}

/// One request through a link, as the test sees it afterwards.
#[derive(Clone, Debug)]
pub struct Request {
    /// When it was sent, on the Tokio clock.
    pub at: Instant,
    /// The HTTP method.
    pub method: String,
    /// Path and query.
    pub uri: String,
    /// The status answered, `None` when refused (or still hanging).
    pub status: Option<u16>,
}

/// Where a link's requests go.
#[derive(Clone)]
enum Upstream {
    Memory(ApiServer),
    Cluster(kube::Client),
}

/// A link to an apiserver; clones share its state and log.
#[derive(Clone)]
pub struct Link {
    upstream: Upstream,
    state: watch::Sender<LinkState>,
    log: Arc<Mutex<Vec<Request>>>,
}

impl Link {
    /// A link to the in-memory `server`, up.
    pub fn new(server: &ApiServer) -> Self {
        Link::to(Upstream::Memory(server.clone()))
    }

    /// A link to the apiserver `client` talks to (a real one, for the real-cluster
    /// suites), up.
    pub fn through(client: &kube::Client) -> Self {
        Link::to(Upstream::Cluster(client.clone()))
    }

    fn to(upstream: Upstream) -> Self {
        Link {
            upstream,
            state: watch::channel(LinkState::Up).0,
            log: Arc::default(),
        }
    }

    /// A client whose requests go through this link. Needs a Tokio runtime.
    pub fn client(&self) -> kube::Client {
        kube::Client::new(self.clone(), "default")
    }

    /// Puts the link in `state` (see [`LinkState`]).
    pub fn set(&self, state: LinkState) {
        self.state.send_replace(state);
    }

    /// Every request so far, in the order sent.
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.log).clone()
    }

    fn record(&self, request: Request) -> usize {
        let mut log = lock(&self.log);
        log.push(request);
        log.len() - 1
    }

    fn answered(&self, entry: usize, status: u16) {
        if let Some(request) = lock(&self.log).get_mut(entry) {
            request.status = Some(status);
        }
    }
}

type Error = Box<dyn std::error::Error + Send + Sync>;
type Body = UnsyncBoxBody<Bytes, Error>;

impl tower::Service<http::Request<kube::client::Body>> for Link {
    type Response = http::Response<Body>;
    type Error = Error;
    type Future = BoxFuture<'static, Result<Self::Response, Error>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<kube::client::Body>) -> Self::Future {
        let link = self.clone();
        let entry = link.record(Request {
            at: Instant::now(),
            method: request.method().to_string(),
            uri: request.uri().to_string(),
            status: None,
        });
        Box::pin(async move {
            let mut state = link.state.subscribe();
            // A cut link holds the request until it is up again (or the client gives up
            // and drops this future).
            let state = *state
                .wait_for(|s| *s != LinkState::Cut)
                .await
                .map_err(|_| Error::from("the link is gone"))?;
            match state {
                LinkState::Refusing => {
                    return Err(std::io::Error::from(std::io::ErrorKind::ConnectionRefused).into());
                }
                LinkState::Slow(delay) => tokio::time::sleep(delay).await,
                LinkState::Up | LinkState::Cut => {}
            }
            let response = match &link.upstream {
                Upstream::Memory(server) => server
                    .handle(request)
                    .await
                    .map(|body| body.map_err(|never| match never {}).boxed_unsync()),
                Upstream::Cluster(client) => client
                    .send(request)
                    .await?
                    .map(|body| body.map_err(Error::from).boxed_unsync()),
            };
            link.answered(entry, response.status().as_u16());
            Ok(response)
        })
    }
}
