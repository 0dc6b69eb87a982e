//! Where a literal or an identifier of a rule is written, for errors that name its place
//! as cel-go's do (`ERROR: <input>:1:11: invalid timestamp argument`). The cel crate's
//! parser keeps no offsets it shares, so the rule's tokens are found again by a scan of
//! its text: string and number literals (and `true`, `false`, `null`) and identifiers in
//! the order written, matched to the parsed ones of the same value in the same order.

use kube_cel::cel::common::ast::{EntryExpr, Expr, LiteralValue, operators};
use kube_cel::cel::parser::Expression;

use super::tree::{children, children_mut};

/// A literal token: its value as its text decodes it, and its line and column (1-based,
/// in characters).
struct Token {
    value: Scanned,
    line: usize,
    column: usize,
}

#[derive(PartialEq)]
enum Scanned {
    Text(String),
    Number(f64),
    Word(&'static str),
    /// An identifier.
    Name(String),
    /// A run of a prefix operator (`!`, or a `-` that negates), and how long.
    Prefixes(char, usize),
}

fn scanned(literal: &LiteralValue) -> Option<Scanned> {
    Some(match literal {
        LiteralValue::String(s) => Scanned::Text(s.inner().to_owned()),
        LiteralValue::Bytes(b) => Scanned::Text(String::from_utf8_lossy(b.inner()).into_owned()),
        LiteralValue::Int(i) => Scanned::Number(*i.inner() as f64),
        LiteralValue::UInt(u) => Scanned::Number(*u.inner() as f64),
        LiteralValue::Double(d) => Scanned::Number(*d.inner()),
        LiteralValue::Boolean(b) => Scanned::Word(if *b.inner() { "true" } else { "false" }),
        LiteralValue::Null => Scanned::Word("null"),
    })
}

/// The line and column in `source` of the literal `id` of `rule` (parsed from it).
pub fn of_literal(
    source: &str,
    rule: &Expression,
    id: u64,
    literal: &LiteralValue,
) -> Option<(usize, usize)> {
    let nth = earlier(rule, id, &|e| matches!(e, Expr::Literal(l) if l == literal));
    find(source, scanned(literal)?, nth)
}

/// The line and column in `source` of the identifier `id`, `name`, of `rule`.
pub fn of_ident(source: &str, rule: &Expression, id: u64, name: &str) -> Option<(usize, usize)> {
    let nth = earlier(rule, id, &|e| matches!(e, Expr::Ident(n) if n == name));
    find(source, Scanned::Name(name.to_owned()), nth)
}

/// How many expressions of `rule` that are `like` the one `id` come before it: the
/// parser numbers expressions in the order it reads them.
fn earlier(rule: &Expression, id: u64, like: &dyn Fn(&Expr) -> bool) -> usize {
    let mut count = usize::from(rule.id < id && like(&rule.expr));
    let mut below = |e: &Expression| count += earlier(e, id, like);
    match &rule.expr {
        Expr::Call(call) => {
            call.target.iter().for_each(|t| below(t));
            call.args.iter().for_each(&mut below);
        }
        Expr::Select(select) => below(&select.operand),
        Expr::List(list) => list.elements.iter().for_each(&mut below),
        Expr::Map(map) => {
            for entry in &map.entries {
                if let EntryExpr::MapEntry(e) = &entry.expr {
                    below(&e.key);
                    below(&e.value);
                }
            }
        }
        Expr::Struct(s) => {
            for entry in &s.entries {
                if let EntryExpr::StructField(f) = &entry.expr {
                    below(&f.value);
                }
            }
        }
        Expr::Comprehension(c) => {
            for part in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                below(part);
            }
        }
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
    count
}

fn find(source: &str, wanted: Scanned, nth: usize) -> Option<(usize, usize)> {
    scan(source)
        .into_iter()
        .filter(|t| t.value == wanted)
        .nth(nth)
        .map(|t| (t.line, t.column))
}

fn scan(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let (mut i, mut line, mut line_start) = (0, 1, 0);
    // Whether the last token was an operand, after which `-` subtracts.
    let mut after_operand = false;
    while i < chars.len() {
        let c = chars[i];
        let column = i - line_start + 1;
        if c == '\n' {
            line += 1;
            line_start = i + 1;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let prefixed = matches!(c, 'r' | 'R' | 'b' | 'B')
            && matches!(chars.get(i + 1), Some('\'' | '"'))
            && !(i > 0 && is_word(chars[i - 1]));
        if c == '\'' || c == '"' || prefixed {
            let raw = prefixed && matches!(c, 'r' | 'R');
            let start = if prefixed { i + 1 } else { i };
            let (text, end) = string(&chars, start, raw);
            tokens.push(Token {
                value: Scanned::Text(text),
                line,
                column,
            });
            i = end;
            after_operand = true;
            continue;
        }
        // Negations: a run of them (but a number's one sign) is one token.
        if c == '-' && !after_operand {
            let (run, end) = prefix_run(&chars, i, '-');
            if !(run == 1 && chars.get(end).is_some_and(char::is_ascii_digit)) {
                tokens.push(Token {
                    value: Scanned::Prefixes('-', run),
                    line,
                    column,
                });
                i = end;
                continue;
            }
        }
        let negative =
            c == '-' && !after_operand && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit() || negative {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            if let Some(n) = number(&text) {
                tokens.push(Token {
                    value: Scanned::Number(n),
                    line,
                    column,
                });
            }
            after_operand = true;
            continue;
        }
        if is_word(c) {
            let start = i;
            while i < chars.len() && is_word(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let value = match ["true", "false", "null"].into_iter().find(|w| *w == word) {
                Some(w) => Scanned::Word(w),
                None => Scanned::Name(word),
            };
            tokens.push(Token {
                value,
                line,
                column,
            });
            after_operand = true;
            continue;
        }
        if c == '!' && chars.get(i + 1) != Some(&'=') {
            let (run, end) = prefix_run(&chars, i, '!');
            tokens.push(Token {
                value: Scanned::Prefixes('!', run),
                line,
                column,
            });
            i = end;
            after_operand = false;
            continue;
        }
        after_operand = matches!(c, ')' | ']' | '}');
        i += 1;
    }
    tokens
}

/// `rule` (parsed from `source`) with `\'` and `\"` read as the quotes they escape in
/// every string literal, as cel-go reads them: the cel crate's parser keeps the
/// backslash of the quote a literal is not delimited by (`"it\'s"` was `it\'s`).
pub fn quote_escapes_read(source: &str, rule: &mut Expression) {
    let written: Vec<String> = scan(source)
        .into_iter()
        .filter_map(|t| match t.value {
            Scanned::Text(text) => Some(text),
            _ => None,
        })
        .collect();
    let mut literals = Vec::new();
    string_literals(rule, &mut literals);
    literals.sort_unstable_by_key(|(id, _)| *id);
    if literals.len() != written.len() {
        return;
    }
    let fixes: Vec<(u64, String)> = literals
        .into_iter()
        .zip(written)
        .filter_map(|((id, parsed), text)| {
            let read = parsed.replace("\\'", "'").replace("\\\"", "\"");
            (read != parsed && read == text).then_some((id, read))
        })
        .collect();
    if !fixes.is_empty() {
        replace_strings(rule, &fixes);
    }
}

/// The string literals of `e`, by id.
fn string_literals(e: &Expression, found: &mut Vec<(u64, String)>) {
    if let Expr::Literal(LiteralValue::String(s)) = &e.expr {
        found.push((e.id, s.inner().to_owned()));
    }
    children(e)
        .into_iter()
        .for_each(|c| string_literals(c, found));
}

fn replace_strings(e: &mut Expression, fixes: &[(u64, String)]) {
    if let Some((_, text)) = fixes.iter().find(|(id, _)| *id == e.id)
        && let Expr::Literal(LiteralValue::String(_)) = &e.expr
    {
        e.expr = Expr::Literal(LiteralValue::String(text.clone().into()));
        return;
    }
    for child in children_mut(e) {
        replace_strings(child, fixes);
    }
}

/// How many `op` start at `start` (whitespace between them; a `!` of `!=` is none), and
/// where the run ends.
fn prefix_run(chars: &[char], start: usize, op: char) -> (usize, usize) {
    let (mut run, mut end, mut i) = (0, start, start);
    while i < chars.len() && (chars[i] == op || chars[i].is_whitespace()) {
        if chars[i] == op {
            if op == '!' && chars.get(i + 1) == Some(&'=') {
                break;
            }
            run += 1;
            end = i + 1;
        }
        i += 1;
    }
    (run, end)
}

/// `rule` (parsed from `source`) with each run of an even number of `!` or of `-` (a
/// negation) read as none, as cel-go reads it: the cel crate's parser keeps one of every
/// run (`!!x` is `!x`, `--5` is `-5`).
pub fn even_prefixes_removed(source: &str, rule: &mut Expression) {
    let tokens = scan(source);
    for (op, function) in [('!', operators::LOGICAL_NOT), ('-', operators::NEGATE)] {
        let runs: Vec<usize> = tokens
            .iter()
            .filter_map(|t| match t.value {
                Scanned::Prefixes(o, n) if o == op => Some(n),
                _ => None,
            })
            .collect();
        let mut calls = Vec::new();
        written_calls(rule, function, &mut calls);
        // The parser numbers a run's operator in the order written (macros' own come
        // after).
        calls.sort_unstable();
        if calls.len() != runs.len() {
            continue;
        }
        let even: Vec<u64> = calls
            .into_iter()
            .zip(runs)
            .filter(|(_, run)| run % 2 == 0)
            .map(|(id, _)| id)
            .collect();
        if !even.is_empty() {
            unwrap_calls(rule, &even);
        }
    }
}

/// The ids of the calls of `function` written in `e` (not those a macro's expansion
/// adds, in its loop condition).
fn written_calls(e: &Expression, function: &str, ids: &mut Vec<u64>) {
    if matches!(&e.expr, Expr::Call(c) if c.func_name == function) {
        ids.push(e.id);
    }
    match &e.expr {
        Expr::Comprehension(c) => {
            written_calls(&c.iter_range, function, ids);
            written_calls(&c.loop_step, function, ids);
        }
        _ => children(e)
            .into_iter()
            .for_each(|c| written_calls(c, function, ids)),
    }
}

/// Replaces each call of `ids` by its operand.
fn unwrap_calls(e: &mut Expression, ids: &[u64]) {
    while ids.contains(&e.id) {
        let Expr::Call(call) = &mut e.expr else {
            return;
        };
        let Some(operand) = call.args.pop() else {
            return;
        };
        *e = operand;
    }
    for child in children_mut(e) {
        unwrap_calls(child, ids);
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// A number token's value (`12`, `-3`, `1.5`, `0x1F`, `7u`).
fn number(text: &str) -> Option<f64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let digits = digits.trim_end_matches(['u', 'U']);
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16).ok()? as f64,
        None => digits.parse::<f64>().ok()?,
    };
    Some(if negative { -value } else { value })
}

/// The text of the string literal whose quote is at `start`, and where it ends.
fn string(chars: &[char], start: usize, raw: bool) -> (String, usize) {
    let quote = chars[start];
    let triple = chars.get(start + 1) == Some(&quote) && chars.get(start + 2) == Some(&quote);
    let width = if triple { 3 } else { 1 };
    let mut i = start + width;
    let mut text = String::new();
    while i < chars.len() {
        let closes = (0..width).all(|k| chars.get(i + k) == Some(&quote));
        if closes {
            return (text, i + width);
        }
        if chars[i] == '\\' && !raw && i + 1 < chars.len() {
            text.push(match chars[i + 1] {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                other => other,
            });
            i += 2;
            continue;
        }
        text.push(chars[i]);
        i += 1;
    }
    (text, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(source: &str, literal: LiteralValue, nth: usize) -> Option<(usize, usize)> {
        let wanted = scanned(&literal)?;
        find(source, wanted, nth)
    }

    #[test]
    fn literals_are_found_where_they_are_written() {
        let s = |t: &str| LiteralValue::String(t.to_owned().into());
        assert_eq!(
            at(
                "timestamp('1000-00-00T00:00:00Z')",
                s("1000-00-00T00:00:00Z"),
                0
            ),
            Some((1, 11))
        );
        assert_eq!(
            at("duration('1us') < duration('1nns')", s("1nns"), 0),
            Some((1, 28))
        );
        assert_eq!(at("[1, 'a', false]", s("a"), 0), Some((1, 5)));
        assert_eq!(
            at(
                "timestamp(-62135596801)",
                LiteralValue::Int((-62135596801i64).into()),
                0
            ),
            Some((1, 11))
        );
        assert_eq!(
            at("self.x - 1 == 'a'\n  && 'b' == self.y", s("b"), 0),
            Some((2, 6))
        );
        assert_eq!(at("'a' + 'a'", s("a"), 1), Some((1, 7)));
        let name = |n: &str| Scanned::Name(n.to_owned());
        assert_eq!(find("self.x > 0 && sefl.y", name("sefl"), 0), Some((1, 15)));
        // A name inside a string is no identifier.
        assert_eq!(find("'sefl' == sefl", name("sefl"), 0), Some((1, 11)));
    }

    #[test]
    fn an_even_run_of_nots_or_negations_is_none() {
        let read = |rule: &str| {
            let mut parsed = kube_cel::cel::parser::Parser::new().parse(rule).unwrap();
            even_prefixes_removed(rule, &mut parsed);
            parsed
        };
        let plain = |rule: &str| kube_cel::cel::parser::Parser::new().parse(rule).unwrap();
        let count = |e: &Expression, function: &str| {
            let mut ids = Vec::new();
            written_calls(e, function, &mut ids);
            ids.len()
        };
        let nots = |e: &Expression| count(e, operators::LOGICAL_NOT);
        let negations = |e: &Expression| count(e, operators::NEGATE);
        assert_eq!(negations(&read("--5 == 5")), 0);
        assert_eq!(negations(&read("- - -x")), 1);
        assert_eq!(negations(&read("a - -b == a--5")), 1);
        assert_eq!(negations(&read("-5 == '--'")), 0);
        assert_eq!(nots(&read("!!true")), 0);
        let mut quoted = plain(r#""it\'s" == 'a\"b' && r"x\'" == "y""#);
        quote_escapes_read(r#""it\'s" == 'a\"b' && r"x\'" == "y""#, &mut quoted);
        let mut strings = Vec::new();
        string_literals(&quoted, &mut strings);
        let texts: Vec<&str> = strings.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(texts, ["it's", "a\"b", "x\\'", "y"]);
        assert_eq!(nots(&read("! ! !true")), 1);
        assert_eq!(nots(&read("!(!!x) && y != '!!' && !!!z")), 2);
        assert_eq!(nots(&read("[1].exists(x, !!(x > 0))")), 0);
        assert_eq!(nots(&read("a != b")), 0);
        // The parser's own reading, which cel-go's differs from.
        assert_eq!(nots(&plain("!!true")), 1);
    }
}
