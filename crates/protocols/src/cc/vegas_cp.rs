//! Vegas/CP: TCP Vegas whose congestion-avoidance test compares the charge
//! `p_hat x_hat` with the willingness to pay `w` instead of Vegas' Diff with
//! its band: once per RTT the window grows by one segment if the charge is
//! below `w`, shrinks by one if above, holds if equal.
//!
//! Provenance (Zimmermann 2005, spec `seed-000-zimmermann.md`):
//! - Sec. 5.2.1, eq. 5.2.7 (idea from \[LPW01\], spec 2.4): run once per RTT,
//!   `cwnd += 1` if `p_hat x_hat < w`, `-= 1` if `>`, unchanged if equal;
//!   `x_hat = cwnd / RTT` (or `cwnd / minRTT`, Table 5.4.2's "min. RTT"),
//!   `p_hat` the path price estimate (1 bit, 4 bits or EPF: `feedback`, see
//!   `price_estimate`).
//! - Sec. 5.2.2: "The TCP Vegas implementation in the ns-2 network simulator
//!   was modified to use the new Vegas/CP window update rule (5.2.7). TCP
//!   Vegas also uses a special Slow Start algorithm \[BP95\], which was
//!   retained": everything but the congestion-avoidance test is `Vegas`
//!   (`super::vegas`, ns-2's agent): its rounds, its slow start (growth every
//!   other RTT, left when Diff > `gamma`), the +1 spread over the next
//!   round's ACKs and the -1 at once, its loss and timeout reactions.
//!   Table 5.4.2's "no" slow-start rows: `slow_start = false`.
//!
//! INFERRED: the window floor is 1 segment (`min_window`), not ns-2 Vegas'
//!   2: the thesis reports windows that oscillate "between one and two" for
//!   the smallest fair shares (Sec. 5.2.2), which a floor of 2 cannot give.
//! INFERRED: `initial_window` defaults to 1 segment (spec 2.1, and E1's
//!   "started with cwnd = 1"); `initial_ssthresh` is unlimited, as Vegas'
//!   (its slow start ends on Diff).
//! INFERRED: with `one_bit` feedback an ECN-marked ACK is a price sample, so
//!   it still carries the round's growth (Vegas, as RFC 3168, would not grow
//!   on an ECN-Echo ACK, which would shrink the +1 by the marked fraction).
//! INFERRED: the price and RTT read at a round's end are the estimates after
//!   that round's last ACK; before any RTT is known the round holds.
//! With `one_bit` feedback the marks are echoed per packet
//!   (`EcnFeedback::PerPacket`, which needs `tcp.ecn = true`), so the
//!   transport never halves the window on ECN-Echo; with `explicit` and
//!   `four_bit` ECN is RFC 3168's and an ECN-Echo gets Vegas' reaction
//!   (`ecn_factor`, Reno's halving), as ns-2's Vegas agent.
//! Units: `w` packets/s, `x_hat` packets/s, the window in segments, price
//!   dimensionless.

use serde::{Deserialize, Serialize};
use sim_core::{
    AckInfo, CcHeader, Congestion, Controller, EcnFeedback, HeaderFamily, ParamError, SimTime,
};

use super::price_estimate::{
    PriceEstimateConfig, PriceEstimator, PriceFeedback, RateRtt, RttTracker,
};
use super::pricing_window::positive;
use super::vegas::{CaStep, Decision, Vegas, VegasConfig};

/// Parameters of Vegas/CP (`cc = { kind = "vegas_cp", w = 20.0, ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VegasCpConfig {
    /// Willingness to pay, packets/s (> 0). Default 20 (Sec. 4.4.1).
    pub w: f64,
    /// Where the price comes from: `"explicit"` (EPF, default), `"one_bit"`
    /// or `"four_bit"`.
    pub feedback: PriceFeedback,
    /// Sliding history of the 1-bit and 4-bit estimates, packets (>= 1).
    /// Default 50 (Sec. 5.2.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<u32>,
    /// Base of the 1-bit code (> 1). Default 1.06 (Sec. 5.2.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phi: Option<f64>,
    /// Bases of the 4-bit code, bit 0 first. Default [1.06, 1.007, 1.001,
    /// 1.00015] (Sec. 5.2.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phis: Option<Vec<f64>>,
    /// The RTT in `x_hat`: `"srtt"` (default) or `"min_rtt"`.
    pub rtt: RateRtt,
    /// Vegas' slow start at the start and after a timeout. Default true.
    pub slow_start: bool,
    /// Vegas' slow-start exit threshold, segments of Diff (>= 0). Default 1
    /// (ns-2 `v_gamma_`).
    pub gamma: f64,
    /// Floor of the window, segments (>= 1). Default 1 (see INFERRED).
    pub min_window: u32,
    /// Initial window, segments (>= 1). Default 1 (spec 2.1).
    pub initial_window: u32,
    /// Initial slow-start threshold, segments (>= 1). Default: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
}

impl Default for VegasCpConfig {
    fn default() -> Self {
        VegasCpConfig {
            w: 20.0,
            feedback: PriceFeedback::Explicit,
            history: None,
            phi: None,
            phis: None,
            rtt: RateRtt::Srtt,
            slow_start: true,
            gamma: 1.0,
            min_window: 1,
            initial_window: 1,
            initial_ssthresh: None,
        }
    }
}

impl VegasCpConfig {
    /// The price-estimate keys.
    pub fn price(&self) -> PriceEstimateConfig {
        PriceEstimateConfig {
            feedback: self.feedback,
            history: self.history,
            phi: self.phi,
            phis: self.phis.clone(),
        }
    }

    /// The Vegas underneath.
    pub fn vegas(&self) -> VegasConfig {
        VegasConfig {
            gamma: self.gamma,
            slow_start: self.slow_start,
            min_window: self.min_window,
            initial_window: Some(self.initial_window),
            initial_ssthresh: self.initial_ssthresh,
            ..VegasConfig::default()
        }
    }

    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        positive("w", self.w)?;
        if self.feedback == PriceFeedback::PerAck {
            return Err(ParamError::new(
                "feedback",
                "\"per_ack\" is a per-ACK price; Vegas/CP reads a price once per RTT: \
                 use \"explicit\", \"one_bit\" or \"four_bit\"",
            ));
        }
        self.price().validate()?;
        self.vegas().validate()
    }
}

/// Eq. 5.2.7's test: the step for a charge `p x` (packets/s) against `w`.
#[inline]
pub fn price_step(charge: f64, w: f64) -> CaStep {
    if charge < w {
        CaStep::Grow
    } else if charge > w {
        CaStep::Shrink
    } else {
        CaStep::Hold
    }
}

/// Vegas/CP's state.
#[derive(Clone, Debug)]
pub struct VegasCp {
    w: f64,
    feedback: PriceFeedback,
    mss: u64,
    vegas: Vegas,
    est: PriceEstimator,
    rtt: RttTracker,
    /// The last round's charge `p_hat x_hat` (packets/s).
    last_charge: Option<f64>,
}

impl VegasCp {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &VegasCpConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(VegasCp {
            w: cfg.w,
            feedback: cfg.feedback,
            mss: u64::from(mss.max(1)),
            vegas: Vegas::new(&cfg.vegas(), mss)?,
            est: PriceEstimator::new(&cfg.price())?,
            rtt: RttTracker::new(cfg.rtt),
            last_charge: None,
        })
    }

    /// The Vegas underneath (its slow start, rounds and last decision).
    pub fn vegas(&self) -> &Vegas {
        &self.vegas
    }

    /// The last congestion-avoidance round's charge `p_hat x_hat`, packets/s.
    pub fn last_charge(&self) -> Option<f64> {
        self.last_charge
    }

    /// The last round's decision.
    pub fn last_decision(&self) -> Option<Decision> {
        self.vegas.last_decision().map(|(_, d)| d)
    }

    /// The current price estimate.
    pub fn price(&self) -> f64 {
        self.est.price()
    }
}

impl Controller for VegasCp {
    fn on_ack(&mut self, ack: &AckInfo) {
        let packets = ack.acked.min(2 * self.mss) as f64 / self.mss as f64;
        self.est.on_ack(ack, packets);
        let rtt = self.rtt.on_ack(ack);
        let (p, w) = (self.est.price(), self.w);
        let mut charge = None;
        let a = AckInfo { ece: false, ..*ack };
        self.vegas.on_ack_with(&a, |cwnd| {
            Some(match rtt {
                Some(r) => {
                    let c = p * cwnd / r;
                    charge = Some(c);
                    price_step(c, w)
                }
                None => CaStep::Hold,
            })
        });
        if charge.is_some() {
            self.last_charge = charge;
        }
    }

    fn on_congestion(&mut self, now: SimTime, ev: Congestion) {
        self.vegas.on_congestion(now, ev);
    }

    fn on_recovery_exit(&mut self, now: SimTime) {
        self.vegas.on_recovery_exit(now);
    }

    #[inline]
    fn window(&self) -> u64 {
        self.vegas.window()
    }

    fn ssthresh(&self) -> Option<u64> {
        self.vegas.ssthresh()
    }

    fn stamp(&mut self, _now: SimTime, _len: u32, hdr: &mut CcHeader) {
        self.feedback.stamp(hdr);
    }

    fn header_family(&self) -> HeaderFamily {
        self.feedback.header_family()
    }

    fn ecn_feedback(&self) -> EcnFeedback {
        self.feedback.ecn_feedback()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcConfig;
    use sim_core::PriceHeader;
    use sim_core::SimDuration;

    const MSS: u32 = 1000;

    fn vcp(toml_text: &str) -> VegasCp {
        let cfg: VegasCpConfig = toml::from_str(toml_text).unwrap();
        VegasCp::new(&cfg, MSS).unwrap()
    }

    /// An ACK of one segment at `t_ms`, RTT 100 ms, `flight` segments in
    /// flight, echoing price `p`.
    fn ack(t_ms: u64, flight: u64, p: f64) -> AckInfo {
        AckInfo {
            now: SimTime::ZERO + SimDuration::from_millis(t_ms),
            in_flight: flight * u64::from(MSS),
            cc: CcHeader::Price(PriceHeader { price: p, marks: 0 }),
            ..AckInfo::segment(MSS, SimDuration::from_millis(100))
        }
    }

    fn segments(c: &VegasCp) -> f64 {
        c.window() as f64 / f64::from(MSS)
    }

    #[test]
    fn a_round_compares_the_charge_with_w() {
        // w = 20, cwnd 20, RTT 0.1 s: charge = 200 p. An increase starts
        // with this ACK's share of the round's +1 (1/20).
        for (p, want, cwnd) in [
            (0.05, Decision::Increase, 20.05),
            (0.2, Decision::Decrease, 19.0),
            (0.1, Decision::Hold, 20.0),
        ] {
            let mut c = vcp("slow_start = false\ninitial_window = 20");
            c.on_ack(&ack(1, 20, p));
            assert_eq!(c.last_decision(), Some(want), "p = {p}");
            assert!((c.last_charge().unwrap() - 200.0 * p).abs() < 1e-9);
            assert_eq!(segments(&c), cwnd, "p = {p}");
        }
    }

    #[test]
    fn an_increase_spreads_one_segment_over_the_next_round_even_on_marked_acks() {
        let mut c = vcp("feedback = \"one_bit\"\nslow_start = false\ninitial_window = 20");
        c.on_ack(&ack(1, 20, 0.0));
        assert_eq!(c.last_decision(), Some(Decision::Increase));
        for i in 0..19 {
            c.on_ack(&AckInfo {
                ece: i % 2 == 0,
                ..ack(2 + i, 20, 0.0)
            });
        }
        let w = c.vegas().window() as f64 / 1000.0;
        assert!(w > 20.9 && w < 21.0, "{w}");
        // The marks were read: 10 of 20 ACKs.
        assert!(c.price() > 0.0);
    }

    #[test]
    fn vegas_slow_start_is_kept() {
        let mut c = vcp("");
        assert!(c.vegas().in_slow_start());
        assert_eq!(c.window(), 1000);
        c.on_ack(&ack(1, 1, 10.0));
        // The first round is a Vegas slow-start round, whatever the price.
        assert!(matches!(
            c.last_decision(),
            Some(Decision::SlowStartPause | Decision::SlowStartGrow)
        ));
        assert_eq!(c.last_charge(), None);
    }

    #[test]
    fn the_floor_is_one_segment() {
        let mut c = vcp("slow_start = false\ninitial_window = 2");
        c.on_ack(&ack(1, 2, 100.0));
        assert_eq!(c.window(), 1000);
        c.on_ack(&ack(300, 1, 100.0));
        assert_eq!(c.window(), 1000);
    }

    #[test]
    fn min_rtt_rate_estimate() {
        let mut c = vcp("rtt = \"min_rtt\"\nslow_start = false\ninitial_window = 20");
        // SRTT 1 s but min RTT 0.1 s: charge = 0.2 * 20 / 0.1 = 40 > 20.
        c.on_ack(&AckInfo {
            srtt: Some(SimDuration::from_secs(1)),
            ..ack(1, 20, 0.2)
        });
        assert_eq!(c.last_decision(), Some(Decision::Decrease));
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig = toml::from_str("kind = \"vegas_cp\"\nfeedback = \"four_bit\"").unwrap();
        assert_eq!(c.name(), "vegas_cp");
        assert_eq!(
            c,
            CcConfig::VegasCp(VegasCpConfig {
                feedback: PriceFeedback::FourBit,
                ..Default::default()
            })
        );
        let ctl = c.build(1000).unwrap();
        assert_eq!(ctl.window(), 1000);
        assert_eq!(ctl.header_family(), HeaderFamily::Price);
        let key = |t: &str| {
            toml::from_str::<CcConfig>(t)
                .unwrap()
                .validate()
                .unwrap_err()
                .key
        };
        assert_eq!(key("kind = \"vegas_cp\"\nw = 0.0"), "w");
        assert_eq!(
            key("kind = \"vegas_cp\"\nfeedback = \"per_ack\""),
            "feedback"
        );
        assert_eq!(key("kind = \"vegas_cp\"\nmin_window = 0"), "min_window");
        assert_eq!(key("kind = \"vegas_cp\"\ngamma = -1.0"), "gamma");
        assert_eq!(key("kind = \"vegas_cp\"\nphis = [1.1]"), "phis");
        assert!(toml::from_str::<CcConfig>("kind = \"vegas_cp\"\nalpha = 1.0").is_err());
    }
}
