//! CEL rules (`x-kubernetes-validations`) on a server: the Ruled kind of the crds case
//! (testdata/crds/apis/rules) has a rule of every marker that writes one, at every level
//! of its schema. Each write below is allowed or denied, and a denial answers with the
//! apiserver's message and causes; the same writes, with the same answers, run against
//! the in-memory server and a real apiserver (CRDGEN_E2E_KUBECONFIG, else envtest).

mod common;

use crdgen_runtime::testing::{ApiServer, cluster};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use serde_json::{Value, json};

fn ruled_crd() -> CustomResourceDefinition {
    let text = common::testdata_crd("crds", "rules:v1", "rules.crdgen.dev_ruleds.yaml", |_| {});
    serde_yaml_ng::from_str(&text).unwrap()
}

fn ruled() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("rules.crdgen.dev", "v1", "Ruled"),
        "ruleds",
    )
}

fn valid() -> Value {
    json!({
        "minReplicas": 1, "maxReplicas": 3, "replicas": 2, "image": "app:1",
        "className": "standard", "paths": ["/data"], "limits": {"cpu": {"min": 1, "max": 2}},
        "owners": ["ops"], "ports": [{"name": "http", "number": 80}, {"name": "grpc", "number": 90}]
    })
}

fn with(key: &str, value: Value) -> Value {
    let mut spec = valid();
    match value {
        Value::Null => {
            spec.as_object_mut().unwrap().remove(key);
        }
        value => spec[key] = value,
    }
    spec
}

fn object(name: &str, spec: Value) -> DynamicObject {
    let mut o = DynamicObject::new(name, &ruled());
    o.data = json!({ "spec": spec });
    o
}

/// How a write was answered: `Ok`, or the Status' message and its causes
/// (`reason field: message`).
type Answer = Result<(), (String, Vec<String>)>;

fn answer<T>(result: Result<T, kube::Error>) -> Answer {
    match result {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) => {
            let causes = status
                .details
                .map(|d| {
                    d.causes
                        .into_iter()
                        .map(|c| format!("{} {}: {}", c.reason, c.field, c.message))
                        .collect()
                })
                .unwrap_or_default();
            Err((format!("{} {}", status.code, status.message), causes))
        }
        Err(other) => Err((other.to_string(), Vec::new())),
    }
}

/// A 422 for `name` with one cause.
fn denied(name: &str, reason: &str, field: &str, body: impl AsRef<str>) -> Answer {
    let body = body.as_ref();
    Err((
        format!("422 Ruled.rules.crdgen.dev \"{name}\" is invalid: {field}: {body}"),
        vec![format!("{reason} {field}: {body}")],
    ))
}

/// The writes and what each must be answered with; returns those answered otherwise.
/// `server`: the server's version. Before 1.35 a failed rule names its node's type in
/// place of its value (`Invalid value: "object": …`, `"string"`: kube-apiserver's
/// `fieldErrorForReason(…, sts.Type, …)`); from 1.35 an object or list shows nothing and
/// a scalar its value. Before 1.30 the server has no `optionalOldSelf`, so the rule that
/// uses it is not installed and its write is left out, saying so.
async fn checks(api: &Api<DynamicObject>, server: &cluster::ServerVersion) -> Vec<String> {
    let typed = server.minor < 35;
    let optional_old_self = server.has(cluster::CrdFeature::OptionalOldSelf);
    // A failed rule on an object or a list: its value is not shown.
    let whole = |ty: &str, message: &str| match typed {
        true => format!("Invalid value: \"{ty}\": {message}"),
        false => format!("Invalid value: {message}"),
    };
    // On a scalar: its value (`value`, as JSON), or before 1.35 its type.
    let scalar = |ty: &str, value: &str, message: &str| match typed {
        true => format!("Invalid value: \"{ty}\": {message}"),
        false => format!("Invalid value: {value}: {message}"),
    };
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let invalid = "FieldValueInvalid";
    let mut creates = vec![
        ("valid", valid(), Ok(())),
        (
            "min-over-max",
            with("minReplicas", json!(4)),
            denied(
                "min-over-max",
                invalid,
                "spec.minReplicas",
                whole("object", "minReplicas must not exceed maxReplicas"),
            ),
        ),
        (
            "both",
            with("build", json!("Dockerfile")),
            denied(
                "both",
                invalid,
                "spec",
                whole(
                    "object",
                    "exactly one of the fields in [image build] must be set",
                ),
            ),
        ),
        (
            "neither",
            with("image", Value::Null),
            denied(
                "neither",
                invalid,
                "spec",
                whole(
                    "object",
                    "exactly one of the fields in [image build] must be set",
                ),
            ),
        ),
        (
            "cpu-and-gpu",
            {
                let mut spec = with("cpu", json!("1"));
                spec["gpu"] = json!("1");
                spec
            },
            denied(
                "cpu-and-gpu",
                invalid,
                "spec",
                whole(
                    "object",
                    "at most one of the fields in [cpu gpu] may be set",
                ),
            ),
        ),
        (
            "relative-path",
            with("paths", json!(["/data", "tmp"])),
            denied(
                "relative-path",
                invalid,
                "spec.paths[1]",
                scalar("string", "\"tmp\"", "paths must be absolute"),
            ),
        ),
        (
            "bad-limit",
            with("limits", json!({"cpu": {"min": 3, "max": 2}})),
            denied(
                "bad-limit",
                invalid,
                "spec.limits[cpu]",
                whole("object", "min must not exceed max"),
            ),
        ),
        (
            "many-owners",
            with("owners", json!(["a", "b", "c", "d"])),
            denied(
                "many-owners",
                invalid,
                "spec.owners",
                whole("array", "at most 3 owners; the first is a"),
            ),
        ),
        (
            "gold",
            with("tier", json!("gold")),
            denied(
                "gold",
                invalid,
                "spec.tier",
                scalar("string", "\"gold\"", "a Ruled is not created gold"),
            ),
        ),
        (
            "twenty-one-characters",
            valid(),
            denied(
                "twenty-one-characters",
                invalid,
                "<nil>",
                whole("object", "a Ruled's name is at most 20 characters"),
            ),
        ),
    ];
    if !optional_old_self {
        creates.retain(|(name, _, _)| *name != "gold");
        // Past the harness's capture, so the run's log says what was left out.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr().lock(),
            "cel_e2e: the create refused by an optionalOldSelf rule is left out: kube-apiserver {} lacks optionalOldSelf",
            server.git_version
        );
    }
    let mut wrong = Vec::new();
    for (name, spec, expected) in creates.drain(..) {
        let got = answer(api.create(&dry_run, &object(name, spec)).await);
        if got != expected {
            wrong.push(format!("create {name}: {got:?}, not {expected:?}"));
        }
    }

    // Updates: transition rules and immutability, against a stored object (a merge patch
    // of its whole spec, or dropping its region).
    let mut stored = object("stored", with("region", json!("eu")));
    stored.data["spec"]["tier"] = json!("silver");
    if let Err(e) = api.create(&PostParams::default(), &stored).await {
        wrong.push(format!("creating the stored object: {e}"));
        return wrong;
    }
    let forbidden = "FieldValueForbidden";
    let updates = vec![
        ("grow", with("replicas", json!(3)), Ok(())),
        (
            "shrink",
            with("replicas", json!(1)),
            denied(
                "stored",
                forbidden,
                "spec.replicas",
                "Forbidden: replicas may not shrink",
            ),
        ),
        (
            "change-class",
            with("className", json!("premium")),
            denied(
                "stored",
                invalid,
                "spec.className",
                scalar("string", "\"premium\"", "field is immutable"),
            ),
        ),
        ("become-gold", with("tier", json!("gold")), Ok(())),
        (
            "reorder-and-grow-ports",
            with(
                "ports",
                json!([{"name": "grpc", "number": 91}, {"name": "http", "number": 80}]),
            ),
            Ok(()),
        ),
        (
            "shrink-a-port",
            with(
                "ports",
                json!([{"name": "grpc", "number": 90}, {"name": "http", "number": 79}]),
            ),
            denied(
                "stored",
                invalid,
                "spec.ports[1].number",
                scalar("integer", "79", "a port's number may only grow"),
            ),
        ),
        (
            "drop-region",
            with("region", Value::Null),
            denied(
                "stored",
                invalid,
                "spec",
                whole("object", "field region is immutable once set"),
            ),
        ),
    ];
    for (what, mut spec, expected) in updates {
        if what != "drop-region" {
            spec["region"] = json!("eu");
        }
        stored.data["spec"] = spec;
        let patch = Patch::Merge(json!({"spec": stored.data["spec"]}));
        // A merge patch cannot remove a field by leaving it out: send null for it.
        let patch = match what {
            "drop-region" => Patch::Merge(json!({"spec": {"region": null}})),
            _ => patch,
        };
        let params = PatchParams {
            dry_run: true,
            ..Default::default()
        };
        let got = answer(api.patch("stored", &params, &patch).await);
        if got != expected {
            wrong.push(format!("update {what}: {got:?}, not {expected:?}"));
        }
    }

    // Status rules run on writes through the status subresource.
    let status = |ready: i64| Patch::Merge(json!({"status": {"ready": ready, "total": 2}}));
    let params = PatchParams::default();
    let got = answer(api.patch_status("stored", &params, &status(1)).await);
    if got != Ok(()) {
        wrong.push(format!("a valid status: {got:?}"));
    }
    let got = answer(api.patch_status("stored", &params, &status(3)).await);
    let expected = denied(
        "stored",
        invalid,
        "status",
        whole("object", "ready must not exceed total"),
    );
    if got != expected {
        wrong.push(format!("an invalid status: {got:?}, not {expected:?}"));
    }
    let _ = api.delete("stored", &Default::default()).await;
    wrong
}

#[tokio::test]
async fn the_in_memory_server_evaluates_the_rules_as_the_apiserver() {
    // As the newest Kubernetes, and as the older ones the real-cluster suite meets, with
    // the CRD installed as it is installed there.
    for minor in [28, 34, crdgen_runtime::crd::KUBERNETES_MINOR] {
        let server = ApiServer::new().kubernetes_minor(minor);
        let version = cluster::server_version(&server.client()).await;
        let (crd, _) = cluster::fit_crd(&ruled_crd(), &version);
        server.register_crd(&crd);
        let api = Api::namespaced_with(server.client(), "test", &ruled());
        let wrong = checks(&api, &version).await;
        assert!(wrong.is_empty(), "as 1.{minor}: {wrong:#?}");
    }
}

#[tokio::test]
async fn the_apiserver_evaluates_the_rules() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("cel_e2e").await else {
        return;
    };
    if !keeps_rules(&client, "cel_e2e").await {
        return;
    }
    let version = cluster::server_version(&client).await;
    let installed = common::Installed::new(&client, &[ruled_crd()], "crdgen-cel").await;
    let api = Api::namespaced_with(client.clone(), &installed.namespace, &ruled());
    let wrong = checks(&api, &version).await;
    installed.remove().await;
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A rule and the field it is on, for the cost checks: crdgen refuses what the
/// apiserver would refuse for its estimated cost, and takes what it takes.
struct Costed {
    what: &'static str,
    /// The field's markers but the rule, and its Rust type.
    markers: &'static [&'static str],
    ty: &'static str,
    rule: &'static str,
    /// Whether the rule is on the list's items (`items:XValidation`).
    on_items: bool,
    refused: bool,
}

const COSTED: &[Costed] = &[
    Costed {
        what: "a traversal of every string of an unbounded list",
        markers: &[],
        ty: "Vec<String>",
        rule: "self.all(x, !x.contains('..'))",
        on_items: false,
        refused: true,
    },
    Costed {
        what: "the same list and strings bounded",
        markers: &["MaxItems=100", "items:MaxLength=64"],
        ty: "Vec<String>",
        rule: "self.all(x, !x.contains('..'))",
        on_items: false,
        refused: false,
    },
    Costed {
        what: "one unbounded string searched",
        markers: &[],
        ty: "String",
        rule: "self.contains('x')",
        on_items: false,
        refused: false,
    },
    Costed {
        what: "an unbounded string matched",
        markers: &[],
        ty: "String",
        rule: "self.matches('^[a-z]+$')",
        on_items: false,
        refused: false,
    },
    Costed {
        what: "every pair of an unbounded list",
        markers: &[],
        ty: "Vec<i64>",
        rule: "self.all(x, self.all(y, x <= y || y <= x))",
        on_items: false,
        refused: true,
    },
    Costed {
        what: "every pair of a list of 100",
        markers: &["MaxItems=100"],
        ty: "Vec<i64>",
        rule: "self.all(x, self.all(y, x <= y || y <= x))",
        on_items: false,
        refused: false,
    },
    Costed {
        what: "a rule on each unbounded string of an unbounded list",
        markers: &[],
        ty: "Vec<String>",
        rule: "!self.contains('..')",
        on_items: true,
        refused: true,
    },
    Costed {
        what: "a rule on each string of a bounded list",
        markers: &["MaxItems=16", "items:MaxLength=256"],
        ty: "Vec<String>",
        rule: "!self.contains('..')",
        on_items: true,
        refused: false,
    },
    Costed {
        what: "every value of an unbounded map searched",
        markers: &[],
        ty: "std::collections::BTreeMap<String, String>",
        rule: "self.all(k, !self[k].contains('..'))",
        on_items: false,
        refused: true,
    },
    Costed {
        what: "every value of a bounded map searched",
        markers: &["MaxProperties=10"],
        ty: "std::collections::BTreeMap<String, String>",
        rule: "self.all(k, !self[k].contains('..'))",
        on_items: false,
        refused: false,
    },
];

/// A bcrds/v1 Example whose spec has one field, `value`, with `markers` (validation
/// markers, given without their prefix) and `rule` as an XValidation, in a fresh tree.
fn costed_tree(case: &Costed, rule: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let version = dir.path().join("apis/bcrds/v1");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::write(
        version.join("mod.rs"),
        "//! +groupName=bcrds.example.com\n\npub mod example_types;\npub use example_types::*;\n",
    )
    .unwrap();
    let mut markers: Vec<String> = case
        .markers
        .iter()
        .map(|m| format!("    /// +kubebuilder:validation:{m}\n"))
        .collect();
    if let Some(rule) = rule {
        let items = if case.on_items { "items:" } else { "" };
        markers.push(format!(
            "    /// +kubebuilder:validation:{items}XValidation:rule=\"{rule}\",message=\"refused\"\n"
        ));
    }
    let types = format!(
        "use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;\nuse kube::core::TypeMeta;\n\n\
         /// +genclient\npub struct Example {{\n    #[serde(flatten, default)]\n    pub types: Option<TypeMeta>,\n    pub metadata: ObjectMeta,\n    pub spec: ExampleSpec,\n}}\n\n\
         pub struct ExampleSpec {{\n{}    pub value: {},\n}}\n",
        markers.concat(),
        case.ty
    );
    std::fs::write(version.join("example_types.rs"), types).unwrap();
    dir
}

fn costed_options(dir: &std::path::Path) -> crdgen::Options {
    let mut opts = crdgen::Options::new(dir, "client", "apis", "bcrds:v1").unwrap();
    opts.generators = crdgen::Generator::parse_list("crd").unwrap();
    opts
}

#[tokio::test]
async fn rules_over_the_cost_budget_are_refused_as_the_apiserver_refuses_them() {
    // crdgen's side: the estimate decides.
    let mut wrong = Vec::new();
    for case in COSTED {
        let dir = costed_tree(case, Some(case.rule));
        let refused = match crdgen::generate(&costed_options(dir.path())) {
            Ok(_) => false,
            Err(e) if e.to_string().contains("error[E0023]") => true,
            Err(e) => panic!("{}: {e}", case.what),
        };
        if refused != case.refused {
            wrong.push(format!("crdgen: {}: refused = {refused}", case.what));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");

    // The apiserver's side: the CRD without the rule, the rule put in by hand, created
    // as a dry run.
    let Some(cluster::Connection { client, .. }) = cluster::connect("cel_e2e costs").await else {
        return;
    };
    if !keeps_rules(&client, "cel_e2e costs").await {
        return;
    }
    let version = cluster::server_version(&client).await;
    let crds = crd_api(&client);
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    for case in COSTED {
        let object = ruled_by_hand(case);
        let (refused, answer) = match crds.create(&dry_run, &object).await {
            // What the server made of the rule, should it take a CRD it was meant to refuse.
            Ok(created) => (false, format!("kept {}", rules_of(&created, case.on_items))),
            Err(kube::Error::Api(status)) if status.code == 422 => (true, status.message),
            Err(e) => panic!("{}: {e}", case.what),
        };
        if refused != case.refused {
            wrong.push(format!(
                "apiserver: {}: refused = {refused} ({answer})",
                case.what
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "the apiserver {} decided otherwise: {wrong:#?}",
        version.git_version
    );
}

fn crd_api(client: &kube::Client) -> Api<DynamicObject> {
    Api::all_with(
        client.clone(),
        &ApiResource::erase::<CustomResourceDefinition>(&()),
    )
}

/// The CRD of `case` as crdgen writes it without the rule, with the rule put in by hand
/// (what crdgen would refuse to write).
fn ruled_by_hand(case: &Costed) -> DynamicObject {
    let dir = costed_tree(case, None);
    let files = common::generate_files(&costed_options(dir.path()));
    let (_, yaml) = files.iter().find(|(p, _)| p.ends_with(".yaml")).unwrap();
    let mut crd: Value = serde_yaml_ng::from_str(yaml).unwrap();
    let value = &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        ["properties"]["value"];
    let node = if case.on_items {
        &mut value["items"]
    } else {
        value
    };
    node["x-kubernetes-validations"] = json!([{"rule": case.rule, "message": "refused"}]);
    serde_json::from_value(crd).unwrap()
}

/// Whether the server keeps a CRD's rules, after saying `what` is skipped when it does
/// not: before Kubernetes 1.25 (without its feature gate) the apiserver drops
/// `x-kubernetes-validations` as a field it does not know, and has no word on them.
async fn keeps_rules(client: &kube::Client, what: &str) -> bool {
    let cheap = COSTED.iter().find(|c| !c.refused).unwrap();
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let created = crd_api(client)
        .create(&dry_run, &ruled_by_hand(cheap))
        .await
        .unwrap_or_else(|e| panic!("{what}: a CRD with a rule: {e}"));
    let kept = !rules_of(&created, cheap.on_items).is_null();
    if !kept {
        use std::io::Write as _;
        let version = cluster::server_version(client).await;
        let _ = writeln!(
            std::io::stderr().lock(),
            "{what}: skipped: kube-apiserver {} drops x-kubernetes-validations (CEL rules need Kubernetes 1.25)",
            version.git_version
        );
    }
    kept
}

/// The `x-kubernetes-validations` a CRD the server answered with holds on the costed
/// field (or its items).
fn rules_of(crd: &DynamicObject, on_items: bool) -> Value {
    let value = &crd.data["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        ["properties"]["value"];
    let node = if on_items { &value["items"] } else { value };
    node["x-kubernetes-validations"].clone()
}
