//! Scalable TCP: a multiplicative-increase, multiplicative-decrease window whose
//! recovery time after a loss does not grow with the window.
//!
//! Provenance:
//! - T. Kelly, "Scalable TCP: improving performance in highspeed wide area
//!   networks", ACM SIGCOMM CCR 33(2), 2003, section 2: in congestion avoidance
//!   each ACK grows `cwnd <- cwnd + a` (segments) and a loss sets
//!   `cwnd <- cwnd - b cwnd`, with the recommended `a = 0.01`, `b = 0.125`;
//!   the traditional TCP algorithm is used while `cwnd <= lwnd`, the legacy
//!   window, `lwnd = 16` segments.
//! - Seed 002 (Zhang 2008, E3.3, Fig. 6(b)/7) changes the increment to
//!   `a = 0.05` "for visibility"; its scenarios set `a = 0.05` explicitly.
//! - The Linux module `tcp_scalable.c` (the seed's ns-2 TCP-Linux 2.6.16.3) has
//!   no explicit legacy window: it adds one segment per `min(cwnd, AI_CNT)` ACKs
//!   (`AI_CNT` = 50 in 2.6-era kernels, "to account for delayed ack"; 100 since
//!   it counts acked segments), so below `AI_CNT` it grows as Reno, and it
//!   always decreases by 1/8 (`ssthresh = max(cwnd - cwnd/8, 2)`). Here the
//!   legacy window is the key `legacy_window` (default 16, the paper's lwnd);
//!   with one ACK per segment, `legacy_window = 50, a = 0.02` gives Linux
//!   2.6.16's increase, not its decrease (see below).
//! - Slow start as NewReno: RFC 5681 section 3.1 with RFC 3465 ABC, L = 2 SMSS.
//! - RFC 3168 section 6.1.2: ECN-Echo is treated as a loss (at most once per
//!   window, enforced by the transport), and no ACK carrying ECE grows cwnd.
//!
//! INFERRED: at or below the legacy window a loss halves the window (Reno,
//! RFC 5681 eq. 4 with its 2 SMSS floor), as "the traditional TCP algorithm"
//! of the paper; above it `cwnd = ssthresh = max((1 - b) cwnd, 2 SMSS)`.
//! INFERRED: the decrease acts on cwnd (the paper's and Linux's variable),
//! not on FlightSize.
//! INFERRED: the increase is byte-counted, `a * N / SMSS` segments for an ACK
//! of N new bytes, so delayed ACKs do not halve it (Linux's later `acked`
//! accounting); in the legacy regime `SMSS * N / cwnd` as NewReno.
//! INFERRED: congestion avoidance, like slow start, counts at most L = 2 SMSS
//! of an ACK (RFC 3465 section 2.3's reason for L: the large cumulative ACKs
//! after a retransmission timeout). Ordinary and delayed ACKs are unaffected;
//! without the cap, the ACKs that cover a NewReno recovery's worth of data
//! after a timeout (thousands of segments at 100 Mb/s) grew an aggressive
//! increase rule by hundreds of segments at once, far past the path.
//! Timeout: ssthresh as for a loss (the decrease above), cwnd = 1 SMSS
//! (RFC 5681's loss window).
//! Units: cwnd and ssthresh are bytes (cwnd an `f64`).

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, ParamError, SimTime};

use super::loss_window::LossWindow;
use super::reno_start;

/// Parameters of Scalable TCP (`cc = { kind = "scalable", a = 0.05 }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScalableConfig {
    /// Increase per acknowledged segment in congestion avoidance, segments
    /// (0 < a). Default 0.01 (Kelly 2003); seed 002 uses 0.05.
    pub a: f64,
    /// Multiplicative decrease on loss (0 < b < 1). Default 0.125 (Kelly 2003).
    pub b: f64,
    /// Legacy window lwnd, segments: at or below it the window follows Reno.
    /// Default 16 (Kelly 2003).
    pub legacy_window: u32,
    /// Initial window, segments (>= 1). Default: RFC 5681's rule by MSS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial slow-start threshold, segments (>= 1). Default: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig {
            a: 0.01,
            b: 0.125,
            legacy_window: 16,
            initial_window: None,
            initial_ssthresh: None,
        }
    }
}

impl ScalableConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.a.is_finite() && self.a > 0.0) {
            return Err(ParamError::new("a", format!("{} must be > 0", self.a)));
        }
        if !(self.b > 0.0 && self.b < 1.0) {
            return Err(ParamError::new(
                "b",
                format!("{} must be in (0, 1)", self.b),
            ));
        }
        reno_start(self.initial_window, self.initial_ssthresh).validate()
    }
}

/// Scalable TCP's state.
#[derive(Clone, Debug)]
pub struct Scalable {
    a: f64,
    b: f64,
    /// Legacy window, bytes.
    legacy: f64,
    /// Window, threshold and slow start (shared with the other loss-based
    /// controllers).
    w: LossWindow,
}

impl Scalable {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &ScalableConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        let w = LossWindow::new(cfg.initial_window, cfg.initial_ssthresh, mss)?;
        Ok(Scalable {
            a: cfg.a,
            b: cfg.b,
            legacy: f64::from(cfg.legacy_window) * mss as f64,
            w,
        })
    }

    /// True while in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.w.in_slow_start()
    }

    /// The threshold after a congestion signal, bytes: `(1 - b) cwnd` above
    /// the legacy window, `cwnd / 2` at or below it; at least 2 SMSS.
    fn decreased(&self) -> u64 {
        let factor = if self.w.cwnd > self.legacy {
            1.0 - self.b
        } else {
            0.5
        };
        ((self.w.cwnd * factor) as u64).max(2 * self.w.mss)
    }
}

impl Controller for Scalable {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo) {
        let Some(counted) = self.w.counted(ack) else {
            return;
        };
        let mss = self.w.mss as f64;
        if self.w.slow_start(counted) {
            return;
        }
        if self.w.cwnd <= self.legacy {
            self.w.cwnd += mss * counted / self.w.cwnd;
        } else {
            // a segments per acknowledged segment: a * N bytes for N bytes.
            self.w.cwnd += self.a * counted;
        }
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        let ssthresh = self.decreased();
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

    fn ack(ece: bool, in_recovery: bool) -> AckInfo {
        AckInfo {
            ece,
            in_recovery,
            ..AckInfo::segment(MSS, SimDuration::from_millis(100))
        }
    }

    fn stcp(a: f64, iw: u32) -> Scalable {
        let cfg = ScalableConfig {
            a,
            initial_window: Some(iw),
            initial_ssthresh: Some(1),
            ..Default::default()
        };
        Scalable::new(&cfg, MSS).unwrap()
    }

    #[test]
    fn above_the_legacy_window_each_ack_adds_a_segments() {
        let mut c = stcp(0.01, 100);
        for _ in 0..100 {
            c.on_ack(&ack(false, false));
        }
        // 100 ACKs of one segment: +1 segment (Kelly: a = 0.01 per ACK).
        assert!((c.w.cwnd - 101_000.0).abs() < 1e-6);
        let mut c = stcp(0.05, 100);
        for _ in 0..100 {
            c.on_ack(&ack(false, false));
        }
        assert!((c.w.cwnd - 105_000.0).abs() < 1e-6);
    }

    #[test]
    fn the_increase_is_multiplicative_per_round_trip() {
        // One window of ACKs multiplies cwnd by about (1 + a).
        let mut c = stcp(0.01, 1000);
        for _ in 0..1000 {
            c.on_ack(&ack(false, false));
        }
        assert_eq!(c.window(), 1_010_000);
    }

    #[test]
    fn at_or_below_the_legacy_window_it_is_reno() {
        let mut c = stcp(0.01, 10);
        c.on_ack(&ack(false, false));
        assert!((c.w.cwnd - (10_000.0 + 100.0)).abs() < 1e-9);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 10_000 });
        assert_eq!(c.window(), 5_050);
    }

    #[test]
    fn a_loss_above_the_legacy_window_removes_b_of_the_window() {
        for ev in [
            Congestion::Loss { in_flight: 0 },
            Congestion::Ecn { in_flight: 0 },
        ] {
            let mut c = stcp(0.01, 200);
            c.on_congestion(SimTime::ZERO, ev);
            assert_eq!(c.window(), 175_000);
            assert_eq!(c.ssthresh(), Some(175_000));
            c.on_recovery_exit(SimTime::ZERO);
            assert_eq!(c.window(), 175_000);
        }
    }

    #[test]
    fn timeout_sets_ssthresh_by_the_decrease_and_cwnd_to_one_segment() {
        let mut c = stcp(0.01, 200);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 0 });
        assert_eq!(c.ssthresh(), Some(175_000));
        assert_eq!(c.window(), 1000);
        assert!(c.in_slow_start());
    }

    #[test]
    fn no_growth_on_ecn_echo_or_in_recovery() {
        let mut c = stcp(0.01, 200);
        c.on_ack(&ack(true, false));
        c.on_ack(&ack(false, true));
        assert_eq!(c.window(), 200_000);
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig = toml::from_str("kind = \"scalable\"\na = 0.05").unwrap();
        assert_eq!(c.name(), "scalable");
        assert_eq!(
            c,
            CcConfig::Scalable(ScalableConfig {
                a: 0.05,
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
        assert_eq!(key("kind = \"scalable\"\nb = 1.0"), "b");
        assert_eq!(key("kind = \"scalable\"\na = 0.0"), "a");
        assert_eq!(
            key("kind = \"scalable\"\ninitial_window = 0"),
            "initial_window"
        );
        assert!(toml::from_str::<CcConfig>("kind = \"scalable\"\nlwnd = 3").is_err());
    }
}
