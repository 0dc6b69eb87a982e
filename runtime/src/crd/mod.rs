//! What kube-apiserver does with a custom resource on a write, by its CRD version's
//! schema: defaults, prunes unknown fields, validates the OpenAPI schema, then evaluates
//! the CEL rules. The in-memory API server admits every write through it; tests and
//! webhooks can run it on objects without a server.
//!
//! ```
//! use crdgen_runtime::crd::Validator;
//! use serde_json::json;
//!
//! let validator = Validator::new(&json!({
//!     "type": "object",
//!     "properties": {"spec": {
//!         "type": "object",
//!         "properties": {"replicas": {"type": "integer"}},
//!         "x-kubernetes-validations": [
//!             {"rule": "self.replicas % 2 == 1", "message": "replicas must be odd"}
//!         ]
//!     }}
//! }));
//! let errors = validator.validate(&json!({"spec": {"replicas": 2}}), None).unwrap_err();
//! assert_eq!(errors[0].to_string(), "spec: Invalid value: replicas must be odd");
//! ```

mod cel;
mod schema;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use crate::field::Error;

/// One CRD version's schema, read once, to admit objects by.
#[derive(Debug)]
pub struct Validator {
    schema: Value,
    rules: cel::Rules,
}

impl Validator {
    /// The validator of an `openAPIV3Schema` (as JSON).
    pub fn new(schema: &Value) -> Validator {
        Validator {
            rules: cel::Rules::new(schema),
            schema: schema.clone(),
        }
    }

    /// The schema, as JSON.
    pub(crate) fn schema(&self) -> &Value {
        &self.schema
    }

    /// The validator of `version` of `crd`; `None` when the CRD has no such version or
    /// it has no schema.
    pub fn for_crd(crd: &CustomResourceDefinition, version: &str) -> Option<Validator> {
        let schema = crd
            .spec
            .versions
            .iter()
            .find(|v| v.name == version)?
            .schema
            .as_ref()?
            .open_api_v3_schema
            .as_ref()?;
        Some(Validator::new(&serde_json::to_value(schema).ok()?))
    }

    /// The validator of a `#[derive(CustomResource)]` kind's version, from the CRD it
    /// derives.
    pub fn for_resource<K>() -> Option<Validator>
    where
        K: kube::CustomResourceExt + kube::Resource<DynamicType = ()>,
    {
        Validator::for_crd(&K::crd(), &K::version(&()))
    }

    /// What the apiserver does to `object` before storing it: fills defaults, prunes
    /// unknown fields, then validates it (`old`: the stored object, on an update). The
    /// errors are the causes of the apiserver's 422 answer, in its words.
    ///
    /// # Errors
    ///
    /// Every schema violation and failed rule. A value of the wrong type or outside its
    /// enum keeps the rules from running, as on the apiserver, which says so.
    pub fn admit(&self, object: &mut Value, old: Option<&Value>) -> Result<(), Vec<Error>> {
        schema::default(&self.schema, object);
        schema::prune(&self.schema, object, true);
        let mut errors = Vec::new();
        schema::check(&self.schema, object, "", &mut errors);
        if schema::blocking(&errors) {
            if !self.rules.is_empty() {
                errors.push(crate::field::Error {
                    kind: crate::field::ErrorType::Invalid,
                    field: crate::field::Path::root(),
                    value: Some(Value::Null),
                    detail: "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation".into(),
                });
            }
        } else {
            self.rules.check(object, old, &mut errors);
        }
        match errors.is_empty() {
            true => Ok(()),
            false => Err(errors),
        }
    }

    /// [`admit`](Self::admit) on a copy: the errors the apiserver would answer a write
    /// of `object` with.
    ///
    /// # Errors
    ///
    /// As [`admit`](Self::admit).
    pub fn validate(&self, object: &Value, old: Option<&Value>) -> Result<(), Vec<Error>> {
        self.admit(&mut object.clone(), old)
    }
}
