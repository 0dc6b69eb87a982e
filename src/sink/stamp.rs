//! The stamp: a fingerprint of what the last run read, and of every file it left in the
//! output directories. A run whose inputs hash to the same key, and whose output files
//! are still exactly those, has nothing to do: it stops before parsing. A hand-edited,
//! missing or extra generated file breaks the match, and the run (or `--verify-only`)
//! generates as usual, so it finds and shows the drift.
//!
//! The stamp is a cache, not an input: it lives in the first output directory as
//! `.crdgen-stamp` (gitignore it), and deleting it only makes the next run slower.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::emit::OutputSet;
use crate::emit::header::is_generated;
use crate::naming::STAMP_FILE;

/// The first line of a stamp; a stamp of another format is ignored.
const FORMAT: &str = "crdgen stamp 2";

/// What a run reads, reduced to 64 bits: the inputs as hashed by the caller, and the
/// identity of the running binary (its size and modification time), since a rebuilt
/// crdgen may generate other text from the same inputs.
///
/// `DefaultHasher::new()` is SipHash with fixed keys: the same for one binary, which
/// is all a stamp needs, as the binary is part of the key.
pub fn key(inputs: &impl Hash) -> Option<u64> {
    let exe = std::env::current_exe().ok()?.metadata().ok()?;
    let mut hasher = DefaultHasher::new();
    (exe.len(), exe.modified().ok()?).hash(&mut hasher);
    inputs.hash(&mut hasher);
    Some(hasher.finish())
}

/// A file's fingerprint: it only has to tell a file from the one the run wrote, and it
/// runs over every output file on every run, so it takes eight bytes a step (SipHash
/// took a quarter of a no-op run). Each step maps the state one-to-one for a given
/// word, so a change within any eight-byte word always changes the result.
fn text_hash(text: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let step = |h: u64, word: u64| (h.rotate_left(23) ^ word).wrapping_mul(K);
    let mut chunks = text.chunks_exact(8);
    let mut h = text.len() as u64;
    for chunk in &mut chunks {
        h = step(h, u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = step(h, u64::from_le_bytes(tail));
    // MurmurHash3's finalizer, so that nearby states end far apart.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Where the stamp of a run with these output directories lives.
fn path(base: &Path, owned_dirs: &[PathBuf]) -> Option<PathBuf> {
    owned_dirs
        .first()
        .map(|dir| base.join(dir).join(STAMP_FILE))
}

/// The number of generated files, when the output directories hold exactly the files
/// the stamp under them lists for `key`, with the same contents; `None` otherwise.
pub fn current(base: &Path, owned_dirs: &[PathBuf], key: u64) -> Option<usize> {
    let stamp = path(base, owned_dirs)?;
    let text = std::fs::read_to_string(&stamp).ok()?;
    let listed = parse(&text, key, owned_dirs)?;
    let mut files = Vec::new();
    for dir in owned_dirs {
        let root = base.join(dir);
        // The slow path explains links below the output directories; here they only
        // mean "not known to be current". A directory that is not there holds nothing
        // (a file the stamp lists in it is then missing, and counted so below).
        match std::fs::symlink_metadata(&root) {
            Ok(meta) if meta.is_dir() => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            _ => return None,
        }
        for entry in walkdir::WalkDir::new(&root) {
            let entry = entry.ok()?;
            let kind = entry.file_type();
            if kind.is_symlink() {
                return None;
            }
            if kind.is_file() && entry.path() != stamp {
                files.push(entry.into_path());
            }
        }
    }
    // Reading and hashing the files is the whole of a no-op run: it runs on every core.
    // Each file is a listed one as written (true), or one that is not generated (false).
    let verdicts = crate::parallel::map_light(&files, |path| {
        let rel = path.strip_prefix(base).ok()?.to_str()?;
        let text = std::fs::read(path).ok()?;
        match listed.get(rel) {
            Some(&hash) => (hash == text_hash(&text)).then_some(true),
            // A generated file the run would no longer produce: it would be pruned.
            None => (!is_generated(&String::from_utf8_lossy(&text))).then_some(false),
        }
    });
    let mut current = 0;
    for listed_file in verdicts {
        current += usize::from(listed_file?);
    }
    (current == listed.len()).then_some(current)
}

/// The files a stamp lists, when it is of this format, `key` and `owned_dirs`: by their
/// paths as written, which a run's paths are compared with as text (comparing them as
/// paths, component by component, was half of a no-op run).
fn parse<'t>(text: &'t str, key: u64, owned_dirs: &[PathBuf]) -> Option<HashMap<&'t str, u64>> {
    let mut lines = text.lines();
    if lines.next()? != FORMAT || lines.next()? != format!("key {key:016x}") {
        return None;
    }
    let mut files = HashMap::new();
    for line in lines {
        let (hash, rel) = line.split_once(' ')?;
        if !owned_dirs.iter().any(|d| Path::new(rel).starts_with(d)) {
            return None;
        }
        files.insert(rel, u64::from_str_radix(hash, 16).ok()?);
    }
    Some(files)
}

/// Records `output` as the run for `key` left it. Best effort: a stamp that cannot be
/// written (or a path it cannot hold) means a slower next run, never a failed one.
/// The stamp is written beside itself and renamed into place, so it is never half there.
pub fn record(base: &Path, key: u64, output: &OutputSet) {
    let Some(stamp) = path(base, &output.owned_dirs) else {
        return;
    };
    let files: Vec<_> = output.files.iter().collect();
    let hashes = crate::parallel::map_light(&files, |(_, file)| text_hash(file.as_bytes()));
    let mut text = format!("{FORMAT}\nkey {key:016x}\n");
    for ((rel, _), hash) in files.iter().zip(hashes) {
        let Some(rel) = rel.to_str().filter(|r| !r.contains('\n')) else {
            return;
        };
        text.push_str(&format!("{hash:016x} {rel}\n"));
    }
    let Some(dir) = stamp.parent() else { return };
    let _ = super::write::temp_in(dir).and_then(|mut temp| {
        temp.write_all(text.as_bytes())?;
        temp.persist(&stamp).map(drop).map_err(|e| e.error)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output() -> OutputSet {
        let mut out = OutputSet {
            owned_dirs: vec![PathBuf::from("out")],
            ..OutputSet::default()
        };
        for name in ["a.rs", "sub/b.rs"] {
            out.files.insert(
                Path::new("out").join(name),
                format!("// Code generated by crdgen. DO NOT EDIT.\n// {name}\n"),
            );
        }
        out
    }

    fn written(base: &Path, out: &OutputSet) {
        for (rel, text) in &out.files {
            let full = base.join(rel);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
    }

    #[test]
    fn a_recorded_run_is_current_until_its_files_or_key_change() {
        let dir = tempfile::tempdir().unwrap();
        let (base, out) = (dir.path(), output());
        written(base, &out);
        let dirs = &out.owned_dirs;
        assert_eq!(current(base, dirs, 7), None, "no stamp yet");
        record(base, 7, &out);
        assert_eq!(current(base, dirs, 7), Some(2));
        assert_eq!(current(base, dirs, 8), None, "another key");

        // A user's own file beside the generated ones changes nothing.
        std::fs::write(base.join("out/notes.txt"), "mine").unwrap();
        assert_eq!(current(base, dirs, 7), Some(2));

        // A hand edit, a missing file and a stale generated file each break the match.
        let edited = base.join("out/sub/b.rs");
        std::fs::write(
            &edited,
            "// Code generated by crdgen. DO NOT EDIT.\n// edited\n",
        )
        .unwrap();
        assert_eq!(current(base, dirs, 7), None);
        written(base, &out);
        std::fs::remove_file(base.join("out/a.rs")).unwrap();
        assert_eq!(current(base, dirs, 7), None);
        written(base, &out);
        std::fs::write(
            base.join("out/old.rs"),
            "// Code generated by crdgen. DO NOT EDIT.\n",
        )
        .unwrap();
        assert_eq!(current(base, dirs, 7), None);
        std::fs::remove_file(base.join("out/old.rs")).unwrap();
        assert_eq!(current(base, dirs, 7), Some(2));
    }

    #[test]
    fn a_damaged_stamp_is_no_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let (base, out) = (dir.path(), output());
        written(base, &out);
        record(base, 7, &out);
        let stamp = base.join("out").join(STAMP_FILE);
        let good = std::fs::read_to_string(&stamp).unwrap();
        for bad in [
            good.replace(FORMAT, "crdgen stamp 1"),
            good.replacen(" out/a.rs", " elsewhere/a.rs", 1),
            good.replacen(" out/a.rs", "zz out/a.rs", 1),
            good.lines().take(3).collect::<Vec<_>>().join("\n"),
            "\u{0}\u{1}".to_owned(),
        ] {
            std::fs::write(&stamp, &bad).unwrap();
            assert_eq!(current(base, &out.owned_dirs, 7), None, "{bad:?}");
        }
    }

    #[test]
    fn every_one_byte_edit_and_every_length_changes_the_fingerprint() {
        let text: Vec<u8> = (0..=255u8).cycle().take(301).collect();
        let original = text_hash(&text);
        for i in 0..text.len() {
            for edit in [1u8, 0x80, 0xff] {
                let mut edited = text.clone();
                edited[i] ^= edit;
                assert_ne!(text_hash(&edited), original, "byte {i} ^ {edit:#x}");
            }
        }
        // Zeros appended, which the last word's padding would hide without the length.
        for len in 0..16 {
            let padded = [&text[..], &vec![0; len + 1]].concat();
            assert_ne!(text_hash(&padded), original, "{} zeros", len + 1);
        }
        assert_ne!(text_hash(b""), text_hash(b"\0"));
    }
}
