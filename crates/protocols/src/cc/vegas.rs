//! TCP Vegas: a delay-based window that keeps a few packets of its own in the
//! bottleneck queue, judged once per round trip from the difference between
//! the expected and the actual throughput.
//!
//! Provenance:
//! - L. Brakmo, L. Peterson, "TCP Vegas: end to end congestion avoidance on a
//!   global internet", IEEE JSAC 13(8), 1995: BaseRTT is the minimum RTT
//!   seen; once per RTT, `Expected = WindowSize / BaseRTT`, `Actual` = data
//!   sent in that RTT / the RTT, `Diff = (Expected - Actual) * BaseRTT`
//!   (segments: the flow's extra data in the network); in congestion
//!   avoidance the window grows by one segment in the next RTT if
//!   `Diff < alpha`, shrinks by one if `Diff > beta`, else holds; Vegas' slow
//!   start doubles the window only every other RTT and leaves slow start when
//!   `Diff > gamma`.
//! - ns-2's Vegas agent (`tcp/tcp-vegas.cc`, ns-2.35, Ted Kuo's port of the
//!   USC NetBSD Vegas), which this file follows where the paper leaves a
//!   detail open:
//!   - the round: it ends on the first ACK that covers data sent after the
//!     previous round ended (`seqno >= v_begseq_`); its RTT is the mean of the
//!     round's RTT samples (`v_sumRTT_ / v_cntRTT_`), or the time since the
//!     round began when it has none;
//!   - `Actual` is the data sent during the round (`t_seqno_ - v_begseq_`)
//!     over the round's RTT; Diff is rounded to the
//!     nearest whole segment (`int(delta + 0.5)`) before the comparisons, so
//!     with integer alpha and beta the window holds while the unrounded Diff
//!     is in `[alpha - 1/2, beta + 1/2)`;
//!   - BaseRTT is the minimum of all RTT samples, and is also set to the
//!     round's RTT when at most one segment was sent in the round;
//!   - growth is spread over the round's ACKs (`v_incr_ = 1/cwnd` per ACK in
//!     congestion avoidance, 1 per ACK in a slow-start growth round) and
//!     only while `cwnd - outstanding <= 2` segments (the window is in use);
//!     a decrease (`--cwnd_`) acts at once at the round's end; floor 2
//!     segments;
//!   - slow start: `v_inc_flag_` alternates each round (starting so that the
//!     first round after the first ACK does not grow); on leaving slow start
//!     `cwnd -= cwnd/8`, ssthresh = 2 segments (ns-2: "vegas ssthresh is used
//!     only during slow-start");
//!   - on the third duplicate ACK (`win = window()`): `win <= 3` -> 2
//!     segments, else `win - win/4` (3/4 of the window); on leaving recovery
//!     `cwnd = v_newcwnd_` (that reduced window) and ssthresh = 2 segments;
//!   - retransmission timeout: `slowdown(CLOSE_CWND_RESTART |
//!     CLOSE_SSTHRESH_HALF)`, then `cwnd_ = v_slowstart_` = 2 segments;
//!   - ECN-Echo: ns-2's Vegas calls `TcpAgent::ecn`, Reno's halving
//!     (`CLOSE_CWND_HALF`).
//!   - Defaults `v_alpha_ = 1`, `v_beta_ = 3`, `v_gamma_ = 1`
//!     (`tcl/lib/ns-default.tcl`).
//! - Seed 000 (Zimmermann 2005, spec section 2.1/2.4) builds Vegas/CP on ns-2's
//!   Vegas: it keeps Vegas' slow start ("yes") or turns it off ("no (slow
//!   start)", Table 5.4.2), and replaces the Diff test by a price test with the
//!   same once-per-RTT +-1 step. Exposed here: `alpha`, `beta` (the per-flow
//!   target queue band, segments; `alpha = beta` is a single target), `gamma`,
//!   `slow_start`, `step`.
//! - RFC 3168 section 6.1.2: no window growth on an ACK carrying ECN-Echo; the
//!   transport reports ECE at most once per window.
//!
//! Left out: ns-2's fine-grained Vegas retransmission timer (`vegas_expire`,
//!   retransmitting on the first or second duplicate ACK) and the "transmits >
//!   1" halving when a retransmission is lost again: loss detection is the
//!   transport's, and the controller cannot tell a retransmission's loss.
//!   ns-2's guard against a second reduction for a segment sent before the
//!   last one (`t_cwnd_changed_ < sendTime`) is the transport's NewReno
//!   `recover` here.
//! INFERRED: `Expected = WindowSize / BaseRTT` with WindowSize the data in
//!   flight when the round's last ACK arrived (before it is removed): the
//!   paper's WindowSize is the congestion window "which we assume ... to be
//!   equal to the number of bytes in transit". Not the fractional cwnd: the
//!   transport sends whole segments, so `cwnd - sent` would carry cwnd's
//!   fraction (up to 0.99 segment, rounded to 1 = alpha) and hold an idle
//!   path's window (measured: stuck at 42.99 segments, 13 % of a 333-segment
//!   pipe, queue 0). Not ns-2's `t_seqno_ - last_ack_` after the ACK either,
//!   one segment short of the window on each one-segment ACK, which puts the
//!   equilibrium one segment of queue above `[alpha, beta]`.
//! INFERRED: rounds do not decide during loss recovery; every ACK in recovery
//!   restarts the round, so the first decision after recovery uses RTTs of
//!   data sent after it (ns-2 decides on partial ACKs and then overwrites cwnd
//!   with `v_newcwnd_` on exit).
//! INFERRED: after an ECN-Echo halving, ssthresh = 2 segments as after a fast
//!   retransmit (ns-2's `CLOSE_SSTHRESH_HALF` there puts ssthresh at the new
//!   window, so a later Vegas decrease would re-enter Vegas' slow start; ns-2's
//!   own comment has ssthresh serve only slow start).
//! INFERRED: slow-start and congestion-avoidance growth is byte-counted (an
//!   ACK of N new bytes, at most 2 SMSS as RFC 3465, counts N / SMSS ACKs of
//!   ns-2's one-segment increments).
//! INFERRED: `slow_start = false` starts in congestion avoidance and stays
//!   there after a timeout (seed 000's "no slow start" runs).
//! Units: cwnd and ssthresh are bytes (cwnd an `f64`); alpha, beta, gamma,
//!   step, Diff and the window floors are segments.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, ParamError, SimDuration, SimTime};

use super::loss_window::LossWindow;
use super::reno_start;

/// Parameters of TCP Vegas (`cc = { kind = "vegas", alpha = 1.0, beta = 3.0 }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VegasConfig {
    /// Lower end of the target band, segments of queue per flow (>= 0): below
    /// it the window grows. Default 1 (ns-2 `v_alpha_`).
    pub alpha: f64,
    /// Upper end of the target band, segments (>= alpha): above it the window
    /// shrinks. Default 3 (ns-2 `v_beta_`).
    pub beta: f64,
    /// Slow-start exit threshold, segments (>= 0). Default 1 (ns-2 `v_gamma_`).
    pub gamma: f64,
    /// Use Vegas' slow start at the start and after a timeout. Default true
    /// (seed 000's "no (slow start)" runs set false).
    pub slow_start: bool,
    /// Window change per round trip in congestion avoidance, segments (> 0).
    /// Default 1 (Brakmo & Peterson 1995; ns-2).
    pub step: f64,
    /// Fraction of the window removed on leaving slow start (in [0, 1)).
    /// Default 1/8 (ns-2 `cwnd_ -= cwnd_/8`).
    pub ss_exit_cut: f64,
    /// Window kept on a fast retransmit (in (0, 1]). Default 3/4 (ns-2
    /// `win -= win >> 2`).
    pub loss_factor: f64,
    /// Window kept on an ECN-Echo (in (0, 1]). Default 1/2 (ns-2
    /// `TcpAgent::ecn`, Reno's halving).
    pub ecn_factor: f64,
    /// Floor of the window after any decrease, segments (>= 1). Default 2
    /// (ns-2).
    pub min_window: u32,
    /// Window after a retransmission timeout, segments (>= 1). Default 2
    /// (ns-2 `v_slowstart_`).
    pub timeout_window: u32,
    /// The window grows only while at most this many segments of it are
    /// unused (`cwnd - outstanding`), segments (>= 0). Default 2 (ns-2).
    pub unused_limit: f64,
    /// Initial window, segments (>= 1). Default: RFC 5681's rule by MSS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial slow-start threshold, segments (>= 1). Default: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
            slow_start: true,
            step: 1.0,
            ss_exit_cut: 0.125,
            loss_factor: 0.75,
            ecn_factor: 0.5,
            min_window: 2,
            timeout_window: 2,
            unused_limit: 2.0,
            initial_window: None,
            initial_ssthresh: None,
        }
    }
}

impl VegasConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        let nonneg = |key: &'static str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(ParamError::new(key, format!("{v} must be >= 0")))
            }
        };
        nonneg("alpha", self.alpha)?;
        nonneg("gamma", self.gamma)?;
        nonneg("unused_limit", self.unused_limit)?;
        if !(self.beta.is_finite() && self.beta >= self.alpha) {
            return Err(ParamError::new(
                "beta",
                format!("{} must be >= alpha ({})", self.beta, self.alpha),
            ));
        }
        if !(self.step.is_finite() && self.step > 0.0) {
            return Err(ParamError::new(
                "step",
                format!("{} must be > 0", self.step),
            ));
        }
        if !(0.0..1.0).contains(&self.ss_exit_cut) {
            return Err(ParamError::new(
                "ss_exit_cut",
                format!("{} must be in [0, 1)", self.ss_exit_cut),
            ));
        }
        for (key, v) in [
            ("loss_factor", self.loss_factor),
            ("ecn_factor", self.ecn_factor),
        ] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(ParamError::new(key, format!("{v} must be in (0, 1]")));
            }
        }
        if self.min_window == 0 {
            return Err(ParamError::new("min_window", "must be >= 1 segment"));
        }
        if self.timeout_window == 0 {
            return Err(ParamError::new("timeout_window", "must be >= 1 segment"));
        }
        reno_start(self.initial_window, self.initial_ssthresh).validate()
    }
}

/// Vegas' Diff in segments, unrounded: `(Expected - Actual) * BaseRTT` with
/// `Expected = window / base` and `Actual = sent / rtt` (segments, seconds).
/// With `window = sent = W` it is `W (1 - base / rtt)`: the flow's segments
/// queued when the extra delay `rtt - base` is queueing.
pub fn diff(window: f64, sent: f64, base: f64, rtt: f64) -> f64 {
    (window / base - sent / rtt) * base
}

/// The step a congestion-avoidance round takes: what Vegas' Diff band test,
/// or a variant's own test (Vegas/CP's price test), asks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaStep {
    /// Grow by `step` segments over the next round.
    Grow,
    /// Shrink by `step` segments now.
    Shrink,
    /// Hold the window.
    Hold,
}

/// What a round's decision asks of the round's ACKs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Incr {
    /// Hold the window.
    None,
    /// Slow start: grow by the bytes acknowledged.
    Slow,
    /// Congestion avoidance: grow by `step` segments over the round.
    Linear,
}

/// The decision of a round, for tests and traces.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Congestion avoidance, `Diff < alpha`: grow by `step` in the next RTT.
    Increase,
    /// Congestion avoidance, `Diff > beta`: shrink by `step` now.
    Decrease,
    /// Congestion avoidance, `alpha <= Diff <= beta`.
    Hold,
    /// Slow start, a growth round.
    SlowStartGrow,
    /// Slow start, a round without growth (every other one).
    SlowStartPause,
    /// Slow start left: `Diff > gamma`.
    SlowStartExit,
}

/// TCP Vegas' state.
#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    w: LossWindow,
    /// Minimum RTT seen, seconds.
    base_rtt: Option<f64>,
    /// Bytes cumulatively acknowledged (the transport's `snd_una`).
    acked_total: u64,
    /// `snd_max` when the round began: the round ends on an ACK above it.
    round_mark: u64,
    /// When the round began.
    round_start: SimTime,
    /// Sum and count of the round's RTT samples, seconds.
    rtt_sum: f64,
    rtt_cnt: u32,
    /// What the round's ACKs do to the window.
    incr: Incr,
    /// ns-2's `v_inc_flag_`: slow start grows in rounds where it is set.
    inc_flag: bool,
    /// The window a fast retransmit set (ns-2 `v_newcwnd_`), bytes.
    loss_cwnd: f64,
    /// The last round's rounded Diff and decision.
    last: Option<(f64, Decision)>,
}

impl Vegas {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &VegasConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        let mut w = LossWindow::new(cfg.initial_window, cfg.initial_ssthresh, mss)?;
        if !cfg.slow_start {
            w.ssthresh = 0;
        }
        Ok(Vegas {
            cfg: cfg.clone(),
            loss_cwnd: w.cwnd,
            w,
            base_rtt: None,
            acked_total: 0,
            round_mark: 0,
            round_start: SimTime::ZERO,
            rtt_sum: 0.0,
            rtt_cnt: 0,
            incr: Incr::None,
            inc_flag: true,
            last: None,
        })
    }

    /// True while in Vegas' slow start.
    pub fn in_slow_start(&self) -> bool {
        self.w.in_slow_start()
    }

    /// The minimum RTT seen (BaseRTT).
    pub fn base_rtt(&self) -> Option<SimDuration> {
        self.base_rtt.map(SimDuration::from_secs_f64)
    }

    /// The last round's Diff (rounded, segments) and decision.
    pub fn last_decision(&self) -> Option<(f64, Decision)> {
        self.last
    }

    fn mss(&self) -> f64 {
        self.w.mss as f64
    }

    fn floor(&self) -> f64 {
        f64::from(self.cfg.min_window) * self.mss()
    }

    /// Vegas' threshold after leaving slow start or a reduction: 2 segments
    /// (only slow start reads it), none without slow start.
    fn ca_ssthresh(&self) -> u64 {
        if self.cfg.slow_start {
            u64::from(self.cfg.min_window) * self.w.mss
        } else {
            0
        }
    }

    /// Begin a round at `snd_max` bytes sent.
    fn start_round(&mut self, now: SimTime, snd_max: u64) {
        self.round_mark = snd_max;
        self.round_start = now;
        self.rtt_sum = 0.0;
        self.rtt_cnt = 0;
    }

    /// The once-per-RTT decision from a round's rounded Diff, or, in
    /// congestion avoidance, from `ca` when a variant's own test gave one.
    fn decide(&mut self, delta: f64, ca: Option<CaStep>) -> Decision {
        let c = &self.cfg;
        if self.w.in_slow_start() {
            self.inc_flag = !self.inc_flag;
            if !self.inc_flag {
                self.incr = Incr::None;
                Decision::SlowStartPause
            } else if delta > c.gamma {
                self.w.ssthresh = self.ca_ssthresh();
                let cut = self.w.cwnd * c.ss_exit_cut;
                self.w.cwnd = (self.w.cwnd - cut).max(self.floor());
                self.incr = Incr::None;
                Decision::SlowStartExit
            } else {
                self.incr = Incr::Slow;
                Decision::SlowStartGrow
            }
        } else {
            let step = ca.unwrap_or(if delta > c.beta {
                CaStep::Shrink
            } else if delta < c.alpha {
                CaStep::Grow
            } else {
                CaStep::Hold
            });
            match step {
                CaStep::Shrink => {
                    self.w.cwnd = (self.w.cwnd - c.step * self.mss()).max(self.floor());
                    self.incr = Incr::None;
                    Decision::Decrease
                }
                CaStep::Grow => {
                    self.incr = Incr::Linear;
                    Decision::Increase
                }
                CaStep::Hold => {
                    self.incr = Incr::None;
                    Decision::Hold
                }
            }
        }
    }

    /// One ACK, with `ca` standing in for the Diff band test at the end of a
    /// congestion-avoidance round: it gets the window (segments) and returns
    /// the step, or `None` for Vegas' own test. Slow start, the rounds,
    /// growth and losses stay Vegas' (Vegas/CP, `super::vegas_cp`).
    pub(crate) fn on_ack_with(&mut self, ack: &AckInfo, ca: impl FnOnce(f64) -> Option<CaStep>) {
        if ack.acked == 0 {
            return;
        }
        let snd_max = self.acked_total + ack.in_flight;
        self.acked_total += ack.acked;
        let outstanding = ack.in_flight.saturating_sub(ack.acked) as f64;
        if let Some(r) = ack.rtt {
            let r = r.as_secs_f64();
            self.rtt_sum += r;
            self.rtt_cnt += 1;
            if r > 0.0 && self.base_rtt.is_none_or(|b| r < b) {
                self.base_rtt = Some(r);
            }
        }
        if ack.in_recovery {
            self.start_round(ack.now, snd_max);
            return;
        }
        if self.acked_total > self.round_mark {
            let rtt = if self.rtt_cnt > 0 {
                self.rtt_sum / f64::from(self.rtt_cnt)
            } else {
                ack.now.saturating_since(self.round_start).as_secs_f64()
            };
            let mss = self.mss();
            let sent = snd_max.saturating_sub(self.round_mark) as f64 / mss;
            if rtt > 0.0 {
                if sent <= 1.0 || self.base_rtt.is_none_or(|b| rtt < b) {
                    self.base_rtt = Some(rtt);
                }
                let base = self.base_rtt.unwrap_or(rtt);
                let window = ack.in_flight as f64 / mss;
                let delta = (diff(window, sent, base, rtt) + 0.5).floor();
                let step = if self.w.in_slow_start() {
                    None
                } else {
                    ca(self.w.segments())
                };
                let d = self.decide(delta, step);
                self.last = Some((delta, d));
            }
            self.start_round(ack.now, snd_max);
        }
        if self.incr == Incr::Slow && !self.w.in_slow_start() {
            self.incr = Incr::None;
        }
        let Some(counted) = self.w.counted(ack) else {
            return;
        };
        if self.w.cwnd - outstanding > self.cfg.unused_limit * self.mss() {
            return;
        }
        match self.incr {
            Incr::None => {}
            Incr::Slow => {
                self.w.slow_start(counted);
            }
            Incr::Linear => self.w.cwnd += self.cfg.step * self.mss() * counted / self.w.cwnd,
        }
    }
}

impl Controller for Vegas {
    fn on_ack(&mut self, ack: &AckInfo) {
        self.on_ack_with(ack, |_| None);
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        let mss = self.mss();
        let segs = self.w.segments();
        self.incr = Incr::None;
        match ev {
            Congestion::Loss { .. } => {
                let win = if segs <= f64::from(self.cfg.min_window) + 1.0 {
                    self.floor()
                } else {
                    (self.w.cwnd * self.cfg.loss_factor).max(self.floor())
                };
                self.loss_cwnd = win;
                self.w.cwnd = win;
                self.w.ssthresh = self.ca_ssthresh();
            }
            Congestion::Ecn { .. } => {
                self.w.cwnd = (self.w.cwnd * self.cfg.ecn_factor).max(self.floor());
                self.loss_cwnd = self.w.cwnd;
                self.w.ssthresh = self.ca_ssthresh();
            }
            Congestion::Timeout { .. } => {
                if self.cfg.slow_start {
                    self.w.ssthresh = ((self.w.cwnd / 2.0).max(self.floor())) as u64;
                }
                self.w.cwnd = f64::from(self.cfg.timeout_window) * mss;
                self.loss_cwnd = self.w.cwnd;
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.w.cwnd = self.loss_cwnd;
        self.w.ssthresh = self.ca_ssthresh();
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

    const MSS: u32 = 1000;

    /// A controller in congestion avoidance with a window of `w` segments.
    fn ca(w: u32) -> Vegas {
        let cfg = VegasConfig {
            initial_window: Some(w),
            initial_ssthresh: Some(1),
            ..Default::default()
        };
        Vegas::new(&cfg, MSS).unwrap()
    }

    /// An ACK of one segment at `t_ms` with RTT sample `rtt_ms` and `flight`
    /// segments in flight before it.
    fn ack(t_ms: u64, rtt_ms: u64, flight: u64) -> AckInfo {
        AckInfo {
            now: SimTime::ZERO + SimDuration::from_millis(t_ms),
            in_flight: flight * u64::from(MSS),
            ..AckInfo::segment(MSS, SimDuration::from_millis(rtt_ms))
        }
    }

    /// Drive `c` (window `w` segments, all of it outstanding) through rounds
    /// whose every RTT sample is `rtt_ms`; return the window after `rounds`
    /// rounds, in segments.
    fn rounds(c: &mut Vegas, w: u64, rtt_ms: u64, rounds: u64, t0: &mut u64) -> f64 {
        for _ in 0..rounds * w {
            *t0 += rtt_ms / w.max(1);
            let flight = (c.window() / u64::from(MSS)).max(1);
            c.on_ack(&ack(*t0, rtt_ms, flight));
        }
        c.w.segments()
    }

    #[test]
    fn diff_is_the_queued_data_in_closed_form() {
        // W = 20 segments, BaseRTT 100 ms, RTT 125 ms: Diff = W (1 - base/rtt) = 4.
        assert!((diff(20.0, 20.0, 0.100, 0.125) - 4.0).abs() < 1e-12);
        // No queueing delay: Diff = 0.
        assert!(diff(20.0, 20.0, 0.1, 0.1).abs() < 1e-12);
        // RTT 110 ms: 20 * 10/110 = 1.818...
        assert!((diff(20.0, 20.0, 0.1, 0.110) - 20.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn rounds_increase_hold_and_decrease_by_diff() {
        // BaseRTT 100 ms, W = 20, all sent in the round.
        // RTT 100 ms: Diff 0 < alpha: +1 segment spread over the next round.
        let mut c = ca(20);
        c.on_ack(&ack(1, 100, 20));
        assert_eq!(c.last_decision().unwrap(), (0.0, Decision::Increase));
        for i in 0..19 {
            c.on_ack(&ack(2 + i, 100, 20));
        }
        let w = c.w.segments();
        assert!(w > 20.9 && w < 21.0, "{w}");

        // RTT 110 ms: Diff = 20 * 10/110 = 1.82 -> 2, in [1, 3]: hold.
        let mut c = ca(20);
        c.base_rtt = Some(0.100);
        let mut t = 0;
        rounds(&mut c, 20, 110, 3, &mut t);
        assert_eq!(c.last_decision().unwrap(), (2.0, Decision::Hold));
        assert!((c.w.segments() - 20.0).abs() < 1e-9);

        // RTT 125 ms: Diff = 4 > beta: -1 segment at each round's end.
        let mut c = ca(20);
        c.base_rtt = Some(0.100);
        c.on_ack(&ack(1, 125, 20));
        assert_eq!(c.last_decision().unwrap(), (4.0, Decision::Decrease));
        assert!((c.w.segments() - 19.0).abs() < 1e-9);
    }

    #[test]
    fn rounding_puts_the_band_edges_at_half_segments() {
        // Diff 3.4 rounds to 3: hold; 3.6 rounds to 4: decrease; 0.6 -> 1: hold;
        // 0.4 -> 0: increase. rtt = base * W / (W - Diff).
        for (d, want) in [
            (3.4, Decision::Hold),
            (3.6, Decision::Decrease),
            (0.6, Decision::Hold),
            (0.4, Decision::Increase),
        ] {
            let mut c = ca(20);
            c.base_rtt = Some(0.1);
            let rtt = 0.1 * 20.0 / (20.0 - d);
            c.on_ack(&AckInfo {
                rtt: Some(SimDuration::from_secs_f64(rtt)),
                ..ack(1, 100, 20)
            });
            assert_eq!(c.last_decision().unwrap().1, want, "Diff {d}");
        }
    }

    #[test]
    fn slow_start_grows_every_other_round_and_exits_above_gamma() {
        let cfg = VegasConfig {
            initial_window: Some(4),
            ..Default::default()
        };
        let mut c = Vegas::new(&cfg, MSS).unwrap();
        // The first ACK ends the initial round: a pause round.
        c.on_ack(&ack(100, 100, 4));
        assert_eq!(c.last_decision().unwrap().1, Decision::SlowStartPause);
        let w0 = c.w.segments();
        for i in 0..4 {
            c.on_ack(&ack(101 + i, 100, 4));
        }
        // Paused: no growth. The next round grows by one per ACK.
        assert_eq!(c.last_decision().unwrap().1, Decision::SlowStartGrow);
        assert!(c.w.segments() > w0);
        // A round whose RTT puts Diff above gamma = 1 leaves slow start with
        // 1/8 less window and ssthresh at 2 segments.
        let mut c = Vegas::new(&cfg, MSS).unwrap();
        c.base_rtt = Some(0.1);
        c.inc_flag = false;
        c.w.cwnd = 16_000.0;
        c.on_ack(&AckInfo {
            in_flight: 17_000,
            ..ack(1, 200, 17)
        });
        assert_eq!(c.last_decision().unwrap().1, Decision::SlowStartExit);
        assert!((c.w.segments() - 14.0).abs() < 1e-9);
        assert_eq!(c.ssthresh(), Some(2000));
        assert!(!c.in_slow_start());
    }

    #[test]
    fn fast_retransmit_keeps_three_quarters_and_timeout_restarts_at_two() {
        let mut c = ca(40);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 40_000 });
        assert_eq!(c.window(), 30_000);
        c.on_recovery_exit(SimTime::ZERO);
        assert_eq!(c.window(), 30_000);
        assert_eq!(c.ssthresh(), Some(2000));
        // Small windows drop to 2 segments.
        let mut c = ca(3);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 3000 });
        assert_eq!(c.window(), 2000);
        // ECN-Echo halves.
        let mut c = ca(40);
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 40_000 });
        assert_eq!(c.window(), 20_000);
        // Timeout: ssthresh half the window, cwnd 2 segments, slow start.
        let mut c = ca(40);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 40_000 });
        assert_eq!(c.window(), 2000);
        assert_eq!(c.ssthresh(), Some(20_000));
        assert!(c.in_slow_start());
    }

    #[test]
    fn no_growth_on_ecn_echo_in_recovery_or_with_unused_window() {
        let mut c = ca(20);
        c.incr = Incr::Linear;
        c.round_mark = u64::MAX;
        c.on_ack(&AckInfo {
            ece: true,
            ..ack(1, 100, 20)
        });
        c.on_ack(&AckInfo {
            in_recovery: true,
            ..ack(2, 100, 20)
        });
        assert_eq!(c.window(), 20_000);
        // 10 segments outstanding of a 20-segment window: more than 2 unused.
        c.incr = Incr::Linear;
        c.round_mark = u64::MAX;
        c.on_ack(&ack(3, 100, 11));
        assert_eq!(c.window(), 20_000);
        c.on_ack(&ack(4, 100, 20));
        assert!(c.window() > 20_000);
    }

    #[test]
    fn without_slow_start_it_starts_in_congestion_avoidance() {
        let cfg = VegasConfig {
            slow_start: false,
            ..Default::default()
        };
        let mut c = Vegas::new(&cfg, MSS).unwrap();
        assert!(!c.in_slow_start());
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 3000 });
        assert!(!c.in_slow_start());
        assert_eq!(c.window(), 2000);
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig = toml::from_str("kind = \"vegas\"\nalpha = 2.0\nbeta = 4.0").unwrap();
        assert_eq!(c.name(), "vegas");
        assert_eq!(
            c,
            CcConfig::Vegas(VegasConfig {
                alpha: 2.0,
                beta: 4.0,
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
        assert_eq!(key("kind = \"vegas\"\nbeta = 0.5"), "beta");
        assert_eq!(key("kind = \"vegas\"\nalpha = -1.0"), "alpha");
        assert_eq!(key("kind = \"vegas\"\nstep = 0.0"), "step");
        assert_eq!(key("kind = \"vegas\"\nloss_factor = 0.0"), "loss_factor");
        assert_eq!(key("kind = \"vegas\"\nss_exit_cut = 1.0"), "ss_exit_cut");
        assert_eq!(key("kind = \"vegas\"\nmin_window = 0"), "min_window");
        assert!(toml::from_str::<CcConfig>("kind = \"vegas\"\nv_alpha = 3").is_err());
    }
}
