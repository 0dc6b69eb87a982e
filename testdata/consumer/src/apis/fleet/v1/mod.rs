pub mod gear_types;

pub use gear_types::*;
