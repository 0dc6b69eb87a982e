pub mod bcrds;
pub mod other;
