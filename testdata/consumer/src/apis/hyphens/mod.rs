//! A group whose name's first label (`example-group`) is no Rust name: `+groupGoName`
//! names its generated code, as in code-generator's HyphenGroup example.
//!
//! +groupName=example-group.hyphens.example.com
//! +groupGoName=ExampleGroup

pub mod v1;
