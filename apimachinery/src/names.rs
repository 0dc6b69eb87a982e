//! Kubernetes' name rules (apimachinery's `IsDNS1123Subdomain` and `IsDNS1035Label`).
//! Each check says why a name breaks the rule in words a person fixing it can use;
//! [`SUBDOMAIN_MESSAGE`] is what the apiserver says instead.

/// The longest DNS-1035 or DNS-1123 label.
pub const LABEL_MAX: usize = 63;
/// The longest DNS-1123 subdomain.
pub const SUBDOMAIN_MAX: usize = 253;
/// What the apiserver answers when a name is not a DNS-1123 subdomain (an object's
/// `metadata.name`, say): apimachinery's `dns1123SubdomainErrorMsg`.
pub const SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/// A DNS-1035 label: lower-case ASCII letters, digits and `-`, starting with a letter and
/// ending with a letter or digit, at most 63 characters. Plurals, singulars, short names,
/// categories and lower-cased kinds must be one.
///
/// # Errors
///
/// Why the name is not one, in words a person can act on.
pub fn label(name: &str) -> Result<(), String> {
    if name.len() > LABEL_MAX {
        return Err(format!(
            "it is {} characters long; the most is {LABEL_MAX}",
            name.chars().count()
        ));
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err("it must start with a lower-case letter (a-z)".into());
    }
    label_chars(name)
}

/// A DNS-1123 subdomain: dot-separated DNS-1123 labels (which may start with a digit),
/// at most 253 characters. API groups must be one.
///
/// # Errors
///
/// Why the name is not one, in words a person can act on.
pub fn subdomain(name: &str) -> Result<(), String> {
    if name.len() > SUBDOMAIN_MAX {
        return Err(format!(
            "it is {} characters long; the most is {SUBDOMAIN_MAX}",
            name.chars().count()
        ));
    }
    for part in name.split('.') {
        if !part.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit()) {
            return Err(
                "each dot-separated part must start with a lower-case letter or a digit".into(),
            );
        }
        label_chars(part)?;
    }
    Ok(())
}

fn label_chars(name: &str) -> Result<(), String> {
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Err(format!(
            "`{}` is not allowed: only a-z, 0-9 and `-`",
            bad.escape_debug()
        ));
    }
    if name.ends_with('-') {
        return Err("it must end with a letter or a digit".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_apimachinery() {
        for ok in ["examples", "a", "my-widgets2", &"a".repeat(63)] {
            assert!(label(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "Examples",
            "2examples",
            "ex_amples",
            "examples-",
            "x/../pwn",
            "r#match",
            "exämples",
            &"a".repeat(64),
        ] {
            assert!(label(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn subdomains_follow_apimachinery() {
        for ok in ["bcrds.example.com", "apps", "1.example.com", "a-b.c"] {
            assert!(subdomain(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "Bad Group!",
            "a..b",
            ".a",
            "a.",
            "../../x/grp",
            "a.b/../../x",
            "bcrds.ex\"ample.com",
            "bcrds.{{kind}}.com",
            &format!("{}.com", "a.".repeat(130)),
        ] {
            assert!(subdomain(bad).is_err(), "{bad}");
        }
    }
}
