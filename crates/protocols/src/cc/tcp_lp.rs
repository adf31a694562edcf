//! TCP-LP (low priority): NewReno that also backs off on an early congestion
//! indication from one-way delays, so that it uses only the capacity other
//! TCP flows leave unused.
//!
//! Provenance:
//! - A. Kuzmanovic, E. Knightly, "TCP-LP: low-priority service via end-point
//!   congestion control", IEEE/ACM ToN 14(4), 2006 (and INFOCOM 2003):
//!   one-way delays from the TCP timestamp option; `d_min` and `d_max`, the
//!   minimum and maximum one-way delay seen; a smoothed one-way delay (EWMA,
//!   gain `gamma = 1/8` on the newest sample); an early congestion
//!   indication when the smoothed delay exceeds
//!   `d_min + delta (d_max - d_min)`, `delta = 0.15`. On the first indication
//!   the window is halved and an inference phase starts (inference time-out
//!   `itt`); during it the window does not grow; a second indication before
//!   `itt` expires sets the window to one segment; once `itt` has expired
//!   the window grows as TCP's (additive increase). Losses are NewReno's.
//! - Linux `net/ipv4/tcp_lp.c` (2.6.18 and later), which states it follows
//!   the paper's pseudo-code: `inference = 3 * (now - tsecr)`, i.e. itt =
//!   3 RTT from the latest sample; the threshold
//!   `owd_min + 15 * (owd_max - owd_min) / 100`; the smoothed OWD
//!   `sowd = 7/8 sowd + 1/8 owd`, initialised to the first sample; the
//!   halving `max(cwnd >> 1, 1)`; NewReno growth (`tcp_reno_cong_avoid`)
//!   only outside the inference phase; NewReno's `ssthresh` on a loss.
//! - The one-way delay is `AckInfo::owd` (the receiver's timestamp on the ACK
//!   minus the echoed send time; its constant clock offset is zero here, so
//!   d_min is the true minimum).
//! - NewReno parts as `newreno.rs`: RFC 5681/6582 (slow start, congestion
//!   avoidance `SMSS * N / cwnd`, `ssthresh = max(FlightSize/2, 2 SMSS)` on a
//!   loss, 1 SMSS after a timeout, `cwnd = ssthresh` on recovery exit),
//!   RFC 3465 ABC (L = 2 SMSS), RFC 3168 (ECN-Echo as a loss, at most once per
//!   window, no growth on an ECE ACK).
//!
//! INFERRED: after a reaction (an early-indication cut or a loss, ECN or
//!   timeout cut), further indications are ignored until an ACK covers data
//!   sent after it, i.e. at most one reaction per round trip: the smoothed
//!   delay of packets already queued when the window was cut still shows the
//!   old queue for about one RTT, and without this the "second indication"
//!   would follow the first on the next ACK every time. That ACK also
//!   restarts the smoothed delay from its own sample: the EWMA (gain 1/8 per
//!   ACK) still carries the queue the cut removed for ~8 samples, so without
//!   the restart the first ACK of post-cut data read as a second indication
//!   even on an idle path (measured: alone on 100 Mb/s, 40 ms, the halving
//!   at ~343 segments was followed by the drop to one segment every time).
//!   (Linux instead resets `owd_min = sowd`, `owd_max = 2 sowd` after each
//!   reaction, a step its source marks FIXME and the paper does not have.)
//!   Key `once_per_rtt` (both parts).
//! INFERRED: the halving also sets `ssthresh` to the halved window (floor
//!   2 SMSS), so that growth after itt is the paper's additive increase;
//!   Linux leaves ssthresh alone, so its growth after itt is slow start until
//!   the first loss. Key `cut_ssthresh` (false: Linux). The drop to one
//!   segment leaves ssthresh as it is (growth after itt is slow start back to
//!   it).
//! INFERRED: delay samples are floored to a 1 ms clock tick (key
//!   `owd_resolution`), the TCP timestamp clock TCP-LP reads (Linux:
//!   `TCP_TS_HZ = 1000`; the paper reads RFC 7323 timestamps). With exact
//!   delays, the 120 us a packet waits behind its twin in a two-packet burst
//!   on an otherwise idle 100 Mb/s path was the whole d_max - d_min range,
//!   so the flow's own ACK-clock bursts were indications and it stayed at 1-2
//!   segments (measured 0.5 % utilisation alone).
//! Alone on an idle path TCP-LP never sees more than its own ~1 ms of queue,
//!   so it halves just above the pipe and climbs back one segment per RTT:
//!   ~0.76 of a 100 Mb/s, 40 ms path (the sawtooth's closed form), not full
//!   use; with a d_max learned from other traffic it halves higher up.
//! INFERRED: no indication is acted on during loss recovery (the loss
//!   already cut the window; the delay samples are still recorded).
//! INFERRED: the delay statistics use only ACKs of new data (Linux's
//!   `pkts_acked`), and `d_max` is the plain maximum (Linux keeps the
//!   second-largest sample to forget an outlier; left out).
//! Units: cwnd and ssthresh are bytes (cwnd an `f64`), delays seconds.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, ParamError, SimTime};

use super::loss_window::LossWindow;
use super::reno_start;

/// Parameters of TCP-LP (`cc = { kind = "tcp_lp", delta = 0.15 }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpLpConfig {
    /// Indication threshold as a fraction of `d_max - d_min` above `d_min`
    /// (in [0, 1)). Default 0.15 (Kuzmanovic & Knightly; Linux `tcp_lp.c`).
    pub delta: f64,
    /// Weight of the newest one-way delay sample in the smoothed delay (in
    /// (0, 1]). Default 1/8 (the paper's gamma; Linux `sowd`).
    pub owd_gain: f64,
    /// Inference time-out, round-trip times (> 0). Default 3 (Linux
    /// `inference = 3 * rtt`).
    pub itt_rtts: f64,
    /// Window kept on the first indication (in (0, 1)). Default 1/2 (the
    /// paper's halving).
    pub decrease: f64,
    /// Window after a second indication within the inference time-out,
    /// segments (>= 1). Default 1 (the paper).
    pub inference_window: u32,
    /// The halving also sets ssthresh (growth after itt is additive); false
    /// leaves ssthresh as Linux does. Default true (INFERRED from the paper).
    pub cut_ssthresh: bool,
    /// Act on at most one indication per round trip, and restart the smoothed
    /// delay from the first ACK of data sent after a reaction. Default true
    /// (INFERRED).
    pub once_per_rtt: bool,
    /// After each reaction, restart the delay range from the smoothed delay
    /// s as Linux `tcp_lp.c` does (`owd_min = s`, `owd_max = 2 s`, so the
    /// next threshold is 1.15 s: about 15 % of the one-way delay of queue);
    /// a step the Linux source marks FIXME and the paper does not have.
    /// Default false (the paper: the range is the whole history's).
    pub owd_reset: bool,
    /// Clock tick of the one-way delay samples, seconds (>= 0; 0: exact):
    /// each sample is rounded down to a whole tick, as the TCP timestamps
    /// TCP-LP reads. Default 0.001 (Linux `tcp_lp.c` on 1 ms timestamps,
    /// `TCP_TS_HZ = 1000`).
    pub owd_resolution: f64,
    /// Initial window, segments (>= 1). Default: RFC 5681's rule by MSS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial slow-start threshold, segments (>= 1). Default: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
}

impl Default for TcpLpConfig {
    fn default() -> Self {
        TcpLpConfig {
            delta: 0.15,
            owd_gain: 0.125,
            itt_rtts: 3.0,
            decrease: 0.5,
            inference_window: 1,
            cut_ssthresh: true,
            once_per_rtt: true,
            owd_reset: false,
            owd_resolution: 0.001,
            initial_window: None,
            initial_ssthresh: None,
        }
    }
}

impl TcpLpConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(0.0..1.0).contains(&self.delta) {
            return Err(ParamError::new(
                "delta",
                format!("{} must be in [0, 1)", self.delta),
            ));
        }
        if !(self.owd_gain > 0.0 && self.owd_gain <= 1.0) {
            return Err(ParamError::new(
                "owd_gain",
                format!("{} must be in (0, 1]", self.owd_gain),
            ));
        }
        if !(self.itt_rtts.is_finite() && self.itt_rtts > 0.0) {
            return Err(ParamError::new(
                "itt_rtts",
                format!("{} must be > 0", self.itt_rtts),
            ));
        }
        if !(self.decrease > 0.0 && self.decrease < 1.0) {
            return Err(ParamError::new(
                "decrease",
                format!("{} must be in (0, 1)", self.decrease),
            ));
        }
        if !(self.owd_resolution.is_finite() && self.owd_resolution >= 0.0) {
            return Err(ParamError::new(
                "owd_resolution",
                format!("{} must be >= 0", self.owd_resolution),
            ));
        }
        if self.inference_window == 0 {
            return Err(ParamError::new("inference_window", "must be >= 1 segment"));
        }
        reno_start(self.initial_window, self.initial_ssthresh).validate()
    }
}

/// What an ACK did, for tests and traces.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LpReaction {
    /// No early congestion indication acted on.
    None,
    /// First indication: window cut by `decrease`, inference phase started.
    Halved,
    /// Indication within the inference time-out: window to `inference_window`.
    ToInferenceWindow,
}

/// TCP-LP's state.
#[derive(Clone, Debug)]
pub struct TcpLp {
    cfg: TcpLpConfig,
    w: LossWindow,
    /// Minimum and maximum one-way delay seen, seconds.
    d_min: f64,
    d_max: f64,
    /// Smoothed one-way delay, seconds (`None` before the first sample).
    sowd: Option<f64>,
    /// Latest RTT sample, seconds.
    rtt: f64,
    /// When the last early-indication cut happened.
    last_cut: Option<SimTime>,
    /// Bytes cumulatively acknowledged (the transport's `snd_una`).
    acked_total: u64,
    /// `snd_max` at the last reaction: indications wait for an ACK above it.
    guard: u64,
    /// The smoothed delay restarts at the first ACK above `guard`.
    restart: bool,
    /// What the last ACK did.
    last: LpReaction,
}

impl TcpLp {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &TcpLpConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        let w = LossWindow::new(cfg.initial_window, cfg.initial_ssthresh, mss)?;
        Ok(TcpLp {
            cfg: cfg.clone(),
            w,
            d_min: f64::INFINITY,
            d_max: 0.0,
            sowd: None,
            rtt: 0.0,
            last_cut: None,
            acked_total: 0,
            guard: 0,
            restart: false,
            last: LpReaction::None,
        })
    }

    /// True while in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.w.in_slow_start()
    }

    /// The indication threshold `d_min + delta (d_max - d_min)`, seconds
    /// (`None` before the first sample).
    pub fn threshold(&self) -> Option<f64> {
        self.sowd
            .map(|_| self.d_min + self.cfg.delta * (self.d_max - self.d_min))
    }

    /// The smoothed one-way delay, seconds.
    pub fn smoothed_owd(&self) -> Option<f64> {
        self.sowd
    }

    /// What the last ACK did.
    pub fn last_reaction(&self) -> LpReaction {
        self.last
    }

    /// Within the inference time-out of the last cut at `now`.
    fn within_inference(&self, now: SimTime) -> bool {
        self.last_cut
            .is_some_and(|t| now.saturating_since(t).as_secs_f64() < self.cfg.itt_rtts * self.rtt)
    }

    /// Record a one-way delay sample, seconds (before the clock's rounding).
    fn sample(&mut self, owd: f64) {
        let res = self.cfg.owd_resolution;
        let owd = if res > 0.0 {
            (owd / res).floor() * res
        } else {
            owd
        };
        self.d_min = self.d_min.min(owd);
        self.d_max = self.d_max.max(owd);
        let g = self.cfg.owd_gain;
        self.sowd = Some(self.sowd.map_or(owd, |s| s + g * (owd - s)));
    }
}

impl Controller for TcpLp {
    fn on_ack(&mut self, ack: &AckInfo) {
        self.last = LpReaction::None;
        if ack.acked == 0 {
            return;
        }
        let snd_max = self.acked_total + ack.in_flight;
        self.acked_total += ack.acked;
        if let Some(r) = ack.rtt {
            self.rtt = r.as_secs_f64();
        }
        let armed = !self.cfg.once_per_rtt || self.acked_total > self.guard;
        if armed && self.restart {
            self.restart = false;
            self.sowd = None;
        }
        if let Some(owd) = ack.owd {
            self.sample(owd.as_secs_f64());
        }
        let within = self.within_inference(ack.now);
        let indication = matches!((self.sowd, self.threshold()), (Some(s), Some(th)) if s > th);
        if indication && armed && !ack.in_recovery {
            let mss = self.w.mss as f64;
            if within {
                self.w.cwnd = f64::from(self.cfg.inference_window) * mss;
                self.last = LpReaction::ToInferenceWindow;
            } else {
                self.w.cwnd = (self.w.cwnd * self.cfg.decrease).max(mss);
                if self.cfg.cut_ssthresh {
                    self.w.ssthresh = (self.w.cwnd as u64).max(2 * self.w.mss);
                }
                self.last = LpReaction::Halved;
            }
            if let (true, Some(s)) = (self.cfg.owd_reset, self.sowd) {
                self.d_min = s;
                self.d_max = 2.0 * s;
            }
            self.last_cut = Some(ack.now);
            self.guard = snd_max;
            self.restart = self.cfg.once_per_rtt;
            return;
        }
        if within {
            return;
        }
        let Some(counted) = self.w.counted(ack) else {
            return;
        };
        if !self.w.slow_start(counted) {
            self.w.cwnd += self.w.mss as f64 * counted / self.w.cwnd;
        }
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        let (Congestion::Loss { in_flight }
        | Congestion::Ecn { in_flight }
        | Congestion::Timeout { in_flight }) = ev;
        self.guard = self.acked_total + in_flight;
        self.restart = self.cfg.once_per_rtt;
        let ssthresh = (in_flight / 2).max(2 * self.w.mss);
        self.w.cut(ssthresh, ev);
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

    fn lp(iw: u32) -> TcpLp {
        let cfg = TcpLpConfig {
            initial_window: Some(iw),
            initial_ssthresh: Some(1),
            owd_resolution: 0.0,
            ..Default::default()
        };
        TcpLp::new(&cfg, MSS).unwrap()
    }

    /// An ACK of one segment at `t_ms`, RTT 100 ms, one-way delay `owd_ms`,
    /// `flight` segments in flight before it.
    fn ack(t_ms: f64, owd_ms: f64, flight: u64) -> AckInfo {
        AckInfo {
            now: SimTime::ZERO + SimDuration::from_secs_f64(t_ms / 1e3),
            owd: Some(SimDuration::from_secs_f64(owd_ms / 1e3)),
            in_flight: flight * u64::from(MSS),
            ..AckInfo::segment(MSS, SimDuration::from_millis(100))
        }
    }

    #[test]
    fn the_threshold_is_d_min_plus_delta_of_the_range_and_sowd_an_ewma() {
        let mut c = lp(100);
        c.on_ack(&ack(0.0, 50.0, 100));
        assert_eq!(c.smoothed_owd(), Some(0.050));
        // d_min = d_max: threshold = d_min.
        assert!((c.threshold().unwrap() - 0.050).abs() < 1e-12);
        c.on_ack(&ack(1.0, 50.0, 100));
        assert_eq!(c.last_reaction(), LpReaction::None);
        // A 150 ms sample: d_max = 150, threshold = 50 + 0.15 * 100 = 65 ms;
        // sowd = 50 + (150 - 50)/8 = 62.5 ms: no indication.
        c.on_ack(&ack(2.0, 150.0, 100));
        assert!((c.threshold().unwrap() - 0.065).abs() < 1e-12);
        assert!((c.smoothed_owd().unwrap() - 0.0625).abs() < 1e-12);
        assert_eq!(c.last_reaction(), LpReaction::None);
        // Next at 70 ms: sowd = 62.5 + (70 - 62.5)/8 = 63.4375 < 65: none.
        c.on_ack(&ack(3.0, 70.0, 100));
        assert!((c.smoothed_owd().unwrap() - 0.0634375).abs() < 1e-12);
        assert_eq!(c.last_reaction(), LpReaction::None);
        // Next at 80 ms: sowd = 63.4375 + 16.5625/8 = 65.5078 > 65: indication.
        c.on_ack(&ack(4.0, 80.0, 100));
        assert_eq!(c.last_reaction(), LpReaction::Halved);
    }

    /// A controller of `w` segments that has seen d_min = 50 ms and
    /// d_max = 150 ms (threshold 65 ms) and a smoothed delay of 64 ms, just
    /// under it: the next 150 ms sample makes 64 + 86/8 = 74.75 ms.
    fn primed(w: u32) -> TcpLp {
        let mut c = lp(w);
        c.sample(0.150);
        c.sample(0.050);
        c.sowd = Some(0.064);
        c
    }

    #[test]
    fn first_indication_halves_then_a_second_within_itt_drops_to_one_segment() {
        let mut c = primed(100);
        c.on_ack(&ack(0.0, 150.0, 100));
        // sowd = 74.75 ms > 65 ms: halve, ssthresh to it.
        assert_eq!(c.last_reaction(), LpReaction::Halved);
        assert_eq!(c.window(), 50_000);
        assert_eq!(c.ssthresh(), Some(50_000));
        // The rest of that window (99 more segments were in flight) is
        // ignored: one reaction per round trip. No growth either (inference).
        for i in 1..100 {
            c.on_ack(&ack(i as f64, 150.0, 100 - i));
            assert_eq!(c.last_reaction(), LpReaction::None);
        }
        assert_eq!(c.window(), 50_000);
        // An ACK of data sent after the cut, 150 ms later (< itt = 3 x 100 ms),
        // still over the threshold: window to one segment.
        c.on_ack(&ack(150.0, 150.0, 50));
        assert_eq!(c.last_reaction(), LpReaction::ToInferenceWindow);
        assert_eq!(c.window(), 1000);
        assert_eq!(c.ssthresh(), Some(50_000));
    }

    #[test]
    fn owd_reset_restarts_the_range_from_the_smoothed_delay_as_linux() {
        let mut c = TcpLp::new(
            &TcpLpConfig {
                owd_reset: true,
                ..lp(100).cfg
            },
            MSS,
        )
        .unwrap();
        c.sample(0.150);
        c.sample(0.050);
        c.sowd = Some(0.064);
        c.on_ack(&ack(0.0, 150.0, 100));
        assert_eq!(c.last_reaction(), LpReaction::Halved);
        // Linux tcp_lp.c: owd_min = sowd, owd_max = 2 sowd (74.75 ms, 149.5
        // ms): the next threshold is 1.15 sowd = 85.96 ms.
        assert!((c.d_min - 0.07475).abs() < 1e-12 && (c.d_max - 0.1495).abs() < 1e-12);
        assert!((c.threshold().unwrap() - 1.15 * 0.07475).abs() < 1e-12);
    }

    #[test]
    fn an_indication_after_itt_halves_again_and_growth_waits_for_itt() {
        let mut c = primed(100);
        c.on_ack(&ack(0.0, 150.0, 100));
        assert_eq!(c.window(), 50_000);
        // Delay back to d_min: no indication; within itt no growth.
        c.sowd = Some(0.050);
        c.on_ack(&ack(250.0, 50.0, 60));
        assert_eq!(c.window(), 50_000);
        // After itt (300 ms): NewReno additive increase, SMSS^2 / cwnd.
        c.on_ack(&ack(301.0, 50.0, 60));
        assert!((c.w.cwnd - (50_000.0 + 1000.0 * 1000.0 / 50_000.0)).abs() < 1e-9);
        // A new indication after itt (a round trip after the cut, so armed)
        // halves again rather than dropping to one.
        c.guard = 0;
        c.sowd = Some(0.2);
        c.on_ack(&ack(400.0, 150.0, 60));
        assert_eq!(c.last_reaction(), LpReaction::Halved);
        assert_eq!(c.window(), 25_010);
    }

    #[test]
    fn samples_are_rounded_down_to_the_timestamp_tick() {
        let mut c = TcpLp::new(&TcpLpConfig::default(), MSS).unwrap();
        c.sample(0.020_123);
        c.sample(0.020_999);
        // Both read 20 ms on a 1 ms clock: no range, no indication.
        assert_eq!((c.d_min, c.d_max), (0.020, 0.020));
        c.sample(0.021_5);
        assert_eq!(c.d_max, 0.021);
    }

    #[test]
    fn losses_are_new_reno() {
        let mut c = lp(100);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 100_000 });
        assert_eq!(c.window(), 50_000);
        c.on_recovery_exit(SimTime::ZERO);
        assert_eq!(c.window(), 50_000);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 50_000 });
        assert_eq!((c.window(), c.ssthresh()), (1000, Some(25_000)));
        let mut c = lp(100);
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 100_000 });
        assert_eq!(c.window(), 50_000);
        // No growth on an ECE ACK.
        c.on_ack(&AckInfo {
            ece: true,
            ..ack(0.0, 50.0, 50)
        });
        assert_eq!(c.window(), 50_000);
    }

    #[test]
    fn without_cut_ssthresh_the_halving_leaves_slow_start_on() {
        let cfg = TcpLpConfig {
            cut_ssthresh: false,
            owd_resolution: 0.0,
            initial_window: Some(100),
            ..Default::default()
        };
        let mut c = TcpLp::new(&cfg, MSS).unwrap();
        c.sample(0.150);
        c.sample(0.050);
        c.sowd = Some(0.064);
        c.on_ack(&ack(0.0, 150.0, 100));
        assert_eq!(c.window(), 50_000);
        assert!(c.in_slow_start());
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig = toml::from_str("kind = \"tcp_lp\"\ndelta = 0.2").unwrap();
        assert_eq!(c.name(), "tcp_lp");
        assert_eq!(
            c,
            CcConfig::TcpLp(TcpLpConfig {
                delta: 0.2,
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
        assert_eq!(key("kind = \"tcp_lp\"\ndelta = 1.0"), "delta");
        assert_eq!(key("kind = \"tcp_lp\"\nowd_gain = 0.0"), "owd_gain");
        assert_eq!(key("kind = \"tcp_lp\"\nitt_rtts = 0.0"), "itt_rtts");
        assert_eq!(key("kind = \"tcp_lp\"\ndecrease = 1.0"), "decrease");
        assert_eq!(
            key("kind = \"tcp_lp\"\ninference_window = 0"),
            "inference_window"
        );
        assert!(toml::from_str::<CcConfig>("kind = \"tcp_lp\"\nitt = 3").is_err());
    }
}
