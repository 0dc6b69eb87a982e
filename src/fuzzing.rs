//! The front end on text instead of files, for the fuzz targets under `fuzz/` and the
//! corpus test that replays their inputs in the normal suite. Not a stable API.

use crate::diag::{Diagnostics, Pos, Sources};
use crate::emit::header::Header;
use crate::options::{HeaderSource, Options};
use crate::source::{Discovered, GroupSource, SourceFile, VersionSource};

/// The version module the type file is declared in.
const MODULE: &str =
    "//! +groupName=fuzz.example.com\n\npub mod fuzz_types;\n\npub use fuzz_types::*;\n";

/// Runs every generator, in memory, on `types` as the one type file of group version
/// `fuzz/v1`, through to the files a run would write. `Ok` is how many; `Err` is what
/// the command line would print. A panic, or an `E0999` (crdgen's own bug), is a finding.
pub fn generate_type_file(types: &str) -> Result<usize, String> {
    let opts = Options::new(".", "client", "apis", "fuzz:v1").map_err(|e| e.to_string())?;
    let file = |path: &str, module: Option<&str>, text: &str| SourceFile {
        path: path.to_owned(),
        module: module.map(str::to_owned),
        text: text.to_owned(),
    };
    let mut sources = Sources::default();
    sources.insert("apis/fuzz/v1/mod.rs".into(), MODULE.into());
    sources.insert("apis/fuzz/v1/fuzz_types.rs".into(), types.into());
    let discovered = Discovered {
        groups: vec![GroupSource {
            dir: "fuzz".into(),
            module_file: None,
            versions: vec![VersionSource {
                version: "v1".into(),
                files: vec![
                    file("apis/fuzz/v1/mod.rs", None, MODULE),
                    file("apis/fuzz/v1/fuzz_types.rs", Some("fuzz_types"), types),
                ],
            }],
        }],
        marker_files: Vec::new(),
        samples: Vec::new(),
        inputs: Vec::new(),
    };
    let header = Header::load(&HeaderSource::Default, None, opts.output_base.as_path())
        .map_err(|d| d.message)?;
    let input = crate::pipeline::Input {
        header,
        discovered,
        sources,
    };
    let generation = crate::pipeline::on_big_stack(|| crate::pipeline::from_input(&opts, input))
        .and_then(|generated| generated)
        .map_err(|e| e.to_string())?;
    let files = generation.into_files(&opts).map_err(|e| e.to_string())?;
    Ok(files.output.files.len())
}

/// Reads `text` as the doc comment of each kind of item, as the marker lexer and the
/// marker values see it. Returns how many markers were understood.
pub fn read_markers(text: &str) -> usize {
    let lines: Vec<crate::markers::DocLine> = text
        .lines()
        .enumerate()
        .map(|(i, line)| crate::markers::DocLine {
            text: line.to_owned(),
            pos: Pos {
                line: i + 1,
                col: 4,
            },
        })
        .collect();
    let mut diags = Diagnostics::default();
    [
        crate::markers::Target::Package,
        crate::markers::Target::Type,
        crate::markers::Target::Field,
    ]
    .into_iter()
    .map(|target| {
        crate::markers::extract(&lines, target, "fuzz.rs", &mut diags)
            .markers
            .len()
    })
    .sum()
}
