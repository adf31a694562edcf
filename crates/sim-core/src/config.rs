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

/// Check `lo <= x <= hi` (inclusive) for a named parameter.
pub fn check_range(key: &str, x: f64, lo: f64, hi: f64) -> Result<(), ParamError> {
    if x.is_finite() && x >= lo && x <= hi {
        Ok(())
    } else {
        Err(ParamError::new(
            key,
            format!("{x} is out of range; allowed: {lo} <= {key} <= {hi}"),
        ))
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
