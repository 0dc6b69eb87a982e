pub mod bcrds;
