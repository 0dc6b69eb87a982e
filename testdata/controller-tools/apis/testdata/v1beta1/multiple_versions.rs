//! controller-tools' `pkg/crd/testdata/multiple_versions`: types both versions of the
//! VersionedResource use. Go has them in a package of their own; crdgen reads the
//! version modules of a group only, so they are a module of v1beta1 that v1beta2 imports.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
pub struct InnerStruct {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub foo: String,
}

#[derive(Serialize, Deserialize)]
pub struct OuterStruct {
    /// +structType=atomic
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#struct: Option<InnerStruct>,
}
