//! The values a sweep parameter takes: explicit lists, linear ranges and log
//! ranges, over plain numbers or unit strings (`"10Mbps"`, `"20ms"`, `"64KB"`,
//! `"100pkt"`).
//!
//! Each value keeps the TOML value written into the scenario and, where it has
//! one, its number in the family's base unit (bits/s, seconds, bytes, packets),
//! which constraints compare and tables and plots use as the x axis.

use serde::{Deserialize, Serialize};
use sim_core::{parse_bytes, parse_duration, parse_rate, Bytes, Rate, SimDuration};
use toml::Value;

/// Most points one parameter may generate (a typo such as `step = 0.0001` would
/// otherwise ask for millions of runs).
pub const MAX_VALUES: usize = 10_000;

/// The unit family of a value, by how it is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// A plain number.
    Number,
    /// A bit rate (`"10Mbps"`); base unit bits/s.
    Rate,
    /// A duration (`"20ms"`); base unit seconds.
    Duration,
    /// A byte size (`"64KB"`); base unit bytes.
    Bytes,
    /// A buffer in packets (`"100pkt"`); base unit packets.
    Packets,
    /// Anything else (an algorithm name, a boolean): no number.
    Label,
}

impl Family {
    /// The base unit's symbol, for axis labels (empty for plain numbers and labels).
    pub fn unit(self) -> &'static str {
        match self {
            Family::Rate => "bps",
            Family::Duration => "s",
            Family::Bytes => "B",
            Family::Packets => "pkt",
            Family::Number | Family::Label => "",
        }
    }

    /// The value written for `x` base units, for generated (range) values.
    fn render(self, x: f64, integer: bool) -> Value {
        match self {
            Family::Number if integer => Value::Integer(x.round() as i64),
            Family::Number | Family::Label => Value::Float(x),
            Family::Rate => Value::String(Rate::from_bps(x.round() as u64).to_string()),
            Family::Duration => Value::String(SimDuration::from_secs_f64(x).to_string()),
            Family::Bytes => Value::String(Bytes::new(x.round() as u64).to_string()),
            Family::Packets => Value::String(format!("{}pkt", x.round() as u64)),
        }
    }
}

/// One value of a parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepValue {
    /// What is written into the scenario.
    pub value: Value,
    /// The value in its family's base unit, if it is a quantity.
    pub num: Option<f64>,
    /// The family it was read as.
    pub family: Family,
}

impl SweepValue {
    /// The value as a short label (`10Mbps`, `0.5`, `new_reno`).
    pub fn label(&self) -> String {
        match &self.value {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        }
    }
}

/// Read a written value: its family and its number in base units.
pub fn classify(v: &Value) -> SweepValue {
    let (family, num) = match v {
        Value::Integer(i) => (Family::Number, Some(*i as f64)),
        Value::Float(f) => (Family::Number, Some(*f)),
        Value::String(s) => quantity(s).map_or((Family::Label, None), |(f, x)| (f, Some(x))),
        _ => (Family::Label, None),
    };
    SweepValue {
        value: v.clone(),
        num,
        family,
    }
}

/// A unit string's family and value in base units.
fn quantity(s: &str) -> Option<(Family, f64)> {
    let t = s.trim();
    if let Some(n) = t.strip_suffix("pkts").or_else(|| t.strip_suffix("pkt")) {
        return n.trim().parse::<f64>().ok().map(|x| (Family::Packets, x));
    }
    if let Ok(r) = parse_rate(t) {
        return Some((Family::Rate, r.bps_f64()));
    }
    if let Ok(d) = parse_duration(t) {
        return Some((Family::Duration, d.as_secs_f64()));
    }
    if let Ok(b) = parse_bytes(t) {
        return Some((Family::Bytes, b.get() as f64));
    }
    None
}

/// How a range is spaced.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Equal differences.
    #[default]
    Linear,
    /// Equal ratios.
    Log,
}

/// A range as written: `from`, `to`, and either `step` (linear only) or `points`.
pub struct RangeSpec<'a> {
    /// First value.
    pub from: &'a Value,
    /// Last value (included when the steps land on it).
    pub to: &'a Value,
    /// Linear step, in the same unit family.
    pub step: Option<&'a Value>,
    /// Number of points, ends included.
    pub points: Option<u32>,
    /// Spacing.
    pub scale: Scale,
}

/// A problem with a range, naming the offending key (`from`, `to`, `step`, `points`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeError {
    /// The key below the parameter.
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

fn rerr(key: &'static str, message: impl Into<String>) -> RangeError {
    RangeError {
        key,
        message: message.into(),
    }
}

/// Expand a range into its values.
pub fn expand_range(r: &RangeSpec) -> Result<Vec<SweepValue>, RangeError> {
    let quantity_of = |key: &'static str, v: &Value| -> Result<(Family, f64), RangeError> {
        let c = classify(v);
        match (c.family, c.num) {
            (Family::Label, _) | (_, None) => Err(rerr(
                key,
                format!(
                    "a range needs numbers or unit strings such as \"10Mbps\", \"20ms\", \
                     \"64KB\", \"100pkt\"; got {v}"
                ),
            )),
            (f, Some(x)) if x.is_finite() => Ok((f, x)),
            _ => Err(rerr(key, format!("{v} is not a finite number"))),
        }
    };
    let (family, a) = quantity_of("from", r.from)?;
    let (f2, b) = quantity_of("to", r.to)?;
    if f2 != family {
        return Err(rerr(
            "to",
            format!(
                "`to` ({}) is not in the unit family of `from` ({})",
                r.to, r.from
            ),
        ));
    }
    let integer = matches!(r.from, Value::Integer(_)) && matches!(r.to, Value::Integer(_)) && {
        r.step.is_none_or(|s| matches!(s, Value::Integer(_)))
    };
    let xs: Vec<f64> = match (r.step, r.points, r.scale) {
        (Some(_), Some(_), _) => {
            return Err(rerr("points", "give either `step` or `points`, not both"))
        }
        (None, None, _) => return Err(rerr("step", "a range needs `step` or `points`")),
        (Some(_), None, Scale::Log) => {
            return Err(rerr(
                "step",
                "a log range is spaced by `points`, not `step`",
            ))
        }
        (Some(s), None, Scale::Linear) => {
            let (fs, d) = quantity_of("step", s)?;
            if fs != family {
                return Err(rerr(
                    "step",
                    format!(
                        "`step` ({s}) is not in the unit family of `from` ({})",
                        r.from
                    ),
                ));
            }
            if d == 0.0 || (b - a) * d < 0.0 {
                return Err(rerr(
                    "step",
                    format!(
                        "step {s} never reaches `to` ({}) from `from` ({})",
                        r.to, r.from
                    ),
                ));
            }
            let n = ((b - a) / d + 1e-9).floor() + 1.0;
            if n > MAX_VALUES as f64 {
                return Err(rerr(
                    "step",
                    format!("the range has {n} values; at most {MAX_VALUES} are allowed"),
                ));
            }
            (0..n as usize).map(|i| a + i as f64 * d).collect()
        }
        (None, Some(p), scale) => {
            if p < 1 || p as usize > MAX_VALUES {
                return Err(rerr(
                    "points",
                    format!("must be between 1 and {MAX_VALUES}"),
                ));
            }
            if p == 1 {
                vec![a]
            } else if scale == Scale::Log {
                if a <= 0.0 || b <= 0.0 {
                    return Err(rerr("from", "a log range needs `from` and `to` > 0"));
                }
                let (la, lb) = (a.ln(), b.ln());
                (0..p)
                    .map(|i| (la + (lb - la) * f64::from(i) / f64::from(p - 1)).exp())
                    .collect()
            } else {
                (0..p)
                    .map(|i| a + (b - a) * f64::from(i) / f64::from(p - 1))
                    .collect()
            }
        }
    };
    // Integer ends (and packet counts) round; rounding may merge log points.
    let round = integer || family == Family::Packets;
    let mut out: Vec<SweepValue> = Vec::with_capacity(xs.len());
    for x in xs {
        let v = classify(&family.render(x, integer));
        let v = SweepValue {
            num: if round { v.num } else { v.num.or(Some(x)) },
            ..v
        };
        if out.last().is_none_or(|l| l.value != v.value) {
            out.push(v);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(
        from: Value,
        to: Value,
        step: Option<Value>,
        points: Option<u32>,
        scale: Scale,
    ) -> Result<Vec<String>, RangeError> {
        expand_range(&RangeSpec {
            from: &from,
            to: &to,
            step: step.as_ref(),
            points,
            scale,
        })
        .map(|v| v.iter().map(SweepValue::label).collect())
    }

    fn s(x: &str) -> Value {
        Value::String(x.into())
    }

    #[test]
    fn integer_steps_include_both_ends() {
        let v = range(
            Value::Integer(1),
            Value::Integer(10),
            Some(Value::Integer(3)),
            None,
            Scale::Linear,
        );
        assert_eq!(v.unwrap(), ["1", "4", "7", "10"]);
    }

    #[test]
    fn float_steps_do_not_lose_the_last_point_to_rounding() {
        let v = range(
            Value::Float(0.1),
            Value::Float(0.3),
            Some(Value::Float(0.1)),
            None,
            Scale::Linear,
        );
        assert_eq!(v.unwrap().len(), 3);
    }

    #[test]
    fn log_ranges_of_rates_are_written_as_rates() {
        let v = range(s("10Mbps"), s("1Gbps"), None, Some(3), Scale::Log).unwrap();
        assert_eq!(v, ["10Mbps", "100Mbps", "1Gbps"]);
    }

    #[test]
    fn unit_ranges_convert_between_prefixes() {
        let v = range(s("10ms"), s("1s"), Some(s("330ms")), None, Scale::Linear).unwrap();
        assert_eq!(v, ["10ms", "340ms", "670ms", "1s"]);
    }

    #[test]
    fn packet_ranges_round_and_merge_equal_points() {
        let v = range(s("1pkt"), s("4pkt"), None, Some(7), Scale::Log).unwrap();
        assert_eq!(v, ["1pkt", "2pkt", "3pkt", "4pkt"]);
    }

    #[test]
    fn the_number_of_a_unit_value_is_in_base_units() {
        let v = classify(&s("20ms"));
        assert_eq!(v.family, Family::Duration);
        assert!((v.num.unwrap() - 0.02).abs() < 1e-15);
        assert_eq!(classify(&s("new_reno")).num, None);
    }

    #[test]
    fn bad_ranges_name_their_key() {
        let e = range(
            s("new_reno"),
            s("x"),
            Some(Value::Integer(1)),
            None,
            Scale::Linear,
        )
        .unwrap_err();
        assert_eq!(e.key, "from");
        let e = range(s("10Mbps"), s("20ms"), None, Some(2), Scale::Linear).unwrap_err();
        assert_eq!(e.key, "to");
        let e = range(
            Value::Integer(1),
            Value::Integer(5),
            Some(Value::Integer(-1)),
            None,
            Scale::Linear,
        )
        .unwrap_err();
        assert_eq!(e.key, "step");
        let e = range(
            Value::Integer(0),
            Value::Integer(5),
            None,
            Some(3),
            Scale::Log,
        )
        .unwrap_err();
        assert_eq!(e.key, "from");
        let e = range(
            Value::Integer(1),
            Value::Integer(5),
            None,
            None,
            Scale::Linear,
        )
        .unwrap_err();
        assert_eq!(e.key, "step");
        let e = range(
            Value::Float(0.0),
            Value::Float(1.0),
            Some(Value::Float(1e-9)),
            None,
            Scale::Linear,
        )
        .unwrap_err();
        assert_eq!(e.key, "step");
    }
}
