//! `pub type` aliases in the apis tree. Rust reads a field of an alias's type as a field
//! of the type it names, and so does crdgen: after resolution, every use of an alias is
//! replaced by its aliased type, with the alias's parameters bound to the arguments it
//! was used with. No generator sees an alias.

use std::collections::BTreeMap;

use super::parsed::TypeAlias;
use super::resolve::{Resolver, Scopes, scope_key};
use super::{Target, TypeKey, TypeRef};

/// Deeper than this, aliases name each other in a cycle (rustc refuses those).
const MAX_DEPTH: usize = 32;

#[derive(Default)]
pub struct Aliases {
    by_key: BTreeMap<TypeKey, TypeAlias>,
}

impl Aliases {
    pub fn insert(&mut self, alias: TypeAlias) {
        self.by_key.insert(alias.key.clone(), alias);
    }

    /// Resolves what each alias names, in the scope of its file.
    pub fn resolve(&mut self, resolver: &Resolver<'_>, scopes: &Scopes) {
        for alias in self.by_key.values_mut() {
            if let Some(file) = scopes.get(&scope_key(&alias.key)) {
                resolver.resolve(&mut alias.ty, &file.scope);
            }
        }
    }

    /// Replaces every alias in a resolved `ty` by what it names.
    pub fn expand(&self, ty: &mut TypeRef) {
        self.expand_at(ty, 0);
    }

    fn expand_at(&self, ty: &mut TypeRef, depth: usize) {
        match ty {
            TypeRef::Path {
                args,
                target: Some(Target::Local(key)),
                ..
            } if depth < MAX_DEPTH && self.by_key.contains_key(key) => {
                let alias = &self.by_key[key];
                let bindings: BTreeMap<String, TypeRef> = alias
                    .generics
                    .iter()
                    .cloned()
                    .zip(args.iter().cloned())
                    .collect();
                let mut aliased = alias.ty.substituted(&bindings);
                self.expand_at(&mut aliased, depth + 1);
                *ty = aliased;
            }
            TypeRef::Path { args, .. } => {
                for arg in args {
                    self.expand_at(arg, depth);
                }
            }
            TypeRef::Array { elem, .. } => self.expand_at(elem, depth),
            TypeRef::Other(_) => {}
        }
    }
}
