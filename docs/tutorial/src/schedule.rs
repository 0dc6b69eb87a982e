//! The schedule a CronJob runs on: `@every <duration>`, read once for the webhook (which
//! refuses a bad one) and the controller (which runs by it).

use std::time::Duration;

/// The period of `@every 1h30m`: hours, minutes and seconds, each at most once and in
/// that order, more than zero in all. Why not, otherwise, in the words the webhook
/// answers with.
pub fn period(schedule: &str) -> Result<Duration, String> {
    let Some(duration) = schedule.trim().strip_prefix("@every ") else {
        return Err(format!("`{schedule}` is not `@every <duration>`"));
    };
    let mut seconds = 0u64;
    let mut rest = duration.trim();
    let mut units = ["h", "m", "s"].as_slice();
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(digits);
        let unit = units.iter().position(|u| after.starts_with(u));
        let (Ok(number), Some(unit)) = (number.parse::<u64>(), unit) else {
            return Err(format!(
                "`{duration}` is not a duration such as `1h30m` or `45s`"
            ));
        };
        let scale = [3600, 60, 1][3 - units.len() + unit];
        seconds = number
            .checked_mul(scale)
            .and_then(|s| seconds.checked_add(s))
            .ok_or_else(|| format!("`{duration}` is too long"))?;
        rest = &after[1..];
        units = &units[unit + 1..];
    }
    if seconds == 0 {
        return Err(format!("`{duration}` is no time at all"));
    }
    Ok(Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reads_hours_minutes_and_seconds() {
        assert_eq!(period("@every 45s"), Ok(Duration::from_secs(45)));
        assert_eq!(period("@every 1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(period("@every 2m5s"), Ok(Duration::from_secs(125)));
        for bad in [
            "*/5 * * * *",
            "@every",
            "@every 0s",
            "@every 5",
            "@every 5x",
            "@every 1s1m",
            "@every 1m1m",
        ] {
            assert!(period(bad).is_err(), "{bad}");
        }
    }
}
