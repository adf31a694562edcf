//! Per-flow parameters of a flow group: one value for every flow (`"1000B"`)
//! or a range `[min, max]` from which each flow draws its own, uniformly
//! (`["800B", "1300B"]`), written as `tcp.ack_delay` writes its ranges.
//!
//! Draws come from the group's random stream (`StreamKind::Group`), in flow
//! order, so a run is reproducible per seed and no other component's draws
//! move; a single value draws nothing, so scenarios without ranges keep
//! their draws.
//!
//! A group's `packet_size` ([`PacketSize`]) may instead be a distribution
//! each *packet* draws from (`{ dist = "exponential", mean = "1000B" }`, the
//! [`SizeDist`] grammar of `poisson_arrivals` flow sizes): only the
//! non-adaptive packet sources take one, and they draw from their own
//! endpoint stream, so the group's stream does not move either.

use std::fmt;
use std::marker::PhantomData;

use protocols::traffic::SizeDist;
use rand::Rng;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use sim_core::{Bytes, ParamError, SimDuration, SimRng};

use crate::build::MAX_PACKET_SIZE;

/// A quantity that a range can be drawn over: an integer count of its unit.
pub trait Quantity: Copy + Ord + fmt::Display {
    /// The value in its integer unit (bytes, picoseconds).
    fn units(self) -> u64;
    /// The value of `n` integer units.
    fn from_units(n: u64) -> Self;
}

impl Quantity for Bytes {
    fn units(self) -> u64 {
        self.get()
    }
    fn from_units(n: u64) -> Self {
        Bytes::new(n)
    }
}

impl Quantity for SimDuration {
    fn units(self) -> u64 {
        self.as_ps()
    }
    fn from_units(n: u64) -> Self {
        SimDuration::from_ps(n)
    }
}

/// One value for every flow of a group, or a range each flow draws from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PerFlow<T> {
    /// Every flow gets this value.
    Fixed(T),
    /// Each flow draws uniformly from `[min, max]` (inclusive, in the unit's
    /// integer steps: bytes, picoseconds).
    Uniform([T; 2]),
}

impl<T: Default> Default for PerFlow<T> {
    fn default() -> Self {
        PerFlow::Fixed(T::default())
    }
}

impl<T: Quantity + Default> PerFlow<T> {
    /// True for the single value `T::default()` (zero): serialised as absent.
    pub fn is_default(&self) -> bool {
        matches!(self, PerFlow::Fixed(x) if *x == T::default())
    }
}

impl<T: Quantity> PerFlow<T> {
    /// `(min, max)`; both the value for [`PerFlow::Fixed`].
    pub fn bounds(&self) -> (T, T) {
        match *self {
            PerFlow::Fixed(x) => (x, x),
            PerFlow::Uniform([a, b]) => (a, b),
        }
    }

    /// The value for the next flow: a uniform draw for a range (one draw from
    /// `rng`), the value itself otherwise (no draw).
    pub fn draw(&self, rng: &mut SimRng) -> T {
        match *self {
            PerFlow::Fixed(x) => x,
            PerFlow::Uniform([a, b]) => T::from_units(rng.random_range(a.units()..=b.units())),
        }
    }

    /// Check `min <= max`; the message names both.
    pub fn check_order(&self) -> Result<(), String> {
        let (a, b) = self.bounds();
        if a > b {
            Err(format!(
                "[{a}, {b}]: the range's first value must be <= its second"
            ))
        } else {
            Ok(())
        }
    }
}

impl<T: Serialize> Serialize for PerFlow<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PerFlow::Fixed(x) => x.serialize(s),
            PerFlow::Uniform(r) => r.serialize(s),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for PerFlow<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = PerFlow<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "one value for every flow (a unit string such as \"1000B\" or \"20ms\") \
                     or a range [min, max] each flow draws from",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                T::deserialize(de::value::StrDeserializer::<E>::new(v)).map(PerFlow::Fixed)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let n =
                    |k: usize| de::Error::invalid_length(k, &"a range of two values [min, max]");
                let a: T = seq.next_element()?.ok_or_else(|| n(0))?;
                let b: T = seq.next_element()?.ok_or_else(|| n(1))?;
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(n(3));
                }
                Ok(PerFlow::Uniform([a, b]))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A flow group's `packet_size`: one size or a per-flow range (`"1000B"`,
/// `["800B", "1300B"]`), or a distribution each packet draws its size from
/// (`{ dist = "exponential", mean = "1000B" }`; non-adaptive packet sources
/// only: a window or rate transport sizes its segments once per flow).
#[derive(Clone, Debug, PartialEq)]
pub enum PacketSize {
    /// One size per flow.
    PerFlow(PerFlow<Bytes>),
    /// Each packet draws its size (whole bytes, clamped to `[1, max]`).
    PerPacket(SizeDist),
}

impl PacketSize {
    /// The smallest and the largest size a packet can have (draws are
    /// clamped to [`MAX_PACKET_SIZE`]).
    pub fn bounds(&self) -> (Bytes, Bytes) {
        match self {
            PacketSize::PerFlow(p) => p.bounds(),
            PacketSize::PerPacket(d) => {
                let (lo, hi) = d.bounds();
                let hi = hi.unwrap_or(MAX_PACKET_SIZE).min(MAX_PACKET_SIZE);
                (Bytes::new(lo.min(hi)), Bytes::new(hi))
            }
        }
    }

    /// The next flow's packet size: a uniform draw for a range (one draw from
    /// `rng`), the value itself for one size (no draw); `None` when each
    /// packet draws its own (no draw here).
    pub fn draw(&self, rng: &mut SimRng) -> Option<Bytes> {
        match self {
            PacketSize::PerFlow(p) => Some(p.draw(rng)),
            PacketSize::PerPacket(_) => None,
        }
    }

    /// Check that every size a packet can have is in `1 ..=`
    /// [`MAX_PACKET_SIZE`] bytes (a distribution's mean, or its largest
    /// value where it has one), a range's order and a distribution's
    /// parameters; the error's key is relative to `packet_size` (empty: the
    /// value as a whole).
    pub fn check(&self) -> Result<(), ParamError> {
        let max = MAX_PACKET_SIZE;
        let allowed = |x: u64| format!("{x} B is out of range; allowed: 1 B ..= {max} B");
        match self {
            PacketSize::PerFlow(p) => {
                let (lo, hi) = p.bounds();
                for x in [lo.get(), hi.get()] {
                    if x == 0 || x > max {
                        return Err(ParamError::new("", allowed(x)));
                    }
                }
                p.check_order().map_err(|m| ParamError::new("", m))
            }
            PacketSize::PerPacket(d) => {
                d.validate()?;
                let too_big = |key: String, x: u64| {
                    if x > max {
                        Err(ParamError::new(key, allowed(x)))
                    } else {
                        Ok(())
                    }
                };
                match d {
                    SizeDist::Fixed { size } => too_big("size".into(), size.get()),
                    SizeDist::Exponential { mean } | SizeDist::Pareto { mean, .. } => {
                        too_big("mean".into(), mean.get())
                    }
                    SizeDist::Uniform { max: m, .. } | SizeDist::BoundedPareto { max: m, .. } => {
                        too_big("max".into(), m.get())
                    }
                    SizeDist::Choice { values, .. } => values
                        .iter()
                        .enumerate()
                        .try_for_each(|(i, v)| too_big(format!("values[{i}]"), v.get())),
                }
            }
        }
    }
}

impl From<PerFlow<Bytes>> for PacketSize {
    fn from(p: PerFlow<Bytes>) -> Self {
        PacketSize::PerFlow(p)
    }
}

impl Serialize for PacketSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PacketSize::PerFlow(p) => p.serialize(s),
            PacketSize::PerPacket(d) => d.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PacketSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PacketSize;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "one size for every flow (\"1000B\"), a range [min, max] each flow \
                     draws from, or a distribution each packet draws from \
                     ({ dist = \"exponential\", mean = \"1000B\" })",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                PerFlow::deserialize(de::value::StrDeserializer::<E>::new(v))
                    .map(PacketSize::PerFlow)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                PerFlow::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(PacketSize::PerFlow)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                SizeDist::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(PacketSize::PerPacket)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stream, StreamKind};

    #[derive(Debug, Deserialize, Serialize)]
    struct T {
        size: PerFlow<Bytes>,
        delay: PerFlow<SimDuration>,
    }

    #[test]
    fn one_value_or_a_two_value_range_parses_and_round_trips() {
        let t: T = toml::from_str("size = \"1000B\"\ndelay = [\"0ms\", \"500ms\"]").unwrap();
        assert_eq!(t.size, PerFlow::Fixed(Bytes::new(1000)));
        assert_eq!(
            t.delay,
            PerFlow::Uniform([SimDuration::ZERO, SimDuration::from_millis(500)])
        );
        let back: T = toml::from_str(&toml::to_string(&t).unwrap()).unwrap();
        assert_eq!((back.size, back.delay), (t.size, t.delay));
        for bad in [
            "size = [\"800B\"]\ndelay = \"0ms\"",
            "size = [\"800B\", \"900B\", \"1000B\"]\ndelay = \"0ms\"",
            "size = 800\ndelay = \"0ms\"",
            "size = \"800 apples\"\ndelay = \"0ms\"",
        ] {
            assert!(toml::from_str::<T>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn uniform_draws_stay_in_bounds_and_cover_them() {
        let r = PerFlow::Uniform([Bytes::new(800), Bytes::new(1300)]);
        let mut rng = stream(3, 0, StreamKind::Group, 0);
        let xs: Vec<u64> = (0..100_000).map(|_| r.draw(&mut rng).get()).collect();
        assert!(xs.iter().all(|&x| (800..=1300).contains(&x)));
        assert_eq!(xs.iter().min(), Some(&800));
        assert_eq!(xs.iter().max(), Some(&1300));
        // Mean 1050 B; sd 144.6 B, SE over 1e5 draws 0.457 B.
        let mean = xs.iter().sum::<u64>() as f64 / xs.len() as f64;
        assert!((mean - 1050.0).abs() < 5.0 * 0.457, "{mean}");
        // A single value draws nothing: the stream does not move.
        let mut a = stream(3, 0, StreamKind::Group, 1);
        let mut b = a.clone();
        assert_eq!(PerFlow::Fixed(Bytes::new(5)).draw(&mut a), Bytes::new(5));
        assert_eq!(a.random::<u64>(), b.random::<u64>());
        assert!(PerFlow::Uniform([Bytes::new(9), Bytes::new(8)])
            .check_order()
            .is_err());
    }

    #[derive(Debug, Deserialize, Serialize)]
    struct G {
        packet_size: PacketSize,
    }

    fn group(src: &str) -> Result<PacketSize, toml::de::Error> {
        toml::from_str::<G>(src).map(|g| g.packet_size)
    }

    #[test]
    fn a_packet_size_is_one_value_a_range_or_a_per_packet_distribution() {
        assert_eq!(
            group("packet_size = \"1000B\"").unwrap(),
            PacketSize::PerFlow(PerFlow::Fixed(Bytes::new(1000)))
        );
        assert_eq!(
            group("packet_size = [\"800B\", \"1300B\"]").unwrap(),
            PacketSize::PerFlow(PerFlow::Uniform([Bytes::new(800), Bytes::new(1300)]))
        );
        let d = group("packet_size = { dist = \"exponential\", mean = \"1000B\" }").unwrap();
        assert_eq!(
            d,
            PacketSize::PerPacket(SizeDist::Exponential {
                mean: Bytes::new(1000)
            })
        );
        let mix = "packet_size = { dist = \"choice\", values = [\"500B\", \"1500B\"], \
                   weights = [0.5, 0.5] }";
        let m = group(mix).unwrap();
        // Round trip through the resolved scenario's TOML.
        for p in [&d, &m] {
            let text = toml::to_string(&G {
                packet_size: p.clone(),
            })
            .unwrap();
            assert_eq!(&group(&text).unwrap(), p, "{text}");
        }
        // A per-packet distribution draws nothing from the group's stream.
        let mut rng = stream(3, 0, StreamKind::Group, 0);
        let before = rng.clone();
        assert_eq!(m.draw(&mut rng), None);
        assert_eq!(rng, before);
        for bad in [
            "packet_size = { dist = \"zipf\", mean = \"1000B\" }",
            "packet_size = { dist = \"exponential\", mean = \"1000B\", shape = 2.0 }",
            "packet_size = { mean = \"1000B\" }",
            "packet_size = 1000",
        ] {
            assert!(group(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn packet_sizes_are_checked_against_the_largest_packet() {
        let key = |src: &str| group(src).unwrap().check().map_err(|e| e.key);
        assert_eq!(key("packet_size = \"1500B\""), Ok(()));
        assert_eq!(key("packet_size = \"70000B\""), Err(String::new()));
        assert_eq!(
            key("packet_size = [\"900B\", \"800B\"]"),
            Err(String::new())
        );
        assert_eq!(
            key("packet_size = { dist = \"exponential\", mean = \"64KB\" }"),
            Ok(())
        );
        assert_eq!(
            key("packet_size = { dist = \"exponential\", mean = \"65536B\" }"),
            Err("mean".into())
        );
        assert_eq!(
            key("packet_size = { dist = \"choice\", values = [\"1B\", \"70000B\"] }"),
            Err("values[1]".into())
        );
        assert_eq!(
            key("packet_size = { dist = \"uniform\", min = \"64B\", max = \"1MB\" }"),
            Err("max".into())
        );
        assert_eq!(
            key("packet_size = { dist = \"pareto\", mean = \"800B\", shape = 0.5 }"),
            Err("shape".into())
        );
        // The largest packet of an unbounded tail is the clamp.
        let p = group("packet_size = { dist = \"pareto\", mean = \"800B\", shape = 2.0 }").unwrap();
        assert_eq!(p.bounds(), (Bytes::new(400), Bytes::new(MAX_PACKET_SIZE)));
    }
}
