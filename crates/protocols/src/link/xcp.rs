//! XCP's router (Katabi, Handley, Rohrs, SIGCOMM 2002), as seed 002 uses it as
//! a baseline: an efficiency controller and a fairness controller per output
//! queue, run once per control interval, and per-packet window feedback.
//!
//! Provenance (spec `seed-002-zhang.md` §2.6, all [EXTERNAL]: the standard XCP
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
//! - [INFERRED] averages as in XCP's code: `d = sum(rtt_i s_i) / sum(s_i)` over
//!   packets with a valid RTT; the previous `d` without one (initial 50 ms); the
//!   persistent queue is [`PersistentQueue`]; XCP's "residue" bookkeeping of the
//!   ns-2 code is not reproduced (it only trims rounding over-allocation).
//! - Only data packets are read and stamped; ACKs carry their echo untouched.

use serde::{Deserialize, Serialize};
use sim_core::{
    check_range, CcHeader, HeaderFamily, LazyRng, LinkAlgorithm, LinkControl, LinkView, Packet,
    PacketKind, ParamError, SimDuration, SimTime, Verdict,
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
}

impl Default for XcpConfig {
    fn default() -> Self {
        XcpConfig {
            alpha: default_alpha(),
            beta: default_beta(),
            shuffle: default_gamma(),
            d_init: default_d_init(),
            rtt: RouterRtt::Average,
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
    /// Control interval, s.
    d: f64,
    /// Feedback coefficients of the current interval.
    xi_p: f64,
    xi_n: f64,
    /// This interval's input bytes and sums.
    bytes_in: f64,
    sum_rtt_s: f64,
    sum_s_valid: f64,
    rtt_max: f64,
    sum_rtt_s_over_cwnd: f64,
    sum_s: f64,
    clock: IntervalClock,
    pq: PersistentQueue,
    /// Last aggregate feedback phi, bytes (for probes and tests).
    phi: f64,
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
        Ok(Xcp {
            c: ctx.capacity.bps_f64() / 8.0,
            alpha: cfg.alpha,
            beta: cfg.beta,
            shuffle: cfg.shuffle,
            mode: cfg.rtt,
            d,
            xi_p: 0.0,
            xi_n: 0.0,
            bytes_in: 0.0,
            sum_rtt_s: 0.0,
            sum_s_valid: 0.0,
            rtt_max: 0.0,
            sum_rtt_s_over_cwnd: 0.0,
            sum_s: 0.0,
            clock: IntervalClock::default(),
            pq: PersistentQueue::default(),
            phi: 0.0,
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
        self.xi_p * rtt * rtt * size / cwnd - self.xi_n * rtt * size
    }

    /// The end of an interval at `now`, with the instantaneous backlog `backlog` bytes.
    fn tick(&mut self, now: SimTime, backlog: f64) {
        let elapsed = self.clock.elapsed(now);
        let d = match self.mode {
            RouterRtt::Average if self.sum_s_valid > 0.0 => self.sum_rtt_s / self.sum_s_valid,
            RouterRtt::Max if self.rtt_max > 0.0 => self.rtt_max,
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
        self.xi_p = if self.sum_rtt_s_over_cwnd > 0.0 {
            (h + phi.max(0.0)) / (d * self.sum_rtt_s_over_cwnd)
        } else {
            0.0
        };
        self.xi_n = if self.sum_s > 0.0 {
            (h + (-phi).max(0.0)) / (d * self.sum_s)
        } else {
            0.0
        };
        self.phi = phi;
        self.d = d;
        self.bytes_in = 0.0;
        self.sum_rtt_s = 0.0;
        self.sum_s_valid = 0.0;
        self.rtt_max = 0.0;
        self.sum_rtt_s_over_cwnd = 0.0;
        self.sum_s = 0.0;
    }
}

impl LinkAlgorithm for Xcp {
    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, _rng: &mut LazyRng) -> Verdict {
        let s = f64::from(pkt.size);
        self.bytes_in += s;
        if let (PacketKind::Data, CcHeader::Window(h)) = (pkt.kind, &pkt.cc) {
            self.sum_s += s;
            if h.rtt > 0.0 && h.rtt.is_finite() && h.cwnd > 0.0 {
                self.sum_rtt_s += h.rtt * s;
                self.sum_s_valid += s;
                self.rtt_max = self.rtt_max.max(h.rtt);
                self.sum_rtt_s_over_cwnd += h.rtt * s / h.cwnd;
            }
        }
        self.pq
            .observe(view.now, view.backlog_bytes as f64, self.d, self.c);
        Verdict::Enqueue
    }

    fn on_departure(&mut self, pkt: &mut Packet, _view: &LinkView) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        let size = f64::from(pkt.size);
        if let CcHeader::Window(h) = &mut pkt.cc {
            // A sender without an RTT estimate gets no positive feedback yet
            // (XCP's code); its window then grows by the sender's own rule.
            let fb = if h.rtt > 0.0 && h.cwnd > 0.0 {
                self.feedback(size, h.cwnd, h.rtt)
            } else {
                0.0
            };
            h.feedback = h.feedback.min(fb);
        }
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
    use sim_core::{FlowId, Rate, RouteId, WindowHeader};

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

    #[test]
    fn spare_bandwidth_is_handed_out_so_that_one_interval_adds_phi() {
        // One interval of d = 0.1 s carrying y = C/2 from 10 flows with
        // cwnd 50 kB, rtt 0.1 s, 1000-B packets, no queue: phi = alpha d C/2.
        let mut x = xcp();
        let c = 80e6 / 8.0;
        let n_pkts = (c * 0.5 * 0.1 / 1000.0) as usize; // 500 packets
        for _ in 0..n_pkts {
            x.bytes_in += 1000.0;
            x.sum_s += 1000.0;
            x.sum_rtt_s += 0.1 * 1000.0;
            x.sum_s_valid += 1000.0;
            x.sum_rtt_s_over_cwnd += 0.1 * 1000.0 / 50_000.0;
        }
        x.tick(SimTime::from_secs_f64(0.1), 0.0);
        assert!((x.interval() - 0.1).abs() < 1e-12);
        let phi = 0.4 * 0.1 * (c - c * 0.5);
        assert!((x.phi() - phi).abs() < 1e-6 * phi, "{}", x.phi());
        // Over the next interval the same packets carry a total of
        // phi + h - h = phi (positive part sums to h + phi, negative to h).
        let total: f64 = (0..n_pkts).map(|_| x.feedback(1000.0, 50_000.0, 0.1)).sum();
        assert!((total - phi).abs() < 1e-6 * phi, "{total} vs {phi}");
    }

    #[test]
    fn departures_keep_the_smaller_feedback_and_acks_are_left_alone() {
        let mut x = xcp();
        x.xi_p = 0.0;
        x.xi_n = 1.0;
        let view = LinkView {
            id: sim_core::LinkId(0),
            delay: SimDuration::from_millis(10),
            ..LinkView::idle(SimTime::ZERO, Rate::from_bps(80_000_000))
        };
        let mut p = pkt(10_000.0, 0.1);
        x.on_departure(&mut p, &view);
        let CcHeader::Window(h) = p.cc else {
            unreachable!()
        };
        assert!((h.feedback - (-100.0)).abs() < 1e-9, "{}", h.feedback);
        // A smaller upstream value stays.
        let mut p2 = p;
        if let CcHeader::Window(h) = &mut p2.cc {
            h.feedback = -500.0;
        }
        x.on_departure(&mut p2, &view);
        let CcHeader::Window(h) = p2.cc else {
            unreachable!()
        };
        assert_eq!(h.feedback, -500.0);
        let mut ack = pkt(10_000.0, 0.1);
        ack.kind = PacketKind::Ack;
        x.on_departure(&mut ack, &view);
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
        let mut rng = LazyRng::new(1, 0, sim_core::StreamKind::LinkAlgorithm, 0);
        let view = |now: SimTime| LinkView {
            id: sim_core::LinkId(0),
            delay: SimDuration::from_millis(10),
            ..LinkView::idle(now, Rate::from_bps(80_000_000))
        };
        for rtt in [0.05, 0.3, 0.1] {
            x.on_arrival(&mut pkt(10_000.0, rtt), &view(SimTime::ZERO), &mut rng);
        }
        x.tick(SimTime::from_secs_f64(0.05), 0.0);
        assert_eq!(x.interval(), 0.3);
    }
}
