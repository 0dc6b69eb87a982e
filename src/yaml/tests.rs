//! The emitter against serde_yaml_ng (byte for byte, where they agree by design), against
//! readers of both YAML versions (every value reads back as itself), and its deliberate
//! differences.

use serde_json::{Value, json};

use super::{parse, to_string};

/// Strings that exercise every style decision and that both serde_yaml_ng and this
/// emitter treat alike: indicators, quotes, spaces at the edges, breaks in every place,
/// escapes, non-ASCII, and the scalars a YAML 1.2 reader resolves to other types.
const STRINGS: &[&str] = &[
    "a",
    "plain text",
    "v1alpha1",
    "x-kubernetes-int-or-string",
    "key: value",
    "a #b",
    "a#b",
    "#x",
    "- x",
    "-x",
    "-",
    "? x",
    "?x",
    ":x",
    ": x",
    "x:",
    "x: y",
    " lead",
    "trail ",
    "---",
    "--- x",
    "...x",
    "'quote",
    "it's",
    "\"dq\"",
    "back\\slash",
    "tab\there",
    "bell\u{7}",
    "nul\0",
    "del\u{7f}",
    "é ü ß",
    "emoji 😀",
    "\u{FEFF}bom",
    "nel\u{85}",
    "c1\u{9f}",
    "nbsp\u{a0}",
    "\u{fffe}",
    "line\nbreak",
    "two\n\nbreaks",
    "ends\n",
    "ends\n\n",
    "\n",
    "\n\n",
    "\nstarts",
    " \nspace break",
    "break\n space",
    "trailing \nspace",
    "space at end\n ",
    "cr\rhere",
    "crlf\r\n",
    "[x]",
    "{x}",
    "x,y",
    "@at",
    "`tick",
    "%pct",
    "&amp",
    "*star",
    "|pipe",
    ">gt",
    "",
    "null",
    "~",
    "true",
    "False",
    "1",
    "-1",
    "+1",
    "1.5",
    ".5",
    "1e5",
    "0x1F",
    "0o17",
    "012",
    ".inf",
    "-.Inf",
    ".NaN",
];

/// Keys: the same, without a leading `!` (serde_yaml_ng reads a one-key map whose key
/// starts with `!` as a YAML tag; this emitter writes the key) and with keys long
/// enough to need libyaml's `? key` form.
fn key(rng: &mut Rng) -> String {
    match rng.below(12) {
        0 => "k".repeat(129),
        1 => "k".repeat(128),
        _ => STRINGS[rng.below(STRINGS.len())].to_string(),
    }
}

/// xorshift: deterministic, so a failure names a seed that reproduces it.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn value(rng: &mut Rng, depth: u32) -> Value {
    let leaf = depth >= 4 || rng.below(3) == 0;
    match rng.below(if leaf { 5 } else { 7 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => [json!(7), json!(-3), json!(u64::MAX), json!(1.5), json!(0.1)][rng.below(5)].clone(),
        3 | 4 => json!(STRINGS[rng.below(STRINGS.len())]),
        5 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth + 1)).collect()),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| (key(rng), value(rng, depth + 1)))
                .collect(),
        ),
    }
}

#[test]
fn writes_what_serde_yaml_ng_writes() {
    for seed in 1..3000u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let value = value(&mut rng, 0);
        let expected = serde_yaml_ng::to_string(&value).expect("serde_yaml_ng writes it");
        assert_eq!(to_string(&value), expected, "seed {seed}: {value}");
    }
}

/// Strings where the emitter differs from serde_yaml_ng on purpose: YAML 1.1 scalars,
/// floats with exponents, and the two Unicode line separators.
const YAML_1_1: &[&str] = &[
    "y",
    "Y",
    "yes",
    "Yes",
    "YES",
    "n",
    "N",
    "no",
    "No",
    "NO",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "1_000",
    "0b1010",
    "0x_1F",
    "-0b1",
    "190:20:30",
    "1:30.5",
    "1_000.5",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "<<",
    "=",
    "1e400",
    "line\u{2028}sep",
    "para\u{2029}sep",
];

#[test]
fn quotes_what_a_yaml_1_1_reader_would_take_for_another_type() {
    for s in YAML_1_1 {
        let text = to_string(&json!({ "v": s }));
        assert!(
            text.starts_with("v: '") || text.starts_with("v: \""),
            "{s:?} must be quoted, got {text:?}"
        );
        assert_eq!(parse(&text).unwrap(), json!({ "v": s }), "{text}");
    }
    // Text that merely starts like a number stays plain where no reader takes it for one.
    for s in ["1a-b", "10 minutes", "v1.2.3", "0.1 beta"] {
        assert_eq!(to_string(&json!({ "v": s })), format!("v: {s}\n"));
    }
    // Floats keep a dot and a signed exponent.
    assert_eq!(
        to_string(&json!([1e30, 1.5e-7, 2.5, 1e15])),
        "- 1.0e+30\n- 1.5e-7\n- 2.5\n- 1000000000000000.0\n"
    );
}

/// Every generated value, and every string above, read back as itself by serde_yaml_ng
/// (YAML 1.2) and by PyYAML (YAML 1.1: what kubectl and the apiserver read).
#[test]
fn every_value_reads_back_as_itself_in_yaml_1_1_and_1_2() {
    let mut values: Vec<Value> = (1..1500u64)
        .map(|seed| value(&mut Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D)), 0))
        .collect();
    values.extend(STRINGS.iter().chain(YAML_1_1).map(|s| json!({ *s: [s] })));
    values.push(json!([1e30, -1.5e-7, 1e-300, 123456789.125]));
    // The JSON-to-YAML size bound's worst cases: short escaped scalars, deep nesting.
    values.extend([
        json!("\\"),
        json!("\u{1}"),
        json!(["\\", "\u{1}", "\"", [[[]]], {}]),
        json!({"\\": "\\", "\u{1}": {"\\": ["\\"]}}),
        json!([[["\\"]], [{"\\": {}}]]),
    ]);
    let texts: Vec<String> = values.iter().map(to_string).collect();
    for (value, text) in values.iter().zip(&texts) {
        assert_eq!(&parse(text).unwrap(), value, "{text}");
        let json = serde_json::to_string(value).unwrap();
        assert!(
            json.len() <= text.len() * super::MAX_JSON_PER_YAML_BYTE + 2,
            "{json} is longer than the bound for {text:?}"
        );
    }
    let Some(read) = pyyaml_read(&texts) else {
        // .ci/run installs PyYAML: in CI the YAML 1.1 reader always runs.
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs python3 with PyYAML"
        );
        println!("yaml 1.1 reader: skipped: python3 with PyYAML is not installed");
        return;
    };
    for ((value, text), read) in values.iter().zip(&texts).zip(read) {
        assert_eq!(&read, value, "PyYAML read {text:?} as {read}");
    }
}

/// Each text read by PyYAML's `safe_load` (a YAML 1.1 reader), as JSON; `None` when there
/// is no python3 with PyYAML here.
fn pyyaml_read(texts: &[String]) -> Option<Vec<Value>> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let script = "import json, sys, yaml\n\
        docs = json.load(sys.stdin)\n\
        json.dump([yaml.safe_load(d) for d in docs], sys.stdout, default=repr)\n";
    let mut child = Command::new("python3")
        .args(["-c", "import yaml"])
        .status()
        .ok()
        .filter(|s| s.success())
        .and_then(|_| {
            Command::new("python3")
                .args(["-c", script])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .ok()
        })?;
    let input = serde_json::to_vec(texts).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "PyYAML failed");
    Some(serde_json::from_slice(&out.stdout).expect("PyYAML's JSON"))
}

#[test]
fn reads_flow_style_marker_values() {
    assert_eq!(
        parse("{a: 1, b: [x, 2]}").unwrap(),
        json!({"a": 1, "b": ["x", 2]})
    );
    assert_eq!(parse("plain").unwrap(), json!("plain"));
}

#[test]
fn documents_are_located_at_the_line_after_their_separator() {
    assert_eq!(super::document_lines("a: 1\n---\nb: 2\n"), [1, 3]);
    assert_eq!(
        super::document_lines("# c\n---\na: 1\n---\n\n# c\nb: 2\n"),
        [3, 7]
    );
}
