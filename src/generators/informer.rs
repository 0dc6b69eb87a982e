//! `informer`: shared informers and their factory, as informer-gen writes them:
//! `factory.bcrds().v1alpha1().examples()` is the one informer of `examples`,
//! however often it is asked for.

use std::fmt::Write as _;

use super::{Context, Definition, Generator, Output};
use crate::model::Kind;
use crate::naming::{self, informer as names};

/// The factory, its group and version accessors, and the kinds' informers, all as text
/// (see `client::kind_clients`): their shape is fixed.
/// The `informer` generator.
pub(super) const GENERATOR: Definition = Definition::rust("informer", generate)
    .brings(&[Generator::Register, Generator::Clone, Generator::Lister])
    .on_runtime();

fn generate(ctx: &Context<'_>, out: &mut Output, _diags: &mut crate::diag::Diagnostics) {
    let tree = &mut out.rust;
    let runtime = naming::RUNTIME_CRATE;
    let untyped = format!("::{runtime}::informer::InformerFactory");
    let factory = naming::ident(names::FACTORY);
    let mut group_accessors = String::new();
    let informers = tree.child(naming::modules::INFORMERS, || {
        "Shared informers: one watch per resource, an indexed cache, event handlers.".to_owned()
    });
    for group in ctx.model.groups.values() {
        let versions: Vec<_> = group
            .versions
            .values()
            .filter(|v| v.kinds.values().any(Kind::has_client))
            .collect();
        if versions.is_empty() {
            continue;
        }
        let group_ty = naming::ident(&names::group_type(&group.code_name)).to_string();
        let group_mod = naming::ident(&group.dir);
        let accessor = naming::ident(&names::group_accessor(&group.code_name));
        let _ = write!(
            group_accessors,
            r#"    /// Informers of the `{}` API group.
    pub fn {accessor}(&self) -> {group_mod}::{group_ty}<'_> {{
        {group_mod}::{group_ty}::new(&self.factory)
    }}
"#,
            group.name
        );
        let group_module =
            informers.child(&group.dir, || format!("The `{}` API group.", group.name));
        let mut version_accessors = String::new();
        for version in versions {
            let version_mod = naming::ident(&version.name);
            let version_ty = naming::ident(&names::version_type(&group.code_name, &version.name));
            let _ = write!(
                version_accessors,
                r#"    /// Informers of `{}/{}`.
    pub fn {version_mod}(&self) -> {version_mod}::{version_ty}<'a> {{
        {version_mod}::{version_ty}::new(self.factory)
    }}
"#,
                group.name, version.name
            );
            let module = group_module.child(&version.name, || {
                format!("Informers for `{}/{}`.", group.name, version.name)
            });
            let mut kind_accessors = String::new();
            let mut reexports = String::new();
            for kind in version.kinds.values().filter(|k| k.has_client()) {
                let kind_mod = naming::client::kind_module(&kind.name);
                let informer = naming::ident(&names::kind_informer(&kind.name)).to_string();
                let accessor = naming::client::kind_accessor(&kind.name, &kind.plural);
                let kind_accessor = naming::ident(&accessor);
                let metadata_accessor = naming::ident(&names::metadata_accessor(&accessor));
                let _ = write!(
                    kind_accessors,
                    r#"    /// The shared `{plural}` informer.
    pub fn {kind_accessor}(&self) -> {informer} {{
        {informer}::new(self.factory)
    }}
    /// The shared metadata-only `{plural}` informer (client-go's metadata informers):
    /// it caches names, labels, annotations and owners, not spec or status.
    pub fn {metadata_accessor}(&self) -> {metadata} {{
        {informer}::metadata(self.factory)
    }}
"#,
                    plural = kind.plural,
                    metadata = metadata_informer(&ctx.type_path(&kind.root, &kind.path)),
                );
                let _ = writeln!(
                    reexports,
                    "pub use self::{}::{informer};",
                    naming::ident(&kind_mod)
                );
                module
                    .child(&kind_mod, || format!("The `{}` informer.", kind.name))
                    .push_text(&kind_informer(
                        ctx,
                        kind,
                        &informer,
                        &version.name,
                        &group.dir,
                    ));
            }
            module.push_text(&format!(
                "{reexports}{}",
                accessor_struct(&version_ty.to_string(), &untyped, &kind_accessors)
            ));
        }
        group_module.push_text(&accessor_struct(&group_ty, &untyped, &version_accessors));
    }
    let cache_sync = "::std::collections::BTreeMap<::std::string::String, bool>";
    let token = format!("::{runtime}::CancellationToken");
    informers.push_text(&format!(
        r#"/// Hands out one shared informer per resource, and starts, waits for and stops
/// them together: client-go's `SharedInformerFactory`.
pub struct {factory} {{
    factory: {untyped},
}}
impl {factory} {{
    /// A factory watching every namespace, dropping `managedFields` before caching.
    pub fn new(client: ::kube::Client) -> Self {{
        Self::with_options(client, ::std::default::Default::default())
    }}
    /// A factory with options: one namespace, list/watch tweaks, resync, transform.
    pub fn with_options(
        client: ::kube::Client,
        options: ::{runtime}::informer::FactoryOptions,
    ) -> Self {{
        Self {{
            factory: {untyped}::new(client, options),
        }}
    }}
    /// Starts every informer requested so far (again: those requested since).
    pub fn start(&self, shutdown: &{token}) {{
        self.factory.start(shutdown);
    }}
    /// Waits for every started informer's first list, for at most the cache-sync
    /// timeout (two minutes by default); `false` for one that did not sync.
    pub async fn wait_for_cache_sync(&self) -> {cache_sync} {{
        self.factory.wait_for_cache_sync().await
    }}
    /// `wait_for_cache_sync`, as an error naming each resource that did not sync and
    /// its last watch error (404: CRD not installed; 403: RBAC): what an operator exits on.
    pub async fn ensure_cache_sync(&self) -> ::std::result::Result<(), ::{runtime}::informer::CacheSyncError> {{
        self.factory.ensure_cache_sync().await
    }}
    /// Stops every watch and waits for them to end.
    pub async fn shutdown(&self) {{
        self.factory.shutdown().await;
    }}
    /// The untyped factory underneath.
    pub fn factory(&self) -> &{untyped} {{
        &self.factory
    }}
    /// The shared informer of any kind, Kubernetes' own included (a controller's owned
    /// Jobs): one watch per kind, however many controllers ask.
    pub fn informer<K>(&self) -> ::{runtime}::informer::SharedInformer<K>
    where
        K: ::{runtime}::informer::Informed,
        K::Scope: ::{runtime}::informer::ScopedApi,
    {{
        self.factory.informer::<K>()
    }}
{group_accessors}}}
/// What a controller asks of a factory (start, wait for caches), for code written
/// against every factory.
impl ::{runtime}::controller::StartInformers for {factory} {{
    fn start(&self, shutdown: &{token}) {{
        self.factory.start(shutdown);
    }}
    fn wait_for_cache_sync(
        &self,
    ) -> impl ::std::future::Future<Output = {cache_sync}> + Send {{
        self.factory.wait_for_cache_sync()
    }}
}}
"#
    ));
}

/// A group's (or version's) handle on the factory, with its `accessors`.
fn accessor_struct(name: &str, untyped: &str, accessors: &str) -> String {
    format!(
        r#"#[derive(Clone, Copy)]
pub struct {name}<'a> {{
    factory: &'a {untyped},
}}
impl<'a> {name}<'a> {{
    pub fn new(factory: &'a {untyped}) -> Self {{
        Self {{ factory }}
    }}
{accessors}}}
"#
    )
}

/// The type of a metadata-only informer of `object`.
fn metadata_informer(object: &str) -> String {
    format!(
        "::{}::informer::SharedInformer<::kube::core::PartialObjectMeta<{object}>>",
        naming::RUNTIME_CRATE
    )
}

/// The kind's shared informer, as text (see `client::kind_clients`).
fn kind_informer(
    ctx: &Context<'_>,
    kind: &Kind,
    informer: &str,
    version: &str,
    group_dir: &str,
) -> String {
    let object = naming::OBJECT;
    let path = ctx.type_path(&kind.root, &kind.path);
    let runtime = naming::RUNTIME_CRATE;
    let lister = naming::ident(&names::kind_lister(&kind.name));
    let lister_path = ctx
        .opts
        .output_module
        .join(naming::modules::LISTERS)
        .join(group_dir)
        .join(version)
        .item_text(&names::kind_lister(&kind.name));
    let shared = format!("::{runtime}::informer::SharedInformer<{object}>");
    let metadata = metadata_informer(object);
    let api = if kind.namespaced {
        "|client, namespace| match namespace {
                ::std::option::Option::Some(namespace) => ::kube::Api::namespaced(client, namespace),
                ::std::option::Option::None => ::kube::Api::all(client),
            }"
    } else {
        "|client, _| ::kube::Api::all(client)"
    };
    let name = &kind.name;
    format!(
        r#"use {path} as {object};
use {lister_path};
/// The shared informer of `{name}`: event handlers, subscriptions and sync state come from the `SharedInformer` it derefs to.
#[derive(Clone)]
pub struct {informer} {{
    informer: {shared},
}}
impl {informer} {{
    pub fn new(factory: &::{runtime}::informer::InformerFactory) -> Self {{
        Self {{
            informer: factory.informer_for::<{object}>({api}),
        }}
    }}
    /// A lister over this informer's cache.
    pub fn lister(&self) -> {lister} {{
        {lister}::new(::std::clone::Clone::clone(self.informer.store()))
    }}
    pub fn informer(&self) -> &{shared} {{
        &self.informer
    }}
    /// The metadata-only informer of the same resource: the apiserver sends only each
    /// object's metadata, and that is what it caches.
    pub fn metadata(factory: &::{runtime}::informer::InformerFactory) -> {metadata} {{
        factory.informer_for::<::kube::core::PartialObjectMeta<{object}>>({api})
    }}
}}
impl ::std::ops::Deref for {informer} {{
    type Target = {shared};
    fn deref(&self) -> &Self::Target {{
        &self.informer
    }}
}}
"#
    )
}
