//! Label and field selectors, as the apiserver parses and applies them.

use std::collections::BTreeMap;

use serde_json::Value;

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

/// A parsed label selector: every requirement must hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelSelector(Vec<Requirement>);

impl LabelSelector {
    /// Parses `a=b,c!=d,e in (f,g),h notin (i),j,!k`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = Vec::new();
        for part in split_outside_parens(text) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            out.push(requirement(part)?);
        }
        Ok(LabelSelector(out))
    }

    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.0.iter().all(|r| match r {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|l| vs.contains(l)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|l| !vs.contains(l)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        })
    }
}

fn requirement(part: &str) -> Result<Requirement, String> {
    // A key is one word: a second before an operator is what apimachinery's lexer
    // found where it expected one.
    let mut words = part.split_whitespace();
    if let (Some(_), Some(second)) = (words.next(), words.next())
        && !matches!(second, "in" | "notin")
        && !second.starts_with(['=', '!'])
    {
        return Err(format!(
            "unable to parse requirement: found '{second}', expected: in, notin, =, ==, !=, gt, lt"
        ));
    }
    if let Some(key) = part.strip_prefix('!') {
        return Ok(Requirement::DoesNotExist(key.trim().to_owned()));
    }
    for (op, set) in [(" notin ", false), (" in ", true)] {
        if let Some((key, values)) = part.split_once(op) {
            let values = values
                .trim()
                .strip_prefix('(')
                .and_then(|v| v.strip_suffix(')'))
                .ok_or_else(|| {
                    format!("unable to parse requirement: `{part}`: values must be in parentheses")
                })?;
            let values = values.split(',').map(|v| v.trim().to_owned()).collect();
            let key = key.trim().to_owned();
            return Ok(if set {
                Requirement::In(key, values)
            } else {
                Requirement::NotIn(key, values)
            });
        }
    }
    if let Some((key, value)) = part.split_once("!=") {
        return Ok(Requirement::NotEquals(
            key.trim().to_owned(),
            value.trim().to_owned(),
        ));
    }
    if let Some((key, value)) = part.split_once("==").or_else(|| part.split_once('=')) {
        return Ok(Requirement::Equals(
            key.trim().to_owned(),
            value.trim().to_owned(),
        ));
    }
    if part.contains([' ', '(', ')']) {
        return Err(format!("unable to parse requirement: `{part}`"));
    }
    Ok(Requirement::Exists(part.to_owned()))
}

fn split_outside_parens(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// A parsed field selector over `metadata.name` and `metadata.namespace`, the fields
/// every resource supports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldSelector(Vec<(String, bool, String)>);

impl FieldSelector {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (field, equal, value) = if let Some((f, v)) = part.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                (f, true, v)
            } else {
                return Err(format!(
                    "invalid selector: '{part}'; can't understand '{part}'"
                ));
            };
            let field = field.trim();
            if !matches!(field, "metadata.name" | "metadata.namespace") {
                return Err(format!("field label not supported: {field}"));
            }
            out.push((field.to_owned(), equal, value.trim().to_owned()));
        }
        Ok(FieldSelector(out))
    }

    pub fn matches(&self, object: &Value) -> bool {
        self.0.iter().all(|(field, equal, value)| {
            let key = field.trim_start_matches("metadata.");
            let actual = object["metadata"][key].as_str().unwrap_or("");
            (actual == value) == *equal
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn label_selectors_follow_kubernetes_semantics() {
        let l = labels(&[("app", "web"), ("tier", "front")]);
        for (selector, expected) in [
            ("", true),
            ("app=web", true),
            ("app==web,tier=front", true),
            ("app!=web", false),
            ("app!=db", true),
            ("app in (db, web)", true),
            ("app notin (web)", false),
            ("missing notin (x)", true),
            ("tier", true),
            ("!tier", false),
            ("!missing,app in (web),tier!=back", true),
        ] {
            assert_eq!(
                LabelSelector::parse(selector).unwrap().matches(&l),
                expected,
                "{selector}"
            );
        }
        assert!(LabelSelector::parse("app in web").is_err());
    }

    #[test]
    fn field_selectors_support_name_and_namespace() {
        let obj = serde_json::json!({"metadata": {"name": "a", "namespace": "ns"}});
        assert!(
            FieldSelector::parse("metadata.name=a,metadata.namespace!=other")
                .unwrap()
                .matches(&obj)
        );
        assert!(
            !FieldSelector::parse("metadata.name==b")
                .unwrap()
                .matches(&obj)
        );
        assert_eq!(
            FieldSelector::parse("spec.x=1").unwrap_err(),
            "field label not supported: spec.x"
        );
    }
}
