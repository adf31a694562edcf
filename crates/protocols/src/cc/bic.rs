//! BIC TCP: binary search increase toward the window of the last loss, max
//! probing beyond it.
//!
//! Provenance:
//! - L. Xu, K. Harfoush, I. Rhee, "Binary Increase Congestion Control (BIC) for
//!   Fast Long-Distance Networks", IEEE INFOCOM 2004, section 3 (algorithm):
//!   after a loss the window is cut by a multiplicative factor and the search
//!   interval is [W_min, W_max], W_max the window at the loss; each RTT the
//!   window moves to the midpoint, by at most S_max (additive increase) and at
//!   least S_min; beyond W_max "max probing" grows slowly first, then
//!   exponentially, then by S_max; fast convergence: a loss below the previous
//!   W_max lowers W_max further, so a flow that is losing share releases it.
//! - The constants and arithmetic are Linux `tcp_bic.c`'s (the seed's ns-2
//!   TCP-Linux 2.6.16.3 module): `BICTCP_B = 4` (the step is a quarter of the
//!   distance to W_max, key `search_divisor`), `max_increment = 16` (S_max,
//!   segments per RTT), `smooth_part = 20` (S_min = B / smooth_part = 0.2
//!   segments per RTT, near W_max), `low_window = 14` (Reno at or below it),
//!   `beta = 819/1024` (~0.8, key `beta`, default 0.8), `fast_convergence = 1`
//!   (W_max = cwnd (1 + beta) / 2 on a loss below the previous W_max). Per RTT,
//!   with d = (W_max - cwnd) / B, the increase is: below W_max, S_max if
//!   d > S_max, S_min if d <= 1, else d; from W_max to W_max + B, S_min; up to
//!   W_max + S_max (B - 1), (cwnd - W_max) / (B - 1); then S_max. While no
//!   loss has set W_max (start, or after a timeout) the increase is at least
//!   cwnd / 20 per RTT ("increase cwnd 5% per RTT").
//! - Slow start as NewReno: RFC 5681 section 3.1 with RFC 3465 ABC, L = 2 SMSS.
//! - RFC 3168 section 6.1.2: ECN-Echo is treated as a loss (Linux: the same
//!   `ssthresh` on CWR), at most once per window (transport); no ACK carrying
//!   ECE grows cwnd.
//!
//! Decrease (Linux `bictcp_recalc_ssthresh`): `cwnd * beta` above low_window,
//! `cwnd / 2` at or below it, at least 2 SMSS; loss and ECN set cwnd to it.
//! Timeout: ssthresh from the same decrease, cwnd = 1 SMSS, and the search
//! state is reset (W_max = 0), as Linux's `bictcp_state` on entering Loss.
//! INFERRED: the per-RTT increase is applied per ACK as `inc SMSS N / cwnd` for
//! N new bytes with the window in (fractional) segments, where Linux counts
//! whole segments in `snd_cwnd_cnt` against `cnt = cwnd / inc` (its delayed-ACK
//! compensation is then implicit). The defaults are Linux's, not the paper's
//! simulation settings (recalled, not re-checked against its text, as
//! S_max = 32, S_min = 0.01, a 0.125 decrease; Linux 2.6.14 lowered
//! `max_increment` from 32 to 16 as too aggressive). The low-utilisation
//! detection some 2.6.1x versions of `tcp_bic.c` carried
//! (`low_utilization_threshold`) is not implemented.
//! INFERRED: congestion avoidance, like slow start, counts at most L = 2 SMSS
//! of an ACK (RFC 3465 section 2.3's reason for L: the large cumulative ACKs
//! after a retransmission timeout). Ordinary and delayed ACKs are unaffected;
//! without the cap, the ACKs that cover a NewReno recovery's worth of data
//! after a timeout (thousands of segments at 100 Mb/s) grew an aggressive
//! increase rule by hundreds of segments at once, far past the path.
//! Units: cwnd and ssthresh are bytes (cwnd an `f64`); windows and increments
//! in the keys are segments.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, ParamError, SimTime};

use super::loss_window::LossWindow;
use super::reno_start;

/// Linux tcp_bic: with no W_max yet, `cnt` is capped at 20 (5 % per RTT).
const NO_MAX_MIN_GROWTH: f64 = 1.0 / 20.0;

/// Parameters of BIC (`cc = { kind = "bic" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BicConfig {
    /// Window kept after a loss, as a fraction of cwnd (0 < beta < 1).
    /// Default 0.8 (Linux `beta = 819` / 1024).
    pub beta: f64,
    /// S_max, the largest increase per RTT, segments (> 0). Default 16
    /// (Linux `max_increment`).
    pub max_increment: f64,
    /// Binary-search divisor B: each RTT moves 1/B of the way to W_max
    /// (> 1). Default 4 (Linux `BICTCP_B`).
    pub search_divisor: f64,
    /// S_min = search_divisor / smooth_part segments per RTT near W_max (> 0).
    /// Default 20 (Linux `smooth_part`).
    pub smooth_part: f64,
    /// Reno at or below this window, segments. Default 14 (Linux `low_window`).
    pub low_window: u32,
    /// Fast convergence (W_max = cwnd (1 + beta) / 2 on a loss below the
    /// previous W_max). Default true (Linux `fast_convergence = 1`).
    pub fast_convergence: bool,
    /// Initial window, segments (>= 1). Default: RFC 5681's rule by MSS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial slow-start threshold, segments (>= 1). Default: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
}

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig {
            beta: 0.8,
            max_increment: 16.0,
            search_divisor: 4.0,
            smooth_part: 20.0,
            low_window: 14,
            fast_convergence: true,
            initial_window: None,
            initial_ssthresh: None,
        }
    }
}

impl BicConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(ParamError::new(
                "beta",
                format!("{} must be in (0, 1)", self.beta),
            ));
        }
        if !(self.max_increment.is_finite() && self.max_increment > 0.0) {
            return Err(ParamError::new(
                "max_increment",
                format!("{} must be > 0", self.max_increment),
            ));
        }
        if !(self.search_divisor.is_finite() && self.search_divisor > 1.0) {
            return Err(ParamError::new(
                "search_divisor",
                format!("{} must be > 1", self.search_divisor),
            ));
        }
        if !(self.smooth_part.is_finite() && self.smooth_part > 0.0) {
            return Err(ParamError::new(
                "smooth_part",
                format!("{} must be > 0", self.smooth_part),
            ));
        }
        reno_start(self.initial_window, self.initial_ssthresh).validate()
    }

    /// S_min, segments per RTT.
    pub fn s_min(&self) -> f64 {
        self.search_divisor / self.smooth_part
    }

    /// Linux `bictcp_update`: the increase per RTT, segments, at a window of
    /// `w` segments with the last maximum `w_max` (0: none yet).
    pub fn increase_per_rtt(&self, w: f64, w_max: f64) -> f64 {
        if w <= f64::from(self.low_window) {
            return 1.0;
        }
        let (b, s_max, s_min) = (self.search_divisor, self.max_increment, self.s_min());
        let inc = if w < w_max {
            let dist = (w_max - w) / b;
            if dist > s_max {
                s_max
            } else if dist <= 1.0 {
                s_min
            } else {
                dist
            }
        } else if w < w_max + b {
            s_min
        } else if w < w_max + s_max * (b - 1.0) {
            (w - w_max) / (b - 1.0)
        } else {
            s_max
        };
        if w_max == 0.0 {
            inc.max(w * NO_MAX_MIN_GROWTH)
        } else {
            inc
        }
    }
}

/// BIC's state.
#[derive(Clone, Debug)]
pub struct Bic {
    cfg: BicConfig,
    /// Window, threshold and slow start (shared with the other loss-based
    /// controllers).
    w: LossWindow,
    /// W_max, the window of the last loss (after fast convergence), segments;
    /// 0 before the first loss and after a timeout.
    w_max: f64,
}

impl Bic {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &BicConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        let w = LossWindow::new(cfg.initial_window, cfg.initial_ssthresh, mss)?;
        Ok(Bic {
            cfg: cfg.clone(),
            w,
            w_max: 0.0,
        })
    }

    /// True while in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.w.in_slow_start()
    }

    /// W_max, segments (0: none).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// Linux `bictcp_recalc_ssthresh`: update W_max (fast convergence) and
    /// return the new threshold, bytes.
    fn decrease(&mut self) -> u64 {
        let w = self.w.segments();
        self.w_max = if self.cfg.fast_convergence && w < self.w_max {
            w * (1.0 + self.cfg.beta) / 2.0
        } else {
            w
        };
        let factor = if w <= f64::from(self.cfg.low_window) {
            0.5
        } else {
            self.cfg.beta
        };
        ((self.w.cwnd * factor) as u64).max(2 * self.w.mss)
    }
}

impl Controller for Bic {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo) {
        let Some(counted) = self.w.counted(ack) else {
            return;
        };
        if !self.w.slow_start(counted) {
            let inc = self.cfg.increase_per_rtt(self.w.segments(), self.w_max);
            self.w.cwnd += inc * self.w.mss as f64 * counted / self.w.cwnd;
        }
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        let ssthresh = self.decrease();
        self.w.cut(ssthresh, ev);
        if matches!(ev, Congestion::Timeout { .. }) {
            self.w_max = 0.0;
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.w.recovery_exit();
    }

    #[inline]
    fn window(&self) -> u64 {
        self.w.cwnd as u64
    }

    fn ssthresh(&self) -> Option<u64> {
        Some(self.w.ssthresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcConfig;
    use sim_core::SimDuration;

    const MSS: u32 = 1000;

    fn ack(ece: bool, in_recovery: bool) -> AckInfo {
        AckInfo {
            ece,
            in_recovery,
            ..AckInfo::segment(MSS, SimDuration::from_millis(100))
        }
    }

    fn bic(iw: u32) -> Bic {
        let cfg = BicConfig {
            initial_window: Some(iw),
            initial_ssthresh: Some(1),
            ..Default::default()
        };
        Bic::new(&cfg, MSS).unwrap()
    }

    /// One window's worth of one-segment ACKs (one RTT).
    fn one_rtt(c: &mut Bic) {
        for _ in 0..c.w.segments() as u64 {
            c.on_ack(&ack(false, false));
        }
    }

    #[test]
    fn the_increase_per_rtt_follows_linux_bictcp_update() {
        let c = BicConfig::default();
        // Far below W_max: additive increase by S_max = 16.
        assert_eq!(c.increase_per_rtt(100.0, 1000.0), 16.0);
        // Binary search: a quarter of the distance.
        assert_eq!(c.increase_per_rtt(960.0, 1000.0), 10.0);
        // Within B of W_max, and just above it: S_min = 4 / 20.
        assert!((c.increase_per_rtt(998.0, 1000.0) - 0.2).abs() < 1e-12);
        assert!((c.increase_per_rtt(1002.0, 1000.0) - 0.2).abs() < 1e-12);
        // Max probing: (w - W_max) / (B - 1), then S_max past W_max + 48.
        assert!((c.increase_per_rtt(1030.0, 1000.0) - 10.0).abs() < 1e-12);
        assert_eq!(c.increase_per_rtt(1048.0, 1000.0), 16.0);
        // Reno at or below low_window; 5 % per RTT at least with no W_max.
        assert_eq!(c.increase_per_rtt(14.0, 1000.0), 1.0);
        assert_eq!(c.increase_per_rtt(1000.0, 0.0), 50.0);
    }

    #[test]
    fn binary_search_approaches_w_max_and_slows_down_near_it() {
        let mut c = bic(100);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 0 });
        assert_eq!(c.window(), 80_000);
        assert_eq!(c.w_max(), 100.0);
        let mut last = c.w.segments();
        let mut steps = Vec::new();
        for _ in 0..12 {
            one_rtt(&mut c);
            steps.push(c.w.segments() - last);
            last = c.w.segments();
        }
        // Steps shrink toward W_max (a quarter of the distance per RTT, a
        // little less as the distance shrinks within the RTT); within B = 4
        // segments of it the window creeps by S_min = 0.2 per RTT (Linux's
        // smoothing plateau around W_max).
        assert!(steps[0] > 4.0 && steps[0] < 5.0, "{steps:?}");
        assert!(steps.windows(2).all(|s| s[1] <= s[0]), "{steps:?}");
        assert!((steps[11] - 0.2).abs() < 0.01, "{steps:?}");
        assert!(
            c.w.segments() > 96.0 && c.w.segments() < 100.0,
            "{}",
            c.w.segments()
        );
    }

    #[test]
    fn loss_cuts_to_beta_and_fast_convergence_lowers_w_max() {
        for ev in [
            Congestion::Loss { in_flight: 0 },
            Congestion::Ecn { in_flight: 0 },
        ] {
            let mut c = bic(100);
            c.on_congestion(SimTime::ZERO, ev);
            assert_eq!(c.window(), 80_000);
            assert_eq!(c.ssthresh(), Some(80_000));
            // A second loss below W_max = 100: W_max = 80 (1 + 0.8) / 2 = 72.
            c.on_congestion(SimTime::ZERO, ev);
            assert!((c.w_max() - 72.0).abs() < 1e-9);
            assert_eq!(c.window(), 64_000);
        }
        let mut c = Bic::new(
            &BicConfig {
                fast_convergence: false,
                initial_window: Some(100),
                ..Default::default()
            },
            MSS,
        )
        .unwrap();
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 0 });
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 0 });
        assert_eq!(c.w_max(), 80.0);
    }

    #[test]
    fn at_or_below_low_window_a_loss_halves() {
        let mut c = bic(14);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 0 });
        assert_eq!(c.window(), 7000);
    }

    #[test]
    fn timeout_sets_ssthresh_by_beta_resets_w_max_and_cwnd_to_one_segment() {
        let mut c = bic(100);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 0 });
        assert_eq!(c.ssthresh(), Some(80_000));
        assert_eq!(c.window(), 1000);
        assert_eq!(c.w_max(), 0.0);
    }

    #[test]
    fn a_stretch_ack_counts_at_most_two_segments() {
        // W_max = 0 (no loss yet): 5 % of the window per RTT, 50 segments at
        // 1000; an ACK of 500 segments counts 2 of them.
        let mut c = bic(1000);
        c.on_ack(&AckInfo {
            acked: 500_000,
            ..ack(false, false)
        });
        assert!((c.w.cwnd - (1_000_000.0 + 50.0 * 1000.0 * 2000.0 / 1_000_000.0)).abs() < 1e-6);
    }

    #[test]
    fn no_growth_on_ecn_echo_or_in_recovery() {
        let mut c = bic(100);
        c.on_ack(&ack(true, false));
        c.on_ack(&ack(false, true));
        assert_eq!(c.window(), 100_000);
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig = toml::from_str("kind = \"bic\"\nmax_increment = 32.0").unwrap();
        assert_eq!(c.name(), "bic");
        assert_eq!(
            c,
            CcConfig::Bic(BicConfig {
                max_increment: 32.0,
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
        assert_eq!(key("kind = \"bic\"\nbeta = 1.0"), "beta");
        assert_eq!(key("kind = \"bic\"\nmax_increment = 0.0"), "max_increment");
        assert_eq!(
            key("kind = \"bic\"\nsearch_divisor = 1.0"),
            "search_divisor"
        );
        assert_eq!(key("kind = \"bic\"\nsmooth_part = -1.0"), "smooth_part");
        assert!(toml::from_str::<CcConfig>("kind = \"bic\"\ns_max = 3.0").is_err());
    }
}
