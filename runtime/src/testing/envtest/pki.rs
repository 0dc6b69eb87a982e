//! Fresh credentials for one control plane, made in process (no openssl): a CA, the
//! apiserver's serving certificate for 127.0.0.1 and localhost, the service-account
//! signing key, and a bearer token for an admin in `system:masters`.

use std::fmt::Write as _;
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SanType,
};
use ring::rand::{SecureRandom, SystemRandom};

use super::EnvtestError;

/// The files the apiserver reads, and what a client needs to trust and reach it.
pub struct Pki {
    /// PEM of the CA that signed the serving certificate.
    pub ca_pem: String,
    pub token: String,
}

/// Paths of the files [`Pki::write`] lays down in a directory.
pub const CA: &str = "ca.crt";
pub const SERVING_CERT: &str = "apiserver.crt";
pub const SERVING_KEY: &str = "apiserver.key";
pub const SERVICE_ACCOUNT_KEY: &str = "sa.key";
pub const SERVICE_ACCOUNT_PUB: &str = "sa.pub";
pub const TOKENS: &str = "tokens.csv";

impl Pki {
    /// Generates everything and writes the files into `dir` (mode 0600 for keys).
    pub fn write(dir: &Path) -> Result<Pki, EnvtestError> {
        let pki = |e: rcgen::Error| EnvtestError::Pki(e.to_string());
        let ca_pem = serving_certificates(dir, SERVING_CERT, SERVING_KEY, "kube-apiserver")?;
        let service_accounts = KeyPair::generate().map_err(pki)?;
        let token = random_hex(32)?;
        let files = [
            (CA, ca_pem.clone(), 0o644),
            (SERVICE_ACCOUNT_KEY, service_accounts.serialize_pem(), 0o600),
            (
                SERVICE_ACCOUNT_PUB,
                service_accounts.public_key_pem(),
                0o644,
            ),
            // The apiserver's static token file: token,user,uid,"group".
            (
                TOKENS,
                format!("{token},admin,admin,\"system:masters\"\n"),
                0o600,
            ),
        ];
        for (name, contents, mode) in files {
            write_private(&dir.join(name), &contents, mode)?;
        }
        Ok(Pki { ca_pem, token })
    }
}

/// A fresh CA, and a serving certificate it signed for 127.0.0.1 and localhost named
/// `common_name`, written into `dir` as `cert_file` and `key_file` (mode 0600): what the
/// apiserver serves with, and what a test's webhook server on loopback serves with
/// (`tls.crt`, `tls.key`). Returns the CA's PEM, for the client that trusts it.
///
/// # Errors
///
/// When a certificate cannot be made or written.
pub fn serving_certificates(
    dir: &Path,
    cert_file: &str,
    key_file: &str,
    common_name: &str,
) -> Result<String, EnvtestError> {
    let pki = |e: rcgen::Error| EnvtestError::Pki(e.to_string());
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(pki)?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "crdgen-envtest-ca");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca =
        CertifiedIssuer::self_signed(ca_params, KeyPair::generate().map_err(pki)?).map_err(pki)?;

    let serving_key = KeyPair::generate().map_err(pki)?;
    let mut serving = CertificateParams::new(vec!["localhost".to_owned()]).map_err(pki)?;
    serving
        .distinguished_name
        .push(DnType::CommonName, common_name);
    serving
        .subject_alt_names
        .push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
    serving.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let serving_cert = serving.signed_by(&serving_key, &ca).map_err(pki)?;
    // Written beside and renamed, so that a server reading the directory meanwhile
    // never sees half a file.
    for (name, contents, mode) in [
        (cert_file, serving_cert.pem(), 0o644),
        (key_file, serving_key.serialize_pem(), 0o600),
    ] {
        let partial = dir.join(format!(".{name}.partial"));
        let _ = std::fs::remove_file(&partial);
        write_private(&partial, &contents, mode)?;
        std::fs::rename(&partial, dir.join(name))
            .map_err(|e| EnvtestError::Io(format!("writing {}", dir.join(name).display()), e))?;
    }
    Ok(ca.pem())
}

fn write_private(path: &Path, contents: &str, mode: u32) -> Result<(), EnvtestError> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let io = |e| EnvtestError::Io(format!("writing {}", path.display()), e);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(io)?;
    file.write_all(contents.as_bytes()).map_err(io)
}

fn random_hex(bytes: usize) -> Result<String, EnvtestError> {
    let mut buf = vec![0u8; bytes];
    SystemRandom::new()
        .fill(&mut buf)
        .map_err(|_| EnvtestError::Pki("no system randomness".to_owned()))?;
    Ok(buf.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    }))
}

/// A TLS client that trusts `ca_pem` (what [`serving_certificates`] returns): how a
/// test or bench reaches a server on loopback, as the apiserver does with a `caBundle`.
///
/// # Errors
///
/// When `ca_pem` is not a certificate.
#[cfg(feature = "tls")]
pub fn trusting(ca_pem: &str) -> Result<tokio_rustls::TlsConnector, EnvtestError> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    use tokio_rustls::rustls;
    let pki = |e: &dyn std::fmt::Display| EnvtestError::Pki(e.to_string());
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(cert.map_err(|e| pki(&e))?).map_err(|e| pki(&e))?;
    }
    let provider = crate::tls::ring_provider();
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| pki(&e))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(std::sync::Arc::new(
        config,
    )))
}
