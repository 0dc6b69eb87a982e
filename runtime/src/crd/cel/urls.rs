//! Kubernetes' `url` library (apiserver's `pkg/cel/library/urls.go`), in place of
//! kube-cel's: a URL is read as Go's `net/url` reads it, which the library stands on.
//! kube-cel's, on the WHATWG `url` crate, read `/path` as `http://localhost/path` (a
//! host of `localhost`), gave `https://example.com` the path `/`, and refused
//! `https:://kubernetes.io/`, which Go reads as a URL with an opaque part.
//!
//! `url(s)` takes what `url.ParseRequestURI` takes (an absolute URI or an absolute
//! path) and keeps `url.Parse`'s reading; `isURL(s)` says whether `ParseRequestURI`
//! takes it.

use std::collections::HashMap;
use std::sync::Arc;

use kube_cel::cel::extractors::This;
use kube_cel::cel::objects::{Key, Map, Opaque};
use kube_cel::cel::{Context, ExecutionError, ResolveResult, Value};

/// A URL as Go's `url.URL` holds it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Url {
    scheme: String,
    opaque: String,
    user: Option<String>,
    host: String,
    path: String,
    /// The path as written, where it is not the path's own escaping.
    raw_path: String,
    raw_query: String,
    fragment: String,
}

impl Opaque for Url {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.URL"
    }
}

/// Registers the library on `ctx`, over kube-cel's functions of the same names.
pub(super) fn register(ctx: &mut Context<'_>) {
    ctx.add_function("url", |s: Arc<String>| -> ResolveResult {
        let url = parse_request_uri(&s).and_then(|_| parse(&s)).map_err(|e| {
            ExecutionError::function_error(
                "url",
                format!("URL parse error during conversion from string: parse {s:?}: {e}"),
            )
        })?;
        Ok(Value::Opaque(Arc::new(url)))
    });
    ctx.add_function("isURL", |s: Arc<String>| parse_request_uri(&s).is_ok());
    ctx.add_function("getScheme", |This(u): This<Value>| {
        accessor(&u, |u| u.scheme.clone())
    });
    ctx.add_function("getHost", |This(u): This<Value>| {
        accessor(&u, |u| u.host.clone())
    });
    ctx.add_function("getHostname", |This(u): This<Value>| {
        accessor(&u, |u| split_host_port(&u.host).0.to_owned())
    });
    ctx.add_function("getPort", |This(u): This<Value>| {
        accessor(&u, |u| split_host_port(&u.host).1.to_owned())
    });
    ctx.add_function("getEscapedPath", |This(u): This<Value>| {
        accessor(&u, Url::escaped_path)
    });
    ctx.add_function("getQuery", |This(u): This<Value>| -> ResolveResult {
        let url = as_url(&u)?;
        let query: HashMap<Key, Value> = query(&url.raw_query)
            .into_iter()
            .map(|(k, values)| {
                let values = values
                    .into_iter()
                    .map(|v| Value::String(Arc::new(v)))
                    .collect();
                (Key::String(Arc::new(k)), Value::List(Arc::new(values)))
            })
            .collect();
        Ok(Value::Map(Map {
            map: Arc::new(query),
        }))
    });
}

fn as_url(value: &Value) -> Result<&Url, ExecutionError> {
    match value {
        Value::Opaque(o) => o
            .as_ref()
            .downcast_ref::<Url>()
            .ok_or(ExecutionError::NoSuchOverload),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

fn accessor(value: &Value, part: impl Fn(&Url) -> String) -> ResolveResult {
    Ok(Value::String(Arc::new(part(as_url(value)?))))
}

/// `url.ParseRequestURI`: no fragment is cut off, and a relative path is refused.
fn parse_request_uri(raw: &str) -> Result<Url, String> {
    read(raw, true)
}

/// `url.Parse`: the fragment cut off, the rest read.
fn parse(raw: &str) -> Result<Url, String> {
    let (rest, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = read(rest, false)?;
    url.fragment = unescape(fragment, Mode::Fragment)?;
    Ok(url)
}

/// Go's `parse(rawURL, viaRequest)`.
fn read(raw: &str, via_request: bool) -> Result<Url, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".into());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = "*".into();
        return Ok(url);
    }
    let (scheme, rest) = scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let mut rest = rest;
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some((before, query)) = rest.split_once('?') {
        url.raw_query = query.to_owned();
        rest = before;
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // A rootless path is opaque (RFC 3986).
            url.opaque = rest.to_owned();
            return Ok(url);
        }
        if via_request {
            return Err("invalid URI for request".into());
        }
        if rest.split('/').next().is_some_and(|s| s.contains(':')) {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    let authority_follows = (!url.scheme.is_empty() || !via_request && !rest.starts_with("///"))
        && rest.starts_with("//");
    if authority_follows {
        let after = &rest[2..];
        let (authority, path) = match after.find('/') {
            Some(i) => after.split_at(i),
            None => (after, ""),
        };
        let (user, host) = authority
            .rsplit_once('@')
            .map_or((None, authority), |(u, h)| (Some(u), h));
        if let Some(user) = user {
            if !user.chars().all(valid_userinfo) {
                return Err("net/url: invalid userinfo".into());
            }
            url.user = Some(unescape(user, Mode::UserInfo)?);
        }
        url.host = host_of(host)?;
        rest = path;
    }
    url.path = unescape(rest, Mode::Path)?;
    if escape(&url.path, Mode::Path) != rest {
        url.raw_path = rest.to_owned();
    }
    Ok(url)
}

/// The scheme before a `:`, when the text starts with one, and the rest.
fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if i > 0 => {}
            ':' if i == 0 => return Err("missing protocol scheme".into()),
            ':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Go's `parseHost`: an IPv6 literal in brackets, or a name, each with an optional
/// port of digits.
fn host_of(host: &str) -> Result<String, String> {
    let port = match host.strip_prefix('[') {
        Some(_) => {
            let Some(close) = host.rfind(']') else {
                return Err("missing ']' in host".into());
            };
            &host[close + 1..]
        }
        None => host.rfind(':').map_or("", |i| &host[i..]),
    };
    if !valid_optional_port(port) {
        return Err(format!("invalid port {port:?} after host"));
    }
    unescape(host, Mode::Host)
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
}

/// `url.URL`'s `Hostname()` and `Port()`: the host without its port (and an IPv6
/// literal's brackets), and the port.
fn split_host_port(host_port: &str) -> (&str, &str) {
    let (host, port) = match host_port.rfind(':') {
        Some(i) if valid_optional_port(&host_port[i..]) => (&host_port[..i], &host_port[i + 1..]),
        _ => (host_port, ""),
    };
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    (host, port)
}

fn valid_userinfo(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c)
}

impl Url {
    /// `url.URL`'s `EscapedPath()`: the path as written when that is a valid escaping
    /// of it, else the path escaped.
    fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && unescape(&self.raw_path, Mode::Path).is_ok_and(|p| p == self.path)
            && self
                .raw_path
                .chars()
                .all(|c| c == '%' || !should_escape(c, Mode::Path))
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return "*".into();
        }
        escape(&self.path, Mode::Path)
    }
}

/// What a URL's part may hold unescaped (Go's `encoding` modes).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    UserInfo,
    Query,
    Fragment,
}

/// Go's `shouldEscape`.
fn should_escape(c: char, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() || "-_.~".contains(c) {
        return false;
    }
    match mode {
        Mode::Host => !"!$&'()*+,;=:[]<>\"".contains(c),
        Mode::Path => !"$&+,/:;=@".contains(c),
        Mode::UserInfo => !"&+,;=:".contains(c) && c != '$',
        Mode::Query => true,
        Mode::Fragment => !"$&+,/:;=?@!()*".contains(c),
    }
}

fn escape(s: &str, mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if should_escape(c, mode) {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Go's `unescape`: `%XX` decoded (a `+` too, as a space, in a query); a `%` not
/// followed by two hexadecimal digits refused, and in a host a character it may not
/// hold.
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok());
                let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) else {
                    let end = (i + 3).min(s.len());
                    return Err(format!("invalid URL escape {:?}", &s[i..end]));
                };
                out.push(byte);
                i += 3;
            }
            b'+' if mode == Mode::Query => {
                out.push(b' ');
                i += 1;
            }
            b => {
                if mode == Mode::Host && b < 0x80 && should_escape(b as char, mode) {
                    return Err(format!(
                        "invalid character {:?} in host name",
                        (b as char).to_string()
                    ));
                }
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| "invalid UTF-8 in URL".to_owned())
}

/// Go's `ParseQuery`, what fails to read left out: each key's values in order.
fn query(raw: &str) -> HashMap<String, Vec<String>> {
    let mut values: HashMap<String, Vec<String>> = HashMap::new();
    for pair in raw.split('&') {
        if pair.is_empty() || pair.contains(';') {
            continue;
        }
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if let (Ok(key), Ok(value)) = (unescape(key, Mode::Query), unescape(value, Mode::Query)) {
            values.entry(key).or_default().push(value);
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_read_as_gos_net_url_reads_them() {
        let path = parse("/path").unwrap();
        assert_eq!(
            (path.scheme.as_str(), path.host.as_str(), path.path.as_str()),
            ("", "", "/path")
        );
        assert_eq!(parse("https://example.com").unwrap().escaped_path(), "");
        let spaced = parse("https://example.com/with space/").unwrap();
        assert_eq!(spaced.escaped_path(), "/with%20space/");
        let opaque = parse("https:://kubernetes.io/").unwrap();
        assert_eq!(
            (opaque.host.as_str(), opaque.opaque.as_str()),
            ("", "://kubernetes.io/")
        );
        assert_eq!(split_host_port("[::1]:80"), ("::1", "80"));
        assert_eq!(split_host_port("example.com"), ("example.com", ""));
        assert!(
            parse_request_uri("https://user:pass@example.com:80/path?query=val#fragment").is_ok()
        );
        assert_eq!(
            parse_request_uri("https://a:b:c/").unwrap_err(),
            "invalid port \":c\" after host"
        );
        assert_eq!(
            parse_request_uri("../relative-path").unwrap_err(),
            "invalid URI for request"
        );
        assert_eq!(parse("%zz").unwrap_err(), "invalid URL escape \"%zz\"");
        let q = query("k1=a&k2=b&k2=c&key+with+spaces=v%20w");
        assert_eq!(q["k2"], ["b", "c"]);
        assert_eq!(q["key with spaces"], ["v w"]);
    }
}
