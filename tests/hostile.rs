//! Hostile and careless input through the command line (issue 10's cases, by number):
//! nothing is written outside the output directories, nothing panics, nothing on disk
//! is lost, and concurrent runs are safe. Each test works in a sandbox holding a copy
//! of the bundled example (`base`) and a directory a link may point at (`outside`),
//! and checks the whole sandbox afterwards.

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::process::{Command, Output};

const TYPES: &str = "pkg/apis/bcrds/v1alpha1/example_types.rs";
const VERSION_MOD: &str = "pkg/apis/bcrds/v1alpha1/mod.rs";
const REGISTER: &str = "pkg/client/apis/bcrds/v1alpha1/register.rs";
const CRD: &str = "config/crd/bases/bcrds.example.com_examples.yaml";

struct Sandbox {
    root: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let root = tempfile::tempdir().unwrap();
        common::copy_tree(&common::testdata("example"), &root.path().join("base"));
        std::fs::create_dir(root.path().join("outside")).unwrap();
        std::fs::write(root.path().join("outside/keep.txt"), "not crdgen's").unwrap();
        Sandbox { root }
    }

    fn base(&self) -> PathBuf {
        self.root.path().join("base")
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.base().join(rel)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = self.read(rel);
        assert!(text.contains(from), "{rel} has no `{from}`");
        self.write(rel, &text.replacen(from, to, 1));
    }

    /// `crdgen generate-groups GENERATORS pkg/client pkg/apis bcrds:v1alpha1` on the base.
    fn generate(&self, generators: &str, extra: &[&str]) -> Output {
        let mut args = vec![
            "generate-groups",
            generators,
            "pkg/client",
            "pkg/apis",
            "bcrds:v1alpha1",
            "--boilerplate",
            "hack/boilerplate.rs.txt",
            "--output-base",
            "base",
        ];
        args.extend_from_slice(extra);
        crdgen(self.root.path(), &args)
    }

    /// Every file, link and directory of the sandbox with its content and mode.
    fn fingerprint(&self) -> BTreeMap<PathBuf, (String, u32)> {
        walkdir::WalkDir::new(self.root.path())
            .sort_by_file_name()
            .into_iter()
            .map(|e| e.unwrap())
            .map(|e| {
                let meta = e.path().symlink_metadata().unwrap();
                let content = if meta.file_type().is_symlink() {
                    format!("-> {}", std::fs::read_link(e.path()).unwrap().display())
                } else if meta.is_file() {
                    String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned()
                } else {
                    String::new()
                };
                let rel = e.path().strip_prefix(self.root.path()).unwrap().to_owned();
                (rel, (content, meta.permissions().mode()))
            })
            .collect()
    }
}

use common::crdgen;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `run` and asserts it exits with `code`, prints each of `says`, and changes
/// nothing in the sandbox.
fn refused(sandbox: &Sandbox, code: i32, says: &[&str], run: impl FnOnce() -> Output) {
    let before = sandbox.fingerprint();
    let out = run();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{err}");
    for s in says {
        assert!(err.contains(s), "expected `{s}` in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(before, sandbox.fingerprint(), "the sandbox changed:\n{err}");
}

/// A marker-style kind, for files the tests add.
fn kind_file(name: &str, markers: &str) -> String {
    format!(
        "use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;\nuse kube::core::TypeMeta;\n\n\
         /// +genclient\n{markers}pub struct {name} {{\n    #[serde(flatten, default)]\n    pub types: Option<TypeMeta>,\n    pub metadata: ObjectMeta,\n    pub spec: i32,\n}}\n"
    )
}

#[test]
fn case_1_names_that_are_paths_are_refused_where_they_are_declared() {
    let s = Sandbox::new();
    s.edit(
        TYPES,
        "pub struct Example {",
        "/// +kubebuilder:resource:path=x/../../../../../pwn\npub struct Example {",
    );
    refused(
        &s,
        1,
        &["error[E0013]", "example_types.rs:", "`/` is not allowed"],
        || s.generate("crd", &[]),
    );

    let s = Sandbox::new();
    s.edit(
        "pkg/apis/bcrds/mod.rs",
        "+groupName=bcrds.example.com",
        "+groupName=../../../../x/grp",
    );
    refused(
        &s,
        1,
        &["error[E0013]", "pkg/apis/bcrds/mod.rs:3:5"],
        || s.generate("all", &[]),
    );

    let s = Sandbox::new();
    refused(&s, 2, &["`../../x` is not a DNS-1035 label"], || {
        s.generate("all", &["--plural-exceptions", "Example:../../x"])
    });
    refused(&s, 2, &["not an API group name"], || {
        crdgen(
            s.root.path(),
            &[
                "init",
                "op",
                "--group",
                "a.b/../../x",
                "--version",
                "v1",
                "--kind",
                "A",
            ],
        )
    });
}

#[test]
fn case_2_no_write_follows_a_symbolic_link_out_of_the_output() {
    let s = Sandbox::new();
    let listers = s.path("pkg/client/listers");
    std::fs::remove_dir_all(&listers).unwrap();
    std::os::unix::fs::symlink(s.root.path().join("outside"), &listers).unwrap();
    refused(
        &s,
        1,
        &["error[E0017]", "`pkg/client/listers` is a symbolic link"],
        || s.generate("all", &[]),
    );
}

#[test]
fn case_3_raw_identifiers_generate_code_instead_of_panicking() {
    let s = Sandbox::new();
    s.write(
        "pkg/apis/bcrds/v1alpha1/match_types.rs",
        &kind_file("r#match", ""),
    );
    s.edit(
        VERSION_MOD,
        "pub mod example_types;",
        "pub mod example_types;\npub mod match_types;",
    );
    let out = s.generate("all", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let client = s.read("pkg/client/clientset/bcrds/v1alpha1/match.rs");
    assert!(client.contains("pub struct matchClient"), "{client}");
    assert!(client.contains("match_types::r#match"), "{client}");
    assert!(
        s.read("config/crd/bases/bcrds.example.com_matches.yaml")
            .contains("kind: match")
    );

    // Path keywords, which no raw identifier spells, get a `_`, in the file name too.
    let s = Sandbox::new();
    let types = kind_file("Crate", "")
        + &kind_file("Selfie", "/// +kubebuilder:resource:path=self\n").replace("use ", "// use ");
    s.write("pkg/apis/bcrds/v1alpha1/crate_types.rs", &types);
    s.edit(
        VERSION_MOD,
        "pub mod example_types;",
        "pub mod example_types;\npub mod crate_types;",
    );
    let out = s.generate("all", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let version = s.read("pkg/client/clientset/bcrds/v1alpha1/mod.rs");
    assert!(
        version.contains("pub mod crate_;") && version.contains("pub fn self_("),
        "{version}"
    );
    assert!(
        s.path("pkg/client/clientset/bcrds/v1alpha1/crate_.rs")
            .is_file()
    );
    assert!(
        s.path("pkg/client/listers/bcrds/v1alpha1/crate_.rs")
            .is_file()
    );

    let s = Sandbox::new();
    refused(&s, 2, &["`r#match` is not a DNS-1035 label"], || {
        s.generate("all", &["--plural-exceptions", "Example:r#match"])
    });
}

#[test]
fn case_4_deep_nesting_is_a_diagnostic_not_a_stack_overflow() {
    for ty in [
        format!("{}i32{}", "Option<".repeat(400), ">".repeat(400)),
        format!("{}i32{}", "(".repeat(400), ",)".repeat(400)),
    ] {
        let s = Sandbox::new();
        s.edit(
            TYPES,
            "pub struct ExampleSpec {",
            &format!("pub struct ExampleSpec {{\n    pub deep: {ty},"),
        );
        refused(
            &s,
            1,
            &[
                "error[E0021]",
                "nests deeper than 128 levels",
                "example_types.rs:",
            ],
            || s.generate("all", &[]),
        );
    }
    let s = Sandbox::new();
    let modules = format!(
        "{}pub struct X;{}",
        "mod m {".repeat(5000),
        "}".repeat(5000)
    );
    s.edit(
        TYPES,
        "pub struct ExampleSpec {",
        &format!("{modules}\npub struct ExampleSpec {{"),
    );
    refused(&s, 1, &["error[E0021]"], || s.generate("all", &[]));
}

#[test]
fn case_5_endless_input_files_are_capped() {
    let s = Sandbox::new();
    refused(&s, 1, &["error[E0021]", "larger than 65536 bytes"], || {
        let args = [
            "generate-groups",
            "all",
            "pkg/client",
            "pkg/apis",
            "bcrds:v1alpha1",
        ];
        crdgen(
            &s.base(),
            &[&args[..], &["--boilerplate", "/dev/zero"]].concat(),
        )
    });
}

#[test]
fn case_7_linked_and_directory_type_files_are_read_not_skipped() {
    // A type file that is a link to a file elsewhere is read as if it were here: the
    // generated tree stays exactly as it is.
    let s = Sandbox::new();
    let elsewhere = s.root.path().join("outside/example_types.rs");
    std::fs::rename(s.path(TYPES), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, s.path(TYPES)).unwrap();
    let out = s.generate("all", &["--verify-only"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // So is `example_types/mod.rs`.
    let s = Sandbox::new();
    let text = s.read(TYPES);
    std::fs::remove_file(s.path(TYPES)).unwrap();
    s.write("pkg/apis/bcrds/v1alpha1/example_types/mod.rs", &text);
    let out = s.generate("all", &["--verify-only"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // A broken link is an error, and nothing generated from the file is pruned.
    let s = Sandbox::new();
    std::fs::remove_file(s.path(TYPES)).unwrap();
    std::os::unix::fs::symlink(s.root.path().join("outside/gone.rs"), s.path(TYPES)).unwrap();
    refused(&s, 1, &["error[E0002]", "example_types.rs"], || {
        s.generate("all", &[])
    });
}

#[test]
fn case_10_create_api_never_overwrites_and_an_error_changes_nothing() {
    let s = Sandbox::new();
    let project = s.root.path().join("op");
    let runtime = common::testdata("../runtime").display().to_string();
    let init = crdgen(
        s.root.path(),
        &[
            "init",
            "op",
            "--group",
            "bcrds.example.com",
            "--version",
            "v1alpha1",
            "--kind",
            "Example",
            "--runtime-path",
            &runtime,
        ],
    );
    assert_eq!(init.status.code(), Some(0), "{}", stderr(&init));
    let create = |kind: &str| {
        let dir = project.display().to_string();
        crdgen(
            s.root.path(),
            &[
                "create",
                "api",
                "--group",
                "bcrds.example.com",
                "--version",
                "v1alpha1",
                "--kind",
                kind,
                "--dir",
                &dir,
            ],
        )
    };

    std::fs::write(project.join("src/controller/widget.rs"), "// mine\n").unwrap();
    refused(
        &s,
        2,
        &["src/controller/widget.rs` exists", "never overwrites"],
        || create("Widget"),
    );

    // A kind that lives in a file of another name: the generation after the scaffolding
    // fails, and the scaffolding is undone.
    std::fs::remove_file(project.join("src/controller/widget.rs")).unwrap();
    let types = project.join("src/apis/bcrds/v1alpha1/mod.rs");
    let mut module = std::fs::read_to_string(&types).unwrap();
    module.push_str("pub mod gadgets;\n");
    std::fs::write(&types, module).unwrap();
    std::fs::write(
        project.join("src/apis/bcrds/v1alpha1/gadgets.rs"),
        kind_file("Gadget", ""),
    )
    .unwrap();
    refused(
        &s,
        1,
        &["error[E0010]", "kind `Gadget` is declared twice"],
        || create("Gadget"),
    );
}

#[test]
fn case_11_and_12_init_validates_every_value_before_a_template_sees_it() {
    let s = Sandbox::new();
    let init = |name: &str, group: &str, kind: &str| {
        crdgen(
            s.root.path(),
            &[
                "init",
                name,
                "--group",
                group,
                "--version",
                "v1alpha1",
                "--kind",
                kind,
            ],
        )
    };
    refused(&s, 2, &["not an API group name"], || {
        init("op", "bcrds.ex\"ample.com", "Example")
    });
    refused(&s, 2, &["not an API group name"], || {
        init("op", "bcrds.{{kind}}.com", "Example")
    });
    refused(&s, 2, &["`match` cannot name a Rust crate"], || {
        init("match", "bcrds.example.com", "Example")
    });
    refused(&s, 2, &["not a kind name"], || {
        init("op", "bcrds.example.com", &format!("K{}", "x".repeat(70)))
    });
    refused(&s, 2, &["`My_Op` cannot name a project"], || {
        init("My_Op", "bcrds.example.com", "Example")
    });
    refused(&s, 2, &["exists and is not empty"], || {
        init("outside", "bcrds.example.com", "Example")
    });
}

#[test]
fn case_13_concurrent_runs_into_one_output_all_succeed() {
    let s = Sandbox::new();
    std::fs::remove_dir_all(s.path("pkg/client")).unwrap();
    std::fs::remove_dir_all(s.path("config/crd")).unwrap();
    let runs: Vec<_> = (0..20)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_crdgen"))
                .current_dir(s.root.path())
                .args([
                    "generate-groups",
                    "all",
                    "pkg/client",
                    "pkg/apis",
                    "bcrds:v1alpha1",
                ])
                .args([
                    "--boilerplate",
                    "hack/boilerplate.rs.txt",
                    "--output-base",
                    "base",
                ])
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for run in runs {
        let out = run.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let out = s.generate("all", &["--verify-only"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let leftovers: Vec<_> = walkdir::WalkDir::new(s.base())
        .into_iter()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".crdgen-"))
        .collect();
    // No staged file is left behind: only the stamp of the last run to write.
    assert_eq!(leftovers, [crdgen::STAMP_FILE]);
}

#[test]
fn case_14_modes_are_kept_and_new_files_follow_the_umask() {
    let s = Sandbox::new();
    std::fs::set_permissions(s.path(CRD), std::fs::Permissions::from_mode(0o644)).unwrap();
    s.edit(CRD, "examples", "exampels");
    std::fs::remove_file(s.path(REGISTER)).unwrap();
    let out = Command::new("sh")
        .current_dir(s.root.path())
        .arg("-c")
        .arg(format!(
            "umask 027 && exec '{}' generate-groups all pkg/client pkg/apis bcrds:v1alpha1 --boilerplate hack/boilerplate.rs.txt --output-base base",
            env!("CARGO_BIN_EXE_crdgen")
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mode = |rel: &str| s.path(rel).metadata().unwrap().permissions().mode() & 0o777;
    assert!(!s.read(CRD).contains("exampels"), "the CRD was rewritten");
    assert_eq!(mode(CRD), 0o644, "a rewritten file keeps its mode");
    assert_eq!(mode(REGISTER), 0o640, "a new file gets 0666 less the umask");
}

#[test]
fn case_15_a_failed_write_names_the_file_and_undoes_the_run() {
    let s = Sandbox::new();
    s.edit(CRD, "examples", "exampels");
    s.edit(REGISTER, "\"examples\"", "\"exampels\"");
    // A file the run creates (in a directory it creates) before the failure is removed.
    std::fs::remove_dir_all(s.path("pkg/client/listers")).unwrap();
    let register = s.path(REGISTER);
    let immutable = Command::new("chattr").arg("+i").arg(&register).status();
    if !immutable.is_ok_and(|st| st.success()) {
        eprintln!("skipped: `chattr +i` needs root and a file system with attributes");
        return;
    }
    let before = s.fingerprint();
    let out = s.generate("all", &[]);
    let _ = Command::new("chattr").arg("-i").arg(&register).status();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error[E0002]: cannot write `pkg/client/apis/bcrds/v1alpha1/register.rs`"),
        "{err}"
    );
    assert!(err.contains("nothing was changed"), "{err}");
    assert!(
        !err.contains(".crdgen-"),
        "no temporary file is named: {err}"
    );
    assert_eq!(
        before,
        s.fingerprint(),
        "the CRD written before the failure was put back"
    );
}
