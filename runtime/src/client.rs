//! Support for generated clientsets: what every typed client needs and is not worth
//! generating again for each kind.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use kube::core::request::Error as RequestError;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use either::Either;
pub use futures_util::Stream;

/// The name an update addresses: the object's own `metadata.name`.
///
/// # Errors
///
/// A request error when the object has no name.
pub fn name_of<K: Resource>(object: &K) -> kube::Result<&str> {
    applied_name(Some(object.meta()))
}

/// The name an apply configuration addresses: its `metadata.name`, which client-go
/// also requires ("cfg.Name must be provided to Apply").
///
/// # Errors
///
/// A request error when there is no name, as client-go refuses it.
pub fn applied_name(metadata: Option<&ObjectMeta>) -> kube::Result<&str> {
    metadata
        .and_then(|m| m.name.as_deref())
        .filter(|n| !n.is_empty())
        .ok_or_else(|| {
            kube::Error::BuildRequest(RequestError::Validation(
                "the object has no metadata.name to address it by".to_owned(),
            ))
        })
}

/// A JSON request body.
///
/// # Errors
///
/// A serialization error when `value` cannot be JSON.
pub fn json_body<T: Serialize>(value: &T) -> kube::Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(kube::Error::SerdeError)
}

/// Sends a request built by `kube::core::Request` and decodes its answer: how
/// generated subresource methods (`+genclient:method=…,subresource=…`) talk to the
/// apiserver through kube's client.
///
/// # Errors
///
/// What kube's client answers: the apiserver's refusal, a transport error, or a body
/// that does not decode as `R`.
pub async fn send<R: DeserializeOwned>(
    client: &kube::Client,
    request: Result<http::Request<Vec<u8>>, RequestError>,
) -> kube::Result<R> {
    client
        .request(request.map_err(kube::Error::BuildRequest)?)
        .await
}
