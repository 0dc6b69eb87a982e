//! The HTTP face of the in-memory server: Kubernetes REST paths and query
//! parameters in, JSON (or a stream of watch events) out.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http::{Method, Request, Response, StatusCode};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use serde_json::Value;

use super::selector::{FieldSelector, LabelSelector};
use super::status::ApiError;
use super::store::{Owner, Patch, PatchKind, Query, ResourceKey, Target, Write};
use super::{ApiServer, definitions};

pub type Body = UnsyncBoxBody<Bytes, Infallible>;

/// What a request path names.
#[derive(Clone)]
struct Route {
    key: ResourceKey,
    namespace: Option<String>,
    name: Option<String>,
    target: Target,
    /// The `/scale` subresource rather than the object.
    scale: bool,
}

fn route(path: &str) -> Option<Route> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, rest) = match segments.as_slice() {
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        ["api", version, rest @ ..] => ("", *version, rest),
        _ => return None,
    };
    let (namespace, rest) = match rest {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => (Some((*ns).to_owned()), rest),
        rest => (None, rest),
    };
    let (plural, name, target, scale) = match rest {
        [plural] => (*plural, None, Target::Main, false),
        [plural, name] => (*plural, Some((*name).to_owned()), Target::Main, false),
        [plural, name, "status"] => (*plural, Some((*name).to_owned()), Target::Status, false),
        [plural, name, "scale"] => (*plural, Some((*name).to_owned()), Target::Main, true),
        _ => return None,
    };
    Some(Route {
        key: (group.to_owned(), version.to_owned(), plural.to_owned()),
        namespace,
        name,
        target,
        scale,
    })
}

/// What `/version` answers: the Kubernetes version whose validation the server follows.
fn version(minor: u16) -> Value {
    serde_json::json!({
        "major": "1",
        "minor": minor.to_string(),
        "emulationMajor": "1",
        "emulationMinor": minor.to_string(),
        "gitVersion": format!("v1.{minor}.0+crdgen-in-memory"),
        "gitCommit": "",
        "gitTreeState": "",
        "buildDate": "",
        "goVersion": "",
        "compiler": "",
        "platform": "",
    })
}

/// The query string, decoded.
struct Params(Vec<(String, String)>);

impl Params {
    fn parse(query: Option<&str>) -> Params {
        Params(
            form_urlencoded::parse(query.unwrap_or_default().as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `dryRun=All`: the write is checked and answered, not made.
    fn dry_run(&self) -> bool {
        self.get("dryRun").is_some_and(|v| v == "All")
    }

    fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Some("true" | "1"))
    }

    fn query(&self, namespace: Option<String>) -> Result<Query, ApiError> {
        let limit = match self.get("limit") {
            Some(l) => Some(
                l.parse()
                    .map_err(|_| ApiError::bad_request(format!("invalid limit: {l}")))?,
            ),
            None => None,
        };
        Ok(Query {
            namespace,
            labels: LabelSelector::parse(self.get("labelSelector").unwrap_or_default())
                .map_err(ApiError::bad_request)?,
            fields: FieldSelector::parse(self.get("fieldSelector").unwrap_or_default())
                .map_err(ApiError::bad_request)?,
            limit,
            continue_token: self
                .get("continue")
                .filter(|c| !c.is_empty())
                .map(str::to_owned),
        })
    }
}

impl ApiServer {
    /// Serves one request.
    pub(crate) async fn handle(&self, request: Request<kube::client::Body>) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let bytes = match body.collect_bytes().await {
            Ok(bytes) => bytes,
            Err(e) => return error(&ApiError::bad_request(format!("unreadable body: {e}"))),
        };
        if let Some(answer) = self.review(&parts.method, parts.uri.path(), &bytes) {
            return match answer {
                Ok((status, value)) => json(status, &value),
                Err(e) => error(&e),
            };
        }
        if parts.method == Method::GET && parts.uri.path() == "/version" {
            return json(StatusCode::OK, &version(self.minor()));
        }
        let params = Params::parse(parts.uri.query());
        let Some(route) = route(parts.uri.path()) else {
            return error(&ApiError::new(
                404,
                "NotFound",
                "the server could not find the requested resource",
            ));
        };
        let content_type = parts
            .headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/json")
            .to_owned();
        // `Accept: …;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1`: kube's
        // `Api<PartialObjectMeta<K>>`, whose reads the apiserver answers with metadata only.
        let metadata_only = parts.method == Method::GET
            && parts
                .headers
                .get(http::header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|accept| accept.contains("as=PartialObjectMetadata"));
        if parts.method == Method::GET && route.name.is_none() && params.flag("watch") {
            return self.watch(route, &params, metadata_only);
        }
        // Who an update is recorded for: the apiserver's `fieldManager`, else the user
        // agent up to its first `/`.
        let manager = match params.get("fieldManager") {
            Some(manager) => manager.to_owned(),
            None => parts
                .headers
                .get(http::header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .map(|agent| agent.split('/').next().unwrap_or_default().to_owned())
                .unwrap_or_default(),
        };
        let request = RequestParts {
            params: &params,
            content_type: &content_type,
            bytes: &bytes,
            owner: Owner::Update(&manager),
        };
        let answer = match route.key == definitions::key() {
            true => self.serve_crds(&parts.method, route, &request),
            false => self.serve(&parts.method, route, &request),
        };
        match answer {
            Ok((status, value)) if metadata_only => json(status, &partial_metadata(value)),
            Ok((status, value)) => json(status, &value),
            Err(e) => error(&e),
        }
    }

    fn serve(
        &self,
        method: &Method,
        route: Route,
        request: &RequestParts<'_>,
    ) -> Result<(StatusCode, Value), ApiError> {
        let RequestParts {
            params,
            content_type,
            bytes,
            owner,
        } = *request;
        let body = || -> Result<Value, ApiError> {
            if bytes.is_empty() {
                return Ok(Value::Null);
            }
            serde_json::from_slice(bytes).map_err(|e| {
                ApiError::bad_request(format!("the body of the request is not JSON: {e}"))
            })
        };
        let dry_run = params.dry_run();
        let how = Write { dry_run, owner };
        let ns = route.namespace.as_deref();
        let key = &route.key;
        let mut store = self.store();
        if route.target == Target::Status && !store.info(key)?.status_subresource {
            // As the apiserver: a resource without the subresource has no such path.
            return Err(ApiError::new(
                404,
                "NotFound",
                "the server could not find the requested resource",
            ));
        }
        match (method, route.name.as_deref()) {
            (&Method::GET, Some(name)) if route.scale => store.get_scale(key, ns, name).map(ok),
            (&Method::PUT, Some(name)) if route.scale => {
                store.replace_scale(key, ns, name, body()?, how).map(ok)
            }
            (&Method::PATCH, Some(name)) if route.scale => store
                .patch_scale(key, ns, name, patch(params, content_type, body()?), how)
                .map(ok),
            _ if route.scale => Err(ApiError::new(
                405,
                "MethodNotAllowed",
                format!("{method} is not supported on /scale"),
            )),
            (&Method::GET, None) => store
                .list(key, &params.query(route.namespace.clone())?)
                .map(ok),
            (&Method::GET, Some(name)) => store.get(key, ns, name).map(ok),
            (&Method::POST, None) => store
                .create(key, ns, body()?, how)
                .map(|v| (StatusCode::CREATED, v)),
            (&Method::PUT, Some(name)) => store
                .replace(key, ns, name, body()?, route.target, how)
                .map(ok),
            (&Method::PATCH, Some(name)) => store
                .patch(
                    key,
                    ns,
                    name,
                    patch(params, content_type, body()?),
                    route.target,
                    how,
                )
                .map(ok),
            (&Method::DELETE, Some(name)) => store
                .delete(key, ns, name, &body()?, dry_run)
                .map(|deletion| ok(deletion.answer())),
            (&Method::DELETE, None) => {
                let query = params.query(route.namespace.clone())?;
                store
                    .delete_collection(key, &query, &body()?, dry_run)
                    .map(ok)
            }
            _ => Err(ApiError::new(
                405,
                "MethodNotAllowed",
                format!("{method} is not supported here"),
            )),
        }
    }

    /// A request on CustomResourceDefinitions: a write is checked as the apiserver
    /// checks a CRD, on what it would leave (made first as a dry run), and once made
    /// serves what the CRD defines.
    fn serve_crds(
        &self,
        method: &Method,
        route: Route,
        request: &RequestParts<'_>,
    ) -> Result<(StatusCode, Value), ApiError> {
        self.serve_crd_resource();
        let mut dry = Params(request.params.0.clone());
        dry.0.push(("dryRun".into(), "All".into()));
        let dry_request = RequestParts {
            params: &dry,
            ..*request
        };
        let dry_run = request.params.dry_run();
        let dry_route = route.clone();
        self.write_crd(
            method,
            || Ok(self.serve(method, dry_route, &dry_request)?.1),
            || self.serve(method, route, request),
            dry_run,
        )
    }

    fn watch(&self, route: Route, params: &Params, metadata_only: bool) -> Response<Body> {
        let receiver = params.query(route.namespace.clone()).and_then(|query| {
            self.store().watch(
                &route.key,
                query,
                params.get("resourceVersion"),
                params.flag("allowWatchBookmarks"),
                params.flag("sendInitialEvents"),
            )
        });
        let receiver = match receiver {
            Ok(receiver) => receiver,
            Err(e) => return error(&e),
        };
        let timeout = params
            .get("timeoutSeconds")
            .and_then(|t| t.parse::<u64>().ok())
            .map_or(Duration::MAX, Duration::from_secs);
        let events = tokio_stream::wrappers::UnboundedReceiverStream::new(receiver)
            .take_until(tokio::time::sleep(timeout))
            .map(move |event| {
                let mut event = serde_json::to_value(&event).unwrap_or_default();
                if metadata_only && event["type"] != "ERROR" {
                    event["object"] = partial_metadata(event["object"].take());
                }
                let mut line = serde_json::to_vec(&event).unwrap_or_default();
                line.push(b'\n');
                Ok::<_, Infallible>(http_body::Frame::data(Bytes::from(line)))
            });
        let mut response = Response::new(BodyExt::boxed_unsync(StreamBody::new(events)));
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/json"),
        );
        response
    }
}

/// An object, or a list, as the apiserver answers a metadata-only read: each object
/// reduced to a `PartialObjectMetadata` of its metadata.
fn partial_metadata(mut value: Value) -> Value {
    let object = |metadata: Value| {
        serde_json::json!({
            "apiVersion": "meta.k8s.io/v1",
            "kind": "PartialObjectMetadata",
            "metadata": metadata,
        })
    };
    match value.get_mut("items").map(Value::take) {
        Some(Value::Array(items)) => serde_json::json!({
            "apiVersion": "meta.k8s.io/v1",
            "kind": "PartialObjectMetadataList",
            "metadata": value["metadata"].take(),
            "items": items.into_iter().map(|mut i| object(i["metadata"].take())).collect::<Vec<_>>(),
        }),
        _ => object(value["metadata"].take()),
    }
}

/// What a request brings besides its method and path.
#[derive(Clone, Copy)]
struct RequestParts<'a> {
    params: &'a Params,
    content_type: &'a str,
    bytes: &'a [u8],
    owner: Owner<'a>,
}

/// A PATCH body, read as its content type says.
fn patch<'a>(params: &'a Params, content_type: &str, body: Value) -> Patch<'a> {
    let kind = match content_type.split(';').next().unwrap_or_default().trim() {
        "application/merge-patch+json" => PatchKind::Merge,
        "application/json-patch+json" => PatchKind::Json,
        "application/apply-patch+yaml" => PatchKind::Apply,
        _ => PatchKind::Strategic,
    };
    Patch {
        kind,
        body,
        field_manager: params.get("fieldManager"),
        force: params.flag("force"),
    }
}

fn ok(value: Value) -> (StatusCode, Value) {
    (StatusCode::OK, value)
}

fn json(status: StatusCode, value: &Value) -> Response<Body> {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    let mut response = Response::new(Full::new(Bytes::from(bytes)).boxed_unsync());
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

fn error(e: &ApiError) -> Response<Body> {
    json(
        StatusCode::from_u16(e.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        &e.to_status(),
    )
}
