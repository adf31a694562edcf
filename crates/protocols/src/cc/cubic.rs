//! CUBIC: a window that follows a cubic function of the time since the last
//! congestion event, concave up to the window of that event and convex beyond,
//! with a Reno-friendly floor.
//!
//! Provenance: RFC 9438 (CUBIC for Fast and Long-Distance Networks).
//! - Section 4.1: `C = 0.4`, `beta_cubic = 0.7`; windows in segments, t in
//!   seconds.
//! - Section 4.2: `W_cubic(t) = C (t - K)^3 + W_max` (Figure 1),
//!   `K = cbrt((W_max - cwnd_epoch) / C)` (Figure 2), which is
//!   `cbrt(W_max (1 - beta_cubic) / C)` when the epoch starts at
//!   `beta_cubic W_max`; t is the time since the start of the current
//!   congestion-avoidance stage (`t_epoch`); the target is `W_cubic(t + RTT)`
//!   clamped to `[cwnd, 1.5 cwnd]` and each ACK adds
//!   `(target - cwnd) / cwnd` segments per acknowledged segment (concave region,
//!   section 4.4, and convex region, section 4.5). RTT is the transport's
//!   smoothed RTT (`AckInfo::srtt`; the latest sample when there is none yet,
//!   0 when there is neither).
//! - Section 4.3 (Reno-friendly region): `W_est` starts at `cwnd_epoch` and
//!   grows `alpha_cubic * segments_acked / cwnd` per ACK with
//!   `alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic)`, and 1 once
//!   `W_est >= cwnd_prior` (the window before the last reduction); when
//!   `W_cubic(t) < W_est`, cwnd is set to `W_est`. Key `reno_friendly`.
//! - Section 4.6 (multiplicative decrease, Figure 5):
//!   `ssthresh = flight_size * beta_cubic`, `cwnd_prior = cwnd`, `cwnd = max(ssthresh, 2)` on a loss
//!   and `max(ssthresh, 1)` on ECN-Echo, then `ssthresh = max(ssthresh, 2)`
//!   (segments); the epoch ends, and the next congestion-avoidance ACK starts
//!   a new one. INFERRED: flight_size is taken as `min(FlightSize, cwnd)`.
//!   RFC 9438 names FlightSize (`snd_max - snd_una`; Linux and Windows use
//!   cwnd), but during a long NewReno recovery each duplicate ACK releases
//!   new data while `snd_una` stays at the hole, so at a timeout in recovery
//!   FlightSize can be several windows (measured: ~3x on a 100 Mb/s, 40 ms
//!   path after the slow-start overshoot) and `beta * FlightSize` restarts
//!   slow start far above the path's capacity, timeout after timeout. The
//!   minimum keeps FlightSize's meaning for an application-limited sender.
//!   Key `flight_cap` (default true); `false` is RFC 9438's text as written.
//! - Section 4.7 (fast convergence, key `fast_convergence`): on a congestion
//!   event with `cwnd < W_max`, `W_max = cwnd (1 + beta_cubic) / 2`, else
//!   `W_max = cwnd`.
//! - Section 4.8 (timeout): ssthresh as in section 4.6, cwnd = 1 SMSS (RFC
//!   5681); in the first congestion-avoidance stage after it, `K = 0` and
//!   `W_max` = `W_est` = the window at the start of that stage.
//! - Section 4.9 / RFC 5681: slow start while `cwnd < ssthresh`, here with
//!   RFC 3465 ABC (L = 2 SMSS) as NewReno (HyStart++ is not implemented).
//! - RFC 3168 section 6.1.2 (RFC 9438 section 4.6 lists ECN-Echo as a
//!   congestion event): ECN-Echo is handled as a loss, at most once per window
//!   (transport); no ACK carrying ECE grows cwnd or W_est.
//!
//! INFERRED: the epoch (t = 0) starts at the first congestion-avoidance ACK
//! after the reduction, not at the congestion event itself: RFC 9438's
//! `t_epoch` is the start of the congestion-avoidance stage, and the transport
//! holds the window during fast recovery (as Linux `bictcp_update`, which
//! starts the epoch on the first ACK it sees after the loss).
//! INFERRED: when a congestion-avoidance stage starts above W_max (no
//! congestion event yet, e.g. leaving slow start at `initial_ssthresh`), K = 0
//! and W_max is the window at its start (section 4.8's rule; Linux's
//! `bic_origin_point = cwnd`), since Figure 2 would give a negative K.
//! INFERRED: in the Reno-friendly region cwnd becomes `max(cwnd, W_est)`, so
//! an ACK never shrinks the window.
//! INFERRED: congestion avoidance, like slow start, counts at most L = 2 SMSS
//! of an ACK (RFC 3465 section 2.3's reason for L: the large cumulative ACKs
//! after a retransmission timeout). Ordinary and delayed ACKs are unaffected;
//! without the cap, the ACKs that cover a NewReno recovery's worth of data
//! after a timeout (thousands of segments at 100 Mb/s) grew an aggressive
//! increase rule by hundreds of segments at once, far past the path.
//! INFERRED: growth is byte-counted: an ACK of N new bytes counts N / SMSS
//! segments (RFC 9438's `segments_acked`).
//! Seed 002 ran ns-2 TCP-Linux 2.6.16.3's CUBIC; that era's `tcp_cubic.c`
//! has `beta = 819` (/1024, ~0.8), `initial_ssthresh = 100` segments,
//! `max_increment = 16` and its own Reno-friendliness estimate, so RFC 9438
//! with `beta = 0.8, initial_ssthresh = 100` approximates it, not more.
//! Units: cwnd and ssthresh are bytes (cwnd an `f64`); W_max, W_est and
//! cwnd_prior are segments; C is segments / s^3.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, ParamError, SimTime};

use super::reno_start;

/// RFC 3465 section 2.2: an ACK counts at most `L = 2` segments (slow start,
/// and here congestion avoidance too: see the module docs).
const ABC_LIMIT_SEGMENTS: u64 = 2;

/// RFC 9438 section 4.2: the target is at most 1.5 cwnd.
const MAX_TARGET_RATIO: f64 = 1.5;

/// Parameters of CUBIC (`cc = { kind = "cubic" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CubicConfig {
    /// C, the cubic's scaling constant, segments / s^3 (> 0). Default 0.4
    /// (RFC 9438 section 4.1).
    pub c: f64,
    /// beta_cubic, the window kept after a congestion event (0 < beta < 1).
    /// Default 0.7 (RFC 9438 section 4.1).
    pub beta: f64,
    /// Fast convergence (RFC 9438 section 4.7). Default true.
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 section 4.3). Default true.
    pub reno_friendly: bool,
    /// Take the flight size of the decrease as `min(FlightSize, cwnd)`
    /// (default true, as Linux and Windows use cwnd); `false` uses FlightSize
    /// as RFC 9438 section 4.6 writes it (see the module docs).
    pub flight_cap: bool,
    /// Initial window, segments (>= 1). Default: RFC 5681's rule by MSS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial slow-start threshold, segments (>= 1). Default: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            flight_cap: true,
            initial_window: None,
            initial_ssthresh: None,
        }
    }
}

impl CubicConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(ParamError::new("c", format!("{} must be > 0", self.c)));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(ParamError::new(
                "beta",
                format!("{} must be in (0, 1)", self.beta),
            ));
        }
        reno_start(self.initial_window, self.initial_ssthresh).validate()
    }

    /// RFC 9438 Figure 2: K, seconds, for a window of `w_max` segments and an
    /// epoch starting at `cwnd_epoch` segments (0 if `cwnd_epoch >= w_max`).
    pub fn k(&self, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch).max(0.0) / self.c).cbrt()
    }

    /// RFC 9438 Figure 1: W_cubic(t), segments, `t` seconds into an epoch.
    pub fn w_cubic(&self, t: f64, k: f64, w_max: f64) -> f64 {
        self.c * (t - k).powi(3) + w_max
    }

    /// RFC 9438 section 4.3: alpha_cubic, `3 (1 - beta) / (1 + beta)`.
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// The current congestion-avoidance stage.
#[derive(Copy, Clone, Debug)]
struct Epoch {
    /// t_epoch.
    start: SimTime,
    /// K, seconds.
    k: f64,
    /// The W_max of Figure 1 for this epoch, segments.
    w_max: f64,
}

/// CUBIC's state.
#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    mss: u64,
    /// Congestion window, bytes.
    cwnd: f64,
    /// Slow-start threshold, bytes (`u64::MAX`: unlimited).
    ssthresh: u64,
    /// W_max, segments (0: no congestion event yet).
    w_max: f64,
    /// cwnd_prior, segments: the window before the last reduction (0: none).
    cwnd_prior: f64,
    /// W_est, segments.
    w_est: f64,
    /// The current epoch; `None` until the next congestion-avoidance ACK.
    epoch: Option<Epoch>,
    /// The next epoch is the first after a timeout (RFC 9438 section 4.8).
    after_timeout: bool,
}

impl Cubic {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &CubicConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        if mss == 0 {
            return Err(ParamError::new("mss", "must be >= 1 byte"));
        }
        let start = reno_start(cfg.initial_window, cfg.initial_ssthresh);
        let iw = u64::from(start.initial_window_segments(mss));
        let mss = u64::from(mss);
        Ok(Cubic {
            cfg: cfg.clone(),
            mss,
            cwnd: (iw * mss) as f64,
            ssthresh: cfg
                .initial_ssthresh
                .map_or(u64::MAX, |s| u64::from(s) * mss),
            w_max: 0.0,
            cwnd_prior: 0.0,
            w_est: 0.0,
            epoch: None,
            after_timeout: false,
        })
    }

    /// True while in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh as f64
    }

    /// W_max, segments (0: none yet).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// W_est, segments.
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    /// K of the current epoch, seconds, if one has started.
    pub fn k(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }

    /// The window in segments.
    fn segments(&self) -> f64 {
        self.cwnd / self.mss as f64
    }

    /// Start a congestion-avoidance stage at `now` (RFC 9438 sections 4.2,
    /// 4.3 and 4.8).
    fn start_epoch(&mut self, now: SimTime) -> Epoch {
        let w = self.segments();
        if self.after_timeout || self.w_max <= w {
            self.w_max = w;
        }
        self.after_timeout = false;
        self.w_est = w;
        let e = Epoch {
            start: now,
            k: self.cfg.k(self.w_max, w),
            w_max: self.w_max,
        };
        self.epoch = Some(e);
        e
    }

    /// Section 4.6 with 4.7: update W_max and cwnd_prior, end the epoch, set
    /// ssthresh from the flight and return `flight_size * beta_cubic`, bytes
    /// (flight_size at most cwnd: see the module docs).
    fn reduce(&mut self, in_flight: u64) -> u64 {
        let in_flight = if self.cfg.flight_cap {
            in_flight.min(self.cwnd as u64)
        } else {
            in_flight
        };
        let w = self.segments();
        self.w_max = if self.cfg.fast_convergence && w < self.w_max {
            w * (1.0 + self.cfg.beta) / 2.0
        } else {
            w
        };
        self.cwnd_prior = w;
        self.epoch = None;
        let reduced = (in_flight as f64 * self.cfg.beta) as u64;
        self.ssthresh = reduced.max(2 * self.mss);
        reduced
    }
}

impl Controller for Cubic {
    fn on_ack(&mut self, ack: &AckInfo) {
        if ack.in_recovery || ack.acked == 0 || ack.ece {
            return;
        }
        let counted = ack.acked.min(ABC_LIMIT_SEGMENTS * self.mss) as f64;
        if self.in_slow_start() {
            self.cwnd += counted;
            return;
        }
        let epoch = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(ack.now),
        };
        let w = self.segments();
        let acked_segments = counted / self.mss as f64;
        let t = ack.now.saturating_since(epoch.start).as_secs_f64();
        let rtt = ack.srtt.or(ack.rtt).map_or(0.0, |d| d.as_secs_f64());

        // Section 4.3: Reno-friendly estimate.
        if self.cfg.reno_friendly {
            let alpha = if self.w_est >= self.cwnd_prior {
                1.0
            } else {
                self.cfg.alpha()
            };
            self.w_est += alpha * acked_segments / w;
            if self.cfg.w_cubic(t, epoch.k, epoch.w_max) < self.w_est {
                self.cwnd = self.cwnd.max(self.w_est * self.mss as f64);
                return;
            }
        }
        // Sections 4.2, 4.4, 4.5: move toward W_cubic(t + RTT).
        let target = self
            .cfg
            .w_cubic(t + rtt, epoch.k, epoch.w_max)
            .clamp(w, MAX_TARGET_RATIO * w);
        self.cwnd += (target - w) / w * counted;
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        match ev {
            Congestion::Loss { in_flight } => {
                self.reduce(in_flight);
                self.cwnd = self.ssthresh as f64;
            }
            Congestion::Ecn { in_flight } => {
                // Figure 5: an ECE reduction may leave cwnd at 1 SMSS.
                self.cwnd = self.reduce(in_flight).max(self.mss) as f64;
            }
            Congestion::Timeout { in_flight } => {
                self.reduce(in_flight);
                self.cwnd = self.mss as f64;
                self.after_timeout = true;
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.cwnd = self.ssthresh as f64;
    }

    #[inline]
    fn window(&self) -> u64 {
        self.cwnd as u64
    }

    fn ssthresh(&self) -> Option<u64> {
        Some(self.ssthresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcConfig;
    use sim_core::SimDuration;

    const MSS: u32 = 1000;

    fn cubic(cfg: CubicConfig, iw: u32) -> Cubic {
        let cfg = CubicConfig {
            initial_window: Some(iw),
            initial_ssthresh: Some(1),
            ..cfg
        };
        Cubic::new(&cfg, MSS).unwrap()
    }

    fn ack_at(now: SimTime, rtt: SimDuration) -> AckInfo {
        AckInfo {
            now,
            ..AckInfo::segment(MSS, rtt)
        }
    }

    /// One-segment ACKs, a window of them per `rtt`, from `from` until `until`;
    /// returns the time after the last.
    fn drive(c: &mut Cubic, from: SimTime, until: SimTime, rtt: SimDuration) -> SimTime {
        let mut now = from;
        while now < until {
            c.on_ack(&ack_at(now, rtt));
            let gap = rtt.as_secs_f64() / c.segments().max(1.0);
            now += SimDuration::from_secs_f64(gap);
        }
        now
    }

    fn loss_at(c: &mut Cubic) {
        let flight = c.window();
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: flight });
        c.on_recovery_exit(SimTime::ZERO);
    }

    #[test]
    fn k_and_w_cubic_follow_rfc_9438_figures_1_and_2() {
        let c = CubicConfig::default();
        // K = cbrt(W_max (1 - beta) / C) = cbrt(100 * 0.3 / 0.4) = cbrt(75).
        let k = c.k(100.0, 70.0);
        assert!((k - 75f64.cbrt()).abs() < 1e-12);
        assert!((k - 4.217_163_326_508_746).abs() < 1e-9);
        // W_cubic(0) = cwnd_epoch, W_cubic(K) = W_max, symmetric around K.
        assert!((c.w_cubic(0.0, k, 100.0) - 70.0).abs() < 1e-9);
        assert_eq!(c.w_cubic(k, k, 100.0), 100.0);
        assert!((c.w_cubic(k + 2.0, k, 100.0) - 103.2).abs() < 1e-9);
        assert!((c.w_cubic(k - 2.0, k, 100.0) - 96.8).abs() < 1e-9);
        // alpha_cubic = 3 (1 - 0.7) / 1.7.
        assert!((c.alpha() - 0.9 / 1.7).abs() < 1e-15);
    }

    #[test]
    fn a_loss_sets_cwnd_to_beta_w_max() {
        let mut c = cubic(CubicConfig::default(), 100);
        loss_at(&mut c);
        assert_eq!(c.w_max(), 100.0);
        assert_eq!(c.window(), 70_000);
        assert_eq!(c.ssthresh(), Some(70_000));
        // ECN-Echo is the same congestion event.
        let mut c = cubic(CubicConfig::default(), 100);
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 100_000 });
        assert_eq!(c.window(), 70_000);
    }

    #[test]
    fn the_floors_are_two_segments_after_a_loss_and_one_after_an_echo() {
        let mut c = cubic(CubicConfig::default(), 10);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 1000 });
        assert_eq!((c.window(), c.ssthresh()), (2000, Some(2000)));
        let mut c = cubic(CubicConfig::default(), 10);
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 1000 });
        assert_eq!((c.window(), c.ssthresh()), (1000, Some(2000)));
    }

    #[test]
    fn one_ack_adds_at_most_half_a_segment_per_acked_segment() {
        // RFC 9438 section 4.2: the target is at most 1.5 cwnd.
        let cfg = CubicConfig {
            reno_friendly: false,
            ..Default::default()
        };
        let mut c = cubic(cfg, 100);
        loss_at(&mut c);
        let rtt = SimDuration::from_millis(100);
        c.on_ack(&ack_at(SimTime::from_secs_f64(1.0), rtt));
        let w = c.segments();
        c.on_ack(&ack_at(SimTime::from_secs_f64(100.0), rtt));
        assert!((c.segments() - (w + 0.5)).abs() < 1e-9);
    }

    #[test]
    fn fast_convergence_lowers_w_max_on_a_loss_below_it() {
        let mut c = cubic(CubicConfig::default(), 100);
        loss_at(&mut c);
        loss_at(&mut c);
        // RFC 9438 section 4.7: W_max = 70 (1 + 0.7) / 2 = 59.5; cwnd = 49.
        assert!((c.w_max() - 59.5).abs() < 1e-9);
        assert_eq!(c.window(), 49_000);
        let cfg = CubicConfig {
            fast_convergence: false,
            ..Default::default()
        };
        let mut c = cubic(cfg, 100);
        loss_at(&mut c);
        loss_at(&mut c);
        assert_eq!(c.w_max(), 70.0);
    }

    #[test]
    fn the_window_returns_to_w_max_at_t_equal_k() {
        let cfg = CubicConfig {
            reno_friendly: false,
            ..Default::default()
        };
        let mut c = cubic(cfg, 100);
        loss_at(&mut c);
        let rtt = SimDuration::from_millis(100);
        let t0 = SimTime::from_secs_f64(1.0);
        // The first congestion-avoidance ACK starts the epoch at t0.
        let k = 75f64.cbrt();
        let mid = drive(&mut c, t0, t0 + SimDuration::from_secs_f64(k / 2.0), rtt);
        assert!((c.k().unwrap() - k).abs() < 1e-12);
        // Concave: below W_max half-way, above W_cubic(t) (the target leads
        // by one RTT).
        let w_half = c.segments();
        assert!(w_half > 70.0 && w_half < 100.0, "{w_half}");
        drive(&mut c, mid, t0 + SimDuration::from_secs_f64(k), rtt);
        let w = c.segments();
        assert!((w / 100.0 - 1.0).abs() < 0.01, "cwnd {w} at t = K");
        // Convex beyond: it keeps growing past W_max.
        drive(
            &mut c,
            t0 + SimDuration::from_secs_f64(k),
            t0 + SimDuration::from_secs_f64(k + 3.0),
            rtt,
        );
        let expect = CubicConfig::default().w_cubic(k + 3.0, k, 100.0);
        assert!(c.segments() > 100.0 && (c.segments() / expect - 1.0).abs() < 0.03);
    }

    #[test]
    fn the_reno_friendly_region_dominates_at_small_bdp() {
        // W_max = 20 segments, RTT 10 ms: K = cbrt(15) = 2.47 s is 247 round
        // trips, over which Reno's estimate grows ~0.53 segment per RTT.
        let rtt = SimDuration::from_millis(10);
        let t0 = SimTime::from_secs_f64(1.0);
        let until = t0 + SimDuration::from_millis(500);
        let mut c = cubic(CubicConfig::default(), 20);
        loss_at(&mut c);
        drive(&mut c, t0, until, rtt);
        let k = c.k().unwrap();
        let w_cubic = CubicConfig::default().w_cubic(0.5, k, 20.0);
        assert!((c.segments() - c.w_est()).abs() < 1e-9);
        assert!(
            c.segments() > w_cubic + 5.0,
            "{} vs {w_cubic}",
            c.segments()
        );
        // 50 RTTs: alpha = 0.53 segment per RTT from 14 to cwnd_prior = 20
        // (6 / alpha RTTs), then 1 per RTT: 20 + 50 - 6 / alpha = 58.7.
        let expect = 20.0 + 50.0 - 6.0 / CubicConfig::default().alpha();
        assert!(
            (c.segments() - expect).abs() < 0.5,
            "{} vs {expect}",
            c.segments()
        );
        // Without the region the window follows the cubic, W_cubic(t + RTT),
        // far below (17 segments).
        let cfg = CubicConfig {
            reno_friendly: false,
            ..Default::default()
        };
        let mut d = cubic(cfg, 20);
        loss_at(&mut d);
        drive(&mut d, t0, until, rtt);
        let w_ahead = CubicConfig::default().w_cubic(0.51, k, 20.0);
        assert!(
            (d.segments() - w_ahead).abs() < 0.1,
            "{} vs {w_ahead}",
            d.segments()
        );
        assert!(d.segments() + 30.0 < c.segments());
    }

    #[test]
    fn timeout_sets_ssthresh_by_beta_and_restarts_with_k_zero() {
        let mut c = cubic(CubicConfig::default(), 100);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 100_000 });
        assert_eq!(c.ssthresh(), Some(70_000));
        assert_eq!(c.window(), 1000);
        assert!(c.in_slow_start());
        c.cwnd = 70_000.0;
        c.on_ack(&ack_at(
            SimTime::from_secs_f64(1.0),
            SimDuration::from_millis(100),
        ));
        assert_eq!(c.k(), Some(0.0));
        assert!((c.w_max() - 70.0).abs() < 1e-9);
    }

    #[test]
    fn the_flight_counts_at_most_cwnd() {
        // A timeout at the end of a long recovery: snd_max - snd_una is three
        // windows, the reduction still starts from the window.
        let mut c = cubic(CubicConfig::default(), 100);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 100_000 });
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 300_000 });
        assert_eq!(c.ssthresh(), Some(49_000));
        // An application-limited flight below cwnd is used as it is.
        let mut c = cubic(CubicConfig::default(), 100);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 50_000 });
        assert_eq!(c.ssthresh(), Some(35_000));
        // RFC 9438's text as written: the whole FlightSize.
        let literal = CubicConfig {
            flight_cap: false,
            ..CubicConfig::default()
        };
        let mut c = cubic(literal, 100);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 100_000 });
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 300_000 });
        assert_eq!(c.ssthresh(), Some(210_000));
    }

    #[test]
    fn no_growth_on_ecn_echo_or_in_recovery() {
        let mut c = cubic(CubicConfig::default(), 100);
        loss_at(&mut c);
        let rtt = SimDuration::from_millis(100);
        for (ece, in_recovery) in [(true, false), (false, true)] {
            c.on_ack(&AckInfo {
                ece,
                in_recovery,
                ..ack_at(SimTime::from_secs_f64(2.0), rtt)
            });
        }
        assert_eq!(c.window(), 70_000);
        assert!(c.k().is_none());
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig =
            toml::from_str("kind = \"cubic\"\nbeta = 0.8\nfast_convergence = false").unwrap();
        assert_eq!(c.name(), "cubic");
        assert_eq!(
            c,
            CcConfig::Cubic(CubicConfig {
                beta: 0.8,
                fast_convergence: false,
                ..Default::default()
            })
        );
        assert_eq!(c.build(1500).unwrap().window(), 4500);
        let key = |t: &str| {
            toml::from_str::<CcConfig>(t)
                .unwrap()
                .validate()
                .unwrap_err()
                .key
        };
        assert_eq!(key("kind = \"cubic\"\nbeta = 1.5"), "beta");
        assert_eq!(key("kind = \"cubic\"\nc = 0.0"), "c");
        assert_eq!(
            key("kind = \"cubic\"\ninitial_ssthresh = 0"),
            "initial_ssthresh"
        );
        assert!(toml::from_str::<CcConfig>("kind = \"cubic\"\nhystart = true").is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// RFC 9438 section 4.2: after a loss from W_max the window follows
        /// W_cubic(t) = C (t - K)^3 + W_max, K = cbrt(W_max (1 - beta) / C),
        /// for any W_max, beta and C: from beta W_max at t = 0 through W_max
        /// at t = K and beyond. The transport's window tracks the target
        /// W_cubic(t + RTT) one RTT ahead, ACK by ACK, so it sits between
        /// W_cubic(t) and W_cubic(t + RTT): checked at five instants with
        /// one segment of slack for the per-ACK rounding.
        #[test]
        fn the_window_follows_the_cubic_through_w_max_at_k(
            w_max in 20u32..3000,
            beta in 0.5f64..0.9,
            c in 0.1f64..1.0,
            rtt_ms in 10u64..200,
        ) {
            let cfg = CubicConfig {
                c,
                beta,
                reno_friendly: false,
                fast_convergence: false,
                ..Default::default()
            };
            let mut cc = cubic(cfg.clone(), w_max);
            loss_at(&mut cc);
            let w0 = cc.segments();
            proptest::prop_assert!((w0 - (beta * f64::from(w_max)).max(2.0)).abs() <= 1.0);
            let rtt = SimDuration::from_millis(rtt_ms);
            let t0 = SimTime::from_secs_f64(1.0);
            let wm = f64::from(w_max);
            let k = cfg.k(wm, w0);
            let r = rtt.as_secs_f64();
            let mut now = t0;
            for frac in [0.25, 0.5, 1.0, 1.25, 1.5] {
                let t = k * frac;
                now = drive(&mut cc, now, t0 + SimDuration::from_secs_f64(t), rtt);
                let w = cc.segments();
                let lo = cfg.w_cubic(t - r, k, wm).min(cfg.w_cubic(t, k, wm));
                let hi = cfg.w_cubic(t + r, k, wm);
                proptest::prop_assert!(
                    w >= lo - 1.0 && w <= hi + 1.0,
                    "t = {t:.3} s (K = {k:.3}): cwnd {w:.2} outside [{lo:.2}, {hi:.2}]"
                );
            }
        }
    }
}
