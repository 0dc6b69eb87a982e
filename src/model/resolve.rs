//! Resolves the type paths written in API files to what they name, following Rust's
//! path rules as far as a single crate's API tree needs: `crate::`, `self::`,
//! `super::`, `use` items (renames and globs included) and child modules.

use std::collections::{BTreeMap, BTreeSet};

use super::parsed::UseEntry;
use super::{Target, TypeKey, TypeRef};
use crate::naming::ModulePath;

/// Every model type by the module paths (relative to the apis module) it can be
/// named through: where it is declared and where it is re-exported.
#[derive(Debug, Default)]
pub struct TypeIndex {
    by_path: BTreeMap<(Vec<String>, String), TypeKey>,
}

impl TypeIndex {
    pub fn insert(&mut self, module: Vec<String>, key: &TypeKey) {
        self.by_path
            .entry((module, key.name.clone()))
            .or_insert_with(|| key.clone());
    }

    /// Adds `other`'s paths, keeping this index's type where both name one.
    pub fn merge(&mut self, other: TypeIndex) {
        for (path, key) in other.by_path {
            self.by_path.entry(path).or_insert(key);
        }
    }

    fn get(&self, module: &[String], name: &str) -> Option<&TypeKey> {
        self.by_path.get(&(module.to_vec(), name.to_owned()))
    }
}

/// What a file can see: its own module, its `use` items, its types, its child modules.
pub struct Scope {
    /// The file's module, relative to the apis module: `[group, version, file?]`.
    pub module: Vec<String>,
    pub uses: Vec<UseEntry>,
    pub local_types: BTreeSet<String>,
    pub child_modules: BTreeSet<String>,
}

pub struct Resolver<'a> {
    pub index: &'a TypeIndex,
    pub apis_module: &'a ModulePath,
}

/// A path resolved to a place: inside the apis tree (relative to it) or elsewhere.
enum Place {
    Apis(Vec<String>),
    Elsewhere(Vec<String>),
}

impl Resolver<'_> {
    /// Fills in `target` on every path in `ty`.
    pub fn resolve(&self, ty: &mut TypeRef, scope: &Scope) {
        match ty {
            TypeRef::Path {
                segments,
                args,
                target,
                ..
            } => {
                *target = self.path(segments, scope).map(Box::new);
                for arg in args {
                    self.resolve(arg, scope);
                }
            }
            TypeRef::Array { elem, .. } => self.resolve(elem, scope),
            TypeRef::Other(_) => {}
        }
    }

    fn path(&self, segments: &[String], scope: &Scope) -> Option<Target> {
        let first = segments.first()?;
        let via_use = scope.uses.iter().find(|u| u.name() == Some(first.as_str()));
        let place = match (via_use, segments.len()) {
            (Some(entry), _) => {
                let mut full = entry.path.clone();
                if full.last().is_some_and(|s| s == "self") {
                    full.pop();
                }
                full.extend_from_slice(&segments[1..]);
                self.place(&full, scope)?
            }
            (None, 1) if scope.local_types.contains(first) => {
                Place::Apis(join(&scope.module, segments))
            }
            (None, 1) => return self.glob(first, scope),
            (None, _) => self.place(segments, scope)?,
        };
        self.target(place)
    }

    /// Resolves a path that does not start with a `use` alias.
    fn place(&self, segments: &[String], scope: &Scope) -> Option<Place> {
        let (first, rest) = segments.split_first()?;
        let apis = self.apis_segments();
        Some(match first.as_str() {
            "crate" => match segments.strip_prefix(apis.as_slice()) {
                Some(inside) => Place::Apis(inside.to_vec()),
                None => Place::Elsewhere(segments.to_vec()),
            },
            "" => Place::Elsewhere(segments.to_vec()),
            "self" => Place::Apis(join(&scope.module, rest)),
            "super" => {
                let mut module = scope.module.clone();
                let mut rest = segments;
                while let Some(("super", tail)) = rest.split_first().map(|(h, t)| (h.as_str(), t)) {
                    module.pop()?;
                    rest = tail;
                }
                Place::Apis(join(&module, rest))
            }
            child if scope.child_modules.contains(child) => {
                Place::Apis(join(&scope.module, segments))
            }
            _ => Place::Elsewhere(segments.to_vec()),
        })
    }

    /// A single name not declared in the file: look through its glob imports. Outside
    /// the apis tree only the Kubernetes types crdgen knows can be told apart (what
    /// else a crate's glob brings in is not visible from here).
    fn glob(&self, name: &str, scope: &Scope) -> Option<Target> {
        scope
            .uses
            .iter()
            .filter(|u| u.glob)
            .find_map(|u| match self.place(&u.path, scope)? {
                Place::Apis(module) => self.index.get(&module, name).cloned().map(Target::Local),
                Place::Elsewhere(module) => {
                    let path = format!("{}::{name}", module.join("::"));
                    crate::known::knows(&path).then_some(Target::Absolute(path))
                }
            })
    }

    fn target(&self, place: Place) -> Option<Target> {
        Some(match place {
            Place::Apis(path) => {
                let (name, module) = path.split_last()?;
                match self.index.get(module, name) {
                    Some(key) => Target::Local(key.clone()),
                    None => Target::Absolute(format!("{}::{}", self.apis_module, path.join("::"))),
                }
            }
            Place::Elsewhere(path) => Target::Absolute(path.join("::")),
        })
    }

    fn apis_segments(&self) -> Vec<String> {
        self.apis_module
            .to_string()
            .split("::")
            .map(str::to_owned)
            .collect()
    }
}

fn join(module: &[String], rest: &[String]) -> Vec<String> {
    module.iter().chain(rest).cloned().collect()
}

/// Parsed files' scopes by (group, version, file module).
pub(super) type Scopes = BTreeMap<(String, String, Option<String>), FileScope>;

pub(super) fn scope_key(key: &TypeKey) -> (String, String, Option<String>) {
    (key.group.clone(), key.version.clone(), key.module.clone())
}

/// One parsed file's scope, kept for resolution after all types are known.
pub(super) struct FileScope {
    pub scope: Scope,
    pub path: String,
}
