//! A multi-version CRD evolving over five commits of a git repository, checked as a
//! project's CI checks it: each change regenerated, then `generate-groups --verify-only
//! --compat HEAD` against the CRDs of the commit before, its findings placed at the Rust
//! field or marker that made them, a deliberate break accepted in crdgen-compat.yaml.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::crdgen;

const GROUP: &str = "//! +groupName=shop.example.com\n\npub mod v1;\npub mod v1beta1;\n";

/// A version's Widget: `fields` inside its spec, `kind_markers` on the kind.
fn widget(kind_markers: &str, fields: &str) -> String {
    format!(
        r#"use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{{Deserialize, Serialize}};

/// +genclient
/// +kubebuilder:object:root=true
{kind_markers}#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Widget {{
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: WidgetSpec,
}}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {{
{fields}}}
"#
    )
}

const NAME_63: &str = "    /// +kubebuilder:validation:MaxLength=63\n    pub name: String,\n";
const SIZE: &str = "    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub size: Option<String>,\n";

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// v1's Widget, the storage version, with `fields` in its spec.
fn write_v1(dir: &Path, fields: &str) {
    write(
        dir,
        &[(
            "pkg/apis/shop/v1/widget.rs",
            &widget("/// +kubebuilder:storageversion\n", fields),
        )],
    );
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `generate-groups` of the CRDs of `groups`.
fn generate(groups: &str) -> Vec<&str> {
    vec![
        "generate-groups",
        "crd",
        "pkg/client",
        "pkg/apis",
        groups,
        "--kube-version",
        "1.37",
    ]
}

/// Regenerates, then checks against the last commit as CI would: the check's output.
fn regenerate_and_check(dir: &Path) -> Output {
    let out = crdgen(dir, &generate(BOTH));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut check = generate(BOTH);
    check.extend(["--verify-only", "--compat", "HEAD"]);
    crdgen(dir, &check)
}

const BOTH: &str = "shop:v1beta1,v1";

fn commit(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", message]);
}

/// A new git repository, on branch `main`, with a committer.
fn repository() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.email", "ci@example.com"]);
    git(dir, &["config", "user.name", "CI"]);
    repo
}

fn said(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn five_commits_of_a_crd_are_each_checked_against_the_one_before() {
    let repo = repository();
    let dir = repo.path();
    let fields = format!("{NAME_63}{SIZE}");

    // 1. v1beta1 alone; the first CRDs, checked against a revision with none.
    write(
        dir,
        &[
            (
                "pkg/apis/shop/mod.rs",
                "//! +groupName=shop.example.com\n\npub mod v1beta1;\n",
            ),
            (
                "pkg/apis/shop/v1beta1/mod.rs",
                "pub mod widget;\npub use widget::*;\n",
            ),
            ("pkg/apis/shop/v1beta1/widget.rs", &widget("", &fields)),
        ],
    );
    let out = crdgen(dir, &generate("shop:v1beta1"));
    assert!(out.status.success(), "{}", said(&out));
    commit(dir, "v1beta1");

    // 2. v1 beside it, made the storage version with no conversion webhook: a break,
    // accepted on purpose once, with why.
    write(
        dir,
        &[
            ("pkg/apis/shop/mod.rs", GROUP),
            (
                "pkg/apis/shop/v1/mod.rs",
                "pub mod widget;\npub use widget::*;\n",
            ),
            (
                "pkg/apis/shop/v1/widget.rs",
                &widget("/// +kubebuilder:storageversion\n", &fields),
            ),
        ],
    );
    let out = regenerate_and_check(dir);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(
        said(&out).starts_with(
            "error[E0032]: widgets.shop.example.com: its storage version changed from v1beta1 to v1"
        ),
        "{}",
        said(&out)
    );
    write(
        dir,
        &[(
            "crdgen-compat.yaml",
            "accept:\n  - rule: storage-version-changed\n    crd: widgets.shop.example.com\n    reason: v1beta1 and v1 have one schema\n",
        )],
    );
    let out = regenerate_and_check(dir);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        said(&out).contains("crdgen compat: 0 breaking, 0 to look at, 1 accepted"),
        "{}",
        said(&out)
    );
    commit(dir, "v1");

    // 3. An optional field: compatible, nothing said.
    let v1 = format!(
        "{fields}    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub color: Option<String>,\n"
    );
    write_v1(dir, &v1);
    let out = regenerate_and_check(dir);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        said(&out).contains("crdgen compat: 0 breaking, 0 to look at, 0 accepted"),
        "{}",
        said(&out)
    );
    commit(dir, "color");

    // 4. A bound tightened: the finding is at its marker, in the Rust source.
    let tighter = v1.replace("MaxLength=63", "MaxLength=30");
    write_v1(dir, &tighter);
    let out = regenerate_and_check(dir);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    let text = said(&out);
    assert!(
        text.starts_with("error[E0039]: widgets.shop.example.com v1 `.spec.name`: its maxLength tightened from 63 to 30\n  --> pkg/apis/shop/v1/widget.rs:20:9\n"),
        "{text}"
    );
    assert!(
        text.contains("/// +kubebuilder:validation:MaxLength=30"),
        "the source line is shown: {text}"
    );
    // The same as JSON, on standard output, for a CI tool.
    let mut check = generate(BOTH);
    check.extend(["--verify-only", "--compat", "HEAD", "--compat-json"]);
    let out = crdgen(dir, &check);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["errors"], 1);
    assert_eq!(json["findings"][0]["rule"], "bound-tightened");
    assert_eq!(json["findings"][0]["file"], "pkg/apis/shop/v1/widget.rs");
    assert_eq!(json["findings"][0]["old"], 63);
    assert_eq!(json["findings"][0]["new"], 30);
    // Loosened instead: compatible.
    let v1 = v1.replace("MaxLength=63", "MaxLength=100");
    write_v1(dir, &v1);
    let out = regenerate_and_check(dir);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    commit(dir, "names up to 100");

    // 5. A field removed and a CEL rule added to v1: the removal at the nearest field
    // the source still has, the rule (a warning) at its marker.
    let v1 = "    /// +kubebuilder:validation:MaxLength=100\n    /// +kubebuilder:validation:XValidation:rule=\"!self.startsWith('kube-')\",message=\"reserved\"\n    pub name: String,\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub color: Option<String>,\n".to_owned();
    write_v1(dir, &v1);
    let out = regenerate_and_check(dir);
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    let text = said(&out);
    let headlines: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.starts_with("error[")
                || l.starts_with("warning[")
                || l.trim_start().starts_with("-->")
        })
        .collect();
    assert_eq!(
        headlines,
        [
            "warning[E0042]: widgets.shop.example.com v1 `.spec.name`: a rule is added, `!self.startsWith('kube-')`",
            "  --> pkg/apis/shop/v1/widget.rs:21:9",
            "error[E0033]: widgets.shop.example.com v1 `.spec.size`: the field is removed",
            "  --> pkg/apis/shop/v1/widget.rs:14:9",
        ],
        "{text}"
    );
    assert!(
        text.contains("crdgen compat: 1 breaking, 1 to look at, 0 accepted"),
        "{text}"
    );
    // The removal accepted beside the storage change: the fifth commit.
    let mut config = std::fs::read_to_string(dir.join("crdgen-compat.yaml")).unwrap();
    config.push_str("  - rule: field-removed\n    crd: widgets.shop.example.com\n    version: v1\n    path: .spec.size\n    reason: sizes are colors now\n");
    write(dir, &[("crdgen-compat.yaml", &config)]);
    let out = regenerate_and_check(dir);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        said(&out).contains("crdgen compat: 0 breaking, 1 to look at, 1 accepted"),
        "{}",
        said(&out)
    );
    commit(dir, "size removed");
}

/// A kind whose spec holds a type of another group: a bound tightened there is placed at
/// its marker in that group's file on a rerun the stamp shows current (where only the
/// groups a finding needs are parsed), as on one that generates.
#[test]
fn a_finding_in_a_type_of_another_group_is_placed_at_its_marker() {
    let repo = repository();
    let dir = repo.path();
    let part = |max: u32| {
        format!(
            "//! +groupName=parts.example.com\nuse serde::{{Deserialize, Serialize}};\n\n#[derive(Clone, Debug, Serialize, Deserialize)]\npub struct Part {{\n    /// +kubebuilder:validation:MaxLength={max}\n    pub serial: String,\n}}\n"
        )
    };
    let holder = widget("", "    pub part: super::super::parts::v1::Part,\n");
    write(
        dir,
        &[
            (
                "pkg/apis/shop/mod.rs",
                "//! +groupName=shop.example.com\npub mod v1;\n",
            ),
            ("pkg/apis/shop/v1/mod.rs", &holder),
            ("pkg/apis/parts/mod.rs", "pub mod v1;\n"),
            ("pkg/apis/parts/v1/mod.rs", &part(63)),
            (
                "pkg/apis/other/mod.rs",
                "//! +groupName=other.example.com\npub mod v1;\n",
            ),
            (
                "pkg/apis/other/v1/mod.rs",
                &widget("", "    pub name: String,\n"),
            ),
        ],
    );
    const GROUPS: &str = "shop:v1 parts:v1 other:v1";
    let out = crdgen(dir, &generate(GROUPS));
    assert!(out.status.success(), "{}", said(&out));
    commit(dir, "parts");

    write(dir, &[("pkg/apis/parts/v1/mod.rs", &part(30))]);
    let out = crdgen(dir, &generate(GROUPS));
    assert!(out.status.success(), "{}", said(&out));
    let mut check = generate(GROUPS);
    check.extend(["--verify-only", "--compat", "HEAD"]);
    // First with the stamp the run left (beside the CRDs, its one output directory), then
    // without it, as a fresh clone has none.
    for stamped in [true, false] {
        let out = crdgen(dir, &check);
        assert_eq!(out.status.code(), Some(1), "{}", said(&out));
        assert!(
            said(&out).starts_with("error[E0039]: widgets.shop.example.com v1 `.spec.part.serial`: its maxLength tightened from 63 to 30\n --> pkg/apis/parts/v1/mod.rs:6:9\n"),
            "{}",
            said(&out)
        );
        if stamped {
            std::fs::remove_file(dir.join("config/crd/bases").join(crdgen::STAMP_FILE)).unwrap();
        }
    }
}
