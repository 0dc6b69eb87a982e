//! The command line, end to end: writing, verifying, pruning, refusing, exit codes.

mod common;

use std::path::Path;
use std::process::{Command, Output};

/// A scratch copy of the bundled example, with its generated code.
fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&common::testdata("example"), dir.path());
    dir
}

fn crdgen(base: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crdgen"))
        .args([
            "generate-groups",
            "all",
            "pkg/client",
            "pkg/apis",
            "bcrds:v1alpha1",
        ])
        .args(["--boilerplate", "hack/boilerplate.rs.txt", "--output-base"])
        .arg(base)
        // The copied example's Cargo.toml inherits from a workspace it is no longer in:
        // its version is given (the choice itself is tested below).
        .args(["--kube-version", "1.37"])
        .args(extra)
        .output()
        .unwrap()
}

/// A crate of one API type, depending on k8s-openapi with `features`.
fn crate_with_k8s_openapi(features: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let manifest = format!(
        "[package]\nname = \"chosen\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[dependencies]\nk8s-openapi = {{ version = \"0.29\", default-features = false, features = [\"std\", {features}] }}\n\n[workspace]\n"
    );
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    let version = dir.path().join("src/apis/bcrds/v1");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "pub mod apis;\n").unwrap();
    std::fs::write(
        version.join("mod.rs"),
        "//! +groupName=bcrds.example.com\nuse k8s_openapi::api::core::v1::PodSpec;\nuse k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;\n/// +kubebuilder:object:root=true\n#[derive(serde::Serialize, serde::Deserialize)]\npub struct Pod { #[serde(flatten, default)] pub types: Option<kube::core::TypeMeta>, pub metadata: ObjectMeta, pub spec: PodSpec }\n",
    )
    .unwrap();
    // Its lock: the workspace's versions (downloaded already), pruned to what it uses, as
    // building it once would leave it.
    std::fs::copy(
        common::testdata("../Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .unwrap();
    let locked = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "--depth", "0"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(locked.status.success(), "{}", stderr(&locked));
    dir
}

#[test]
fn the_kubernetes_version_is_the_one_the_crate_builds_k8s_openapi_for() {
    let command = |dir: &Path| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_crdgen"));
        command
            .args([
                "generate-groups",
                "crd",
                "src/client",
                "src/apis",
                "bcrds:v1",
                // Small enough for a client-side apply: a run without warnings is stamped.
                "--max-description-len=0",
            ])
            .current_dir(dir);
        command
    };
    let run_with = |dir: &Path, extra: &[&str]| command(dir).args(extra).output().unwrap();
    let run = |dir: &Path| run_with(dir, &[]);
    let dir = crate_with_k8s_openapi("\"v1_33\"");
    let out = run(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with("crdgen: Kubernetes 1.33, the k8s-openapi feature v1_33 of "),
        "{}",
        stderr(&out)
    );
    // 1.33's PodSpec lacks what 1.37's has: the CRD follows the crate's version.
    let crd_file = dir
        .path()
        .join("config/crd/bases/bcrds.example.com_pods.yaml");
    let crd = std::fs::read_to_string(&crd_file).unwrap();

    // A run with nothing to do does not ask cargo (which is not there for it)...
    let rerun = command(dir.path())
        .env("CARGO", dir.path().join("no-cargo-here"))
        .output()
        .unwrap();
    assert_eq!(rerun.status.code(), Some(0), "{}", stderr(&rerun));
    assert!(
        !stderr(&rerun).contains("Kubernetes 1.") && stderr(&rerun).contains("0 written"),
        "{}",
        stderr(&rerun)
    );
    // ...but a changed manifest is asked about again, and its version followed.
    let manifest = dir.path().join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("\"v1_33\"", "\"v1_35\"")).unwrap();
    let out = run(dir.path());
    assert!(
        stderr(&out).starts_with("crdgen: Kubernetes 1.35, the k8s-openapi feature v1_35 of "),
        "{}",
        stderr(&out)
    );
    assert_ne!(std::fs::read_to_string(&crd_file).unwrap(), crd);
    let latest = crate_with_k8s_openapi("\"latest\"");
    let out = run(latest.path());
    assert!(
        stderr(&out).starts_with("crdgen: Kubernetes 1.37, the k8s-openapi feature v1_37 of "),
        "{}",
        stderr(&out)
    );
    let newest = std::fs::read_to_string(
        latest
            .path()
            .join("config/crd/bases/bcrds.example.com_pods.yaml"),
    )
    .unwrap();
    assert!(crd.len() < newest.len(), "1.33's PodSpec is the smaller");

    // No Cargo.toml at all: the newest, said so.
    let bare = tempfile::tempdir().unwrap();
    common::copy_tree(&dir.path().join("src"), &bare.path().join("src"));
    let out = run(bare.path());
    assert!(
        stderr(&out).starts_with(
            "crdgen: Kubernetes 1.37, the newest crdgen has (no Cargo.toml at or above"
        ),
        "{}",
        stderr(&out)
    );
    // --kube-version wins, and is not remarked on.
    let out = run_with(dir.path(), &["--kube-version", "1.35"]);
    assert!(!stderr(&out).contains("Kubernetes 1."), "{}", stderr(&out));
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const REGISTER: &str = "pkg/client/apis/bcrds/v1alpha1/register.rs";

/// How many files the bundled example's generated trees (Rust, CRDs and the API
/// reference its layout has) hold.
fn generated_count() -> usize {
    [
        "example/pkg/client",
        "example/config/crd/bases",
        "example/docs/api",
    ]
    .iter()
    .flat_map(|dir| walkdir::WalkDir::new(common::testdata(dir)))
    .map(Result::unwrap)
    .filter(|e| e.file_type().is_file() && e.file_name() != crdgen::STAMP_FILE)
    .count()
}

#[test]
fn verify_only_passes_on_a_current_tree() {
    let dir = example();
    let out = crdgen(dir.path(), &["--verify-only"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains(&format!(
            "{} generated files are up to date",
            generated_count()
        )),
        "{}",
        stderr(&out)
    );
}

/// The stamp file's inode: a run that records a stamp replaces the file.
fn stamp_inode(base: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt as _;
    let stamp = base.join("pkg/client").join(crdgen::STAMP_FILE);
    std::fs::metadata(stamp).ok().map(|m| m.ino())
}

#[test]
fn a_stamped_rerun_does_nothing_and_an_edit_after_it_is_still_caught() {
    let dir = example();
    let _ = std::fs::remove_file(dir.path().join("pkg/client").join(crdgen::STAMP_FILE));
    let n = generated_count();
    let unchanged = format!("crdgen: 0 written, {n} unchanged, 0 removed\n");

    let out = crdgen(dir.path(), &[]);
    assert_eq!(stderr(&out), unchanged);
    let stamped = stamp_inode(dir.path()).expect("a writing run leaves a stamp");

    // The rerun stops at the stamp: it does not record a new one.
    let out = crdgen(dir.path(), &[]);
    assert_eq!(stderr(&out), unchanged);
    assert_eq!(stamp_inode(dir.path()), Some(stamped));
    let out = crdgen(dir.path(), &["--verify-only"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // A hand edit after the stamp: verify-only shows it, a run puts the file back.
    let path = dir.path().join(REGISTER);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"examples\"", "\"exampels\"")).unwrap();
    let out = crdgen(dir.path(), &["--verify-only"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with(&format!("crdgen: {REGISTER}: out of date\n")));
    let out = crdgen(dir.path(), &[]);
    assert_eq!(
        stderr(&out),
        format!("crdgen: 1 written, {} unchanged, 0 removed\n", n - 1)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert_ne!(
        stamp_inode(dir.path()),
        Some(stamped),
        "a write records anew"
    );

    // A changed input is not covered by the stamp (a comment: the output stays).
    let types = dir.path().join("pkg/apis/bcrds/v1alpha1/example_types.rs");
    let input = std::fs::read_to_string(&types).unwrap();
    std::fs::write(&types, format!("{input}\n// A comment.\n")).unwrap();
    let out = crdgen(dir.path(), &["--verify-only"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stamped = stamp_inode(dir.path());
    let out = crdgen(dir.path(), &[]);
    assert_eq!(stderr(&out), unchanged);
    assert_ne!(
        stamp_inode(dir.path()),
        stamped,
        "the run generated and recorded"
    );
}

/// Files another crdgen release generated: the drift check says to regenerate with this
/// one, as after an upgrade, whatever else differs.
#[test]
fn verify_only_after_an_upgrade_says_to_regenerate() {
    let dir = example();
    let _ = std::fs::remove_file(dir.path().join("pkg/client").join(crdgen::STAMP_FILE));
    let path = dir.path().join(REGISTER);
    let text = std::fs::read_to_string(&path).unwrap();
    let marker = format!(
        "// Code generated by crdgen {}. DO NOT EDIT.",
        env!("CARGO_PKG_VERSION")
    );
    assert!(text.contains(&marker), "{text}");
    let regenerate = "regenerate them with it";
    for (older, named) in [
        (
            "// Code generated by crdgen 0.0.9. DO NOT EDIT.",
            "crdgen 0.0.9's",
        ),
        (
            "// Code generated by crdgen. DO NOT EDIT.",
            "an earlier crdgen's",
        ),
    ] {
        std::fs::write(&path, text.replace(&marker, older)).unwrap();
        let out = crdgen(dir.path(), &["--verify-only"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let said = stderr(&out);
        assert!(
            said.contains(&format!(
                "the generated files are {named}, and this is crdgen {}",
                env!("CARGO_PKG_VERSION")
            )) && said.contains(regenerate),
            "{said}"
        );
    }
    // A hand edit under this release's header is drift, not an upgrade.
    std::fs::write(&path, text.replace("\"examples\"", "\"exampels\"")).unwrap();
    let out = crdgen(dir.path(), &["--verify-only"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!stderr(&out).contains(regenerate), "{}", stderr(&out));
}

#[test]
fn verify_only_reports_an_edited_file_with_its_diff_and_writes_nothing() {
    let dir = example();
    let path = dir.path().join(REGISTER);
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"examples\"", "\"exampels\"");
    std::fs::write(&path, &edited).unwrap();

    let out = crdgen(dir.path(), &["--verify-only"]);
    assert_eq!(out.status.code(), Some(1));
    let diff = stdout(&out);
    assert!(
        diff.starts_with(&format!(
            "crdgen: {REGISTER}: out of date\n--- a/{REGISTER}\n+++ b/{REGISTER}\n"
        )),
        "{diff}"
    );
    assert!(
        diff.contains("-        ::std::borrow::Cow::Borrowed(\"exampels\")\n"),
        "{diff}"
    );
    assert!(
        diff.contains("+        ::std::borrow::Cow::Borrowed(\"examples\")\n"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        edited,
        "verify-only wrote"
    );
}

#[test]
fn verify_only_reports_stale_and_missing_files() {
    let dir = example();
    let stale = dir.path().join("pkg/client/apis/bcrds/v1beta1.rs");
    std::fs::write(
        &stale,
        "// Code generated by crdgen. DO NOT EDIT.\npub const OLD: u8 = 0;\n",
    )
    .unwrap();
    std::fs::remove_file(dir.path().join("pkg/client/mod.rs")).unwrap();

    let out = crdgen(dir.path(), &["--verify-only"]);
    assert_eq!(out.status.code(), Some(1));
    let diff = stdout(&out);
    assert!(
        diff.contains("crdgen: pkg/client/apis/bcrds/v1beta1.rs: stale (no longer generated)\n"),
        "{diff}"
    );
    assert!(diff.contains("-pub const OLD: u8 = 0;\n"), "{diff}");
    assert!(
        diff.contains("crdgen: pkg/client/mod.rs: missing\n"),
        "{diff}"
    );
    assert!(stale.exists());
}

#[test]
fn writing_creates_updates_prunes_and_leaves_current_files_alone() {
    let dir = example();
    let client = dir.path().join("pkg/client");
    std::fs::remove_dir_all(&client).unwrap();
    // Every generated tree (the samples under config/samples stay: the reference shows them).
    std::fs::remove_dir_all(dir.path().join("config/crd")).unwrap();
    // The directory stays: it is what has `all` write the reference.
    std::fs::remove_dir_all(dir.path().join("docs/api")).unwrap();
    std::fs::create_dir(dir.path().join("docs/api")).unwrap();
    let out = crdgen(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "{} written, 0 unchanged, 0 removed",
            generated_count()
        )),
        "{}",
        stderr(&out)
    );
    let expected = common::testdata("example").join(REGISTER);
    assert_eq!(
        std::fs::read(dir.path().join(REGISTER)).unwrap(),
        std::fs::read(expected).unwrap()
    );

    // A stale generated file (in a directory of its own) is removed with its directory;
    // a hand-written file in the output tree is kept; current files are not rewritten.
    let stale_dir = client.join("apis/old");
    std::fs::create_dir_all(&stale_dir).unwrap();
    std::fs::write(
        stale_dir.join("mod.rs"),
        "// Code generated by crdgen. DO NOT EDIT.\n",
    )
    .unwrap();
    std::fs::write(client.join("notes.rs"), "// mine\n").unwrap();
    let modified = std::fs::metadata(dir.path().join(REGISTER))
        .unwrap()
        .modified()
        .unwrap();
    let out = crdgen(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "0 written, {} unchanged, 1 removed",
            generated_count()
        )),
        "{}",
        stderr(&out)
    );
    assert!(!stale_dir.exists());
    assert!(client.join("notes.rs").exists());
    assert_eq!(
        std::fs::metadata(dir.path().join(REGISTER))
            .unwrap()
            .modified()
            .unwrap(),
        modified
    );
}

#[test]
fn a_file_crdgen_did_not_generate_is_never_overwritten() {
    let dir = example();
    let path = dir.path().join(REGISTER);
    std::fs::write(&path, "// hand written\n").unwrap();
    let stub = "// Code generated by crdgen. DO NOT EDIT.\n";
    std::fs::write(dir.path().join("pkg/client/mod.rs"), stub).unwrap();

    let out = crdgen(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains(&format!("error[E0017]: `{REGISTER}` exists and was not generated by crdgen; refusing to overwrite it")), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "// hand written\n");
    // Nothing else was written either: the run stops before touching the disk.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("pkg/client/mod.rs")).unwrap(),
        stub
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = example();
    let unknown = Command::new(env!("CARGO_BIN_EXE_crdgen"))
        .args([
            "generate-groups",
            "register,lsiter",
            "pkg/client",
            "pkg/apis",
            "bcrds:v1alpha1",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    let err = stderr(&unknown);
    assert!(
        err.contains(
            "unknown generator `lsiter`; valid names: all, register, conversion, clone, deepcopy (= clone)"
        ),
        "{err}"
    );

    let outside = crdgen(dir.path(), &["--output-module", "crate::a-b"]);
    assert_eq!(outside.status.code(), Some(2));
    let escaping = Command::new(env!("CARGO_BIN_EXE_crdgen"))
        .args([
            "generate-groups",
            "all",
            "../client",
            "pkg/apis",
            "bcrds:v1alpha1",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(escaping.status.code(), Some(2));
    assert!(
        stderr(&escaping).contains("without `..`"),
        "{}",
        stderr(&escaping)
    );
}

#[test]
fn input_mistakes_exit_1_and_name_the_place() {
    let dir = example();
    let types = dir.path().join("pkg/apis/bcrds/v1alpha1/example_types.rs");
    let text = std::fs::read_to_string(&types)
        .unwrap()
        .replace("/// +genclient\n", "// +genclient\n");
    std::fs::write(&types, text).unwrap();
    let out = crdgen(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--> pkg/apis/bcrds/v1alpha1/example_types.rs:8:4"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn help_explains_the_command_with_an_example() {
    let out = Command::new(env!("CARGO_BIN_EXE_crdgen"))
        .args(["generate-groups", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for needle in [
        "GENERATORS",
        "OUTPUT_PKG",
        "APIS_PKG",
        "GROUPS_VERSIONS",
        "--go-header-file",
        "--verify-only",
        "--plural-exceptions",
        "crdgen generate-groups all pkg/client pkg/apis bcrds:v1alpha1",
        "Exit status",
    ] {
        assert!(help.contains(needle), "help lacks {needle}:\n{help}");
    }
}

#[cfg(unix)]
#[test]
fn an_output_directory_that_leads_outside_the_base_is_refused() {
    let dir = example();
    let outside = tempfile::tempdir().unwrap();
    std::fs::remove_dir_all(dir.path().join("pkg/client")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("pkg/client")).unwrap();
    let out = crdgen(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("error[E0017]: the output directory resolves outside the output base"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

/// `crdgen explain` prints each code's page, as `rustc --explain` does, and lists them
/// all without a code; a code it does not have is a usage error naming the others.
#[test]
fn explain_prints_every_codes_page() {
    let explain = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_crdgen"))
            .arg("explain")
            .args(args)
            .output()
            .unwrap()
    };
    let listed = explain(&[]);
    assert_eq!(listed.status.code(), Some(0));
    let listed = String::from_utf8(listed.stdout).unwrap();
    assert!(listed.lines().count() >= 22, "{listed}");
    for line in listed.lines() {
        let code = line.split(':').next().unwrap();
        let page = explain(&[code]);
        assert_eq!(page.status.code(), Some(0), "{code}");
        let page = String::from_utf8(page.stdout).unwrap();
        assert!(page.starts_with(&format!("# {line}")), "{page}");
        assert!(page.contains("## Fix"), "{page}");
    }
    let unknown = explain(&["E4242"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("E0007: a bad marker argument"));
}
