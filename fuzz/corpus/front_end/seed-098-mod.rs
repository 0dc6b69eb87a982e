//! Version v1alpha1 of the bcrds API group.

pub mod example_types;

pub use example_types::*;
