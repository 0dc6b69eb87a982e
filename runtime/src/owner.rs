//! Owner references, as controller-runtime's `SetControllerReference` and
//! `SetOwnerReference` write them: the references the garbage collector follows, and
//! the controller reference `enqueue_owner` maps events back through.

use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::Resource;

use crate::cache::key_of;

/// Why an owner reference was not set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnerError {
    /// The object already has a different controller (the apiserver allows one).
    AlreadyOwned {
        /// The object, `namespace/name`.
        object: String,
        /// Its controller now.
        controller: String,
    },
    /// A namespaced owner of an object in another namespace, or of a cluster-scoped
    /// object: the garbage collector would treat the owner as absent.
    Namespace {
        /// The object, `namespace/name`.
        object: String,
        /// The owner asked for.
        owner: String,
    },
    /// The owner has no name or uid: it was not read from the apiserver.
    Unidentified,
}

impl fmt::Display for OwnerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OwnerError::AlreadyOwned { object, controller } => {
                write!(f, "{object} is already controlled by {controller}")
            }
            OwnerError::Namespace { object, owner } => write!(
                f,
                "{owner} cannot own {object}: a namespaced owner must be in its object's namespace"
            ),
            OwnerError::Unidentified => f.write_str(
                "the owner has no name or uid: use the object as the apiserver returned it",
            ),
        }
    }
}

impl std::error::Error for OwnerError {}

/// Makes `owner` the controller of `object` (`controller` and `blockOwnerDeletion`
/// set), replacing an earlier reference to the same owner; refuses when another
/// object controls it already.
///
/// # Errors
///
/// [`OwnerError`]: another controller already, an owner in another namespace, or an
/// owner without name or uid.
pub fn set_controller_reference<O, K>(owner: &O, object: &mut K) -> Result<(), OwnerError>
where
    O: Resource<DynamicType = ()>,
    K: Resource,
{
    let reference = reference_to(owner, object)?;
    let reference = OwnerReference {
        controller: Some(true),
        block_owner_deletion: Some(true),
        ..reference
    };
    let existing = object.meta().owner_references.iter().flatten();
    if let Some(other) = existing
        .filter(|r| r.controller == Some(true))
        .find(|r| !same_object(r, &reference))
    {
        return Err(OwnerError::AlreadyOwned {
            object: key_of(object),
            controller: format!("{} {}", other.kind, other.name),
        });
    }
    upsert(object, reference);
    Ok(())
}

/// Adds `owner` as a plain owner of `object` (not its controller), replacing an
/// earlier reference to the same owner.
///
/// # Errors
///
/// [`OwnerError`]: an owner in another namespace, or without name or uid.
pub fn set_owner_reference<O, K>(owner: &O, object: &mut K) -> Result<(), OwnerError>
where
    O: Resource<DynamicType = ()>,
    K: Resource,
{
    let reference = reference_to(owner, object)?;
    upsert(object, reference);
    Ok(())
}

fn reference_to<O, K>(owner: &O, object: &K) -> Result<OwnerReference, OwnerError>
where
    O: Resource<DynamicType = ()>,
    K: Resource,
{
    if let Some(namespace) = &owner.meta().namespace
        && object.meta().namespace.as_ref() != Some(namespace)
    {
        return Err(OwnerError::Namespace {
            object: key_of(object),
            owner: key_of(owner),
        });
    }
    let meta = owner.meta();
    let (Some(name), Some(uid)) = (&meta.name, &meta.uid) else {
        return Err(OwnerError::Unidentified);
    };
    Ok(OwnerReference {
        api_version: O::api_version(&()).into_owned(),
        kind: O::kind(&()).into_owned(),
        name: name.clone(),
        uid: uid.clone(),
        ..OwnerReference::default()
    })
}

/// The same owner: group, kind and name, whatever the version (controller-runtime).
fn same_object(a: &OwnerReference, b: &OwnerReference) -> bool {
    a.kind == b.kind
        && a.name == b.name
        && crdgen_apimachinery::group_of(&a.api_version)
            == crdgen_apimachinery::group_of(&b.api_version)
}

fn upsert<K: Resource>(object: &mut K, reference: OwnerReference) {
    let references = object.meta_mut().owner_references.get_or_insert_default();
    match references.iter_mut().find(|r| same_object(r, &reference)) {
        Some(existing) => *existing = reference,
        None => references.push(reference),
    }
}
