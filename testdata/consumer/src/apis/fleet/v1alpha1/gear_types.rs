use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;
use serde::{Deserialize, Serialize};

use crate::apis::fleet::v1;

/// The older version, converted to and from the hub by the `From` impls below: all
/// crdgen's conversion webhook asks of the user (kubebuilder's Convertible).
///
/// +genclient
/// +crdgen:conversion:webhook
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Gear {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: GearSpec,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GearSpec {
    pub teeth: i32,
    pub material: String,
}

impl From<Gear> for v1::Gear {
    fn from(old: Gear) -> Self {
        v1::Gear {
            types: None,
            metadata: old.metadata,
            spec: v1::GearSpec {
                teeth: old.spec.teeth,
                build: v1::Build {
                    material: old.spec.material,
                },
            },
        }
    }
}

impl From<v1::Gear> for Gear {
    fn from(hub: v1::Gear) -> Self {
        Gear {
            types: None,
            metadata: hub.metadata,
            spec: GearSpec {
                teeth: hub.spec.teeth,
                material: hub.spec.build.material,
            },
        }
    }
}
