//! HighSpeed TCP: a response function that follows standard TCP up to a low
//! window and then needs ever fewer losses per round trip to keep a large window.
//!
//! Provenance:
//! - RFC 3649 (S. Floyd, HighSpeed TCP for Large Congestion Windows), section 5:
//!   the response function `w = (p / Low_P)^S Low_Window` with
//!   `S = (log High_Window - log Low_Window) / (log High_P - log Low_P)`, i.e.
//!   `w = 0.12 / p^0.835` for `Low_Window = 38`, `High_Window = 83000`,
//!   `High_P = 1e-7`; `Low_P` is standard TCP's loss rate at Low_Window under
//!   its response function `w = 1.2 / sqrt(p)` (section 5), `(1.2/38)^2 ~ 1e-3`;
//!   `b(w) = (High_Decrease - 0.5) (log w - log Low_Window)
//!   / (log High_Window - log Low_Window) + 0.5`, `High_Decrease = 0.1`;
//!   `a(w) = w^2 p(w) 2 b(w) / (2 - b(w))`, `p(w)` the response function
//!   inverted (the RFC prints it rounded as `0.078 / w^1.2`).
//!   Congestion avoidance: `w <- w + a(w) / w` per ACK; a congestion event:
//!   `w <- (1 - b(w)) w`. At or below Low_Window, `a = 1` and `b = 0.5`
//!   (standard TCP).
//! - RFC 3649 appendix B's table (a(w), b(w) at the windows where a(w) reaches
//!   each integer) is what Linux `tcp_highspeed.c` (the seed's ns-2 TCP-Linux)
//!   looks up; here the section 5 formulas are evaluated instead. The table was
//!   computed with the rounded `0.078 / w^1.2`: the unrounded power law through
//!   (Low_Window, Low_P) and (High_Window, High_P) gives a(w) up to ~2 % larger
//!   at large windows and p(w) up to 2.5 % larger (at High_Window, where the
//!   unrounded curve gives exactly High_P; unit tests
//!   `a_and_b_match_rfc_3649_appendix_b`, `the_response_function_is_rfc_3649s_closed_form`).
//! - Slow start as NewReno: RFC 5681 section 3.1 with RFC 3465 ABC, L = 2 SMSS
//!   (RFC 3649 leaves slow start unchanged; its Limited Slow-Start, RFC 3742, is
//!   not implemented).
//! - RFC 3168 section 6.1.2: ECN-Echo is treated as a loss (at most once per
//!   window, enforced by the transport), and no ACK carrying ECE grows cwnd.
//!
//! INFERRED: the decrease acts on cwnd (RFC 3649's w; Linux's snd_cwnd), with
//! RFC 5681's 2 SMSS floor. Timeout: ssthresh = `(1 - b(w)) w` as for a loss,
//! cwnd = 1 SMSS (RFC 5681's loss window).
//! INFERRED: the increase is byte-counted, `a(w) SMSS N / cwnd` for an ACK of N
//! new bytes (NewReno's rule scaled by a(w)).
//! INFERRED: congestion avoidance, like slow start, counts at most L = 2 SMSS
//! of an ACK (RFC 3465 section 2.3's reason for L: the large cumulative ACKs
//! after a retransmission timeout). Ordinary and delayed ACKs are unaffected;
//! without the cap, the ACKs that cover a NewReno recovery's worth of data
//! after a timeout (thousands of segments at 100 Mb/s) grew an aggressive
//! increase rule by hundreds of segments at once, far past the path.
//! Units: cwnd and ssthresh are bytes (cwnd an `f64`); windows in the keys are
//! segments.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, ParamError, SimTime};

use super::loss_window::LossWindow;
use super::reno_start;

/// Parameters of HighSpeed TCP (`cc = { kind = "highspeed" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HighSpeedConfig {
    /// Low_Window, segments (> 0): standard TCP at or below it. Default 38
    /// (RFC 3649 section 5).
    pub low_window: f64,
    /// High_Window, segments (> low_window). Default 83000 (RFC 3649).
    pub high_window: f64,
    /// High_P, the loss rate at High_Window (0 < high_p < Low_P). Default 1e-7.
    pub high_p: f64,
    /// High_Decrease, b at High_Window (0 < high_decrease <= 0.5). Default 0.1.
    pub high_decrease: f64,
    /// Initial window, segments (>= 1). Default: RFC 5681's rule by MSS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial slow-start threshold, segments (>= 1). Default: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
}

impl Default for HighSpeedConfig {
    fn default() -> Self {
        HighSpeedConfig {
            low_window: 38.0,
            high_window: 83_000.0,
            high_p: 1e-7,
            high_decrease: 0.1,
            initial_window: None,
            initial_ssthresh: None,
        }
    }
}

impl HighSpeedConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.low_window.is_finite() && self.low_window > 1.2) {
            return Err(ParamError::new(
                "low_window",
                format!("{} must be > 1.2 segments", self.low_window),
            ));
        }
        if !(self.high_window.is_finite() && self.high_window > self.low_window) {
            return Err(ParamError::new(
                "high_window",
                format!("{} must be > low_window", self.high_window),
            ));
        }
        if !(self.high_p > 0.0 && self.high_p < self.low_p()) {
            return Err(ParamError::new(
                "high_p",
                format!(
                    "{} must be in (0, Low_P = {:.3e}), standard TCP's loss rate at low_window",
                    self.high_p,
                    self.low_p()
                ),
            ));
        }
        if !(self.high_decrease > 0.0 && self.high_decrease <= 0.5) {
            return Err(ParamError::new(
                "high_decrease",
                format!("{} must be in (0, 0.5]", self.high_decrease),
            ));
        }
        reno_start(self.initial_window, self.initial_ssthresh).validate()
    }

    /// Low_P: standard TCP's loss rate at Low_Window, `(1.2 / Low_Window)^2`.
    pub fn low_p(&self) -> f64 {
        (1.2 / self.low_window).powi(2)
    }

    /// RFC 3649 section 5: the decrease factor b(w) at a window of `w` segments.
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        (self.high_decrease - 0.5) * (w.ln() - self.low_window.ln())
            / (self.high_window.ln() - self.low_window.ln())
            + 0.5
    }

    /// The response function inverted: the loss rate p(w) at which the
    /// average window is `w` segments (`~0.078 / w^1.2` for the defaults).
    pub fn p(&self, w: f64) -> f64 {
        let low_p = self.low_p();
        let exponent = (self.high_p / low_p).ln() / (self.high_window / self.low_window).ln();
        low_p * (w / self.low_window).powf(exponent)
    }

    /// RFC 3649 section 5: the increase a(w), segments per round trip, at a
    /// window of `w` segments.
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        let b = self.b(w);
        w * w * self.p(w) * 2.0 * b / (2.0 - b)
    }
}

/// HighSpeed TCP's state.
#[derive(Clone, Debug)]
pub struct HighSpeed {
    cfg: HighSpeedConfig,
    /// Window, threshold and slow start (shared with the other loss-based
    /// controllers).
    w: LossWindow,
}

impl HighSpeed {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &HighSpeedConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        let w = LossWindow::new(cfg.initial_window, cfg.initial_ssthresh, mss)?;
        Ok(HighSpeed {
            cfg: cfg.clone(),
            w,
        })
    }

    /// True while in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.w.in_slow_start()
    }

    /// `(1 - b(w)) cwnd`, at least 2 SMSS, bytes.
    fn decreased(&self) -> u64 {
        let b = self.cfg.b(self.w.segments());
        ((self.w.cwnd * (1.0 - b)) as u64).max(2 * self.w.mss)
    }
}

impl Controller for HighSpeed {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo) {
        let Some(counted) = self.w.counted(ack) else {
            return;
        };
        if !self.w.slow_start(counted) {
            let a = self.cfg.a(self.w.segments());
            self.w.cwnd += a * self.w.mss as f64 * counted / self.w.cwnd;
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

    fn hstcp(iw: u32) -> HighSpeed {
        let cfg = HighSpeedConfig {
            initial_window: Some(iw),
            initial_ssthresh: Some(1),
            ..Default::default()
        };
        HighSpeed::new(&cfg, MSS).unwrap()
    }

    /// RFC 3649 appendix B (w, a(w), b(w)), as Linux tcp_highspeed.c carries it.
    const TABLE: [(f64, f64, f64); 20] = [
        (38.0, 1.0, 0.50),
        (118.0, 2.0, 0.44),
        (221.0, 3.0, 0.41),
        (347.0, 4.0, 0.38),
        (495.0, 5.0, 0.37),
        (663.0, 6.0, 0.35),
        (851.0, 7.0, 0.34),
        (1058.0, 8.0, 0.33),
        (1284.0, 9.0, 0.32),
        (1529.0, 10.0, 0.31),
        (1793.0, 11.0, 0.30),
        (2076.0, 12.0, 0.29),
        (2378.0, 13.0, 0.28),
        (2699.0, 14.0, 0.28),
        (3039.0, 15.0, 0.27),
        (3399.0, 16.0, 0.27),
        (5036.0, 20.0, 0.25),
        (9991.0, 29.0, 0.21),
        (12834.0, 33.0, 0.20),
        (22101.0, 43.0, 0.17),
    ];

    #[test]
    fn a_and_b_match_rfc_3649_appendix_b() {
        let c = HighSpeedConfig::default();
        for (w, a, b) in TABLE {
            // b(w) is printed to two decimals (0.3849 is printed 0.38).
            assert!((c.b(w) - b).abs() <= 0.006, "b({w}) = {}", c.b(w));
            // The table's a(w) come from the rounded p(w) = 0.078 / w^1.2; the
            // unrounded power law is within 2.5 % of them (a(38) = 0.96).
            assert!(
                (c.a(w) - a).abs() <= 0.025 * a + 0.05,
                "a({w}) = {}",
                c.a(w)
            );
            // With the RFC's printed p(w), a(w) is the table's integer.
            let bw = c.b(w);
            let a_rounded = w * w * (0.078 / w.powf(1.2)) * 2.0 * bw / (2.0 - bw);
            assert!((a_rounded - a).abs() < 0.05, "rounded a({w}) = {a_rounded}");
        }
    }

    #[test]
    fn the_response_function_is_rfc_3649s_closed_form() {
        let c = HighSpeedConfig::default();
        for w in [38.0, 100.0, 1000.0, 10_000.0, 83_000.0] {
            // w = 0.12 / p^0.835 within the RFC's rounding of its constants.
            let w_of_p = 0.12 / c.p(w).powf(0.835);
            assert!((w_of_p / w - 1.0).abs() < 0.02, "w({}) = {w_of_p}", c.p(w));
            // The RFC's rounded p(w) = 0.078 / w^1.2 is 2.5 % below High_P at
            // High_Window; the unrounded curve passes through it exactly.
            assert!((c.p(w) / (0.078 / w.powf(1.2)) - 1.0).abs() < 0.03);
        }
        // At High_Window: p = High_P, b = High_Decrease, and
        // a = High_Window^2 High_P 2 High_Decrease / (2 - High_Decrease) = 72.5.
        assert!((c.p(83_000.0) / 1e-7 - 1.0).abs() < 1e-9);
        assert!((c.b(83_000.0) - 0.1).abs() < 1e-12);
        assert!((c.a(83_000.0) - 83_000f64.powi(2) * 1e-7 * 0.2 / 1.9).abs() < 1e-6);
    }

    #[test]
    fn at_or_below_low_window_it_is_standard_tcp() {
        let mut c = hstcp(30);
        c.on_ack(&ack(false, false));
        assert!((c.w.cwnd - (30_000.0 + 1000.0 * 1000.0 / 30_000.0)).abs() < 1e-9);
        let mut c = hstcp(38);
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 0 });
        assert_eq!(c.window(), 19_000);
    }

    #[test]
    fn congestion_avoidance_adds_a_w_segments_per_window() {
        let mut c = hstcp(1058);
        let a = HighSpeedConfig::default().a(1058.0);
        for _ in 0..1058 {
            c.on_ack(&ack(false, false));
        }
        // One window of ACKs adds about a(w) segments (a(1058) ~ 8).
        let added = c.w.cwnd / 1000.0 - 1058.0;
        assert!((added - a).abs() < 0.05, "added {added}, a = {a}");
    }

    #[test]
    fn a_congestion_event_removes_b_w_of_the_window() {
        for ev in [
            Congestion::Loss { in_flight: 0 },
            Congestion::Ecn { in_flight: 0 },
        ] {
            let mut c = hstcp(1058);
            let b = HighSpeedConfig::default().b(1058.0);
            c.on_congestion(SimTime::ZERO, ev);
            assert_eq!(c.window(), (1_058_000.0 * (1.0 - b)) as u64);
            assert_eq!(c.ssthresh(), Some(c.window()));
        }
    }

    #[test]
    fn timeout_sets_ssthresh_by_b_w_and_cwnd_to_one_segment() {
        let mut c = hstcp(1058);
        let b = HighSpeedConfig::default().b(1058.0);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 0 });
        assert_eq!(c.ssthresh(), Some((1_058_000.0 * (1.0 - b)) as u64));
        assert_eq!(c.window(), 1000);
        assert!(c.in_slow_start());
    }

    #[test]
    fn no_growth_on_ecn_echo_or_in_recovery() {
        let mut c = hstcp(500);
        c.on_ack(&ack(true, false));
        c.on_ack(&ack(false, true));
        assert_eq!(c.window(), 500_000);
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig = toml::from_str("kind = \"highspeed\"\nhigh_decrease = 0.2").unwrap();
        assert_eq!(c.name(), "highspeed");
        assert_eq!(
            c,
            CcConfig::Highspeed(HighSpeedConfig {
                high_decrease: 0.2,
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
        assert_eq!(
            key("kind = \"highspeed\"\nhigh_decrease = 0.7"),
            "high_decrease"
        );
        assert_eq!(
            key("kind = \"highspeed\"\nhigh_window = 20.0"),
            "high_window"
        );
        assert_eq!(key("kind = \"highspeed\"\nhigh_p = 0.01"), "high_p");
        assert_eq!(key("kind = \"highspeed\"\nlow_window = 0.0"), "low_window");
        assert!(toml::from_str::<CcConfig>("kind = \"highspeed\"\nlow_p = 0.001").is_err());
    }
}
