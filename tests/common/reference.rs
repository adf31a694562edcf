//! What the independent reference models of the packet-level tests
//! (tests/wtp_reference_model.rs, tests/emkc_fairness_reference.rs) share:
//! their own random numbers, their own event queue in the engine's time unit,
//! the scenario-value readers and the two-sample test that compares a model
//! with netsim. None of it is engine code.

use analysis::stats::{t_quantile, Summary};
use sim_core::units::{parse_bytes, parse_duration, parse_rate};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A duration value of a scenario file, seconds.
pub fn secs(v: &toml::Value) -> f64 {
    parse_duration(v.as_str().unwrap()).unwrap().as_secs_f64()
}

/// A rate value of a scenario file, bits/s.
pub fn bps(v: &toml::Value) -> f64 {
    parse_rate(v.as_str().unwrap()).unwrap().bps_f64()
}

/// The ACK size a scenario gets when it sets no `tcp.ack_size`, bytes
/// (the transport's default: a configuration value, not behaviour).
pub fn default_ack_bytes() -> f64 {
    protocols::transport::TcpConfig::default().ack_size.get() as f64
}

/// A size value of a scenario file, bytes.
pub fn bytes(v: &toml::Value) -> f64 {
    parse_bytes(v.as_str().unwrap()).unwrap().get() as f64
}

/// SplitMix64 (Steele, Lea, Flood 2014): a model's own random numbers.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// Uniform on [0, 1), 53 bits.
    pub fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Picoseconds, the engine's time unit too: scenario constants such as
/// 0.8 ms per packet or 100 ms are exact, so events that coincide do so
/// exactly.
pub type Ps = u64;

/// `secs` in picoseconds, to the nearest.
pub fn ps(secs: f64) -> Ps {
    (secs * 1e12).round() as Ps
}

/// `d` in seconds.
pub fn as_secs(d: Ps) -> f64 {
    d as f64 / 1e12
}

struct Entry<K> {
    t: Ps,
    seq: u64,
    kind: K,
}

impl<K> PartialEq for Entry<K> {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl<K> Eq for Entry<K> {}
impl<K> PartialOrd for Entry<K> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<K> Ord for Entry<K> {
    /// Earliest first in a max-heap; ties in scheduling order.
    fn cmp(&self, o: &Self) -> Ordering {
        o.t.cmp(&self.t).then(o.seq.cmp(&self.seq))
    }
}

/// A model's event queue: earliest first, events at one instant in the
/// order they were scheduled.
pub struct Events<K> {
    heap: BinaryHeap<Entry<K>>,
    seq: u64,
}

impl<K> Events<K> {
    /// An empty queue.
    pub fn new() -> Self {
        Events {
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }

    /// Schedule `kind` at `t`.
    pub fn push(&mut self, t: Ps, kind: K) {
        self.seq += 1;
        self.heap.push(Entry {
            t,
            seq: self.seq,
            kind,
        });
    }

    /// The earliest event.
    pub fn pop(&mut self) -> Option<(Ps, K)> {
        self.heap.pop().map(|e| (e.t, e.kind))
    }
}

/// Welch's two-sample t test at the 99.99 % level (two-sided): the means of
/// `a` (the reference model) and `b` (netsim) do not differ. Returns the
/// reference's mean.
pub fn same_mean(what: &str, a: &[f64], b: &[f64]) -> f64 {
    let (sum_a, sum_b) = (Summary::new(a), Summary::new(b));
    let (ma, mb) = (sum_a.mean, sum_b.mean);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (sa, sb) = (sum_a.sd.powi(2) / na, sum_b.sd.powi(2) / nb);
    let se = (sa + sb).sqrt();
    if se == 0.0 {
        // Both sides constant (e.g. no marks on a link that carries only
        // ACKs): the means must be equal.
        eprintln!("{what}: reference {ma:.5}, netsim {mb:.5} (no spread)");
        assert_eq!(ma, mb, "{what}");
        return ma;
    }
    // Welch-Satterthwaite degrees of freedom, rounded down.
    let df = ((sa + sb).powi(2) / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0))).floor();
    let crit = t_quantile(0.9999, df as usize);
    let diff = ma - mb;
    eprintln!(
        "{what}: reference {ma:.5}, netsim {mb:.5}, diff {diff:+.5}, se {se:.5}, t {:.2}",
        diff / se
    );
    assert!(
        diff.abs() <= crit * se,
        "{what}: reference {ma:.5} vs netsim {mb:.5}: |diff| {:.5} > {crit:.2} x se {se:.5}",
        diff.abs()
    );
    ma
}
