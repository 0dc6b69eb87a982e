pub mod bcrds;
pub mod derived;
pub mod hyphens;
pub mod other;
