//! `crdgen import`: CRDs in, an API package crdgen reads out, with every validation the
//! schemas hold written as markers. Each run proves its own output: the package is
//! generated back into CRDs in memory and compared with the input, schema path by
//! schema path, and every path that does not come back is a warning (E0025).

pub(crate) mod crd;
mod known;
mod markers;
pub(crate) mod read;
mod render;
mod roundtrip;
mod schema;

use std::collections::BTreeMap;
use std::path::PathBuf;

pub use read::Input;

use crate::diag::{Code, Diagnostic, Diagnostics, Sources};
use crate::emit::OutputSet;
use crate::emit::header::{Header, IMPORT_DEFAULT};
use crate::naming::import::{TypeNames, group_dirs, kind_module};
use crate::options::HeaderSource;
use crate::pipeline::{Error, Files};
use crate::sink::Written;
use markers::{marker, quote};
use read::Found;

/// What to import, and where to.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    pub inputs: Vec<Input>,
    /// The directory `apis_pkg` is relative to.
    pub output_base: PathBuf,
    /// Where the packages go: `<apis_pkg>/<group>/<version>/`.
    pub apis_pkg: PathBuf,
    pub header: HeaderSource,
    pub year: Option<String>,
    /// Where the API reference of what is imported goes, relative to the output base
    /// (the docs generator's pages, as `generate-groups docs` writes them); none without.
    pub docs_dir: Option<PathBuf>,
}

/// What an import did.
pub struct Imported {
    pub written: Written,
    /// The Kubernetes version whose types the packages use, where they use any.
    pub kube_version: Option<crate::KubeVersion>,
    /// The `GROUP:VERSION,…` arguments of `generate-groups` for what was imported.
    pub groups: Vec<String>,
    /// Warnings, rendered.
    pub warnings: String,
}

/// One kind in one version, ready to be laid out.
struct KindVersion<'a> {
    found: &'a Found,
    version: &'a crd::Version,
    /// The version's place in the CRD's `spec.versions`.
    index: usize,
    /// Whether the CRD has more than one version (so its storage one is marked).
    several: bool,
}

/// What kube-apiserver of `kube` refuses in the CRDs read (a default their own schema
/// refuses): E0024 at each such CRD, in the apiserver's words. The forms an import does
/// not keep (`oneOf`, say) are checked too, as the apiserver checks the CRD given.
#[cfg(feature = "cli")]
fn refused(found: &[read::Found], kube: crate::KubeVersion, diags: &mut Diagnostics) {
    for crd in found {
        let errors = crdgen_runtime::crd::crd_errors(&crd.raw, kube.minor());
        if errors.is_empty() {
            continue;
        }
        let words: Vec<String> = errors.iter().map(ToString::to_string).collect();
        diags.push(
            Diagnostic::error(
                Code::NotACrd,
                format!(
                    "kube-apiserver {kube} refuses the CustomResourceDefinition `{}`: {}",
                    crd.crd_name(),
                    words.join("; ")
                ),
            )
            .at(&crd.file, crd.pos)
            .hint("each default must meet its own field's validations and rules: mend the CRD where it is made"),
        );
    }
}

/// Reads the CRDs of `opts.inputs` and writes their packages under `opts.apis_pkg`.
pub fn import(opts: &ImportOptions) -> Result<Imported, Error> {
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let year = opts.year.as_deref();
    let header = match &opts.header {
        // Not generate-groups' default, which tells the reader to change the Rust types.
        HeaderSource::Default => {
            Header::from_text(IMPORT_DEFAULT, "boilerplate/import.rs.txt", year)
        }
        source => Header::load(source, year, &opts.output_base),
    }
    .map_err(|d| Error::diagnostics(vec![d], &sources))?;
    let mut found = read::read(&opts.inputs, &mut sources, &mut diags);
    #[cfg(feature = "cli")]
    refused(&found, crate::KubeVersion::latest(), &mut diags);
    if found.is_empty() && !diags.has_errors() {
        diags.push(
            Diagnostic::error(Code::NotACrd, "no CustomResourceDefinition in the input")
                .hint("give CRD manifests (`kind: CustomResourceDefinition`), a directory of them, or `-`"),
        );
    }
    let packages = packages(&found, &mut diags);
    if diags.has_errors() {
        return Err(Error::diagnostics(diags.into_sorted(), &sources));
    }
    let (mut output, groups, kube_version) =
        lay_out(&packages, &header, &opts.apis_pkg, &mut diags);
    let package = roundtrip::Package {
        output: &output,
        apis_pkg: &opts.apis_pkg,
        groups: &groups,
        kube_version,
    };
    let reference = roundtrip::check(
        &package,
        &mut found,
        opts.docs_dir.as_deref(),
        &opts.output_base,
        &mut diags,
    )
    .map_err(|e| match e {
        roundtrip::Failed::Diagnostic(d) => Error::diagnostics(vec![d], &sources),
        roundtrip::Failed::Reference(e) => e,
    })?;
    if let Some((dir, files)) = reference {
        output.owned_dirs.push(dir);
        output.files.extend(files);
    }
    if diags.has_errors() {
        return Err(Error::diagnostics(diags.into_sorted(), &sources));
    }
    let warnings: String = diags
        .into_sorted()
        .iter()
        .map(|d| d.render(&sources))
        .collect();
    let files = Files::new(output, sources);
    let _lock = crate::sink::lock(&opts.output_base)
        .map_err(|d| Error::diagnostics(vec![d], &Sources::default()))?;
    let written = files.write(&opts.output_base)?;
    Ok(Imported {
        written,
        kube_version,
        groups,
        warnings,
    })
}

/// The type names of an imported file's `use` lines (but the Kubernetes types a kind
/// may shadow) and of the prelude, which no kind may take.
fn taken_names() -> impl Iterator<Item = &'static str> {
    let imported = render::IMPORTS.iter().map(|(name, _)| *name);
    imported.chain(crate::naming::import::PRELUDE_NAMES.iter().copied())
}

/// The kinds of each group version: group → version → kinds.
type Packages<'a> = BTreeMap<&'a str, BTreeMap<&'a str, Vec<KindVersion<'a>>>>;

/// Every CRD's versions, by group and version; two CRDs of one group and kind are an
/// error, as are kind names Rust or the package cannot take.
fn packages<'a>(found: &'a [Found], diags: &mut Diagnostics) -> Packages<'a> {
    let mut packages: Packages = BTreeMap::new();
    let mut seen: BTreeMap<(&str, &str), &Found> = BTreeMap::new();
    for f in found {
        let spec = &f.crd.spec;
        let kind = spec.names.kind.as_str();
        if let Some(first) = seen.insert((&spec.group, kind), f) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateKind,
                    format!(
                        "the kind {kind} of {} is defined twice (first at {}:{})",
                        spec.group, first.file, first.pos.line
                    ),
                )
                .at(&f.file, f.pos)
                .hint("give each CRD once"),
            );
            continue;
        }
        let taken = taken_names().any(|name| name == kind);
        if !crate::naming::is_identifier(kind) || crate::naming::is_keyword(kind) || taken {
            diags.push(
                Diagnostic::error(Code::InvalidName, format!("the kind `{kind}` cannot name a Rust type of an imported package"))
                    .at(&f.file, f.pos)
                    .hint(match taken {
                        true => "the package's files import a type of that name; rename the kind in a copy of the CRD",
                        false => "a kind is an UpperCamelCase name, as the apiserver requires",
                    }),
            );
            continue;
        }
        let several = spec.versions.len() > 1;
        for (index, version) in spec.versions.iter().enumerate() {
            if version.schema.is_none() {
                diags.push(
                    Diagnostic::error(
                        Code::NotACrd,
                        format!("{kind} {} has no schema", version.name),
                    )
                    .at(&f.file, f.pos)
                    .hint("a v1 CRD version has `schema.openAPIV3Schema`"),
                );
                continue;
            }
            packages
                .entry(&spec.group)
                .or_default()
                .entry(&version.name)
                .or_default()
                .push(KindVersion {
                    found: f,
                    version,
                    index,
                    several,
                });
        }
    }
    packages
}

/// The files of every package, the `generate-groups` argument of each group, and the
/// Kubernetes version whose types the packages use, if they use any.
fn lay_out(
    packages: &Packages,
    header: &Header,
    apis_pkg: &std::path::Path,
    diags: &mut Diagnostics,
) -> (OutputSet, Vec<String>, Option<crate::KubeVersion>) {
    let group_names: Vec<&str> = packages.keys().copied().collect();
    let dirs = group_dirs(&group_names);
    let mut output = OutputSet {
        owned_dirs: Vec::new(),
        files: BTreeMap::new(),
    };
    let mut groups = Vec::new();
    let mut shapes = known::Shapes::default();
    // Each kind's file: its types are built in order (names and the Kubernetes types
    // recognised carry over from kind to kind), then written as text on all cores.
    let mut kind_files = Vec::new();
    for ((group, versions), dir) in packages.iter().zip(&dirs) {
        let group_dir = apis_pkg.join(dir);
        output.owned_dirs.push(group_dir.clone());
        let mut group_mod =
            format!("//! The {group} API group, imported from its CRDs by `crdgen import`.\n\n");
        for (version, kinds) in versions {
            group_mod.push_str(&format!("pub mod {version};\n"));
            let kind_names = kinds.iter().map(|k| k.found.crd.spec.names.kind.as_str());
            shapes.exclude(kind_names.clone());
            let mut names = TypeNames::with(
                taken_names().chain(known::TYPES.iter().map(|(n, _)| *n)),
                kind_names,
            );
            let mut version_mod = format!(
                "//! Version {version} of the {group} API group.\n//!\n//! {}\n\n",
                marker(&crate::markers::GROUP_NAME, Some(group))
            );
            let mut modules = Vec::new();
            for kv in kinds {
                let kind = &kv.found.crd.spec.names.kind;
                let module = kind_module(kind);
                let mut builder = schema::Builder {
                    names: &mut names,
                    shapes: &mut shapes,
                    items: Vec::new(),
                };
                let Some(root) = kv.found.schema(kv.index) else {
                    continue;
                };
                let kind_struct = builder.kind(kind, root);
                kind_files.push((
                    group_dir.join(version).join(format!("{module}.rs")),
                    kind_struct,
                    kind_markers(kv, diags),
                    builder.items,
                ));
                modules.push(module);
            }
            modules.sort();
            for module in &modules {
                version_mod.push_str(&format!("pub mod {module};\n"));
            }
            version_mod.push('\n');
            for module in &modules {
                version_mod.push_str(&format!("pub use {module}::*;\n"));
            }
            output.files.insert(
                group_dir.join(version).join("mod.rs"),
                header.rust_file(&[&version_mod]),
            );
        }
        output
            .files
            .insert(group_dir.join("mod.rs"), header.rust_file(&[&group_mod]));
        let versions: Vec<&str> = versions.keys().copied().collect();
        groups.push(format!("{dir}:{}", versions.join(",")));
    }
    let written = crate::parallel::map(&kind_files, |(path, kind, markers, items)| {
        let text = render::kind_file(kind, markers, items);
        (path.clone(), header.rust_file(&[&text]))
    });
    output.files.extend(written);
    (output, groups, shapes.version())
}

/// The markers of a kind's struct that say what its CRD says beside the schema: its
/// names, scope, subresources, columns, selectable fields and version flags.
fn kind_markers(kv: &KindVersion, diags: &mut Diagnostics) -> Vec<String> {
    use crate::markers as m;
    let crd = &kv.found.crd;
    let (names, version) = (&crd.spec.names, kv.version);
    let mut out = vec![
        marker(&m::OBJECT_ROOT, Some("true")),
        marker(&m::GENCLIENT, None),
    ];
    let list = |items: &[String]| {
        (!items.is_empty()).then(|| items.iter().map(|i| quote(i)).collect::<Vec<_>>().join(";"))
    };
    let lower = names.kind.to_lowercase();
    let mut resource = vec![format!("path={}", names.plural)];
    if let Some(singular) = names.singular.as_ref().filter(|s| **s != lower) {
        resource.push(format!("singular={singular}"));
    }
    if let Some(short) = list(&names.short_names) {
        resource.push(format!("shortName={short}"));
    }
    if let Some(categories) = list(&names.categories) {
        resource.push(format!("categories={categories}"));
    }
    if crd.spec.scope == "Cluster" {
        resource.push("scope=Cluster".to_owned());
    }
    out.push(format!("+{}:{}", m::RESOURCE.name, resource.join(",")));
    let list_kind = format!("{}List", names.kind);
    if names.list_kind.as_ref().is_some_and(|l| *l != list_kind) {
        diags.push(
            Diagnostic::warning(
                Code::SchemaNotKept,
                format!(
                    "{}: the list kind `{}` becomes `{list_kind}`, the only one crdgen writes",
                    names.kind,
                    names.list_kind.as_deref().unwrap_or_default()
                ),
            )
            .at(&kv.found.file, kv.found.pos)
            .hint("clients find lists by the plural; the list kind shows only in list responses"),
        );
    }
    if version.subresources.status.is_some() {
        out.push(marker(&m::STATUS, None));
    }
    if let Some(scale) = &version.subresources.scale {
        let mut args = vec![
            format!("specpath={}", quote(&scale.spec_replicas_path)),
            format!("statuspath={}", quote(&scale.status_replicas_path)),
        ];
        if let Some(selector) = &scale.label_selector_path {
            args.push(format!("selectorpath={}", quote(selector)));
        }
        out.push(format!("+{}:{}", m::SCALE.name, args.join(",")));
    }
    for column in &version.additional_printer_columns {
        let mut args = vec![
            format!("name={}", quote(&column.name)),
            format!("type={}", quote(&column.type_)),
            format!("JSONPath={}", quote(&column.json_path)),
        ];
        if let Some(description) = &column.description {
            args.push(format!("description={}", quote(description)));
        }
        if let Some(format) = &column.format {
            args.push(format!("format={}", quote(format)));
        }
        if let Some(priority) = column.priority.filter(|p| *p != 0) {
            args.push(format!("priority={priority}"));
        }
        out.push(format!("+{}:{}", m::PRINT_COLUMN.name, args.join(",")));
    }
    for field in &version.selectable_fields {
        out.push(format!(
            "+{}:JSONPath={}",
            m::SELECTABLE_FIELD.name,
            quote(&field.json_path)
        ));
    }
    if kv.several && version.storage {
        out.push(marker(&m::STORAGE_VERSION, None));
    }
    if !version.served {
        out.push(marker(&m::UNSERVED_VERSION, None));
    }
    if version.deprecated {
        out.push(match &version.deprecation_warning {
            Some(warning) => format!("+{}:warning={}", m::DEPRECATED_VERSION.name, quote(warning)),
            None => marker(&m::DEPRECATED_VERSION, None),
        });
    }
    if version.storage
        && crd
            .spec
            .conversion
            .as_ref()
            .is_some_and(|c| c.strategy == "Webhook")
    {
        out.push(marker(&m::CONVERSION_WEBHOOK, None));
    }
    let pairs = |map: &BTreeMap<String, String>| {
        map.iter()
            .map(|(k, v)| quote(&format!("{k}={v}")))
            .collect::<Vec<_>>()
            .join(";")
    };
    // controller-gen's version stamp says which tool wrote the CRD, which is no longer so.
    let annotations: BTreeMap<String, String> = crd
        .metadata
        .annotations
        .iter()
        .filter(|(k, _)| *k != "controller-gen.kubebuilder.io/version")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut metadata = Vec::new();
    if !annotations.is_empty() {
        metadata.push(format!("annotations={}", pairs(&annotations)));
    }
    if !crd.metadata.labels.is_empty() {
        metadata.push(format!("labels={}", pairs(&crd.metadata.labels)));
    }
    if !metadata.is_empty() {
        out.push(format!("+{}:{}", m::METADATA.name, metadata.join(",")));
    }
    out
}
