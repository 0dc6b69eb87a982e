//! Reads a marker's argument text as its table entry says it should look.

use std::collections::BTreeMap;

use super::Value;
use super::table::{Arg, MarkerDef, NamedArg};
use crate::diag::did_you_mean;

/// Reads `rest`, the text after the marker's name: empty, `=value` or `:key=value,…`.
pub(super) fn value(def: &MarkerDef, rest: &str) -> Result<Value, String> {
    match def.arg {
        Arg::Flag => match rest.trim_end() {
            "" | "=true" => Ok(Value::Bool(true)),
            "=false" => Ok(Value::Bool(false)),
            other => Err(format!("it takes no argument, but has `{other}`")),
        },
        Arg::Named(args) => named(args, rest.trim_end()),
        scalar_arg => match rest.strip_prefix('=') {
            Some(text) => scalar(scalar_arg, text.trim(), true),
            None if rest.trim().is_empty() => Err("it needs a value".to_owned()),
            None => Err(format!("expected `=` after the name, found `{rest}`")),
        },
    }
}

/// One value. `commas_separate_items` is false inside named arguments, where a comma
/// ends the argument and lists use `;` or `{a,b}`.
fn scalar(arg: Arg, text: &str, commas_separate_items: bool) -> Result<Value, String> {
    match arg {
        Arg::Flag | Arg::Bool => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            other => Err(format!("expected `true` or `false`, found `{other}`")),
        },
        Arg::Int => text
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| format!("expected an integer, found `{text}`")),
        Arg::Number => match text.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(Value::Number(n)),
            _ => Err(format!("expected a number, found `{text}`")),
        },
        Arg::String => {
            let s = unquote(text)?;
            if s.is_empty() {
                return Err("expected a non-empty value".to_owned());
            }
            Ok(Value::String(s))
        }
        Arg::List => list(text, commas_separate_items, false).map(Value::List),
        Arg::Groups => list(text, commas_separate_items, true).map(Value::List),
        Arg::Raw if text.is_empty() => Err("it needs a value".to_owned()),
        Arg::Raw => Ok(Value::String(text.to_owned())),
        Arg::Named(_) => Err("nested arguments are not allowed here".to_owned()),
    }
}

/// A list; `""` is an item only where `empty_items` allows it.
fn list(text: &str, commas_separate_items: bool, empty_items: bool) -> Result<Vec<String>, String> {
    let items = if let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        split_top(inner, ',')?
    } else if split_top(text, ';')?.len() > 1 {
        split_top(text, ';')?
    } else if commas_separate_items {
        split_top(text, ',')?
    } else {
        vec![text]
    };
    // An empty item is a mistake (`a;;b`) unless it is written as `""`: an enum may
    // allow the empty string.
    if !empty_items && items.iter().any(|i| i.trim().is_empty()) {
        return Err(format!("empty item in list `{text}`"));
    }
    items.into_iter().map(|i| unquote(i.trim())).collect()
}

fn named(args: &'static [NamedArg], rest: &str) -> Result<Value, String> {
    let body = rest
        .strip_prefix(':')
        .or_else(|| rest.strip_prefix('='))
        .unwrap_or(rest);
    let mut out = BTreeMap::new();
    let parts = if body.trim().is_empty() {
        Vec::new()
    } else {
        split_top(body, ',')?
    };
    for (i, part) in parts.into_iter().enumerate() {
        let part = part.trim();
        let (key, text) = match split_key(part) {
            Some((k, v)) => (k, v),
            None if i == 0 && args.iter().any(|a| a.name.is_empty()) => ("", part),
            None => return Err(format!("`{part}` is not `key=value`")),
        };
        let Some(spec) = args.iter().find(|a| a.name == key) else {
            let names = args.iter().map(|a| a.name).filter(|n| !n.is_empty());
            let suggestion = match did_you_mean(key, names.clone()) {
                Some(best) => format!("; did you mean `{best}`?"),
                None => format!("; it takes {}", names.collect::<Vec<_>>().join(", ")),
            };
            return Err(format!("unknown argument `{key}`{suggestion}"));
        };
        let value = scalar(spec.arg, text.trim(), false).map_err(|e| match key {
            "" => e,
            key => format!("`{key}`: {e}"),
        })?;
        if out.insert(key.to_owned(), value).is_some() {
            return Err(format!("`{key}` is given twice"));
        }
    }
    let missing: Vec<String> = args
        .iter()
        .filter(|a| a.required && !out.contains_key(a.name))
        .map(|a| {
            if a.name.is_empty() {
                "a leading name".to_owned()
            } else {
                format!("`{}`", a.name)
            }
        })
        .collect();
    if !missing.is_empty() {
        return Err(format!("missing {}", missing.join(", ")));
    }
    Ok(Value::Args(out))
}

/// `key=value` when `part` starts with an identifier followed by `=`.
fn split_key(part: &str) -> Option<(&str, &str)> {
    let eq = part.find('=')?;
    let key = &part[..eq];
    (!key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| (key, &part[eq + 1..]))
}

/// Splits on `sep` outside quotes (`"…"` with escapes, `` `…` ``) and brackets.
fn split_top(text: &str, sep: char) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            match c {
                _ if escaped => escaped = false,
                '\\' if q == '"' => escaped = true,
                c if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '"' | '`' => quote = Some(c),
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            c if c == sep && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if quote.is_some() {
        return Err(format!("unterminated quote in `{text}`"));
    }
    if depth != 0 {
        return Err(format!("unbalanced brackets in `{text}`"));
    }
    parts.push(&text[start..]);
    Ok(parts)
}

/// `"a\"b"` → `a"b`; `` `raw` `` → `raw`; bare text as it is.
fn unquote(text: &str) -> Result<String, String> {
    if let Some(raw) = text.strip_prefix('`').and_then(|t| t.strip_suffix('`')) {
        return Ok(raw.to_owned());
    }
    let Some(inner) = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .filter(|_| text.len() >= 2)
    else {
        return Ok(text.to_owned());
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(c @ ('"' | '\\' | '/')) => out.push(c),
            Some(other) => return Err(format!("unknown escape `\\{other}` in {text}")),
            None => return Err(format!("dangling `\\` in {text}")),
        }
    }
    Ok(out)
}
