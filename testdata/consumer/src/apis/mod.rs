pub mod bcrds;
pub mod derived;
pub mod fleet;
pub mod hyphens;
pub mod other;
pub mod shop;
