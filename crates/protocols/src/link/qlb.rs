//! The queue-length-based explicit-rate link controller of seed 003 (QLB): a
//! desired rate `p` per output queue, updated once per control period from the
//! persistent queue and an estimate of the effective number of users, stamped
//! into departing packets as `min(H_feedback, p)`, with a congestion bit.
//!
//! Provenance (spec `seed-003-lestas.md`):
//! - \[PAPER\] §2.4: control period = average carried RTT `d(k)`, re-estimated at
//!   every tick (initial 0.05 s); input rate `y(k)` = bytes entering the queue
//!   over the period; persistent queue = minimum queue seen by arrivals during
//!   the last propagation delay, estimated as `d - Q_inst/C`; the law (5)
//!   `p(k) = Pr[(C - (q(k) - 2 q_ref)/d(k)) / N(k)]` with `Pr` onto `[1, C]`;
//!   the estimator (7)-(8) `N(k+1) = max(1, N(k) + gamma (y(k) + q(k-1)/d(k) -
//!   N(k) p(k-1)) p(k-1) / (1 + p(k-1)^2))`, `gamma = 0.1`, `N(0) = 10`; on
//!   departure `H_feedback = min(H_feedback, p)` and the congestion bit is set
//!   when `y > 0.95 C`. All rates in bytes/s and queues in bytes, as §2.4 and
//!   §7 insist (the estimator's `1 + p^2` makes the unit matter).
//! - \[INFERRED\] §2.4: `d(k)` is the mean of the `H_rtt > 0` values carried by
//!   the packets that arrived in the period (the previous `d` if none); `y(k)`
//!   divides by the period actually elapsed; the congestion test uses the last
//!   `y(k)`; the congestion bit is sticky (OR along the path).
//! - \[INFERRED\] §2.4: the persistent queue is [`PersistentQueue`]'s running
//!   minimum of the backlog over `max(2 ms, d - Q_inst/C)`.
//! - \[INFERRED\] §2.4: before the first tick `p` comes from (5) with `q = 0`,
//!   `d = 0.05 s`, `N = 10`; the first estimator step uses `p(-1) = p(0)` and
//!   `q(-1) = 0`.
//! - Only data packets are stamped and only their `H_rtt` is averaged; an ACK
//!   carries its data packet's echoed header untouched. Every byte entering
//!   the queue counts towards `y`.
//! - The header carries rates in bits/s ([`sim_core::RateHeader`]); the
//!   conversion to and from bytes/s happens only at the header.

use serde::{Deserialize, Serialize};
use sim_core::{
    check_range, Bytes, CcHeader, HeaderFamily, LazyRng, LinkAlgorithm, LinkControl, LinkView,
    Packet, PacketKind, ParamError, Reason, SimDuration, SimTime, Verdict,
};

use super::interval::IntervalClock;
use super::persistent_queue::PersistentQueue;
use super::{LinkBuildCtx, QueueSize};

fn default_q_ref() -> QueueSize {
    // Seed 003 §2.5: q_ref = 100 packets.
    QueueSize::Packets(100)
}
fn default_gamma() -> f64 {
    0.1
}
fn default_n_init() -> f64 {
    10.0
}
fn default_d_init() -> SimDuration {
    SimDuration::from_millis(50)
}
fn default_threshold() -> f64 {
    0.95
}
fn default_pkt_size() -> Bytes {
    Bytes::new(1000)
}

/// Parameters as written in a scenario (`kind = "qlb"`); defaults are the paper's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QlbConfig {
    /// Reference queue `q_ref` (default `"100pkt"`).
    #[serde(default = "default_q_ref")]
    pub q_ref: QueueSize,
    /// Estimator gain gamma, in (0, 1] (default 0.1).
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// Initial estimate of the number of users N(0), >= 1 (default 10).
    #[serde(default = "default_n_init")]
    pub n_init: f64,
    /// Initial control period d(0) (default 50 ms).
    #[serde(default = "default_d_init")]
    pub d_init: SimDuration,
    /// Input rate, as a fraction of capacity, above which the congestion bit is set (default 0.95).
    #[serde(default = "default_threshold")]
    pub congestion_threshold: f64,
    /// Bytes per packet when `q_ref` is in packets (default 1000 B).
    #[serde(default = "default_pkt_size")]
    pub pkt_size: Bytes,
}

impl Default for QlbConfig {
    fn default() -> Self {
        QlbConfig {
            q_ref: default_q_ref(),
            gamma: default_gamma(),
            n_init: default_n_init(),
            d_init: default_d_init(),
            congestion_threshold: default_threshold(),
            pkt_size: default_pkt_size(),
        }
    }
}

/// The QLB link controller.
#[derive(Clone, Debug)]
pub struct Qlb {
    /// Capacity, bytes/s.
    c: f64,
    /// q_ref, bytes.
    q_ref: f64,
    gamma: f64,
    threshold: f64,
    /// Desired rate p(k), bytes/s.
    p: f64,
    /// q(k-1), bytes.
    q_prev: f64,
    /// N(k).
    n: f64,
    /// Control period d(k), seconds.
    d: f64,
    /// Input rate y(k), bytes/s.
    y: f64,
    /// Bytes that entered the queue in this period.
    bytes_in: u64,
    /// Sum and count of the H_rtt > 0 values carried in this period.
    rtt_sum: f64,
    rtt_n: u64,
    /// The control-period clock.
    clock: IntervalClock,
    /// The persistent queue.
    pq: PersistentQueue,
}

impl Qlb {
    /// Validate and build.
    pub fn new(cfg: &QlbConfig, ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        check_range("gamma", cfg.gamma, f64::MIN_POSITIVE, 1.0)?;
        check_range("n_init", cfg.n_init, 1.0, 1e9)?;
        check_range(
            "congestion_threshold",
            cfg.congestion_threshold,
            f64::MIN_POSITIVE,
            10.0,
        )?;
        if cfg.pkt_size.get() == 0 {
            return Err(ParamError::new("pkt_size", "must be >= 1 byte"));
        }
        let d = cfg.d_init.as_secs_f64();
        if d <= 0.0 {
            return Err(ParamError::new("d_init", "must be > 0"));
        }
        let c = ctx.capacity.bps_f64() / 8.0;
        if c <= 0.0 {
            return Err(ParamError::new("", "the link's capacity must be > 0"));
        }
        let q_ref = cfg.q_ref.as_bytes(cfg.pkt_size.get());
        let mut s = Qlb {
            c,
            q_ref,
            gamma: cfg.gamma,
            threshold: cfg.congestion_threshold,
            p: 0.0,
            q_prev: 0.0,
            n: cfg.n_init,
            d,
            y: 0.0,
            bytes_in: 0,
            rtt_sum: 0.0,
            rtt_n: 0,
            clock: IntervalClock::default(),
            pq: PersistentQueue::default(),
        };
        s.p = s.law(0.0, d, s.n);
        Ok(s)
    }

    /// Eq. (5) with projection (6): the desired rate for queue `q` (bytes),
    /// period `d` (s) and `n` users, in bytes/s.
    pub fn law(&self, q: f64, d: f64, n: f64) -> f64 {
        ((self.c - (q - 2.0 * self.q_ref) / d) / n).clamp(1.0, self.c)
    }

    /// Eqs. (7)-(8): the next estimate from N(k), y(k), q(k-1), d(k), p(k-1).
    pub fn estimate(&self, n: f64, y: f64, q_prev: f64, d: f64, p_prev: f64) -> f64 {
        let dn = self.gamma * (y + q_prev / d - n * p_prev) * p_prev / (1.0 + p_prev * p_prev);
        (n + dn).max(1.0)
    }

    /// Desired rate p, bytes/s.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// Estimated effective number of users N.
    pub fn n_hat(&self) -> f64 {
        self.n
    }

    /// Control period d, seconds.
    pub fn period(&self) -> f64 {
        self.d
    }

    /// Input rate y of the last control period, bytes/s.
    pub fn input_rate(&self) -> f64 {
        self.y
    }

    /// Capacity C, bytes/s.
    pub fn capacity(&self) -> f64 {
        self.c
    }

    /// One control tick at `now` with the instantaneous backlog `backlog` bytes.
    fn tick(&mut self, now: SimTime, backlog: f64) {
        let elapsed = self.clock.elapsed(now);
        let d = if self.rtt_n > 0 {
            self.rtt_sum / self.rtt_n as f64
        } else {
            self.d
        };
        if elapsed > 0.0 {
            self.y = self.bytes_in as f64 / elapsed;
        }
        let q = self.pq.value(backlog);
        let p = self.law(q, d, self.n);
        // self.p is still p(k-1) here.
        self.n = self.estimate(self.n, self.y, self.q_prev, d, self.p);
        self.p = p;
        self.q_prev = q;
        self.d = d;
        self.bytes_in = 0;
        self.rtt_sum = 0.0;
        self.rtt_n = 0;
    }
}

impl LinkAlgorithm for Qlb {
    /// Derived constants from the capacity at build (issue 59: a capacity
    /// change on its link is rejected when the scenario is built).
    fn follows_capacity(&self) -> bool {
        false
    }

    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, _rng: &mut LazyRng) -> Verdict {
        self.bytes_in += u64::from(pkt.size);
        if let (PacketKind::Data, CcHeader::Rate(h)) = (pkt.kind, &pkt.cc) {
            if h.rtt > 0.0 && h.rtt.is_finite() {
                self.rtt_sum += h.rtt;
                self.rtt_n += 1;
            }
        }
        self.pq
            .observe(view.now, view.backlog_bytes as f64, self.d, self.c);
        Verdict::Enqueue
    }

    fn on_departure(
        &mut self,
        pkt: &mut Packet,
        _view: &LinkView,
        _rng: &mut LazyRng,
    ) -> Option<Reason> {
        // An ACK carries the echo of its data packet's header: leave it alone.
        if pkt.kind != PacketKind::Data {
            return None;
        }
        if let CcHeader::Rate(h) = &mut pkt.cc {
            h.allowed = h.allowed.min(self.p * 8.0);
            if self.y > self.threshold * self.c {
                h.congested = true;
            }
        }
        None
    }

    fn stamps_departures(&self) -> bool {
        true
    }

    fn on_start(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.clock.begin(view.now, self.d, ctl);
    }

    fn on_timer(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.tick(view.now, view.backlog_bytes as f64);
        self.clock.begin(view.now, self.d, ctl);
    }

    fn header_family(&self) -> Option<HeaderFamily> {
        Some(HeaderFamily::Rate)
    }

    fn probe(&self) -> Option<(&'static str, f64)> {
        Some(("qlb_rate_bps", self.p * 8.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::interval::test_ctx;
    use sim_core::{Rate, RateHeader, StreamKind};

    const C_BPS: u64 = 155_000_000;

    fn qlb() -> Qlb {
        Qlb::new(&QlbConfig::default(), &test_ctx(C_BPS)).unwrap()
    }

    #[test]
    fn the_initial_rate_is_the_law_at_an_empty_queue() {
        // Spec §2.4 [INFERRED]: p(0) = (C + 40 q_ref) / 10 with d = 0.05 s, N = 10.
        let q = qlb();
        let c = C_BPS as f64 / 8.0;
        assert!(
            (q.p() - (c + 40.0 * 100_000.0) / 10.0).abs() < 1e-6,
            "{}",
            q.p()
        );
    }

    #[test]
    fn the_law_is_projected_onto_one_byte_per_second_and_capacity() {
        let q = qlb();
        let c = C_BPS as f64 / 8.0;
        assert_eq!(q.law(1e12, 0.1, 10.0), 1.0);
        assert_eq!(q.law(0.0, 1e-6, 1.0), c);
    }

    #[test]
    fn the_equilibrium_of_section_3_1_is_a_fixed_point() {
        // Spec §3.1 [DERIVED]: with y = C, q = q_ref, p = C/N and
        // N_hat = N (1 + q_ref/(C d)), both the law and the estimator stay put.
        let q = qlb();
        let c = C_BPS as f64 / 8.0;
        let (users, d) = (50.0, 0.11);
        let n_hat = users * (1.0 + 100_000.0 / (c * d));
        let p = q.law(100_000.0, d, n_hat);
        assert!((p - c / users).abs() < 1e-6 * c, "{p} vs {}", c / users);
        let n_next = q.estimate(n_hat, c, 100_000.0, d, p);
        assert!((n_next - n_hat).abs() < 1e-9 * n_hat, "{n_next} vs {n_hat}");
        // The spec's worked example: N_hat ~ 52.35 for 50 users.
        assert!((n_hat - 52.35).abs() < 0.01, "{n_hat}");
    }

    #[test]
    fn departures_take_the_minimum_rate_and_set_the_congestion_bit_when_busy() {
        let mut q = qlb();
        let mut pkt = Packet::new(
            sim_core::FlowId(0),
            sim_core::RouteId(0),
            sim_core::PacketKind::Data,
            1000,
            SimTime::ZERO,
        );
        pkt.cc = CcHeader::Rate(RateHeader {
            desired: f64::INFINITY,
            allowed: f64::INFINITY,
            rtt: 0.1,
            hops: 0,
            congested: false,
        });
        let view = LinkView {
            delay: SimDuration::from_millis(10),
            ..LinkView::idle(SimTime::ZERO, Rate::from_bps(C_BPS))
        };
        q.on_departure(
            &mut pkt,
            &view,
            &mut LazyRng::new(0, 0, StreamKind::LinkAlgorithm, 0),
        );
        let CcHeader::Rate(h) = pkt.cc else {
            unreachable!()
        };
        assert_eq!(h.allowed, q.p() * 8.0);
        assert!(!h.congested);
        // A smaller upstream value survives; the bit is set once y > 0.95 C.
        q.y = 0.96 * C_BPS as f64 / 8.0;
        let mut small = pkt;
        if let CcHeader::Rate(h) = &mut small.cc {
            h.allowed = 1000.0;
        }
        q.on_departure(
            &mut small,
            &view,
            &mut LazyRng::new(0, 0, StreamKind::LinkAlgorithm, 0),
        );
        let CcHeader::Rate(h) = small.cc else {
            unreachable!()
        };
        assert_eq!(h.allowed, 1000.0);
        assert!(h.congested);
    }

    #[test]
    fn a_tick_averages_the_carried_rtts_and_measures_the_input_rate() {
        let mut q = qlb();
        q.bytes_in = 1_000_000;
        q.rtt_sum = 0.3;
        q.rtt_n = 3;
        q.pq.observe(SimTime::ZERO, 5000.0, 0.1, q.c);
        q.tick(SimTime::from_secs_f64(0.05), 9000.0);
        assert!((q.period() - 0.1).abs() < 1e-12);
        assert!((q.y - 2e7).abs() < 1e-3, "{}", q.y);
        assert_eq!(q.q_prev, 5000.0);
        assert!((q.p() - q.law(5000.0, 0.1, 10.0)).abs() < 1e-9);
    }
}
