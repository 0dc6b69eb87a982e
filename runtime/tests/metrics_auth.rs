//! Secure metrics, as kubebuilder scaffolds them: `/metrics` over HTTPS, each request's
//! token reviewed by the apiserver and its user's access to the `/metrics` URL decided by
//! RBAC. A ServiceAccount bound to a metrics-reader ClusterRole reads it; one without a
//! grant gets 403; no token, or one the apiserver does not know, 401. The same checks run
//! on the in-memory server and on a real apiserver.

use std::time::{SystemTime, UNIX_EPOCH};

use crdgen_runtime::CancellationToken;
use crdgen_runtime::manager::{SecureMetrics, serve_metrics_secure};
use crdgen_runtime::testing::{ApiServer, cluster, envtest};
use k8s_openapi::api::authentication::v1::TokenRequest;
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use kube::Api;
use kube::api::{DeleteParams, PostParams};
use metrics_exporter_prometheus::PrometheusBuilder;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `method path` over TLS with an optional bearer token: the status and the body.
async fn request(
    connector: &tokio_rustls::TlsConnector,
    port: u16,
    method: &str,
    token: Option<&str>,
) -> (u16, String) {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let mut tls = connector.connect(name, tcp).await.unwrap();
    let authorization = token
        .map(|t| format!("authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "{method} /metrics HTTP/1.1\r\nhost: x\r\n{authorization}content-length: 0\r\nconnection: close\r\n\r\n"
    );
    tls.write_all(head.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tls.read_to_string(&mut answer).await.unwrap();
    let status = answer[9..12].parse().unwrap();
    (status, answer.split_once("\r\n\r\n").unwrap().1.to_owned())
}

/// A fresh name, unique among runs against one cluster.
fn fresh(prefix: &str) -> String {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis();
    format!("{prefix}-{millis}")
}

/// A ServiceAccount `name` in `ns`, and a token for it from the TokenRequest API.
async fn account_token(client: &kube::Client, ns: &str, name: &str) -> String {
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), ns);
    let account = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    accounts
        .create(&PostParams::default(), &account)
        .await
        .unwrap();
    let asked: TokenRequest = serde_json::from_value(json!({"spec": {"audiences": []}})).unwrap();
    let issued = accounts
        .create_token_request(name, &PostParams::default(), &asked)
        .await
        .unwrap();
    issued.status.unwrap().token.unwrap_or_default()
}

/// The checks, through a metrics server that asks `client`'s apiserver, in namespace
/// `ns` (created by the caller); what went wrong, one line each.
async fn checks(client: kube::Client, ns: &str, reader_role: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    let pp = PostParams::default();
    let reader = account_token(&client, ns, "scraper").await;
    let stranger = account_token(&client, ns, "stranger").await;
    // The kubebuilder metrics-reader role, bound cluster-wide to the scraper; and a Role
    // in the namespace that names /metrics too (non-resource URLs are cluster-wide: a
    // Role cannot grant them).
    let role: ClusterRole = serde_json::from_value(json!({
        "metadata": {"name": reader_role},
        "rules": [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}],
    }))
    .unwrap();
    Api::<ClusterRole>::all(client.clone())
        .create(&pp, &role)
        .await
        .unwrap();
    let binding: ClusterRoleBinding = serde_json::from_value(json!({
        "metadata": {"name": reader_role},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": reader_role},
        "subjects": [{"kind": "ServiceAccount", "name": "scraper", "namespace": ns}],
    }))
    .unwrap();
    Api::<ClusterRoleBinding>::all(client.clone())
        .create(&pp, &binding)
        .await
        .unwrap();
    let local: Role = serde_json::from_value(json!({
        "metadata": {"name": "everything"},
        "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}],
    }))
    .unwrap();
    Api::<Role>::namespaced(client.clone(), ns)
        .create(&pp, &local)
        .await
        .unwrap();
    let local_binding: RoleBinding = serde_json::from_value(json!({
        "metadata": {"name": "everything"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "everything"},
        "subjects": [{"kind": "ServiceAccount", "name": "stranger"}],
    }))
    .unwrap();
    Api::<RoleBinding>::namespaced(client.clone(), ns)
        .create(&pp, &local_binding)
        .await
        .unwrap();

    let dir = tempfile::tempdir().unwrap();
    let ca = envtest::serving_certificates(dir.path(), "tls.crt", "tls.key", "metrics").unwrap();
    let connector = envtest::trusting(&ca).unwrap();
    let recorder = PrometheusBuilder::new().build_recorder();
    metrics::with_local_recorder(&recorder, || {
        metrics::counter!("scraped_total").increment(1)
    });
    let shutdown = CancellationToken::new();
    let (addr, server) = serve_metrics_secure(
        "127.0.0.1:0".parse().unwrap(),
        recorder.handle(),
        SecureMetrics::new(client.clone()).cert_dir(dir.path()),
        shutdown.clone(),
    )
    .await
    .unwrap();
    let server = tokio::spawn(server);
    let port = addr.port();

    let mut expect = |what: &str, got: (u16, String), status: u16, body: &str| {
        if got.0 != status || !got.1.contains(body) {
            wrong.push(format!("{what}: {got:?}, expected {status} with {body:?}"));
        }
    };
    let scraper = format!("system:serviceaccount:{ns}:scraper");
    let other = format!("system:serviceaccount:{ns}:stranger");
    for round in ["first", "again, the grant gone (answers kept)"] {
        let got = request(&connector, port, "GET", Some(&reader)).await;
        expect(&format!("reader, {round}"), got, 200, "scraped_total 1");
        let got = request(&connector, port, "GET", Some(&stranger)).await;
        let denied = format!("Authorization denied for user {other}");
        expect(&format!("stranger, {round}"), got, 403, &denied);
        // Within ALLOW_TTL the server keeps its answer: taking the grant away shows
        // only after it, as with controller-runtime's filter.
        let _ = Api::<ClusterRoleBinding>::all(client.clone())
            .delete(reader_role, &DeleteParams::default())
            .await;
    }
    let got = request(&connector, port, "GET", None).await;
    expect("no token", got, 401, "Unauthorized");
    let got = request(&connector, port, "GET", Some("not-a-token")).await;
    expect("unknown token", got, 401, "Unauthorized");
    let got = request(&connector, port, "POST", Some(&reader)).await;
    let denied = format!("Authorization denied for user {scraper}");
    expect("reader posting", got, 403, &denied);

    shutdown.cancel();
    server.await.unwrap();
    let _ = Api::<ClusterRoleBinding>::all(client.clone())
        .delete(reader_role, &DeleteParams::default())
        .await;
    let _ = Api::<ClusterRole>::all(client)
        .delete(reader_role, &DeleteParams::default())
        .await;
    wrong
}

#[tokio::test]
async fn metrics_are_read_by_those_rbac_allows_in_memory() {
    let server = ApiServer::new();
    server
        .register::<ServiceAccount>()
        .register::<ClusterRole>()
        .register::<ClusterRoleBinding>()
        .register::<Role>()
        .register::<RoleBinding>();
    let wrong = checks(server.client(), "monitoring", "metrics-reader").await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[tokio::test]
async fn metrics_are_read_by_those_rbac_allows_on_a_real_apiserver() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("secure metrics").await else {
        return;
    };
    let ns = fresh("crdgen-metrics");
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let namespace = serde_json::from_value(json!({"metadata": {"name": ns}})).unwrap();
    namespaces
        .create(&PostParams::default(), &namespace)
        .await
        .unwrap();
    let wrong = checks(client, &ns, &format!("{ns}-metrics-reader")).await;
    let _ = namespaces.delete(&ns, &DeleteParams::default()).await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Without a certificate directory the server makes its own, self-signed for
/// localhost, as controller-runtime's does: scrapers that skip verification (kubebuilder's
/// ServiceMonitor without cert-manager) still get encryption, and the same checks.
#[tokio::test]
async fn without_a_certificate_the_server_signs_its_own() {
    use tokio_rustls::rustls;

    #[derive(Debug)]
    struct AcceptAny(rustls::crypto::WebPkiSupportedAlgorithms);
    impl rustls::client::danger::ServerCertVerifier for AcceptAny {
        fn verify_server_cert(
            &self,
            _: &rustls_pki_types::CertificateDer<'_>,
            _: &[rustls_pki_types::CertificateDer<'_>],
            _: &rustls_pki_types::ServerName<'_>,
            _: &[u8],
            _: rustls_pki_types::UnixTime,
        ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
            Ok(rustls::client::danger::ServerCertVerified::assertion())
        }
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &rustls_pki_types::CertificateDer<'_>,
            dss: &rustls::DigitallySignedStruct,
        ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &rustls_pki_types::CertificateDer<'_>,
            dss: &rustls::DigitallySignedStruct,
        ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
        }
        fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
            self.0.supported_schemes()
        }
    }
    let provider = rustls::crypto::ring::default_provider();
    let verifier = AcceptAny(provider.signature_verification_algorithms);
    let config = rustls::ClientConfig::builder_with_provider(provider.into())
        .with_safe_default_protocol_versions()
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(std::sync::Arc::new(verifier))
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));

    let server = ApiServer::new();
    let shutdown = CancellationToken::new();
    let (addr, serving) = serve_metrics_secure(
        "127.0.0.1:0".parse().unwrap(),
        PrometheusBuilder::new().build_recorder().handle(),
        SecureMetrics::new(server.client()),
        shutdown.clone(),
    )
    .await
    .unwrap();
    let serving = tokio::spawn(serving);
    let got = request(&connector, addr.port(), "GET", None).await;
    assert_eq!(got, (401, "Unauthorized".to_owned()));
    shutdown.cancel();
    serving.await.unwrap();
}
