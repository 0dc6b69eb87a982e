//! The serving certificate, read from a directory (`tls.crt`, `tls.key`, as a
//! Kubernetes TLS secret mounts them) and read again when the files change, as
//! cert-manager rotates them: handshakes after the change get the new certificate.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::crypto::ring::sign::any_supported_type;
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_util::sync::CancellationToken;

/// The certificate file of a certificate directory.
pub const CERT_FILE: &str = "tls.crt";
/// The private key file of a certificate directory.
pub const KEY_FILE: &str = "tls.key";

/// The current certificate, swapped when the files change.
#[derive(Debug)]
pub(super) struct Reloading {
    dir: PathBuf,
    current: RwLock<Arc<CertifiedKey>>,
}

impl Reloading {
    /// Reads the directory's certificate; an error when it has none usable.
    pub(super) fn new(dir: &Path) -> Result<Arc<Self>, String> {
        Ok(Arc::new(Reloading {
            dir: dir.to_owned(),
            current: RwLock::new(Arc::new(read(dir)?)),
        }))
    }

    /// A rustls configuration that serves the current certificate (HTTP/1.1 only).
    pub(super) fn server_config(self: &Arc<Self>) -> Arc<ServerConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
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
    pub(super) async fn watch(self: Arc<Self>, period: Duration, stop: CancellationToken) {
        let mut seen = stamps(&self.dir);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(period) => {}
            }
            let now = stamps(&self.dir);
            if now == seen {
                continue;
            }
            match read(&self.dir) {
                Ok(key) => {
                    *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(key);
                    tracing::info!(dir = %self.dir.display(), "webhook certificate reloaded");
                    seen = now;
                }
                Err(e) => {
                    tracing::warn!(dir = %self.dir.display(), "webhook certificate not reloaded: {e}")
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
