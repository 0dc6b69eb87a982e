//! Who may read `/metrics`, asked of the apiserver as controller-runtime's
//! `filters.WithAuthenticationAndAuthorization` asks it: the request's bearer token goes
//! to a TokenReview (who is this?), the user it names to a SubjectAccessReview for the
//! request's path and verb (may they?). No token, or one the apiserver does not know,
//! is 401; a user without a grant (a ClusterRole with `nonResourceURLs: ["/metrics"]`,
//! `verbs: ["get"]`) is 403; an apiserver that cannot answer is 500. Answers are kept as
//! controller-runtime keeps them (tokens 1 minute, allowed 5 minutes, denied 30 seconds),
//! so that a scrape every few seconds costs the apiserver nothing most of the time.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec, UserInfo};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};
use tokio::time::Instant;

use crate::panics::lock;

/// How long the apiserver's answer about a token is kept.
pub const TOKEN_TTL: Duration = Duration::from_secs(60);
/// How long an allowed request's answer is kept.
pub const ALLOW_TTL: Duration = Duration::from_secs(5 * 60);
/// How long a denied request's answer is kept.
pub const DENY_TTL: Duration = Duration::from_secs(30);
/// Answers kept per cache at most: random tokens must not grow it without bound.
const CACHE_ENTRIES: usize = 4096;
/// The tries and waits between them for a review the apiserver did not answer
/// (controller-runtime's: 500 ms, growing by half, five tries).
const RETRY: (Duration, f64, usize) = (Duration::from_millis(500), 1.5, 5);

/// Authenticates and authorises each metrics request with the apiserver.
#[derive(Clone)]
pub struct MetricsAuth {
    client: kube::Client,
    tokens: Arc<Mutex<Expiring<[u8; 32], Option<UserInfo>>>>,
    decisions: Arc<Mutex<Expiring<Attributes, bool>>>,
}

/// What a SubjectAccessReview is asked about.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct Attributes {
    user: String,
    uid: Option<String>,
    groups: Vec<String>,
    extra: BTreeMap<String, Vec<String>>,
    verb: String,
    path: String,
}

/// Why a request is refused: the HTTP status and the body, worded as
/// controller-runtime's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The HTTP status to answer with: 401, 403 or 500.
    pub status: u16,
    /// The body, worded as controller-runtime's filter words it.
    pub message: String,
}

impl MetricsAuth {
    /// Reviews with `client`, which needs `create` on `tokenreviews`
    /// (authentication.k8s.io) and `subjectaccessreviews` (authorization.k8s.io).
    pub fn new(client: kube::Client) -> Self {
        MetricsAuth {
            client,
            tokens: Arc::new(Mutex::new(Expiring::default())),
            decisions: Arc::new(Mutex::new(Expiring::default())),
        }
    }

    /// Whether a request with this `Authorization` header, method and path may be
    /// answered.
    ///
    /// # Errors
    ///
    /// A [`Refusal`] with the status and body to answer: 401, 403, or 500 when the
    /// apiserver cannot answer.
    pub async fn check(
        &self,
        authorization: Option<&[u8]>,
        method: &str,
        path: &str,
    ) -> Result<(), Refusal> {
        let unauthorized = || Refusal {
            status: 401,
            message: "Unauthorized".to_owned(),
        };
        let token = authorization.and_then(bearer).ok_or_else(unauthorized)?;
        let user = self.authenticate(token).await?.ok_or_else(unauthorized)?;
        let attributes = Attributes {
            user: user.username.clone().unwrap_or_default(),
            uid: user.uid.clone(),
            groups: user.groups.clone().unwrap_or_default(),
            extra: user.extra.clone().unwrap_or_default(),
            verb: method.to_ascii_lowercase(),
            path: path.to_owned(),
        };
        match self.authorize(&attributes).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(Refusal {
                status: 403,
                message: format!("Authorization denied for user {}", attributes.user),
            }),
            Err(e) => {
                tracing::error!(user = attributes.user, "metrics authorization failed: {e}");
                Err(Refusal {
                    status: 500,
                    message: format!("Authorization for user {} failed", attributes.user),
                })
            }
        }
    }

    /// The user the apiserver says `token` is, `None` when it does not know it.
    async fn authenticate(&self, token: &str) -> Result<Option<UserInfo>, Refusal> {
        // Keyed by the token's hash: the cache holds no credentials.
        let key: [u8; 32] = ring::digest::digest(&ring::digest::SHA256, token.as_bytes())
            .as_ref()
            .try_into()
            .unwrap_or([0; 32]);
        if let Some(user) = lock(&self.tokens).get(&key) {
            return Ok(user);
        }
        let review = TokenReview {
            spec: TokenReviewSpec {
                token: token.to_owned(),
                ..Default::default()
            },
            ..Default::default()
        };
        let (api, params) = (
            Api::<TokenReview>::all(self.client.clone()),
            PostParams::default(),
        );
        let reviewed = retried(|| api.create(&params, &review))
            .await
            .map_err(|e| {
                tracing::error!("metrics authentication failed: {e}");
                Refusal {
                    status: 500,
                    message: "Authentication failed".to_owned(),
                }
            })?;
        let user = reviewed
            .status
            .filter(|s| s.authenticated == Some(true))
            .and_then(|s| s.user);
        lock(&self.tokens).insert(key, user.clone(), TOKEN_TTL);
        Ok(user)
    }

    async fn authorize(&self, attributes: &Attributes) -> Result<bool, kube::Error> {
        if let Some(allowed) = lock(&self.decisions).get(attributes) {
            return Ok(allowed);
        }
        let review = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: Some(attributes.user.clone()),
                uid: attributes.uid.clone(),
                groups: Some(attributes.groups.clone()).filter(|g| !g.is_empty()),
                extra: Some(attributes.extra.clone()).filter(|e| !e.is_empty()),
                non_resource_attributes: Some(NonResourceAttributes {
                    path: Some(attributes.path.clone()),
                    verb: Some(attributes.verb.clone()),
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let api = Api::<SubjectAccessReview>::all(self.client.clone());
        let params = PostParams::default();
        let reviewed = retried(|| api.create(&params, &review)).await?;
        let allowed = reviewed.status.is_some_and(|s| s.allowed);
        let ttl = if allowed { ALLOW_TTL } else { DENY_TTL };
        lock(&self.decisions).insert(attributes.clone(), allowed, ttl);
        Ok(allowed)
    }
}

/// The token of an `Authorization: Bearer <token>` header, as the apiserver reads one
/// (the scheme in any case, one token).
fn bearer(header: &[u8]) -> Option<&str> {
    let header = std::str::from_utf8(header).ok()?;
    let mut parts = header.split_ascii_whitespace();
    let (scheme, token) = (parts.next()?, parts.next()?);
    (scheme.eq_ignore_ascii_case("bearer") && parts.next().is_none()).then_some(token)
}

/// `review()` until the apiserver answers, tried [`RETRY`] times; answers of 4xx but
/// 429 are final.
async fn retried<T, F, Fut>(mut review: F) -> Result<T, kube::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, kube::Error>>,
{
    let (mut wait, factor, tries) = RETRY;
    let mut tried = 1;
    loop {
        match review().await {
            Err(kube::Error::Api(e)) if e.code < 500 && e.code != 429 => {
                return Err(kube::Error::Api(e));
            }
            Err(e) if tried < tries => {
                tracing::debug!("review not answered ({e}); trying again in {wait:?}");
                tokio::time::sleep(wait).await;
                wait = wait.mul_f64(factor);
                tried += 1;
            }
            answered => return answered,
        }
    }
}

/// Answers kept until their time is up, at most [`CACHE_ENTRIES`] of them.
struct Expiring<K, V> {
    entries: HashMap<K, (V, Instant)>,
}

impl<K, V> Default for Expiring<K, V> {
    fn default() -> Self {
        Expiring {
            entries: HashMap::new(),
        }
    }
}

impl<K: Hash + Eq, V: Clone> Expiring<K, V> {
    fn get(&self, key: &K) -> Option<V> {
        let (value, until) = self.entries.get(key)?;
        (Instant::now() < *until).then(|| value.clone())
    }

    fn insert(&mut self, key: K, value: V, ttl: Duration) {
        let now = Instant::now();
        if self.entries.len() >= CACHE_ENTRIES {
            self.entries.retain(|_, (_, until)| *until > now);
        }
        if self.entries.len() >= CACHE_ENTRIES {
            // Still full of live answers: start over rather than grow.
            self.entries.clear();
        }
        self.entries.insert(key, (value, now + ttl));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_are_read_as_the_apiserver_reads_them() {
        assert_eq!(bearer(b"Bearer abc"), Some("abc"));
        assert_eq!(bearer(b"bearer   abc "), Some("abc"));
        assert_eq!(bearer(b"Basic abc"), None);
        assert_eq!(bearer(b"Bearer"), None);
        assert_eq!(bearer(b"Bearer a b"), None);
        assert_eq!(bearer(b"Bearer \xff"), None);
    }

    #[tokio::test(start_paused = true)]
    async fn answers_expire_and_the_cache_stays_bounded() {
        let mut cache = Expiring::default();
        cache.insert(1, "a", Duration::from_secs(30));
        assert_eq!(cache.get(&1), Some("a"));
        tokio::time::advance(Duration::from_secs(30)).await;
        assert_eq!(cache.get(&1), None);
        for key in 0..CACHE_ENTRIES * 3 {
            cache.insert(key, "b", Duration::from_secs(60));
        }
        assert!(cache.entries.len() <= CACHE_ENTRIES);
    }
}
