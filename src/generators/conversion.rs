//! Webhook conversion for the kinds marked `+crdgen:conversion:webhook`, as kubebuilder's
//! Hub and Convertible: every version converts to and from the hub (the storage version)
//! through `From` impls the user writes, so any two versions convert through it.
//! Brought along by `register`: `apis::<group>::conversion::<kind>(object, to)`, each
//! group's `convert`, and `apis::convert` over all groups, which a conversion webhook
//! (`crdgen_runtime::webhook::Webhooks::converter`) serves.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{Context, Definition, Output};
use crate::diag::Diagnostics;
use crate::model::Kind;
use crate::naming;

const RESULT: &str = "::std::result::Result<::serde_json::Value, ::std::string::String>";

/// One served version of a kind.
struct Served<'a> {
    /// The version's name: `v1`.
    version: &'a str,
    /// `group/version`, as objects carry it.
    api_version: String,
    kind: &'a Kind,
}

/// The `conversion` generator.
pub(super) const GENERATOR: Definition = Definition::rust("conversion", generate);

fn generate(ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics) {
    let tree = &mut out.rust;
    let mut groups = String::new();
    for group in ctx.model.groups.values() {
        // Kind name → every served version of it.
        let mut kinds: BTreeMap<&str, Vec<Served>> = BTreeMap::new();
        for version in group.versions.values() {
            for kind in version.kinds.values().filter(|k| k.is_served()) {
                kinds.entry(&kind.name).or_default().push(Served {
                    version: &version.name,
                    api_version: format!("{}/{}", group.name, version.name),
                    kind,
                });
            }
        }
        kinds.retain(|_, versions| versions.iter().any(|v| v.kind.converts_by_webhook()));
        if kinds.is_empty() {
            continue;
        }
        let mut text = String::new();
        let mut arms = String::new();
        for (name, versions) in &kinds {
            let Some(function) = kind_conversion(ctx, name, versions, diags) else {
                continue;
            };
            text.push_str(&function);
            let _ = writeln!(
                arms,
                "        ::std::option::Option::Some({name:?}) => {}(object, to),",
                naming::ident(&naming::conversion::kind_function(name))
            );
        }
        let _ = write!(
            text,
            r#"/// Converts an object of this group's kinds that convert by webhook to `to`.
pub fn convert(object: ::serde_json::Value, to: &str) -> {RESULT} {{
    match object.get("kind").and_then(::serde_json::Value::as_str) {{
{arms}        other => ::std::result::Result::Err(::std::format!("no conversion for kind {{other:?}} in `{group}`")),
    }}
}}
"#,
            group = group.name,
        );
        ctx.apis_group_module(tree, &group.dir)
            .child(naming::modules::CONVERSION, || {
                "Webhook conversion between this group's versions, through each kind's hub."
                    .to_owned()
            })
            .push_text(&text);
        // Every apiVersion of the group's converting kinds goes to the group's `convert`.
        let api_versions: BTreeSet<&str> = kinds
            .values()
            .flatten()
            .map(|v| v.api_version.as_str())
            .collect();
        let patterns: Vec<String> = api_versions.iter().map(|v| format!("{v:?}")).collect();
        let _ = writeln!(
            groups,
            "        {} => {}::{}::convert(object, to),",
            patterns.join(" | "),
            naming::ident(&group.dir),
            naming::modules::CONVERSION
        );
    }
    if groups.is_empty() {
        return;
    }
    ctx.apis_root_module(tree).push_text(&format!(
            r#"/// Converts an object of any kind that converts by webhook to the apiVersion `to`:
/// what a conversion webhook serves for every CRD of this crate.
pub fn convert(object: ::serde_json::Value, to: &str) -> {RESULT} {{
    match to {{
{groups}        other => ::std::result::Result::Err(::std::format!("no conversion into {{other:?}}")),
    }}
}}
"#
        ));
}

/// The conversion of one kind between its versions, through its hub.
fn kind_conversion(
    ctx: &Context<'_>,
    name: &str,
    versions: &[Served],
    diags: &mut Diagnostics,
) -> Option<String> {
    // The hub is the CRD's storage version, chosen as the crd generator chooses it.
    let named: Vec<(&str, &Kind)> = versions.iter().map(|v| (v.version, v.kind)).collect();
    let hub = match crate::model::storage_version(&named)? {
        Ok(index) => &versions[index],
        Err(d) => {
            diags.push(d);
            return None;
        }
    };
    let hub_type = ctx.type_path(&hub.kind.root, &hub.kind.path);
    let mut from_arms = String::new();
    let mut to_arms = String::new();
    for Served {
        api_version, kind, ..
    } in versions
    {
        let ty = ctx.type_path(&kind.root, &kind.path);
        let (from, to) = if api_version == &hub.api_version {
            (
                "::serde_json::from_value::<HUB>(object).map_err(|e| e.to_string())?".to_owned(),
                "::serde_json::to_value(hub)".to_owned(),
            )
        } else {
            (
                format!(
                    "<HUB as ::std::convert::From<{ty}>>::from(::serde_json::from_value::<{ty}>(object).map_err(|e| e.to_string())?)"
                ),
                format!("::serde_json::to_value(<{ty} as ::std::convert::From<HUB>>::from(hub))"),
            )
        };
        let _ = writeln!(
            from_arms,
            "        {api_version:?} => {},",
            from.replace("HUB", &hub_type)
        );
        let _ = writeln!(
            to_arms,
            "        {api_version:?} => {},",
            to.replace("HUB", &hub_type)
        );
    }
    Some(format!(
        r#"/// Converts a `{name}` (of any version) to the apiVersion `to`, through the hub `{hub_version}`:
/// the `From` impls between each version and the hub do the work; metadata is carried
/// over as it was.
pub fn {function}(object: ::serde_json::Value, to: &str) -> {RESULT} {{
    let metadata = object.get("metadata").cloned();
    let from = object
        .get("apiVersion")
        .and_then(::serde_json::Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let hub: {hub_type} = match from.as_str() {{
{from_arms}        other => return ::std::result::Result::Err(::std::format!("cannot convert a `{name}` from {{other:?}}")),
    }};
    let mut out = match to {{
{to_arms}        other => return ::std::result::Result::Err(::std::format!("cannot convert a `{name}` to {{other:?}}")),
    }}
    .map_err(|e| e.to_string())?;
    if let ::std::option::Option::Some(fields) = out.as_object_mut() {{
        fields.insert("apiVersion".to_owned(), to.into());
        fields.insert("kind".to_owned(), {name:?}.into());
        if let ::std::option::Option::Some(metadata) = metadata {{
            fields.insert("metadata".to_owned(), metadata);
        }}
    }}
    ::std::result::Result::Ok(out)
}}

"#,
        hub_version = hub.api_version,
        function = naming::ident(&naming::conversion::kind_function(name)),
    ))
}
