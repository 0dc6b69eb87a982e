//! Generates a synthetic API tree (100 groups × 2 versions × 5 kinds, about 20 fields
//! each, with nested types, enums and CEL rules), every generator's output and the API
//! reference, and prints wall time and peak memory for a
//! first run, a no-op rerun and verifies, and verifies with the compatibility check
//! (`--compat HEAD`) beside the same verifies without it (medians of seven turns each).
//! Run it with `hack/bench-generate.sh`.
//!
//! Each run is a process of its own, as each `crdgen` command is: the bench runs itself
//! with `--run MODE DIR`, which makes one run and prints its time and peak memory.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use crdgen::{Mode, Outcome};

const GROUPS: usize = 100;
const VERSIONS: [&str; 2] = ["v1alpha1", "v1"];
const KINDS: usize = 5;

// The allocator the crdgen binary runs with.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // `--write-input DIR` only writes the synthetic tree, to run the CLI on it under a
    // profiler: `crdgen generate-groups all pkg/client pkg/apis 'group0:v1alpha1,v1 ...'`.
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--write-input") {
        let dir = args.get(i + 1).expect("--write-input DIR");
        let (files, bytes) = synthesize(Path::new(dir));
        println!("wrote {files} files, {} KiB, under {dir}", bytes / 1024);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--run") {
        let (mode, dir) = (&args[i + 1], Path::new(&args[i + 2]));
        one_run(mode, dir);
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (files, bytes) = synthesize(dir.path());
    println!(
        "input: {GROUPS} groups x {} versions x {KINDS} kinds: {files} files, {} KiB",
        VERSIONS.len(),
        bytes / 1024
    );

    // The second run and the first verify find the stamp the first run left; the last
    // two verify with the stamp removed (they must generate), and after a hand edit.
    let stamp = dir.path().join("pkg/client").join(crdgen::STAMP_FILE);
    let edited = dir.path().join("pkg/client/apis/group0/v1/mod.rs");
    for (run, mode) in [
        ("first run (writes)", "write"),
        ("second run (no changes)", "write"),
        ("verify-only", "verify"),
        ("verify-only, no stamp", "verify"),
        ("verify-only, hand edit", "verify"),
    ] {
        if run.ends_with("no stamp") {
            std::fs::remove_file(&stamp).expect("the first run leaves a stamp");
        }
        if run.ends_with("hand edit") {
            let text = std::fs::read_to_string(&edited).expect("generated file");
            std::fs::write(&edited, text + "// edited\n").expect("edit");
        }
        timed(run, mode, dir.path());
    }
    // The compatibility check beside the drift check (`--compat HEAD`), on the tree
    // committed to git: with nothing changed, then with one kind's bound tightened and
    // regenerated (its finding placed in the source, which takes the model).
    timed("(regenerate)", "write", dir.path());
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .current_dir(dir.path())
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&[
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@example.com",
        "commit",
        "-qm",
        "tree",
    ]);
    compared("verify-only, committed", dir.path());
    // As CI runs it, on a fresh clone: no stamp (it is not committed).
    std::fs::remove_file(&stamp).expect("the run leaves a stamp");
    compared("verify-only, CI", dir.path());
    let kind = dir.path().join("pkg/apis/group0/v1/kind0_types.rs");
    let text = std::fs::read_to_string(&kind).expect("kind file");
    std::fs::write(&kind, text.replacen("MaxLength=63", "MaxLength=30", 1)).expect("edit");
    timed("(regenerate one kind)", "write", dir.path());
    compared("verify-only, one changed", dir.path());
    std::fs::remove_file(&stamp).expect("the run leaves a stamp");
    compared("verify-only, CI", dir.path());
    println!(
        "{:<24} {:>8.1} ms  (the same files written by std::fs alone: the file system's floor)",
        "file system alone",
        file_system_floor(dir.path()) * 1e3
    );
    // CRDs alone (in memory, no I/O): 500 CRDs of two versions each, 1,000 kinds. The
    // first run reads the Kubernetes type data too; the fastest of five is the steady
    // figure on a noisy machine.
    let mut crd_only = options(dir.path());
    crd_only.generators = crdgen::Generator::parse_list("crd").unwrap();
    let mut times = Vec::new();
    let mut count = 0;
    for _ in 0..5 {
        let start = Instant::now();
        let generation = crdgen::generate(&crd_only).unwrap_or_else(|e| panic!("{e}"));
        times.push(start.elapsed().as_secs_f64() * 1e3);
        count = generation.manifests[&crdgen::Generator::Crd].len();
    }
    println!(
        "{:<24} {:>8.1} ms  ({count} CRDs of {} kinds, parse to YAML; first run {:.1} ms)",
        "crd generator alone",
        times.iter().copied().fold(f64::INFINITY, f64::min),
        GROUPS * VERSIONS.len() * KINDS,
        times[0],
    );
}

/// Times one run of `mode` in a process of its own, and prints it as `what`.
fn timed(what: &str, mode: &str, dir: &Path) {
    let (elapsed, summary) = run_once(mode, dir);
    println!("{what:<24} {elapsed:>8.1} ms  ({summary})");
}

/// The drift check beside the drift check with `--compat HEAD`, run in turns
/// ([`TURNS`] each, so that a noisy spell slows both alike): each one's median, and how
/// much slower the check makes it.
fn compared(what: &str, dir: &Path) {
    let (mut plain, mut checked) = (Vec::new(), Vec::new());
    let mut summaries = (String::new(), String::new());
    for _ in 0..TURNS {
        let (ms, summary) = run_once("verify", dir);
        plain.push(ms);
        summaries.0 = summary;
        let (ms, summary) = run_once("verify-compat", dir);
        checked.push(ms);
        summaries.1 = summary;
    }
    let (plain, checked) = (median(plain), median(checked));
    println!("{what:<24} {plain:>8.1} ms  ({})", summaries.0);
    println!(
        "{:<24} {checked:>8.1} ms  ({}; {:+.0}%)",
        "  with --compat HEAD",
        summaries.1,
        (checked / plain - 1.0) * 100.0
    );
}

/// Runs of each side of [`compared`].
const TURNS: usize = 7;

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// One run of `mode` in a process of its own: its milliseconds and what it printed.
fn run_once(mode: &str, dir: &Path) -> (f64, String) {
    settle_disk();
    let start = Instant::now();
    let out = std::process::Command::new(std::env::current_exe().expect("bench binary"))
        .args(["--run", mode])
        .arg(dir)
        .output()
        .expect("run");
    let elapsed = start.elapsed().as_secs_f64() * 1e3;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (elapsed, summary)
}

/// `generate-groups all,docs pkg/client pkg/apis` of every synthetic group, under `dir`:
/// every generator, the API reference among them.
fn options(dir: &Path) -> crdgen::Options {
    let groups: Vec<String> = (0..GROUPS)
        .map(|g| format!("group{g}:{}", VERSIONS.join(",")))
        .collect();
    let mut opts =
        crdgen::Options::new(dir, "pkg/client", "pkg/apis", &groups.join(" ")).expect("options");
    opts.generators.insert(crdgen::Generator::Docs);
    opts
}

/// One run of `mode` (`write` or `verify`) on the tree under `dir`, as the command line
/// makes it: prints what it did and the process's peak memory.
fn one_run(mode: &str, dir: &Path) {
    let opts = options(dir);
    let report = match mode {
        "verify" => crdgen::generate_groups(&opts, Mode::Verify),
        "verify-compat" => {
            let check = crdgen::CompatCheck {
                against: "HEAD".to_owned(),
                config: None,
                json: false,
            };
            crdgen::generate_groups_checked(&opts, Mode::Verify, &check)
        }
        _ => crdgen::generate_groups(&opts, Mode::Write),
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let mut summary = match report.outcome {
        Outcome::Current { files } => format!("{files} files current"),
        Outcome::Written(w) => format!("{} written, {} unchanged", w.written, w.unchanged),
        Outcome::Drift { changed, total, .. } => format!("{changed} of {total} files differ"),
    };
    if let Some(compat) = report.compat {
        summary.push_str(&format!("; {} breaking", compat.errors));
    }
    println!("{summary}; peak {:.1} MiB", memory("VmHWM"));
}

/// Seconds std::fs takes to create the generated trees (directories and files, the same
/// bytes) in a fresh directory beside them: what no generator can go below on this disk.
fn file_system_floor(base: &Path) -> f64 {
    let mut files = Vec::new();
    for dir in ["pkg/client", "config"] {
        for entry in walkdir::WalkDir::new(base.join(dir)) {
            let entry = entry.expect("walk");
            if entry.file_type().is_file() {
                let rel = entry
                    .path()
                    .strip_prefix(base)
                    .expect("below base")
                    .to_owned();
                files.push((rel, std::fs::read(entry.path()).expect("read")));
            }
        }
    }
    let copy = tempfile::tempdir().expect("temp dir");
    settle_disk();
    let start = Instant::now();
    for (rel, bytes) in &files {
        let path = copy.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
    start.elapsed().as_secs_f64()
}

/// Flushes what earlier steps wrote (the synthetic input, the run before), so that a
/// run is timed on a quiet disk rather than beside their write-back.
fn settle_disk() {
    let _ = std::process::Command::new("sync").status();
}

/// Resident memory in MiB, from /proc/self/status (Linux).
fn memory(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| {
            l.strip_prefix(field)?
                .trim_start_matches(':')
                .trim()
                .strip_suffix("kB")?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn synthesize(root: &Path) -> (usize, usize) {
    let (mut files, mut bytes) = (0, 0);
    let mut write = |path: &Path, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        files += 1;
        bytes += text.len();
    };
    let apis = root.join("pkg/apis");
    for g in 0..GROUPS {
        for version in VERSIONS {
            let dir = apis.join(format!("group{g}")).join(version);
            let mut module = format!("//! +groupName=group{g}.example.com\n\n");
            for k in 0..KINDS {
                let _ = writeln!(module, "pub mod kind{k}_types;\npub use kind{k}_types::*;");
                write(
                    &dir.join(format!("kind{k}_types.rs")),
                    &kind_file(k, version == "v1"),
                );
            }
            write(&dir.join("mod.rs"), &module);
        }
    }
    (files, bytes)
}

fn kind_file(k: usize, storage: bool) -> String {
    let storage = if storage {
        "\n/// +kubebuilder:storageversion"
    } else {
        ""
    };
    let mut spec = String::new();
    for f in 0..20 {
        let field = match f % 5 {
            0 => format!(
                "    /// Field {f}.\n    /// +kubebuilder:validation:MaxLength=63\n    pub name{f}: String,\n"
            ),
            1 => format!("    /// +kubebuilder:validation:Minimum=0\n    pub count{f}: i32,\n"),
            2 => format!(
                "    /// +optional\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub nested{f}: Option<Kind{k}Nested>,\n"
            ),
            3 => format!("    #[serde(default)]\n    pub items{f}: Vec<Kind{k}Nested>,\n"),
            _ => format!(
                "    #[serde(default)]\n    pub labels{f}: BTreeMap<String, String>,\n    pub mode{f}: Kind{k}Mode,\n"
            ),
        };
        spec.push_str(&field);
    }
    format!(
        r#"use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{{Condition, ObjectMeta}};
use kube::core::TypeMeta;
use serde::{{Deserialize, Serialize}};

/// Kind{k} is a synthetic kind.
///
/// +genclient
/// +kubebuilder:subresource:status
/// +kubebuilder:printcolumn:name="Count",type=integer,JSONPath=".spec.count1"{storage}
#[derive(Debug, Serialize, Deserialize)]
pub struct Kind{k} {{
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: Kind{k}Spec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Kind{k}Status>,
}}

/// The desired state.
///
/// +kubebuilder:validation:XValidation:rule="has(self.nested2) || self.count1 >= 0",message="count1 may not be negative without nested2"
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Kind{k}Spec {{
{spec}}}

/// A nested part.
///
/// +kubebuilder:validation:XValidation:rule="self.weight >= 0 || !self.enabled",message="an enabled part weighs 0 or more"
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Kind{k}Nested {{
    pub key: String,
    pub value: Option<String>,
    pub weight: i64,
    pub enabled: bool,
    pub tags: Vec<String>,
}}

/// A mode.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Kind{k}Mode {{
    Fast,
    Safe {{ retries: u32 }},
    Custom {{ value: String }},
}}

/// The observed state.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Kind{k}Status {{
    pub observed_generation: Option<i64>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}}
"#
    )
}
