//! One API type file, through parsing, the model, every generator and the CRD schema.
//! A panic, or an E0999 (a generator producing invalid Rust), is a finding.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(rendered) = crdgen::fuzzing::generate_type_file(text) {
        assert!(!rendered.contains("E0999"), "{rendered}");
    }
});
