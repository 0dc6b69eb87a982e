use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

use super::ExampleSpec;

/// A cluster-scoped kind with a plural of its own and a field only `Default` fills.
///
/// +genclient
/// +genclient:nonNamespaced
/// +kubebuilder:resource:path=widgetz,shortName=wg;wgt,categories=all
/// +genclient:skipVerbs=deleteCollection,apply
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Widget {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Every kind of enum variant: no CRD schema can say that, so the CRD keeps
    /// whatever is sent.
    ///
    /// +kubebuilder:validation:Schemaless
    /// +kubebuilder:pruning:PreserveUnknownFields
    pub spec: WidgetSpec,
    #[serde(default)]
    pub revision: u32,
}

/// An externally tagged enum with every kind of variant.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WidgetSpec {
    #[default]
    Idle,
    Sized(u32, String),
    Templated {
        template: Option<ExampleSpec>,
        bounds: Pair<i64>,
        #[serde(rename = "r#type")]
        r#type: Token,
    },
}

/// A generic type without `Clone`: the generated impl bounds `T: Clone`.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pair<T> {
    pub left: T,
    pub right: T,
}

/// A type with a hand-written `Clone`, which crdgen leaves alone.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Token(pub String);

impl Clone for Token {
    fn clone(&self) -> Self {
        Token(self.0.to_uppercase())
    }
}
