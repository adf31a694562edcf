//! A receiver-side random ACK delay: the time-varying feedback delay of seed 002
//! (Zhang's dissertation, E5.8 / Fig. 23(b) in Ch. V and T3 / Fig. 26 in Ch. VI;
//! spec section 7 item 9).
//!
//! Provenance:
//! - \[PAPER\] Ch. V (E5.8): "we maintain a local queue at the receiving end of each
//!   flow and force the ACKs to pass through this queue before being echoed to the
//!   sender. For every m successfully transmitted acknowledgments, the system
//!   delays the head packet in the queue by d seconds and the other packets by
//!   10 µs", d ~ U[0.5, 1] s and m ~ U[500000, 1000000]; "all packets between the
//!   d-second delay spikes are drained at the wire speed of the return path, which
//!   ensures that the queue is completely emptied before the next spike".
//! - \[PAPER\] Ch. VI (T3): the same generator with d ~ U[0.5, 1.0] s and
//!   m ~ U[5000, 10000]; "the remaining m - 1 packets" get 10 µs each.
//!   In scenario form (`tcp` table of a flow group):
//!   `ack_delay = { every = [5000, 10000], hold = ["500ms", "1s"] }` (T3) or
//!   `every = [500000, 1000000]` (E5.8); `gap` defaults to the paper's 10 µs.
//! - \[INFERRED\] The queue is a FIFO single server whose service time is the
//!   ACK's hold: an ACK reaches the head when the one before it leaves (or when it
//!   is generated, if the queue is empty) and leaves `hold` later. So ACK i leaves
//!   at `max(generated_i, left_{i-1}) + hold_i`; an ACK never overtakes the one
//!   before it and every ACK behind a held one waits for it, then follows it at
//!   `gap` spacing. "Wire speed" is this `gap` (10 µs) spacing; the return link
//!   then serialises the ACKs at its own capacity as usual. (`gap = "0s"` is the
//!   literal reading: the ACKs behind a held one leave together and the return
//!   link spaces them.) Every ACK, not only those behind a held one, waits
//!   `gap`, as the paper says, so the queue passes at most 1/`gap` ACKs per
//!   second (100000 at 10 µs); a faster flow's ACK queue never empties.
//! - \[INFERRED\] m counts ACKs entering the queue (in a loss-free FIFO the m-th
//!   entering is the m-th "successfully transmitted"). The first held ACK is the
//!   m_1-th ACK of the flow (the flow starts with ordinary feedback); the count
//!   restarts after each held ACK, so the k-th held ACK is m_k ACKs after the
//!   (k-1)-th, and the other m_k - 1 ACKs of the cycle get `gap`.
//! - \[INFERRED\] m is drawn (uniform integer in `[every[0], every[1]]`) when a
//!   cycle starts, i.e. at the first ACK after the previous held one; d (uniform
//!   in `[hold[0], hold[1]]`, picosecond resolution) when the held ACK enters the
//!   queue. Both come from the receiving endpoint's own random stream, so a run
//!   is reproducible per seed and unrelated components' draws are unaffected.
//! - \[INFERRED\] An ACK keeps the content it had when generated (cumulative ACK,
//!   echoed timestamp, ECE, congestion header): it is the same ACK, late. Its
//!   `Packet::sent` is the time it leaves the queue.

use std::collections::VecDeque;

use rand::Rng;
use serde::{Deserialize, Serialize};
use sim_core::{Packet, ParamError, SimDuration, SimTime};

/// The paper's hold of the ACKs between spikes (10 µs).
pub const DEFAULT_GAP: SimDuration = SimDuration::from_micros(10);

fn default_gap() -> SimDuration {
    DEFAULT_GAP
}

/// Parameters of the receiver's random ACK delay (`tcp.ack_delay` in a flow group).
///
/// `every` and `hold` are required; `gap` defaults to 10 µs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AckDelayConfig {
    /// `[m_min, m_max]`: one ACK in every m is held `hold`, with m drawn
    /// uniformly from these integers (inclusive) for each cycle; 1 <= m_min <= m_max.
    /// The paper: `[500000, 1000000]` (Ch. V, E5.8), `[5000, 10000]` (Ch. VI, T3).
    pub every: [u64; 2],
    /// `[d_min, d_max]`: how long a held ACK stays at the head of the queue, d
    /// drawn uniformly from this span for each held ACK; d_min <= d_max.
    /// The paper: `["500ms", "1s"]` in both chapters.
    pub hold: [SimDuration; 2],
    /// How long every other ACK stays at the head of the queue: the drain
    /// spacing behind a held ACK (>= 0; unit strings cannot be negative).
    /// Default 10 µs (the paper). The queue then passes at most one ACK per
    /// `gap` (100000 ACKs/s at 10 µs): a flow acknowledging faster than that
    /// builds an ever longer ACK queue. `"0s"` releases the ACKs behind a held
    /// one all at once, so the return link's own serialisation spaces them (the
    /// literal "wire speed of the return path").
    #[serde(default = "default_gap")]
    pub gap: SimDuration,
}

impl AckDelayConfig {
    /// Check parameter ranges (keys relative to the `ack_delay` table).
    pub fn validate(&self) -> Result<(), ParamError> {
        let [m_min, m_max] = self.every;
        if m_min == 0 {
            return Err(ParamError::new(
                "every",
                "[0, ..] is out of range; allowed: 1 <= every[0] <= every[1] (ACKs)",
            ));
        }
        if m_min > m_max {
            return Err(ParamError::new(
                "every",
                format!("[{m_min}, {m_max}]: every[0] must be <= every[1]"),
            ));
        }
        let [d_min, d_max] = self.hold;
        if d_min > d_max {
            return Err(ParamError::new(
                "hold",
                format!("[{d_min}, {d_max}]: hold[0] must be <= hold[1]"),
            ));
        }
        // `gap` is a `SimDuration`: >= 0 by construction (parsing rejects "-1us").
        Ok(())
    }
}

/// The receiver's ACK queue: ACKs with their release times, in FIFO order.
///
/// The owner [`push`](AckDelayQueue::push)es every ACK it would send, arms its
/// timer for [`next_release`](AckDelayQueue::next_release) and sends what
/// [`pop_due`](AckDelayQueue::pop_due) returns when the time comes.
#[derive(Clone, Debug)]
pub struct AckDelayQueue {
    every: [u64; 2],
    hold: [SimDuration; 2],
    gap: SimDuration,
    /// ACKs still to enter before (and including) the next held one; 0: a new
    /// cycle starts with the next ACK (m is drawn then).
    left: u64,
    /// Release time of the last ACK that entered (when the queue's tail leaves).
    tail: SimTime,
    /// Waiting ACKs with their release times (non-decreasing).
    queue: VecDeque<(SimTime, Packet)>,
    /// ACKs held so far.
    held: u64,
}

impl AckDelayQueue {
    /// An empty queue with the parameters of `cfg` (checked).
    pub fn new(cfg: &AckDelayConfig) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(AckDelayQueue {
            every: cfg.every,
            hold: cfg.hold,
            gap: cfg.gap,
            left: 0,
            tail: SimTime::ZERO,
            queue: VecDeque::new(),
            held: 0,
        })
    }

    /// Enqueue an ACK generated at `now`; returns when it will leave. Draws m at
    /// the start of a cycle and d for a held ACK from `rng`.
    pub fn push<R: Rng + ?Sized>(&mut self, ack: Packet, now: SimTime, rng: &mut R) -> SimTime {
        if self.left == 0 {
            self.left = rng.random_range(self.every[0]..=self.every[1]);
        }
        self.left -= 1;
        let service = if self.left == 0 {
            self.held += 1;
            let [lo, hi] = self.hold;
            SimDuration::from_ps(rng.random_range(lo.as_ps()..=hi.as_ps()))
        } else {
            self.gap
        };
        let release = now.max(self.tail).saturating_add(service);
        self.tail = release;
        self.queue.push_back((release, ack));
        release
    }

    /// When the ACK at the head leaves, if the queue is not empty.
    #[inline]
    pub fn next_release(&self) -> Option<SimTime> {
        self.queue.front().map(|e| e.0)
    }

    /// The ACK at the head if its release time has come (`<= now`), removed from
    /// the queue and stamped as sent at `now`; call until `None`.
    #[inline]
    pub fn pop_due(&mut self, now: SimTime) -> Option<Packet> {
        match self.queue.front() {
            Some(&(at, _)) if at <= now => {
                let (_, mut ack) = self.queue.pop_front()?;
                ack.sent = now;
                Some(ack)
            }
            _ => None,
        }
    }

    /// ACKs waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// No ACK is waiting.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// ACKs held (given a d-second spike) so far, the one waiting included.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// ACKs that will still enter before the next held one, that one included
    /// (0 when the next ACK starts a new cycle and m is yet to be drawn).
    pub fn until_hold(&self) -> u64 {
        self.left
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stream, PacketKind, RouteId, StreamKind};

    fn us(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_micros(x)
    }

    fn ack(n: u64) -> Packet {
        let mut p = Packet::new(
            Default::default(),
            RouteId(0),
            PacketKind::Ack,
            40,
            SimTime::ZERO,
        );
        p.ack = n;
        p
    }

    fn cfg(every: [u64; 2], hold_ms: [u64; 2]) -> AckDelayConfig {
        AckDelayConfig {
            every,
            hold: hold_ms.map(SimDuration::from_millis),
            gap: DEFAULT_GAP,
        }
    }

    fn rng(seed: u64) -> sim_core::SimRng {
        stream(seed, 0, StreamKind::Endpoint, 1)
    }

    /// Drain everything, releasing each ACK at its own release time; returns
    /// `(release time, ack number)` in the order they left.
    fn drain(q: &mut AckDelayQueue) -> Vec<(SimTime, u64)> {
        let mut out = Vec::new();
        while let Some(at) = q.next_release() {
            let p = q.pop_due(at).unwrap();
            assert_eq!(p.sent, at);
            out.push((at, p.ack));
        }
        out
    }

    #[test]
    fn the_mth_ack_is_held_d_and_its_followers_leave_right_after_it_at_gap_spacing() {
        let (m, d) = (4u64, SimDuration::from_millis(500));
        let gap = DEFAULT_GAP;
        let mut q = AckDelayQueue::new(&cfg([m, m], [500, 500])).unwrap();
        let mut r = rng(1);
        // ACKs generated every 100 µs.
        let gen = |i: u64| us(100 * i);
        let mut releases = Vec::new();
        for i in 0..10 {
            releases.push(q.push(ack(i), gen(i), &mut r));
        }
        // ACKs 0..m-1 (the first m - 1) only wait `gap`.
        for i in 0..m - 1 {
            assert_eq!(releases[i as usize], gen(i) + gap, "ACK {i}");
        }
        // The m-th ACK (index m - 1) is held d from when it was generated
        // (its predecessor had left by then).
        let h = (m - 1) as usize;
        assert_eq!(releases[h], gen(m - 1) + d);
        // Its followers, all generated during the hold, leave `gap` apart after
        // it, except the next cycle's m-th ACK (index 2m - 1), held d behind its
        // predecessor.
        for i in h + 1..10 {
            let service = if i == 2 * h + 1 { d } else { gap };
            assert_eq!(releases[i], releases[i - 1] + service, "ACK {i}");
        }
        assert_eq!(releases[h + 1], releases[h] + gap);
        assert_eq!(q.held(), 2);
        assert_eq!(q.until_hold(), m - 2);
        // Nothing leaves early; FIFO order.
        assert!(q
            .pop_due(SimTime::from_ps(releases[0].as_ps() - 1))
            .is_none());
        let out = drain(&mut q);
        assert_eq!(
            out.iter().map(|o| o.1).collect::<Vec<_>>(),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!(out.iter().map(|o| o.0).collect::<Vec<_>>(), releases);
        assert!(q.is_empty());
    }

    #[test]
    fn with_a_zero_gap_the_followers_leave_together_with_the_held_ack() {
        let c = AckDelayConfig {
            gap: SimDuration::ZERO,
            ..cfg([2, 2], [500, 500])
        };
        let mut q = AckDelayQueue::new(&c).unwrap();
        let mut r = rng(1);
        assert_eq!(q.push(ack(0), us(0), &mut r), us(0));
        let held = us(100) + SimDuration::from_millis(500);
        assert_eq!(q.push(ack(1), us(100), &mut r), held);
        assert_eq!(q.push(ack(2), us(200), &mut r), held);
        assert_eq!(
            q.push(ack(3), us(300), &mut r),
            held + SimDuration::from_millis(500)
        );
        let first = q.pop_due(us(0)).unwrap();
        assert_eq!(first.ack, 0);
        let burst: Vec<u64> = std::iter::from_fn(|| q.pop_due(held))
            .map(|p| p.ack)
            .collect();
        assert_eq!(burst, [1, 2]);
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn release_order_is_fifo_and_times_never_decrease_whatever_the_draws() {
        let mut q = AckDelayQueue::new(&cfg([1, 3], [0, 7])).unwrap();
        let mut r = rng(7);
        let mut pushed = Vec::new();
        let mut t = SimTime::ZERO;
        for i in 0..2000u64 {
            // Irregular generation times, sometimes several ACKs at one instant.
            t += SimDuration::from_micros((i * 7919) % 13);
            pushed.push(q.push(ack(i), t, &mut r));
            // Release whatever is due at the same time, as the sink does.
            while q.pop_due(t).is_some() {}
        }
        assert!(pushed.windows(2).all(|w| w[0] <= w[1]));
        let left = q.len() as u64;
        let out = drain(&mut q);
        assert!(out
            .windows(2)
            .all(|w| w[0].0 <= w[1].0 && w[0].1 + 1 == w[1].1));
        assert_eq!(out.last().map(|o| o.1), Some(1999));
        assert_eq!(out.len() as u64, left);
    }

    #[test]
    fn m_and_d_stay_within_their_ranges_and_cover_them() {
        let c = cfg([5, 9], [500, 1000]);
        let (m, d) = (c.every, c.hold);
        let mut q = AckDelayQueue::new(&c).unwrap();
        let mut r = rng(3);
        // ACKs 3 s (> d_max) apart, so every release is `generated + service`.
        let step = SimDuration::from_secs(3);
        let mut t = SimTime::ZERO;
        let mut cycle = 0u64;
        let (mut ms, mut ds) = (Vec::new(), Vec::new());
        for _ in 0..5000 {
            t += step;
            cycle += 1;
            let service = q.push(ack(0), t, &mut r) - t;
            if service == q.gap {
                continue;
            }
            assert!(d[0] <= service && service <= d[1], "d = {service}");
            ds.push(service);
            ms.push(cycle);
            cycle = 0;
        }
        assert!(ms.iter().all(|x| (m[0]..=m[1]).contains(x)), "{ms:?}");
        for v in m[0]..=m[1] {
            assert!(ms.contains(&v), "m = {v} never drawn");
        }
        let (lo, hi) = (ds.iter().min().unwrap(), ds.iter().max().unwrap());
        let span = d[1].saturating_sub(d[0]).as_ps();
        let (below, above) = (lo.saturating_sub(d[0]), d[1].saturating_sub(*hi));
        assert!(
            below.as_ps() < span / 20 && above.as_ps() < span / 20,
            "{lo} .. {hi}"
        );
        // Mean of U[m_min, m_max] and U[d_min, d_max].
        let mean_m = ms.iter().sum::<u64>() as f64 / ms.len() as f64;
        assert!((mean_m - 7.0).abs() < 0.15, "mean m {mean_m}");
        let mean_d = ds.iter().map(|x| x.as_secs_f64()).sum::<f64>() / ds.len() as f64;
        assert!((mean_d - 0.75).abs() < 0.02, "mean d {mean_d}");
    }

    #[test]
    fn a_degenerate_range_is_a_fixed_value_and_the_count_restarts_after_each_hold() {
        let mut q = AckDelayQueue::new(&cfg([3, 3], [20, 20])).unwrap();
        let mut r = rng(1);
        let step = SimDuration::from_secs(1);
        let held: Vec<bool> = (1..=12u64)
            .map(|i| {
                let t = SimTime::ZERO + step.saturating_mul(i);
                q.push(ack(i), t, &mut r) - t == SimDuration::from_millis(20)
            })
            .collect();
        let want: Vec<bool> = (1..=12).map(|i| i % 3 == 0).collect();
        assert_eq!(held, want);
    }

    #[test]
    fn the_same_seed_gives_the_same_schedule() {
        let c = cfg([2, 50], [500, 1000]);
        let schedule = |seed| {
            let mut q = AckDelayQueue::new(&c).unwrap();
            let mut r = rng(seed);
            (0..3000u64)
                .map(|i| q.push(ack(i), us(50 * i), &mut r))
                .collect::<Vec<_>>()
        };
        assert_eq!(schedule(11), schedule(11));
        assert_ne!(schedule(11), schedule(12));
    }

    #[test]
    fn config_parses_with_the_default_gap_and_rejects_bad_ranges_by_key() {
        let c: AckDelayConfig =
            toml::from_str("every = [5000, 10000]\nhold = [\"500ms\", \"1s\"]").unwrap();
        assert_eq!(c.every, [5000, 10000]);
        assert_eq!(
            c.hold,
            [SimDuration::from_millis(500), SimDuration::from_secs(1)]
        );
        assert_eq!(c.gap, SimDuration::from_micros(10));
        assert!(c.validate().is_ok());
        let c: AckDelayConfig =
            toml::from_str("every = [1, 1]\nhold = [\"0s\", \"0s\"]\ngap = \"0us\"").unwrap();
        assert!(c.validate().is_ok());
        for bad in [
            "every = [5000]\nhold = [\"1s\", \"1s\"]",
            "every = [-1, 5]\nhold = [\"1s\", \"1s\"]",
            "every = [1, 5]\nhold = [\"1s\", \"1s\"]\ngap = \"-10us\"",
            "every = [1, 5]",
            "every = [1, 5]\nhold = [\"1s\", \"1s\"]\nspike = \"1s\"",
        ] {
            assert!(toml::from_str::<AckDelayConfig>(bad).is_err(), "{bad}");
        }
        let key = |every, hold_ms| {
            AckDelayQueue::new(&cfg(every, hold_ms))
                .map(|_| ())
                .unwrap_err()
                .key
        };
        assert_eq!(key([0, 5], [1, 2]), "every");
        assert_eq!(key([6, 5], [1, 2]), "every");
        assert_eq!(key([1, 5], [3, 2]), "hold");
    }
}
