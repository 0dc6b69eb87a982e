//! API types of the example operator.

pub mod bcrds;
