//! Finds and reads the input: `<apis>/<group>/<version>/*.rs`, in sorted order, with
//! paths shown relative to the output base so output never depends on where crdgen
//! ran from.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::diag::{Code, Diagnostic, Diagnostics, Sources};
use crate::options::Options;

#[derive(Debug, Hash)]
pub struct SourceFile {
    /// Path relative to the output base, with `/` separators: what diagnostics show.
    pub path: String,
    /// The module this file is within its version: `None` for the version's own module
    /// file (`mod.rs` or `<version>.rs`), `Some(stem)` for `example_types.rs`.
    pub module: Option<String>,
    pub text: String,
}

#[derive(Debug, Hash)]
pub struct VersionSource {
    pub version: String,
    /// The version's module file first, then its other files sorted by name.
    pub files: Vec<SourceFile>,
}

#[derive(Debug, Hash)]
pub struct GroupSource {
    /// The group's directory name, which is also its Rust module name.
    pub dir: String,
    /// `<group>/mod.rs` or `<group>.rs`, where a group-wide `+groupName` may live.
    pub module_file: Option<SourceFile>,
    pub versions: Vec<VersionSource>,
}

#[derive(Debug, Default, Hash)]
pub struct Discovered {
    pub groups: Vec<GroupSource>,
    /// The Rust files besides the group versions' that `+kubebuilder:rbac` and
    /// `+kubebuilder:webhook` markers are read from, sorted by path.
    pub marker_files: Vec<SourceFile>,
    /// The samples the API reference shows (`config/samples/*.yaml`), when the docs
    /// generator runs, sorted by path: input like the types, so that a changed sample
    /// makes the run generate again (and build.rs run again).
    pub samples: Vec<SourceFile>,
    /// Every file and directory read, for `cargo:rerun-if-changed`.
    pub inputs: Vec<PathBuf>,
}

/// Reads every group and version the options name. Groups and versions are sorted
/// and de-duplicated, so the order they were given in does not matter. With
/// `reads_markers`, also the files of `--paths` that markers belonging to no type are
/// read from.
pub fn discover(
    opts: &Options,
    reads_markers: bool,
    sources: &mut Sources,
    diags: &mut Diagnostics,
) -> Discovered {
    let mut found = Discovered::default();
    let apis_dir = opts.output_base.join(&opts.apis_pkg);
    let display = |p: &Path| display_path(&opts.output_base, p);

    let mut groups: Vec<_> = opts.groups.iter().collect();
    groups.sort_by(|a, b| a.group.cmp(&b.group));
    groups.dedup_by(|a, b| a.group == b.group);

    for gv in groups {
        let group_dir = apis_dir.join(&gv.group);
        if !group_dir.is_dir() {
            diags.push(
                Diagnostic::error(
                    Code::MissingDirectory,
                    format!("group directory `{}` does not exist", gv.group),
                )
                .at_path(display(&group_dir))
                .hint(existing_hint(&apis_dir, &display(&apis_dir), "groups")),
            );
            continue;
        }
        found.inputs.push(group_dir.clone());
        let module_file = [
            group_dir.join("mod.rs"),
            apis_dir.join(format!("{}.rs", gv.group)),
        ]
        .into_iter()
        .find(|p| p.is_file())
        .and_then(|p| read(&p, None, &display, &mut found.inputs, sources, diags));

        let mut versions = gv.versions.clone();
        versions.sort();
        versions.dedup();
        let mut version_sources = Vec::new();
        for version in versions {
            let dir = group_dir.join(&version);
            let sibling = group_dir.join(format!("{version}.rs"));
            let module_path = [dir.join("mod.rs"), sibling.clone()]
                .into_iter()
                .find(|p| p.is_file());
            let Some(module_path) = module_path else {
                let (message, hint) = if dir.is_dir() {
                    (
                        format!("version directory `{}/{version}` has no mod.rs", gv.group),
                        "add a mod.rs that declares the version's type files, e.g. `pub mod example_types;`".to_owned(),
                    )
                } else {
                    (
                        format!("version directory `{}/{version}` does not exist", gv.group),
                        existing_hint(&group_dir, &display(&group_dir), "versions"),
                    )
                };
                diags.push(
                    Diagnostic::error(Code::MissingDirectory, message)
                        .at_path(display(&dir))
                        .hint(hint),
                );
                continue;
            };
            let mut files = Vec::new();
            files.extend(read(
                &module_path,
                None,
                &display,
                &mut found.inputs,
                sources,
                diags,
            ));
            if dir.is_dir() {
                found.inputs.push(dir.clone());
                files.extend(module_files(
                    &dir,
                    &display,
                    &mut found.inputs,
                    sources,
                    diags,
                ));
            }
            version_sources.push(VersionSource { version, files });
        }
        found.groups.push(GroupSource {
            dir: gv.group.clone(),
            module_file,
            versions: version_sources,
        });
    }
    if reads_markers {
        found.marker_files = marker_files(opts, &display, &mut found.inputs, sources, diags);
    }
    if opts.generators.contains(&crate::Generator::Docs) {
        found.samples = samples(opts, &display, &mut found.inputs, sources, diags);
    }
    found
}

/// The `.yaml` and `.yml` files of the samples directory, by name; none without it.
fn samples(
    opts: &Options,
    display: &impl Fn(&Path) -> String,
    inputs: &mut Vec<PathBuf>,
    sources: &mut Sources,
    diags: &mut Diagnostics,
) -> Vec<SourceFile> {
    let dir = opts.output_base.join(crate::naming::docs::SAMPLES_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    inputs.push(dir.clone());
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|path| read(path, None, display, inputs, sources, diags))
        .collect()
}

impl Discovered {
    /// Every file markers that belong to no type are read from: the group versions'
    /// files, read already, and the other files of APIS_PKG and `--paths`; by path.
    pub fn marker_sources(&self) -> Vec<&SourceFile> {
        let groups = self.groups.iter().flat_map(|g| {
            g.module_file
                .iter()
                .chain(g.versions.iter().flat_map(|v| &v.files))
        });
        let mut files: Vec<&SourceFile> = groups.chain(&self.marker_files).collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }

    /// Only the groups that may make the API groups `names` (`bcrds.example.com`), and
    /// those their types may name, transitively: a group's name is written out in its
    /// files (`+groupName=…`, or `group = "…"` on a kube-derive kind), and a path into
    /// another group names that group's directory, so what is dropped can play no part
    /// in those groups' model. The marker files go too: they hold no types. For placing
    /// a few findings without parsing every group.
    pub fn narrowed_to(mut self, names: &BTreeSet<&str>) -> Discovered {
        fn texts(g: &GroupSource) -> impl Iterator<Item = &str> {
            g.module_file
                .iter()
                .chain(g.versions.iter().flat_map(|v| &v.files))
                .map(|f| f.text.as_str())
        }
        // By index into `self.groups`: whether each is kept, and those to look into.
        let mut kept: Vec<bool> = self
            .groups
            .iter()
            .map(|g| texts(g).any(|t| names.iter().any(|n| t.contains(n))))
            .collect();
        let mut todo: Vec<usize> = (0..kept.len()).filter(|&i| kept[i]).collect();
        while let Some(i) = todo.pop() {
            let named: BTreeSet<&str> = texts(&self.groups[i]).flat_map(identifiers).collect();
            for (j, other) in self.groups.iter().enumerate() {
                if !kept[j] && named.contains(other.dir.as_str()) {
                    kept[j] = true;
                    todo.push(j);
                }
            }
        }
        let mut kept = kept.into_iter();
        self.groups.retain(|_| kept.next().unwrap_or(false));
        self.marker_files.clear();
        self
    }
}

/// The words of Rust source that could be identifiers (a superset: words in comments
/// and strings too).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// Every `.rs` file of APIS_PKG and under the marker paths (`--paths`, default `src`)
/// that discovery has not read already, but none in OUTPUT_PKG (generated, and never
/// marked) or a `target` directory (cargo's): with the group versions' files, what
/// `+kubebuilder:rbac` and `+kubebuilder:webhook` are read from, as controller-gen reads
/// `paths=./...`. A path named on purpose must exist.
fn marker_files(
    opts: &Options,
    display: &impl Fn(&Path) -> String,
    inputs: &mut Vec<PathBuf>,
    sources: &mut Sources,
    diags: &mut Diagnostics,
) -> Vec<SourceFile> {
    let default = [PathBuf::from(crate::options::DEFAULT_MARKER_PATH)];
    let (named_paths, named) = match &opts.marker_paths {
        Some(paths) => (paths.as_slice(), true),
        None => (default.as_slice(), false),
    };
    let apis = [opts.apis_pkg.clone()];
    let paths = apis
        .iter()
        .map(|p| (p, false))
        .chain(named_paths.iter().map(|p| (p, named)));
    let skipped = opts.output_base.join(&opts.output_pkg);
    let read_already: std::collections::HashSet<PathBuf> = inputs.iter().cloned().collect();
    let mut files = std::collections::BTreeSet::new();
    for (path, named) in paths {
        let full = opts.output_base.join(path);
        if !full.exists() {
            if named {
                diags.push(
                    Diagnostic::error(
                        Code::MissingDirectory,
                        format!("--paths names `{}`, which does not exist", path.display()),
                    )
                    .at_path(display(&full))
                    .hint("name the files or directories (relative to --output-base) that hold `+kubebuilder:rbac` or `+kubebuilder:webhook` markers"),
                );
            }
            continue;
        }
        inputs.push(full.clone());
        let walk = walkdir::WalkDir::new(&full)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                e.path() != skipped && !(e.file_type().is_dir() && e.file_name() == "target")
            })
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file() && e.path().extension() == Some("rs".as_ref()));
        for entry in walk.filter(|e| !read_already.contains(e.path())) {
            files.insert(entry.path().to_owned());
        }
    }
    files
        .into_iter()
        .filter_map(|path| read(&path, None, display, inputs, sources, diags))
        .collect()
}

/// The most crdgen reads of one API type file.
pub const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// Why a file could not be read as text.
pub enum ReadError {
    Io(std::io::Error),
    /// Longer than the limit, in bytes: `/dev/zero` must not fill the memory.
    TooLarge(u64),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLarge(limit) => write!(f, "it is larger than {limit} bytes"),
        }
    }
}

impl ReadError {
    /// The diagnostic code: a limit, or a file that cannot be read.
    pub fn code(&self, io: Code) -> Code {
        match self {
            ReadError::Io(_) => io,
            ReadError::TooLarge(_) => Code::Limit,
        }
    }
}

/// Reads at most `limit` bytes of UTF-8 text from `path`.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    use std::io::Read as _;
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let mut text = String::new();
    file.take(limit + 1)
        .read_to_string(&mut text)
        .map_err(ReadError::Io)?;
    if text.len() as u64 > limit {
        return Err(ReadError::TooLarge(limit));
    }
    Ok(text)
}

/// The file modules of a version directory: `name.rs`, or `name/mod.rs`, followed through
/// symbolic links (a linked file is read like any other; a broken link is an error).
fn module_files(
    dir: &Path,
    display: &impl Fn(&Path) -> String,
    inputs: &mut Vec<PathBuf>,
    sources: &mut Sources,
    diags: &mut Diagnostics,
) -> Vec<SourceFile> {
    let mut files: Vec<SourceFile> = Vec::new();
    let entries = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .max_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok);
    for entry in entries {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|s| s.to_str()) else {
            continue;
        };
        let (stem, file) = match name.strip_suffix(".rs") {
            Some("mod") => continue,
            Some(stem) if !path.is_dir() => (stem, path.to_owned()),
            Some(_) => continue,
            None if path.join("mod.rs").exists() => (name, path.join("mod.rs")),
            None => continue,
        };
        if let Some(other) = files.iter().find(|f| f.module.as_deref() == Some(stem)) {
            diags.push(
                Diagnostic::error(
                    Code::Conflict,
                    format!(
                        "module `{stem}` has two files: `{}` and `{}`",
                        other.path,
                        display(&file)
                    ),
                )
                .at_path(display(&file))
                .hint("Rust refuses a module with both `name.rs` and `name/mod.rs`: keep one"),
            );
            continue;
        }
        files.extend(read(
            &file,
            Some(stem.to_owned()),
            display,
            inputs,
            sources,
            diags,
        ));
    }
    files
}

fn read(
    path: &Path,
    module: Option<String>,
    display: &impl Fn(&Path) -> String,
    inputs: &mut Vec<PathBuf>,
    sources: &mut Sources,
    diags: &mut Diagnostics,
) -> Option<SourceFile> {
    let shown = display(path);
    inputs.push(path.to_owned());
    match read_text(path, MAX_SOURCE_BYTES) {
        Ok(text) => {
            sources.insert(shown.clone(), text.clone());
            Some(SourceFile {
                path: shown,
                module,
                text,
            })
        }
        Err(err) => {
            diags.push(
                Diagnostic::error(err.code(Code::Io), format!("cannot read `{shown}`: {err}"))
                    .at_path(shown)
                    .hint("API type files must be readable UTF-8 text of at most 16 MiB"),
            );
            None
        }
    }
}

/// `path` relative to `base` with `/` separators, or as given when outside it.
pub fn display_path(base: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn existing_hint(dir: &Path, shown: &str, what: &str) -> String {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    names.sort();
    if names.is_empty() {
        format!("`{shown}` has no {what} directories")
    } else {
        format!("existing {what}: {}", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(dir: &str, text: &str) -> GroupSource {
        GroupSource {
            dir: dir.into(),
            module_file: None,
            versions: vec![VersionSource {
                version: "v1".into(),
                files: vec![SourceFile {
                    path: format!("pkg/apis/{dir}/v1/mod.rs"),
                    module: None,
                    text: text.into(),
                }],
            }],
        }
    }

    #[test]
    fn narrowing_keeps_the_groups_named_and_those_their_types_reach() {
        let discovered = Discovered {
            groups: vec![
                group(
                    "shop",
                    "//! +groupName=shop.example.com\nuse crate::apis::parts::v1::Part;",
                ),
                // Reached from shop only through parts.
                group(
                    "parts",
                    "pub struct Part { pub bolt: super::super::bolts::v1::Bolt }",
                ),
                group("bolts", "pub struct Bolt {}"),
                // A longer name with shop's as its prefix, and a group named by none.
                group("shop2", "//! +groupName=shop2.example.com"),
                group("partsx", "pub struct Other {}"),
            ],
            ..Discovered::default()
        };
        let narrowed = discovered.narrowed_to(&BTreeSet::from(["shop.example.com"]));
        let dirs: Vec<&str> = narrowed.groups.iter().map(|g| g.dir.as_str()).collect();
        assert_eq!(dirs, ["shop", "parts", "bolts"]);
    }

    #[test]
    fn reads_text_up_to_the_limit_and_no_further() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("types.rs");
        std::fs::write(&path, "x".repeat(16)).unwrap();
        assert_eq!(
            read_text(&path, 16).ok().as_deref(),
            Some("x".repeat(16).as_str())
        );
        assert!(matches!(read_text(&path, 15), Err(ReadError::TooLarge(15))));
        // An endless file stops at the limit too.
        assert!(matches!(
            read_text(Path::new("/dev/zero"), MAX_SOURCE_BYTES),
            Err(ReadError::TooLarge(MAX_SOURCE_BYTES))
        ));
        assert!(matches!(
            read_text(&dir.path().join("gone.rs"), 16),
            Err(ReadError::Io(_))
        ));
    }
}
