//! `docs`: the API reference of every group version, from the CRDs the crd generator
//! builds (so that a page says what the apiserver enforces) and the model (the Rust
//! types behind the fields): a Markdown page per group version with an mdBook SUMMARY
//! fragment, and one self-contained HTML page of them all.

mod description;
mod html;
mod markdown;
mod reference;
mod samples;
mod words;

use std::collections::BTreeMap;

use serde_json::Value;

use super::crd::KindVersion;
use super::{Context, Definition, ManifestDir, Output};
use crate::diag::Diagnostics;
use crate::naming::docs as names;
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
    pub kinds: Vec<Section>,
}

/// One kind's section of a page, in both forms: rendered where the kind's CRD is built,
/// on all cores, and its rows let go.
pub struct Section {
    pub kind: String,
    pub anchor: String,
    pub markdown: String,
    pub html: String,
}

impl Section {
    fn of(doc: &KindDoc) -> Section {
        Section {
            kind: doc.kind.clone(),
            anchor: doc.anchor.clone(),
            markdown: markdown::kind_section(doc),
            html: html::kind_section(doc),
        }
    }
}

impl Page {
    /// `bcrds.example.com/v1alpha1`.
    pub fn title(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }
}

/// The sections of each version of one kind, by its group's directory and version.
pub(super) type KindSections = Vec<((String, String), Section)>;

pub(super) use samples::documents_of as samples;

fn generate(ctx: &Context<'_>, out: &mut Output, diags: &mut Diagnostics) {
    let kube_version = ctx.opts.kube_version;
    let (docs, found) = ctx.crd_sections();
    diags.extend(found.into_sorted());
    let mut pages: BTreeMap<(String, String), Page> = BTreeMap::new();
    for group in ctx.model.groups.values() {
        for version in group.versions.values() {
            pages.insert(
                (group.dir.clone(), version.name.clone()),
                Page {
                    group: group.name.clone(),
                    version: version.name.clone(),
                    kinds: Vec::new(),
                },
            );
        }
    }
    for (key, section) in docs.into_iter().flatten() {
        if let Some(page) = pages.get_mut(&key) {
            page.kinds.push(section);
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
    out.manifests
        .insert(names::SUMMARY_FILE.to_owned(), markdown::summary(&pages));
    // Each section is let go as it is laid into its page: a section is held once, then
    // its page (the HTML page of 1,000 kinds is 15 MB).
    let pages = crate::parallel::map_owned(pages, |mut page| {
        let file = names::page_file(&page.group, &page.version);
        let text = markdown::page(&mut page);
        (file, text, page)
    });
    let mut html_pages = Vec::with_capacity(pages.len());
    for (file, text, page) in pages {
        out.manifests.insert(file, text);
        html_pages.push(page);
    }
    out.manifests.insert(
        names::HTML_FILE.to_owned(),
        html::page(html_pages, kube_version),
    );
}

/// The section of each version of the kind `crd` (as the crd generator builds it, of
/// the group and kind `kv` names) is of, with its samples checked against that
/// version's schema. A kind's versions may stand in more than one group directory of
/// its API group.
pub(super) fn sections(
    ctx: &Context<'_>,
    crd: &Value,
    (group, _, kind): KindVersion<'_>,
    samples: &[samples::Document],
    diags: &mut Diagnostics,
) -> KindSections {
    let (model, kube_version) = (ctx.model, ctx.opts.kube_version);
    let mut out = Vec::new();
    for dir in model.groups.values().filter(|g| g.name == group.name) {
        for version in dir.versions.values() {
            let Some(kind) = version.kinds.get(&kind.name) else {
                continue;
            };
            let mut doc = reference::kind_doc(model, crd, kind, &version.name, kube_version);
            let schema = &reference::crd_version(crd, &version.name)["schema"]["openAPIV3Schema"];
            let api_version = format!("{}/{}", group.name, version.name);
            doc.samples = samples::of_kind(
                samples,
                (&api_version, &kind.name),
                schema,
                kube_version,
                diags,
            );
            out.push(((dir.dir.clone(), version.name.clone()), Section::of(&doc)));
        }
    }
    out
}
