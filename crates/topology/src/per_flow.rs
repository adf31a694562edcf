//! Per-flow parameters of a flow group: one value for every flow (`"1000B"`)
//! or a range `[min, max]` from which each flow draws its own, uniformly
//! (`["800B", "1300B"]`), written as `tcp.ack_delay` writes its ranges.
//!
//! Draws come from the group's random stream (`StreamKind::Group`), in flow
//! order, so a run is reproducible per seed and no other component's draws
//! move; a single value draws nothing, so scenarios without ranges keep
//! their draws.

use std::fmt;
use std::marker::PhantomData;

use rand::Rng;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use sim_core::{Bytes, SimDuration, SimRng};

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
}
