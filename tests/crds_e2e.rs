//! Every CRD of the crds testdata case is applied to a real apiserver
//! (CRDGEN_E2E_KUBECONFIG, else envtest) and becomes Established; for each validation
//! marker an object breaking it is rejected while a valid one is accepted, defaulted and
//! pruned (as server-side dry runs). The in-memory server, given the same CRDs, must
//! answer the same.

mod common;

use crdgen_runtime::testing::{ApiServer, cluster};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
use serde_json::{Value, json};

fn generated_crds() -> Vec<CustomResourceDefinition> {
    let files = common::generate_files(&common::case("crds").options());
    files
        .iter()
        .filter(|(p, _)| p.ends_with(".yaml"))
        .map(|(_, text)| serde_yaml_ng::from_str(text).unwrap())
        .collect()
}

fn valid() -> Value {
    json!({
        "minReplicas": 2, "ratio": 1.0, "name": "web", "policy": "Always", "level": 1,
        "contact": "ops@example.com", "tags": ["a"], "args": [],
        "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
        "selector": {"app": "web"}, "primary": {"name": "p", "port": 1}, "maxSurge": "25%",
        "raw": {"anything": [1, 2]},
        "template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "t"}},
        "resource": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "r"}},
        "since": "2026-01-01T00:00:00Z", "owner": "ops", "team": "core", "memory": "512Mi",
        "methods": ["GET", "*"], "release": "1.10",
        "conditions": [condition()]
    })
}

/// A valid metav1.Condition.
fn condition() -> Value {
    json!({
        "type": "example.com/Ready", "status": "True", "reason": "Reconciled",
        "message": "", "observedGeneration": 1, "lastTransitionTime": "2026-01-01T00:00:00Z"
    })
}

/// The crds case's CRD file for `Validated`, as crdgen writes it.
fn validated_yaml() -> String {
    let files = common::generate_files(&common::case("crds").options());
    let (_, text) = files
        .into_iter()
        .find(|(p, _)| p.ends_with("markers.crdgen.dev_validateds.yaml"))
        .expect("the Validated CRD");
    text
}

/// One object per validation marker, each breaking only that marker.
fn invalid() -> Vec<(&'static str, Value)> {
    let with = |key: &str, value: Value| {
        let mut spec = valid();
        spec[key] = value;
        spec
    };
    let mut without_owner = valid();
    without_owner.as_object_mut().unwrap().remove("owner");
    vec![
        ("Minimum", with("minReplicas", json!(0))),
        ("ExclusiveMaximum", with("minReplicas", json!(10))),
        ("MultipleOf", with("minReplicas", json!(3))),
        ("ExclusiveMinimum", with("ratio", json!(0.5))),
        ("MinLength", with("name", json!(""))),
        ("MaxLength", with("name", json!("a".repeat(64)))),
        ("Pattern", with("name", json!("Web"))),
        ("XValidation", with("name", json!("forbidden"))),
        ("Enum (strings)", with("policy", json!("Sometimes"))),
        ("Enum (integers)", with("level", json!(4))),
        ("Format email", with("contact", json!("not an address"))),
        ("MinItems", with("tags", json!([]))),
        (
            "MaxItems",
            with("tags", json!(["a", "b", "c", "d", "e", "f"])),
        ),
        ("listType=set", with("tags", json!(["a", "a"]))),
        ("items:Pattern", with("tags", json!(["A"]))),
        ("items:MaxLength", with("tags", json!(["abcdefghijk"]))),
        (
            "listType=map",
            with(
                "ports",
                json!([{"name": "http", "port": 80, "protocol": "TCP"}, {"name": "http", "port": 81, "protocol": "TCP"}]),
            ),
        ),
        ("MinProperties", with("selector", json!({}))),
        (
            "MaxProperties",
            with("selector", json!({"a": "1", "b": "2", "c": "3", "d": "4"})),
        ),
        (
            "nested Minimum",
            with("primary", json!({"name": "p", "port": 0})),
        ),
        ("Format date-time", with("since", json!("yesterday"))),
        ("XIntOrString", with("maxSurge", json!(true))),
        ("Pattern on a Quantity", with("memory", json!("12Ki"))),
        ("items:Enum with \"*\"", with("methods", json!(["PUT"]))),
        ("Enum kept as written", with("release", json!("1.1"))),
        (
            "MaxLength on a Quantity",
            with("memory", json!("123456789")),
        ),
        (
            "XEmbeddedResource",
            with("template", json!({"metadata": {"name": "no-kind"}})),
        ),
        ("required", without_owner),
        // metav1.Condition's own markers, from its Go source, as controller-gen has them.
        (
            "Condition type Pattern",
            with_condition("type", json!("not a type")),
        ),
        (
            "Condition type MaxLength",
            with_condition("type", json!("A".repeat(317))),
        ),
        (
            "Condition status Enum",
            with_condition("status", json!("Maybe")),
        ),
        (
            "Condition reason MinLength",
            with_condition("reason", json!("")),
        ),
        (
            "Condition reason Pattern",
            with_condition("reason", json!("not-camel")),
        ),
        (
            "Condition message MaxLength",
            with_condition("message", json!("m".repeat(32769))),
        ),
        (
            "Condition observedGeneration Minimum",
            with_condition("observedGeneration", json!(-1)),
        ),
    ]
}

/// The valid object with one field of its condition replaced.
fn with_condition(key: &str, value: Value) -> Value {
    let mut spec = valid();
    spec["conditions"][0][key] = value;
    spec
}

/// The valid object (with an unknown field), then one object per marker, each as a
/// server-side dry run: the defaulted and pruned valid object, and the markers whose
/// object was accepted.
async fn dry_runs(api: &Api<DynamicObject>, resource: &ApiResource) -> (Value, Vec<String>) {
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let object = |spec: Value| {
        let mut o = DynamicObject::new("check", resource);
        o.data = json!({ "spec": spec });
        o
    };
    let mut with_unknown = valid();
    with_unknown["unknown"] = json!("pruned");
    let mut valid_object = object(with_unknown);
    valid_object.data["unknownTopLevel"] = json!(1);
    let admitted = match api.create(&dry_run, &valid_object).await {
        Ok(o) => o.data,
        Err(e) => json!({ "refused": e.to_string() }),
    };
    let mut accepted = Vec::new();
    for (marker, spec) in invalid() {
        match api.create(&dry_run, &object(spec)).await {
            Err(kube::Error::Api(status)) if status.code == 422 => {}
            other => accepted.push(format!("{marker}: {other:?}")),
        }
    }
    (admitted, accepted)
}

/// What both servers must have done to the valid object: defaults filled in (at the
/// top and inside list items), unknown fields pruned.
fn assert_defaulted_and_pruned(admitted: &Value) {
    let spec = &admitted["spec"];
    assert_eq!(spec["weight"], json!(5), "{admitted}");
    assert_eq!(
        spec["fallback"],
        json!({"name": "http", "port": 80, "protocol": "TCP"})
    );
    assert_eq!(spec["ports"][0]["protocol"], json!("TCP"));
    assert!(spec.get("unknown").is_none(), "pruned: {admitted}");
    assert!(
        admitted.get("unknownTopLevel").is_none(),
        "pruned: {admitted}"
    );
    assert_eq!(spec["raw"], json!({"anything": [1, 2]}), "preserved");
    assert_eq!(spec["switch"], json!("on"), "a string default: {admitted}");
}

fn validated() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("markers.crdgen.dev", "v1", "Validated"),
        "validateds",
    )
}

/// The same checks against the in-memory server, with the generated CRDs registered.
#[tokio::test]
async fn the_in_memory_server_enforces_the_same_markers() {
    let server = ApiServer::new();
    for crd in generated_crds() {
        server.register_crd(&crd);
    }
    let resource = validated();
    let api = Api::namespaced_with(server.client(), "test", &resource);
    let (admitted, accepted) = dry_runs(&api, &resource).await;
    assert_defaulted_and_pruned(&admitted);
    assert!(
        accepted.is_empty(),
        "objects breaking these markers were not rejected: {accepted:#?}"
    );
}

#[tokio::test]
async fn generated_crds_are_accepted_and_enforce_their_markers() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("crds_e2e").await else {
        return;
    };
    // What the server's version lacks (selectableFields before 1.31) is left out by
    // install_crds, which says so.
    let generated = generated_crds();
    let installed = common::Installed::new(&client, &generated, "crdgen-crds").await;
    let resource = validated();
    let api: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), &installed.namespace, &resource);
    // Collect the outcome first, clean up, then report: a failure must not leave the
    // CRDs behind.
    let (admitted, accepted) = dry_runs(&api, &resource).await;
    installed.remove().await;
    assert_defaulted_and_pruned(&admitted);
    assert!(
        accepted.is_empty(),
        "objects breaking these markers were not rejected: {accepted:#?}"
    );
}

/// One name or bound crdgen refuses (issue 10, case 8): the marker edit on the bundled
/// example that crdgen must refuse with `code`, and the same mistake made by hand in the
/// example's CRD, which the real apiserver must refuse.
struct Refusal {
    what: &'static str,
    code: &'static str,
    /// (line in example_types.rs or the group's mod.rs to find, what to put instead)
    edit: (&'static str, &'static str, String),
    crd: fn(&mut Value),
    /// Whether the apiserver refuses the CRD. kube-apiserver 1.28 takes a negative
    /// `maxLength`, which no string can then satisfy: crdgen refuses it as a mistake.
    apiserver_refuses: bool,
}

const TYPES: &str = "pkg/apis/bcrds/v1alpha1/example_types.rs";
const GROUP_MOD: &str = "pkg/apis/bcrds/mod.rs";
const IMAGE: &str = "    pub image: String,";

fn image_schema(crd: &mut Value) -> &mut Value {
    &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["image"]
}

fn set_plural(crd: &mut Value, plural: &str) {
    let group = crd["spec"]["group"].as_str().unwrap().to_owned();
    crd["spec"]["names"]["plural"] = json!(plural);
    crd["metadata"]["name"] = json!(format!("{plural}.{group}"));
}

fn set_group(crd: &mut Value, group: &str) {
    let plural = crd["spec"]["names"]["plural"].as_str().unwrap().to_owned();
    crd["spec"]["group"] = json!(group);
    crd["metadata"]["name"] = json!(format!("{plural}.{group}"));
}

fn refusals() -> Vec<Refusal> {
    let on_image = |marker: &str| (TYPES, IMAGE, format!("    /// {marker}\n{IMAGE}"));
    let on_kind = |marker: &str| {
        (
            TYPES,
            "pub struct Example {",
            format!("/// {marker}\npub struct Example {{"),
        )
    };
    let group = |name: &str| {
        (
            GROUP_MOD,
            "+groupName=bcrds.example.com",
            format!("+groupName={name}"),
        )
    };
    vec![
        Refusal {
            what: "a Pattern that does not compile",
            code: "E0007",
            edit: on_image("+kubebuilder:validation:Pattern=`^(a|b`"),
            crd: |crd| image_schema(crd)["pattern"] = json!("^(a|b"),
            apiserver_refuses: true,
        },
        Refusal {
            what: "a negative MaxLength",
            code: "E0007",
            edit: on_image("+kubebuilder:validation:MaxLength=-1"),
            crd: |crd| image_schema(crd)["maxLength"] = json!(-1),
            apiserver_refuses: false,
        },
        Refusal {
            what: "a 71-character plural",
            code: "E0013",
            edit: on_kind(&format!("+kubebuilder:resource:path={}", "l".repeat(71))),
            crd: |crd| set_plural(crd, &"l".repeat(71)),
            apiserver_refuses: true,
        },
        Refusal {
            what: "a non-ASCII plural",
            code: "E0013",
            edit: on_kind("+kubebuilder:resource:path=exämples"),
            crd: |crd| set_plural(crd, "exämples"),
            apiserver_refuses: true,
        },
        Refusal {
            what: "a short name with an underscore",
            code: "E0013",
            edit: on_kind("+kubebuilder:resource:shortName=ex_1"),
            crd: |crd| crd["spec"]["names"]["shortNames"] = json!(["ex_1"]),
            apiserver_refuses: true,
        },
        Refusal {
            what: "a group that is not a DNS name",
            code: "E0013",
            edit: group("Bad Group!"),
            crd: |crd| set_group(crd, "Bad Group!"),
            apiserver_refuses: true,
        },
        Refusal {
            what: "a group without a dot",
            code: "E0013",
            edit: group("bcrds"),
            crd: |crd| set_group(crd, "bcrds"),
            apiserver_refuses: true,
        },
        Refusal {
            what: "a default its own field's bound refuses",
            code: "E0007",
            edit: (
                TYPES,
                "    /// +kubebuilder:validation:Minimum=1\n",
                "    /// +kubebuilder:validation:Minimum=1\n    /// +kubebuilder:default=0\n"
                    .to_owned(),
            ),
            crd: |crd| {
                crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
                    ["replicas"]["default"] = json!(0)
            },
            apiserver_refuses: true,
        },
        Refusal {
            what: "a 300-character kind",
            code: "E0013",
            edit: (
                TYPES,
                "pub struct Example {",
                format!("pub struct K{} {{", "x".repeat(299)),
            ),
            crd: |crd| {
                let kind = format!("K{}", "x".repeat(299));
                crd["spec"]["names"]["listKind"] = json!(format!("{kind}List"));
                crd["spec"]["names"]["kind"] = json!(kind);
            },
            apiserver_refuses: true,
        },
    ]
}

#[tokio::test]
async fn what_crdgen_refuses_the_apiserver_refuses_too() {
    // crdgen's side: each edit of the example is refused with its code.
    for refusal in refusals() {
        let dir = tempfile::tempdir().unwrap();
        common::copy_tree(&common::testdata("example"), dir.path());
        let (file, from, to) = &refusal.edit;
        let path = dir.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} has no `{from}`");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        let opts = common::case("example").options_at(dir.path(), "bcrds:v1alpha1");
        match crdgen::generate(&opts) {
            Ok(_) => panic!("crdgen accepted {}", refusal.what),
            Err(e) => assert!(
                e.to_string().contains(&format!("error[{}]", refusal.code)),
                "{}: {e}",
                refusal.what
            ),
        }
    }
    // The refused default is said at its marker, in the apiserver's words.
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&common::testdata("example"), dir.path());
    let types = dir.path().join(TYPES);
    let text = std::fs::read_to_string(&types).unwrap();
    let marker = "    /// +kubebuilder:validation:Minimum=1\n";
    let line = text[..text.find(marker).unwrap()].lines().count() + 2;
    std::fs::write(
        &types,
        text.replacen(
            marker,
            &format!("{marker}    /// +kubebuilder:default=0\n"),
            1,
        ),
    )
    .unwrap();
    let opts = common::case("example").options_at(dir.path(), "bcrds:v1alpha1");
    let error = crdgen::generate(&opts).unwrap_err().to_string();
    assert!(
        error.contains(
            "kube-apiserver refuses the CRD of `Example` v1alpha1: `openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: 0:  in body should be greater than or equal to 1`"
        ),
        "{error}"
    );
    assert!(error.contains(&format!("{TYPES}:{line}:9")), "{error}");

    // The apiserver's side: the example's CRD is accepted as generated, and refused with
    // each mistake made by hand.
    let Some(cluster::Connection { client, .. }) = cluster::connect("crds_e2e refusals").await
    else {
        return;
    };
    let files = common::generate_files(&common::case("example").options());
    let (_, yaml) = files.iter().find(|(p, _)| p.ends_with(".yaml")).unwrap();
    let crd: Value = serde_yaml_ng::from_str(yaml).unwrap();
    let crds: Api<DynamicObject> =
        Api::all_with(client, &ApiResource::erase::<CustomResourceDefinition>(&()));
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let create = |crd: Value| {
        let crds = crds.clone();
        let dry_run = dry_run.clone();
        async move {
            let object: DynamicObject = serde_json::from_value(crd).unwrap();
            crds.create(&dry_run, &object).await
        }
    };
    create(crd.clone())
        .await
        .expect("the generated CRD, as a dry run");
    let mut wrong = Vec::new();
    for refusal in refusals() {
        let mut broken = crd.clone();
        (refusal.crd)(&mut broken);
        let refused = match create(broken).await {
            Err(kube::Error::Api(status)) if status.code == 422 => true,
            Ok(_) => false,
            Err(e) => panic!("{}: {e}", refusal.what),
        };
        if refused != refusal.apiserver_refuses {
            wrong.push(format!("{}: refused = {refused}", refusal.what));
        }
    }
    assert!(
        wrong.is_empty(),
        "the apiserver decided otherwise: {wrong:#?}"
    );
}

/// The CRD file read by the apiserver itself, as `kubectl apply -f` sends it: as YAML
/// (`application/yaml`, decoded by sigs.k8s.io/yaml, a YAML 1.1 reader). The enum values
/// and default `on`/`off` come through as strings; written unquoted, as YAML 1.2 writers
/// do, the same reader takes them for booleans and the apiserver refuses the CRD.
#[tokio::test]
async fn the_apiserver_reads_the_crd_files_as_written() {
    let Some(cluster::Connection { client, .. }) = cluster::connect("crds_e2e (YAML)").await else {
        return;
    };
    let as_written = validated_yaml();
    assert!(as_written.contains("- 'on'"), "{as_written}");
    let read = |yaml: String| {
        let request = http::Request::post(
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All",
        )
        .header(http::header::CONTENT_TYPE, "application/yaml")
        .body(yaml.into_bytes())
        .unwrap();
        let client = client.clone();
        async move { client.request::<Value>(request).await }
    };
    let crd = read(as_written.clone()).await.expect("the CRD as written");
    let switch = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["switch"];
    assert_eq!(switch["enum"], json!(["on", "off"]), "{switch}");
    assert_eq!(switch["default"], json!("on"), "{switch}");

    let unquoted = as_written.replace("'on'", "on").replace("'off'", "off");
    match read(unquoted).await {
        Err(kube::Error::Api(status)) => assert_eq!(status.code, 422, "{status:?}"),
        other => panic!("unquoted `on` must be read as a boolean and refused: {other:?}"),
    }
}
