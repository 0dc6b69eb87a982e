//! Cost ranges as cel-go's checker keeps them: `[min, max]` pairs that saturate instead
//! of overflowing, and its cost factors (a tenth per character traversed, a quarter per
//! regular-expression character).

/// A range of costs or sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Range {
    pub min: u64,
    pub max: u64,
}

/// Per character of a string walked.
pub const TRAVERSAL: f64 = 0.1;
/// Per character of a regular expression.
pub const REGEX: f64 = 0.25;
/// Creating a list.
pub const LIST: u64 = 10;
/// Creating a map.
pub const MAP: u64 = 30;
/// Creating a message.
pub const STRUCT: u64 = 40;

impl Range {
    pub const UNKNOWN: Range = Range {
        min: 0,
        max: u64::MAX,
    };

    pub const fn fixed(n: u64) -> Range {
        Range { min: n, max: n }
    }

    pub fn add(self, other: Range) -> Range {
        Range {
            min: self.min.saturating_add(other.min),
            max: self.max.saturating_add(other.max),
        }
    }

    pub fn mul(self, other: Range) -> Range {
        Range {
            min: self.min.saturating_mul(other.min),
            max: self.max.saturating_mul(other.max),
        }
    }

    /// Each end times `factor`, rounded up.
    pub fn factor(self, factor: f64) -> Range {
        let scale = |x: u64| {
            let product = (x as f64 * factor).ceil();
            if product >= 18_446_744_073_709_551_616.0 {
                u64::MAX
            } else {
                product as u64
            }
        };
        Range {
            min: scale(self.min),
            max: scale(self.max),
        }
    }

    pub fn union(self, other: Range) -> Range {
        Range {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }
}
