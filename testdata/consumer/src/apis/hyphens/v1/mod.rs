pub mod cluster_test_type_types;

pub use cluster_test_type_types::*;
