//! The one place crdgen reads or writes YAML. serde_yaml (archived upstream) is not
//! used; serde_yaml_ng is its maintained fork with the same format.

use serde_json::Value;

/// `value` as a YAML document. Map keys come out sorted (serde_json's maps are
/// ordered), which is the canonical order generated CRDs use.
pub fn to_string(value: &Value) -> Result<String, String> {
    serde_yaml_ng::to_string(value).map_err(|e| e.to_string())
}

/// A YAML (or JSON) value, as marker arguments such as `+kubebuilder:default={a: 1}`
/// are written.
pub fn parse(text: &str) -> Result<Value, String> {
    serde_yaml_ng::from_str(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_sorted_keys_and_reads_flow_style() {
        let value = serde_json::json!({"b": [1, "x"], "a": {"d": true, "c": null}});
        assert_eq!(
            to_string(&value).unwrap(),
            "a:\n  c: null\n  d: true\nb:\n- 1\n- x\n"
        );
        assert_eq!(
            parse("{a: 1, b: [x, 2]}").unwrap(),
            serde_json::json!({"a": 1, "b": ["x", 2]})
        );
        assert_eq!(parse("plain").unwrap(), serde_json::json!("plain"));
    }
}
