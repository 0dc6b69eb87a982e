//! Generators: each reads the model and adds modules to the output tree. They share
//! one way of naming the user's types, so they can never disagree about a path.

mod applyconfig;
mod client;
mod clone;
mod conversion;
mod crd;
mod docs;
mod informer;
mod lister;
mod rbac;
mod register;
mod select;
mod webhook;

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use crate::diag::Diagnostics;
use crate::emit::RustModule;
use crate::markers::MarkerDef;
use crate::model::{Model, Target, TypeKey, TypeRef, Version};
use crate::naming::{self, ModulePath};
use crate::options::Options;
use crate::scan::Found;
use crate::source::SourceFile;

pub use crate::options::Generator;
pub(crate) use crd::each_value as each_crd_value;

/// Each generator's definition, by the module the list names (`options::generator_list`).
macro_rules! definitions {
    ($($(#[$doc:meta])* $variant:ident => $module:ident,)*) => {
        impl Generator {
            /// Everything about this generator.
            pub(crate) fn definition(self) -> &'static Definition {
                match self {
                    $(Generator::$variant => &$module::GENERATOR,)*
                }
            }
        }
    };
}

crate::options::generator_list!(definitions);

/// One generator, as controller-tools' `genall.Generator` has them: its name, what it
/// brings along, the markers it reads, where its files go, and its run.
pub(crate) struct Definition {
    /// The name on the command line.
    pub name: &'static str,
    /// Other names it answers to (`deepcopy` for `clone`).
    pub aliases: &'static [&'static str],
    /// Generators whose output this one's output uses: they run with it.
    pub brings: &'static [Generator],
    /// Markers that belong to no type, which it reads from every scanned file (the API
    /// types and `--paths`): `+kubebuilder:rbac`.
    pub markers: &'static [&'static MarkerDef],
    /// Checks those markers, with the parsing of the sources: a mistake in one ends the
    /// run before the model is built, as a mistake in a type does.
    pub check_markers: fn(&[Found], &mut Diagnostics),
    /// Where its files go.
    pub place: Place,
    /// Its output uses crdgen-runtime, and so checks that it builds with the release it
    /// was generated for.
    pub uses_runtime: bool,
    /// Reads the model (and its markers) and adds to its output.
    pub run: fn(&Context<'_>, &mut Output, &mut Diagnostics),
    /// `all` selects it. A generator of what not every project publishes (the API
    /// reference) is asked for by name, or by the layout (`--docs-dir`, a `docs/api`).
    pub in_all: bool,
}

/// Where a generator's files go.
pub(crate) enum Place {
    /// Rust modules under OUTPUT_PKG (one includable file for build.rs).
    Rust,
    /// YAML files in a directory of its own, which crdgen owns.
    Manifests(ManifestDir),
}

/// A YAML generator's directory: the command line's flag for it and its default, and
/// the directory under `OUT_DIR` build.rs writes it to.
pub(crate) struct ManifestDir {
    pub flag: &'static str,
    pub default: &'static str,
    pub build: &'static str,
}

impl Definition {
    /// A generator of Rust modules that brings nothing and reads no marker of its own.
    const fn rust(
        name: &'static str,
        run: fn(&Context<'_>, &mut Output, &mut Diagnostics),
    ) -> Self {
        Definition {
            name,
            aliases: &[],
            brings: &[],
            markers: &[],
            check_markers: no_markers,
            place: Place::Rust,
            uses_runtime: false,
            run,
            in_all: true,
        }
    }

    /// A generator of YAML files in a directory of its own.
    const fn manifests(
        name: &'static str,
        dir: ManifestDir,
        run: fn(&Context<'_>, &mut Output, &mut Diagnostics),
    ) -> Self {
        Definition {
            place: Place::Manifests(dir),
            ..Definition::rust(name, run)
        }
    }

    /// Also answers to `aliases`.
    const fn aliases(self, aliases: &'static [&'static str]) -> Self {
        Definition { aliases, ..self }
    }

    /// Brings `generators` along: its output uses theirs.
    const fn brings(self, generators: &'static [Generator]) -> Self {
        Definition {
            brings: generators,
            ..self
        }
    }

    /// `all` leaves it out.
    const fn not_in_all(self) -> Self {
        Definition {
            in_all: false,
            ..self
        }
    }

    /// Its output uses crdgen-runtime.
    const fn on_runtime(self) -> Self {
        Definition {
            uses_runtime: true,
            ..self
        }
    }

    /// Reads `markers` from every scanned file, checked by `check`.
    const fn reads(
        self,
        markers: &'static [&'static MarkerDef],
        check: fn(&[Found], &mut Diagnostics),
    ) -> Self {
        Definition {
            markers,
            check_markers: check,
            ..self
        }
    }

    /// Its directory, when it writes YAML.
    pub fn manifest_dir(&self) -> Option<&ManifestDir> {
        match &self.place {
            Place::Manifests(dir) => Some(dir),
            Place::Rust => None,
        }
    }
}

/// What every generator gets to read.
pub struct Context<'a> {
    pub model: &'a Model,
    /// The markers that belong to no type, of every generator that runs, in file order.
    pub markers: &'a [Found],
    pub opts: &'a Options,
    /// The samples the API reference shows, read with the input.
    samples: &'a [SourceFile],
    /// The model's CRDs, built in one pass for the generators that read them.
    crds: OnceLock<Mutex<CrdPass>>,
}

/// What one pass over the model's CRDs gives the generators that read them: each CRD
/// is built once (schemas, rules checked and costed), then written as YAML for `crd`
/// and read into its kinds' reference sections for `docs`, on all cores, and let go.
#[derive(Default)]
struct CrdPass {
    files: Vec<(String, String)>,
    sections: Vec<docs::KindSections>,
    /// What building the CRDs found: `crd`'s to report, or `docs`' when it runs alone.
    built: Diagnostics,
    /// What reading the reference found (samples the CRDs refuse).
    documented: Diagnostics,
}

impl<'a> Context<'a> {
    pub fn new(
        model: &'a Model,
        markers: &'a [Found],
        opts: &'a Options,
        samples: &'a [SourceFile],
    ) -> Context<'a> {
        Context {
            model,
            markers,
            opts,
            samples,
            crds: OnceLock::new(),
        }
    }

    /// The pass over the CRDs, made by the first generator that asks.
    fn crd_pass(&self) -> std::sync::MutexGuard<'_, CrdPass> {
        let pass = self.crds.get_or_init(|| {
            let wants = |g| self.opts.generators.contains(&g);
            let (files, docs) = (wants(Generator::Crd), wants(Generator::Docs));
            let mut pass = CrdPass::default();
            let samples = match docs {
                true => docs::samples(self.samples, &mut pass.documented),
                false => Vec::new(),
            };
            let built = crd::each_crd(self.model, self.opts, &mut pass.built, |crd, kv, found| {
                let mut documented = Diagnostics::default();
                let file = files.then(|| crd::file(&crd, kv, found));
                let sections =
                    docs.then(|| docs::sections(self, &crd, kv, &samples, &mut documented));
                (file, sections, documented)
            });
            for (file, sections, documented) in built {
                pass.files.extend(file);
                pass.sections.extend(sections);
                pass.documented.extend(documented.into_sorted());
            }
            Mutex::new(pass)
        });
        pass.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Each CRD's file, and what building them found.
    fn crd_files(&self) -> (Vec<(String, String)>, Diagnostics) {
        let mut pass = self.crd_pass();
        (
            std::mem::take(&mut pass.files),
            std::mem::take(&mut pass.built),
        )
    }

    /// Each kind's reference sections, and what reading them found (with what building
    /// the CRDs found, when `crd` does not run to report it).
    fn crd_sections(&self) -> (Vec<docs::KindSections>, Diagnostics) {
        let mut pass = self.crd_pass();
        let mut found = std::mem::take(&mut pass.documented);
        if !self.opts.generators.contains(&Generator::Crd) {
            found.extend(std::mem::take(&mut pass.built).into_sorted());
        }
        (std::mem::take(&mut pass.sections), found)
    }
}

/// `check_markers` for a generator that reads none.
fn no_markers(_: &[Found], _: &mut Diagnostics) {}

/// What one generator writes: Rust modules, laid out as files (or one file for
/// build.rs) by `emit`, and YAML documents by file name in its directory.
#[derive(Debug, Default)]
pub struct Output {
    pub rust: RustModule,
    /// YAML documents (without the header) by file name, in the generator's directory.
    pub manifests: BTreeMap<String, String>,
}

/// Everything the generators wrote: the Rust modules of all of them, and each YAML
/// generator's files.
#[derive(Debug, Default)]
pub struct Generated {
    pub rust: RustModule,
    pub manifests: BTreeMap<Generator, BTreeMap<String, String>>,
}

/// Runs the selected generators on as many threads as there are cores, and merges their
/// outputs in the table's order, so that the result is the one a run of one generator
/// after the other would give.
pub fn run(ctx: &Context<'_>, diags: &mut Diagnostics) -> Generated {
    let opts = ctx.opts;
    // The crd generator starts first: it takes longest (a schema and a YAML document per
    // kind), and the others share the remaining cores meanwhile. Outputs are merged in
    // the table's order, so this order never shows in the output.
    let mut names: Vec<Generator> = opts.generators.iter().copied().collect();
    names.sort_by_key(|name| *name != Generator::Crd);
    let mut results: Vec<_> = crate::parallel::map(&names, |name| {
        let mut out = Output::default();
        let mut found = Diagnostics::default();
        (name.definition().run)(ctx, &mut out, &mut found);
        (*name, out, found)
    });
    results.sort_by_key(|(name, ..)| *name);
    let mut generated = Generated::default();
    for (name, output, found) in results {
        generated.rust.merge(output.rust);
        if name.definition().manifest_dir().is_some() {
            generated.manifests.insert(name, output.manifests);
        }
        diags.extend(found.into_sorted());
    }
    if names.iter().any(|name| name.definition().uses_runtime) {
        generated.rust.push_text(&format!(
            "::{}::generated_for!({:?});\n",
            naming::RUNTIME_CRATE,
            naming::runtime_release()
        ));
    }
    generated
}

/// Objects as one YAML file of documents named `file`, each opened by `---` as
/// controller-gen writes them; no file for no object, as controller-gen writes none.
fn add_yaml_documents(out: &mut Output, file: &str, objects: &[serde_json::Value]) {
    if objects.is_empty() {
        return;
    }
    let mut text = String::new();
    for object in objects {
        text.push_str("---\n");
        text.push_str(&crate::yaml::to_string(object));
    }
    out.manifests.insert(file.to_owned(), text);
}

/// A path valid anywhere in the crate: `crate::…` as it is, an external crate's path
/// anchored with a leading `::`.
pub fn absolute_path(path: &str) -> Option<String> {
    let anchored = match path.split("::").next() {
        Some("crate" | "self" | "super" | "") => path.to_owned(),
        _ => format!("::{path}"),
    };
    ModulePath::parse(&anchored)
        .ok()
        .map(|module| module.to_string())
}

impl Context<'_> {
    /// Every group version, in (group, version) order.
    pub fn versions(&self) -> impl Iterator<Item = (&str, &Version)> {
        self.model
            .groups
            .values()
            .flat_map(|g| g.versions.values().map(move |v| (g.name.as_str(), v)))
    }

    /// The output module for API code: `apis`.
    pub fn apis_root_module<'t>(&self, tree: &'t mut RustModule) -> &'t mut RustModule {
        tree.child(naming::modules::APIS, || {
            "Generated code for the API types: `kube::Resource` impls and constructors \
             (register), `Clone` impls (clone), webhook conversion (register)."
                .to_owned()
        })
    }

    /// The output module for a group's API code: `apis::<group>`.
    pub fn apis_group_module<'t>(
        &self,
        tree: &'t mut RustModule,
        group: &str,
    ) -> &'t mut RustModule {
        self.apis_root_module(tree).child(group, || {
            let name = self
                .model
                .groups
                .get(group)
                .map_or(group, |g| g.name.as_str());
            format!("The `{name}` API group.")
        })
    }

    /// The output module for per-version API code: `apis::<group>::<version>`.
    pub fn apis_module<'t>(&self, tree: &'t mut RustModule, key: &TypeKey) -> &'t mut RustModule {
        self.apis_group_module(tree, &key.group)
            .child(&key.version, || {
                format!("Version `{}` of the group.", key.version)
            })
    }

    /// The module of a type in the user's crate, reached through `via`.
    fn type_module(&self, key: &TypeKey, via: &[String]) -> ModulePath {
        let mut module = self.opts.apis_module.join(&key.group).join(&key.version);
        for segment in via {
            module = module.join(segment);
        }
        module
    }

    /// The Rust path of a type in the user's crate, reached through `via` (a module path
    /// relative to the version module).
    pub fn type_path(&self, key: &TypeKey, via: &[String]) -> String {
        self.type_module(key, via).item_text(&key.name)
    }

    /// A field type as generated code must write it, or the name of the type that
    /// generated code cannot reach.
    pub fn type_text(&self, ty: &TypeRef) -> Result<String, String> {
        match ty {
            TypeRef::Other(text) => Ok(text.clone()),
            TypeRef::Array { elem, len } => Ok(format!("[{}; {len}]", self.type_text(elem)?)),
            TypeRef::Path {
                segments,
                lifetimes,
                args,
                target,
            } => {
                let mut text = match target.as_deref() {
                    Some(Target::Local(key)) => {
                        let def = self
                            .model
                            .groups
                            .get(&key.group)
                            .and_then(|g| g.versions.get(&key.version))
                            .and_then(|v| v.types.get(&key.id()));
                        let via = def
                            .and_then(|d| d.reachable_via.as_deref())
                            .ok_or_else(|| key.name.clone())?;
                        self.type_path(key, via)
                    }
                    Some(Target::Absolute(path)) => {
                        absolute_path(path).ok_or_else(|| path.clone())?
                    }
                    None if segments.len() == 1 => naming::ident(&segments[0]).to_string(),
                    None => return Err(segments.join("::")),
                };
                if !args.is_empty() || !lifetimes.is_empty() {
                    let args = args
                        .iter()
                        .map(|a| self.type_text(a))
                        .collect::<Result<Vec<_>, _>>()?;
                    let all: Vec<String> = lifetimes.iter().cloned().chain(args).collect();
                    text = format!("{text}<{}>", all.join(", "));
                }
                Ok(text)
            }
        }
    }
}
