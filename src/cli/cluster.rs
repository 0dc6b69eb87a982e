//! `crdgen import --from-cluster`: CRDs read from a cluster through kube's client, the
//! cluster found as kubectl finds it (`KUBECONFIG`, else `~/.kube/config`, its current
//! context or `--context`; else the in-cluster service account).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Resource as _;
use kube::api::{Api, GetParams, ListParams};
use kube::config::KubeConfigOptions;
use kube::core::Request;
use serde_json::Value;

use crate::diag::{Code, Diagnostic, did_you_mean};
use crate::import::Input;

/// A cluster's CRD as diagnostics name it, as kubectl names the object.
fn shown(name: &str) -> String {
    format!("cluster:customresourcedefinition/{name}")
}

/// The CRDs called `names` (`certificates.cert-manager.io`), as the cluster serves
/// them, in that order; or why they cannot be read, one diagnostic per name.
pub fn read(names: &[String], context: Option<&str>) -> Result<Vec<Input>, Vec<Diagnostic>> {
    let read = block_on(fetch(names, context, Missing::Error))?;
    Ok(read
        .into_iter()
        .map(|(name, text)| Input::Text { name, text })
        .collect())
}

/// Those of the CRDs called `names` that the cluster has, each as (the name
/// diagnostics show, its JSON); a name it lacks is passed over.
pub fn read_present(
    names: &[String],
    context: Option<&str>,
) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    block_on(fetch(names, context, Missing::Skip))
}

/// What a name the cluster has no CRD of is.
#[derive(Clone, Copy, PartialEq)]
enum Missing {
    Error,
    Skip,
}

fn block_on<T>(
    work: impl std::future::Future<Output = Result<T, Vec<Diagnostic>>>,
) -> Result<T, Vec<Diagnostic>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            vec![Diagnostic::error(
                Code::Cluster,
                format!("cannot start the cluster client: {e}"),
            )]
        })?;
    runtime.block_on(work)
}

async fn fetch(
    names: &[String],
    context: Option<&str>,
    missing: Missing,
) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    let client = client(context).await.map_err(|d| vec![d])?;
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    // Read as JSON values, not k8s-openapi's type, whose float bounds would turn a
    // served `maximum: 100` into `100.0`.
    let resource = Request::new(CustomResourceDefinition::url_path(&(), None));
    let mut read = Vec::new();
    let mut errors = Vec::new();
    for name in names {
        let answer = match resource.get(name, &GetParams::default()) {
            Ok(request) => client.request::<Value>(request).await,
            Err(e) => Err(kube::Error::BuildRequest(e)),
        };
        match answer {
            Ok(crd) => match serde_json::to_string_pretty(&crd) {
                // Pretty, so that a diagnostic's line points at one field.
                Ok(text) => read.push((shown(name), text)),
                Err(e) => errors.push(Diagnostic::bug(format!("cannot write `{name}` as JSON: {e}"))),
            },
            Err(kube::Error::Api(status)) if status.code == 404 && missing == Missing::Skip => {}
            Err(kube::Error::Api(status)) if status.code == 404 => {
                errors.push(not_found(&api, name).await);
            }
            Err(e) => errors.push(
                Diagnostic::error(Code::Cluster, format!("cannot read the CRD `{name}`: {e}"))
                    .at_path(shown(name))
                    .hint(match e {
                        kube::Error::Api(status) if status.code == 401 || status.code == 403 => {
                            "the kubeconfig's user needs `get` on customresourcedefinitions.apiextensions.k8s.io"
                        }
                        _ => "check that `kubectl get crd NAME` works with the same kubeconfig",
                    }),
            ),
        }
    }
    if errors.is_empty() {
        Ok(read)
    } else {
        Err(errors)
    }
}

/// The client for the cluster kubectl would talk to.
async fn client(context: Option<&str>) -> Result<kube::Client, Diagnostic> {
    let config = match context {
        Some(context) => kube::Config::from_kubeconfig(&KubeConfigOptions {
            context: Some(context.to_owned()),
            ..KubeConfigOptions::default()
        })
        .await
        .map_err(|e| e.to_string()),
        None => kube::Config::infer().await.map_err(|e| e.to_string()),
    };
    config
        .and_then(|config| kube::Client::try_from(config).map_err(|e| e.to_string()))
        .map_err(|e| {
            Diagnostic::error(Code::Cluster, format!("no cluster to read CRDs from: {e}")).hint(
                match context {
                    Some(_) => "`kubectl config get-contexts` lists the kubeconfig's contexts",
                    None => "point KUBECONFIG at a kubeconfig (`kubectl config view` shows the one kubectl uses), or give --context",
                },
            )
        })
}

/// A CRD the cluster does not have, with the name it may have been meant to be.
async fn not_found(api: &Api<CustomResourceDefinition>, name: &str) -> Diagnostic {
    let served: Vec<String> = api
        .list_metadata(&ListParams::default())
        .await
        .map(|list| {
            list.items
                .into_iter()
                .filter_map(|crd| crd.metadata.name)
                .collect()
        })
        .unwrap_or_default();
    let hint = match did_you_mean(name, served.iter().map(String::as_str)) {
        Some(close) => format!("did you mean `{close}`?"),
        None => "a CRD is named PLURAL.GROUP (`certificates.cert-manager.io`); `kubectl get crd` lists them".to_owned(),
    };
    Diagnostic::error(Code::Cluster, format!("the cluster has no CRD `{name}`"))
        .at_path(shown(name))
        .hint(hint)
}
