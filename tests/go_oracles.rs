//! The Go tools as oracles: controller-gen v0.23.0 (hack/go-tools.sh builds it from the Go
//! module proxy; CRDGEN_GO_TOOLS names the directory, as .ci/run sets it) run on the Go
//! twins of crdgen's APIs (testdata/go, each a Go module as a Go operator author writes
//! it), and each CRD it writes compared with crdgen's path by path. What differs by design
//! is listed with its reason in testdata/go/differences.yaml; nothing else may. Prints
//! `controller-gen v0.23.0: N of M documents equal`, and says skipped without the tools. A
//! listed difference that no longer differs fails too.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crdgen_runtime::testing::cluster;
use serde::Deserialize;
use serde_json::Value;

/// A Go twin: its module under testdata/go, the crdgen case it mirrors, and the CRD
/// files both write.
struct Twin {
    module: &'static str,
    case: &'static str,
    crds: &'static [&'static str],
}

const TWINS: &[Twin] = &[Twin {
    module: "example",
    case: "example",
    crds: &["bcrds.example.com_examples.yaml"],
}];

/// A difference by design: the JSON pointer below which crdgen's CRD may differ, and why.
#[derive(Deserialize)]
struct Difference {
    path: String,
    why: String,
}

impl Difference {
    fn covers(&self, path: &str) -> bool {
        path == self.path || path.starts_with(&format!("{}/", self.path))
    }
}

/// The directory of the Go tools, or `None` after saying why the suite is skipped (a
/// failure where CRDGEN_E2E_REQUIRED asks for every suite to run).
fn tools() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CRDGEN_GO_TOOLS") {
        return Some(dir.into());
    }
    let why = "go oracles: skipped: no CRDGEN_GO_TOOLS (export CRDGEN_GO_TOOLS=$(hack/go-tools.sh), which needs Go)";
    assert!(
        !cluster::required(),
        "{}: {why}",
        cluster::REQUIRED_VARIABLE
    );
    common::bless::say(why);
    None
}

/// Every leaf of a JSON document by its JSON pointer.
fn leaves(value: &Value, at: String, out: &mut BTreeMap<String, Value>) {
    let escape = |key: &str| key.replace('~', "~0").replace('/', "~1");
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, v) in map {
                leaves(v, format!("{at}/{}", escape(key)), out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, v) in items.iter().enumerate() {
                leaves(v, format!("{at}/{i}"), out);
            }
        }
        leaf => {
            out.insert(at, leaf.clone());
        }
    }
}

/// The JSON pointers where two documents differ, each with both values.
fn differences(ours: &Value, theirs: &Value) -> Vec<(String, String)> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    leaves(ours, String::new(), &mut a);
    leaves(theirs, String::new(), &mut b);
    let paths: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    paths
        .into_iter()
        .filter(|path| a.get(*path) != b.get(*path))
        .map(|path| {
            let values = format!("crdgen {:?}, controller-gen {:?}", a.get(path), b.get(path));
            (path.clone(), values)
        })
        .collect()
}

#[test]
fn controller_gen_writes_the_crds_crdgen_writes() {
    let Some(tools) = tools() else { return };
    let listed: Vec<Difference> = serde_yaml_ng::from_str(
        &std::fs::read_to_string(common::testdata("go/differences.yaml")).unwrap(),
    )
    .unwrap();
    let controller_gen = tools.join("controller-gen");
    let version = std::process::Command::new(&controller_gen)
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&version.stdout)
        .trim()
        .trim_start_matches("Version: ")
        .to_owned();
    for listed in &listed {
        assert!(
            !listed.why.trim().is_empty(),
            "{}: say why it differs",
            listed.path
        );
    }
    let mut used = BTreeSet::new();
    let (mut equal, mut total, mut found) = (0, 0, Vec::new());
    for twin in TWINS {
        let out = tempfile::tempdir().unwrap();
        let ran = std::process::Command::new(&controller_gen)
            .args([
                "crd",
                "paths=./...",
                &format!("output:crd:dir={}", out.path().display()),
            ])
            .current_dir(common::testdata("go").join(twin.module))
            .output()
            .unwrap();
        assert!(
            ran.status.success(),
            "controller-gen on {}: {}",
            twin.module,
            String::from_utf8_lossy(&ran.stderr)
        );
        let generated = common::generate_files(&common::case(twin.case).options());
        for crd in twin.crds {
            total += 1;
            let theirs =
                common::yaml_documents(&std::fs::read_to_string(out.path().join(crd)).unwrap());
            let path = format!("config/crd/bases/{crd}");
            let (_, ours) = generated
                .iter()
                .find(|(p, _)| *p == path)
                .unwrap_or_else(|| panic!("{} generates no {path}", twin.case));
            let ours = common::yaml_documents(ours);
            let mut unlisted = Vec::new();
            for (path, values) in differences(&ours[0], &theirs[0]) {
                match listed.iter().position(|d| d.covers(&path)) {
                    Some(i) => {
                        used.insert(i);
                    }
                    None => unlisted.push(format!("{path}: {values}")),
                }
            }
            match unlisted.is_empty() {
                true => equal += 1,
                false => found.push(format!(
                    "{}/{crd}:\n  {}",
                    twin.module,
                    unlisted.join("\n  ")
                )),
            }
        }
    }
    common::bless::say(&format!(
        "controller-gen {version}: {equal} of {total} documents equal"
    ));
    assert!(
        found.is_empty(),
        "crdgen and controller-gen differ where testdata/go/differences.yaml lists nothing:\n{}",
        found.join("\n")
    );
    let stale: Vec<&str> = (0..listed.len())
        .filter(|i| !used.contains(i))
        .map(|i| listed[i].path.as_str())
        .collect();
    assert!(
        stale.is_empty(),
        "listed in testdata/go/differences.yaml but no longer different: {stale:?}"
    );
}
