// ANCHOR: markers
//! Webhooks for `CronJob` (`batch.tutorial.crdgen.dev/v1`). The markers below make
//! config/webhook/manifests.yaml (hack/update-codegen.sh); write the logic in the
//! methods.
//!
//! +kubebuilder:webhook:path=/mutate-batch-tutorial-crdgen-dev-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.crdgen.dev,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.batch.tutorial.crdgen.dev,admissionReviewVersions=v1
//! +kubebuilder:webhook:path=/validate-batch-tutorial-crdgen-dev-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.crdgen.dev,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.batch.tutorial.crdgen.dev,admissionReviewVersions=v1
// ANCHOR_END: markers

use crdgen_runtime::webhook::{Defaulter, Denial, Validator, Warnings, Webhooks, field};

use crate::apis::batch::v1::{ConcurrencyPolicy, CronJob};
use crate::schedule;

// ANCHOR: defaulter
/// Fills in what the spec leaves out, before the apiserver stores it: the JSON patch
/// sent back is computed from what `default` changes.
pub struct CronJobDefaulter;

impl Defaulter<CronJob> for CronJobDefaulter {
    async fn default(&self, object: &mut CronJob) -> Result<(), Denial> {
        let spec = &mut object.spec;
        spec.concurrency_policy
            .get_or_insert(ConcurrencyPolicy::Allow);
        spec.suspend.get_or_insert(false);
        spec.successful_jobs_history_limit.get_or_insert(3);
        spec.failed_jobs_history_limit.get_or_insert(1);
        Ok(())
    }
}
// ANCHOR_END: defaulter

// ANCHOR: validator
/// Refuses what the controller could not run: a schedule it cannot read, or a name too
/// long for the Jobs named after it.
pub struct CronJobValidator;

impl Validator<CronJob> for CronJobValidator {
    async fn validate_create(&self, object: &CronJob) -> Result<Warnings, Denial> {
        validate(object)
    }

    async fn validate_update(&self, _old: &CronJob, new: &CronJob) -> Result<Warnings, Denial> {
        validate(new)
    }
}

/// A Job is named `<cronjob>-<unix time>`: eleven characters more, within the 63 of a
/// label value (Jobs label their pods with their name).
const MAX_NAME: usize = 52;

fn validate(object: &CronJob) -> Result<Warnings, Denial> {
    let mut errors = Vec::new();
    let name = object.metadata.name.as_deref().unwrap_or_default();
    if name.len() > MAX_NAME {
        errors.push(field::too_long(
            &field::Path::new("metadata").child("name"),
            MAX_NAME,
        ));
    }
    if let Err(why) = schedule::period(&object.spec.schedule) {
        let path = field::Path::new("spec").child("schedule");
        errors.push(field::invalid(&path, &object.spec.schedule, &why));
    }
    match errors.is_empty() {
        true => Ok(Warnings::new()),
        false => Err(Denial::invalid::<CronJob>(name, &errors)),
    }
}
// ANCHOR_END: validator

// ANCHOR: register
/// Adds this kind's webhooks.
pub fn register(webhooks: Webhooks) -> Webhooks {
    webhooks
        .defaulter::<CronJob, _>(
            "/mutate-batch-tutorial-crdgen-dev-v1-cronjob",
            CronJobDefaulter,
        )
        .validator::<CronJob, _>(
            "/validate-batch-tutorial-crdgen-dev-v1-cronjob",
            CronJobValidator,
        )
}
// ANCHOR_END: register
