//! apimachinery's checks of a value's content, with the messages the apiserver gives
//! (`k8s.io/apimachinery/pkg/util/validation` and `pkg/api/validate/content` of v0.36.3):
//! what CEL's `format` library (`format.dns1123Label().validate(x)`) answers. Each
//! returns the list of what is wrong, empty when nothing is.

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// apimachinery's `RegexError`: the message, its examples and the pattern.
fn regex_error(message: &str, pattern: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{message} (regex used for validation is '{pattern}')");
    }
    let listed: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{message} (e.g. {}regex used for validation is '{pattern}')",
        listed.join(" or ")
    )
}

fn max_len_error(length: usize, unit: &str) -> String {
    format!("must be no more than {length} {unit}")
}

/// Whether `value` is one or more of `middle`, starting and ending with `end`.
fn run_of(value: &str, end: fn(char) -> bool, middle: fn(char) -> bool) -> bool {
    value.starts_with(end) && value.ends_with(end) && value.chars().all(middle)
}

fn lower_alphanumeric(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

fn is_dns1123_label_text(value: &str) -> bool {
    run_of(value, lower_alphanumeric, |c| {
        lower_alphanumeric(c) || c == '-'
    })
}

fn is_dns1123_subdomain_text(value: &str) -> bool {
    value.split('.').all(is_dns1123_label_text)
}

/// `IsDNS1123Label`.
pub fn dns1123_label(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push(max_len_error(63, "characters"));
    }
    if !is_dns1123_label_text(value) {
        errors.push(match is_dns1123_subdomain_text(value) {
            // A valid subdomain that is no label: its length was checked, so it is dots.
            true => "must not contain dots".to_owned(),
            false => regex_error(
                DNS1123_LABEL_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ),
        });
    }
    errors
}

/// `IsDNS1123Subdomain`.
pub fn dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 253 {
        errors.push(max_len_error(253, "characters"));
    }
    if !is_dns1123_subdomain_text(value) {
        errors.push(regex_error(
            crate::names::SUBDOMAIN_MESSAGE,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errors
}

/// `IsDNS1035Label`.
pub fn dns1035_label(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push(max_len_error(63, "characters"));
    }
    if !(value.starts_with(|c: char| c.is_ascii_lowercase()) && is_dns1123_label_text(value)) {
        errors.push(regex_error(
            DNS1035_LABEL_MSG,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errors
}

/// A generated name's prefix checked as a name (apimachinery's `maskTrailingDash`): a
/// trailing `-`, where a suffix will follow, is read as a letter. apimachinery cuts two
/// characters for the one it adds, which this keeps.
pub fn mask_trailing_dash(name: &str) -> String {
    match name.len() > 1 && name.ends_with('-') {
        true => format!("{}a", &name[..name.len() - 2]),
        false => name.to_owned(),
    }
}

fn is_label_key_text(value: &str) -> bool {
    run_of(
        value,
        |c| c.is_ascii_alphanumeric(),
        |c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'),
    )
}

/// `IsQualifiedName` (a label key): a name, with an optional DNS subdomain prefix and `/`.
pub fn qualified_name(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errors.push("prefix part must be non-empty".to_owned());
            } else {
                errors.extend(
                    dns1123_subdomain(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            errors.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errors;
        }
    };
    if name.is_empty() {
        errors.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errors.push(format!("name part {}", max_len_error(63, "bytes")));
    }
    if !is_label_key_text(name) {
        errors.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errors
}

/// `IsLabelValue`.
pub fn label_value(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push(max_len_error(63, "bytes"));
    }
    if !(value.is_empty() || is_label_key_text(value)) {
        errors.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_apimachinerys() {
        assert!(dns1123_label("my-name").is_empty());
        assert_eq!(
            dns1123_label("contains a space"),
            [
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ]
        );
        assert_eq!(dns1123_label("a.b"), ["must not contain dots"]);
        assert!(dns1123_subdomain("example.com").is_empty());
        assert_eq!(dns1035_label("1abc").len(), 1);
        assert!(qualified_name("example.com/MyName").is_empty());
        assert_eq!(qualified_name("/x"), ["prefix part must be non-empty"]);
        assert!(label_value("").is_empty());
        assert_eq!(label_value("-x").len(), 1);
        assert_eq!(mask_trailing_dash("prefix.-"), "prefixa");
        assert_eq!(mask_trailing_dash("-"), "-");
    }
}
