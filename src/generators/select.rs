//! Choosing generators by name, as `generate-groups`' first argument does: names and
//! aliases from the table, each brought along with what its output uses.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::{Generator, Place};
use crate::options::Options;

impl Generator {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        self.definition().name
    }

    /// Whether its output is Rust under OUTPUT_PKG (the others write YAML elsewhere).
    pub fn writes_rust(self) -> bool {
        matches!(self.definition().place, Place::Rust)
    }

    /// Its directory by default, when it writes YAML; `""` for a generator of Rust.
    pub(crate) fn default_dir(self) -> &'static str {
        self.definition()
            .manifest_dir()
            .map_or("", |dir| dir.default)
    }

    fn from_name(name: &str) -> Option<Generator> {
        Generator::ALL.iter().copied().find(|g| {
            let definition = g.definition();
            definition.name == name || definition.aliases.contains(&name)
        })
    }

    /// What `all` selects: every generator but those asked for by name or layout.
    pub fn in_all() -> impl Iterator<Item = Generator> {
        Generator::ALL.into_iter().filter(|g| g.definition().in_all)
    }

    /// Every accepted name, for help texts and error messages.
    pub fn valid_names() -> String {
        let mut names = vec!["all".to_owned()];
        for g in Generator::ALL {
            names.push(g.name().to_owned());
            let aliases = g.definition().aliases;
            names.extend(aliases.iter().map(|a| format!("{a} (= {})", g.name())));
        }
        names.join(", ")
    }

    /// `generators` and every generator whose output they use, and theirs in turn.
    pub fn with_requirements(
        generators: impl IntoIterator<Item = Generator>,
    ) -> BTreeSet<Generator> {
        let mut out = BTreeSet::new();
        let mut pending: Vec<Generator> = generators.into_iter().collect();
        while let Some(g) = pending.pop() {
            if out.insert(g) {
                pending.extend(g.definition().brings);
            }
        }
        out
    }

    /// Parses `register,clone` or `all`.
    pub fn parse_list(list: &str) -> Result<BTreeSet<Generator>, String> {
        let mut named = Vec::new();
        for name in list.split(',').map(str::trim) {
            if name == "all" {
                named.extend(Generator::in_all());
            } else if let Some(g) = Generator::from_name(name) {
                named.push(g);
            } else if name.is_empty() {
                return Err(format!(
                    "empty generator name in `{list}`; valid names: {}",
                    Generator::valid_names()
                ));
            } else {
                return Err(format!(
                    "unknown generator `{name}`; valid names: {}",
                    Generator::valid_names()
                ));
            }
        }
        Ok(Generator::with_requirements(named))
    }
}

/// What the selected generators' definitions say about where a run writes.
impl Options {
    /// Where a YAML generator's files go, relative to the output base; `None` for a
    /// generator of Rust.
    pub fn manifest_dir(&self, generator: Generator) -> Option<PathBuf> {
        let default = generator.definition().manifest_dir()?.default;
        Some(
            self.manifest_dirs
                .get(&generator)
                .cloned()
                .unwrap_or_else(|| default.into()),
        )
    }

    /// The directories crdgen owns, relative to the output base: OUTPUT_PKG when a Rust
    /// generator runs (so that CRDs can be generated on their own, as controller-gen
    /// runs apart from code-generator), and the directory of each YAML generator that
    /// runs.
    pub fn owned_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = Vec::new();
        if self.writes_rust() {
            dirs.push(self.output_pkg.clone());
        }
        dirs.extend(self.generators.iter().filter_map(|g| self.manifest_dir(*g)));
        dirs
    }

    /// The markers that belong to no type which the selected generators read
    /// (`kubebuilder:rbac`): what is scanned for in every file of `--paths`.
    pub(crate) fn marker_names(&self) -> Vec<&'static str> {
        self.generators
            .iter()
            .flat_map(|g| g.definition().markers)
            .map(|marker| marker.name)
            .collect()
    }

    /// Whether any selected generator writes Rust.
    pub fn writes_rust(&self) -> bool {
        self.generators.iter().any(|g| g.writes_rust())
    }

    /// Checks the options: the directories (see `validate_with`), and that a generator
    /// is selected at all.
    pub fn validate(&self) -> Result<(), String> {
        if self.generators.is_empty() {
            return Err(format!(
                "no generators selected; valid names: {}",
                Generator::valid_names()
            ));
        }
        let yaml_dirs: Vec<(&str, PathBuf)> = self
            .generators
            .iter()
            .filter_map(|g| Some((g.definition().manifest_dir()?.flag, self.manifest_dir(*g)?)))
            .collect();
        self.validate_with(&yaml_dirs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_generator_lists() {
        assert_eq!(
            Generator::parse_list("deepcopy").unwrap(),
            BTreeSet::from([Generator::Clone])
        );
        assert_eq!(
            Generator::parse_list("all").unwrap(),
            Generator::ALL
                .iter()
                .copied()
                .filter(|g| *g != Generator::Docs)
                .collect()
        );
        assert_eq!(
            Generator::parse_list("client").unwrap(),
            BTreeSet::from([
                Generator::Register,
                Generator::Conversion,
                Generator::Clone,
                Generator::ApplyConfiguration,
                Generator::Client
            ])
        );
        assert_eq!(
            Generator::parse_list("informer").unwrap(),
            BTreeSet::from([
                Generator::Register,
                Generator::Conversion,
                Generator::Clone,
                Generator::Lister,
                Generator::Informer
            ])
        );
        let err = Generator::parse_list("register,lsiter").unwrap_err();
        assert!(err.contains("unknown generator `lsiter`"), "{err}");
        assert!(err.contains("register"), "{err}");
    }

    #[test]
    fn every_generator_has_one_name() {
        let mut names = BTreeSet::new();
        for g in Generator::ALL {
            let definition = g.definition();
            for name in std::iter::once(&definition.name).chain(definition.aliases) {
                assert!(names.insert(*name), "`{name}` names two generators");
            }
        }
    }
}
