//! XCP's router (Katabi, Handley, Rohrs, SIGCOMM 2002), as seed 002 uses it as
//! a baseline: an efficiency controller and a fairness controller per output
//! queue, run once per control interval, and per-packet window feedback.
//!
//! Provenance (spec `seed-002-zhang.md` §2.6, all \[EXTERNAL\]: the standard XCP
//! equations the dissertation does not restate):
//! - control interval = the average RTT `d` carried by the packets (or, with
//!   `rtt = "max"`, the largest: the dissertation's D_max variant);
//! - aggregate feedback `phi = alpha d S - beta Q` (bytes), `S` the spare
//!   bandwidth `C - y`, `Q` the persistent queue; alpha 0.4, beta 0.226;
//! - shuffled traffic `h = max(0, 0.1 y d - |phi|)` (bytes; the spec's `0.1 y`
//!   written per interval, XCP's gamma = 0.1 of the interval's traffic);
//! - `xi_p = (h + max(phi, 0)) / (d sum(rtt_i s_i / cwnd_i))`,
//!   `xi_n = (h + max(-phi, 0)) / (d sum(s_i))`, the sums over the packets of
//!   the interval; each data packet departing in the next interval gets
//!   `H = xi_p rtt^2 s / cwnd - xi_n rtt s` and the header keeps the minimum
//!   along the path.
//! - \[EXTERNAL\] ns-2's XCP queue (`xcpq.cc`: Katabi's 2002 code, which the
//!   dissertation ran, and ISI's 2004 rewrite of it, ns-2.35's), for what the
//!   equations leave open:
//!   - the average RTT weights each packet by `s_i rtt_i / cwnd_i` (`s / throughput`
//!     in the code), so every flow counts once whatever its rate, and counts
//!     an RTT above `rtt_cap` as `rtt_cap` (ISI's `XCP_MAX_INTERVAL`, 1 s, the
//!     default; Katabi's code has no cap, and seed 002's files set `rtt_cap`
//!     above every RTT):
//!     `d = sum(min(rtt_i, cap) rtt_i s_i / cwnd_i) / sum(rtt_i s_i / cwnd_i)`
//!     over the packets with a valid RTT (`rtt_weight = "flow"`, the default);
//!     `rtt_weight = "byte"` is the byte-weighted mean `sum(rtt_i s_i) / sum(s_i)`
//!     (uncapped) that netsim used before;
//!   - residues (`residue = true`; default false, the XCP paper's equations,
//!     which have none; seed 002's files set it, since the dissertation ran
//!     this code): an interval hands out at most
//!     `(h + max(phi, 0)) / d` of positive and `(h + max(-phi, 0)) / d` of
//!     negative feedback, counted as rate (bytes/s: a packet's window feedback
//!     over its RTT); a packet gets the smaller of its share and what is left.
//!     Without them a joining flow with a long RTT and a one-packet window,
//!     absent from the sums its coefficients came from, takes several times the
//!     interval's spare bandwidth. When a packet already carries a smaller
//!     value from upstream, the router counts the difference as negative
//!     feedback, as the code does (\[INFERRED\]: positive feedback counted
//!     against the residue is clamped at 0, where the code would let a
//!     negative amount refill it).
//! - \[INFERRED\] the previous `d` when no packet carried an RTT (initial 50 ms);
//!   the persistent queue is [`PersistentQueue`]. The code's random phase of
//!   the first control timer is not reproduced.
//! - Only data packets are read and stamped; ACKs carry their echo untouched.

use serde::{Deserialize, Serialize};
use sim_core::{
    check_range, CcHeader, HeaderFamily, LazyRng, LinkAlgorithm, LinkControl, LinkView, Packet,
    PacketKind, ParamError, Reason, SimDuration, SimTime, Verdict,
};

use super::interval::IntervalClock;
use super::persistent_queue::PersistentQueue;
use super::{LinkBuildCtx, RouterRtt};

fn default_alpha() -> f64 {
    0.4
}
fn default_beta() -> f64 {
    0.226
}
fn default_gamma() -> f64 {
    0.1
}
fn default_d_init() -> SimDuration {
    SimDuration::from_millis(50)
}
fn default_rtt_cap() -> SimDuration {
    // ns-2 xcpq.h, XCP_MAX_INTERVAL [EXTERNAL].
    SimDuration::from_secs(1)
}

/// How XCP's router weights the packets' RTTs in its average `d`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum XcpRttWeight {
    /// Each flow once (packets weighted by `s rtt / cwnd`), RTTs capped at
    /// `rtt_cap`: ns-2's XCP code.
    #[default]
    Flow,
    /// Each byte once, uncapped.
    Byte,
}

/// Parameters (`algo = { kind = "xcp" }`); defaults are XCP's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XcpConfig {
    /// Efficiency gain alpha (default 0.4).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Queue gain beta (default 0.226).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Shuffled fraction of the traffic per interval (default 0.1).
    #[serde(default = "default_gamma")]
    pub shuffle: f64,
    /// Control interval before any RTT is known (default 50 ms).
    #[serde(default = "default_d_init")]
    pub d_init: SimDuration,
    /// `"average"` (default) or `"max"` (D_max).
    #[serde(default)]
    pub rtt: RouterRtt,
    /// Weighting of the average RTT: `"flow"` (default, ns-2's) or `"byte"`.
    #[serde(default)]
    pub rtt_weight: XcpRttWeight,
    /// Largest RTT the flow-weighted average counts (default 1 s, ISI's ns-2
    /// code; Katabi's original code has no cap: set it above every RTT).
    #[serde(default = "default_rtt_cap")]
    pub rtt_cap: SimDuration,
    /// Bound each interval's feedback by its aggregate, as ns-2's code does
    /// (default false: the XCP paper's equations).
    #[serde(default)]
    pub residue: bool,
}

impl Default for XcpConfig {
    fn default() -> Self {
        XcpConfig {
            alpha: default_alpha(),
            beta: default_beta(),
            shuffle: default_gamma(),
            d_init: default_d_init(),
            rtt: RouterRtt::Average,
            rtt_weight: XcpRttWeight::Flow,
            rtt_cap: default_rtt_cap(),
            residue: false,
        }
    }
}

/// XCP's router for one output queue.
#[derive(Clone, Debug)]
pub struct Xcp {
    /// Capacity, bytes/s.
    c: f64,
    alpha: f64,
    beta: f64,
    shuffle: f64,
    mode: RouterRtt,
    weight: XcpRttWeight,
    /// `rtt_cap`, s.
    cap: f64,
    residue: bool,
    /// Control interval, s.
    d: f64,
    /// Feedback coefficients of the current interval.
    xi_p: f64,
    xi_n: f64,
    /// This interval's input bytes and sums.
    bytes_in: f64,
    sum_rtt_s: f64,
    sum_s_valid: f64,
    /// Sum of `min(rtt, cap) rtt s / cwnd` (the flow-weighted average's
    /// numerator; its denominator is `sum_rtt_s_over_cwnd`).
    sum_caprtt_rtt_s_over_cwnd: f64,
    rtt_max: f64,
    sum_rtt_s_over_cwnd: f64,
    sum_s: f64,
    clock: IntervalClock,
    pq: PersistentQueue,
    /// Last aggregate feedback phi, bytes (for probes and tests).
    phi: f64,
    /// Positive and negative feedback left to hand out this interval, bytes/s.
    res_p: f64,
    res_n: f64,
}

impl Xcp {
    /// Validate and build.
    pub fn new(cfg: &XcpConfig, ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        check_range("alpha", cfg.alpha, f64::MIN_POSITIVE, 10.0)?;
        check_range("beta", cfg.beta, 0.0, 10.0)?;
        check_range("shuffle", cfg.shuffle, 0.0, 1.0)?;
        let d = cfg.d_init.as_secs_f64();
        if d <= 0.0 {
            return Err(ParamError::new("d_init", "must be > 0"));
        }
        let cap = cfg.rtt_cap.as_secs_f64();
        if cap <= 0.0 {
            return Err(ParamError::new("rtt_cap", "must be > 0"));
        }
        Ok(Xcp {
            c: ctx.capacity.bps_f64() / 8.0,
            alpha: cfg.alpha,
            beta: cfg.beta,
            shuffle: cfg.shuffle,
            mode: cfg.rtt,
            weight: cfg.rtt_weight,
            cap,
            residue: cfg.residue,
            d,
            xi_p: 0.0,
            xi_n: 0.0,
            bytes_in: 0.0,
            sum_rtt_s: 0.0,
            sum_s_valid: 0.0,
            sum_caprtt_rtt_s_over_cwnd: 0.0,
            rtt_max: 0.0,
            sum_rtt_s_over_cwnd: 0.0,
            sum_s: 0.0,
            clock: IntervalClock::default(),
            pq: PersistentQueue::default(),
            phi: 0.0,
            res_p: f64::INFINITY,
            res_n: f64::INFINITY,
        })
    }

    /// The control interval, s.
    pub fn interval(&self) -> f64 {
        self.d
    }

    /// The last aggregate feedback phi, bytes.
    pub fn phi(&self) -> f64 {
        self.phi
    }

    /// `(xi_p, xi_n)` of the current interval.
    pub fn coefficients(&self) -> (f64, f64) {
        (self.xi_p, self.xi_n)
    }

    /// The feedback for a packet of `size` bytes from a sender with window
    /// `cwnd` bytes and RTT `rtt` s.
    pub fn feedback(&self, size: f64, cwnd: f64, rtt: f64) -> f64 {
        let (pos, neg) = self.rate_shares(size, cwnd, rtt);
        (pos - neg) * rtt
    }

    /// The packet's positive and negative shares as rates (bytes/s: window
    /// feedback over `rtt`), `xi_p rtt s / cwnd` and `xi_n s`.
    fn rate_shares(&self, size: f64, cwnd: f64, rtt: f64) -> (f64, f64) {
        (self.xi_p * rtt * size / cwnd, self.xi_n * size)
    }

    /// The end of an interval at `now`, with the instantaneous backlog `backlog` bytes.
    fn tick(&mut self, now: SimTime, backlog: f64) {
        let elapsed = self.clock.elapsed(now);
        let d = match (self.mode, self.weight) {
            (RouterRtt::Average, XcpRttWeight::Flow) if self.sum_rtt_s_over_cwnd > 0.0 => {
                self.sum_caprtt_rtt_s_over_cwnd / self.sum_rtt_s_over_cwnd
            }
            (RouterRtt::Average, XcpRttWeight::Byte) if self.sum_s_valid > 0.0 => {
                self.sum_rtt_s / self.sum_s_valid
            }
            (RouterRtt::Max, _) if self.rtt_max > 0.0 => self.rtt_max,
            _ => self.d,
        };
        let y = if elapsed > 0.0 {
            self.bytes_in / elapsed
        } else {
            0.0
        };
        let q = self.pq.value(backlog);
        let phi = self.alpha * d * (self.c - y) - self.beta * q;
        let h = (self.shuffle * self.bytes_in - phi.abs()).max(0.0);
        // What the interval hands out, bytes of aggregate window each way.
        let (pos_total, neg_total) = (h + phi.max(0.0), h + (-phi).max(0.0));
        self.xi_p = if self.sum_rtt_s_over_cwnd > 0.0 {
            pos_total / (d * self.sum_rtt_s_over_cwnd)
        } else {
            0.0
        };
        self.xi_n = if self.sum_s > 0.0 {
            neg_total / (d * self.sum_s)
        } else {
            0.0
        };
        if self.residue {
            self.res_p = pos_total / d;
            self.res_n = neg_total / d;
        }
        self.phi = phi;
        self.d = d;
        self.bytes_in = 0.0;
        self.sum_rtt_s = 0.0;
        self.sum_s_valid = 0.0;
        self.sum_caprtt_rtt_s_over_cwnd = 0.0;
        self.rtt_max = 0.0;
        self.sum_rtt_s_over_cwnd = 0.0;
        self.sum_s = 0.0;
    }
}

impl LinkAlgorithm for Xcp {
    /// The efficiency controller's spare capacity is taken against the new
    /// capacity from the next control interval on.
    fn on_capacity_change(&mut self, view: &LinkView) {
        self.c = view.capacity.bps_f64() / 8.0;
    }

    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, _rng: &mut LazyRng) -> Verdict {
        let s = f64::from(pkt.size);
        self.bytes_in += s;
        if let (PacketKind::Data, CcHeader::Window(h)) = (pkt.kind, &pkt.cc) {
            self.sum_s += s;
            if h.rtt > 0.0 && h.rtt.is_finite() && h.cwnd > 0.0 {
                self.sum_rtt_s_over_cwnd += h.rtt * s / h.cwnd;
                // Only the sums the configured interval `d` reads (`tick`).
                match (self.mode, self.weight) {
                    (RouterRtt::Average, XcpRttWeight::Flow) => {
                        self.sum_caprtt_rtt_s_over_cwnd += h.rtt.min(self.cap) * h.rtt * s / h.cwnd;
                    }
                    (RouterRtt::Average, XcpRttWeight::Byte) => {
                        self.sum_rtt_s += h.rtt * s;
                        self.sum_s_valid += s;
                    }
                    (RouterRtt::Max, _) => self.rtt_max = self.rtt_max.max(h.rtt),
                }
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
        if pkt.kind != PacketKind::Data {
            return None;
        }
        let size = f64::from(pkt.size);
        if let CcHeader::Window(h) = &mut pkt.cc {
            // A sender without an RTT estimate gets no positive feedback yet
            // (XCP's code); its window then grows by the sender's own rule.
            if !(h.rtt > 0.0 && h.cwnd > 0.0) {
                h.feedback = h.feedback.min(0.0);
                return None;
            }
            if !self.residue {
                h.feedback = h.feedback.min(self.feedback(size, h.cwnd, h.rtt));
                return None;
            }
            // ns-2's residues, in rate (window feedback / rtt, bytes/s).
            let (share_p, share_n) = self.rate_shares(size, h.cwnd, h.rtt);
            let mut pos = self.res_p.min(share_p);
            let mut neg = self.res_n.min(share_n);
            let fb = pos - neg;
            let carried = h.feedback / h.rtt;
            if carried >= fb {
                h.feedback = fb * h.rtt;
            } else {
                neg = self.res_n.min(neg + (fb - carried));
                pos = (carried + neg).max(0.0);
            }
            self.res_p = (self.res_p - pos).max(0.0);
            self.res_n = (self.res_n - neg).max(0.0);
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
        Some(HeaderFamily::Window)
    }

    fn probe(&self) -> Option<(&'static str, f64)> {
        Some(("xcp_phi_bytes", self.phi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::interval::test_ctx;
    use sim_core::{FlowId, Rate, RouteId, StreamKind, WindowHeader};

    fn xcp() -> Xcp {
        Xcp::new(&XcpConfig::default(), &test_ctx(80_000_000)).unwrap()
    }

    fn pkt(cwnd: f64, rtt: f64) -> Packet {
        let mut p = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1000, SimTime::ZERO);
        p.cc = CcHeader::Window(WindowHeader {
            cwnd,
            rtt,
            feedback: f64::INFINITY,
        });
        p
    }

    fn view(now: SimTime) -> LinkView {
        LinkView {
            id: sim_core::LinkId(0),
            delay: SimDuration::from_millis(10),
            ..LinkView::idle(now, Rate::from_bps(80_000_000))
        }
    }

    /// Feed `n` packets of 1000 B with `cwnd` (bytes) and `rtt` (s) as arrivals.
    fn arrive(x: &mut Xcp, n: usize, cwnd: f64, rtt: f64) {
        let mut rng = LazyRng::new(1, 0, sim_core::StreamKind::LinkAlgorithm, 0);
        for _ in 0..n {
            x.on_arrival(&mut pkt(cwnd, rtt), &view(SimTime::ZERO), &mut rng);
        }
    }

    /// Send `p` through the departure stamp; its feedback, bytes of window.
    fn stamp(x: &mut Xcp, cwnd: f64, rtt: f64) -> f64 {
        let mut p = pkt(cwnd, rtt);
        x.on_departure(
            &mut p,
            &view(SimTime::ZERO),
            &mut LazyRng::new(0, 0, StreamKind::LinkAlgorithm, 0),
        );
        match p.cc {
            CcHeader::Window(h) => h.feedback,
            _ => unreachable!(),
        }
    }

    #[test]
    fn spare_bandwidth_is_handed_out_so_that_one_interval_adds_phi() {
        // One interval of d = 0.1 s carrying y = C/2 from 10 flows with
        // cwnd 50 kB, rtt 0.1 s, 1000-B packets, no queue: phi = alpha d C/2.
        let mut x = xcp();
        let c = 80e6 / 8.0;
        let n_pkts = (c * 0.5 * 0.1 / 1000.0) as usize; // 500 packets
        arrive(&mut x, n_pkts, 50_000.0, 0.1);
        x.tick(SimTime::from_secs_f64(0.1), 0.0);
        assert!((x.interval() - 0.1).abs() < 1e-12);
        let phi = 0.4 * 0.1 * (c - c * 0.5);
        assert!((x.phi() - phi).abs() < 1e-6 * phi, "{}", x.phi());
        // Over the next interval the same packets carry a total of
        // phi + h - h = phi (positive part sums to h + phi, negative to h),
        // within the residues, so stamping gives the formula's values.
        let total: f64 = (0..n_pkts).map(|_| stamp(&mut x, 50_000.0, 0.1)).sum();
        assert!((total - phi).abs() < 1e-6 * phi, "{total} vs {phi}");
        let formula: f64 = (0..n_pkts).map(|_| x.feedback(1000.0, 50_000.0, 0.1)).sum();
        assert!((formula - phi).abs() < 1e-6 * phi, "{formula} vs {phi}");
    }

    #[test]
    fn the_average_rtt_counts_each_flow_once_with_rtts_capped_at_rtt_cap() {
        // One 0.1-s interval at C/2 (500 packets): flow A, rtt 0.1 s, sends
        // 400 packets (cwnd 400 kB); flow B, rtt 2 s, sends its cwnd d / rtt
        // = 100 packets (cwnd 2 MB). ISI's XCP: the mean over flows of
        // min(rtt, 1 s) = (0.1 + 1) / 2; Katabi's original code, no cap:
        // (0.1 + 2) / 2; by bytes: (400 x 0.1 + 100 x 2) / 500.
        let run = |weight: XcpRttWeight, cap: SimDuration| {
            let cfg = XcpConfig {
                rtt_weight: weight,
                rtt_cap: cap,
                ..XcpConfig::default()
            };
            let mut x = Xcp::new(&cfg, &test_ctx(80_000_000)).unwrap();
            arrive(&mut x, 400, 400_000.0, 0.1);
            arrive(&mut x, 100, 2_000_000.0, 2.0);
            x.tick(SimTime::from_secs_f64(0.1), 0.0);
            x.interval()
        };
        let default_cap = XcpConfig::default().rtt_cap;
        let flow = run(XcpRttWeight::Flow, default_cap);
        assert!((flow - (0.1 + 1.0) / 2.0).abs() < 1e-12, "{flow}");
        let uncapped = run(XcpRttWeight::Flow, SimDuration::from_secs(1000));
        assert!((uncapped - (0.1 + 2.0) / 2.0).abs() < 1e-12, "{uncapped}");
        let byte = run(XcpRttWeight::Byte, default_cap);
        assert!(
            (byte - (400.0 * 0.1 + 100.0 * 2.0) / 500.0).abs() < 1e-12,
            "{byte}"
        );
    }

    #[test]
    fn residues_bound_an_interval_s_feedback_when_a_newcomer_joins() {
        // The sums come from 500 packets of flows with cwnd 50 kB, rtt 0.1 s
        // (y = C/2, no queue). In the next interval a newcomer with a 2-s RTT
        // and a one-packet window sends first: its weight rtt s / cwnd = 2 is
        // 1000 times an old packet's (0.1 x 1000 / 50 000) and twice all 500
        // of them together, so by the formula its one packet asks for twice
        // the interval's positive rate budget (h + phi) / d. ns-2's residues
        // give it at most the budget, and the old flows what is left.
        let c = 80e6 / 8.0;
        let residue = XcpConfig {
            residue: true,
            ..XcpConfig::default()
        };
        let mut with = Xcp::new(&residue, &test_ctx(80_000_000)).unwrap();
        let mut without = xcp();
        for x in [&mut with, &mut without] {
            arrive(x, 500, 50_000.0, 0.1);
            x.tick(SimTime::from_secs_f64(0.1), 0.0);
        }
        // phi = alpha d (C - y) = 200 kB exceeds the 0.1 y d = 50 kB to
        // shuffle, so h = 0, no negative feedback, and a budget of phi / d.
        let budget = 0.4 * (c - c * 0.5);
        assert_eq!(with.coefficients().1, 0.0);
        let rate = stamp(&mut with, 1000.0, 2.0) / 2.0;
        assert!((rate - budget).abs() < 1e-9 * budget, "{rate} vs {budget}");
        let unbounded = stamp(&mut without, 1000.0, 2.0) / 2.0;
        assert!(
            (unbounded - 2.0 * budget).abs() < 1e-9 * budget,
            "{unbounded} vs {budget}"
        );
        // The old flows' packets, stamped after it, find the budget spent:
        // the interval's total rate change is the budget, not 3 x.
        let old: f64 = (0..500).map(|_| stamp(&mut with, 50_000.0, 0.1)).sum();
        assert_eq!(old, 0.0);
    }

    #[test]
    fn departures_keep_the_smaller_feedback_and_acks_are_left_alone() {
        let mut x = xcp();
        x.xi_p = 0.0;
        x.xi_n = 1.0;
        let view = view(SimTime::ZERO);
        let mut p = pkt(10_000.0, 0.1);
        x.on_departure(
            &mut p,
            &view,
            &mut LazyRng::new(0, 0, StreamKind::LinkAlgorithm, 0),
        );
        let CcHeader::Window(h) = p.cc else {
            unreachable!()
        };
        assert!((h.feedback - (-100.0)).abs() < 1e-9, "{}", h.feedback);
        // A smaller upstream value stays.
        let mut p2 = p;
        if let CcHeader::Window(h) = &mut p2.cc {
            h.feedback = -500.0;
        }
        x.on_departure(
            &mut p2,
            &view,
            &mut LazyRng::new(0, 0, StreamKind::LinkAlgorithm, 0),
        );
        let CcHeader::Window(h) = p2.cc else {
            unreachable!()
        };
        assert_eq!(h.feedback, -500.0);
        let mut ack = pkt(10_000.0, 0.1);
        ack.kind = PacketKind::Ack;
        x.on_departure(
            &mut ack,
            &view,
            &mut LazyRng::new(0, 0, StreamKind::LinkAlgorithm, 0),
        );
        assert_eq!(ack.cc, pkt(10_000.0, 0.1).cc);
    }

    #[test]
    fn the_dmax_variant_uses_the_largest_rtt() {
        let ctx = test_ctx(80_000_000);
        let cfg = XcpConfig {
            rtt: RouterRtt::Max,
            ..XcpConfig::default()
        };
        let mut x = Xcp::new(&cfg, &ctx).unwrap();
        for rtt in [0.05, 0.3, 0.1] {
            arrive(&mut x, 1, 10_000.0, rtt);
        }
        x.tick(SimTime::from_secs_f64(0.05), 0.0);
        assert_eq!(x.interval(), 0.3);
    }
}
