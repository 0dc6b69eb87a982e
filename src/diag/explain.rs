//! What each code means, an example and the fix: the pages of the book's diagnostics
//! chapter (`docs/src/diagnostics/`), built into crdgen for `crdgen explain`, as
//! `rustc --explain` prints its own. The match below makes a page part of every code.

use super::Code;

/// A page of the book's diagnostics chapter.
macro_rules! page {
    ($code:literal) => {
        include_str!(concat!("../../docs/src/diagnostics/", $code, ".md"))
    };
}

impl Code {
    /// Every code, in number order.
    pub const ALL: [Code; 49] = [
        Code::MissingDirectory,
        Code::Io,
        Code::MalformedRust,
        Code::MissingGroupName,
        Code::KindWithoutMetadata,
        Code::UnknownMarker,
        Code::BadMarkerArgument,
        Code::MisplacedMarker,
        Code::MarkerInPlainComment,
        Code::DuplicateKind,
        Code::KindWithoutTypeMeta,
        Code::UnreachableType,
        Code::InvalidName,
        Code::Conflict,
        Code::BadAttribute,
        Code::BadBoilerplate,
        Code::WouldOverwrite,
        Code::Unsupported,
        Code::UndeclaredModule,
        Code::LargeCrd,
        Code::Limit,
        Code::InvalidRule,
        Code::RuleCost,
        Code::NotACrd,
        Code::SchemaNotKept,
        Code::Cluster,
        Code::CrdRemoved,
        Code::ScopeChanged,
        Code::KindChanged,
        Code::VersionRemoved,
        Code::StoredVersionRemoved,
        Code::StorageVersionChanged,
        Code::FieldRemoved,
        Code::TypeChanged,
        Code::FieldRequired,
        Code::DefaultChanged,
        Code::NullableRemoved,
        Code::EnumNarrowed,
        Code::BoundTightened,
        Code::PatternChanged,
        Code::FormatChanged,
        Code::RuleAdded,
        Code::RuleChanged,
        Code::ListTypeChanged,
        Code::PreserveUnknownRemoved,
        Code::SchemaChanged,
        Code::BadCompatConfig,
        Code::BadSample,
        Code::Bug,
    ];

    /// Its page: what it means, an example and the fix, as Markdown.
    pub fn explanation(self) -> &'static str {
        match self {
            Code::MissingDirectory => page!("E0001"),
            Code::Io => page!("E0002"),
            Code::MalformedRust => page!("E0003"),
            Code::MissingGroupName => page!("E0004"),
            Code::KindWithoutMetadata => page!("E0005"),
            Code::UnknownMarker => page!("E0006"),
            Code::BadMarkerArgument => page!("E0007"),
            Code::MisplacedMarker => page!("E0008"),
            Code::MarkerInPlainComment => page!("E0009"),
            Code::DuplicateKind => page!("E0010"),
            Code::KindWithoutTypeMeta => page!("E0011"),
            Code::UnreachableType => page!("E0012"),
            Code::InvalidName => page!("E0013"),
            Code::Conflict => page!("E0014"),
            Code::BadAttribute => page!("E0015"),
            Code::BadBoilerplate => page!("E0016"),
            Code::WouldOverwrite => page!("E0017"),
            Code::Unsupported => page!("E0018"),
            Code::UndeclaredModule => page!("E0019"),
            Code::LargeCrd => page!("E0020"),
            Code::Limit => page!("E0021"),
            Code::InvalidRule => page!("E0022"),
            Code::RuleCost => page!("E0023"),
            Code::NotACrd => page!("E0024"),
            Code::SchemaNotKept => page!("E0025"),
            Code::Cluster => page!("E0026"),
            Code::CrdRemoved => page!("E0027"),
            Code::ScopeChanged => page!("E0028"),
            Code::KindChanged => page!("E0029"),
            Code::VersionRemoved => page!("E0030"),
            Code::StoredVersionRemoved => page!("E0031"),
            Code::StorageVersionChanged => page!("E0032"),
            Code::FieldRemoved => page!("E0033"),
            Code::TypeChanged => page!("E0034"),
            Code::FieldRequired => page!("E0035"),
            Code::DefaultChanged => page!("E0036"),
            Code::NullableRemoved => page!("E0037"),
            Code::EnumNarrowed => page!("E0038"),
            Code::BoundTightened => page!("E0039"),
            Code::PatternChanged => page!("E0040"),
            Code::FormatChanged => page!("E0041"),
            Code::RuleAdded => page!("E0042"),
            Code::RuleChanged => page!("E0043"),
            Code::ListTypeChanged => page!("E0044"),
            Code::PreserveUnknownRemoved => page!("E0045"),
            Code::SchemaChanged => page!("E0046"),
            Code::BadCompatConfig => page!("E0047"),
            Code::BadSample => page!("E0048"),
            Code::Bug => page!("E0999"),
        }
    }

    /// What it means in a line: its page's title (`a bad marker argument`).
    pub fn title(self) -> &'static str {
        let heading = self.explanation().lines().next().unwrap_or_default();
        heading.split_once(": ").map_or(heading, |(_, title)| title)
    }

    /// The code written `E0007` (any case).
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL
            .into_iter()
            .find(|code| code.as_str().eq_ignore_ascii_case(text.trim()))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn chapter() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/diagnostics")
    }

    #[test]
    fn every_page_is_a_code_and_every_code_has_its_page() {
        let mut pages: Vec<String> = std::fs::read_dir(chapter())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with('E'))
            .collect();
        pages.sort();
        let codes: Vec<String> = Code::ALL
            .iter()
            .map(|c| format!("{}.md", c.as_str()))
            .collect();
        assert_eq!(pages, codes);
        let index = std::fs::read_to_string(chapter().join("README.md")).unwrap();
        for code in Code::ALL {
            let page = code.explanation();
            assert!(
                page.starts_with(&format!("# {}: ", code.as_str())),
                "{page}"
            );
            let row = format!("| [{0}]({0}.md) | {1} |", code.as_str(), code.title());
            assert!(index.contains(&row), "the index lacks {row}");
            assert_eq!(Code::parse(&code.as_str().to_lowercase()), Some(code));
        }
        assert_eq!(Code::parse("E1234"), None);
    }

    /// A page's example is its case's first diagnostic as crdgen renders it today.
    #[test]
    fn examples_are_what_crdgen_says() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for code in Code::ALL {
            let page = code.explanation();
            let Some(rest) = page
                .split_once("From `testdata/diagnostics/")
                .map(|(_, r)| r)
            else {
                continue;
            };
            let case = rest.split('`').next().unwrap();
            let example = rest
                .split("```text\n")
                .nth(1)
                .unwrap()
                .split("\n```")
                .next()
                .unwrap();
            let rendered = std::fs::read_to_string(
                root.join("testdata/diagnostics")
                    .join(case)
                    .join("expected.stderr"),
            )
            .unwrap();
            let first = rendered.split("\n\n").next().unwrap();
            assert_eq!(
                example,
                first,
                "{}'s example is not {case}'s output",
                code.as_str()
            );
            assert!(first.contains(&format!("[{}]", code.as_str())), "{case}");
        }
    }
}
