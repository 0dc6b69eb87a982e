//! Generators: each reads the model and adds modules to the output tree. They share
//! one way of naming the user's types, so they can never disagree about a path.

mod applyconfig;
mod client;
mod clone;
mod conversion;
mod crd;
mod informer;
mod lister;
mod rbac;
mod register;
mod webhook;

use std::collections::BTreeMap;

use crate::diag::Diagnostics;
use crate::emit::RustModule;
use crate::model::{Model, Target, TypeKey, TypeRef, Version};
use crate::naming::{self, ModulePath};
use crate::options::{Generator, Options};

/// What every generator gets to read.
pub struct Context<'a> {
    pub model: &'a Model,
    /// The `+kubebuilder:rbac` rules of the scanned files.
    pub rbac_rules: &'a [crate::rbac::Rule],
    /// The `+kubebuilder:webhook` webhooks of the scanned files.
    pub webhooks: &'a [crate::webhook::Webhook],
    pub opts: &'a Options,
}

/// Everything the generators produce: Rust modules, laid out as files (or one file for
/// build.rs) by `emit`, and CRDs by file name, written as YAML.
#[derive(Debug, Default)]
pub struct Output {
    pub rust: RustModule,
    /// CRDs as YAML documents (without the header), by file name.
    pub crds: BTreeMap<String, String>,
    /// The roles as YAML documents (without the header), when there are rules.
    pub role: Option<String>,
    /// The webhook configurations as YAML documents (without the header), when there
    /// are webhooks.
    pub webhooks: Option<String>,
}

/// One generator, as controller-tools has them: it reads the model and adds to the
/// output, reporting problems to `diags`.
pub trait Generate {
    fn generate(&self, ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics);
}

/// A generator whose whole output is Rust modules: its module's `generate` function.
struct Rust(fn(&Context<'_>, &mut RustModule, &mut Diagnostics));

impl Generate for Rust {
    fn generate(&self, ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics) {
        (self.0)(ctx, &mut out.rust, diags);
    }
}

/// The generator behind each name.
fn generator(name: Generator) -> &'static dyn Generate {
    match name {
        Generator::Register => &Rust(register::generate),
        Generator::Clone => &Rust(clone::generate),
        Generator::ApplyConfiguration => &Rust(applyconfig::generate),
        Generator::Client => &Rust(client::generate),
        Generator::Lister => &Rust(lister::generate),
        Generator::Informer => &Rust(informer::generate),
        Generator::Crd => &crd::Crd,
        Generator::Rbac => &rbac::Rbac,
        Generator::Webhook => &webhook::Webhooks,
    }
}

/// Runs the selected generators on as many threads as there are cores, and merges their
/// outputs in a fixed order, so that the result is the one a run of one generator after
/// the other would give.
pub fn run(ctx: &Context<'_>, diags: &mut Diagnostics) -> Output {
    let opts = ctx.opts;
    // The crd generator starts first: it takes longest (a schema and a YAML document per
    // kind), and the others share the remaining cores meanwhile. Outputs are merged in
    // the generators' own order, so this order never shows in the output.
    let mut names: Vec<Generator> = opts.generators.iter().copied().collect();
    names.sort_by_key(|name| *name != Generator::Crd);
    let mut results: Vec<_> = crate::parallel::map(&names, |name| {
        let mut out = Output::default();
        let mut found = Diagnostics::default();
        generator(*name).generate(ctx, &mut out, &mut found);
        (*name, out, found)
    });
    results.sort_by_key(|(name, ..)| *name);
    let mut out = Output::default();
    for (_, output, found) in results {
        out.rust.merge(output.rust);
        out.crds.extend(output.crds);
        out.role = out.role.or(output.role);
        out.webhooks = out.webhooks.or(output.webhooks);
        diags.extend(found.into_sorted());
    }
    out
}

/// Objects as one YAML file of documents, each opened by `---` as controller-gen writes
/// them; `None` for no object (no file, as controller-gen writes none).
fn yaml_documents(objects: &[serde_json::Value]) -> Option<String> {
    if objects.is_empty() {
        return None;
    }
    let mut text = String::new();
    for object in objects {
        text.push_str("---\n");
        text.push_str(&crate::yaml::to_string(object));
    }
    Some(text)
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
                args,
                target,
            } => {
                let mut text = match target {
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
                if !args.is_empty() {
                    let args = args
                        .iter()
                        .map(|a| self.type_text(a))
                        .collect::<Result<Vec<_>, _>>()?;
                    text = format!("{text}<{}>", args.join(", "));
                }
                Ok(text)
            }
        }
    }
}
