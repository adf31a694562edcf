//! H-TCP: an AIMD window whose additive increase grows with the time since the
//! last congestion event, and whose backoff adapts to the path's queueing
//! delay.
//!
//! Provenance:
//! - R. N. Shorten, D. J. Leith, "H-TCP: TCP for high-speed and long-distance
//!   networks", PFLDnet 2004, and D. Leith, R. Shorten, Y. Lee, "H-TCP: A
//!   framework for congestion control in high-speed and long-distance
//!   networks", 2005; the IETF draft draft-leith-tcp-htcp-06 (2008); the Linux
//!   module `tcp_htcp.c` as the reference behaviour.
//! - Increase (the papers): in congestion avoidance the window grows by alpha
//!   segments per RTT, `alpha(Delta) = 1` for `Delta <= Delta_L` and
//!   `1 + 10 (Delta - Delta_L) + ((Delta - Delta_L) / 2)^2` beyond, Delta the
//!   time in seconds since the last congestion event, `Delta_L = 1 s` (key
//!   `delta_l`). Applied per ACK as `alpha SMSS N / cwnd` for N new bytes
//!   (byte-counted, as the other loss-based controllers here), with alpha
//!   evaluated at the ACK's time.
//! - Adaptive backoff (the papers; Linux `htcp_beta_update`): on a congestion
//!   event `beta = RTT_min / RTT_max` clamped to `[beta_min, beta_max] =
//!   [0.5, 0.8]`, and `ssthresh = cwnd = max(beta cwnd, 2 SMSS)`; the increase
//!   is then `2 (1 - beta) alpha(Delta)` so that, in the low-speed regime, the
//!   average throughput matches a standard (beta = 0.5, alpha = 1) TCP's.
//!   Key `adaptive_backoff` (default true); `false` keeps `beta = beta_min`.
//! - Throughput switch (the papers' adaptive-backoff condition on the change
//!   of the maximum throughput, Delta_B = 0.2, as recalled, not re-checked
//!   against their text; Linux `use_bandwidth_switch`, default on, so the key
//!   `use_bandwidth_switch` defaults to true): if the largest throughput
//!   measured between the last two congestion events differs from the one
//!   before by more than 20 % (key `bandwidth_switch_threshold`), beta =
//!   beta_min for this event, and (Linux's `modeswitch = 0`) for the next one
//!   too. The throughput measurement is Linux's `measure_achieved_throughput`:
//!   bytes acknowledged outside recovery over intervals of at least RTT_min
//!   and about a window (`count >= cwnd - alpha`), an EWMA
//!   `B = (3 B + sample) / 4` whose maximum since the last event is B_max; a
//!   sample within 3 RTT_min of a congestion event restarts B and B_max.
//! - RTT scaling (Linux `use_rtt_scaling`, default on; key `rtt_scaling`,
//!   default true): `alpha(Delta)` is multiplied by `RTT_min / RTT_ref`,
//!   RTT_ref = 100 ms (key `rtt_ref`, Linux `HZ / 10` and FreeBSD
//!   `HTCP_RTT_REF`), the ratio clamped to [0.1, 2] (Linux's and FreeBSD's
//!   clamp), so that the increase in packets per second does not depend on
//!   the RTT; the scaled value is floored at 1 (Linux `if (!factor) factor =
//!   1`), then multiplied by `2 (1 - beta)`. This is Linux's order and
//!   Linux's numbers; the papers motivate the RTT_min / RTT_ref scaling (an
//!   increase per second independent of the RTT), and the reference, clamp
//!   and floor here are Linux's (FreeBSD's draft-based `cc_htcp` has the
//!   same 100 ms and [0.1, 2]; it floors after the `2 (1 - beta)` factor).
//!   INFERRED: where the papers and Linux differ in such details, Linux's
//!   behaviour is taken, as the brief makes it the reference.
//! - RTT_min and RTT_max (Linux `measure_rtt`): RTT_min is the smallest RTT
//!   sample; RTT_max the largest sample outside recovery, raised only by
//!   samples at most 20 ms above it (Linux's filter against outliers); after
//!   each congestion event RTT_max fades toward RTT_min,
//!   `RTT_max = RTT_min + 0.95 (RTT_max - RTT_min)`. Linux only adapts beta
//!   when RTT_min > 10 ms (below that, beta = 0.5); so does this.
//! - Delta (Linux `htcp_state` / `htcp_reset`): restarts at the congestion
//!   event and again when recovery ends (Linux's `last_cong` is "time since
//!   last congestion event end"); after a timeout or ECN-Echo, which have no
//!   recovery exit here, it runs from the event.
//! - Slow start as NewReno: RFC 5681 section 3.1 with RFC 3465 ABC, L = 2 SMSS
//!   (`LossWindow`).
//! - RFC 3168 section 6.1.2: ECN-Echo is treated as a loss (the same beta
//!   backoff, Linux's CWR), at most once per window (transport); no ACK
//!   carrying ECE grows cwnd.
//! - Timeout: ssthresh from the same backoff, cwnd = 1 SMSS (RFC 5681).
//!
//! INFERRED: Delta is measured from the first ACK until the first congestion
//! event (Linux: from the connection's start, about one RTT earlier).
//! INFERRED: alpha is evaluated continuously from Delta at every ACK rather
//! than once per window increment as in Linux's `htcp_cong_avoid`; the
//! per-RTT increase is the papers' alpha(Delta) either way.
//! INFERRED: congestion avoidance, like slow start, counts at most L = 2 SMSS
//! of an ACK (as for the other loss-based controllers: the large cumulative
//! ACKs after a timeout).
//! Units: cwnd and ssthresh are bytes (cwnd an `f64`); alpha is segments per
//! RTT; times are seconds.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, ParamError, SimTime};

use super::loss_window::LossWindow;
use super::reno_start;

/// Linux `measure_rtt`: RTT_max is raised only by samples at most this far
/// (seconds) above it.
const MAX_RTT_JUMP: f64 = 0.020;
/// Linux `htcp_param_update`: after a congestion event RTT_max keeps this
/// share of its distance above RTT_min.
const MAX_RTT_FADE: f64 = 0.95;
/// Linux `htcp_beta_update`: beta adapts only when RTT_min exceeds this
/// (seconds).
const ADAPTIVE_MIN_RTT: f64 = 0.010;
/// Linux and FreeBSD: RTT_min / RTT_ref is clamped to this range.
const RTT_RATIO_RANGE: (f64, f64) = (0.1, 2.0);
/// Linux `measure_achieved_throughput`: a throughput sample within this many
/// RTT_min of a congestion event restarts the estimate.
const THROUGHPUT_RESTART_RTTS: f64 = 3.0;

/// Parameters of H-TCP (`cc = { kind = "htcp" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HtcpConfig {
    /// Delta_L, seconds (>= 0): for this long after a congestion event the
    /// increase is standard TCP's. Default 1 (Leith, Shorten 2004).
    pub delta_l: f64,
    /// Scale alpha(Delta) by RTT_min / `rtt_ref` (clamped to [0.1, 2]).
    /// Default true (Linux `use_rtt_scaling = 1`).
    pub rtt_scaling: bool,
    /// RTT_ref of the RTT scaling, seconds (> 0). Default 0.1 (Linux, and
    /// FreeBSD's `HTCP_RTT_REF`).
    pub rtt_ref: f64,
    /// Adaptive backoff: beta = RTT_min / RTT_max in [`beta_min`, `beta_max`].
    /// Default true (Leith, Shorten 2004; Linux).
    pub adaptive_backoff: bool,
    /// Smallest backoff factor, and the one used without adaptive backoff
    /// (0 < beta_min <= beta_max). Default 0.5 (Linux `BETA_MIN`).
    pub beta_min: f64,
    /// Largest backoff factor (beta_max < 1). Default 0.8 (Linux `BETA_MAX`).
    pub beta_max: f64,
    /// Linux's bandwidth switch: beta = beta_min when the maximum throughput
    /// changed by more than `bandwidth_switch_threshold` between congestion
    /// events. Default true (Linux `use_bandwidth_switch = 1`).
    pub use_bandwidth_switch: bool,
    /// The bandwidth switch's relative change, > 0. Default 0.2 (Leith,
    /// Shorten, Lee 2005, Delta_B; Linux's `4/5 .. 6/5` test).
    pub bandwidth_switch_threshold: f64,
    /// Initial window, segments (>= 1). Default: RFC 5681's rule by MSS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial slow-start threshold, segments (>= 1). Default: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
}

impl Default for HtcpConfig {
    fn default() -> Self {
        HtcpConfig {
            delta_l: 1.0,
            rtt_scaling: true,
            rtt_ref: 0.1,
            adaptive_backoff: true,
            beta_min: 0.5,
            beta_max: 0.8,
            use_bandwidth_switch: true,
            bandwidth_switch_threshold: 0.2,
            initial_window: None,
            initial_ssthresh: None,
        }
    }
}

impl HtcpConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.delta_l.is_finite() && self.delta_l >= 0.0) {
            return Err(ParamError::new(
                "delta_l",
                format!("{} must be >= 0 s", self.delta_l),
            ));
        }
        if !(self.rtt_ref.is_finite() && self.rtt_ref > 0.0) {
            return Err(ParamError::new(
                "rtt_ref",
                format!("{} must be > 0 s", self.rtt_ref),
            ));
        }
        if !(self.beta_min > 0.0 && self.beta_min < 1.0) {
            return Err(ParamError::new(
                "beta_min",
                format!("{} must be in (0, 1)", self.beta_min),
            ));
        }
        if !(self.beta_max >= self.beta_min && self.beta_max < 1.0) {
            return Err(ParamError::new(
                "beta_max",
                format!("{} must be in [beta_min, 1)", self.beta_max),
            ));
        }
        if !(self.bandwidth_switch_threshold.is_finite() && self.bandwidth_switch_threshold > 0.0) {
            return Err(ParamError::new(
                "bandwidth_switch_threshold",
                format!("{} must be > 0", self.bandwidth_switch_threshold),
            ));
        }
        reno_start(self.initial_window, self.initial_ssthresh).validate()
    }

    /// The papers' alpha(Delta), segments per RTT, `delta` seconds after the
    /// last congestion event (before RTT scaling and the `2 (1 - beta)`
    /// factor).
    pub fn alpha_of_delta(&self, delta: f64) -> f64 {
        if delta <= self.delta_l {
            1.0
        } else {
            let d = delta - self.delta_l;
            1.0 + 10.0 * d + (d / 2.0).powi(2)
        }
    }

    /// The increase per RTT, segments: alpha(Delta), scaled by RTT_min /
    /// RTT_ref if `rtt_scaling` (floored at 1), times `2 (1 - beta)`.
    /// `rtt_min` in seconds, `None` before any sample (no scaling).
    pub fn alpha(&self, delta: f64, rtt_min: Option<f64>, beta: f64) -> f64 {
        let mut a = self.alpha_of_delta(delta);
        if let Some(r) = rtt_min.filter(|_| self.rtt_scaling) {
            let ratio = (r / self.rtt_ref).clamp(RTT_RATIO_RANGE.0, RTT_RATIO_RANGE.1);
            a = (a * ratio).max(1.0);
        }
        2.0 * (1.0 - beta) * a
    }

    /// The adaptive backoff factor for RTT_min and RTT_max (seconds):
    /// `rtt_min / rtt_max` clamped to [beta_min, beta_max].
    pub fn adaptive_beta(&self, rtt_min: f64, rtt_max: f64) -> f64 {
        (rtt_min / rtt_max).clamp(self.beta_min, self.beta_max)
    }
}

/// H-TCP's state.
#[derive(Clone, Debug)]
pub struct Htcp {
    cfg: HtcpConfig,
    /// Window, threshold and slow start (shared with the other loss-based
    /// controllers).
    w: LossWindow,
    /// The backoff factor of the last congestion event (beta_min before
    /// one); the increase's `2 (1 - beta)` uses it.
    beta: f64,
    /// Linux `modeswitch`: beta may adapt at the next event (false until
    /// one event has passed, and after a bandwidth switch).
    modeswitch: bool,
    /// Start of Delta (`None` until the first ACK).
    last_cong: Option<SimTime>,
    /// RTT_min, seconds (`None`: no sample yet).
    rtt_min: Option<f64>,
    /// RTT_max, seconds (0: none yet).
    rtt_max: f64,
    /// Bytes acknowledged in the current throughput interval.
    tp_bytes: f64,
    /// Start of the current throughput interval.
    tp_since: Option<SimTime>,
    /// Throughput EWMA B, bytes/s.
    tp_b: f64,
    /// B_max since the last congestion event, bytes/s.
    tp_max: f64,
    /// B_max of the interval before, bytes/s.
    tp_old_max: f64,
}

impl Htcp {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &HtcpConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        let w = LossWindow::new(cfg.initial_window, cfg.initial_ssthresh, mss)?;
        Ok(Htcp {
            cfg: cfg.clone(),
            w,
            beta: cfg.beta_min,
            modeswitch: false,
            last_cong: None,
            rtt_min: None,
            rtt_max: 0.0,
            tp_bytes: 0.0,
            tp_since: None,
            tp_b: 0.0,
            tp_max: 0.0,
            tp_old_max: 0.0,
        })
    }

    /// True while in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.w.in_slow_start()
    }

    /// The current backoff factor beta.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// RTT_min and RTT_max, seconds (`None` before any sample).
    pub fn rtt_range(&self) -> Option<(f64, f64)> {
        self.rtt_min.map(|m| (m, self.rtt_max))
    }

    /// The increase per RTT at `now`, segments.
    pub fn alpha_at(&self, now: SimTime) -> f64 {
        let delta = self
            .last_cong
            .map_or(0.0, |t| now.saturating_since(t).as_secs_f64());
        self.cfg.alpha(delta, self.rtt_min, self.beta)
    }

    /// Linux `measure_rtt`.
    fn measure_rtt(&mut self, rtt: f64, in_recovery: bool) {
        let min = self.rtt_min.map_or(rtt, |m| m.min(rtt));
        self.rtt_min = Some(min);
        if !in_recovery {
            if self.rtt_max < min {
                self.rtt_max = min;
            }
            if rtt > self.rtt_max && rtt <= self.rtt_max + MAX_RTT_JUMP {
                self.rtt_max = rtt;
            }
        }
    }

    /// Linux `measure_achieved_throughput`, in bytes.
    fn measure_throughput(&mut self, ack: &AckInfo) {
        let now = ack.now;
        let since = *self.tp_since.get_or_insert(now);
        if ack.in_recovery {
            self.tp_bytes = 0.0;
            self.tp_since = Some(now);
            return;
        }
        self.tp_bytes += ack.acked as f64;
        let Some(rtt_min) = self.rtt_min.filter(|&m| m > 0.0) else {
            return;
        };
        let elapsed = now.saturating_since(since).as_secs_f64();
        let alpha = self.alpha_at(now).max(1.0);
        let window_less_alpha = self.w.cwnd - alpha * self.w.mss as f64;
        if self.tp_bytes >= window_less_alpha && elapsed >= rtt_min && elapsed > 0.0 {
            let sample = self.tp_bytes / elapsed;
            let since_cong = self
                .last_cong
                .map_or(f64::INFINITY, |t| now.saturating_since(t).as_secs_f64());
            if since_cong / rtt_min <= THROUGHPUT_RESTART_RTTS {
                self.tp_b = sample;
                self.tp_max = sample;
            } else {
                self.tp_b = (3.0 * self.tp_b + sample) / 4.0;
                self.tp_max = self.tp_max.max(self.tp_b);
            }
            self.tp_bytes = 0.0;
            self.tp_since = Some(now);
        }
    }

    /// Linux `htcp_param_update` at a congestion event: the new beta (and the
    /// fading of RTT_max).
    fn update_beta(&mut self) {
        self.beta = self.next_beta();
        if let Some(min) = self.rtt_min {
            if self.rtt_max > min {
                self.rtt_max = min + (self.rtt_max - min) * MAX_RTT_FADE;
            }
        }
    }

    fn next_beta(&mut self) -> f64 {
        if !self.cfg.adaptive_backoff {
            return self.cfg.beta_min;
        }
        if self.cfg.use_bandwidth_switch {
            let (max, old) = (self.tp_max, self.tp_old_max);
            self.tp_old_max = max;
            if (max - old).abs() > self.cfg.bandwidth_switch_threshold * old {
                self.modeswitch = false;
                return self.cfg.beta_min;
            }
        }
        match self.rtt_min {
            Some(min) if self.modeswitch && min > ADAPTIVE_MIN_RTT && self.rtt_max > 0.0 => {
                self.cfg.adaptive_beta(min, self.rtt_max)
            }
            _ => {
                self.modeswitch = true;
                self.cfg.beta_min
            }
        }
    }
}

impl Controller for Htcp {
    fn on_ack(&mut self, ack: &AckInfo) {
        self.last_cong.get_or_insert(ack.now);
        if let Some(rtt) = ack.rtt {
            self.measure_rtt(rtt.as_secs_f64(), ack.in_recovery);
        }
        if self.cfg.use_bandwidth_switch {
            self.measure_throughput(ack);
        }
        let Some(counted) = self.w.counted(ack) else {
            return;
        };
        if self.w.slow_start(counted) {
            return;
        }
        let alpha = self.alpha_at(ack.now);
        self.w.cwnd += alpha * self.w.mss as f64 * counted / self.w.cwnd;
    }

    fn on_congestion(&mut self, now: SimTime, ev: Congestion) {
        self.update_beta();
        let ssthresh = ((self.w.cwnd * self.beta) as u64).max(2 * self.w.mss);
        self.w.cut(ssthresh, ev);
        self.last_cong = Some(now);
    }

    fn on_recovery_exit(&mut self, now: SimTime) {
        self.w.recovery_exit();
        self.last_cong = Some(now);
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

    fn at(secs: f64) -> SimTime {
        SimTime::from_secs_f64(secs)
    }

    fn ack(now: f64, rtt_ms: u64) -> AckInfo {
        AckInfo {
            now: at(now),
            ..AckInfo::segment(MSS, SimDuration::from_millis(rtt_ms))
        }
    }

    fn htcp(cfg: HtcpConfig, iw: u32) -> Htcp {
        let cfg = HtcpConfig {
            initial_window: Some(iw),
            initial_ssthresh: Some(1),
            ..cfg
        };
        Htcp::new(&cfg, MSS).unwrap()
    }

    #[test]
    fn alpha_of_delta_is_the_papers_quadratic() {
        let c = HtcpConfig::default();
        // 1 up to Delta_L = 1 s.
        assert_eq!(c.alpha_of_delta(0.0), 1.0);
        assert_eq!(c.alpha_of_delta(1.0), 1.0);
        // 1 + 10 d + (d/2)^2, d = Delta - 1.
        assert!((c.alpha_of_delta(2.0) - 11.25).abs() < 1e-12);
        assert!((c.alpha_of_delta(3.0) - 22.0).abs() < 1e-12);
        assert!((c.alpha_of_delta(5.0) - 45.0).abs() < 1e-12);
        assert!((c.alpha_of_delta(11.0) - 126.0).abs() < 1e-12);
        let c = HtcpConfig {
            delta_l: 0.5,
            ..Default::default()
        };
        assert!((c.alpha_of_delta(1.5) - 11.25).abs() < 1e-12);
    }

    #[test]
    fn alpha_scales_by_rtt_and_backoff() {
        let c = HtcpConfig::default();
        // 2 (1 - beta) alpha: beta = 0.5 leaves alpha, 0.8 keeps 40 %.
        assert!((c.alpha(3.0, None, 0.5) - 22.0).abs() < 1e-12);
        assert!((c.alpha(3.0, None, 0.8) - 0.4 * 22.0).abs() < 1e-12);
        // RTT scaling: RTT_min / 100 ms = 0.4 at 40 ms.
        assert!((c.alpha(3.0, Some(0.04), 0.5) - 8.8).abs() < 1e-12);
        // The ratio is clamped to [0.1, 2].
        assert!((c.alpha(3.0, Some(0.001), 0.5) - 2.2).abs() < 1e-12);
        assert!((c.alpha(3.0, Some(0.5), 0.5) - 44.0).abs() < 1e-12);
        // The scaled alpha(Delta) is floored at 1 before the backoff factor.
        assert!((c.alpha(0.5, Some(0.04), 0.5) - 1.0).abs() < 1e-12);
        assert!((c.alpha(0.5, Some(0.04), 0.8) - 0.4).abs() < 1e-12);
        let off = HtcpConfig {
            rtt_scaling: false,
            ..Default::default()
        };
        assert!((off.alpha(3.0, Some(0.04), 0.5) - 22.0).abs() < 1e-12);
    }

    #[test]
    fn adaptive_beta_is_rtt_min_over_rtt_max_clamped() {
        let c = HtcpConfig::default();
        assert!((c.adaptive_beta(0.06, 0.1) - 0.6).abs() < 1e-12);
        assert!((c.adaptive_beta(0.07, 0.1) - 0.7).abs() < 1e-12);
        assert_eq!(c.adaptive_beta(0.04, 0.1), 0.5);
        assert_eq!(c.adaptive_beta(0.09, 0.1), 0.8);
        assert_eq!(c.adaptive_beta(0.1, 0.1), 0.8);
    }

    /// Feed RTT samples that rise from 40 ms to `max_ms` in 1 ms steps, out
    /// of recovery (no growth: the ACKs carry ECE).
    fn rtts(c: &mut Htcp, t: f64, max_ms: u64) {
        for ms in 40..=max_ms {
            c.on_ack(&AckInfo {
                ece: true,
                ..ack(t, ms)
            });
        }
    }

    #[test]
    fn a_loss_backs_off_by_beta_after_the_first_event() {
        let cfg = HtcpConfig {
            use_bandwidth_switch: false,
            ..Default::default()
        };
        let mut c = htcp(cfg, 100);
        rtts(&mut c, 0.0, 60);
        assert_eq!(c.rtt_range(), Some((0.040, 0.060)));
        // First event: beta_min (Linux waits one event before adapting).
        c.on_congestion(at(1.0), Congestion::Loss { in_flight: 0 });
        assert_eq!(c.beta(), 0.5);
        assert_eq!(c.window(), 50_000);
        assert_eq!(c.ssthresh(), Some(50_000));
        // RTT_max faded: 40 + 0.95 * 20 ms.
        let (_, max) = c.rtt_range().unwrap();
        assert!((max - 0.059).abs() < 1e-12);
        // Second event: beta = 40 / 59 ms.
        c.on_recovery_exit(at(1.1));
        c.on_congestion(at(2.0), Congestion::Loss { in_flight: 0 });
        let beta = 0.040 / 0.059;
        assert!((c.beta() - beta).abs() < 1e-12);
        assert_eq!(c.window(), (50_000.0 * beta) as u64);
        // A path with more queueing: clamped at 0.5.
        rtts(&mut c, 3.0, 100);
        c.on_congestion(at(4.0), Congestion::Ecn { in_flight: 0 });
        assert_eq!(c.beta(), 0.5);
        // Timeout: ssthresh from the same backoff, cwnd 1 SMSS.
        let w = c.window();
        c.on_congestion(at(5.0), Congestion::Timeout { in_flight: 0 });
        assert_eq!(c.window(), 1000);
        let max = c.rtt_range().unwrap().1;
        let beta = c.cfg.adaptive_beta(0.040, max);
        assert_eq!(c.ssthresh(), Some(((w as f64 * beta) as u64).max(2000)));
    }

    #[test]
    fn without_adaptive_backoff_beta_is_beta_min() {
        let cfg = HtcpConfig {
            adaptive_backoff: false,
            ..Default::default()
        };
        let mut c = htcp(cfg, 100);
        rtts(&mut c, 0.0, 45);
        for t in 1..4 {
            c.on_congestion(at(f64::from(t)), Congestion::Loss { in_flight: 0 });
            assert_eq!(c.beta(), 0.5);
        }
        assert_eq!(c.window(), 12_500);
    }

    #[test]
    fn the_increase_per_rtt_follows_alpha_of_the_time_since_the_event() {
        let cfg = HtcpConfig {
            rtt_scaling: false,
            use_bandwidth_switch: false,
            ..Default::default()
        };
        let mut c = htcp(cfg, 2000);
        c.on_ack(&AckInfo {
            ece: true,
            ..ack(0.0, 40)
        });
        c.on_congestion(at(0.0), Congestion::Loss { in_flight: 0 });
        c.on_recovery_exit(at(0.0));
        assert_eq!(c.window(), 1_000_000);
        // One window of ACKs at Delta = 0.5 s: +1 segment (standard TCP),
        // less the window's own growth over that window (w^2 grows by
        // 2 alpha SMSS N: w = sqrt(1e12 + 2e9) = 1000.9995 segments).
        for _ in 0..1000 {
            c.on_ack(&ack(0.5, 40));
        }
        let want = (1e12_f64 + 2.0 * 1000.0 * 1e6).sqrt();
        assert!((c.w.cwnd - want).abs() < 1.0, "{} vs {want}", c.w.cwnd);
        // At Delta = 3 s: alpha(3) = 22 segments per window of ACKs.
        let w0 = c.w.cwnd;
        for _ in 0..1000 {
            c.on_ack(&ack(3.0, 40));
        }
        let want = (w0 * w0 + 2.0 * 22.0 * 1000.0 * 1e6).sqrt();
        assert!((c.w.cwnd - want).abs() < 1.0, "{} vs {want}", c.w.cwnd);
        assert!(((c.w.cwnd - w0) / 1000.0 - 22.0).abs() < 0.3);
    }

    #[test]
    fn the_bandwidth_switch_resets_beta_when_throughput_moves_20_percent() {
        let mut c = htcp(HtcpConfig::default(), 100);
        let mut t = 0.0;
        // Deliver `rate` bytes/s for `secs` seconds in ACKs of one segment,
        // RTT samples 40..60 ms.
        let mut run = |c: &mut Htcp, rate: f64, secs: f64| {
            let n = (rate * secs / 1000.0) as usize;
            for i in 0..n {
                t += 1000.0 / rate;
                let ms = 40 + (i % 21) as u64;
                c.on_ack(&AckInfo {
                    ece: true,
                    ..ack(t, ms)
                });
            }
            c.on_congestion(at(t), Congestion::Loss { in_flight: 0 });
            c.w.cwnd = 100_000.0;
        };
        run(&mut c, 1e6, 2.0); // first event: old B_max 0 -> switch
        assert_eq!(c.beta(), 0.5);
        run(&mut c, 1e6, 2.0); // same throughput, but modeswitch was off
        assert_eq!(c.beta(), 0.5);
        run(&mut c, 1.05e6, 2.0); // +5 %: adaptive
        assert!(c.beta() > 0.6, "{}", c.beta());
        run(&mut c, 1.5e6, 2.0); // +43 %: switch
        assert_eq!(c.beta(), 0.5);
    }

    #[test]
    fn no_growth_on_ecn_echo_or_in_recovery() {
        let mut c = htcp(HtcpConfig::default(), 200);
        c.on_ack(&AckInfo {
            ece: true,
            ..ack(5.0, 40)
        });
        c.on_ack(&AckInfo {
            in_recovery: true,
            ..ack(5.0, 40)
        });
        assert_eq!(c.window(), 200_000);
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig = toml::from_str("kind = \"htcp\"\ndelta_l = 2.0").unwrap();
        assert_eq!(c.name(), "htcp");
        assert_eq!(
            c,
            CcConfig::Htcp(HtcpConfig {
                delta_l: 2.0,
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
        assert_eq!(key("kind = \"htcp\"\nbeta_min = 0.0"), "beta_min");
        assert_eq!(key("kind = \"htcp\"\nbeta_max = 0.4"), "beta_max");
        assert_eq!(key("kind = \"htcp\"\nbeta_max = 1.0"), "beta_max");
        assert_eq!(key("kind = \"htcp\"\ndelta_l = -1.0"), "delta_l");
        assert_eq!(key("kind = \"htcp\"\nrtt_ref = 0.0"), "rtt_ref");
        assert_eq!(
            key("kind = \"htcp\"\nbandwidth_switch_threshold = 0.0"),
            "bandwidth_switch_threshold"
        );
        assert_eq!(key("kind = \"htcp\"\ninitial_window = 0"), "initial_window");
        assert!(toml::from_str::<CcConfig>("kind = \"htcp\"\nalpha = 3").is_err());
    }
}
