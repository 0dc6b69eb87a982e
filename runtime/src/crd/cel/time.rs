//! The parts of a timestamp as kube-apiserver's CEL reads them: in UTC unless a time
//! zone is given (its environment's `DefaultUTCTimeZone`), where the cel crate reads
//! them in the timestamp's own offset and ignores the zone. A zone is `UTC` or a fixed
//! offset (`+01:00`, `-05:30`, `01:00`); IANA names (`Europe/Paris`) need a time zone
//! database this crate does not carry, and fail.

use chrono::{DateTime, Datelike as _, FixedOffset, Timelike as _};
use kube_cel::cel::extractors::This;
use kube_cel::cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

/// The accessors, by name.
const PARTS: &[&str] = &[
    "getFullYear",
    "getMonth",
    "getDayOfYear",
    "getDayOfMonth",
    "getDate",
    "getDayOfWeek",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
];

/// Registers the accessors on `ctx`, over the cel crate's.
pub(super) fn register(ctx: &mut Context<'_>) {
    for name in PARTS {
        ctx.add_function(
            name,
            move |ftx: &FunctionContext, This(this): This<Value>| part(ftx, name, this),
        );
    }
}

fn part(ftx: &FunctionContext, name: &str, this: Value) -> ResolveResult {
    let t = match this {
        Value::Timestamp(t) => t,
        Value::Duration(d) => {
            return Ok(Value::Int(match name {
                "getHours" => d.num_hours(),
                "getMinutes" => d.num_minutes(),
                "getSeconds" => d.num_seconds(),
                "getMilliseconds" => d.num_milliseconds(),
                _ => return Err(ExecutionError::NoSuchOverload),
            }));
        }
        _ => return Err(ExecutionError::NoSuchOverload),
    };
    let zone = match ftx.args {
        [] => FixedOffset::east_opt(0).expect("UTC"),
        [zone] => match ftx.ptx.resolve(zone)? {
            Value::String(z) => {
                offset(&z).ok_or_else(|| ftx.error(format!("unknown time zone {z}")))?
            }
            _ => return Err(ExecutionError::NoSuchOverload),
        },
        _ => return Err(ExecutionError::invalid_argument_count(1, ftx.args.len())),
    };
    let t: DateTime<FixedOffset> = t.with_timezone(&zone);
    let value = match name {
        "getFullYear" => i64::from(t.year()),
        "getMonth" => i64::from(t.month0()),
        "getDayOfYear" => i64::from(t.ordinal0()),
        "getDayOfMonth" => i64::from(t.day0()),
        "getDate" => i64::from(t.day()),
        "getDayOfWeek" => i64::from(t.weekday().num_days_from_sunday()),
        "getHours" => i64::from(t.hour()),
        "getMinutes" => i64::from(t.minute()),
        "getSeconds" => i64::from(t.second()),
        _ => i64::from(t.nanosecond() / 1_000_000),
    };
    Ok(Value::Int(value))
}

/// A zone as cel-go reads it: `UTC`, or an offset `[+-]HH:MM` (the sign optional).
fn offset(zone: &str) -> Option<FixedOffset> {
    if zone == "UTC" {
        return FixedOffset::east_opt(0);
    }
    let (sign, rest) = match zone.as_bytes().first()? {
        b'-' => (-1, &zone[1..]),
        b'+' => (1, &zone[1..]),
        _ => (1, zone),
    };
    let (hours, minutes) = rest.split_once(':')?;
    let seconds = hours.parse::<i32>().ok()? * 3600 + minutes.parse::<i32>().ok()? * 60;
    FixedOffset::east_opt(sign * seconds)
}

#[cfg(test)]
mod tests {
    use super::offset;

    #[test]
    fn zones_are_utc_or_offsets() {
        assert_eq!(offset("UTC").unwrap().local_minus_utc(), 0);
        assert_eq!(offset("01:00").unwrap().local_minus_utc(), 3600);
        assert_eq!(offset("-05:30").unwrap().local_minus_utc(), -19800);
        assert!(offset("Europe/Paris").is_none());
    }
}
