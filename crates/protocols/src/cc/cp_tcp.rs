//! CP-TCP: congestion-pricing TCP with the Direct Window Update: per ACK in
//! congestion avoidance, the window moves by `kappa_bar (w RTT / cwnd - p)`,
//! so that it settles where the charge `p x` equals the willingness to pay
//! `w`: `x = cwnd / RTT = w / p`, RTT-independent (weighted proportional
//! fairness).
//!
//! Provenance (Zimmermann 2005, spec `seed-000-zimmermann.md`):
//! - Sec. 4.2.1, eqs. 4.2.1-4.2.3 (spec 2.3.1): Kelly's primal rate law
//!   `x(t+T) = x(t) + kappa T (w - p x)`, in window form with `T = RTT/cwnd`
//!   per ACK: `delta_cwnd = kappa_bar (w RTT / cwnd - p)`, `kappa_bar =
//!   kappa RTT` (dimensionless); units Table 4.2.1: cwnd packets, w
//!   packets/s, RTT s, p dimensionless. Equilibrium `w = p x`.
//! - Sec. 4.3.1: the rule replaces ns-2's congestion avoidance; "slow start
//!   and TCP's normal reaction to packet loss were left unchanged"; cwnd is
//!   real-valued. Keys `slow_start`, `initial_window`, `initial_ssthresh`
//!   (spec 2.1's 1 and 32 segments).
//! - Sec. 4.4.1 (E2): "limits the amount of congestion window change to 1 per
//!   acknowledgment": `max_step`, off by default (spec 2.3.1's reading (a);
//!   reading (b), Vegas/CP with EPF, is `vegas_cp` with `feedback =
//!   "explicit"`).
//! - Table 5.4.2: the same source with the price from 1 bit, 4 bits or EPF
//!   (`feedback`, see `price_estimate`) and the rate estimate from the
//!   smoothed or the minimum RTT (`rtt`). `feedback = "per_ack"` is SBRM's
//!   source variant 2 (Sec. 5.4.2): each ACK's mark is its price, 0 or 1.
//!
//! INFERRED: an ACK of `n` segments (delayed ACKs; n <= 2, RFC 3465's L)
//!   applies the update n times' worth, `kappa_bar n (w RTT / cwnd - p)`,
//!   so the gain per packet, and the equilibrium, do not depend on the ACK
//!   ratio; with `per_ack` a marked ACK (the per-packet echo acknowledges
//!   each marked packet on its own ACK) subtracts `kappa_bar` once.
//! INFERRED: duplicate ACKs and ACKs in loss recovery do not move the window
//!   (the thesis's rule runs "per ACK in congestion avoidance"); they still
//!   feed the price estimate.
//! INFERRED: slow start (NewReno's growth) also ends, beside at ssthresh and
//!   at a loss, on the first ACK on which the rule would shrink the window
//!   (`p > w RTT / cwnd`: the window has passed its equilibrium for the price
//!   it sees); that ACK's update then applies. Without this, a window whose
//!   equilibrium is a few packets would overshoot to ssthresh = 32 first.
//! With `one_bit` and `per_ack` feedback the marks are echoed per packet
//!   (`EcnFeedback::PerPacket`, which needs `tcp.ecn = true`): the transport
//!   then never halves the window on its own. With `explicit` and
//!   `four_bit` the price rides in the header and ECN is RFC 3168's
//!   (INFERRED: an ECN-Echo, only if the transport is ECN-capable and a link
//!   marks, is a congestion signal like a loss: NewReno's halving).
//! Units: `w` packets/s, `kappa_bar` dimensionless, the window in segments
//!   (f64), RTT seconds, price dimensionless.

use serde::{Deserialize, Serialize};
use sim_core::{
    AckInfo, CcHeader, Congestion, Controller, EcnFeedback, HeaderFamily, ParamError, SimTime,
};

use super::price_estimate::{
    PriceEstimateConfig, PriceEstimator, PriceFeedback, RateRtt, RttTracker,
};
use super::pricing_window::{
    positive, PricingWindow, DEFAULT_INITIAL_SSTHRESH, DEFAULT_INITIAL_WINDOW,
};

/// Parameters of CP-TCP (`cc = { kind = "cp_tcp", w = 20.0, ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CpTcpConfig {
    /// Willingness to pay, packets/s (> 0). Default 20 (the parking lot's
    /// w, Sec. 4.4.1).
    pub w: f64,
    /// Gain per ACK, kappa_bar = kappa RTT (dimensionless, > 0). Default
    /// 0.01 (\[I\]: the "kappa = 0.01" in the garbled Table 4.3.1, spec E1).
    pub kappa_bar: f64,
    /// Where the price comes from: `"explicit"` (EPF, default), `"one_bit"`,
    /// `"four_bit"` or `"per_ack"`.
    pub feedback: PriceFeedback,
    /// Sliding history of the 1-bit and 4-bit estimates, packets (>= 1).
    /// Default 50 (Sec. 5.2.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<u32>,
    /// Base of the 1-bit code (> 1). Default 1.06 (Sec. 5.2.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phi: Option<f64>,
    /// Bases of the 4-bit code, bit 0 first (each > 1, 1 to 8 of them).
    /// Default [1.06, 1.007, 1.001, 1.00015] (Sec. 5.2.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phis: Option<Vec<f64>>,
    /// The RTT in the update: `"srtt"` (default) or `"min_rtt"`.
    pub rtt: RateRtt,
    /// Largest |change| of the window per ACK, segments (> 0). Default:
    /// none (E2's "limited to 1 per ACK" sets 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_step: Option<f64>,
    /// NewReno slow start at the start and after a timeout. Default true.
    pub slow_start: bool,
    /// Initial window, segments (>= 1). Default 1 (spec 2.1).
    pub initial_window: u32,
    /// Initial slow-start threshold, segments (>= 1). Default 32 (spec 2.1).
    pub initial_ssthresh: u32,
    /// Smallest window, segments (>= 1). Default 1.
    pub min_window: f64,
}

impl Default for CpTcpConfig {
    fn default() -> Self {
        CpTcpConfig {
            w: 20.0,
            kappa_bar: 0.01,
            feedback: PriceFeedback::Explicit,
            history: None,
            phi: None,
            phis: None,
            rtt: RateRtt::Srtt,
            max_step: None,
            slow_start: true,
            initial_window: DEFAULT_INITIAL_WINDOW,
            initial_ssthresh: DEFAULT_INITIAL_SSTHRESH,
            min_window: 1.0,
        }
    }
}

impl CpTcpConfig {
    /// The price-estimate keys.
    pub fn price(&self) -> PriceEstimateConfig {
        PriceEstimateConfig {
            feedback: self.feedback,
            history: self.history,
            phi: self.phi,
            phis: self.phis.clone(),
        }
    }

    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        positive("w", self.w)?;
        positive("kappa_bar", self.kappa_bar)?;
        if let Some(m) = self.max_step {
            positive("max_step", m)?;
        }
        self.price().validate()?;
        super::pricing_window::check_window_keys(
            self.initial_window,
            self.initial_ssthresh,
            self.min_window,
        )
    }
}

/// Eq. 4.2.3 for an ACK of `n` segments: `kappa_bar (n w RTT / cwnd -
/// p_term)` segments, with `p_term` the price paid for them (`n p` for a
/// price estimate, the ACK's 0/1 mark for `per_ack`).
#[inline]
pub fn direct_update(kappa_bar: f64, w: f64, rtt: f64, cwnd: f64, n: f64, p_term: f64) -> f64 {
    kappa_bar * (n * w * rtt / cwnd - p_term)
}

/// CP-TCP's state.
#[derive(Clone, Debug)]
pub struct CpTcp {
    cfg: CpTcpConfig,
    win: PricingWindow,
    est: PriceEstimator,
    rtt: RttTracker,
}

impl CpTcp {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &CpTcpConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(CpTcp {
            win: PricingWindow::new(
                cfg.initial_window,
                cfg.initial_ssthresh,
                cfg.min_window,
                cfg.slow_start,
                mss,
            )?,
            est: PriceEstimator::new(&cfg.price())?,
            rtt: RttTracker::new(cfg.rtt),
            cfg: cfg.clone(),
        })
    }

    /// The window, segments.
    pub fn cwnd_pkts(&self) -> f64 {
        self.win.segments()
    }

    /// The current price estimate (dimensionless).
    pub fn price(&self) -> f64 {
        self.est.price()
    }

    /// The price estimator.
    pub fn estimator(&self) -> &PriceEstimator {
        &self.est
    }

    /// True while in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.win.in_slow_start()
    }
}

impl Controller for CpTcp {
    fn on_ack(&mut self, ack: &AckInfo) {
        let counted = self.win.counted(ack);
        self.est.on_ack(ack, counted.unwrap_or(1.0));
        let rtt = self.rtt.on_ack(ack);
        let (Some(n), Some(rtt)) = (counted, rtt) else {
            return;
        };
        let p = self.est.price();
        let p_term = if self.cfg.feedback == PriceFeedback::PerAck {
            p
        } else {
            n * p
        };
        let c = &self.cfg;
        let mut delta = direct_update(c.kappa_bar, c.w, rtt, self.win.segments(), n, p_term);
        if let Some(m) = c.max_step {
            delta = delta.clamp(-m, m);
        }
        self.win.apply(delta, n);
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        self.win.reno_cut(ev);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.win.recovery_exit();
    }

    #[inline]
    fn window(&self) -> u64 {
        self.win.bytes()
    }

    fn ssthresh(&self) -> Option<u64> {
        Some(self.win.ssthresh())
    }

    fn stamp(&mut self, _now: SimTime, _len: u32, hdr: &mut CcHeader) {
        self.cfg.feedback.stamp(hdr);
    }

    fn header_family(&self) -> HeaderFamily {
        self.cfg.feedback.header_family()
    }

    fn ecn_feedback(&self) -> EcnFeedback {
        self.cfg.feedback.ecn_feedback()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcConfig;
    use sim_core::PriceHeader;
    use sim_core::SimDuration;

    const MSS: u32 = 1000;

    fn cp(toml_text: &str) -> CpTcp {
        let cfg: CpTcpConfig = toml::from_str(toml_text).unwrap();
        CpTcp::new(&cfg, MSS).unwrap()
    }

    /// An ACK of one segment with RTT (sample and smoothed) `rtt_ms` and the
    /// echoed price `p`.
    fn ack(rtt_ms: u64, p: f64) -> AckInfo {
        AckInfo {
            cc: CcHeader::Price(PriceHeader { price: p, marks: 0 }),
            ..AckInfo::segment(MSS, SimDuration::from_millis(rtt_ms))
        }
    }

    #[test]
    fn each_ack_in_congestion_avoidance_applies_eq_4_2_3() {
        let mut c = cp("w = 100.0\nkappa_bar = 0.5\nslow_start = false\ninitial_window = 10");
        // delta = 0.5 (100 * 0.1 / 10 - 0.4) = 0.3.
        c.on_ack(&ack(100, 0.4));
        assert!((c.cwnd_pkts() - 10.3).abs() < 1e-12, "{}", c.cwnd_pkts());
        // Then 0.5 (10 / 10.3 - 2.0) < 0.
        c.on_ack(&ack(100, 2.0));
        let want = 10.3 + 0.5 * (10.0 / 10.3 - 2.0);
        assert!((c.cwnd_pkts() - want).abs() < 1e-12);
        // A delayed ACK of two segments counts twice.
        let mut c = cp("w = 100.0\nkappa_bar = 0.5\nslow_start = false\ninitial_window = 10");
        c.on_ack(&AckInfo {
            acked: 2000,
            ..ack(100, 0.4)
        });
        assert!((c.cwnd_pkts() - 10.6).abs() < 1e-12);
    }

    #[test]
    fn the_window_rests_where_w_equals_p_x() {
        // x = w / p = 50 / 0.5 = 100 pkts/s; at RTT 0.2 s, cwnd = 20.
        let mut c = cp("w = 50.0\nkappa_bar = 0.1\nslow_start = false\ninitial_window = 20");
        c.on_ack(&ack(200, 0.5));
        assert!((c.cwnd_pkts() - 20.0).abs() < 1e-12);
        // From elsewhere it converges there: contraction by kappa_bar p / cwnd per ACK.
        let mut c = cp("w = 50.0\nkappa_bar = 0.1\nslow_start = false\ninitial_window = 5");
        for _ in 0..20_000 {
            c.on_ack(&ack(200, 0.5));
        }
        assert!((c.cwnd_pkts() - 20.0).abs() < 1e-6, "{}", c.cwnd_pkts());
    }

    #[test]
    fn max_step_clamps_the_change_per_ack() {
        let mut c = cp(
            "w = 1000.0\nkappa_bar = 1.0\nmax_step = 1.0\nslow_start = false\ninitial_window = 10",
        );
        c.on_ack(&ack(100, 0.0)); // unclamped +10
        assert_eq!(c.cwnd_pkts(), 11.0);
        c.on_ack(&ack(100, 50.0)); // unclamped about -41
        assert_eq!(c.cwnd_pkts(), 10.0);
    }

    #[test]
    fn the_window_keeps_its_floor() {
        let mut c = cp("w = 1.0\nkappa_bar = 1.0\nslow_start = false\ninitial_window = 3");
        c.on_ack(&ack(100, 100.0));
        assert_eq!(c.cwnd_pkts(), 1.0);
        assert_eq!(c.window(), 1000);
    }

    #[test]
    fn slow_start_grows_until_the_price_says_too_much() {
        let mut c = cp("w = 50.0\nkappa_bar = 0.1");
        assert!(c.in_slow_start());
        assert_eq!(c.cwnd_pkts(), 1.0);
        // Equilibrium at RTT 0.1 s and p = 0.5: 10 segments.
        for _ in 0..9 {
            c.on_ack(&ack(100, 0.5));
        }
        assert_eq!(c.cwnd_pkts(), 10.0);
        assert!(c.in_slow_start());
        c.on_ack(&ack(100, 0.5)); // delta = 0 keeps growing
        assert_eq!(c.cwnd_pkts(), 11.0);
        c.on_ack(&ack(100, 0.5)); // delta < 0: leave slow start, apply it
        assert!(!c.in_slow_start());
        let want = 11.0 + 0.1 * (5.0 / 11.0 - 0.5);
        assert!((c.cwnd_pkts() - want).abs() < 1e-12);
        // With no price, slow start runs to ssthresh = 32.
        let mut c = cp("w = 50.0");
        for _ in 0..40 {
            c.on_ack(&ack(100, 0.0));
        }
        assert!(!c.in_slow_start());
        assert!(c.cwnd_pkts() > 32.0 && c.cwnd_pkts() < 33.0);
    }

    #[test]
    fn recovery_and_duplicate_acks_leave_the_window_alone() {
        let mut c = cp("slow_start = false\ninitial_window = 10");
        c.on_ack(&AckInfo {
            in_recovery: true,
            ..ack(100, 0.0)
        });
        c.on_ack(&AckInfo {
            acked: 0,
            ..ack(100, 0.0)
        });
        assert_eq!(c.cwnd_pkts(), 10.0);
        // But the duplicate's price was read.
        c.on_ack(&AckInfo {
            acked: 0,
            ..ack(100, 0.7)
        });
        assert_eq!(c.price(), 0.7);
    }

    #[test]
    fn min_rtt_rate_estimate_uses_the_smallest_sample() {
        let mut c =
            cp("w = 100.0\nkappa_bar = 1.0\nrtt = \"min_rtt\"\nslow_start = false\ninitial_window = 10");
        c.on_ack(&ack(100, 0.0)); // +1.0
        c.on_ack(&AckInfo {
            rtt: Some(SimDuration::from_millis(300)),
            srtt: Some(SimDuration::from_millis(300)),
            ..ack(100, 0.0)
        }); // min RTT still 0.1: +100 * 0.1 / 11
        assert!((c.cwnd_pkts() - (11.0 + 10.0 / 11.0)).abs() < 1e-12);
    }

    #[test]
    fn per_ack_feedback_is_sbrm_variant_two() {
        let mut c = cp(
            "feedback = \"per_ack\"\nw = 20.0\nkappa_bar = 0.1\nslow_start = false\ninitial_window = 10",
        );
        let a = AckInfo::segment(MSS, SimDuration::from_millis(100));
        c.on_ack(&a); // + 0.1 * 20 * 0.1 / 10 = 0.02
        assert!((c.cwnd_pkts() - 10.02).abs() < 1e-12);
        c.on_ack(&AckInfo { ece: true, ..a }); // + 0.1 (2 / 10.02 - 1)
        assert!((c.cwnd_pkts() - (10.02 + 0.1 * (2.0 / 10.02 - 1.0))).abs() < 1e-12);
        assert_eq!(c.header_family(), HeaderFamily::None);
    }

    #[test]
    fn header_family_and_stamp_follow_the_feedback() {
        let mut c = cp("");
        assert_eq!(c.header_family(), HeaderFamily::Price);
        let mut h = CcHeader::None;
        c.stamp(SimTime::ZERO, 1000, &mut h);
        assert_eq!(h, CcHeader::Price(PriceHeader::default()));
        assert_eq!(c.ecn_feedback(), EcnFeedback::Classic);
        let mut c = cp("feedback = \"one_bit\"\nphi = 1.007");
        let mut h = CcHeader::None;
        c.stamp(SimTime::ZERO, 1000, &mut h);
        assert_eq!(h, CcHeader::None);
        assert_eq!(c.header_family(), HeaderFamily::None);
        assert_eq!(c.ecn_feedback(), EcnFeedback::PerPacket);
        assert_eq!(
            cp("feedback = \"four_bit\"").header_family(),
            HeaderFamily::Price
        );
    }

    #[test]
    fn losses_react_as_new_reno() {
        let mut c = cp("slow_start = false\ninitial_window = 40");
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 40_000 });
        assert_eq!(c.window(), 20_000);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 20_000 });
        assert_eq!(c.window(), 1000);
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig = toml::from_str("kind = \"cp_tcp\"\nw = 100.0\nkappa_bar = 0.05").unwrap();
        assert_eq!(c.name(), "cp_tcp");
        assert_eq!(
            c,
            CcConfig::CpTcp(CpTcpConfig {
                w: 100.0,
                kappa_bar: 0.05,
                ..Default::default()
            })
        );
        assert_eq!(c.build(1000).unwrap().window(), 1000);
        let key = |t: &str| {
            toml::from_str::<CcConfig>(t)
                .unwrap()
                .validate()
                .unwrap_err()
                .key
        };
        assert_eq!(key("kind = \"cp_tcp\"\nw = 0.0"), "w");
        assert_eq!(key("kind = \"cp_tcp\"\nkappa_bar = -1.0"), "kappa_bar");
        assert_eq!(key("kind = \"cp_tcp\"\nmax_step = 0.0"), "max_step");
        assert_eq!(key("kind = \"cp_tcp\"\nphi = 1.06"), "phi");
        assert_eq!(
            key("kind = \"cp_tcp\"\nfeedback = \"one_bit\"\nphi = 0.5"),
            "phi"
        );
        assert_eq!(key("kind = \"cp_tcp\"\nmin_window = 0.0"), "min_window");
        assert_eq!(
            key("kind = \"cp_tcp\"\ninitial_window = 0"),
            "initial_window"
        );
        assert!(toml::from_str::<CcConfig>("kind = \"cp_tcp\"\nkappa = 1.0").is_err());
        assert!(toml::from_str::<CcConfig>("kind = \"cp_tcp\"\nfeedback = \"two_bit\"").is_err());
    }
}
