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
pub use cel::CostLimits;

/// The Kubernetes minor version the validator answers as (1.37): the functions its
/// rules may call, the sizes its estimates take, the words of its errors. The in-memory
/// API server, which admits writes with it, says it is this version at `/version`.
pub const KUBERNETES_MINOR: u16 = 37;

/// The first minor version whose value outside its enum keeps the rules from running
/// (kube-apiserver 1.28 runs them): apiextensions-apiserver's `hasBlockingErr`.
const ENUM_BLOCKS_RULES_SINCE_MINOR: u16 = 29;

/// The first minor version to ratchet validation on an update, rules and schema alike
/// (`CRDValidationRatcheting`, on by default from 1.30): an unchanged value passes.
const RATCHETING_SINCE_MINOR: u16 = 30;

/// One CRD version's schema, read once, to admit objects by, answering as one
/// Kubernetes version ([`KUBERNETES_MINOR`] unless told another).
#[derive(Debug)]
pub struct Validator {
    schema: Value,
    rules: cel::Rules,
    resource: bool,
    minor: u16,
    limits: CostLimits,
}

impl Validator {
    /// The validator of an `openAPIV3Schema` (as JSON).
    pub fn new(schema: &Value) -> Validator {
        Validator::build(schema, true, KUBERNETES_MINOR)
    }

    /// The validator of a schema that is not a resource's root (a type embedded in one):
    /// its rules see no `apiVersion`, `kind` or `metadata` of their own.
    pub fn for_node(schema: &Value) -> Validator {
        Validator::build(schema, false, KUBERNETES_MINOR)
    }

    /// The validator of a resource's schema (`resource`) or a node's, answering as
    /// Kubernetes 1.`minor`, its rules compiled once.
    pub(crate) fn build(schema: &Value, resource: bool, minor: u16) -> Validator {
        Validator {
            rules: cel::Rules::new(schema, resource, minor),
            schema: schema.clone(),
            resource,
            minor,
            limits: CostLimits::default(),
        }
    }

    /// This validator answering as Kubernetes 1.`minor`: its rules compiled with that
    /// version's CEL functions, ratcheted from 1.30, a failed rule naming its node's
    /// type in place of its value before 1.35, and a value outside its enum keeping the
    /// rules from running from 1.29.
    pub fn for_kubernetes(self, minor: u16) -> Validator {
        match minor == self.minor {
            true => self,
            false => Validator {
                limits: self.limits,
                ..Validator::build(&self.schema, self.resource, minor)
            },
        }
    }

    /// This validator with other runtime cost limits than the apiserver's (a call's
    /// 1,000,000, a write's 10,000,000): to test how rules behave near them.
    pub fn with_cost_limits(self, limits: CostLimits) -> Validator {
        Validator { limits, ..self }
    }

    /// The schema, as JSON (the in-memory server's discovery serves it).
    #[cfg(feature = "testing")]
    pub(crate) fn schema(&self) -> &Value {
        &self.schema
    }

    /// Prunes what the schema does not know from `object` and, `defaults` asked, fills
    /// its defaults: what the apiserver does to an object converted to this version
    /// (defaults only at the version it is stored at).
    #[cfg(feature = "testing")]
    pub(crate) fn convert_into(&self, object: &mut Value, defaults: bool) {
        if defaults {
            schema::default(&self.schema, object);
        }
        schema::prune(&self.schema, object, true);
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
        let ratcheted = old.filter(|_| self.minor >= RATCHETING_SINCE_MINOR);
        schema::check(&self.schema, object, ratcheted, "", &mut errors);
        let enum_blocks = self.minor >= ENUM_BLOCKS_RULES_SINCE_MINOR;
        if schema::blocking(&errors, enum_blocks) {
            if !self.rules.is_empty() {
                errors.push(crate::field::Error {
                    kind: crate::field::ErrorType::Invalid,
                    field: crate::field::Path::root(),
                    value: Some(Value::Null),
                    detail: "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation".into(),
                });
            }
        } else {
            // The types are checked: no rule can read data of another type.
            self.rules
                .check(object, old, self.limits, (false, true), &mut errors);
        }
        outcome(errors)
    }

    /// The CEL rules alone, on `object` as it is (no defaults, pruning or schema checks):
    /// what kube-apiserver's CEL validator answers, as its own tests call it.
    ///
    /// # Errors
    ///
    /// Every rule that fails or cannot be evaluated.
    pub fn check_rules(&self, object: &Value, old: Option<&Value>) -> Result<(), Vec<Error>> {
        let mut errors = Vec::new();
        self.rules
            .check(object, old, self.limits, (false, false), &mut errors);
        outcome(errors)
    }

    /// [`check_rules`](Self::check_rules), and the rules' runtime cost as the apiserver
    /// counts it: the budget spent, or one more than the budget when it ran out (the
    /// apiserver's remaining budget of -1).
    ///
    /// # Errors
    ///
    /// As [`check_rules`](Self::check_rules).
    pub fn check_rules_counted(
        &self,
        object: &Value,
        old: Option<&Value>,
    ) -> (Result<(), Vec<Error>>, u64) {
        let mut errors = Vec::new();
        let spent = self
            .rules
            .check(object, old, self.limits, (true, false), &mut errors)
            .unwrap_or_default();
        (outcome(errors), spent)
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

/// What kube-apiserver refuses in `crd` (as JSON) when it is written, as Kubernetes
/// 1.`minor`:
/// the defaults of its versions' schemas ([`default_errors`]), each at its path in the
/// CRD (`spec.validation.openAPIV3Schema…` where every version has the same schema, as
/// the apiserver folds them, else `spec.versions[i].schema.openAPIV3Schema…`).
pub fn crd_errors(crd: &Value, minor: u16) -> Vec<Error> {
    let versions = crd["spec"]["versions"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let schemas: Vec<Option<&Value>> = versions
        .iter()
        .map(|v| v.pointer("/schema/openAPIV3Schema"))
        .collect();
    let folded =
        schemas.len() > 1 && schemas.windows(2).all(|w| w[0] == w[1]) || schemas.len() == 1;
    let mut errors = Vec::new();
    for (i, schema) in schemas.iter().enumerate() {
        let Some(schema) = schema else { continue };
        let at = match folded {
            true => crate::field::Path::new("spec.validation.openAPIV3Schema"),
            false => crate::field::Path::new("spec.versions")
                .index(i)
                .child("schema")
                .child("openAPIV3Schema"),
        };
        errors.extend(default_errors(schema, minor).into_iter().map(|e| Error {
            field: at.join(&e.field),
            ..e
        }));
        if folded {
            break;
        }
    }
    errors
}

/// The defaults of a CRD version's `openAPIV3Schema` that kube-apiserver refuses when
/// the CRD is written, in its words (see [`refused_defaults`]), each at its schema path
/// below `openAPIV3Schema` (`properties[spec].properties[keep].default`).
pub fn default_errors(schema: &Value, minor: u16) -> Vec<Error> {
    let mut errors = Vec::new();
    refused_defaults(schema, minor, |_, refused| errors.extend(refused));
    errors
}

/// Calls `each` with every node of `schema` whose default kube-apiserver of Kubernetes
/// 1.`minor` refuses, and the errors it refuses it with (at their schema paths below
/// `openAPIV3Schema`). A default, as written (the defaults below it are not filled in),
/// must keep no field its schema prunes, meet every value validation of its node
/// (`oneOf`, `anyOf`, `allOf` and `not` included) and pass its node's CEL rules.
pub fn refused_defaults(schema: &Value, minor: u16, mut each: impl FnMut(&Value, Vec<Error>)) {
    defaults_below(schema, &crate::field::Path::root(), true, minor, &mut each);
}

fn defaults_below(
    node: &Value,
    at: &crate::field::Path,
    root: bool,
    minor: u16,
    each: &mut impl FnMut(&Value, Vec<Error>),
) {
    if let Some(default) = node.get("default") {
        let path = at.child("default");
        let mut found = Vec::new();
        let mut pruned = default.clone();
        schema::prune(node, &mut pruned, root);
        if pruned != *default {
            found.push(crate::field::invalid(
                &crate::field::Path::root(),
                default,
                "must not have unknown fields",
            ));
        }
        schema::check(node, default, None, "", &mut found);
        if !schema::blocking(&found, minor >= ENUM_BLOCKS_RULES_SINCE_MINOR) {
            // The node's rules alone: a validator would copy its whole schema, for every
            // default of a CRD.
            cel::Rules::new(node, root, minor).check(
                default,
                None,
                CostLimits::default(),
                (false, true),
                &mut found,
            );
        }
        if !found.is_empty() {
            // A default's own errors are said below its path, as the apiserver roots them.
            let found = found.into_iter().map(|e| Error {
                field: path.join(&e.field),
                ..e
            });
            each(node, found.collect());
        }
    }
    let properties = node["properties"].as_object().into_iter().flatten();
    for (name, property) in properties {
        let below = at.child("properties").key(name);
        defaults_below(property, &below, false, minor, each);
    }
    for key in ["items", "additionalProperties"] {
        if node[key].is_object() {
            defaults_below(&node[key], &at.child(key), false, minor, each);
        }
    }
}

/// A write's errors as its outcome: admitted when there are none.
fn outcome(errors: Vec<Error>) -> Result<(), Vec<Error>> {
    match errors.is_empty() {
        true => Ok(()),
        false => Err(errors),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{CostLimits, Validator};

    fn messages(validator: &Validator, new: &Value, old: Option<&Value>) -> Vec<String> {
        match validator.validate(new, old) {
            Ok(()) => Vec::new(),
            Err(errors) => errors.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn an_unchanged_value_passes_the_bounds_a_new_schema_sets_but_a_changed_one_does_not() {
        // As kube-apiserver 1.37 answered after a CRD gained these bounds over a stored
        // object (tests/differential.rs holds the in-memory server to it).
        let schema = json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "required": ["missing"],
            "properties": {
                "name": {"type": "string", "maxLength": 3},
                "count": {"type": "integer", "maximum": 5},
                "other": {"type": "string"},
                "missing": {"type": "string"},
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {
                        "name": {"type": "string"},
                        "port": {"type": "integer", "maximum": 10},
                    }},
                },
            },
        }}});
        let at = |minor: u16| Validator::new(&schema).for_kubernetes(minor);
        let stored = json!({"spec": {
            "name": "ABCDE", "count": 9, "other": "x",
            "ports": [{"name": "a", "port": 11}, {"name": "b", "port": 12}],
        }});
        // Another field changed: the spec's own `required` is checked, its unchanged
        // fields are not, a moved item of a map list is matched by its key.
        let mut other = stored.clone();
        other["spec"]["other"] = json!("y");
        other["spec"]["ports"] = json!([{"name": "b", "port": 12}, {"name": "a", "port": 11}]);
        assert_eq!(
            messages(&at(37), &other, Some(&stored)),
            ["spec.missing: Required value"]
        );
        // Before 1.30 nothing ratchets.
        assert_eq!(messages(&at(29), &other, Some(&stored)).len(), 5);
        // A changed value meets the schema as it is now.
        let mut changed = stored.clone();
        changed["spec"]["count"] = json!(10);
        changed["spec"]["ports"][0]["port"] = json!(13);
        assert_eq!(
            messages(&at(37), &changed, Some(&stored)),
            [
                "spec.missing: Required value",
                "spec.count: Invalid value: 10: spec.count in body should be less than or equal to 5",
                "spec.ports[0].port: Invalid value: 13: spec.ports[0].port in body should be less than or equal to 10",
            ]
        );
    }

    #[test]
    fn an_unchanged_value_passes_a_rule_it_fails_unless_the_rule_reads_old_self() {
        let validator = Validator::new(&json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.a < 10", "message": "a is too big"}]
        }}}));
        let stored = json!({"spec": {"a": 20, "b": 1}});
        // Created so, it is refused; left as it is in an update, it passes.
        assert_eq!(
            messages(&validator, &stored, None),
            ["spec: Invalid value: a is too big"]
        );
        assert!(messages(&validator, &stored, Some(&stored)).is_empty());
        // Changing anything in spec makes the rule count again.
        let changed = json!({"spec": {"a": 20, "b": 2}});
        assert_eq!(
            messages(&validator, &changed, Some(&stored)),
            ["spec: Invalid value: a is too big"]
        );
    }

    #[test]
    fn a_message_expression_that_fails_gives_way_to_the_message() {
        let validator = Validator::new(&json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "x-kubernetes-validations": [
                {"rule": "self.n > 0", "messageExpression": "self.missing", "message": "n must be positive", "fieldPath": ".n"},
                {"rule": "self.n > 1", "messageExpression": "'n is ' + string(self.n)", "reason": "FieldValueForbidden"},
                {"rule": "self.n > 2"}
            ]
        }}}));
        assert_eq!(
            messages(&validator, &json!({"spec": {"n": 0}}), None),
            [
                "spec.n: Invalid value: n must be positive",
                "spec: Forbidden: n is 0",
                "spec: Invalid value: failed rule: self.n > 2",
            ]
        );
    }

    #[test]
    fn data_of_another_type_fails_only_the_rules_that_read_it_in_the_apiservers_words() {
        let validator = Validator::new(&json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
            "x-kubernetes-validations": [
                {"rule": "self.n > 0"},
                {"rule": "has(self.s)"},
                {"rule": "self.s.size() > 9"}
            ]
        }}}));
        let errors = |object: &Value| match validator.check_rules(object, None) {
            Ok(()) => Vec::new(),
            Err(errors) => errors.iter().map(ToString::to_string).collect(),
        };
        // The schema's own validation refuses such a write first; a direct check of the
        // rules meets the data as the apiserver's conversion does, where it is read.
        assert_eq!(
            errors(&json!({"spec": {"n": 1.5, "s": "short"}})),
            [
                "spec: Invalid value: \"object\": invalid data, expected int, got float64 evaluating rule: self.n > 0",
                "spec: Invalid value: failed rule: self.s.size() > 9",
            ]
        );
        assert_eq!(
            errors(&json!({"spec": {"n": 1, "s": true}})),
            [
                "spec: Invalid value: \"object\": invalid data, expected string, got bool evaluating rule: has(self.s)",
                "spec: Invalid value: \"object\": invalid data, expected string, got bool evaluating rule: self.s.size() > 9",
            ]
        );
    }

    /// A rule comparing every pair of a list's items: 500 items cost about 1.5 million,
    /// past the apiserver's per-call limit of a million.
    fn pairs_schema() -> Value {
        json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"ids": {"type": "array", "items": {"type": "integer"}}},
            "x-kubernetes-validations": [
                {"rule": "self.ids.all(x, self.ids.all(y, x != y || x == y))"},
                {"rule": "false", "message": "never run"}
            ]
        }}})
    }

    fn ids(n: i64) -> Value {
        json!({"spec": {"ids": (0..n).collect::<Vec<i64>>()}})
    }

    #[test]
    fn a_rule_past_the_per_call_limit_ends_the_rules_as_on_the_apiserver() {
        let validator = Validator::new(&pairs_schema());
        // 100 items cost about 60,000: the rule holds, the second fails.
        assert_eq!(
            messages(&validator, &ids(100), None),
            ["spec: Invalid value: never run"]
        );
        assert_eq!(
            messages(&validator, &ids(500), None),
            [
                "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.ids.all(x, self.ids.all(y, x != y || x == y))"
            ]
        );
    }

    #[test]
    fn the_rules_of_a_write_share_one_budget() {
        let schema = json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"items": {"type": "array", "items": {
                "type": "string",
                "x-kubernetes-validations": [{"rule": "self.size() < 100"}]
            }}},
        }}});
        let object = json!({"spec": {"items": ["a", "b", "c", "d"]}});
        // Each item's rule costs 3 (`self`, `size()`, `<`).
        let validator = Validator::new(&schema);
        let (checked, spent) = validator.check_rules_counted(&object, None);
        assert_eq!((checked, spent), (Ok(()), 12));
        // With a budget of 7, the third item's rule has 1 left: the apiserver stops there.
        assert_eq!(validator.check_rules(&object, None), Ok(()));
        let tight = validator.with_cost_limits(CostLimits {
            budget: 7,
            ..CostLimits::default()
        });
        let (checked, spent) = tight.check_rules_counted(&object, None);
        let texts: Vec<String> = checked.unwrap_err().iter().map(|e| e.to_string()).collect();
        assert_eq!(
            texts,
            [
                "spec.items[2]: Invalid value: \"string\": validation failed due to running out of cost budget, no further validation rules will be run"
            ]
        );
        assert_eq!(
            spent, 8,
            "one more than the budget: the apiserver's -1 left"
        );
        // Writes are admitted counting only where the estimates say a limit could be
        // reached, with the same answer.
        assert_eq!(tight.check_rules(&object, None).unwrap_err().len(), 1);
    }

    #[test]
    fn rules_as_deep_as_the_apiserver_takes_them_are_evaluated() {
        // Nested 240 deep, on a test thread's 2 MiB: parsed and evaluated on a grown
        // stack. An even run of `!` is none, as cel-go reads it.
        let lists = format!(
            "{}1{} == {}1{}",
            "[".repeat(120),
            "]".repeat(120),
            "[".repeat(120),
            "]".repeat(120)
        );
        let nots = format!("{}(self.n == 1)", "!".repeat(240));
        let validator = Validator::new(&json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": lists}, {"rule": nots}]
        }}}));
        assert_eq!(
            messages(&validator, &json!({"spec": {"n": 1}}), None),
            Vec::<String>::new()
        );
        assert_eq!(
            messages(&validator, &json!({"spec": {"n": 2}}), None).len(),
            1
        );
    }

    #[test]
    fn a_value_of_the_wrong_type_keeps_the_rules_from_running() {
        let validator = Validator::new(&json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.n > 0"}]
        }}}));
        let errors = messages(&validator, &json!({"spec": {"n": "one"}}), None);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[1]
                .starts_with("<nil>: Invalid value: null: some validation rules were not checked"),
            "{errors:?}"
        );
    }

    #[test]
    fn durations_are_go_durations() {
        let validator = Validator::new(&json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"timeout": {"type": "string", "format": "duration"}},
            "x-kubernetes-validations": [{"rule": "self.timeout <= duration('1h')", "message": "at most an hour"}]
        }}}));
        let timeout = |t: &str| json!({"spec": {"timeout": t}});
        assert!(messages(&validator, &timeout("30m"), None).is_empty());
        assert!(messages(&validator, &timeout("-1.5h"), None).is_empty());
        assert_eq!(
            messages(&validator, &timeout("1h30m"), None),
            ["spec: Invalid value: at most an hour"]
        );
    }

    #[test]
    fn the_validator_answers_as_the_kubernetes_version_it_is_told() {
        let schema = json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {
                "tier": {"type": "string", "enum": ["gold", "silver"]},
                "size": {"type": "integer"},
                "address": {"type": "string"},
            },
            "x-kubernetes-validations": [{"rule": "self.size < 10", "message": "too big"}],
        }}});
        let at = |minor: u16| Validator::new(&schema).for_kubernetes(minor);
        let object = |spec: Value| json!({"spec": spec});

        // A failed rule on an object names its type before 1.35.
        let big = object(json!({"size": 11}));
        assert_eq!(
            messages(&at(34), &big, None),
            ["spec: Invalid value: \"object\": too big"]
        );
        assert_eq!(
            messages(&at(35), &big, None),
            ["spec: Invalid value: too big"]
        );

        // A value outside its enum keeps the rules from running from 1.29.
        let bronze = object(json!({"size": 11, "tier": "bronze"}));
        assert_eq!(messages(&at(28), &bronze, None).len(), 2);
        let from_1_29 = messages(&at(29), &bronze, None);
        assert!(
            from_1_29[1].contains("some validation rules were not checked"),
            "{from_1_29:?}"
        );

        // An unchanged value ratchets from 1.30.
        assert_eq!(messages(&at(29), &big, Some(&big)).len(), 1);
        assert!(messages(&at(30), &big, Some(&big)).is_empty());

        // A function is there for the CRDs of the version after the one it came with.
        let ip = json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"address": {"type": "string"}},
            "x-kubernetes-validations": [{"rule": "isIP(self.address)"}],
        }}});
        let with_address = object(json!({"address": "10.0.0.1"}));
        let compiled = |minor: u16| {
            Validator::new(&ip)
                .for_kubernetes(minor)
                .validate(&with_address, None)
        };
        assert!(compiled(31).is_ok());
        let refused = compiled(30).unwrap_err()[0].to_string();
        assert!(
            refused.contains("undeclared reference to 'isIP'"),
            "{refused}"
        );
    }
}
