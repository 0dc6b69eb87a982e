//! The bundled example: API types under `pkg/apis`, and the code `crdgen
//! generate-groups` writes for them under `pkg/client` (see `hack/update-codegen.sh`).
#![deny(warnings)]

pub mod pkg;
