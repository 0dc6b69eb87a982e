//! The HTTP/1 serving loop the webhook server and the manager's metrics and probe
//! endpoints share: accept, an optional handshake (TLS), hyper, and a graceful stop
//! that lets connections in flight finish for a while.
//!
//! Every server is bounded, as Go's `http.Server` with controller-runtime's settings
//! is, so that idle, slow or many clients cannot hold it ([`Limits`]): a request's
//! headers must arrive within a deadline, which also closes keep-alive connections
//! left idle (hyper's header read timeout covers both once it has a timer); a whole
//! request, body included, within another (408 past it); connections beyond a cap
//! wait in the kernel's backlog; and a failing `accept` (out of file descriptors, say)
//! backs off from 5 ms to 1 s, as Go's does, instead of spinning.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Incoming};
use hyper::{Request, Response};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// Plain text, as the servers' own answers are.
pub(crate) const TEXT: &str = "text/plain; charset=utf-8";

/// How long connections in flight get to finish after shutdown.
const DRAIN_DEADLINE: Duration = Duration::from_secs(10);

/// What a server lets its clients hold.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// A request's headers must have arrived this long after the connection opened or
    /// its previous answer went out; so an idle keep-alive connection closes after it.
    pub(crate) header_read: Duration,
    /// A request, from its headers to the answer (its body included), within this.
    pub(crate) request: Duration,
    /// Connections served at once; more wait to be accepted.
    pub(crate) connections: usize,
}

impl Default for Limits {
    /// 30 s for headers (hyper's default; Go's servers in controller-runtime close
    /// idle connections after about 32 s), 30 s for a request (the apiserver waits for
    /// a webhook at most 30 s), 256 connections (an apiserver, Prometheus and the
    /// kubelet's probes need a handful).
    fn default() -> Self {
        Limits {
            header_read: Duration::from_secs(30),
            request: Duration::from_secs(30),
            connections: 256,
        }
    }
}

/// Where connections come from: a TCP listener, or a test's stand-in for one.
pub(crate) trait Accept: Send + 'static {
    fn accept(&self) -> impl Future<Output = std::io::Result<TcpStream>> + Send;
}

impl Accept for TcpListener {
    async fn accept(&self) -> std::io::Result<TcpStream> {
        TcpListener::accept(self).await.map(|(stream, _)| stream)
    }
}

/// Go's `http.Server` accept back-off: 5 ms after a failure, doubling to 1 s.
const ACCEPT_BACKOFF: (Duration, Duration) = (Duration::from_millis(5), Duration::from_secs(1));

/// Serves connections accepted on `listener` until `shutdown`: each goes through
/// `handshake` (`None` drops it; bound it yourself), then every request on it through
/// `respond`, within `limits`. Then connections in flight get the drain deadline to
/// finish. `what` names the server in logs.
pub(crate) async fn serve<L, H, HFut, S, R, RFut, B>(
    what: &'static str,
    listener: L,
    limits: Limits,
    shutdown: CancellationToken,
    handshake: H,
    respond: R,
) where
    L: Accept,
    H: Fn(TcpStream) -> HFut + Clone + Send + 'static,
    HFut: Future<Output = Option<S>> + Send,
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    R: Fn(Request<Incoming>) -> RFut + Clone + Send + Sync + 'static,
    RFut: Future<Output = Response<B>> + Send + 'static,
    B: Body<Data = Bytes, Error = Infallible> + Send + 'static,
{
    let mut connections = JoinSet::new();
    let slots = Arc::new(Semaphore::new(limits.connections.max(1)));
    let mut backoff = None;
    loop {
        let (slot, accepted) = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = async {
                // The semaphore is never closed, so a permit always comes.
                let slot = slots.clone().acquire_owned().await.ok();
                (slot, listener.accept().await)
            } => accepted,
        };
        while connections.try_join_next().is_some() {}
        let stream = match accepted {
            Ok(stream) => {
                backoff = None;
                stream
            }
            Err(e) => {
                let delay = backoff.map_or(ACCEPT_BACKOFF.0, |d: Duration| {
                    (d * 2).min(ACCEPT_BACKOFF.1)
                });
                backoff = Some(delay);
                tracing::warn!("{what}: accept failed: {e}; retrying in {delay:?}");
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    () = tokio::time::sleep(delay) => continue,
                }
            }
        };
        let (handshake, respond, stop) = (handshake.clone(), respond.clone(), shutdown.clone());
        connections.spawn(async move {
            let _slot = slot;
            if let Some(stream) = handshake(stream).await {
                serve_connection(what, stream, limits, respond, stop).await;
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

async fn serve_connection<S, R, RFut, B>(
    what: &'static str,
    stream: S,
    limits: Limits,
    respond: R,
    stop: CancellationToken,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    R: Fn(Request<Incoming>) -> RFut + Send + Sync + 'static,
    RFut: Future<Output = Response<B>> + Send + 'static,
    B: Body<Data = Bytes, Error = Infallible> + Send + 'static,
{
    // The deadline covers the answer's head: a streamed body (the in-memory
    // apiserver's watches) goes on after it.
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let answer = tokio::time::timeout(limits.request, respond(request));
        async move {
            let answer = match answer.await {
                Ok(answer) => answer.map(BodyExt::boxed_unsync),
                Err(_) => {
                    response(408, TEXT, "the request took too long").map(BodyExt::boxed_unsync)
                }
            };
            Ok::<_, Infallible>(answer)
        }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(limits.header_read)
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

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use http_body_util::BodyExt;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::time::Instant;

    use super::*;

    const LIMITS: Limits = Limits {
        header_read: Duration::from_secs(5),
        request: Duration::from_secs(8),
        connections: 2,
    };

    /// A server within `LIMITS` that reads each request's body and answers `ok`.
    struct Server {
        addr: SocketAddr,
        shutdown: CancellationToken,
        task: tokio::task::JoinHandle<()>,
    }

    impl Server {
        async fn start() -> Self {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let respond = |request: Request<Incoming>| async move {
                let _ = request.into_body().collect().await;
                response(200, "text/plain", "ok")
            };
            let plain = |stream: TcpStream| async move { Some(stream) };
            let shutdown = CancellationToken::new();
            let server = serve(
                "test server",
                listener,
                LIMITS,
                shutdown.clone(),
                plain,
                respond,
            );
            Server {
                addr,
                shutdown,
                task: tokio::spawn(server),
            }
        }

        async fn connect(&self) -> TcpStream {
            TcpStream::connect(self.addr).await.unwrap()
        }

        async fn stop(self) {
            self.shutdown.cancel();
            self.task.await.unwrap();
        }
    }

    /// Held at least `deadline`, and not much longer.
    fn assert_cut_at(held: Duration, deadline: Duration) {
        assert!(
            held >= deadline && held < deadline * 2,
            "held {held:?}, deadline {deadline:?}"
        );
    }

    /// Reads until the server closes the connection: when it did.
    async fn until_closed(stream: &mut TcpStream) -> Instant {
        let _ = stream.read_to_end(&mut Vec::new()).await;
        Instant::now()
    }

    /// Writes a byte a second, `bytes` times or until the server closes.
    async fn dribble(stream: &mut (impl AsyncWrite + Unpin), bytes: usize) {
        for _ in 0..bytes {
            tokio::time::sleep(Duration::from_secs(1)).await;
            if stream.write_all(b"x").await.is_err() {
                return;
            }
        }
    }

    const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";

    /// A connection that sends nothing, fresh or kept alive after an answer, is closed
    /// at the header deadline.
    #[tokio::test(start_paused = true)]
    async fn idle_connections_are_closed_after_the_header_deadline() {
        let server = Server::start().await;
        let mut fresh = server.connect().await;
        let opened = Instant::now();
        assert_cut_at(until_closed(&mut fresh).await - opened, LIMITS.header_read);

        let mut kept = server.connect().await;
        kept.write_all(REQUEST).await.unwrap();
        let mut status = [0; 12];
        kept.read_exact(&mut status).await.unwrap();
        assert_eq!(&status, b"HTTP/1.1 200");
        let answered = Instant::now();
        assert_cut_at(until_closed(&mut kept).await - answered, LIMITS.header_read);
        server.stop().await;
    }

    /// Slowloris: a header byte a second never finishes the headers.
    #[tokio::test(start_paused = true)]
    async fn headers_sent_slowly_are_cut_off_at_the_header_deadline() {
        let server = Server::start().await;
        let mut slow = server.connect().await;
        let opened = Instant::now();
        slow.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        dribble(&mut slow, 60).await;
        let held = opened.elapsed();
        assert!(held < LIMITS.header_read * 2, "held for {held:?}");
        server.stop().await;
    }

    /// A body sent slowly is cut off at the request deadline, with 408.
    #[tokio::test(start_paused = true)]
    async fn a_body_sent_slowly_is_answered_408_at_the_request_deadline() {
        let server = Server::start().await;
        let mut slow = server.connect().await;
        let opened = Instant::now();
        slow.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
            .await
            .unwrap();
        let (mut read, mut write) = slow.split();
        let mut status = [0; 12];
        tokio::select! {
            () = dribble(&mut write, 100) => panic!("the whole body went in"),
            read = read.read_exact(&mut status) => { read.unwrap(); }
        }
        let held = opened.elapsed();
        assert_eq!(&status, b"HTTP/1.1 408");
        assert_cut_at(held, LIMITS.request);
        server.stop().await;
    }

    /// Past the connection cap, a connection waits to be served until one closes.
    #[tokio::test(start_paused = true)]
    async fn connections_past_the_cap_wait_for_one_to_close() {
        let server = Server::start().await;
        let mut first = server.connect().await;
        first.write_all(REQUEST).await.unwrap();
        let mut status = [0; 12];
        first.read_exact(&mut status).await.unwrap();
        let _second = server.connect().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut third = server.connect().await;
        third.write_all(REQUEST).await.unwrap();
        let waited =
            tokio::time::timeout(Duration::from_secs(1), third.read_exact(&mut status)).await;
        assert!(
            waited.is_err(),
            "the third connection is not served while two are open"
        );
        drop(first);
        let served =
            tokio::time::timeout(Duration::from_secs(1), third.read_exact(&mut status)).await;
        assert!(served.is_ok(), "served once a slot freed");
        assert_eq!(&status, b"HTTP/1.1 200");
        server.stop().await;
    }

    /// A listener whose every accept fails, as one out of file descriptors does.
    struct Exhausted(Arc<AtomicUsize>);

    impl Accept for Exhausted {
        async fn accept(&self) -> std::io::Result<TcpStream> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Err(std::io::Error::from_raw_os_error(24))
        }
    }

    /// A failing accept backs off (5 ms doubling to 1 s) rather than spinning.
    #[tokio::test(start_paused = true)]
    async fn failing_accepts_back_off() {
        let tries = Arc::new(AtomicUsize::new(0));
        let shutdown = CancellationToken::new();
        let respond = |_: Request<Incoming>| async { response(200, "text/plain", "ok") };
        let plain = |stream: TcpStream| async move { Some(stream) };
        let listener = Exhausted(tries.clone());
        let server = tokio::spawn(serve(
            "test server",
            listener,
            LIMITS,
            shutdown.clone(),
            plain,
            respond,
        ));
        tokio::time::sleep(Duration::from_secs(10)).await;
        // Tries at 0, then 5, 10, … 640 ms apart (9 by 1.275 s), then once a second: 17.
        let tried = tries.load(Ordering::SeqCst);
        assert_eq!(tried, 17, "{tried} accepts in 10 s");
        shutdown.cancel();
        server.await.unwrap();
    }
}
