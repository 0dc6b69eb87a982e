pub mod bcrds;
pub mod derived;
pub mod other;
