//! A kube-derive kind with a derived schema: its `crd()` and crdgen's CRD are compared.

mod thing_types;

pub use thing_types::*;
