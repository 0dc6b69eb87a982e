//! Go type expressions as `hack/known-types.py` writes them, with full package paths:
//! `*int32`, `[]k8s.io/api/core/v1.Container`, `map[string]k8s.io/apimachinery/pkg/api/resource.Quantity`.

#[derive(Debug, PartialEq)]
pub enum GoType<'a> {
    /// A Go builtin (`string`, `int32`) or a named type (`k8s.io/api/core/v1.Protocol`).
    Named(&'a str),
    Pointer(Box<GoType<'a>>),
    Slice(Box<GoType<'a>>),
    /// `[N]T`: controller-gen writes it as a slice.
    Array(Box<GoType<'a>>),
    Map(Box<GoType<'a>>, Box<GoType<'a>>),
}

impl<'a> GoType<'a> {
    /// Parses a whole expression; `None` for text the hack step does not write.
    pub fn parse(text: &'a str) -> Option<GoType<'a>> {
        let (ty, rest) = Self::prefix(text)?;
        rest.is_empty().then_some(ty)
    }

    fn prefix(text: &'a str) -> Option<(GoType<'a>, &'a str)> {
        if let Some(rest) = text.strip_prefix('*') {
            let (inner, rest) = Self::prefix(rest)?;
            return Some((GoType::Pointer(Box::new(inner)), rest));
        }
        if let Some(rest) = text.strip_prefix("[]") {
            let (inner, rest) = Self::prefix(rest)?;
            return Some((GoType::Slice(Box::new(inner)), rest));
        }
        if let Some(rest) = text.strip_prefix("map[") {
            let (key, rest) = Self::prefix(rest)?;
            let (value, rest) = Self::prefix(rest.strip_prefix(']')?)?;
            return Some((GoType::Map(Box::new(key), Box::new(value)), rest));
        }
        if let Some(rest) = text.strip_prefix('[') {
            let (_, rest) = rest.split_once(']')?;
            let (inner, rest) = Self::prefix(rest)?;
            return Some((GoType::Array(Box::new(inner)), rest));
        }
        // A name runs to the next `]` (the end of a map key) or the end.
        let end = text.find(']').unwrap_or(text.len());
        (end > 0).then(|| (GoType::Named(&text[..end]), &text[end..]))
    }
}

/// `k8s.io/api/core/v1.PodSpec` → `PodSpec`.
pub fn short_name(full: &str) -> &str {
    full.rsplit_once('.').map_or(full, |(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::GoType::*;
    use super::*;

    #[test]
    fn expressions_parse_with_their_package_paths() {
        assert_eq!(
            GoType::parse("[]k8s.io/api/core/v1.Container"),
            Some(Slice(Box::new(Named("k8s.io/api/core/v1.Container"))))
        );
        assert_eq!(
            GoType::parse("map[k8s.io/api/core/v1.ResourceName]*[2]int32"),
            Some(Map(
                Box::new(Named("k8s.io/api/core/v1.ResourceName")),
                Box::new(Pointer(Box::new(Array(Box::new(Named("int32"))))))
            ))
        );
        assert_eq!(GoType::parse("map[string"), None);
        assert_eq!(GoType::parse(""), None);
        assert_eq!(short_name("k8s.io/api/core/v1.PodSpec"), "PodSpec");
    }
}
