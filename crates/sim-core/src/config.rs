//! Shared pieces of configuration: parameter errors and unit-string
//! (de)serialisation, so every crate reports bad input the same way.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::units::{parse_bytes, parse_duration, parse_rate, Bytes, Rate, SimDuration};

/// A parameter outside its valid range. `key` is the path below the component
/// (e.g. `"min_th"`); callers prefix it with the component's place in the scenario.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct ParamError {
    /// Key path of the offending value.
    pub key: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl ParamError {
    /// An error about `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ParamError {
            key: key.into(),
            message: message.into(),
        }
    }
    /// The same error with `prefix.` in front of its key path.
    pub fn prefixed(self, prefix: &str) -> Self {
        let key = if self.key.is_empty() {
            prefix.to_string()
        } else if prefix.is_empty() {
            self.key
        } else {
            format!("{prefix}.{}", self.key)
        };
        ParamError { key, ..self }
    }
}

/// Check `lo <= x <= hi` (inclusive) for a named parameter. A `lo` of
/// `f64::MIN_POSITIVE` reads as "above 0" and a `hi` of `f64::MAX` as no
/// upper bound, and the message says so in those words.
pub fn check_range(key: &str, x: f64, lo: f64, hi: f64) -> Result<(), ParamError> {
    if x.is_finite() && x >= lo && x <= hi {
        return Ok(());
    }
    let low = if lo == f64::MIN_POSITIVE {
        format!("0 < {key}")
    } else {
        format!("{} <= {key}", fmt_num(lo))
    };
    let allowed = if hi == f64::MAX {
        low
    } else {
        format!("{low} <= {}", fmt_num(hi))
    };
    Err(ParamError::new(
        key,
        format!("{} is out of range; allowed: {allowed}", fmt_num(x)),
    ))
}

/// A number for a message: as written for ordinary magnitudes (`0.25`,
/// `1000000`), in scientific notation outside [1e-4, 1e15) (`1e300`, not
/// the 301 digits `{}` prints for an `f64`).
pub fn fmt_num(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || !a.is_finite() || (1e-4..1e15).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

macro_rules! string_serde {
    ($ty:ty, $parse:path, $what:literal) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$ty, E> {
                        $parse(v).map_err(E::custom)
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}

string_serde!(
    SimDuration,
    parse_duration,
    "a duration string such as \"20ms\""
);
string_serde!(Rate, parse_rate, "a rate string such as \"10Mbps\"");
string_serde!(Bytes, parse_bytes, "a byte size string such as \"64KB\"");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_errors_name_open_and_missing_bounds_in_words() {
        let e = check_range("tau", -1.0, f64::MIN_POSITIVE, 2.0).unwrap_err();
        assert_eq!(e.message, "-1 is out of range; allowed: 0 < tau <= 2");
        let e = check_range("w", 1e300, 0.0, 1.0).unwrap_err();
        assert_eq!(e.message, "1e300 is out of range; allowed: 0 <= w <= 1");
        let e = check_range("k", -0.5, 0.0, f64::MAX).unwrap_err();
        assert_eq!(e.message, "-0.5 is out of range; allowed: 0 <= k");
        let e = check_range("k", f64::NAN, 0.0, 1.0).unwrap_err();
        assert_eq!(e.message, "NaN is out of range; allowed: 0 <= k <= 1");
        assert!(check_range("k", 1.0, 0.0, 1.0).is_ok());
    }

    #[test]
    fn numbers_in_messages_stay_short() {
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(fmt_num(1e6), "1000000");
        assert_eq!(fmt_num(-1e300), "-1e300");
        assert_eq!(fmt_num(1e-300), "1e-300");
        assert_eq!(fmt_num(f64::MIN_POSITIVE), "2.2250738585072014e-308");
        assert_eq!(fmt_num(0.0), "0");
    }
}
