//! A crate that generates its client code through crdgen's build.rs API; its tests
//! exercise what was generated. Warnings are errors: generated code must be clean.
#![deny(warnings)]

pub mod apis;

/// Everything crdgen generated, included from `OUT_DIR`.
pub mod client {
    include!(concat!(env!("OUT_DIR"), "/crdgen.rs"));
}
