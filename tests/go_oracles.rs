//! The Go tools as oracles: controller-gen v0.23.0 (hack/go-tools.sh builds it from the Go
//! module proxy; CRDGEN_GO_TOOLS names the directory, as .ci/run sets it) run on the Go
//! twins of crdgen's APIs (testdata/go, each a Go module as a Go operator author writes
//! it), and each CRD it writes compared with crdgen's path by path. What differs by design
//! is listed with its reason in testdata/go/differences.yaml; nothing else may. Prints
//! `controller-gen v0.23.0: N of M documents equal`, and says skipped without the tools.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

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

#[derive(Deserialize)]
struct Difference {
    path: String,
    #[allow(dead_code)] // read by people: the file says why, the test checks the path
    why: String,
}

/// The directory of the Go tools, or `None` after saying why the suite is skipped (a
/// failure where CRDGEN_E2E_REQUIRED asks for every suite to run).
fn tools() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CRDGEN_GO_TOOLS") {
        return Some(dir.into());
    }
    let why = "go oracles: skipped: no CRDGEN_GO_TOOLS (export CRDGEN_GO_TOOLS=$(hack/go-tools.sh), which needs Go)";
    let required = std::env::var("CRDGEN_E2E_REQUIRED")
        .is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"));
    assert!(!required, "CRDGEN_E2E_REQUIRED is set: {why}");
    say(why);
    None
}

/// A line on stderr past the test harness's capture, so that a run's log shows it.
fn say(line: &str) {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{line}\n").as_bytes());
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

/// The paths where two documents differ, but those listed.
fn differences(ours: &Value, theirs: &Value, listed: &[Difference]) -> Vec<String> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    leaves(ours, String::new(), &mut a);
    leaves(theirs, String::new(), &mut b);
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    keys.into_iter()
        .filter(|path| a.get(*path) != b.get(*path))
        .filter(|path| {
            !listed
                .iter()
                .any(|d| *path == &d.path || path.starts_with(&format!("{}/", d.path)))
        })
        .map(|path| {
            format!(
                "{path}: crdgen {:?}, controller-gen {:?}",
                a.get(path),
                b.get(path)
            )
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
        for crd in twin.crds {
            total += 1;
            let theirs =
                common::yaml_documents(&std::fs::read_to_string(out.path().join(crd)).unwrap());
            let ours = common::yaml_documents(&common::generated_file(
                twin.case,
                &format!("config/crd/bases/{crd}"),
            ));
            let differ = differences(&ours[0], &theirs[0], &listed);
            match differ.is_empty() {
                true => equal += 1,
                false => found.push(format!("{}/{crd}:\n  {}", twin.module, differ.join("\n  "))),
            }
        }
    }
    say(&format!(
        "controller-gen {version}: {equal} of {total} documents equal"
    ));
    assert!(
        found.is_empty(),
        "crdgen and controller-gen differ where testdata/go/differences.yaml lists nothing:\n{}",
        found.join("\n")
    );
}
