//! +groupName=bcrds.example.com

mod example_types;
