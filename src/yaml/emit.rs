//! A block-style YAML emitter for JSON values: libyaml's emitter (as serde_yaml_ng runs
//! it, indent 2 and no line width) reduced to what a JSON value needs, 2–3 times
//! faster (see `super`). It keeps libyaml's state (`column`, `whitespace`, `indention`, `indent`) and
//! its rules for when to break and indent, so it writes serde_yaml_ng's bytes but for
//! the differences `super` lists; scalar styles are chosen in `scalar`.
//!
//! Columns count bytes, not characters: a column is only compared right after an
//! indicator or a line break, where everything written on the line is ASCII.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::scalar::{self, Style};

/// libyaml's `best_indent`, serde_yaml_ng's default.
const INDENT: isize = 2;

/// The longest key libyaml writes as `key: value`; a longer one becomes `? key`.
const SIMPLE_KEY_MAX: usize = 128;

/// `value` as one YAML document, with a trailing newline and without `---`.
pub(super) fn document(value: &Value) -> String {
    let mut emitter = Emitter {
        out: String::with_capacity(4096),
        column: 0,
        indent: -1,
        whitespace: true,
        indention: true,
    };
    emitter.node(value, false, false);
    emitter.write_indent();
    emitter.out
}

struct Emitter {
    out: String,
    column: usize,
    /// The indentation of the current block; -1 before the first.
    indent: isize,
    /// The last thing written was whitespace (or nothing): an indicator needs no space.
    whitespace: bool,
    /// Only indentation and indicators are on the current line so far.
    indention: bool,
}

impl Emitter {
    /// `mapping`: the node is a key or value of a block mapping (a sequence there is
    /// not indented); `simple_key`: it is a key written as `key:`.
    fn node(&mut self, value: &Value, mapping: bool, simple_key: bool) {
        match value {
            Value::Null => self.plain("null"),
            Value::Bool(b) => self.plain(if *b { "true" } else { "false" }),
            Value::Number(n) => {
                self.space_before_plain();
                let start = self.out.len();
                match n.as_f64() {
                    Some(f) if n.is_f64() => {
                        self.out.push_str(ryu::Buffer::new().format_finite(f));
                        yaml11_exponent(&mut self.out, start);
                    }
                    // Integers, as itoa writes them.
                    _ => {
                        let _ = write!(self.out, "{n}");
                    }
                }
                self.column += self.out.len() - start;
                self.after_scalar();
            }
            Value::String(s) => self.string(s, &scalar::analyze(s), simple_key),
            Value::Array(items) if items.is_empty() => self.empty("[", "]"),
            Value::Object(map) if map.is_empty() => self.empty("{", "}"),
            Value::Array(items) => self.sequence(items, mapping),
            Value::Object(map) => self.mapping(map),
        }
    }

    fn sequence(&mut self, items: &[Value], mapping: bool) {
        let outer = self.indent;
        // A sequence that is a mapping's value starts at the key's column.
        let indentless = mapping && !self.indention;
        self.indent = match outer {
            i if i < 0 => 0,
            i if indentless => i,
            i => i + INDENT,
        };
        for item in items {
            self.write_indent();
            self.indicator("-", true, false, true);
            self.node(item, false, false);
        }
        self.indent = outer;
    }

    fn mapping(&mut self, map: &Map<String, Value>) {
        let outer = self.indent;
        self.indent = if outer < 0 { 0 } else { outer + INDENT };
        for (key, value) in map {
            self.write_indent();
            let analysis = scalar::analyze(key);
            if !analysis.multiline && key.len() <= SIMPLE_KEY_MAX {
                self.string(key, &analysis, true);
                self.indicator(":", false, false, false);
            } else {
                self.indicator("?", true, false, true);
                self.string(key, &analysis, false);
                self.write_indent();
                self.indicator(":", true, false, true);
            }
            self.node(value, true, false);
        }
        self.indent = outer;
    }

    fn empty(&mut self, open: &str, close: &str) {
        self.indicator(open, true, true, false);
        self.indicator(close, false, false, false);
    }

    fn string(&mut self, s: &str, analysis: &scalar::Analysis, simple_key: bool) {
        let outer = self.indent;
        // A scalar's continuation lines (a literal block's) sit one step in.
        self.indent = if outer < 0 { INDENT } else { outer + INDENT };
        match scalar::style(s, analysis, simple_key) {
            Style::Plain => self.plain(s),
            Style::SingleQuoted => self.single_quoted(s),
            Style::DoubleQuoted => self.double_quoted(s),
            Style::Literal => self.literal(s),
        }
        self.indent = outer;
    }

    fn space_before_plain(&mut self) {
        if !self.whitespace {
            self.put(" ");
        }
    }

    fn plain(&mut self, s: &str) {
        self.space_before_plain();
        self.put(s);
        self.after_scalar();
    }

    /// Only reached for text without line breaks (see `scalar::style`).
    fn single_quoted(&mut self, s: &str) {
        self.indicator("'", true, false, false);
        for (i, part) in s.split('\'').enumerate() {
            if i > 0 {
                self.put("''");
            }
            self.put(part);
        }
        self.indicator("'", false, false, false);
        self.after_scalar();
    }

    fn double_quoted(&mut self, s: &str) {
        self.indicator("\"", true, false, false);
        for c in s.chars() {
            if scalar::is_printable(c) && !scalar::is_break(c) && c != '"' && c != '\\' {
                self.out.push(c);
                continue;
            }
            let escape = match c {
                '\0' => "\\0",
                '\u{7}' => "\\a",
                '\u{8}' => "\\b",
                '\t' => "\\t",
                '\n' => "\\n",
                '\u{b}' => "\\v",
                '\u{c}' => "\\f",
                '\r' => "\\r",
                '\u{1b}' => "\\e",
                '"' => "\\\"",
                '\\' => "\\\\",
                '\u{85}' => "\\N",
                '\u{2028}' => "\\L",
                '\u{2029}' => "\\P",
                c => {
                    let _ = match u32::from(c) {
                        n @ ..=0xFF => write!(self.out, "\\x{n:02X}"),
                        n @ ..=0xFFFF => write!(self.out, "\\u{n:04X}"),
                        n => write!(self.out, "\\U{n:08X}"),
                    };
                    continue;
                }
            };
            self.out.push_str(escape);
        }
        self.indicator("\"", false, false, false);
        self.after_scalar();
    }

    /// `|` with libyaml's hints: an indentation digit when the text starts with a space
    /// or break, `-` when it ends without a newline, `+` when it ends with several.
    fn literal(&mut self, s: &str) {
        self.indicator("|", true, false, false);
        if s.starts_with([' ', '\n']) {
            self.indicator("2", false, false, false);
        }
        if !s.ends_with('\n') {
            self.indicator("-", false, false, false);
        } else if s[..s.len() - 1].is_empty() || s[..s.len() - 1].ends_with('\n') {
            self.indicator("+", false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        for (i, line) in s.split('\n').enumerate() {
            if i > 0 {
                self.put_break();
                self.indention = true;
            }
            if !line.is_empty() {
                self.write_indent();
                self.put(line);
                self.indention = false;
            }
        }
    }

    fn after_scalar(&mut self) {
        self.whitespace = false;
        self.indention = false;
    }

    fn indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(" ");
        }
        self.put(indicator);
        self.whitespace = is_whitespace;
        self.indention &= is_indention;
    }

    /// Breaks the line unless it holds only indentation so far, then indents.
    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(" ");
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn put(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += s.len();
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }
}

/// ryu writes `1e30` and `1e-7`; YAML 1.1 reads a float only with a dot and a signed
/// exponent (`1.0e+30`), and PyYAML takes `1e30` for a string. Rewrites the float
/// written from `start` on in place.
fn yaml11_exponent(out: &mut String, start: usize) {
    let Some(e) = out[start..].find('e').map(|i| start + i) else {
        return;
    };
    if !out[e + 1..].starts_with(['-', '+']) {
        out.insert(e + 1, '+');
    }
    if !out[start..e].contains('.') {
        out.insert_str(e, ".0");
    }
}
