//! A rule, and its `messageExpression`, compiled as kube-apiserver compiles them when a
//! CRD is written (apiextensions-apiserver's `pkg/apiserver/schema/cel` `Compile`):
//! parsed with optional syntax on, typed against the schema node's type and the
//! functions of the Kubernetes version, and refused in the apiserver's words when it
//! would refuse them.

use kube_cel::cel::parser::{Expression, Parser};

use super::check::{self, Analysis};
use super::decl::Decl;
use super::functions::Env;

/// A rule that compiles: the expression to evaluate and what its reading found.
#[derive(Debug)]
pub struct Compiled {
    /// The parsed expression.
    pub expression: Expression,
    /// Its types and estimated cost; `None` where the node has no CEL type (a schema
    /// with no `type`), as the apiserver then does not type it either.
    pub analysis: Option<Analysis>,
}

/// Compiles `source` as a rule on a node of type `decl`; `optional_old_self`: the rule
/// sets it. The error is the apiserver's text (`compilation failed: …`, `cel expression
/// must evaluate to a bool`).
pub fn rule(
    source: &str,
    decl: Option<&Decl>,
    optional_old_self: bool,
    env: Env,
) -> Result<Compiled, String> {
    compile(source, decl, optional_old_self, env, "bool").map_err(|e| {
        e.text(
            "compilation failed",
            "cel expression must evaluate to a bool",
        )
    })
}

/// Compiles `source` as a rule's `messageExpression`, which reads what its rule reads
/// and gives a string.
pub fn message_expression(
    source: &str,
    decl: Option<&Decl>,
    optional_old_self: bool,
    env: Env,
) -> Result<Compiled, String> {
    compile(source, decl, optional_old_self, env, "string").map_err(|e| {
        e.text(
            "messageExpression compilation failed",
            "messageExpression must evaluate to a string",
        )
    })
}

/// Why an expression does not compile.
enum Refusal {
    /// It does not parse or type: the compiler's issues.
    Issues(String),
    /// It gives another type than the one asked.
    Result,
}

impl Refusal {
    fn text(self, failed: &str, result: &str) -> String {
        match self {
            Refusal::Issues(issues) => format!("{failed}: {issues}"),
            Refusal::Result => result.to_owned(),
        }
    }
}

fn compile(
    source: &str,
    decl: Option<&Decl>,
    optional_old_self: bool,
    env: Env,
    result: &str,
) -> Result<Compiled, Refusal> {
    let expression = Parser::new()
        .enable_optional_syntax(true)
        .parse(source)
        .map_err(|e| Refusal::Issues(e.to_string()))?;
    let Some(decl) = decl else {
        return Ok(Compiled {
            expression,
            analysis: None,
        });
    };
    let analysis = check::analyze(&expression, source, decl, optional_old_self, env);
    if let Some(issue) = analysis.errors.first() {
        return Err(Refusal::Issues(issue.to_string()));
    }
    if analysis.result != result {
        return Err(Refusal::Result);
    }
    Ok(Compiled {
        expression,
        analysis: Some(analysis),
    })
}
