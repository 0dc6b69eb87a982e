//! `client`: a typed clientset in the shape client-go users know, on `kube::Api`.
//!
//! ```text
//! clientset/mod.rs                    Clientset, one accessor per group version
//! clientset/<group>/<version>/mod.rs  <Group><Version>Client, one accessor per kind
//! clientset/<group>/<version>/<kind>.rs  <Kind>Client (+ <Kind>AllNamespacesClient)
//! ```
//! Verbs follow `+genclient` markers as client-gen reads them; a verb filtered out is
//! not generated at all, so calling it does not compile.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{Context, Definition, Generator, Output};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::emit::RustModule;
use crate::markers::Value;
use crate::model::{Kind, Verb, Version};
use crate::naming::{self, client as names};

/// The clientset, its group-version clients and the kinds' clients, all as text (see
/// `kind_clients`): their shape is fixed.
/// The `client` generator.
pub(super) const GENERATOR: Definition = Definition::rust("client", generate)
    .brings(&[
        Generator::Register,
        Generator::Clone,
        Generator::ApplyConfiguration,
    ])
    .on_runtime();

fn generate(ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics) {
    let tree = &mut out.rust;
    let mut accessors = String::new();
    let mut registrations = String::new();
    let clientset = tree.child(naming::modules::CLIENTSET, || {
        "The typed clientset: one client per group version, one per kind.".to_owned()
    });
    for group in ctx.model.groups.values() {
        for version in group.versions.values() {
            if !version.kinds.values().any(Kind::has_client) {
                continue;
            }
            let accessor = naming::ident(&names::group_version_accessor(
                &group.code_name,
                &version.name,
            ));
            let client = naming::ident(&names::group_version_client(
                &group.code_name,
                &version.name,
            ));
            let client = format!(
                "{}::{}::{client}",
                naming::ident(&group.dir),
                naming::ident(&version.name)
            );
            let _ = write!(
                accessors,
                r#"    /// The `{}/{}` API.
    pub fn {accessor}(&self) -> {client} {{
        {client}::new(::std::clone::Clone::clone(&self.client))
    }}
"#,
                group.name, version.name
            );
            for kind in version.kinds.values() {
                let ty = ctx.type_path(&kind.root, &kind.path);
                let register = if kind.status_subresource {
                    "register_with_status"
                } else {
                    "register"
                };
                let _ = writeln!(registrations, "            server.{register}::<{ty}>();");
                if let Some(scale) = kind.scale() {
                    let selector = match &scale.label_selector {
                        Some(path) => format!("::std::option::Option::Some({path:?})"),
                        None => "::std::option::Option::None".to_owned(),
                    };
                    let _ = writeln!(
                        registrations,
                        "            server.register_scale::<{ty}>({:?}, {:?}, {selector});",
                        scale.spec_replicas, scale.status_replicas
                    );
                }
            }
            let module = clientset
                .child(&group.dir, || format!("The `{}` API group.", group.name))
                .child(&version.name, || {
                    format!("Clients for `{}/{}`.", group.name, version.name)
                });
            group_version(ctx, &group.code_name, version, module, diags);
        }
    }
    let runtime = naming::RUNTIME_CRATE;
    let kube_minor = ctx.opts.kube_version.minor();
    let clientset_ty = naming::ident(names::CLIENTSET);
    clientset.push_text(&format!(
        r#"/// Typed access to every API group version this clientset was generated for.
#[derive(Clone)]
pub struct {clientset_ty} {{
    client: ::kube::Client,
}}
impl {clientset_ty} {{
    /// A clientset over `client`.
    pub fn new(client: ::kube::Client) -> Self {{
        Self {{ client }}
    }}
    /// A clientset from the environment: in-cluster config or the local kubeconfig.
    pub async fn try_default() -> ::kube::Result<Self> {{
        ::std::result::Result::Ok(Self::new(::kube::Client::try_default().await?))
    }}
    /// The `kube::Client` underneath.
    pub fn client(&self) -> &::kube::Client {{
        &self.client
    }}
{accessors}}}
::{runtime}::if_testing! {{
    impl {clientset_ty} {{
        /// A clientset over an in-memory API server serving every kind it knows
        /// (with the `/status` and `/scale` subresources where the kind declares them),
        /// answering as Kubernetes 1.{kube_minor}, the version this code was generated for,
        /// unless the server was told another.
        /// For tests: there when crdgen-runtime's `testing` feature is (a dev-dependency
        /// `crdgen-runtime = {{ features = ["testing"] }}`), so release builds leave the
        /// server out.
        pub fn in_memory(server: &::{runtime}::testing::ApiServer) -> Self {{
            server.default_kubernetes_minor({kube_minor});
{registrations}            Self::new(server.client())
        }}
    }}
}}
"#
    ));
}

/// A group version's client, with an accessor per kind, and its kinds' modules.
fn group_version(
    ctx: &Context<'_>,
    group_code_name: &str,
    version: &Version,
    module: &mut RustModule,
    diags: &mut Diagnostics,
) {
    let client = naming::ident(&names::group_version_client(group_code_name, &version.name));
    let mut accessors = String::new();
    let mut reexports = String::new();
    for kind in version.kinds.values().filter(|k| k.has_client()) {
        let kind_mod = naming::ident(&names::kind_module(&kind.name));
        let kind_client = naming::ident(&names::kind_client(&kind.name));
        let accessor = naming::ident(&names::kind_accessor(&kind.name, &kind.plural));
        let plural = &kind.plural;
        let verbs = kind.verbs(diags);
        if kind.namespaced {
            let all_client = naming::ident(&names::all_namespaces_client(&kind.name));
            let all_accessor =
                naming::ident(&names::all_namespaces_accessor(&kind.name, &kind.plural));
            let _ = write!(
                accessors,
                r#"    /// `{plural}` in `namespace`.
    pub fn {accessor}(&self, namespace: &str) -> {kind_client} {{
        {kind_client}::new(::std::clone::Clone::clone(&self.client), namespace)
    }}
    /// `{plural}` in every namespace: list and watch.
    pub fn {all_accessor}(&self) -> {all_client} {{
        {all_client}::new(::std::clone::Clone::clone(&self.client))
    }}
"#
            );
            let _ = writeln!(
                reexports,
                "pub use self::{kind_mod}::{{{kind_client}, {all_client}}};"
            );
        } else {
            let _ = write!(
                accessors,
                r#"    /// `{plural}`, cluster-scoped.
    pub fn {accessor}(&self) -> {kind_client} {{
        {kind_client}::new(::std::clone::Clone::clone(&self.client))
    }}
"#
            );
            let _ = writeln!(reexports, "pub use self::{kind_mod}::{kind_client};");
        }
        let kind_module = module.child(&names::kind_module(&kind.name), || {
            format!("The `{}` client.", kind.name)
        });
        kind_module.push_text(&kind_clients(ctx, kind, &verbs, diags));
    }
    module.push_text(&format!(
        r#"{reexports}/// Clients for the kinds of this group version.
#[derive(Clone)]
pub struct {client} {{
    client: ::kube::Client,
}}
impl {client} {{
    pub fn new(client: ::kube::Client) -> Self {{
        Self {{ client }}
    }}
{accessors}}}
"#
    ));
}

/// The kind's client (and for namespaced kinds its all-namespaces client), as text:
/// its shape is fixed, so it is written as it will read rather than built as tokens
/// and formatted (which took most of a run's time). Every signature names the kind by
/// one alias, so the layout does not depend on how long the type's path is.
fn kind_clients(
    ctx: &Context<'_>,
    kind: &Kind,
    verbs: &BTreeSet<Verb>,
    diags: &mut Diagnostics,
) -> String {
    let object = naming::OBJECT;
    let path = ctx.type_path(&kind.root, &kind.path);
    let client = naming::ident(&names::kind_client(&kind.name));
    let runtime = naming::RUNTIME_CRATE;
    let has = |v: Verb| verbs.contains(&v);
    let mut out = format!("use {path} as {object};\n");

    // Marker-style kinds carry apiVersion and kind in an Option<TypeMeta> that may be
    // empty (objects read from lists); fill it in before sending.
    let type_meta = kind.type_meta_field.as_deref().map(naming::ident);
    let sends = [Verb::Create, Verb::Update, Verb::UpdateStatus];
    let sent = match &type_meta {
        Some(_) => "&*with_type_meta(object)",
        None => "object",
    };
    if let Some(field) = type_meta.as_ref().filter(|_| sends.iter().any(|v| has(*v))) {
        out.push_str(&format!(
            r#"/// `object` with its `apiVersion` and `kind` set, copied only when they were not.
fn with_type_meta(object: &{object}) -> ::std::borrow::Cow<'_, {object}> {{
    let expected = ::kube::core::TypeMeta::resource::<{object}>();
    if object.{field}.as_ref() == ::std::option::Option::Some(&expected) {{
        return ::std::borrow::Cow::Borrowed(object);
    }}
    let mut object = ::std::clone::Clone::clone(object);
    object.{field} = ::std::option::Option::Some(expected);
    ::std::borrow::Cow::Owned(object)
}}
"#
        ));
    }

    let mut methods = String::new();
    if has(Verb::Create) {
        methods.push_str(&format!(
            r#"    /// Creates `object`.
    pub async fn create(
        &self,
        pp: &::kube::api::PostParams,
        object: &{object},
    ) -> ::kube::Result<{object}> {{
        self.api.create(pp, {sent}).await
    }}
"#
        ));
    }
    // `update` and `update_status` replace the object named by `object` (or its status).
    let replace = |method: &str, sends: &str, doc: &str| {
        format!(
            r#"    /// {doc}
    pub async fn {method}(
        &self,
        pp: &::kube::api::PostParams,
        object: &{object},
    ) -> ::kube::Result<{object}> {{
        let name = ::{runtime}::client::name_of(object)?;
        self.api.{sends}(name, pp, {sent}).await
    }}
"#
        )
    };
    if has(Verb::Update) {
        methods.push_str(&replace(
            "update",
            "replace",
            "Replaces the object named by `object.metadata.name`; its resourceVersion\n    /// must be current.",
        ));
    }
    if has(Verb::UpdateStatus) {
        methods.push_str(&replace(
            "update_status",
            "replace_status",
            "Replaces the status of the object named by `object.metadata.name`.",
        ));
    }
    if has(Verb::Delete) {
        methods.push_str(&format!(
            r#"    /// Deletes `name`: `Left` with the object (still there while finalizers
    /// remain, or as it was when deleted), or `Right` with the server's status.
    pub async fn delete(
        &self,
        name: &str,
        dp: &::kube::api::DeleteParams,
    ) -> ::kube::Result<::{runtime}::client::Either<{object}, ::kube::core::Status>> {{
        self.api.delete(name, dp).await
    }}
"#
        ));
    }
    if has(Verb::DeleteCollection) {
        methods.push_str(&format!(
            r#"    /// Deletes every object `lp` selects.
    pub async fn delete_collection(
        &self,
        dp: &::kube::api::DeleteParams,
        lp: &::kube::api::ListParams,
    ) -> ::kube::Result<
        ::{runtime}::client::Either<::kube::core::ObjectList<{object}>, ::kube::core::Status>,
    > {{
        self.api.delete_collection(dp, lp).await
    }}
"#
        ));
    }
    if has(Verb::Get) {
        methods.push_str(&format!(
            r#"    /// The object `name`.
    pub async fn get(&self, name: &str) -> ::kube::Result<{object}> {{
        self.api.get(name).await
    }}
    /// The object `name`, or `None` when it does not exist.
    pub async fn get_opt(&self, name: &str) -> ::kube::Result<::std::option::Option<{object}>> {{
        self.api.get_opt(name).await
    }}
"#
        ));
    }
    let patch = |method: &str, doc: &str| {
        format!(
            r#"    /// {doc}
    pub async fn {method}<P: ::serde::Serialize + ::std::fmt::Debug>(
        &self,
        name: &str,
        pp: &::kube::api::PatchParams,
        patch: &::kube::api::Patch<P>,
    ) -> ::kube::Result<{object}> {{
        self.api.{method}(name, pp, patch).await
    }}
"#
        )
    };
    if has(Verb::Patch) {
        methods.push_str(&patch(
            "patch",
            "Patches `name` (JSON merge, JSON patch or apply).",
        ));
        if kind.has_status_client() {
            methods.push_str(&patch("patch_status", "Patches the status of `name`."));
        }
    }
    let config = ctx
        .opts
        .output_module
        .join(naming::modules::APPLY_CONFIGURATIONS)
        .join(&kind.root.group)
        .join(&kind.root.version)
        .item_text(&naming::applyconfig::type_name(&kind.name));
    let apply = |method: &str, sends: &str, doc: &str| {
        format!(
            r#"    /// {doc}
    pub async fn {method}(
        &self,
        config: &{config},
        pp: &::kube::api::PatchParams,
    ) -> ::kube::Result<{object}> {{
        let name = ::{runtime}::client::applied_name(config.metadata.as_ref())?;
        self.api.{sends}(name, pp, &::kube::api::Patch::Apply(config)).await
    }}
"#
        )
    };
    if has(Verb::Apply) {
        methods.push_str(&apply(
            "apply",
            "patch",
            "Server-side applies `config`: only the fields set in it, owned by the field\n    /// manager `pp` names (`PatchParams::apply(\"my-controller\")`).",
        ));
    }
    if has(Verb::ApplyStatus) {
        methods.push_str(&apply(
            "apply_status",
            "patch_status",
            "Server-side applies the status fields set in `config`.",
        ));
    }
    methods.push_str(&extra_methods(ctx, kind, diags));

    let mut read = String::new();
    if has(Verb::List) {
        read.push_str(&format!(
            r#"    /// The objects `lp` selects.
    pub async fn list(
        &self,
        lp: &::kube::api::ListParams,
    ) -> ::kube::Result<::kube::core::ObjectList<{object}>> {{
        self.api.list(lp).await
    }}
"#
        ));
    }
    if has(Verb::Watch) {
        read.push_str(&format!(
            r#"    /// Changes after `version` to the objects `wp` selects.
    pub async fn watch(
        &self,
        wp: &::kube::api::WatchParams,
        version: &str,
    ) -> ::kube::Result<
        impl ::{runtime}::client::Stream<
            Item = ::kube::Result<::kube::core::WatchEvent<{object}>>,
        > + use<>,
    > {{
        self.api.watch(wp, version).await
    }}
"#
        ));
    }

    let (scope_doc, constructor) = if kind.namespaced {
        (
            format!("Typed client for `{}` objects in one namespace.", kind.name),
            "pub fn new(client: ::kube::Client, namespace: &str) -> Self {\n        Self {\n            api: ::kube::Api::namespaced(client, namespace),\n        }\n    }",
        )
    } else {
        (
            format!("Typed client for `{}` objects (cluster-scoped).", kind.name),
            ALL_CONSTRUCTOR,
        )
    };
    out.push_str(&format!(
        r#"/// {scope_doc}
///
/// Add methods of your own with an `impl` block anywhere in your crate.
#[derive(Clone)]
pub struct {client} {{
    api: ::kube::Api<{object}>,
}}
impl {client} {{
    {constructor}
    /// The `kube::Api` underneath, for anything the typed verbs do not cover.
    pub fn api(&self) -> &::kube::Api<{object}> {{
        &self.api
    }}
{methods}{read}}}
"#
    ));
    if kind.namespaced {
        let all_client = naming::ident(&names::all_namespaces_client(&kind.name));
        out.push_str(&format!(
            r#"/// Typed client for `{name}` objects across all namespaces: list and watch.
#[derive(Clone)]
pub struct {all_client} {{
    api: ::kube::Api<{object}>,
}}
impl {all_client} {{
    {ALL_CONSTRUCTOR}
    /// The `kube::Api` underneath.
    pub fn api(&self) -> &::kube::Api<{object}> {{
        &self.api
    }}
{read}}}
"#,
            name = kind.name
        ));
    }
    out
}

/// The constructor of a client over every namespace (or of a cluster-scoped kind).
const ALL_CONSTRUCTOR: &str = "pub fn new(client: ::kube::Client) -> Self {\n        Self {\n            api: ::kube::Api::all(client),\n        }\n    }";

/// `+genclient:method=Name,verb=…,subresource=…,input=…,result=…`, as methods of the
/// kind's client (text, as `kind_clients`).
fn extra_methods(ctx: &Context<'_>, kind: &Kind, diags: &mut Diagnostics) -> String {
    let runtime = naming::RUNTIME_CRATE;
    let mut out = String::new();
    for marker in crate::markers::METHOD.all(&kind.markers) {
        let Value::Args(args) = &marker.value else {
            continue;
        };
        let text = |key: &str| match args.get(key) {
            Some(Value::String(s)) => Some(s.as_str()),
            _ => None,
        };
        let error = |message: String, hint: &str| {
            Diagnostic::error(Code::BadMarkerArgument, message)
                .at(&kind.file, marker.pos)
                .hint(hint)
        };
        let name = text("").unwrap_or_default();
        let verb = text("verb").unwrap_or_default();
        let Some(subresource) = text("subresource") else {
            diags.push(error(format!("`+genclient:method={name}` has no subresource"), "extra methods address a subresource, e.g. `subresource=scale`; the kind's own verbs cover the rest"));
            continue;
        };
        let method_name = names::extra_method(name);
        if !naming::is_identifier(&method_name) {
            diags.push(error(
                format!("`+genclient:method={name}` cannot name a method"),
                "name it as Go would, e.g. `+genclient:method=GetScale`",
            ));
            continue;
        }
        if let Err(why) = crdgen_apimachinery::names::label(subresource) {
            diags.push(error(format!("subresource `{subresource}` of `+genclient:method={name}` is not a resource name: {why}"), "subresources are lower-case words such as `scale` or `status`"));
            continue;
        }
        let resolve = |key: &str| -> Result<String, String> {
            match text(key) {
                None => Ok(naming::OBJECT.to_owned()),
                Some(path) => method_type(ctx, kind, path).ok_or_else(|| path.to_owned()),
            }
        };
        let (input, result) = match (resolve("input"), resolve("result")) {
            (Ok(i), Ok(r)) => (i, r),
            (Err(path), _) | (_, Err(path)) => {
                diags.push(error(format!("cannot name type `{path}` of `+genclient:method={name}`"), "write a Rust path (`k8s_openapi::api::autoscaling::v1::Scale`), a Go one (`k8s.io/api/autoscaling/v1.Scale`), or a type of this version"));
                continue;
            }
        };
        let method = naming::ident(&method_name);
        let (params, request) = match verb {
            "get" => (
                "name: &str".to_owned(),
                format!("get_subresource({subresource:?}, name)"),
            ),
            "create" | "update" => (
                format!("name: &str,\n        pp: &::kube::api::PostParams,\n        input: &{input},"),
                format!(
                    "{}_subresource(\n                {subresource:?},\n                name,\n                pp,\n                ::{runtime}::client::json_body(input)?,\n            )",
                    if verb == "create" { "create" } else { "replace" }
                ),
            ),
            "patch" => (
                "name: &str,\n        pp: &::kube::api::PatchParams,\n        patch: &::kube::api::Patch<P>,".to_owned(),
                format!("patch_subresource({subresource:?}, name, pp, patch)"),
            ),
            other => {
                diags.push(error(format!("`+genclient:method={name}` has verb `{other}`, which a subresource method cannot have"), "use verb=get, create, update or patch"));
                continue;
            }
        };
        let generics = if verb == "patch" {
            "<P: ::serde::Serialize>"
        } else {
            ""
        };
        let params = if params.contains('\n') {
            format!("\n        &self,\n        {params}\n    ")
        } else {
            format!("&self, {params}")
        };
        out.push_str(&format!(
            r#"    /// `{verb}` on the `{subresource}` subresource (`+genclient:method={name}`).
    pub async fn {method}{generics}({params}) -> ::kube::Result<{result}> {{
        let request = ::kube::core::Request::new(self.api.resource_url())
            .{request};
        let client = ::std::clone::Clone::clone(&self.api).into_client();
        ::{runtime}::client::send(&client, request).await
    }}
"#
        ));
    }
    out
}

/// A type named in a `+genclient:method` marker: a Rust path, a Go package path under
/// k8s.io/api or k8s.io/apimachinery, or a type of the kind's own version.
fn method_type(ctx: &Context<'_>, kind: &Kind, path: &str) -> Option<String> {
    let rust = if let Some(rest) = path.strip_prefix("k8s.io/api/") {
        let (package, name) = rest.rsplit_once('.')?;
        format!("::k8s_openapi::api::{}::{name}", package.replace('/', "::"))
    } else if let Some(rest) = path.strip_prefix("k8s.io/apimachinery/") {
        let (package, name) = rest.rsplit_once('.')?;
        format!(
            "::k8s_openapi::apimachinery::{}::{name}",
            package.replace('/', "::")
        )
    } else if path.contains("::") {
        path.to_owned()
    } else {
        let version = ctx
            .model
            .groups
            .get(&kind.root.group)?
            .versions
            .get(&kind.root.version)?;
        let def = version.types.values().find(|t| t.key.name == path)?;
        return Some(ctx.type_path(&def.key, def.reachable_via.as_deref()?));
    };
    super::absolute_path(&rust)
}
