//! Rust's rules for the names crdgen emits: keywords (raw `r#match`, or `crate_` for the
//! path keywords no raw identifier spells), identifiers, module files, module paths.

use proc_macro2::{Ident, Span};

/// The name of a field or variant as Rust source writes it, without a raw prefix.
pub fn unraw(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

/// An identifier token for `name`, raw (`r#type`) when `name` is a keyword. The
/// path keywords, which cannot be raw, get a trailing `_` (`crate_`, as prost does):
/// a plural or kind may be `crate` and still needs a method or module of its name.
pub fn ident(name: &str) -> Ident {
    let name = unraw(name);
    if is_path_keyword(name) {
        Ident::new(&format!("{name}_"), Span::call_site())
    } else if is_keyword(name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// The name a generated module is declared and written under: `name` without a raw
/// prefix (`pub mod r#match;` lives in `match.rs`), and with the `_` that [`ident`] adds
/// to a path keyword (`pub mod crate_;` lives in `crate_.rs`).
pub fn module_name(name: &str) -> String {
    let name = unraw(name);
    if is_path_keyword(name) {
        format!("{name}_")
    } else {
        name.to_owned()
    }
}

/// `self`, `Self`, `super`, `crate` and `_`: words no raw identifier can spell.
fn is_path_keyword(name: &str) -> bool {
    matches!(name, "self" | "Self" | "super" | "crate" | "_")
}

/// Whether `name` can name a Rust module or type (possibly as a raw identifier).
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !matches!(name, "_" | "self" | "Self" | "super" | "crate")
}

/// Whether `name` is a Rust keyword (strict, reserved or of an edition).
pub fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "as" | "break"
            | "const"
            | "continue"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "static"
            | "struct"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
    )
}

/// A Rust module path such as `crate::pkg::apis`, kept as its segments.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ModulePath(Vec<String>);

impl ModulePath {
    /// Parses `crate::a::b` (or `::x::y`, or `self::a`/`super::a` relative to the
    /// include site); rejects anything that is not a plain path.
    pub fn parse(path: &str) -> Result<Self, String> {
        let trimmed = path.trim();
        let (leading, rest) = match trimmed.strip_prefix("::") {
            Some(rest) => (Some("".to_owned()), rest),
            None => (None, trimmed),
        };
        let mut segments: Vec<String> = leading.into_iter().collect();
        for segment in rest.split("::") {
            let plain = unraw(segment);
            let allowed_keyword = matches!(segment, "crate" | "self" | "super");
            if !(allowed_keyword || is_identifier(plain)) {
                return Err(format!("`{path}` is not a Rust module path"));
            }
            segments.push(segment.to_owned());
        }
        Ok(ModulePath(segments))
    }

    /// The module path a directory gets by default: `pkg/apis` → `crate::pkg::apis`.
    /// A leading `src/` is the crate root, not a module.
    pub fn from_dir(dir: &std::path::Path) -> Result<Self, String> {
        let mut segments = vec!["crate".to_owned()];
        let mut components: Vec<String> = dir
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        if components.first().is_some_and(|c| c == "src") {
            components.remove(0);
        }
        for c in components {
            if !is_identifier(&c) {
                return Err(format!(
                    "directory `{}` has no Rust module path of its own: `{c}` is not an identifier",
                    dir.display()
                ));
            }
            segments.push(c);
        }
        Ok(ModulePath(segments))
    }

    pub fn join(&self, segment: &str) -> Self {
        let mut segments = self.0.clone();
        segments.push(segment.to_owned());
        ModulePath(segments)
    }

    /// The full path of an item `name` in this module, as text.
    pub fn item_text(&self, name: &str) -> String {
        format!("{self}::{}", ident(name))
    }
}

/// The path as Rust source: keyword segments raw (`r#match`), `crate`, `self` and
/// `super` as they are, and a leading `::` for a path that starts with one.
impl std::fmt::Display for ModulePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("::")?;
            }
            match segment.as_str() {
                "" | "crate" | "self" | "super" => f.write_str(segment)?,
                other => write!(f, "{}", ident(other))?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_become_identifiers_and_module_files() {
        assert_eq!(ident("match").to_string(), "r#match");
        assert_eq!(ident("r#type").to_string(), "r#type");
        assert_eq!(ident("crate").to_string(), "crate_");
        assert_eq!(ident("self").to_string(), "self_");
        assert_eq!(module_name("r#match"), "match");
        assert_eq!(module_name("super"), "super_");
        assert_eq!(module_name("example"), "example");
    }

    #[test]
    fn module_paths() {
        let p = ModulePath::from_dir(std::path::Path::new("pkg/apis")).unwrap();
        assert_eq!(p.to_string(), "crate::pkg::apis");
        let p = ModulePath::from_dir(std::path::Path::new("src/apis")).unwrap();
        assert_eq!(p.to_string(), "crate::apis");
        assert!(ModulePath::from_dir(std::path::Path::new("my-apis")).is_err());
        assert_eq!(
            ModulePath::parse("crate::apis").unwrap().item_text("type"),
            "crate::apis::r#type"
        );
        assert_eq!(
            ModulePath::parse("::kube::r#match").unwrap().item_text("X"),
            "::kube::r#match::X"
        );
        assert!(ModulePath::parse("crate::a-b").is_err());
    }
}
