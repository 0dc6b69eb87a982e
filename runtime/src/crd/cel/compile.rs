//! A version's schema read once into the tree the evaluation walks: at each node, its
//! rules parsed, what its value becomes in CEL, and only the children that hold rules.

use std::collections::BTreeMap;

use crdgen_apimachinery::cel::compile::{self, Compiled};
use crdgen_apimachinery::cel::decl::{Decl, ListType, Names, declares_type_and_object_meta};
use crdgen_apimachinery::cel::functions::Env;
use kube_cel::cel::parser::Expression;

use serde_json::Value;

/// How a node's value is seen by a rule.
#[derive(Debug)]
pub(super) enum Shape {
    /// An object of declared properties, reached by their escaped names; `root` (the
    /// resource) and embedded resources also show `apiVersion`, `kind` and `metadata`'s
    /// `name` and `generateName`.
    Object {
        properties: BTreeMap<String, Property>,
        resource: bool,
        /// Whether fields the schema does not declare are kept: no rule reads them, but
        /// the object compares with them, as in cel-go.
        keeps_unknown: bool,
    },
    /// A map (`additionalProperties`): keys as they are.
    Map(Box<Node>),
    /// A list, with its list type when it is not atomic (a map list's keys find old
    /// items).
    List {
        items: Box<Node>,
        list_type: Option<ListType>,
    },
    /// A string in a format CEL has a type for.
    Formatted(Format),
    /// A `number`: always a double, even when written as an integer.
    Number,
    /// Anything else, as JSON gives it (integers, booleans, plain strings,
    /// int-or-string, preserved unknown fields).
    Plain,
}

/// String formats CEL sees as values of their own type.
#[derive(Clone, Copy, Debug)]
pub(super) enum Format {
    Bytes,
    Duration,
    Date,
    DateTime,
}

/// A declared property: its name in CEL and its schema.
#[derive(Debug)]
pub(super) struct Property {
    /// `None` for a name no rule can spell: the property is kept under its own name,
    /// for the object to compare with it, as in cel-go.
    pub escaped: Option<String>,
    pub node: Node,
}

/// One schema node.
#[derive(Debug)]
pub(super) struct Node {
    pub shape: Shape,
    pub rules: Vec<Rule>,
    /// `allOf` branches that hold rules.
    pub all_of: Vec<Node>,
    /// Whether this node or any below it has a rule: walks skip the rest.
    pub has_rules: bool,
    /// `object` or `array`: their values are not shown in errors; for other types, the
    /// type is what a failed evaluation names (`Invalid value: "string"`).
    pub type_name: String,
    /// `nullable`: whether null is a value here (else the data is refused where read).
    pub nullable: bool,
    /// `x-kubernetes-int-or-string`: an integer or a string, whatever `type` says.
    pub int_or_string: bool,
}

/// A rule, parsed.
#[derive(Debug)]
pub(super) struct Rule {
    /// The rule as written.
    pub text: String,
    pub program: Result<Program, String>,
    pub message: Option<String>,
    pub message_expression: Option<MessageExpression>,
    pub reason: Option<String>,
    /// The field the error is about, below this node (`.x.y` as `x.y`).
    pub field_path: Option<String>,
    pub optional_old_self: bool,
    pub uses_old_self: bool,
}

/// A rule or messageExpression ready to evaluate.
#[derive(Debug)]
pub(super) struct Program {
    pub expression: Expression,
    /// Its estimated cost, which no evaluation exceeds (the most there is where the
    /// node has no type to estimate by).
    pub estimate: u64,
    /// The height of its tree, which evaluating it recurses as deep as.
    pub height: usize,
    /// The places of the object it reads, as schema paths from `self` or `oldSelf`.
    pub reads: Vec<Vec<String>>,
}

/// A rule's `messageExpression`, as written and compiled.
#[derive(Debug)]
pub(super) struct MessageExpression {
    pub source: String,
    pub program: Result<Program, String>,
}

impl Rule {
    /// What errors name the rule by: its message, else the rule.
    pub fn name(&self) -> &str {
        self.message
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .unwrap_or(self.text.trim())
    }
}

/// A rule or messageExpression compiled as the apiserver compiles it (`oldSelf`
/// optional when `optional_old_self`), made ready to evaluate.
fn ready(compiled: Compiled, optional_old_self: bool) -> Program {
    let mut expression = compiled.expression;
    let (list_ops, typed_sums, estimate, reads) = match compiled.analysis {
        Some(a) => (a.list_ops, a.typed_sums, a.cost, a.reads),
        None => (Vec::new(), Vec::new(), u64::MAX, Vec::new()),
    };
    let typing = super::rewrite::Typing {
        list_ops: &list_ops,
        typed_sums: &typed_sums,
    };
    super::rewrite::rewrite(&mut expression, optional_old_self, &typing);
    Program {
        height: crdgen_apimachinery::cel::tree::height(&expression),
        expression,
        estimate,
        reads,
    }
}

impl Node {
    /// The tree of `schema`, the root of a resource when `resource`, its rules compiled
    /// as Kubernetes 1.`minor` compiles them.
    pub fn new(schema: &Value, resource: bool, minor: u16) -> Node {
        Node::typed(schema, resource, schema, minor)
    }

    /// The tree of `schema`, whose own rules are compiled against the type of
    /// `typed_as`: the node's schema itself, or for an `allOf` branch the node's it
    /// constrains.
    fn typed(schema: &Value, resource: bool, typed_as: &Value, minor: u16) -> Node {
        let text = |key: &str| schema.get(key).and_then(Value::as_str);
        let type_name = text("type").unwrap_or_default().to_owned();
        let mut has_rules = false;
        let int_or_string = schema["x-kubernetes-int-or-string"] == true;
        let shape = if int_or_string {
            Shape::Plain
        } else {
            match type_name.as_str() {
                "object" => object(schema, resource, minor),
                "array" => match schema.get("items") {
                    Some(items) => Shape::List {
                        items: Box::new(Node::new(items, embedded(items), minor)),
                        list_type: ListType::of(schema),
                    },
                    None => Shape::Plain,
                },
                "number" => Shape::Number,
                "string" => match text("format") {
                    Some("byte") => Shape::Formatted(Format::Bytes),
                    Some("duration") => Shape::Formatted(Format::Duration),
                    Some("date") => Shape::Formatted(Format::Date),
                    Some("date-time") => Shape::Formatted(Format::DateTime),
                    _ => Shape::Plain,
                },
                _ => Shape::Plain,
            }
        };
        has_rules |= match &shape {
            Shape::Object { properties, .. } => properties.values().any(|p| p.node.has_rules),
            Shape::Map(values) => values.has_rules,
            Shape::List { items, .. } => items.has_rules,
            _ => false,
        };
        let entries = schema["x-kubernetes-validations"].as_array();
        // The node's CEL type, which every rule here is compiled against.
        let decl = entries
            .filter(|e| !e.is_empty())
            .and_then(|_| Decl::new(typed_as, resource, Names::of(minor)));
        let rules: Vec<Rule> = entries
            .into_iter()
            .flatten()
            .filter_map(|entry| rule(entry, decl.as_ref(), minor))
            .collect();
        let all_of: Vec<Node> = schema["allOf"]
            .as_array()
            .into_iter()
            .flatten()
            // A branch constrains the value of its node: it is read as that type, down
            // to its properties' and items'.
            .map(|branch| Node::typed(&typed_like(branch, schema), resource, typed_as, minor))
            .filter(|n| n.has_rules)
            .collect();
        has_rules |= !rules.is_empty() || !all_of.is_empty();
        Node {
            shape,
            rules,
            all_of,
            has_rules,
            type_name,
            nullable: schema["nullable"] == true,
            int_or_string,
        }
    }
}

/// `branch` (an `allOf` branch, which may leave types out) with the `type` and `format`
/// of `like` (the schema it constrains) wherever it has none, through its properties,
/// items and additional properties.
fn typed_like(branch: &Value, like: &Value) -> Value {
    let mut typed = branch.clone();
    let Some(map) = typed.as_object_mut() else {
        return typed;
    };
    for key in ["type", "format"] {
        if !map.contains_key(key)
            && let Some(value) = like.get(key)
        {
            map.insert(key.to_owned(), value.clone());
        }
    }
    if let Some(properties) = map.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, property) in properties.iter_mut() {
            *property = typed_like(property, &like["properties"][name]);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(inner) = map.get_mut(key).filter(|v| v.is_object()) {
            *inner = typed_like(inner, &like[key]);
        }
    }
    typed
}

fn embedded(schema: &Value) -> bool {
    schema["x-kubernetes-embedded-resource"] == true
}

fn object(schema: &Value, resource: bool, minor: u16) -> Shape {
    // A resource that declares its type and object meta is read as declared.
    let resource = resource && !declares_type_and_object_meta(schema);
    if let Some(values) = schema.get("additionalProperties").filter(|a| a.is_object()) {
        return Shape::Map(Box::new(Node::new(values, embedded(values), minor)));
    }
    let Some(declared) = schema["properties"].as_object() else {
        return match resource {
            true => Shape::Object {
                properties: BTreeMap::new(),
                resource,
                keeps_unknown: false,
            },
            false => Shape::Plain,
        };
    };
    let properties = declared
        .iter()
        // The resource's metadata is bound by the walk itself (name and generateName).
        .filter(|(name, _)| !(resource && name.as_str() == "metadata"))
        .map(|(name, property)| {
            let node = Node::new(property, embedded(property), minor);
            let escaped = crdgen_apimachinery::cel::escape(name).map(|e| e.into_owned());
            (name.clone(), Property { escaped, node })
        })
        .collect();
    Shape::Object {
        properties,
        resource,
        keeps_unknown: schema["x-kubernetes-preserve-unknown-fields"] == true,
    }
}

/// A rule compiled as the apiserver compiles a new CRD's on Kubernetes 1.`minor`; none
/// where it compiles to nothing (only white space).
fn rule(entry: &Value, decl: Option<&Decl>, minor: u16) -> Option<Rule> {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
    let source = text("rule").unwrap_or_default();
    let optional_old_self = entry["optionalOldSelf"] == true;
    let env = Env::for_new_rules(minor);
    let program = compile::rule(&source, decl, optional_old_self, env)
        .transpose()?
        .map(|c| ready(c, optional_old_self));
    let uses_old_self = program
        .as_ref()
        .is_ok_and(|p| mentions_old_self(&p.expression));
    Some(Rule {
        program,
        message: text("message"),
        message_expression: text("messageExpression")
            .filter(|m| !m.trim().is_empty())
            .map(|source| MessageExpression {
                program: compile::message_expression(&source, decl, optional_old_self, env)
                    .map(|c| ready(c, optional_old_self)),
                source,
            }),
        reason: text("reason"),
        field_path: text("fieldPath").map(|p| p.trim_start_matches('.').to_owned()),
        optional_old_self,
        uses_old_self,
        text: source,
    })
}

/// Whether a rule reads `oldSelf`: a transition rule, run only on updates.
fn mentions_old_self(expression: &Expression) -> bool {
    expression.references().has_variable("oldSelf")
}
