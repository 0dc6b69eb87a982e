//! Admission webhooks (defaulting, validation) and CRD conversion served over TLS, as
//! controller-runtime's webhook server: register typed handlers by path, then serve them.
//!
//! ```no_run
//! # use crdgen_runtime::webhook::{Defaulter, Denial, Validator, Warnings, Webhooks};
//! # #[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
//! # struct Example { metadata: kube::api::ObjectMeta }
//! # impl kube::Resource for Example {
//! #     type DynamicType = (); type Scope = kube::core::NamespaceResourceScope;
//! #     fn kind(_: &()) -> std::borrow::Cow<'_, str> { "Example".into() }
//! #     fn group(_: &()) -> std::borrow::Cow<'_, str> { "bcrds.example.com".into() }
//! #     fn version(_: &()) -> std::borrow::Cow<'_, str> { "v1".into() }
//! #     fn plural(_: &()) -> std::borrow::Cow<'_, str> { "examples".into() }
//! #     fn meta(&self) -> &kube::api::ObjectMeta { &self.metadata }
//! #     fn meta_mut(&mut self) -> &mut kube::api::ObjectMeta { &mut self.metadata }
//! # }
//! struct Defaults;
//! impl Defaulter<Example> for Defaults {
//!     async fn default(&self, example: &mut Example) -> Result<(), Denial> {
//!         example.metadata.labels.get_or_insert_with(Default::default).insert("defaulted".into(), "yes".into());
//!         Ok(())
//!     }
//! }
//! struct Rules;
//! impl Validator<Example> for Rules {
//!     async fn validate_create(&self, example: &Example) -> Result<Warnings, Denial> {
//!         match example.metadata.name.as_deref() {
//!             Some("forbidden") => Err(Denial::new("that name is taken")),
//!             _ => Ok(Warnings::new()),
//!         }
//!     }
//! }
//! # async fn run(shutdown: tokio_util::sync::CancellationToken) -> std::io::Result<()> {
//! let server = Webhooks::new()
//!     .defaulter::<Example, _>("/mutate-bcrds-example-com-v1-example", Defaults)
//!     .validator::<Example, _>("/validate-bcrds-example-com-v1-example", Rules)
//!     .bind("0.0.0.0:9443".parse().unwrap(), "/tmp/k8s-webhook-server/serving-certs".as_ref())
//!     .await?;
//! server.run(shutdown).await
//! # }
//! ```
//!
//! Every AdmissionReview gets an AdmissionReview back, so that the apiserver always has
//! an answer to show: one whose object does not decode as the handler's type (a required
//! field left out, which mutating webhooks see before schema validation) passes a
//! defaulter unchanged, so that the apiserver's own validation names the field, and is
//! denied by a validator naming it (`spec.schedule: Required value`, code 422). Only a
//! body that is no AdmissionReview at all is a 400; a request body over the limit a 413; a
//! handler that panics answers with a denial carrying code 500, and the server lives
//! on. `/healthz` answers 200. The certificate (`tls.crt`, `tls.key` in the directory)
//! is read again when its files change.

mod admission;
pub use crate::field;

pub use crate::tls::{CERT_FILE, KEY_FILE};
pub use admission::{Defaulter, Denial, Malformed, Validator, Warnings, patch_onto};

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::FutureExt;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use kube::core::admission::{AdmissionResponse, AdmissionReview};
use kube::core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use kube::core::{DynamicObject, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The largest request body read by default: an AdmissionReview holds the object and
/// its old version, each up to the apiserver's 3 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 7 << 20;
/// How often the certificate files are looked at.
pub const CERT_RELOAD_PERIOD: Duration = crate::tls::RELOAD_PERIOD;

/// An answer: an HTTP status and a JSON body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The body: an AdmissionReview or ConversionReview, as JSON.
    pub body: Vec<u8>,
}

type Answer = Pin<Box<dyn Future<Output = Reply> + Send>>;
type Handler = Arc<dyn Fn(Bytes) -> Answer + Send + Sync>;

/// The webhooks by path. Call one with a review ([`Webhooks::call`], as tests do
/// without a cluster), or serve them all ([`Webhooks::bind`]).
#[derive(Clone)]
pub struct Webhooks {
    routes: BTreeMap<String, Handler>,
    max_body_bytes: usize,
}

impl Default for Webhooks {
    fn default() -> Self {
        Webhooks {
            routes: BTreeMap::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        }
    }
}

impl Webhooks {
    /// A server with no webhooks yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `defaulter` for objects of `K` at `path` (a mutating webhook).
    #[must_use]
    pub fn defaulter<K, D>(self, path: &str, defaulter: D) -> Self
    where
        K: Resource + Serialize + DeserializeOwned + Send + 'static,
        D: Defaulter<K>,
    {
        self.route(path, defaulter, |defaulter: Arc<D>, body| async move {
            match admission::request::<K>(&body) {
                Ok(admission::Review::Typed(request, original)) => {
                    ok(&admission::mutate(&*defaulter, *request, original).await)
                }
                Ok(admission::Review::Undecodable(request, why)) => {
                    ok(&admission::undecodable(&request, &why, false))
                }
                Err(e) => bad_request(e),
            }
        })
    }

    /// Serves `validator` for objects of `K` at `path` (a validating webhook).
    #[must_use]
    pub fn validator<K, V>(self, path: &str, validator: V) -> Self
    where
        K: Resource + DeserializeOwned + Send + Sync + 'static,
        V: Validator<K>,
    {
        self.route(path, validator, |validator: Arc<V>, body| async move {
            match admission::request::<K>(&body) {
                Ok(admission::Review::Typed(request, _)) => {
                    ok(&admission::validate(&*validator, *request).await)
                }
                Ok(admission::Review::Undecodable(request, why)) => {
                    ok(&admission::undecodable(&request, &why, true))
                }
                Err(e) => bad_request(e),
            }
        })
    }

    /// Serves `convert` at `path` (a CRD conversion webhook): every object of a
    /// ConversionReview goes to `convert(object, desiredAPIVersion)`, which crdgen
    /// generates as `apis::convert` for the kinds marked `+crdgen:conversion:webhook`.
    /// One object that does not convert fails the review with its message.
    #[must_use]
    pub fn converter<F>(self, path: &str, convert: F) -> Self
    where
        F: Fn(serde_json::Value, &str) -> Result<serde_json::Value, String> + Send + Sync + 'static,
    {
        self.route(path, convert, |convert: Arc<F>, body| async move {
            let request = serde_json::from_slice::<ConversionReview>(&body)
                .map_err(|e| Malformed(e.to_string()))
                .and_then(|review| {
                    ConversionRequest::from_review(review)
                        .map_err(|_| Malformed("the ConversionReview carries no request".into()))
                });
            let request = match request {
                Ok(request) => request,
                Err(e) => return bad_request(e),
            };
            let to = request.desired_api_version.clone();
            let objects: Result<Vec<_>, String> = request
                .objects
                .iter()
                .map(|object| convert(object.clone(), &to))
                .collect();
            let response = ConversionResponse::for_request(request);
            let response = match objects {
                Ok(objects) => response.success(objects),
                Err(message) => {
                    response.failure(kube::core::Status::failure(&message, "ConversionFailed"))
                }
            };
            json_reply(&response.into_review())
        })
    }

    /// Serves `answer(state, request body)` at `path`.
    fn route<S, F, Fut>(mut self, path: &str, state: S, answer: F) -> Self
    where
        S: Send + Sync + 'static,
        F: Fn(Arc<S>, Bytes) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Reply> + Send + 'static,
    {
        let state = Arc::new(state);
        let handler: Handler = Arc::new(move |body| Box::pin(answer(state.clone(), body)));
        self.routes.insert(path.to_owned(), handler);
        self
    }

    /// The largest request body read (default [`DEFAULT_MAX_BODY_BYTES`]); a larger one
    /// is a 413.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Answers a review sent to `path`, as the server does.
    pub async fn call(&self, path: &str, body: &[u8]) -> Reply {
        let Some(handler) = self.routes.get(path) else {
            return Reply {
                status: 404,
                body: format!("no webhook at {path}").into_bytes(),
            };
        };
        let body = Bytes::copy_from_slice(body);
        let answer = std::panic::AssertUnwindSafe(handler(body.clone())).catch_unwind();
        match answer.await {
            Ok(reply) => reply,
            Err(panic) => {
                let what = crate::panics::panic_message(&*panic);
                tracing::error!(path, "webhook handler panicked: {what}");
                ok(&panicked(&body))
            }
        }
    }

    /// Listens on `addr` with the certificate of `cert_dir` (`tls.crt`, `tls.key`).
    ///
    /// # Errors
    ///
    /// When the certificate cannot be read or `addr` cannot be bound.
    pub async fn bind(self, addr: SocketAddr, cert_dir: &Path) -> std::io::Result<Server> {
        let tls = crate::tls::Reloading::new(cert_dir).map_err(std::io::Error::other)?;
        Ok(Server {
            listener: TcpListener::bind(addr).await?,
            tls,
            webhooks: Arc::new(self),
            reload_every: CERT_RELOAD_PERIOD,
        })
    }
}

/// A bound webhook server; [`Server::run`] serves until shutdown.
pub struct Server {
    listener: TcpListener,
    tls: Arc<crate::tls::Reloading>,
    webhooks: Arc<Webhooks>,
    reload_every: Duration,
}

impl Server {
    /// The address the server listens on (its port, when bound to port 0).
    ///
    /// # Errors
    ///
    /// When the socket cannot say.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// How often the certificate files are looked at (default [`CERT_RELOAD_PERIOD`]).
    #[must_use]
    pub fn reload_every(mut self, period: Duration) -> Self {
        self.reload_every = period;
        self
    }

    /// Serves until `shutdown`, then lets connections in flight finish (up to a drain
    /// deadline) and returns.
    ///
    /// # Errors
    ///
    /// When the listener fails.
    pub async fn run(self, shutdown: CancellationToken) -> std::io::Result<()> {
        let watcher = tokio::spawn(self.tls.clone().watch(self.reload_every, shutdown.clone()));
        let handshake = self.tls.handshake();
        let webhooks = self.webhooks;
        let respond = move |request| {
            let webhooks = webhooks.clone();
            async move { respond(&webhooks, request).await }
        };
        crate::serve::serve(
            "webhook server",
            self.listener,
            crate::serve::Limits::default(),
            shutdown,
            handshake,
            respond,
        )
        .await;
        let _ = watcher.await;
        Ok(())
    }
}

async fn respond(webhooks: &Webhooks, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let path = request.uri().path().to_owned();
    let reply = if path == "/healthz" {
        Reply {
            status: 200,
            body: b"ok".to_vec(),
        }
    } else if request.method() != Method::POST {
        Reply {
            status: 405,
            body: b"webhooks take POST".to_vec(),
        }
    } else {
        match Limited::new(request.into_body(), webhooks.max_body_bytes)
            .collect()
            .await
        {
            Ok(body) => webhooks.call(&path, &body.to_bytes()).await,
            Err(e) => Reply {
                status: 413,
                body: format!("request body refused: {e}").into_bytes(),
            },
        }
    };
    crate::serve::response(reply.status, "application/json", reply.body)
}

fn ok(review: &AdmissionReview<DynamicObject>) -> Reply {
    json_reply(review)
}

fn json_reply(value: &impl Serialize) -> Reply {
    match serde_json::to_vec(value) {
        Ok(body) => Reply { status: 200, body },
        Err(e) => Reply {
            status: 500,
            body: e.to_string().into_bytes(),
        },
    }
}

fn bad_request(e: Malformed) -> Reply {
    Reply {
        status: 400,
        body: format!("not an AdmissionReview: {}", e.0).into_bytes(),
    }
}

/// The denial for a review whose handler panicked: code 500, the request's uid.
fn panicked(body: &[u8]) -> AdmissionReview<DynamicObject> {
    let uid = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.pointer("/request/uid")?.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut response = AdmissionResponse::invalid("the webhook failed");
    response.uid = uid;
    response.result.code = 500;
    response.into_review()
}
