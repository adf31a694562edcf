//! Unit newtypes: simulated time in integer picoseconds, byte counts and bit rates.
//!
//! The engine never uses floating-point time. Control laws may convert to `f64`
//! seconds at their boundary with [`SimDuration::as_secs_f64`].
//!
//! Unit strings (`"10Mbps"`, `"20ms"`, `"64KB"`) are parsed here so that every
//! crate accepts the same spellings; see [`parse_duration`], [`parse_rate`] and
//! [`parse_bytes`].

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// An instant of simulated time, in picoseconds since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// A span of simulated time, in picoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(u64);

/// A number of bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(u64);

/// A bit rate in bits per second.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(u64);

impl SimTime {
    /// The start of every run.
    pub const ZERO: SimTime = SimTime(0);
    /// The largest representable instant (~213 days); used as "never".
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// An instant `ps` picoseconds after the start.
    pub const fn from_ps(ps: u64) -> Self {
        SimTime(ps)
    }
    /// An instant at `secs` seconds (rounded to the nearest picosecond).
    pub fn from_secs_f64(secs: f64) -> Self {
        SimTime(SimDuration::from_secs_f64(secs).0)
    }
    /// Picoseconds since the start.
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// Seconds since the start, as `f64` (for reporting and control laws only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    /// Time elapsed since `earlier`; zero if `earlier` is later than `self`.
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
    /// `self + d`, saturating at [`SimTime::MAX`].
    pub fn saturating_add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl SimDuration {
    /// Zero length.
    pub const ZERO: SimDuration = SimDuration(0);
    /// The longest representable span.
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    /// A span of `ps` picoseconds.
    pub const fn from_ps(ps: u64) -> Self {
        SimDuration(ps)
    }
    /// A span of `ns` nanoseconds.
    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns * 1_000)
    }
    /// A span of `us` microseconds.
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000_000)
    }
    /// A span of `ms` milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000_000)
    }
    /// A span of `s` whole seconds.
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * PS_PER_SEC)
    }
    /// A span of `secs` seconds (rounded to the nearest picosecond, clamped at 0).
    pub fn from_secs_f64(secs: f64) -> Self {
        if secs.is_nan() || secs <= 0.0 {
            return SimDuration(0);
        }
        let ps = (secs * PS_PER_SEC as f64).round();
        if ps >= u64::MAX as f64 {
            SimDuration(u64::MAX)
        } else {
            SimDuration(ps as u64)
        }
    }
    /// Length in picoseconds.
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// Length in seconds, as `f64`.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    /// `self * k`, saturating.
    pub fn saturating_mul(self, k: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(k))
    }
    /// `self + other`, saturating.
    pub fn saturating_add(self, other: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(other.0))
    }
    /// `self - other`, saturating at zero.
    pub fn saturating_sub(self, other: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(other.0))
    }
}

impl Bytes {
    /// Zero bytes.
    pub const ZERO: Bytes = Bytes(0);
    /// `n` bytes.
    pub const fn new(n: u64) -> Self {
        Bytes(n)
    }
    /// The count.
    pub const fn get(self) -> u64 {
        self.0
    }
}

impl Rate {
    /// A rate of `bps` bits per second.
    pub const fn from_bps(bps: u64) -> Self {
        Rate(bps)
    }
    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Bits per second as `f64`.
    pub fn bps_f64(self) -> f64 {
        self.0 as f64
    }
    /// Time to serialise `bytes` at this rate, rounded up to a whole picosecond.
    ///
    /// A zero rate never finishes and yields [`SimDuration::MAX`].
    pub fn tx_time(self, bytes: Bytes) -> SimDuration {
        if self.0 == 0 {
            return SimDuration::MAX;
        }
        // Fast path: packet-sized counts fit u64 arithmetic (8e12 * 2^21 < 2^64),
        // which avoids a 128-bit division on the per-packet path.
        if bytes.0 < (1 << 21) {
            return SimDuration((bytes.0 * 8 * PS_PER_SEC).div_ceil(self.0));
        }
        let num = bytes.0 as u128 * 8 * PS_PER_SEC as u128;
        let den = self.0 as u128;
        let ps = num.div_ceil(den);
        SimDuration(u64::try_from(ps).unwrap_or(u64::MAX))
    }
    /// Bytes this rate carries in `d` (rounded down).
    pub fn bytes_in(self, d: SimDuration) -> Bytes {
        let b = self.0 as u128 * d.0 as u128 / (8 * PS_PER_SEC as u128);
        Bytes(u64::try_from(b).unwrap_or(u64::MAX))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.checked_add(d.0).expect("simulated time overflow"))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        *self = *self + d;
    }
}
impl Sub for SimTime {
    type Output = SimDuration;
    fn sub(self, earlier: SimTime) -> SimDuration {
        SimDuration(
            self.0
                .checked_sub(earlier.0)
                .expect("time went backwards in a subtraction"),
        )
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.checked_add(o.0).expect("duration overflow"))
    }
}
impl Add for Bytes {
    type Output = Bytes;
    fn add(self, o: Bytes) -> Bytes {
        Bytes(self.0 + o.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", fmt_g(self.as_secs_f64()))
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.as_secs_f64();
        if self.0 != 0 && self.0.is_multiple_of(1_000_000_000) && s < 1.0 {
            write!(f, "{}ms", self.0 / 1_000_000_000)
        } else if self.0 != 0 && self.0.is_multiple_of(1_000_000) && s < 1e-3 {
            write!(f, "{}us", self.0 / 1_000_000)
        } else {
            write!(f, "{}s", fmt_g(s))
        }
    }
}
impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}
impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b != 0 && b.is_multiple_of(1_000_000_000) {
            write!(f, "{}Gbps", b / 1_000_000_000)
        } else if b != 0 && b.is_multiple_of(1_000_000) {
            write!(f, "{}Mbps", b / 1_000_000)
        } else if b != 0 && b.is_multiple_of(1_000) {
            write!(f, "{}Kbps", b / 1_000)
        } else {
            write!(f, "{b}bps")
        }
    }
}

fn fmt_g(x: f64) -> String {
    let s = format!("{x:.9}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Why a unit string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    /// The string has no number or an unknown suffix.
    #[error("`{input}` is not a {what}; expected a number followed by one of: {allowed}")]
    Malformed {
        /// The offending text.
        input: String,
        /// What kind of quantity was expected.
        what: &'static str,
        /// The accepted suffixes.
        allowed: &'static str,
    },
    /// The number is negative.
    #[error("`{input}` is negative; a {what} must be >= 0")]
    Negative {
        /// The offending text.
        input: String,
        /// What kind of quantity was expected.
        what: &'static str,
    },
    /// The value does not fit.
    #[error("`{input}` is out of range for a {what} ({limit})")]
    OutOfRange {
        /// The offending text.
        input: String,
        /// What kind of quantity was expected.
        what: &'static str,
        /// The accepted range, in words.
        limit: &'static str,
    },
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '-'
                || c == '+'
                || ((c == 'e' || c == 'E')
                    && s[i + 1..].starts_with(|d: char| d.is_ascii_digit() || d == '-')))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let num: f64 = s[..end].parse().ok()?;
    if !num.is_finite() {
        return None;
    }
    Some((num, s[end..].trim()))
}

fn scaled(
    input: &str,
    what: &'static str,
    allowed: &'static str,
    scale: impl Fn(&str) -> Option<f64>,
) -> Result<f64, UnitError> {
    let malformed = || UnitError::Malformed {
        input: input.to_string(),
        what,
        allowed,
    };
    let (num, suffix) = split_number(input).ok_or_else(malformed)?;
    let k = scale(suffix).ok_or_else(malformed)?;
    if num < 0.0 {
        return Err(UnitError::Negative {
            input: input.to_string(),
            what,
        });
    }
    Ok(num * k)
}

/// The longest duration a scenario may give (10^6 s, 11.6 days of simulated
/// time). The clock holds 2^64 ps (213 days); with every scenario time at most
/// this long, a time plus the few durations the engine adds to it (a hop's
/// delay, a serialisation, a timer) cannot overflow it.
pub const MAX_DURATION: SimDuration = SimDuration(1_000_000 * PS_PER_SEC);

/// Parse a duration such as `"20ms"`, `"1.5s"`, `"250us"`, `"10ns"`, `"0"`.
pub fn parse_duration(input: &str) -> Result<SimDuration, UnitError> {
    const ALLOWED: &str = "s, ms, us, ns, ps (e.g. \"20ms\")";
    let ps = scaled(input, "duration", ALLOWED, |u| match u {
        "s" | "sec" => Some(1e12),
        "ms" => Some(1e9),
        "us" | "µs" => Some(1e6),
        "ns" => Some(1e3),
        "ps" => Some(1.0),
        "" => None,
        _ => None,
    })
    .or_else(|e| match split_number(input) {
        // A bare zero is unambiguous.
        Some((0.0, "")) => Ok(0.0),
        _ => Err(e),
    })?;
    if ps > MAX_DURATION.0 as f64 {
        return Err(UnitError::OutOfRange {
            input: input.to_string(),
            what: "duration",
            limit: "at most 1000000 s, 11.6 days, so that a time plus a few durations stays inside the clock's 2^64 ps, 213 days",
        });
    }
    Ok(SimDuration::from_ps(ps.round() as u64))
}

/// Parse a bit rate such as `"10Mbps"`, `"1Gbps"`, `"64kbps"`, `"1e9bps"`.
pub fn parse_rate(input: &str) -> Result<Rate, UnitError> {
    const ALLOWED: &str = "bps, Kbps, Mbps, Gbps, Tbps (e.g. \"10Mbps\")";
    let bps = scaled(input, "rate", ALLOWED, |u| match u {
        "bps" | "b/s" => Some(1.0),
        "kbps" | "Kbps" | "kb/s" | "Kb/s" => Some(1e3),
        "Mbps" | "mbps" | "Mb/s" => Some(1e6),
        "Gbps" | "gbps" | "Gb/s" => Some(1e9),
        "Tbps" | "tbps" | "Tb/s" => Some(1e12),
        _ => None,
    })?;
    if bps >= u64::MAX as f64 {
        return Err(UnitError::OutOfRange {
            input: input.to_string(),
            what: "rate",
            limit: "below 2^64 bps",
        });
    }
    Ok(Rate::from_bps(bps.round() as u64))
}

/// Parse a byte count such as `"1500B"`, `"64KB"` (1000-based), `"64KiB"`, `"1MB"`.
pub fn parse_bytes(input: &str) -> Result<Bytes, UnitError> {
    const ALLOWED: &str = "B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (e.g. \"64KB\")";
    let b = scaled(input, "byte size", ALLOWED, |u| match u {
        "B" | "b" | "bytes" => Some(1.0),
        "KB" | "kB" => Some(1e3),
        "MB" => Some(1e6),
        "GB" => Some(1e9),
        "KiB" => Some(1024.0),
        "MiB" => Some(1024.0 * 1024.0),
        "GiB" => Some(1024.0 * 1024.0 * 1024.0),
        _ => None,
    })?;
    if b >= u64::MAX as f64 {
        return Err(UnitError::OutOfRange {
            input: input.to_string(),
            what: "byte size",
            limit: "below 2^64 B",
        });
    }
    Ok(Bytes::new(b.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_of_1500_bytes_at_100mbps_is_120_microseconds() {
        let r = Rate::from_bps(100_000_000);
        assert_eq!(r.tx_time(Bytes::new(1500)), SimDuration::from_micros(120));
    }

    #[test]
    fn tx_time_rounds_up_to_whole_picoseconds() {
        // 1 byte at 3 bps = 8/3 s = 2.666.. s -> rounds up.
        let t = Rate::from_bps(3).tx_time(Bytes::new(1));
        assert_eq!(t.as_ps(), 2_666_666_666_667);
    }

    #[test]
    fn tx_time_fast_and_wide_paths_agree() {
        let r = Rate::from_bps(7_777_777);
        for b in [1u64, 40, 1500, (1 << 21) - 1, 1 << 21, 1 << 30] {
            let wide = (b as u128 * 8 * PS_PER_SEC as u128).div_ceil(7_777_777) as u64;
            assert_eq!(r.tx_time(Bytes::new(b)).as_ps(), wide, "{b}");
        }
    }

    #[test]
    fn rate_strings_parse_with_decimal_prefixes() {
        assert_eq!(parse_rate("10Mbps").unwrap().bps(), 10_000_000);
        assert_eq!(parse_rate("1.5Gbps").unwrap().bps(), 1_500_000_000);
        assert_eq!(parse_rate("64kbps").unwrap().bps(), 64_000);
        assert!(parse_rate("10 furlongs").is_err());
        assert!(parse_rate("10").is_err());
        assert!(matches!(
            parse_rate("-1Mbps"),
            Err(UnitError::Negative { .. })
        ));
    }

    #[test]
    fn duration_strings_parse_to_picoseconds() {
        assert_eq!(
            parse_duration("20ms").unwrap(),
            SimDuration::from_millis(20)
        );
        assert_eq!(
            parse_duration("1.5s").unwrap(),
            SimDuration::from_millis(1500)
        );
        assert_eq!(
            parse_duration("250us").unwrap(),
            SimDuration::from_micros(250)
        );
        assert_eq!(parse_duration("0").unwrap(), SimDuration::ZERO);
        assert!(parse_duration("20").is_err());
        assert!(parse_duration("-2ms").is_err());
        assert!(parse_duration("ms").is_err());
        assert_eq!(parse_duration("1000000s").unwrap(), MAX_DURATION);
        let e = parse_duration("1000001s").unwrap_err().to_string();
        assert!(e.contains("out of range") && e.contains("1000000 s"), "{e}");
    }

    #[test]
    fn byte_strings_distinguish_si_and_binary_prefixes() {
        assert_eq!(parse_bytes("64KB").unwrap().get(), 64_000);
        assert_eq!(parse_bytes("64KiB").unwrap().get(), 65_536);
        assert_eq!(parse_bytes("1500B").unwrap().get(), 1500);
        assert!(parse_bytes("12 parsecs").is_err());
    }

    #[test]
    fn display_round_trips_common_values() {
        assert_eq!(Rate::from_bps(10_000_000).to_string(), "10Mbps");
        assert_eq!(SimDuration::from_millis(20).to_string(), "20ms");
        assert_eq!(SimTime::from_secs_f64(1.5).to_string(), "1.5s");
    }
}
