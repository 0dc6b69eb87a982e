//! The HTTP/1 serving loop the webhook server and the manager's metrics and probe
//! endpoints share: accept, an optional handshake (TLS), hyper, and a graceful stop
//! that lets connections in flight finish for a while.

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// How long connections in flight get to finish after shutdown.
const DRAIN_DEADLINE: Duration = Duration::from_secs(10);

/// Serves connections accepted on `listener` until `shutdown`: each goes through
/// `handshake` (`None` drops it), then every request on it through `respond`. Then
/// connections in flight get the drain deadline to finish. `what` names the server in
/// logs.
pub(crate) async fn serve<H, HFut, S, R, RFut>(
    what: &'static str,
    listener: TcpListener,
    shutdown: CancellationToken,
    handshake: H,
    respond: R,
) where
    H: Fn(TcpStream) -> HFut + Clone + Send + 'static,
    HFut: Future<Output = Option<S>> + Send,
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    R: Fn(Request<Incoming>) -> RFut + Clone + Send + Sync + 'static,
    RFut: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let mut connections = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        while connections.try_join_next().is_some() {}
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!("{what}: accept failed: {e}");
                continue;
            }
        };
        let (handshake, respond, stop) = (handshake.clone(), respond.clone(), shutdown.clone());
        connections.spawn(async move {
            if let Some(stream) = handshake(stream).await {
                serve_connection(what, stream, respond, stop).await;
            }
        });
    }
    let drained = tokio::time::timeout(DRAIN_DEADLINE, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        connections.abort_all();
    }
}

async fn serve_connection<S, R, RFut>(
    what: &'static str,
    stream: S,
    respond: R,
    stop: CancellationToken,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    R: Fn(Request<Incoming>) -> RFut + Send + Sync + 'static,
    RFut: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let answer = respond(request);
        async move { Ok::<_, Infallible>(answer.await) }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
    tokio::pin!(connection);
    let served = tokio::select! {
        served = connection.as_mut() => served,
        () = stop.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = served {
        tracing::debug!("{what}: connection ended: {e}");
    }
}

/// A response with `status`, `content_type` and `body`.
pub(crate) fn response(
    status: u16,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(content_type),
    );
    response
}
