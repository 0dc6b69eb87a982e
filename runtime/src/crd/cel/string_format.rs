//! `'…'.format(args)` as cel-go's strings extension at the version Kubernetes enables
//! (2) formats, in place of kube-cel's: `%s` writes a value as `string()` does
//! (`60s`, `2000-01-01T00:00:00Z`, `2.5`) and a list or map as CEL literals (`[1,
//! "a", duration("60s")]`, keys sorted); `%f` and `%e` through Go's `x/text` printer
//! for `en_US` (`1,234.500000`, `3.140000×10⁰⁰`); `%d`, `%b`, `%o`, `%x` and `%X` as
//! Go's `fmt`.

use std::sync::Arc;

use kube_cel::cel::extractors::This;
use kube_cel::cel::{Context, ExecutionError, Value};

use super::library;

/// The precision of `%f` and `%e` when the clause gives none.
const DEFAULT_PRECISION: usize = 6;

pub(super) fn register(ctx: &mut Context<'_>) {
    ctx.add_function(
        "format",
        |This(text): This<Arc<String>>, args: Arc<Vec<Value>>| -> Result<Value, ExecutionError> {
            format(&text, &args).map(|s| Value::String(Arc::new(s)))
        },
    );
}

fn error(message: String) -> ExecutionError {
    ExecutionError::function_error("format", format!("error during formatting: {message}"))
}

fn format(text: &str, args: &[Value]) -> Result<String, ExecutionError> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut next_arg = 0;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut precision = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut digits = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(*d);
                chars.next();
            }
            precision =
                Some(digits.parse().map_err(|_| {
                    error("unable to convert precision specifier to integer".into())
                })?);
        }
        let Some(verb) = chars.next() else {
            return Err(error("unexpected end of format string".into()));
        };
        let Some(arg) = args.get(next_arg) else {
            return Err(error(format!("index {next_arg} out of range")));
        };
        next_arg += 1;
        let precision = precision.unwrap_or(DEFAULT_PRECISION);
        out.push_str(&match verb {
            's' => string(arg)?,
            'd' => integer(arg, "decimal", |i| i.to_string(), |u| u.to_string())?,
            'f' => fixed(float(arg, "fixed-point")?, precision),
            'e' => scientific(float(arg, "scientific")?, precision),
            'b' => match arg {
                Value::Bool(b) => u8::from(*b).to_string(),
                _ => integer(arg, "binary", |i| format!("{i:b}"), |u| format!("{u:b}"))?,
            },
            'o' => integer(arg, "octal", |i| format!("{i:o}"), |u| format!("{u:o}"))?,
            'x' | 'X' => {
                let hex = match arg {
                    Value::String(s) => s.bytes().map(|b| format!("{b:02x}")).collect(),
                    Value::Bytes(b) => b.iter().map(|b| format!("{b:02x}")).collect(),
                    _ => integer(arg, "hex", go_hex_int, |u| format!("{u:x}"))?,
                };
                match verb {
                    'X' => hex.to_uppercase(),
                    _ => hex,
                }
            }
            other => {
                return Err(error(format!(
                    "could not parse formatting clause: unrecognized formatting clause \"{other}\""
                )));
            }
        });
    }
    Ok(out)
}

/// Go's `%x` of a signed integer: the magnitude, after a sign.
fn go_hex_int(i: i64) -> String {
    match i < 0 {
        true => format!("-{:x}", i.unsigned_abs()),
        false => format!("{i:x}"),
    }
}

fn integer(
    arg: &Value,
    clause: &str,
    signed: impl Fn(i64) -> String,
    unsigned: impl Fn(u64) -> String,
) -> Result<String, ExecutionError> {
    match arg {
        Value::Int(i) => Ok(signed(*i)),
        Value::UInt(u) => Ok(unsigned(*u)),
        other => Err(error(format!(
            "{clause} clause can only be used on integers, was given {}",
            library::type_name(other)
        ))),
    }
}

fn float(arg: &Value, clause: &str) -> Result<f64, ExecutionError> {
    match arg {
        Value::Float(f) => Ok(*f),
        Value::String(s) if s.as_str() == "NaN" => Ok(f64::NAN),
        Value::String(s) if s.as_str() == "Infinity" => Ok(f64::INFINITY),
        Value::String(s) if s.as_str() == "-Infinity" => Ok(f64::NEG_INFINITY),
        other => Err(error(format!(
            "{clause} clause can only be used on doubles, was given {}",
            library::type_name(other)
        ))),
    }
}

/// `%.Nf` as `x/text`'s printer writes it for `en_US`: digits grouped by thousands.
fn fixed(f: f64, precision: usize) -> String {
    if !f.is_finite() {
        return non_finite(f);
    }
    let text = format!("{:.precision$}", f.abs());
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    let sign = if f.is_sign_negative() && f != 0.0 {
        "-"
    } else {
        ""
    };
    match fraction.is_empty() {
        true => format!("{sign}{grouped}"),
        false => format!("{sign}{grouped}.{fraction}"),
    }
}

/// `%.Ne` as `x/text`'s printer writes it for `en_US`: the exponent as a power of ten
/// in superscript digits, at least two (`3.140000×10⁰⁰`, `1.5×10⁻⁰³`).
fn scientific(f: f64, precision: usize) -> String {
    if !f.is_finite() {
        return non_finite(f);
    }
    let text = format!("{f:.precision$e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let (sign, digits) = match exponent.strip_prefix('-') {
        Some(d) => ("⁻", d),
        None => ("", exponent),
    };
    let superscript: String = format!("{digits:0>2}")
        .chars()
        .map(|d| match d {
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect();
    format!("{mantissa}×10{sign}{superscript}")
}

fn non_finite(f: f64) -> String {
    match (f.is_nan(), f.is_sign_negative()) {
        (true, _) => "NaN".into(),
        (false, true) => "-∞".into(),
        (false, false) => "∞".into(),
    }
}

/// `%s`: a value as `string()` gives it, a list or map as CEL literals.
fn string(arg: &Value) -> Result<String, ExecutionError> {
    match arg {
        Value::List(items) => {
            let items: Result<Vec<String>, _> = items.iter().map(literal).collect();
            Ok(format!("[{}]", items?.join(", ")))
        }
        Value::Map(map) => {
            let mut entries = Vec::with_capacity(map.map.len());
            for (key, value) in map.map.iter() {
                let key = Value::from(key.clone());
                entries.push((literal(&key)?, literal(value)?));
            }
            entries.sort();
            let entries: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{k}:{v}"))
                .collect();
            Ok(format!("{{{}}}", entries.join(", ")))
        }
        Value::Null => Ok("null".into()),
        other => match library::standard_string(other) {
            Some(text) => text.map_err(error),
            None => Err(error(format!(
                "no formatting function for {}",
                library::type_name(other)
            ))),
        },
    }
}

/// A member of a list or map, as a CEL literal: strings and bytes quoted, doubles with
/// six decimals, timestamps and durations as their conversions.
fn literal(value: &Value) -> Result<String, ExecutionError> {
    Ok(match value {
        Value::String(s) => format!("{s:?}"),
        Value::Bytes(b) => format!("b{:?}", String::from_utf8_lossy(b)),
        Value::Float(f) if f.is_finite() => format!("{f:.DEFAULT_PRECISION$}"),
        Value::Float(f) => format!("{:?}", library::go_g(*f)),
        Value::Timestamp(_) => format!("timestamp({:?})", string(value)?),
        Value::Duration(_) => format!("duration({:?})", string(value)?),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        _ => string(value)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_the_en_us_printer_writes_them() {
        assert_eq!(fixed(1234.5, 6), "1,234.500000");
        assert_eq!(fixed(-0.5, 1), "-0.5");
        assert_eq!(scientific(2.5, 6), "2.500000×10⁰⁰");
        assert_eq!(scientific(0.0015, 1), "1.5×10⁻⁰³");
        assert_eq!(go_hex_int(-255), "-ff");
        assert_eq!(string(&Value::Float(1.0)).unwrap(), "1");
        assert_eq!(string(&Value::Float(1e21)).unwrap(), "1e+21");
    }
}
