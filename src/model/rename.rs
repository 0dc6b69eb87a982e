//! serde's `rename_all` rules, applied exactly as serde_derive applies them: `parse`
//! reads them from `#[serde(..)]`, the model turns Rust names into wire names with them.
//! They live with the model, below both, so that neither depends on the other.

/// serde's `rename_all` rules, applied exactly as serde_derive applies them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum RenameRule {
    #[serde(rename = "lowercase")]
    Lower,
    #[serde(rename = "UPPERCASE")]
    Upper,
    #[serde(rename = "PascalCase")]
    Pascal,
    #[serde(rename = "camelCase")]
    Camel,
    #[serde(rename = "snake_case")]
    Snake,
    #[serde(rename = "SCREAMING_SNAKE_CASE")]
    ScreamingSnake,
    #[serde(rename = "kebab-case")]
    Kebab,
    #[serde(rename = "SCREAMING-KEBAB-CASE")]
    ScreamingKebab,
}

impl RenameRule {
    pub const ALL: [(&'static str, RenameRule); 8] = [
        ("lowercase", RenameRule::Lower),
        ("UPPERCASE", RenameRule::Upper),
        ("PascalCase", RenameRule::Pascal),
        ("camelCase", RenameRule::Camel),
        ("snake_case", RenameRule::Snake),
        ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
        ("kebab-case", RenameRule::Kebab),
        ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
    ];

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
    }

    /// Renames a struct field (written in snake_case), as serde does.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut out = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        out.push(ch);
                    }
                }
                out
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply_to_field(field);
                lower_first(&pascal)
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// Renames an enum variant (written in PascalCase), as serde does.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => lower_first(variant),
            RenameRule::Snake => {
                let mut out = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        out.push('_');
                    }
                    out.push(ch.to_ascii_lowercase());
                }
                out
            }
            RenameRule::ScreamingSnake => RenameRule::Snake
                .apply_to_variant(variant)
                .to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake
                .apply_to_variant(variant)
                .replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_rename_rules_match_serde() {
        let field = "observed_generation";
        let cases = [
            (RenameRule::Camel, "observedGeneration"),
            (RenameRule::Pascal, "ObservedGeneration"),
            (RenameRule::Kebab, "observed-generation"),
            (RenameRule::ScreamingSnake, "OBSERVED_GENERATION"),
            (RenameRule::ScreamingKebab, "OBSERVED-GENERATION"),
            (RenameRule::Lower, "observed_generation"),
        ];
        for (rule, expected) in cases {
            assert_eq!(rule.apply_to_field(field), expected);
        }
        assert_eq!(RenameRule::Snake.apply_to_variant("NotReady"), "not_ready");
        assert_eq!(RenameRule::Camel.apply_to_variant("NotReady"), "notReady");
        assert_eq!(RenameRule::Kebab.apply_to_variant("NotReady"), "not-ready");
        assert_eq!(RenameRule::Lower.apply_to_variant("NotReady"), "notready");
    }
}
