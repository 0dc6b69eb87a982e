//! What cel-go's literal checks (Kubernetes 1.29 and later) accept: a duration, a
//! timestamp and a regular expression written as a literal in a rule are refused when
//! the rule is compiled if they could never be evaluated.

/// Whether `text` is a duration Go's `time.ParseDuration` reads (`1h30m`, `-1.5s`,
/// `0`), within the ±292 years a duration holds.
pub fn duration(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if unsigned == "0" {
        return true;
    }
    let mut rest = unsigned;
    let mut nanos = 0f64;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let Ok(value) = rest[..number_end].parse::<f64>() else {
            return false;
        };
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return false,
        };
        nanos += value * scale;
        rest = &rest[unit_end..];
    }
    nanos <= i64::MAX as f64
}

/// The seconds of 0001-01-01T00:00:00Z and of 9999-12-31T23:59:59Z: CEL's timestamps.
const MIN_SECONDS: i64 = -62_135_596_800;
const MAX_SECONDS: i64 = 253_402_300_799;

/// Whether `text` is an RFC 3339 timestamp within CEL's years 1 to 9999.
pub fn timestamp(text: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(text).is_ok_and(|t| timestamp_seconds(t.timestamp()))
}

/// Whether `seconds` since the epoch is a timestamp CEL holds.
pub fn timestamp_seconds(seconds: i64) -> bool {
    (MIN_SECONDS..=MAX_SECONDS).contains(&seconds)
}

/// Whether `pattern` compiles as an RE2 regular expression.
pub fn regex(pattern: &str) -> bool {
    regex_error(pattern).is_none()
}

/// Why `pattern` is no RE2 regular expression, in the words of Go's `regexp/syntax`
/// where it is one of its common errors (an unmatched parenthesis, a repetition of a
/// repetition or of nothing); the regex crate, which reads RE2's syntax, decides the
/// rest.
pub fn regex_error(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let (mut depth, mut i) = (0usize, 0);
    // The repetition just read (`*`, `+?`, `{2,3}`), and whether anything can repeat.
    let mut last_repeat: Option<String> = None;
    let mut operand = false;
    while i < chars.len() {
        let c = chars[i];
        let repeat_end = match c {
            '*' | '+' | '?' => Some(i + 1),
            '{' => chars[i..]
                .iter()
                .position(|&c| c == '}')
                .map(|end| i + end + 1)
                .filter(|&end| {
                    let inner: String = chars[i + 1..end - 1].iter().collect();
                    !inner.is_empty()
                        && inner.split(',').count() <= 2
                        && inner.chars().all(|c| c.is_ascii_digit() || c == ',')
                        && inner.starts_with(|c: char| c.is_ascii_digit())
                }),
            _ => None,
        };
        if let Some(mut end) = repeat_end {
            if chars.get(end) == Some(&'?') {
                end += 1;
            }
            let op: String = chars[i..end].iter().collect();
            if let Some(previous) = &last_repeat {
                return Some(format!(
                    "invalid nested repetition operator: `{previous}{op}`"
                ));
            }
            if !operand {
                return Some(format!("missing argument to repetition operator: `{op}`"));
            }
            last_repeat = Some(op);
            i = end;
            continue;
        }
        last_repeat = None;
        match c {
            '\\' => {
                i += 2;
                operand = true;
                continue;
            }
            '[' => {
                // A class: to its closing `]` (one right after `[` or `[^` is a member).
                let mut j = i + 1;
                if chars.get(j) == Some(&'^') {
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    j += 1;
                }
                while j < chars.len() && chars[j] != ']' {
                    j += if chars[j] == '\\' { 2 } else { 1 };
                }
                i = j + 1;
                operand = true;
                continue;
            }
            // A group's flags and name (`(?i)`, `(?:`, `(?P<name>`): no repetition.
            '(' if chars.get(i + 1) == Some(&'?') => {
                let end = chars[i + 2..]
                    .iter()
                    .position(|c| matches!(c, ')' | ':' | '>'))
                    .map_or(chars.len(), |p| i + 2 + p);
                match chars.get(end) {
                    // `(?i)` sets flags and opens no group.
                    Some(')') => {}
                    _ => {
                        depth += 1;
                        operand = false;
                    }
                }
                i = end + 1;
                continue;
            }
            '(' => {
                depth += 1;
                operand = false;
            }
            ')' if depth == 0 => return Some(format!("unexpected ): `{pattern}`")),
            ')' => {
                depth -= 1;
                operand = true;
            }
            '|' => operand = false,
            _ => operand = true,
        }
        i += 1;
    }
    if depth > 0 {
        return Some(format!("missing closing ): `{pattern}`"));
    }
    regex::Regex::new(pattern)
        .err()
        .map(|e| format!("invalid regular expression: `{pattern}`: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_read_as_go_reads_them() {
        for ok in [
            "0", "1h", "1h30m", "-1.5s", "1us", "1µs", "300ms", "+2m", ".5s",
        ] {
            assert!(duration(ok), "{ok}");
        }
        for bad in ["", "1", "1d", "1nns", "h", "1.2.3s", "-", "3000000h"] {
            assert!(!duration(bad), "{bad}");
        }
    }

    #[test]
    fn patterns_are_refused_as_re2_refuses_them() {
        assert_eq!(regex_error(")").as_deref(), Some("unexpected ): `)`"));
        assert_eq!(
            regex_error("(a").as_deref(),
            Some("missing closing ): `(a`")
        );
        assert_eq!(
            regex_error("x++").as_deref(),
            Some("invalid nested repetition operator: `++`")
        );
        assert_eq!(
            regex_error("*a").as_deref(),
            Some("missing argument to repetition operator: `*`")
        );
        for ok in [
            "a*?",
            "[)]+",
            "\\(x\\)",
            "a{2,3}b",
            "(a*)*",
            "^[a-z]([-a-z0-9]*[a-z0-9])?$",
            // Gateway API's: flags and a non-capturing group.
            r"^(?i)\.?[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*$",
            r"^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$",
            "(?P<year>[0-9]{4})-(?i:x)+",
        ] {
            assert_eq!(regex_error(ok), None, "{ok}");
        }
    }

    #[test]
    fn timestamps_are_rfc_3339_in_years_1_to_9999() {
        assert!(timestamp("2020-01-01T00:00:00Z"));
        assert!(timestamp("0001-01-01T00:00:00Z"));
        assert!(!timestamp("1000-00-00T00:00:00Z"));
        assert!(!timestamp("1000-01-01T00:00:00ZZ"));
        assert!(timestamp_seconds(0));
        assert!(!timestamp_seconds(-62_135_596_801));
    }
}
