//! The pipeline, end to end, without touching the disk beyond reading the input.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Diagnostics, Sources, render_all};
use crate::emit::{self, OutputSet, RustModule, header::Header};
use crate::model::{self, Model};
use crate::naming;
use crate::options::{Generator, Options};
use crate::{generators, parse, rbac, scan, source, webhook};

/// A successful generation: the model, the generated module tree, and what was read.
#[derive(Debug)]
pub struct Generation {
    pub model: Model,
    pub tree: RustModule,
    /// CRDs as YAML documents (without the header) by file name, when the `crd`
    /// generator runs.
    pub crds: BTreeMap<String, String>,
    /// The roles as YAML documents (without the header), when the `rbac` generator
    /// found any rule.
    pub role: Option<String>,
    /// The webhook configurations as YAML documents (without the header), when the
    /// `webhook` generator found any webhook.
    pub webhooks: Option<String>,
    pub header: Header,
    /// Every file and directory read, for `cargo:rerun-if-changed`.
    pub inputs: Vec<PathBuf>,
    /// Warnings; errors end the run instead.
    pub warnings: Vec<Diagnostic>,
    pub sources: Sources,
}

impl Generation {
    /// The generated files under OUTPUT_PKG (and CRDs under the CRD directory), as the
    /// command line writes them. The model and the generated code are given up on the
    /// way, module by module, so that the output is never held twice.
    pub fn into_files(self, opts: &Options) -> Result<Files, Error> {
        let Generation {
            model,
            tree,
            crds,
            role,
            webhooks,
            header,
            sources,
            ..
        } = self;
        // Freeing the model (many small allocations) takes as long as laying out the
        // files, so it runs beside it. (Should no thread start, the model is freed there
        // and then, with the closure that holds it.)
        let freed = std::thread::Builder::new()
            .stack_size(crate::parallel::STACK_BYTES)
            .spawn(move || drop(model));
        let mut output = OutputSet {
            owned_dirs: opts.owned_dirs(),
            files: BTreeMap::new(),
        };
        if opts.writes_rust() {
            emit::add_files(tree, &header, &opts.output_pkg, &mut output)
                .map_err(|d| Error::Diagnostics(render_all(&[d], &sources)))?;
        }
        if opts.generators.contains(&Generator::Crd) {
            add_crds(&mut output, &opts.crd_dir, &crds, &header);
        }
        let manifests = [
            (&opts.rbac_dir, naming::ROLE_FILE, role.as_deref()),
            (&opts.webhook_dir, naming::WEBHOOK_FILE, webhooks.as_deref()),
        ];
        for (dir, file, text) in manifests {
            add_manifest(&mut output, &dir.join(file), text, &header);
        }
        if let Ok(freed) = freed {
            let _ = freed.join();
        }
        Ok(Files { output, sources })
    }

    /// What build.rs writes into `OUT_DIR`: everything in one includable file, and the
    /// CRDs beside it (pruned as the command line prunes them).
    pub fn into_build_files(self) -> Result<Files, Error> {
        let mut output = OutputSet {
            owned_dirs: vec![
                naming::BUILD_CRD_DIR.into(),
                naming::BUILD_RBAC_DIR.into(),
                naming::BUILD_WEBHOOK_DIR.into(),
            ],
            files: BTreeMap::new(),
        };
        output
            .files
            .insert(naming::BUILD_OUTPUT_FILE.into(), self.single_file()?);
        add_crds(
            &mut output,
            Path::new(naming::BUILD_CRD_DIR),
            &self.crds,
            &self.header,
        );
        let manifests = [
            (
                naming::BUILD_RBAC_DIR,
                naming::ROLE_FILE,
                self.role.as_deref(),
            ),
            (
                naming::BUILD_WEBHOOK_DIR,
                naming::WEBHOOK_FILE,
                self.webhooks.as_deref(),
            ),
        ];
        for (dir, file, text) in manifests {
            add_manifest(&mut output, &Path::new(dir).join(file), text, &self.header);
        }
        Ok(Files {
            output,
            sources: self.sources,
        })
    }

    /// Everything in one file of inline modules, as build.rs includes it.
    pub fn single_file(&self) -> Result<String, Error> {
        emit::to_single_file(&self.tree, &self.header).map_err(|d| self.fail(d))
    }

    fn fail(&self, d: Diagnostic) -> Error {
        Error::Diagnostics(render_all(&[d], &self.sources))
    }

    /// The warnings, rendered.
    pub fn render_warnings(&self) -> String {
        let mut out = String::new();
        for w in &self.warnings {
            out.push_str(&w.render(&self.sources));
        }
        out
    }
}

/// Each CRD as a file under `dir`, with the header.
fn add_crds(output: &mut OutputSet, dir: &Path, crds: &BTreeMap<String, String>, header: &Header) {
    for (name, body) in crds {
        output.files.insert(dir.join(name), header.yaml_file(body));
    }
}

/// A manifest of YAML documents at `path`, with the header, when there is one.
fn add_manifest(output: &mut OutputSet, path: &Path, text: Option<&str>, header: &Header) {
    if let Some(text) = text {
        output.files.insert(path.to_owned(), header.yaml_file(text));
    }
}

/// A generation laid out as files, with the sources that diagnostics about writing
/// them are rendered against.
#[derive(Debug)]
pub struct Files {
    pub output: OutputSet,
    sources: Sources,
}

impl Files {
    /// Writes the files under `base` as the command line does (only what changed, all
    /// or nothing).
    pub fn write(&self, base: &Path) -> Result<crate::sink::Written, Error> {
        let plan = self.plan(base)?;
        self.apply(&plan, base)
    }

    /// Compares the files with what is under `base`.
    pub fn plan(&self, base: &Path) -> Result<crate::sink::Plan<'_>, Error> {
        let mut diags = Diagnostics::default();
        let plan = crate::sink::plan(&self.output, base, &mut diags);
        diags
            .check()
            .map_err(|d| Error::Diagnostics(render_all(&d, &self.sources)))?;
        Ok(plan)
    }

    /// Applies a plan made by [`Files::plan`].
    pub fn apply(
        &self,
        plan: &crate::sink::Plan,
        base: &Path,
    ) -> Result<crate::sink::Written, Error> {
        crate::sink::write(plan, base, &self.output.owned_dirs)
            .map(|(written, _)| written)
            .map_err(|d| Error::Diagnostics(render_all(&[d], &self.sources)))
    }
}

/// Why a run failed, ready to show to a person.
pub enum Error {
    /// The options themselves are wrong.
    Usage(String),
    /// Rendered diagnostics: every error (and warning) of the phase that failed.
    Diagnostics(String),
    Io(std::io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(msg) => write!(f, "error: {msg}"),
            Error::Diagnostics(text) => f.write_str(text.trim_end()),
            Error::Io(e) => write!(f, "error: {e}"),
        }
    }
}

// Debug shows the rendered text, so that `fn main() -> Result<..>` in build.rs prints
// diagnostics a person can read.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}

/// Runs discovery, parsing, the model and the generators. Each phase reports all of
/// its errors; the first phase with any ends the run.
pub fn generate(opts: &Options) -> Result<Generation, Error> {
    let input = read(opts)?;
    on_big_stack(|| from_input(opts, input))?
}

/// Everything a run reads: the header and the source files, before any is parsed.
pub(crate) struct Input {
    pub header: Header,
    pub discovered: source::Discovered,
    pub sources: Sources,
}

/// Checks the options and reads the header and every source file.
pub(crate) fn read(opts: &Options) -> Result<Input, Error> {
    opts.validate().map_err(Error::Usage)?;
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let header = Header::load(&opts.header, opts.year.as_deref(), &opts.output_base);
    let discovered = source::discover(opts, &mut sources, &mut diags);
    match header {
        Ok(header) if !diags.has_errors() => Ok(Input {
            header,
            discovered,
            sources,
        }),
        Ok(_) => Err(stop(diags, &sources)),
        Err(d) => {
            diags.push(d);
            Err(stop(diags, &sources))
        }
    }
}

/// Runs `f` on a thread with a stack of [`crate::parallel::STACK_BYTES`].
pub(crate) fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, Error> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("crdgen".into())
            .stack_size(crate::parallel::STACK_BYTES)
            .spawn_scoped(scope, f)
            .map_err(Error::Io)?;
        Ok(thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

fn stop(diags: Diagnostics, sources: &Sources) -> Error {
    Error::Diagnostics(render_all(&diags.into_sorted(), sources))
}

/// Everything after reading the input: parsing, the model and the generators.
pub(crate) fn from_input(opts: &Options, input: Input) -> Result<Generation, Error> {
    let Input {
        header,
        discovered,
        sources,
    } = input;
    let mut diags = Diagnostics::default();
    let parsed = parse::parse_all(&discovered, &mut diags);
    let found = scan::scan(
        &discovered.marker_sources(),
        &[rbac::MARKER, webhook::MARKER],
        &mut diags,
    );
    let rbac_rules = rbac::rules(&found, &mut diags);
    let webhooks = webhook::webhooks(&found, &mut diags);
    if diags.has_errors() {
        return Err(stop(diags, &sources));
    }
    let model = model::build(parsed, opts, &mut diags);
    if diags.has_errors() {
        return Err(stop(diags, &sources));
    }
    let ctx = generators::Context {
        model: &model,
        rbac_rules: &rbac_rules,
        webhooks: &webhooks,
        opts,
    };
    let generators::Output {
        rust: tree,
        crds,
        role,
        webhooks,
    } = generators::run(&ctx, &mut diags);
    if diags.has_errors() {
        return Err(stop(diags, &sources));
    }
    Ok(Generation {
        model,
        tree,
        crds,
        role,
        webhooks,
        header,
        inputs: discovered.inputs,
        warnings: diags.into_sorted(),
        sources,
    })
}
