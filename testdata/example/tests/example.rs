//! The CLI's output for the bundled example compiles (with `#![deny(warnings)]`) and
//! works: constructors carry apiVersion and kind, clones are equal.

use crdgen_example::pkg::apis::bcrds::v1alpha1::{Example, ExampleSpec};
use kube::Resource;

#[test]
fn generated_example_code_works() {
    let example = Example::new(
        "demo",
        ExampleSpec {
            replicas: 2,
            image: "nginx".into(),
            paused: None,
        },
    );
    let wire = serde_json::to_value(&example).unwrap();
    assert_eq!(wire["apiVersion"], "bcrds.example.com/v1alpha1");
    assert_eq!(wire["kind"], "Example");
    assert_eq!(
        Example::url_path(&(), Some("ns")),
        "/apis/bcrds.example.com/v1alpha1/namespaces/ns/examples"
    );
    assert_eq!(example.clone(), example);
}
