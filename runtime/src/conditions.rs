//! Status conditions, as apimachinery's `meta.SetStatusCondition` and friends keep
//! them: one condition per type, and a `lastTransitionTime` that moves only when the
//! condition's status does.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

/// Sets `new` in `conditions`, replacing the one of its type. When the status does not
/// change, the existing `lastTransitionTime` is kept and only the reason, message and
/// observed generation are updated. Returns whether anything changed (whether the
/// status is worth writing).
///
/// ```
/// use crdgen_runtime::conditions::set_status_condition;
/// use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
/// use k8s_openapi::jiff::Timestamp;
///
/// let ready = |reason: &str, at: Timestamp| Condition {
///     type_: "Ready".into(),
///     status: "True".into(),
///     reason: reason.into(),
///     message: String::new(),
///     observed_generation: None,
///     last_transition_time: Time(at),
/// };
/// let mut conditions = Vec::new();
/// let first = Timestamp::from_second(1_700_000_000).unwrap();
/// assert!(set_status_condition(&mut conditions, ready("Started", first)));
/// // Still True: the transition time stays, the reason moves on.
/// let later = Timestamp::from_second(1_700_000_100).unwrap();
/// assert!(set_status_condition(&mut conditions, ready("Reconciled", later)));
/// assert_eq!(conditions[0].last_transition_time.0, first);
/// assert_eq!(conditions[0].reason, "Reconciled");
/// // Nothing new: nothing to write.
/// assert!(!set_status_condition(&mut conditions, ready("Reconciled", later)));
/// ```
pub fn set_status_condition(conditions: &mut Vec<Condition>, new: Condition) -> bool {
    let Some(existing) = conditions.iter_mut().find(|c| c.type_ == new.type_) else {
        conditions.push(new);
        return true;
    };
    if existing.status != new.status {
        *existing = new;
        return true;
    }
    let mut changed = false;
    for (old, new) in [
        (&mut existing.reason, new.reason),
        (&mut existing.message, new.message),
    ] {
        if *old != new {
            *old = new;
            changed = true;
        }
    }
    if existing.observed_generation != new.observed_generation {
        existing.observed_generation = new.observed_generation;
        changed = true;
    }
    changed
}

/// Removes the condition of `type_`; returns whether there was one.
pub fn remove_status_condition(conditions: &mut Vec<Condition>, type_: &str) -> bool {
    let before = conditions.len();
    conditions.retain(|c| c.type_ != type_);
    conditions.len() != before
}

/// The condition of `type_` in `conditions`, if there is one (apimachinery's
/// `FindStatusCondition`).
pub fn find_status_condition<'a>(
    conditions: &'a [Condition],
    type_: &str,
) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Whether the condition of `type_` is there with status `True`.
pub fn is_status_condition_true(conditions: &[Condition], type_: &str) -> bool {
    find_status_condition(conditions, type_).is_some_and(|c| c.status == "True")
}
