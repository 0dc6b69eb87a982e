//! The operator's API types, generated client code, and controllers.

pub mod apis;
pub mod client;
pub mod controller;
pub mod schedule;
pub mod webhook;
