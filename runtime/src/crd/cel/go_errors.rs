//! What kube-cel refuses of IPs, CIDRs, quantities and versions, in the words of the Go
//! parsers kube-apiserver's libraries stand on (`net/netip`, `resource.ParseQuantity`,
//! blang's semver): `ip("2001:db8:::68")` fails with `IP Address "2001:db8:::68" parse
//! error during conversion from string: ParseAddr("2001:db8:::68"): each
//! colon-separated field must have at least one digit (at ":68")`, as on a cluster.
//!
//! The values stay kube-cel's: each function here calls kube-cel's own (in a context of
//! kube-cel's functions alone) and words only what it refuses; and `isInteger()` says
//! false of a quantity no int64 holds, as Go's `AsInt64` does.

use kube_cel::KubeCelExt as _;
use kube_cel::cel::common::ast::IdedExpr;
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use super::bindings::{Bindings, call, ident};
use std::cell::RefCell;

thread_local! {
    /// kube-cel's functions alone, whose values the ones here return.
    static KUBE_CEL: RefCell<Option<Context<'static>>> = const { RefCell::new(None) };
}

/// Registers them on `ctx`, over kube-cel's functions of the same names.
pub(super) fn register(ctx: &mut Context<'_>) {
    for name in ["ip", "ip.isCanonical"] {
        ctx.add_function(name, move |ftx: &FunctionContext| {
            worded(ftx, name, |s, e| match ip_error(s) {
                Some(why) => {
                    format!("IP Address {s:?} parse error during conversion from string: {why}")
                }
                None => e,
            })
        });
    }

    ctx.add_function("cidr", |ftx: &FunctionContext| {
        worded(ftx, "cidr", |s, e| match prefix_error(s) {
            Some(why) => format!(
                "network address parse error during conversion from string: network address parse error during conversion from string: {why}"
            ),
            None => e,
        })
    });
    ctx.add_function("quantity", |ftx: &FunctionContext| {
        worded(ftx, "quantity", |s, e| quantity_error(s).unwrap_or(e))
    });
    ctx.add_function("semver", |ftx: &FunctionContext| {
        worded(ftx, "semver", |s, e| match s.split('.').count() < 3 {
            true => "No Major.Minor.Patch elements found".to_owned(),
            false => e,
        })
    });
    ctx.add_function("asInteger", |ftx: &FunctionContext| {
        kube_cel_call(ftx).map_err(|_| ftx.error("cannot convert value to integer"))
    });
    ctx.add_function("isInteger", |ftx: &FunctionContext| -> ResolveResult {
        let this = ftx.this.clone().ok_or(ExecutionError::NoSuchOverload)?;
        let mut bound = Bindings::new();
        let target = bound.bind(this);
        let as_integer = in_kube_cel(bound, &call("asInteger", Some(target), Vec::new()));
        Ok(Value::Bool(as_integer.is_ok()))
    });
}

/// kube-cel's function of the call, on its target and arguments.
fn kube_cel_call(ftx: &FunctionContext) -> ResolveResult {
    kube_cel_named(ftx, ftx.name)
}

/// kube-cel's function `name` (`ip.isCanonical`: `isCanonical` of the namespace `ip`),
/// on the call's target and arguments.
fn kube_cel_named(ftx: &FunctionContext, name: &str) -> ResolveResult {
    let mut bound = Bindings::new();
    let (target, function) = match name.split_once('.') {
        Some((namespace, function)) => (Some(ident(namespace)), function),
        None => (ftx.this.clone().map(|this| bound.bind(this)), name),
    };
    let mut args = Vec::with_capacity(ftx.args.len());
    for arg in ftx.args {
        args.push(bound.bind(ftx.ptx.resolve(arg)?));
    }
    in_kube_cel(bound, &call(function, target, args))
}

/// kube-cel's function `name` of the call; where it refuses a string, `word` says why
/// from the string and kube-cel's own text.
fn worded(
    ftx: &FunctionContext,
    name: &str,
    word: impl Fn(&str, String) -> String,
) -> ResolveResult {
    kube_cel_named(ftx, name).map_err(|e| {
        let text = match ftx.args.first().map(|a| ftx.ptx.resolve(a)) {
            Some(Ok(Value::String(s))) => word(&s, super::errors::text(&e)),
            _ => return e,
        };
        ftx.error(text)
    })
}

/// Evaluates `expr` in kube-cel's context, the bound values in scope.
fn in_kube_cel(bound: Bindings, expr: &IdedExpr) -> ResolveResult {
    KUBE_CEL.with(|kube| {
        let mut kube = kube.borrow_mut();
        let ctx = kube.get_or_insert_with(|| Context::default().with_all());
        bound.resolve(expr, ctx)
    })
}

/// Why Go's `netip.ParseAddr` refuses `s`, in its words.
fn ip_error(s: &str) -> Option<String> {
    let at = |msg: &str, rest: &str| Some(format!("ParseAddr({s:?}): {msg} (at {rest:?})"));
    let plain = |msg: &str| Some(format!("ParseAddr({s:?}): {msg}"));
    match s.bytes().find(|b| matches!(b, b'.' | b':' | b'%')) {
        Some(b'.') => ipv4_error(s).map(|(msg, rest)| match rest {
            Some(rest) => format!("ParseAddr({s:?}): {msg} (at {rest:?})"),
            None => format!("ParseAddr({s:?}): {msg}"),
        }),
        Some(b':') => ipv6_error(s).and_then(|(msg, rest)| match rest {
            Some(rest) => at(msg, rest),
            None => plain(msg),
        }),
        Some(_) => plain("missing IPv6 address"),
        None => plain("unable to parse IP"),
    }
}

/// Go's `parseIPv4Fields` of `part`: its error and where.
fn ipv4_error(part: &str) -> Option<(&'static str, Option<&str>)> {
    let bytes = part.as_bytes();
    let (mut value, mut digits, mut fields) = (0u32, 0, 0);
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                if digits == 1 && value == 0 {
                    return Some(("IPv4 field has octet with leading zero", None));
                }
                value = value * 10 + u32::from(c - b'0');
                digits += 1;
                if value > 255 {
                    return Some(("IPv4 field has value >255", None));
                }
            }
            b'.' => {
                if i == 0 || i == bytes.len() - 1 || bytes[i - 1] == b'.' {
                    return Some(("IPv4 field must have at least one digit", Some(&part[i..])));
                }
                if fields == 3 {
                    return Some(("IPv4 address too long", None));
                }
                fields += 1;
                value = 0;
                digits = 0;
            }
            _ => return Some(("unexpected character", Some(&part[i..]))),
        }
    }
    (fields < 3).then_some(("IPv4 address too short", None))
}

/// Go's `parseIPv6`: its error and where.
fn ipv6_error(whole: &str) -> Option<(&'static str, Option<&str>)> {
    let mut s = match whole.split_once('%') {
        Some((_, "")) => return Some(("zone must be a non-empty string", None)),
        Some((address, _)) => address,
        None => whole,
    };
    let mut ellipsis = false;
    if let Some(rest) = s.strip_prefix("::") {
        ellipsis = true;
        s = rest;
        if s.is_empty() {
            return None;
        }
    }
    let mut filled = 0;
    while filled < 16 {
        let digits = s.bytes().take_while(u8::is_ascii_hexdigit).count();
        if digits > 4 {
            return Some(("each group must have 4 or less digits", Some(s)));
        }
        if digits == 0 {
            return Some((
                "each colon-separated field must have at least one digit",
                Some(s),
            ));
        }
        if s.as_bytes().get(digits) == Some(&b'.') {
            if !ellipsis && filled != 12 {
                return Some((
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    Some(s),
                ));
            }
            if filled + 4 > 16 {
                return Some((
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    Some(s),
                ));
            }
            if let Some(error) = ipv4_error(s) {
                return Some(error);
            }
            s = "";
            filled += 4;
            break;
        }
        filled += 2;
        s = &s[digits..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Some(("unexpected character, want colon", Some(s)));
        }
        if s.len() == 1 {
            return Some(("colon must be followed by more characters", Some(s)));
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis {
                return Some(("multiple :: in address", Some(s)));
            }
            ellipsis = true;
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Some(("trailing garbage after address", Some(s)));
    }
    match (filled < 16, ellipsis) {
        (true, false) => Some(("address string too short", None)),
        (false, true) => Some(("the :: must expand to at least one field of zeros", None)),
        _ => None,
    }
}

/// Why Go's `netip.ParsePrefix` refuses `s`, in its words.
fn prefix_error(s: &str) -> Option<String> {
    let Some((address, bits)) = s.rsplit_once('/') else {
        return Some(format!("netip.ParsePrefix({s:?}): no '/'"));
    };
    if let Some(why) = ip_error(address) {
        return Some(format!("netip.ParsePrefix({s:?}): {why}"));
    }
    let valid = !bits.is_empty()
        && bits.bytes().all(|b| b.is_ascii_digit())
        && !(bits.len() > 1 && bits.starts_with('0'));
    if !valid {
        return Some(format!(
            "netip.ParsePrefix({s:?}): bad bits after slash: {bits:?}"
        ));
    }
    let limit = if address.contains(':') { 128 } else { 32 };
    match bits.parse::<u32>().map_or(true, |n| n > limit) {
        true => Some(format!(
            "netip.ParsePrefix({s:?}): prefix length out of range"
        )),
        false => None,
    }
}

/// Why `resource.ParseQuantity` refuses `s`: its form, or its suffix.
fn quantity_error(s: &str) -> Option<String> {
    const FORMAT: &str = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let number = unsigned
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let suffix = &unsigned[number..];
    let letters = suffix
        .bytes()
        .take_while(|b| b"eEinumkKMGTP".contains(b))
        .count();
    let exponent = suffix[letters..]
        .strip_prefix(['+', '-'])
        .unwrap_or(&suffix[letters..]);
    if number == 0 || !exponent.bytes().all(|b| b.is_ascii_digit()) {
        return Some(FORMAT.to_owned());
    }
    const SUFFIXES: &[&str] = &[
        "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
    ];
    let known = SUFFIXES.contains(&suffix)
        || suffix.strip_prefix(['e', 'E']).is_some_and(|e| {
            e.strip_prefix(['+', '-'])
                .unwrap_or(e)
                .bytes()
                .all(|b| b.is_ascii_digit())
        });
    (!known).then(|| "unable to parse quantity's suffix".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_refused_in_gos_words() {
        assert_eq!(
            ip_error("192.168.0.1.0").as_deref(),
            Some("ParseAddr(\"192.168.0.1.0\"): IPv4 address too long")
        );
        assert_eq!(
            ip_error("2001:db8:::68").as_deref(),
            Some(
                "ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")"
            )
        );
        assert_eq!(ip_error("::1"), None);
        assert_eq!(ip_error("2001:db8::68"), None);
        assert_eq!(ip_error("::ffff:192.168.0.1"), None);
        assert_eq!(
            prefix_error("192.168.0.0/").as_deref(),
            Some("netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"")
        );
        assert_eq!(prefix_error("10.0.0.0/8"), None);
        assert_eq!(
            quantity_error("10Mo").as_deref().map(|e| &e[..30]),
            Some("quantities must match the regu")
        );
        assert_eq!(
            quantity_error("10Mm").as_deref(),
            Some("unable to parse quantity's suffix")
        );
        assert_eq!(quantity_error("1.5Gi"), None);
        assert_eq!(quantity_error("2e3"), None);
    }
}
