//! API types, one directory per group and version.

pub mod batch;
