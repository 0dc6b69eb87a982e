//! The pipeline, end to end, without touching the disk beyond reading the input.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Diagnostics, Sources, render_all};
use crate::emit::{self, OutputSet, RustModule, header::Header};
use crate::generators::{self, Generator};
use crate::model::{self, Model};
use crate::naming;
use crate::options::Options;
use crate::{parse, scan, source};

/// A successful generation: the model, the generated module tree, and what was read.
#[derive(Debug)]
pub struct Generation {
    pub(crate) model: Model,
    pub(crate) tree: RustModule,
    /// Each YAML generator's files (without the header) by file name, when it runs.
    pub manifests: BTreeMap<Generator, BTreeMap<String, String>>,
    pub(crate) header: Header,
    /// Every file and directory read, for `cargo:rerun-if-changed`.
    pub inputs: Vec<PathBuf>,
    /// Warnings; errors end the run instead.
    pub warnings: Vec<Diagnostic>,
    pub(crate) sources: Sources,
}

impl Generation {
    /// What crdgen understood of the API types (groups, versions, kinds, types), as it
    /// serializes: for tests and tools that check what the generators read.
    pub fn model(&self) -> impl serde::Serialize + '_ {
        &self.model
    }

    /// The generated files under OUTPUT_PKG (and CRDs under the CRD directory), as the
    /// command line writes them. The model and the generated code are given up on the
    /// way, module by module, so that the output is never held twice.
    pub fn into_files(self, opts: &Options) -> Result<Files, Error> {
        let Generation {
            model,
            tree,
            manifests,
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
                .map_err(|d| Error::diagnostics(vec![d], &sources))?;
        }
        for (generator, files) in &manifests {
            if let Some(dir) = opts.manifest_dir(*generator) {
                add_manifests(&mut output, &dir, files, &header);
            }
        }
        if let Ok(freed) = freed {
            let _ = freed.join();
        }
        Ok(Files { output, sources })
    }

    /// What build.rs writes into `OUT_DIR`: everything in one includable file, and each
    /// YAML generator's files in its directory beside it (pruned as the command line
    /// prunes them).
    pub fn into_build_files(self) -> Result<Files, Error> {
        let build_dir = |g: &Generator| Some(g.definition().manifest_dir()?.build);
        let mut output = OutputSet {
            owned_dirs: Generator::ALL
                .iter()
                .filter_map(build_dir)
                .map(PathBuf::from)
                .collect(),
            files: BTreeMap::new(),
        };
        output
            .files
            .insert(naming::BUILD_OUTPUT_FILE.into(), self.single_file()?);
        for (generator, files) in &self.manifests {
            if let Some(dir) = build_dir(generator) {
                add_manifests(&mut output, Path::new(dir), files, &self.header);
            }
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
        Error::diagnostics(vec![d], &self.sources)
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

/// A generator's files (YAML, or Markdown and HTML), each under `dir` with the header.
fn add_manifests(
    output: &mut OutputSet,
    dir: &Path,
    files: &BTreeMap<String, String>,
    header: &Header,
) {
    for (name, body) in files {
        output
            .files
            .insert(dir.join(name), header.manifest_file(name, body));
    }
}

/// A generation laid out as files, with the sources that diagnostics about writing
/// them are rendered against.
#[derive(Debug)]
pub struct Files {
    pub(crate) output: OutputSet,
    sources: Sources,
}

impl Files {
    /// Files to write, with the sources diagnostics about writing them are shown with.
    pub(crate) fn new(output: OutputSet, sources: Sources) -> Files {
        Files { output, sources }
    }

    /// Every file with its text, by path relative to the output base.
    pub fn files(&self) -> &BTreeMap<PathBuf, String> {
        &self.output.files
    }

    /// The directories crdgen owns (prunes files it generated before in), relative to
    /// the output base.
    pub fn owned_dirs(&self) -> &[PathBuf] {
        &self.output.owned_dirs
    }

    /// Writes the files under `base` as the command line does (only what changed, all
    /// or nothing).
    pub fn write(&self, base: &Path) -> Result<crate::sink::Written, Error> {
        let plan = self.plan(base)?;
        self.apply(&plan, base)
    }

    /// Compares the files with what is under `base`.
    pub(crate) fn plan(&self, base: &Path) -> Result<crate::sink::Plan<'_>, Error> {
        let mut diags = Diagnostics::default();
        let plan = crate::sink::plan(&self.output, base, &mut diags);
        diags
            .check()
            .map_err(|d| Error::diagnostics(d, &self.sources))?;
        Ok(plan)
    }

    /// Applies a plan made by [`Files::plan`].
    pub(crate) fn apply(
        &self,
        plan: &crate::sink::Plan,
        base: &Path,
    ) -> Result<crate::sink::Written, Error> {
        crate::sink::write(plan, base, &self.output.owned_dirs)
            .map(|(written, _)| written)
            .map_err(|d| Error::diagnostics(vec![d], &self.sources))
    }
}

/// Why a run failed, ready to show to a person.
pub enum Error {
    /// The options themselves are wrong.
    Usage(String),
    /// Every error (and warning) of the phase that failed, in order, each with its
    /// code, place and hint; `rendered` is them with their source lines, as the command
    /// line prints them.
    Diagnostics {
        /// The diagnostics.
        diagnostics: Vec<Diagnostic>,
        /// The same, rendered.
        rendered: String,
    },
    /// A file or directory could not be read or written.
    Io(std::io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(msg) => write!(f, "error: {msg}"),
            Error::Diagnostics { rendered, .. } => f.write_str(rendered.trim_end()),
            Error::Io(e) => write!(f, "error: {e}"),
        }
    }
}

impl Error {
    /// `diagnostics`, rendered against `sources` as the command line prints them.
    pub(crate) fn diagnostics(diagnostics: Vec<Diagnostic>, sources: &Sources) -> Error {
        let rendered = render_all(&diagnostics, sources);
        Error::Diagnostics {
            diagnostics,
            rendered,
        }
    }

    /// One diagnostic that needs no source lines (a lock, a directory).
    pub(crate) fn diagnostic(diagnostic: Diagnostic) -> Error {
        Error::Diagnostics {
            rendered: diagnostic.render(&Sources::default()),
            diagnostics: vec![diagnostic],
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
    // The files of `--paths` are read when a generator reads markers that belong to no
    // type (rbac, webhook).
    let reads_markers = !opts.marker_names().is_empty();
    let discovered = source::discover(opts, reads_markers, &mut sources, &mut diags);
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
    Error::diagnostics(diags.into_sorted(), sources)
}

/// `f` of each CRD of the input as JSON, on all cores: what a run of the `crd`
/// generator alone (`opts`' generators) writes as YAML, and the same errors; for
/// `crdgen import`'s round trip, which compares each with what it read.
pub(crate) fn each_crd_value<R: Send>(
    opts: &Options,
    f: impl Fn(serde_json::Value) -> R + Sync + Send,
) -> Result<Vec<R>, Error> {
    debug_assert!(opts.generators.iter().eq([&Generator::Crd]));
    let input = read(opts)?;
    on_big_stack(|| {
        let mut diags = Diagnostics::default();
        let (model, _) = understood(opts, &input.discovered, &input.sources, &mut diags)?;
        let results = generators::each_crd_value(&model, opts, &mut diags, f);
        match diags.has_errors() {
            true => Err(stop(diags, &input.sources)),
            false => Ok(results),
        }
    })?
}

/// What crdgen understands of the input, without generating: the model, for what
/// points a finding at the Rust source (`--compat` on a run that generates nothing).
pub(crate) fn model_of(opts: &Options, input: Input) -> Result<(Model, Sources), Error> {
    let mut diags = Diagnostics::default();
    let (model, _) = understood(opts, &input.discovered, &input.sources, &mut diags)?;
    Ok((model, input.sources))
}

/// The model of the input and the markers that belong to no type, of every generator
/// that runs (each reads its own from them).
fn understood(
    opts: &Options,
    discovered: &source::Discovered,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Result<(Model, Vec<scan::Found>), Error> {
    let parsed = parse::parse_all(discovered, diags);
    let markers = scan::scan(&discovered.marker_sources(), &opts.marker_names(), diags);
    for generator in &opts.generators {
        (generator.definition().check_markers)(&markers, diags);
    }
    if diags.has_errors() {
        return Err(stop(std::mem::take(diags), sources));
    }
    let model = model::build(parsed, opts, diags);
    if diags.has_errors() {
        return Err(stop(std::mem::take(diags), sources));
    }
    Ok((model, markers))
}

/// Everything after reading the input: parsing, the model and the generators.
pub(crate) fn from_input(opts: &Options, input: Input) -> Result<Generation, Error> {
    let Input {
        header,
        discovered,
        sources,
    } = input;
    let mut diags = Diagnostics::default();
    let (model, markers) = understood(opts, &discovered, &sources, &mut diags)?;
    let ctx = generators::Context::new(&model, &markers, opts, &discovered.samples);
    let generators::Generated {
        rust: tree,
        manifests,
    } = generators::run(&ctx, &mut diags);
    if diags.has_errors() {
        return Err(stop(diags, &sources));
    }
    Ok(Generation {
        model,
        tree,
        manifests,
        header,
        inputs: discovered.inputs,
        warnings: diags.into_sorted(),
        sources,
    })
}
