pub mod apis;
pub mod client;
