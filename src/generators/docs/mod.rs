//! `docs`: the API reference of every group version, from the CRDs the crd generator
//! builds (so that a page says what the apiserver enforces) and the model (the Rust
//! types behind the fields): a Markdown page per group version with an mdBook SUMMARY
//! fragment, and one self-contained HTML page of them all.

mod html;
mod markdown;
mod reference;
mod samples;
mod words;

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Context, Definition, ManifestDir, Output};
use crate::diag::Diagnostics;
use crate::model::Model;
use crate::naming::docs as names;
use crate::options::Generator;
use reference::KindDoc;

/// The `docs` generator.
pub(super) const GENERATOR: Definition = Definition::manifests(
    "docs",
    ManifestDir {
        flag: "--docs-dir",
        default: "docs/api",
        build: names::BUILD_DIR,
    },
    generate,
)
.not_in_all();

/// One group version's page.
pub struct Page {
    pub group: String,
    pub version: String,
    pub kinds: Vec<KindDoc>,
}

impl Page {
    /// `bcrds.example.com/v1alpha1`.
    pub fn title(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }
}

fn generate(ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics) {
    let samples = samples::read(ctx.opts, diags);
    let kube_version = ctx.opts.kube_version;
    // Each CRD as the crd generator builds it, read into its kinds' versions on all
    // cores and let go. What building one finds is the crd generator's to report when it
    // runs too.
    let mut built = Diagnostics::default();
    let docs = super::crd::each_value(ctx.model, ctx.opts, &mut built, |crd| {
        let mut found = Diagnostics::default();
        let docs = kind_docs(ctx.model, &crd, &samples, kube_version, &mut found);
        (docs, found)
    });
    if !ctx.opts.generators.contains(&Generator::Crd) {
        diags.extend(built.into_sorted());
    }
    let mut pages: BTreeMap<(&str, &str), Page> = BTreeMap::new();
    for group in ctx.model.groups.values() {
        for version in group.versions.values() {
            pages.insert(
                (&group.dir, &version.name),
                Page {
                    group: group.name.clone(),
                    version: version.name.clone(),
                    kinds: Vec::new(),
                },
            );
        }
    }
    for (kinds, found) in docs {
        diags.extend(found.into_sorted());
        for ((dir, version), doc) in kinds {
            if let Some(page) = pages.get_mut(&(dir, version)) {
                page.kinds.push(doc);
            }
        }
    }
    let pages: Vec<Page> = pages
        .into_values()
        .filter(|p| !p.kinds.is_empty())
        .map(|mut p| {
            p.kinds.sort_by(|a, b| a.kind.cmp(&b.kind));
            p
        })
        .collect();
    for page in &pages {
        out.manifests.insert(
            names::page_file(&page.group, &page.version),
            markdown::page(page),
        );
    }
    out.manifests
        .insert(names::SUMMARY_FILE.to_owned(), markdown::summary(&pages));
    out.manifests.insert(
        names::HTML_FILE.to_owned(),
        html::page(&pages, kube_version),
    );
}

/// The reference of each version of the kind `crd` is of, by its group's directory
/// and version, with its samples checked against that version's schema.
fn kind_docs<'m>(
    model: &'m Model,
    crd: &Value,
    samples: &[samples::Document],
    kube_version: crate::known::KubeVersion,
    diags: &mut Diagnostics,
) -> Vec<((&'m str, &'m str), KindDoc)> {
    let group_name = crd["spec"]["group"].as_str().unwrap_or_default();
    let kind_name = crd["spec"]["names"]["kind"].as_str().unwrap_or_default();
    let mut out = Vec::new();
    for group in model.groups.values().filter(|g| g.name == group_name) {
        for version in group.versions.values() {
            let Some(kind) = version.kinds.get(kind_name) else {
                continue;
            };
            let mut doc = reference::kind_doc(model, crd, kind, &version.name, kube_version);
            let schema = crd["spec"]["versions"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|v| v["name"] == version.name.as_str())
                .map_or(&Value::Null, |v| &v["schema"]["openAPIV3Schema"]);
            let api_version = format!("{group_name}/{}", version.name);
            doc.samples = samples::of_kind(
                samples,
                (&api_version, kind_name),
                schema,
                kube_version,
                diags,
            );
            out.push(((group.dir.as_str(), version.name.as_str()), doc));
        }
    }
    out
}
