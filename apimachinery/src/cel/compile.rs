//! A rule, and its `messageExpression`, compiled as kube-apiserver compiles them when a
//! CRD is written (apiextensions-apiserver's `pkg/apiserver/schema/cel` `Compile`):
//! parsed with optional syntax on, typed against the schema node's type and the
//! functions of the Kubernetes version, and refused in the apiserver's words when it
//! would refuse them.

use kube_cel::cel::common::ast::{Expr, LiteralValue};
use kube_cel::cel::parser::{Expression, Parser};

use super::check::{self, Analysis};
use super::decl::Decl;
use super::functions::Env;
use super::literals;
use super::tree::{children, nesting};

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
/// must evaluate to a bool`). A rule of only white space compiles to nothing, with no
/// error, as the apiserver compiles it: no write runs it (a new CRD with one is refused
/// by its validation, not its compilation).
pub fn rule(
    source: &str,
    decl: Option<&Decl>,
    optional_old_self: bool,
    env: Env,
) -> Result<Option<Compiled>, String> {
    if source.trim().is_empty() {
        return Ok(None);
    }
    compile(source, decl, optional_old_self, env, "bool")
        .map(Some)
        .map_err(|e| {
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
    /// Its program cannot be made (a constant pattern of `find` that is no RE2
    /// expression, which the apiserver compiles when it makes the program).
    Program(String),
}

impl Refusal {
    fn text(self, failed: &str, result: &str) -> String {
        match self {
            Refusal::Issues(issues) => format!("{failed}: {issues}"),
            Refusal::Result => result.to_owned(),
            Refusal::Program(why) => why,
        }
    }
}

/// How deep cel-go's parser lets an expression nest (its `maxRecursionDepth`), counted
/// as [`nesting`](super::tree::nesting) counts.
const MAX_RECURSION_DEPTH: usize = 250;

/// Parses `source` as the apiserver's environment does: optional syntax on, nesting
/// limited as cel-go limits it. The error is the parser's, in cel-go's words where they
/// differ.
pub fn parse(source: &str) -> Result<Expression, String> {
    with_stack(parse_levels(source), || parse_here(source))
}

fn parse_here(source: &str) -> Result<Expression, String> {
    let mut expression = Parser::new()
        .enable_optional_syntax(true)
        // cel-go's limit on the nesting of each grammar rule, here of expressions.
        .max_recursion_depth(MAX_RECURSION_DEPTH as u16)
        .parse(source)
        .map_err(|e| cel_go_words(&e.to_string()))?;
    super::position::even_prefixes_removed(source, &mut expression);
    super::position::quote_escapes_read(source, &mut expression);
    match nesting(&expression) > MAX_RECURSION_DEPTH {
        true => Err("ERROR: <input>:-1:0: max recursion depth exceeded".to_owned()),
        false => Ok(expression),
    }
}

/// Runs `f`, a recursive walk `levels` deep of a rule's tree (a check, an evaluation),
/// on a stack with room for it: 64 KiB a level, enough for an unoptimised build's
/// interpreter. The thread's own when it has that much left (a thread of tests or of
/// tokio's has 2 MiB), else one grown for it.
pub fn with_stack<R>(levels: usize, f: impl FnOnce() -> R) -> R {
    const PER_LEVEL: usize = 64 * 1024;
    let needed = levels.saturating_add(8).saturating_mul(PER_LEVEL);
    stacker::maybe_grow(needed, needed.saturating_mul(2), f)
}

/// A parse error in cel-go's words where the cel crate's differ: its recursion limit,
/// and a literal selected as a field (`self.true`), which cel-go reports as the
/// mismatched input its older versions named.
fn cel_go_words(error: &str) -> String {
    let mut text = error.replace(
        &format!("Recursion limit of {MAX_RECURSION_DEPTH} exceeded"),
        &format!("expression recursion limit exceeded: {MAX_RECURSION_DEPTH}"),
    );
    for word in ["true", "false", "null"] {
        text = text.replace(
            &format!("no viable alternative at input '.{word}'"),
            &format!("mismatched input '{word}' expecting IDENTIFIER"),
        );
    }
    text
}

/// Why the program of a rule `e` (which type-checks) cannot be made, in the apiserver's
/// words: a constant pattern of `find` or `findAll` that is no RE2 expression (the
/// apiserver compiles those when it makes the program).
pub fn program_error(e: &Expression) -> Option<String> {
    if let Expr::Call(call) = &e.expr
        && matches!(call.func_name.as_str(), "find" | "findAll")
        && call.target.is_some()
        && let Some(Expr::Literal(LiteralValue::String(pattern))) =
            call.args.first().map(|a| &a.expr)
        && let Some(error) = literals::regex_error(pattern.inner())
    {
        return Some(format!(
            "program instantiation failed: error parsing regexp: {error}"
        ));
    }
    children(e).into_iter().find_map(program_error)
}

/// The levels of [`with_stack`] parsing `source` may take, read from its text before it
/// is parsed: the nesting of its brackets and its `?`, `!` and `-` (which nest to the
/// right), four levels each, as the parser recurses through the grammar's rules for
/// each (an unoptimised build takes some 200 KiB a bracket).
fn parse_levels(source: &str) -> usize {
    let (mut open, mut deepest, mut prefixes) = (0usize, 0usize, 0usize);
    for c in source.chars() {
        match c {
            '(' | '[' | '{' => {
                open += 1;
                deepest = deepest.max(open);
            }
            ')' | ']' | '}' => open = open.saturating_sub(1),
            '?' | '!' | '-' => prefixes += 1,
            _ => {}
        }
    }
    4 * (deepest + prefixes)
}

fn compile(
    source: &str,
    decl: Option<&Decl>,
    optional_old_self: bool,
    env: Env,
    result: &str,
) -> Result<Compiled, Refusal> {
    with_stack(parse_levels(source), || {
        let expression = parse_here(source).map_err(Refusal::Issues)?;
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
        if let Some(e) = program_error(&expression) {
            return Err(Refusal::Program(e));
        }
        Ok(Compiled {
            expression,
            analysis: Some(analysis),
        })
    })
}
