//! RCP's router (Dukkipati, McKeown et al.), as seed 002 uses it as a
//! baseline: one rate `R` per output queue, offered to every flow, updated
//! once per control interval from the spare capacity and the queue, and
//! stamped into departing data packets as `min(header, R)`.
//!
//! Provenance (spec `seed-002-zhang.md` §2.6):
//! - [PAPER, sign corrected] eq. 126 with the standard sign the spec asks
//!   for (the dissertation's sign makes the queue raise the rate, TYPO?):
//!   `R <- R [1 + (T/d) (alpha (C - y) - beta q/d) / C]`, `T` the interval just
//!   ended, `d` the links' moving-average RTT, `y` the input rate over `T`,
//!   `q` the queue (bytes); alpha 0.4, beta 1.0.
//! - \[PAPER\] the control interval is `min(d, 10 ms)` (the T5 description).
//! - \[PAPER\] D_max variant (`rtt = "max"`): `d` is the largest RTT the
//!   interval's packets carry, as for XCP.
//! - \[EXTERNAL\] ns-2's RCP queue (the code seed 002 ran), for what the
//!   dissertation leaves open: `q` is the instantaneous backlog at the tick;
//!   `y` counts every byte offered to the queue (dropped ones too); `d` is an
//!   EWMA of each interval's byte-weighted mean carried RTT `m`, with gain
//!   `T/d` when `m >= d` and `(R/C)(m/d)(T/d)` when `m < d` (so the average
//!   follows longer RTTs quickly and shorter ones slowly), initial `d` 0.2 s;
//!   `R` is clipped to `[min_pkts_per_rtt pkt_size / d, gamma C]` with the
//!   target utilisation gamma = 1 (and `C` in the law replaced by `gamma C`);
//!   the initial rate is `init_rate C`.
//! - \[INFERRED\] `init_rate` = 0.05 (the value ns-2's RCP source carries for
//!   it, commented out; the dissertation gives none) and `min_pkts_per_rtt` =
//!   1 packet of `pkt_size` = 1000 B; the first tick comes one interval after
//!   the start (ns-2 draws it at random around the interval, to desynchronise
//!   routers; a simulation start is already staggered by the flows' starts).
//! - Only data packets are stamped and only their carried RTTs averaged; an
//!   ACK carries its data packet's echoed header untouched.
//! - The header carries bits/s ([`sim_core::RateHeader::allowed`]); the
//!   controller works in bytes/s.

use serde::{Deserialize, Serialize};
use sim_core::{
    check_range, Bytes, CcHeader, HeaderFamily, LazyRng, LinkAlgorithm, LinkControl, LinkView,
    Packet, PacketKind, ParamError, Reason, SimDuration, SimTime, Verdict,
};

use super::interval::IntervalClock;
use super::{LinkBuildCtx, RouterRtt};

fn default_alpha() -> f64 {
    0.4
}
fn default_beta() -> f64 {
    1.0
}
fn default_max_interval() -> SimDuration {
    SimDuration::from_millis(10)
}
fn default_d_init() -> SimDuration {
    SimDuration::from_millis(200)
}
fn default_init_rate() -> f64 {
    0.05
}
fn default_gamma() -> f64 {
    1.0
}
fn default_min_pkts() -> f64 {
    1.0
}
fn default_pkt_size() -> Bytes {
    Bytes::new(1000)
}

/// Parameters (`algo = { kind = "rcp" }`); defaults as the provenance above says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RcpConfig {
    /// Gain on the spare capacity, alpha (default 0.4).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Gain on the queue, beta (default 1.0).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Longest control interval; the interval is `min(d, max_interval)` (default 10 ms).
    #[serde(default = "default_max_interval")]
    pub max_interval: SimDuration,
    /// Average RTT before any packet carries one (default 200 ms).
    #[serde(default = "default_d_init")]
    pub d_init: SimDuration,
    /// Initial rate as a fraction of capacity, in (0, gamma] (default 0.05).
    #[serde(default = "default_init_rate")]
    pub init_rate: f64,
    /// Target utilisation gamma, in (0, 1] (default 1).
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// Floor of the rate, packets of `pkt_size` per average RTT, > 0 (default 1).
    #[serde(default = "default_min_pkts")]
    pub min_pkts_per_rtt: f64,
    /// Packet size of the floor (default 1000 B).
    #[serde(default = "default_pkt_size")]
    pub pkt_size: Bytes,
    /// `"average"` (default) or `"max"` (D_max).
    #[serde(default)]
    pub rtt: RouterRtt,
}

impl Default for RcpConfig {
    fn default() -> Self {
        RcpConfig {
            alpha: default_alpha(),
            beta: default_beta(),
            max_interval: default_max_interval(),
            d_init: default_d_init(),
            init_rate: default_init_rate(),
            gamma: default_gamma(),
            min_pkts_per_rtt: default_min_pkts(),
            pkt_size: default_pkt_size(),
            rtt: RouterRtt::Average,
        }
    }
}

/// RCP's router for one output queue.
#[derive(Clone, Debug)]
pub struct Rcp {
    /// Target capacity gamma C, bytes/s.
    c: f64,
    alpha: f64,
    beta: f64,
    max_interval: f64,
    min_bytes_per_rtt: f64,
    mode: RouterRtt,
    /// Offered rate R, bytes/s.
    r: f64,
    /// Average RTT d, s.
    d: f64,
    /// Input rate of the last interval, bytes/s.
    y: f64,
    /// This interval's offered bytes, and the carried-RTT sums.
    bytes_in: f64,
    rtt_bytes: f64,
    rtt_weighted: f64,
    rtt_max: f64,
    clock: IntervalClock,
}

impl Rcp {
    /// Validate and build.
    pub fn new(cfg: &RcpConfig, ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        check_range("alpha", cfg.alpha, f64::MIN_POSITIVE, 10.0)?;
        check_range("beta", cfg.beta, 0.0, 10.0)?;
        check_range("gamma", cfg.gamma, f64::MIN_POSITIVE, 1.0)?;
        check_range("init_rate", cfg.init_rate, f64::MIN_POSITIVE, cfg.gamma)?;
        check_range(
            "min_pkts_per_rtt",
            cfg.min_pkts_per_rtt,
            f64::MIN_POSITIVE,
            1e9,
        )?;
        if cfg.max_interval == SimDuration::ZERO {
            return Err(ParamError::new("max_interval", "must be > 0"));
        }
        if cfg.d_init == SimDuration::ZERO {
            return Err(ParamError::new("d_init", "must be > 0"));
        }
        if cfg.pkt_size.get() == 0 {
            return Err(ParamError::new("pkt_size", "must be >= 1 byte"));
        }
        let cap = ctx.capacity.bps_f64() / 8.0;
        if cap <= 0.0 {
            return Err(ParamError::new("", "the link's capacity must be > 0"));
        }
        Ok(Rcp {
            c: cfg.gamma * cap,
            alpha: cfg.alpha,
            beta: cfg.beta,
            max_interval: cfg.max_interval.as_secs_f64(),
            min_bytes_per_rtt: cfg.min_pkts_per_rtt * cfg.pkt_size.get() as f64,
            mode: cfg.rtt,
            r: cfg.init_rate * cap,
            d: cfg.d_init.as_secs_f64(),
            y: 0.0,
            bytes_in: 0.0,
            rtt_bytes: 0.0,
            rtt_weighted: 0.0,
            rtt_max: 0.0,
            clock: IntervalClock::default(),
        })
    }

    /// The offered rate R, bytes/s.
    pub fn rate(&self) -> f64 {
        self.r
    }

    /// The average RTT d, s.
    pub fn avg_rtt(&self) -> f64 {
        self.d
    }

    /// The control interval `min(d, max_interval)`, s.
    pub fn interval(&self) -> f64 {
        self.d.min(self.max_interval)
    }

    /// Input rate of the last interval, bytes/s.
    pub fn input_rate(&self) -> f64 {
        self.y
    }

    /// The rate law: `R` after an interval of `t` s with input rate `y`
    /// (bytes/s), queue `q` (bytes) and average RTT `d` (s), clipped.
    pub fn law(&self, r: f64, t: f64, y: f64, q: f64, d: f64) -> f64 {
        let next = r * (1.0 + (t / d) * (self.alpha * (self.c - y) - self.beta * q / d) / self.c);
        next.clamp((self.min_bytes_per_rtt / d).min(self.c), self.c)
    }

    /// The end of an interval at `now`, with the instantaneous backlog `q` bytes.
    fn tick(&mut self, now: SimTime, q: f64) {
        let t = self.clock.elapsed(now);
        if t <= 0.0 {
            return;
        }
        self.d = match self.mode {
            RouterRtt::Average if self.rtt_bytes > 0.0 => {
                let m = self.rtt_weighted / self.rtt_bytes;
                let gain = if m >= self.d {
                    t / self.d
                } else {
                    (self.r / self.c) * (m / self.d) * (t / self.d)
                };
                self.d + gain.min(1.0) * (m - self.d)
            }
            RouterRtt::Max if self.rtt_max > 0.0 => self.rtt_max,
            _ => self.d,
        };
        self.y = self.bytes_in / t;
        self.r = self.law(self.r, t, self.y, q, self.d);
        self.bytes_in = 0.0;
        self.rtt_bytes = 0.0;
        self.rtt_weighted = 0.0;
        self.rtt_max = 0.0;
    }
}

impl LinkAlgorithm for Rcp {
    /// Derived constants from the capacity at build (issue 59: a capacity
    /// change on its link is rejected when the scenario is built).
    fn follows_capacity(&self) -> bool {
        false
    }

    fn on_arrival(&mut self, pkt: &mut Packet, _view: &LinkView, _rng: &mut LazyRng) -> Verdict {
        let s = f64::from(pkt.size);
        self.bytes_in += s;
        if let (PacketKind::Data, CcHeader::Rate(h)) = (pkt.kind, &pkt.cc) {
            if h.rtt > 0.0 && h.rtt.is_finite() {
                self.rtt_bytes += s;
                self.rtt_weighted += h.rtt * s;
                self.rtt_max = self.rtt_max.max(h.rtt);
            }
        }
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
        if let CcHeader::Rate(h) = &mut pkt.cc {
            h.allowed = h.allowed.min(self.r * 8.0);
        }
        None
    }

    fn stamps_departures(&self) -> bool {
        true
    }

    fn on_start(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.clock.begin(view.now, self.interval(), ctl);
    }

    fn on_timer(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.tick(view.now, view.backlog_bytes as f64);
        self.clock.begin(view.now, self.interval(), ctl);
    }

    fn header_family(&self) -> Option<HeaderFamily> {
        Some(HeaderFamily::Rate)
    }

    fn probe(&self) -> Option<(&'static str, f64)> {
        Some(("rcp_rate_bps", self.r * 8.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::interval::test_ctx;
    use sim_core::{BufferLimit, FlowId, Rate, RateHeader, RouteId, StreamKind};

    const C_BPS: u64 = 100_000_000;

    fn rcp(cfg: &RcpConfig) -> Rcp {
        Rcp::new(cfg, &test_ctx(C_BPS)).unwrap()
    }

    /// End the current interval at `at` seconds with an empty queue.
    fn end_interval(x: &mut Rcp, at: f64) {
        let mut ctl = LinkControl {
            next_timer: None,
            limit: BufferLimit::Unlimited,
        };
        let view = LinkView::idle(SimTime::from_secs_f64(at), Rate::from_bps(C_BPS));
        x.on_timer(&view, &mut ctl);
        assert!(ctl.next_timer.is_some());
    }

    fn data(rtt: f64) -> Packet {
        let mut p = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1000, SimTime::ZERO);
        p.cc = CcHeader::Rate(RateHeader {
            desired: f64::INFINITY,
            allowed: f64::INFINITY,
            rtt,
            hops: 0,
            congested: false,
        });
        p
    }

    #[test]
    fn the_queue_lowers_the_rate_and_spare_capacity_raises_it() {
        // The standard sign (spec §2.6 TYPO?): at y = C a queue lowers R, at
        // q = 0 spare capacity raises it, by exactly the law's amounts.
        let x = rcp(&RcpConfig::default());
        let c = C_BPS as f64 / 8.0;
        let (r, t, d) = (c / 10.0, 0.01, 0.1);
        let down = x.law(r, t, c, 50_000.0, d);
        assert!((down - r * (1.0 - (t / d) * 50_000.0 / d / c)).abs() < 1e-6);
        assert!(down < r);
        let up = x.law(r, t, c / 2.0, 0.0, d);
        assert!((up - r * (1.0 + (t / d) * 0.4 * 0.5)).abs() < 1e-6);
        // With y = C and no queue the rate is a fixed point.
        assert_eq!(x.law(r, t, c, 0.0, d), r);
    }

    #[test]
    fn the_rate_is_clipped_to_one_packet_per_rtt_and_capacity() {
        let x = rcp(&RcpConfig::default());
        let c = C_BPS as f64 / 8.0;
        assert_eq!(x.law(c, 0.01, 0.0, 0.0, 0.01), c);
        assert_eq!(x.law(c, 0.01, 100.0 * c, 1e9, 0.1), 1000.0 / 0.1);
    }

    #[test]
    fn the_interval_is_the_average_rtt_capped_at_ten_ms() {
        let mut x = rcp(&RcpConfig::default());
        assert_eq!(x.interval(), 0.01);
        assert_eq!(x.avg_rtt(), 0.2);
        let mut rng = LazyRng::new(1, 0, sim_core::StreamKind::LinkAlgorithm, 0);
        let view = LinkView::idle(SimTime::ZERO, Rate::from_bps(C_BPS));
        // Longer carried RTTs: gain T/d = 0.01/0.2 = 0.05 towards m = 0.4.
        x.on_arrival(&mut data(0.4), &view, &mut rng);
        end_interval(&mut x, 0.01);
        assert!(
            (x.avg_rtt() - (0.2 + 0.05 * 0.2)).abs() < 1e-12,
            "{}",
            x.avg_rtt()
        );
        // Shorter ones: the gain is scaled by R/C and m/d.
        let (d0, r0) = (x.avg_rtt(), x.rate());
        x.on_arrival(&mut data(0.005), &view, &mut rng);
        end_interval(&mut x, 0.02);
        let c = C_BPS as f64 / 8.0;
        let gain = (r0 / c) * (0.005 / d0) * (0.01 / d0);
        assert!((x.avg_rtt() - (d0 + gain * (0.005 - d0))).abs() < 1e-12);
        // y counts every offered byte over the elapsed interval.
        assert!((x.input_rate() - 1000.0 / 0.01).abs() < 1e-6);
    }

    #[test]
    fn the_dmax_variant_takes_the_largest_rtt() {
        let mut x = rcp(&RcpConfig {
            rtt: RouterRtt::Max,
            ..RcpConfig::default()
        });
        let mut rng = LazyRng::new(1, 0, sim_core::StreamKind::LinkAlgorithm, 0);
        let view = LinkView::idle(SimTime::ZERO, Rate::from_bps(C_BPS));
        for rtt in [0.05, 2.02, 0.22] {
            x.on_arrival(&mut data(rtt), &view, &mut rng);
        }
        end_interval(&mut x, 0.01);
        assert_eq!(x.avg_rtt(), 2.02);
    }

    #[test]
    fn departures_keep_the_smaller_rate_and_acks_are_left_alone() {
        let mut x = rcp(&RcpConfig::default());
        let view = LinkView::idle(SimTime::ZERO, Rate::from_bps(C_BPS));
        let mut p = data(0.1);
        x.on_departure(
            &mut p,
            &view,
            &mut LazyRng::new(0, 0, StreamKind::LinkAlgorithm, 0),
        );
        let CcHeader::Rate(h) = p.cc else {
            unreachable!()
        };
        assert_eq!(h.allowed, 0.05 * C_BPS as f64);
        let mut small = data(0.1);
        if let CcHeader::Rate(h) = &mut small.cc {
            h.allowed = 1000.0;
        }
        x.on_departure(
            &mut small,
            &view,
            &mut LazyRng::new(0, 0, StreamKind::LinkAlgorithm, 0),
        );
        let CcHeader::Rate(h) = small.cc else {
            unreachable!()
        };
        assert_eq!(h.allowed, 1000.0);
        let mut ack = data(0.1);
        ack.kind = PacketKind::Ack;
        x.on_departure(
            &mut ack,
            &view,
            &mut LazyRng::new(0, 0, StreamKind::LinkAlgorithm, 0),
        );
        assert_eq!(ack.cc, data(0.1).cc);
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let ctx = test_ctx(C_BPS);
        let bad = |cfg: RcpConfig| Rcp::new(&cfg, &ctx).unwrap_err().key;
        let d = RcpConfig::default();
        assert_eq!(
            bad(RcpConfig {
                alpha: 0.0,
                ..d.clone()
            }),
            "alpha"
        );
        assert_eq!(
            bad(RcpConfig {
                gamma: 1.5,
                ..d.clone()
            }),
            "gamma"
        );
        assert_eq!(
            bad(RcpConfig {
                init_rate: 0.0,
                ..d.clone()
            }),
            "init_rate"
        );
        let zero = SimDuration::ZERO;
        assert_eq!(
            bad(RcpConfig {
                max_interval: zero,
                ..d.clone()
            }),
            "max_interval"
        );
        assert_eq!(bad(RcpConfig { d_init: zero, ..d }), "d_init");
    }
}
