//! What cel-go's literal checks (Kubernetes 1.29 and later) accept: a duration, a
//! timestamp and a regular expression written as a literal in a rule are refused when
//! the rule is compiled if they could never be evaluated.

/// Whether `text` is a duration Go's `time.ParseDuration` reads (`1h30m`, `-1.5s`,
/// `0`), within the ±292 years a duration holds.
pub fn duration(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if unsigned == "0" {
        return true;
    }
    let mut rest = unsigned;
    let mut nanos = 0f64;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let Ok(value) = rest[..number_end].parse::<f64>() else {
            return false;
        };
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return false,
        };
        nanos += value * scale;
        rest = &rest[unit_end..];
    }
    nanos <= i64::MAX as f64
}

/// The seconds of 0001-01-01T00:00:00Z and of 9999-12-31T23:59:59Z: CEL's timestamps.
const MIN_SECONDS: i64 = -62_135_596_800;
const MAX_SECONDS: i64 = 253_402_300_799;

/// Whether `text` is an RFC 3339 timestamp within CEL's years 1 to 9999.
pub fn timestamp(text: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(text).is_ok_and(|t| timestamp_seconds(t.timestamp()))
}

/// Whether `seconds` since the epoch is a timestamp CEL holds.
pub fn timestamp_seconds(seconds: i64) -> bool {
    (MIN_SECONDS..=MAX_SECONDS).contains(&seconds)
}

/// Whether `pattern` compiles as an RE2 regular expression.
pub fn regex(pattern: &str) -> bool {
    regex::Regex::new(pattern).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_read_as_go_reads_them() {
        for ok in [
            "0", "1h", "1h30m", "-1.5s", "1us", "1µs", "300ms", "+2m", ".5s",
        ] {
            assert!(duration(ok), "{ok}");
        }
        for bad in ["", "1", "1d", "1nns", "h", "1.2.3s", "-", "3000000h"] {
            assert!(!duration(bad), "{bad}");
        }
    }

    #[test]
    fn timestamps_are_rfc_3339_in_years_1_to_9999() {
        assert!(timestamp("2020-01-01T00:00:00Z"));
        assert!(timestamp("0001-01-01T00:00:00Z"));
        assert!(!timestamp("1000-00-00T00:00:00Z"));
        assert!(!timestamp("1000-01-01T00:00:00ZZ"));
        assert!(timestamp_seconds(0));
        assert!(!timestamp_seconds(-62_135_596_801));
    }
}
