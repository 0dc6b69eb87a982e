//! The serving certificate of the webhook and secure metrics servers: read from a
//! directory (`tls.crt`, `tls.key`, as a Kubernetes TLS secret mounts them) and read
//! again when the files change, as cert-manager rotates them (handshakes after the
//! change get the new certificate); or, for metrics without a directory, a self-signed
//! one made at start, as controller-runtime's metrics server makes.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpStream;
use tokio_rustls::rustls::crypto::ring::sign::any_supported_type;
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::server::TlsStream;
use tokio_util::sync::CancellationToken;

/// The certificate file of a certificate directory.
pub const CERT_FILE: &str = "tls.crt";
/// The private key file of a certificate directory.
pub const KEY_FILE: &str = "tls.key";

/// How often the certificate files are looked at.
pub(crate) const RELOAD_PERIOD: Duration = Duration::from_secs(5);
/// How long a client gets for its TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// rustls on ring, as kube's client here is: rustls 0.23.48 deprecates ring's provider
/// for its lack of post-quantum key exchange, which only aws-lc-rs (a C build) brings,
/// and offers no other way to make one on ring.
pub(crate) fn ring_provider() -> Arc<rustls::crypto::CryptoProvider> {
    #[allow(deprecated)]
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The current certificate, swapped when the files change.
#[derive(Debug)]
pub(crate) struct Reloading {
    /// Where the files are; `None` for a self-signed certificate, which never changes.
    dir: Option<PathBuf>,
    current: RwLock<Arc<CertifiedKey>>,
}

impl Reloading {
    /// Reads the directory's certificate; an error when it has none usable.
    pub(crate) fn new(dir: &Path) -> Result<Arc<Self>, String> {
        Ok(Arc::new(Reloading {
            dir: Some(dir.to_owned()),
            current: RwLock::new(Arc::new(read(dir)?)),
        }))
    }

    /// A fresh self-signed certificate for `localhost` and 127.0.0.1, as
    /// controller-runtime serves metrics with when given no certificate: the traffic is
    /// encrypted, and scrapers either skip verification or are given a certificate.
    #[cfg(feature = "manager")]
    pub(crate) fn self_signed() -> Result<Arc<Self>, String> {
        let generated =
            rcgen::generate_simple_self_signed(["localhost".to_owned(), "127.0.0.1".to_owned()])
                .map_err(|e| format!("cannot make a self-signed certificate: {e}"))?;
        let key = PrivateKeyDer::try_from(generated.signing_key.serialize_der())
            .map_err(|e| format!("cannot read the self-signed key: {e}"))?;
        let signing = any_supported_type(&key).map_err(|e| e.to_string())?;
        Ok(Arc::new(Reloading {
            dir: None,
            current: RwLock::new(Arc::new(CertifiedKey::new(
                vec![generated.cert.der().clone()],
                signing,
            ))),
        }))
    }

    /// The TLS handshake a server runs on each accepted connection, with the current
    /// certificate; `None` (the connection dropped) when it fails or takes too long.
    pub(crate) fn handshake(
        self: &Arc<Self>,
    ) -> impl Fn(TcpStream) -> Pin<Box<dyn Future<Output = Option<TlsStream<TcpStream>>> + Send>>
    + Clone
    + Send
    + 'static
    + use<> {
        let acceptor = tokio_rustls::TlsAcceptor::from(self.server_config());
        move |stream| {
            let accepting = acceptor.accept(stream);
            Box::pin(async move {
                let tls = tokio::time::timeout(HANDSHAKE_TIMEOUT, accepting).await;
                tls.ok().and_then(Result::ok)
            })
        }
    }

    /// A rustls configuration that serves the current certificate (HTTP/1.1 only).
    fn server_config(self: &Arc<Self>) -> Arc<ServerConfig> {
        let provider = ring_provider();
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring supports rustls' default protocol versions")
            .with_no_client_auth()
            .with_cert_resolver(self.clone());
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Arc::new(config)
    }

    /// Reads the files again whenever their modification times change, every `period`,
    /// until `stop`. A change that does not read (a key half written) keeps the old
    /// certificate until the next change.
    pub(crate) async fn watch(self: Arc<Self>, period: Duration, stop: CancellationToken) {
        let Some(dir) = self.dir.clone() else {
            return;
        };
        let mut seen = stamps(&dir);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(period) => {}
            }
            let now = stamps(&dir);
            if now == seen {
                continue;
            }
            match read(&dir) {
                Ok(key) => {
                    *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(key);
                    tracing::info!(dir = %dir.display(), "serving certificate reloaded");
                    seen = now;
                }
                Err(e) => {
                    tracing::warn!(dir = %dir.display(), "serving certificate not reloaded: {e}")
                }
            }
        }
    }
}

impl ResolvesServerCert for Reloading {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(
            self.current
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        )
    }
}

fn stamps(dir: &Path) -> [Option<SystemTime>; 2] {
    [CERT_FILE, KEY_FILE].map(|f| {
        std::fs::metadata(dir.join(f))
            .and_then(|m| m.modified())
            .ok()
    })
}

fn read(dir: &Path) -> Result<CertifiedKey, String> {
    let (cert_file, key_file) = (dir.join(CERT_FILE), dir.join(KEY_FILE));
    let chain = CertificateDer::pem_file_iter(&cert_file)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{}: {e}", cert_file.display()))?;
    if chain.is_empty() {
        return Err(format!("{}: no certificate", cert_file.display()));
    }
    let key = PrivateKeyDer::from_pem_file(&key_file)
        .map_err(|e| format!("{}: {e}", key_file.display()))?;
    let signing = any_supported_type(&key).map_err(|e| format!("{}: {e}", key_file.display()))?;
    Ok(CertifiedKey::new(chain, signing))
}
