//! The fuzz corpus (fuzz/corpus, seeded from testdata and kept minimized after each
//! campaign) replayed through the fuzz targets' entry points, so that every input a
//! campaign ever found interesting stays a regression test in the normal suite.

use std::path::Path;

fn corpus(target: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut inputs: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let text = String::from_utf8(std::fs::read(&p).unwrap()).ok()?;
            Some((p.file_name().unwrap().to_string_lossy().into_owned(), text))
        })
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 20, "the {target} corpus went missing");
    inputs
}

#[test]
fn the_front_end_corpus_never_panics_or_generates_invalid_rust() {
    let inputs = corpus("front_end");
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    // Shared out over the cores: a debug build takes a few milliseconds an input.
    let generated: usize = std::thread::scope(|scope| {
        let shares: Vec<_> = inputs
            .chunks(inputs.len().div_ceil(threads))
            .map(|share| {
                scope.spawn(move || {
                    let mut generated = 0;
                    for (name, text) in share {
                        match crdgen::fuzzing::generate_type_file(text) {
                            Ok(_) => generated += 1,
                            Err(rendered) => {
                                assert!(!rendered.contains("E0999"), "{name}: {rendered}")
                            }
                        }
                    }
                    generated
                })
            })
            .collect();
        shares.into_iter().map(|s| s.join().unwrap()).sum()
    });
    // The seeds from testdata/example and testdata/consumer generate; a corpus where
    // nothing does would test only the error paths.
    assert!(generated > 0, "no corpus input generated code");
}

#[test]
fn the_marker_corpus_never_panics() {
    let understood: usize = corpus("markers")
        .iter()
        .map(|(_, text)| crdgen::fuzzing::read_markers(text))
        .sum();
    assert!(understood > 0, "no corpus input held a marker");
}
