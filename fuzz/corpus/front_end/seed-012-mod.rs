//! A kube-derive-style group: its name comes from `#[kube(group = ..)]`.

mod gadget_types;

pub use gadget_types::*;
