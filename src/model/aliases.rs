//! `pub type` aliases in the apis tree. Rust reads a field of an alias's type as a field
//! of the type it names, and so does crdgen: after resolution, every use of an alias is
//! replaced by its aliased type, with the alias's parameters bound to the arguments it
//! was used with, and no generator but the CRD's sees an alias. Where an alias has docs
//! or markers of its own, the field keeps its type as written too
//! ([`Field::aliased`](super::Field::aliased)) and the version keeps the alias, so that
//! the CRD schema has them, as controller-gen's has a Go alias's.

use std::collections::BTreeMap;

use super::resolve::{Resolver, Scopes, scope_key};
use super::{Alias, Target, TypeKey, TypeRef};

/// Deeper than this, aliases name each other in a cycle (rustc refuses those).
const MAX_DEPTH: usize = 32;

#[derive(Default)]
pub struct Aliases {
    by_key: BTreeMap<TypeKey, Alias>,
}

impl Aliases {
    pub fn insert(&mut self, alias: Alias) {
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
        self.expand_at(ty, 0, false);
    }

    /// `ty` as the CRD generator reads it, when it differs from its expansion: the
    /// aliases with docs or markers kept, the others replaced.
    pub fn written(&self, ty: &TypeRef) -> Option<TypeRef> {
        let mut written = ty.clone();
        self.expand_at(&mut written, 0, true).then_some(written)
    }

    /// The aliases of a group version that have docs or markers, keyed by `TypeKey::id`,
    /// each naming its type as [`Self::written`] gives it.
    pub fn described(&self, group: &str, version: &str) -> BTreeMap<String, Alias> {
        self.by_key
            .values()
            .filter(|a| a.key.group == group && a.key.version == version && described(a))
            .map(|a| {
                let mut alias = a.clone();
                self.expand_at(&mut alias.ty, 0, true);
                (a.key.id(), alias)
            })
            .collect()
    }

    /// Replaces the aliases in `ty`, but for those with docs or markers when `keep`;
    /// whether it kept one.
    fn expand_at(&self, ty: &mut TypeRef, depth: usize, keep: bool) -> bool {
        match ty {
            TypeRef::Path {
                args,
                target: Some(target),
                ..
            } if let Target::Local(key) = &**target
                && depth < MAX_DEPTH
                && self
                    .by_key
                    .get(key)
                    .is_some_and(|alias| !(keep && described(alias))) =>
            {
                let alias = &self.by_key[key];
                let bindings: BTreeMap<String, TypeRef> = alias
                    .generics
                    .iter()
                    .cloned()
                    .zip(args.iter().cloned())
                    .collect();
                let mut aliased = alias.ty.substituted(&bindings);
                let kept = self.expand_at(&mut aliased, depth + 1, keep);
                *ty = aliased;
                kept
            }
            TypeRef::Path { args, target, .. } => {
                let kept = matches!(target.as_deref(), Some(Target::Local(key)) if keep && self.by_key.contains_key(key));
                args.iter_mut()
                    .fold(kept, |kept, arg| self.expand_at(arg, depth, keep) || kept)
            }
            TypeRef::Array { elem, .. } => self.expand_at(elem, depth, keep),
            TypeRef::Other(_) => false,
        }
    }
}

fn described(alias: &Alias) -> bool {
    !alias.docs.is_empty() || !alias.markers.is_empty()
}
