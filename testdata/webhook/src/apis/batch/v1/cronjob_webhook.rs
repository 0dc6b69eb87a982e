//! The CronJob's webhooks: the tutorial's two, and one with every optional argument
//! (its `patch` as controller-tools' own tests write one).
//!
//! +kubebuilder:webhook:path=/mutate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob.kb.io,admissionReviewVersions=v1

// ANCHOR: patch
/// Validates CronJobs.
///
/// +kubebuilder:webhook:path=/validate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob.kb.io,admissionReviewVersions=v1
/// +kubebuilder:webhook:path=/mutate-core-v1-pod,mutating=true,failurePolicy=ignore,sideEffects=NoneOnDryRun,groups=core,resources=pods,verbs=create,versions=v1,name=mpod.kb.io,admissionReviewVersions=v1;v1beta1,matchPolicy=equivalent,timeoutSeconds=5,reinvocationPolicy=IfNeeded,patch=`{"namespaceSelector":{"matchLabels":{"webhook-enabled":"true"}},"objectSelector":{"matchExpressions":[{"key":"tier","operator":"In","values":["frontend","backend"]}]}}`
pub struct CronJobWebhook;
// ANCHOR_END: patch
