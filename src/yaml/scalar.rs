//! How a string is written: plain, single-quoted, double-quoted or as a literal block.
//!
//! The analysis follows libyaml's emitter (the one serde_yaml_ng drives), so output is
//! byte-identical to what crdgen wrote through serde_yaml_ng, with two deliberate changes
//! to strings (the third difference, floats, is in `emit`):
//! strings that a YAML 1.1 reader (kubectl, the apiserver's sigs.k8s.io/yaml on go-yaml
//! v2, PyYAML) would take for a bool, number, null or timestamp are quoted too
//! (`'on'`, `'yes'`, `'1_000'`, `'2024-01-01'`), and a string holding U+2028 or U+2029 is
//! double-quoted with escapes instead of written raw, because YAML 1.1 reads those
//! characters as line breaks and YAML 1.2 does not.

/// The styles this emitter writes a string in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// What libyaml's `yaml_emitter_analyze_scalar` learns of a string, for block context
/// (crdgen never writes a non-empty flow collection, so flow rules never apply).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Analysis {
    /// It holds a line break: never plain, and never a simple mapping key.
    pub multiline: bool,
    /// It holds `\n`: serde_yaml_ng asks for a literal block.
    newline: bool,
    /// It holds U+2028 or U+2029 (see the module's comment).
    separator: bool,
    plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

/// A line break in YAML 1.1: `\r`, `\n`, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR.
pub(super) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml's `IS_PRINTABLE`: what may appear unescaped in any style.
pub(super) fn is_printable(c: char) -> bool {
    matches!(c,
        '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && c != '\u{FEFF}'
}

/// Blank, break, or the end of the string at byte `i` (libyaml's `IS_BLANKZ`, where the
/// string ends in a NUL).
fn blankz_at(s: &str, i: usize) -> bool {
    match s.as_bytes().get(i) {
        None | Some(b' ' | b'\t' | b'\0' | b'\r' | b'\n') => true,
        Some(b) if *b < 0x80 => false,
        Some(_) => s[i..].chars().next().is_some_and(is_break),
    }
}

/// This runs on every key and value of every CRD: printable ASCII text (with `\n`) is
/// settled in one pass over its bytes, anything else by libyaml's walk.
pub(super) fn analyze(s: &str) -> Analysis {
    analyze_ascii(s).unwrap_or_else(|| analyze_any(s))
}

/// [`analyze`] for non-empty text of printable ASCII and `\n` (no special characters,
/// and `\n` the only break); `None` for any other text.
fn analyze_ascii(s: &str) -> Option<Analysis> {
    let bytes = s.as_bytes();
    let (&first, &last) = (bytes.first()?, bytes.last()?);
    let trailing_space = last == b' ';
    // The pairs that matter: a break beside a space, and `: ` or ` #` on one line.
    let (mut newline, mut space_break, mut break_space) = (false, false, false);
    let (mut colon_space, mut space_hash) = (false, false);
    let mut previous = 0;
    for &b in bytes {
        if !(b' '..=b'~').contains(&b) && b != b'\n' {
            return None;
        }
        match (previous, b) {
            (b' ', b'\n') => space_break = true,
            (b'\n', b' ') => break_space = true,
            (b':', b' ') => colon_space = true,
            (b' ', b'#') => space_hash = true,
            _ => {}
        }
        newline |= b == b'\n';
        previous = b;
    }
    if newline {
        return Some(Analysis {
            multiline: true,
            newline: true,
            separator: false,
            plain_allowed: false,
            single_quoted_allowed: !(break_space || space_break),
            block_allowed: !(trailing_space || space_break),
        });
    }
    let first_followed_by_space = bytes.get(1).is_none_or(|&b| b == b' ');
    let indicators = s.starts_with("---")
        || s.starts_with("...")
        || matches!(
            first,
            b'#' | b','
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'&'
                | b'*'
                | b'!'
                | b'|'
                | b'>'
                | b'\''
                | b'"'
                | b'%'
                | b'@'
                | b'`'
        )
        || (matches!(first, b'?' | b':' | b'-') && first_followed_by_space)
        || colon_space
        || last == b':'
        || space_hash;
    Some(Analysis {
        multiline: false,
        newline: false,
        separator: false,
        plain_allowed: !(indicators || first == b' ' || trailing_space),
        single_quoted_allowed: true,
        block_allowed: !trailing_space,
    })
}

/// [`analyze`] for any text: libyaml's walk, character by character.
fn analyze_any(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            multiline: false,
            newline: false,
            separator: false,
            plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let bytes = s.as_bytes();
    let mut indicators = s.starts_with("---") || s.starts_with("...");
    let (mut line_breaks, mut newline, mut separator, mut special) = (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let mut i = 0;
    while i < bytes.len() {
        let c = match bytes[i] {
            b if b < 0x80 => char::from(b),
            _ => s[i..].chars().next().unwrap_or_default(),
        };
        let next = i + c.len_utf8();
        let followed_by_whitespace = blankz_at(s, next);
        if i == 0 {
            indicators |= matches!(
                c,
                '#' | ','
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '&'
                    | '*'
                    | '!'
                    | '|'
                    | '>'
                    | '\''
                    | '"'
                    | '%'
                    | '@'
                    | '`'
            ) || (matches!(c, '?' | ':' | '-') && followed_by_whitespace);
        } else {
            indicators |=
                (c == ':' && followed_by_whitespace) || (c == '#' && preceded_by_whitespace);
        }
        special |= !is_printable(c);
        if c == ' ' {
            break_space |= previous_break;
            (previous_space, previous_break) = (true, false);
        } else if is_break(c) {
            line_breaks = true;
            newline |= c == '\n';
            separator |= matches!(c, '\u{2028}' | '\u{2029}');
            space_break |= previous_space;
            (previous_space, previous_break) = (false, true);
        } else {
            (previous_space, previous_break) = (false, false);
        }
        preceded_by_whitespace = blankz_at(s, i);
        i = next;
    }
    let edge = |c: Option<char>| c.is_some_and(|c| c == ' ' || is_break(c));
    let trailing_space = s.ends_with(' ');
    Analysis {
        multiline: line_breaks,
        newline,
        separator,
        plain_allowed: !(edge(s.chars().next())
            || edge(s.chars().next_back())
            || break_space
            || space_break
            || special
            || line_breaks
            || indicators),
        single_quoted_allowed: !(break_space || space_break || special),
        block_allowed: !(trailing_space || space_break || special),
    }
}

/// The style a string gets, as serde_yaml_ng asks for one (a literal block for text with
/// `\n`, quotes for text a reader would take for another type) and libyaml then settles.
pub(super) fn style(s: &str, analysis: &Analysis, simple_key: bool) -> Style {
    if analysis.separator || (simple_key && analysis.multiline) {
        return Style::DoubleQuoted;
    }
    let mut style = if analysis.newline {
        Style::Literal
    } else if resolves_to_non_string(s) {
        Style::SingleQuoted
    } else {
        Style::Plain
    };
    if style == Style::Plain && !analysis.plain_allowed {
        style = Style::SingleQuoted;
    }
    if style == Style::SingleQuoted && !analysis.single_quoted_allowed {
        style = Style::DoubleQuoted;
    }
    if style == Style::Literal && (!analysis.block_allowed || simple_key) {
        style = Style::DoubleQuoted;
    }
    style
}

/// Whether a YAML 1.1 or 1.2 reader would resolve `s`, written plain, to anything but
/// this string. Errs towards quoting: a quoted string is a string in every reader.
pub(super) fn resolves_to_non_string(s: &str) -> bool {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    match unsigned.as_bytes().first() {
        None => return s.is_empty(),
        Some(b'0'..=b'9' | b'.') => {}
        // Only words can resolve to something else from here; they are all short.
        Some(_) if unsigned.len() != s.len() || s.len() > 5 => return false,
        Some(_) => {
            return matches!(
                s,
                // null (both versions)
                "~" | "null" | "Null" | "NULL"
                // bool: YAML 1.2 core, then what YAML 1.1 adds (go-yaml v2 and PyYAML)
                | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
                | "y" | "Y" | "yes" | "Yes" | "YES" | "n" | "N" | "no" | "No" | "NO"
                | "on" | "On" | "ON" | "off" | "Off" | "OFF"
                // YAML 1.1's merge and value keys
                | "<<" | "="
            );
        }
    }
    // .inf, -.Inf, .NaN, ...
    if unsigned.eq_ignore_ascii_case(".inf") || unsigned.eq_ignore_ascii_case(".nan") {
        return true;
    }
    // Numbers in every notation either version knows: 1, 0x1F, 0o17, 017, 0b101, 1_000,
    // 1.5, .5, 1e5, 1.5E-3, sexagesimal 1:30; and YAML 1.1 timestamps (2024-01-01...).
    let mut bytes = unsigned.bytes();
    let starts_numeric = matches!(
        (bytes.next(), bytes.next()),
        (Some(b'0'..=b'9'), _) | (Some(b'.'), Some(b'0'..=b'9'))
    );
    let (hex, body) = match unsigned.get(..2) {
        Some("0x" | "0X") => (true, &unsigned[2..]),
        Some("0o" | "0O" | "0b" | "0B") => (false, &unsigned[2..]),
        _ => (false, unsigned),
    };
    starts_numeric
        && (body.bytes().all(|b| {
            b.is_ascii_digit()
                || matches!(b, b'_' | b'.' | b':' | b'+' | b'-' | b'e' | b'E')
                || (hex && b.is_ascii_hexdigit())
        }) || is_timestamp_start(unsigned))
}

/// `YYYY-M`: the start of every YAML 1.1 timestamp, which go-yaml v2 turns into a
/// `time.Time` (and sigs.k8s.io/yaml back into a differently written string).
fn is_timestamp_start(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 6 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[5].is_ascii_digit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_pass_agrees_with_libyamls_walk() {
        // Every string of up to four of the characters the analysis turns on.
        let alphabet = [' ', '\n', ':', '#', '-', '?', '.', 'a', '\''];
        let mut strings = vec![String::new()];
        let mut checked = 0;
        for _ in 0..4 {
            strings = strings
                .iter()
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            for s in &strings {
                assert_eq!(analyze_ascii(s), Some(analyze_any(s)), "{s:?}");
                checked += 1;
            }
        }
        assert_eq!(checked, 9 + 81 + 729 + 6561);
        // Anything else is libyaml's walk's.
        for other in ["", "é", "a\tb", "a\rb", "\u{85}"] {
            assert_eq!(analyze_ascii(other), None, "{other:?}");
        }
    }
}
