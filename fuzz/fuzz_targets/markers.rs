//! Doc comment lines through the marker lexer and the marker value parser, for each
//! kind of item a marker can be on. A panic is a finding.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        crdgen::fuzzing::read_markers(text);
    }
});
