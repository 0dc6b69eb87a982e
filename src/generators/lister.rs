//! `lister`: typed read access to an informer's cache, as lister-gen writes it.
//! `get` is a hash lookup; a namespace's `list` reads the namespace index, so it costs
//! in proportion to that namespace's objects. Results are shared `Arc`s, never copies.

use super::{Context, Definition, Generator, Output};
use crate::model::Kind;
use crate::naming::{self, informer as names};

/// The `lister` generator.
pub(super) const GENERATOR: Definition = Definition::rust("lister", generate)
    .brings(&[Generator::Register])
    .on_runtime();

fn generate(ctx: &Context<'_>, out: &mut Output, _diags: &mut crate::diag::Diagnostics) {
    let tree = &mut out.rust;
    let listers = tree.child(naming::modules::LISTERS, || {
        "Listers: typed, indexed reads of informer caches.".to_owned()
    });
    for group in ctx.model.groups.values() {
        for version in group.versions.values() {
            let kinds: Vec<&Kind> = version.kinds.values().filter(|k| k.has_client()).collect();
            if kinds.is_empty() {
                continue;
            }
            let module = listers
                .child(&group.dir, || format!("The `{}` API group.", group.name))
                .child(&version.name, || {
                    format!("Listers for `{}/{}`.", group.name, version.name)
                });
            let mut reexports = String::new();
            for kind in kinds {
                let kind_mod = naming::client::kind_module(&kind.name);
                let lister = naming::ident(&names::kind_lister(&kind.name)).to_string();
                reexports.push_str(&format!("pub use self::{}::*;\n", naming::ident(&kind_mod)));
                module
                    .child(&kind_mod, || format!("The `{}` lister.", kind.name))
                    .push_text(&lister_items(ctx, kind, &lister));
            }
            module.push_text(&reexports);
        }
    }
}

/// The kind's listers, as text (see `client::kind_clients`).
fn lister_items(ctx: &Context<'_>, kind: &Kind, lister: &str) -> String {
    let object = naming::OBJECT;
    let path = ctx.type_path(&kind.root, &kind.path);
    let runtime = naming::RUNTIME_CRATE;
    let store = format!("::{runtime}::cache::Store<{object}>");
    let arc = format!("::std::sync::Arc<{object}>");
    let name = &kind.name;
    let mut out = format!(
        r#"use {path} as {object};
/// Reads cached `{name}` objects.
#[derive(Clone)]
pub struct {lister} {{
    store: {store},
}}
impl {lister} {{
    pub fn new(store: {store}) -> Self {{
        Self {{ store }}
    }}
    /// Every cached object `selector` matches, in key order.
    pub fn list(&self, selector: &::kube::core::Selector) -> ::std::vec::Vec<{arc}> {{
        ::{runtime}::cache::select(self.store.list(), selector)
    }}
    /// The objects a named index maps `value` to; `None` without such an index.
    pub fn by_index(
        &self,
        index: &str,
        value: &str,
    ) -> ::std::option::Option<::std::vec::Vec<{arc}>> {{
        self.store.by_index(index, value)
    }}
    /// The cache underneath, read-only (indexes are added on the informer).
    pub fn store(&self) -> &{store} {{
        &self.store
    }}
}}
"#
    );
    if !kind.namespaced {
        out.push_str(&format!(
            r#"impl {lister} {{
    /// The object `name`, in O(1).
    pub fn get(&self, name: &str) -> ::std::option::Option<{arc}> {{
        self.store.get(name)
    }}
}}
"#
        ));
        return out;
    }
    let ns_lister = naming::ident(&names::namespace_lister(name));
    let accessor = naming::ident(&naming::client::kind_accessor(&kind.name, &kind.plural));
    out.push_str(&format!(
        r#"impl {lister} {{
    /// The objects of `namespace`.
    pub fn {accessor}(&self, namespace: &str) -> {ns_lister} {{
        {ns_lister} {{
            store: ::std::clone::Clone::clone(&self.store),
            namespace: ::std::borrow::ToOwned::to_owned(namespace),
        }}
    }}
}}
/// Reads cached `{name}` objects of one namespace.
#[derive(Clone)]
pub struct {ns_lister} {{
    store: {store},
    namespace: ::std::string::String,
}}
impl {ns_lister} {{
    /// The object `name`, in O(1).
    pub fn get(&self, name: &str) -> ::std::option::Option<{arc}> {{
        self.store.get(&::std::format!("{{}}/{{}}", self.namespace, name))
    }}
    /// The namespace's objects `selector` matches, in name order.
    pub fn list(&self, selector: &::kube::core::Selector) -> ::std::vec::Vec<{arc}> {{
        let objects = self
            .store
            .by_index(::{runtime}::cache::NAMESPACE_INDEX, &self.namespace)
            .unwrap_or_default();
        ::{runtime}::cache::select(objects, selector)
    }}
}}
"#
    ));
    out
}
