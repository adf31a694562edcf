//! SBRM's source (Single Bit Resource Marking): a per-ACK window rule driven
//! by the ECN mark of each packet, with no estimate of the marking rate.
//! Variant "key" (the default) is also VQM's source.
//!
//! Provenance (Zimmermann 2005, spec `seed-000-zimmermann.md`):
//! - Sec. 5.1.1, eqs. 5.1.2-5.1.3 (Key's rule, spec 2.5), reused by SBRM
//!   (Sec. 5.4.2, spec 2.6 variant 1): per unmarked ACK `cwnd += kappa RTT
//!   w / cwnd`, per marked ACK `cwnd -= kappa`; equilibrium `x = w (1 - p) /
//!   p` for a marking probability p (utility `w ln(x + w)`).
//! - Sec. 5.4.2, spec 2.6 variant 2 (the ch. 6 model's source): the Direct
//!   Window Update (4.2.3) with the ACK's price 0 or 1: unmarked `cwnd +=
//!   kappa w RTT / cwnd`, marked `cwnd += kappa (w RTT / cwnd - 1)`;
//!   equilibrium `x = w / p` (exact log utility). The same arithmetic as
//!   `cp_tcp` with `feedback = "per_ack"`.
//! - Sec. 5.4.2: "TCP's congestion avoidance algorithm implemented in ns-2
//!   was modified ... TCP's normal reaction to packet loss was unchanged";
//!   Table 5.4.2: slow start "yes" for the SBRM rows.
//! - Sec. 5.6.3: kappa = 0.1 and w = 20 (TCP/RM's parameters, "identical to
//!   those of SBRM"): the defaults here.
//!
//! INFERRED: an unmarked ACK of `n` segments (delayed ACKs, n <= 2) applies
//!   the increase n times' worth; a marked ACK (the per-packet echo, which
//!   acknowledges each marked packet on its own ACK) applies the mark's term
//!   once. The equilibrium is then per packet, whatever the ACK ratio.
//! INFERRED: slow start (NewReno's growth) also ends, beside at ssthresh
//!   and at a loss, on the first ACK on which the rule would shrink the
//!   window, and that ACK's rule applies: for "key" the first mark, for
//!   "direct" the first mark with `w RTT / cwnd < 1` (as `cp_tcp`). The mark
//!   is the source's congestion signal, and NewReno leaves slow start at its
//!   first one.
//! INFERRED: duplicate ACKs and ACKs in loss recovery do not move the window.
//! Units: `w` packets/s, `kappa` dimensionless (segments per mark), the
//!   window in segments (f64), RTT seconds.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, EcnFeedback, ParamError, SimTime};

use super::price_estimate::{RateRtt, RttTracker};
use super::pricing_window::{
    check_window_keys, positive, PricingWindow, DEFAULT_INITIAL_SSTHRESH, DEFAULT_INITIAL_WINDOW,
};

/// Which per-mark rule the source runs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SbrmVariant {
    /// Key's rule (eqs. 5.1.2-5.1.3): `-kappa` per marked ACK; x = w(1-p)/p.
    #[default]
    Key,
    /// The Direct Window Update with a 0/1 price (variant 2); x = w/p.
    Direct,
}

/// Parameters of the SBRM source (`cc = { kind = "sbrm", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SbrmConfig {
    /// Gain (dimensionless, > 0). Default 0.1 (Sec. 5.6.3).
    pub kappa: f64,
    /// Willingness to pay, packets/s (> 0). Default 20 (Sec. 5.6.3).
    pub w: f64,
    /// `"key"` (default) or `"direct"`.
    pub variant: SbrmVariant,
    /// The RTT in the increase: `"srtt"` (default) or `"min_rtt"`.
    pub rtt: RateRtt,
    /// NewReno slow start at the start and after a timeout. Default true.
    pub slow_start: bool,
    /// Initial window, segments (>= 1). Default 1 (spec 2.1).
    pub initial_window: u32,
    /// Initial slow-start threshold, segments (>= 1). Default 32 (spec 2.1).
    pub initial_ssthresh: u32,
    /// Smallest window, segments (>= 1). Default 1.
    pub min_window: f64,
}

impl Default for SbrmConfig {
    fn default() -> Self {
        SbrmConfig {
            kappa: 0.1,
            w: 20.0,
            variant: SbrmVariant::Key,
            rtt: RateRtt::Srtt,
            slow_start: true,
            initial_window: DEFAULT_INITIAL_WINDOW,
            initial_ssthresh: DEFAULT_INITIAL_SSTHRESH,
            min_window: 1.0,
        }
    }
}

impl SbrmConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        positive("kappa", self.kappa)?;
        positive("w", self.w)?;
        check_window_keys(self.initial_window, self.initial_ssthresh, self.min_window)
    }
}

/// The window change of one ACK of `n` segments, segments: `marked` or not,
/// at window `cwnd` (segments) and RTT `rtt` (seconds).
#[inline]
pub fn sbrm_update(
    variant: SbrmVariant,
    kappa: f64,
    w: f64,
    rtt: f64,
    cwnd: f64,
    n: f64,
    marked: bool,
) -> f64 {
    let increase = kappa * n * w * rtt / cwnd;
    match (variant, marked) {
        (_, false) => increase,
        (SbrmVariant::Key, true) => -kappa,
        (SbrmVariant::Direct, true) => increase - kappa,
    }
}

/// The SBRM source's state.
#[derive(Clone, Debug)]
pub struct Sbrm {
    cfg: SbrmConfig,
    win: PricingWindow,
    rtt: RttTracker,
}

impl Sbrm {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &SbrmConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(Sbrm {
            win: PricingWindow::new(
                cfg.initial_window,
                cfg.initial_ssthresh,
                cfg.min_window,
                cfg.slow_start,
                mss,
            )?,
            rtt: RttTracker::new(cfg.rtt),
            cfg: cfg.clone(),
        })
    }

    /// The window, segments.
    pub fn cwnd_pkts(&self) -> f64 {
        self.win.segments()
    }

    /// True while in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.win.in_slow_start()
    }
}

impl Controller for Sbrm {
    fn on_ack(&mut self, ack: &AckInfo) {
        let rtt = self.rtt.on_ack(ack);
        let (Some(n), Some(rtt)) = (self.win.counted(ack), rtt) else {
            return;
        };
        let c = &self.cfg;
        let delta = sbrm_update(
            c.variant,
            c.kappa,
            c.w,
            rtt,
            self.win.segments(),
            n,
            ack.ece,
        );
        self.win.apply(delta, n);
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        // `Ecn` does not come with per-packet feedback; a loss or a timeout
        // is NewReno's.
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

    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::PerPacket
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CcConfig, CpTcp, CpTcpConfig};
    use sim_core::SimDuration;

    const MSS: u32 = 1000;

    fn sbrm(toml_text: &str) -> Sbrm {
        let cfg: SbrmConfig = toml::from_str(toml_text).unwrap();
        Sbrm::new(&cfg, MSS).unwrap()
    }

    fn ack(marked: bool) -> AckInfo {
        AckInfo {
            ece: marked,
            ..AckInfo::segment(MSS, SimDuration::from_millis(100))
        }
    }

    #[test]
    fn key_variant_adds_kappa_rtt_w_over_cwnd_and_removes_kappa_per_mark() {
        let mut c = sbrm("kappa = 0.1\nw = 20.0\nslow_start = false\ninitial_window = 10");
        c.on_ack(&ack(false)); // + 0.1 * 0.1 * 20 / 10 = 0.02
        assert!((c.cwnd_pkts() - 10.02).abs() < 1e-12);
        c.on_ack(&ack(true));
        assert!((c.cwnd_pkts() - 9.92).abs() < 1e-12);
        // A delayed ACK of two unmarked segments: twice the increase.
        c.on_ack(&AckInfo {
            acked: 2000,
            ..ack(false)
        });
        assert!((c.cwnd_pkts() - (9.92 + 2.0 * 0.2 / 9.92)).abs() < 1e-12);
    }

    #[test]
    fn direct_variant_pays_one_per_mark_on_top_of_the_increase() {
        let mut c = sbrm(
            "variant = \"direct\"\nkappa = 0.1\nw = 20.0\nslow_start = false\ninitial_window = 10",
        );
        c.on_ack(&ack(false));
        assert!((c.cwnd_pkts() - 10.02).abs() < 1e-12);
        c.on_ack(&ack(true));
        assert!((c.cwnd_pkts() - (10.02 + 0.1 * (2.0 / 10.02 - 1.0))).abs() < 1e-12);
    }

    #[test]
    fn direct_variant_is_cp_tcp_with_per_ack_prices() {
        let mut s = sbrm("variant = \"direct\"\nkappa = 0.2\nw = 30.0");
        let cfg = CpTcpConfig {
            feedback: crate::cc::PriceFeedback::PerAck,
            kappa_bar: 0.2,
            w: 30.0,
            ..Default::default()
        };
        let mut c = CpTcp::new(&cfg, MSS).unwrap();
        for i in 0..5000u32 {
            let a = ack(i % 7 == 3 || i % 11 == 0);
            s.on_ack(&a);
            c.on_ack(&a);
            assert_eq!(s.window(), c.window(), "ACK {i}");
        }
    }

    /// Key's rule with every k-th ACK marked (p = 1/k) averages `x = w
    /// (1 - p) / p`; the direct rule `x = w / p` (spec 2.5, 2.6). RTT 0.1 s.
    #[test]
    fn deterministic_marking_gives_the_closed_form_windows() {
        for (variant, want) in [("key", 20.0 * 0.9 / 0.1), ("direct", 20.0 / 0.1)] {
            let mut c = sbrm(&format!(
                "variant = \"{variant}\"\nkappa = 0.1\nw = 20.0\nslow_start = false\ninitial_window = 5"
            ));
            let (mut sum, n) = (0.0, 400_000);
            for i in 0..n {
                c.on_ack(&ack(i % 10 == 9));
                if i >= n / 2 {
                    sum += c.cwnd_pkts();
                }
            }
            let rate = sum / f64::from(n / 2) / 0.1;
            assert!(
                (rate / want - 1.0).abs() < 0.01,
                "{variant}: {rate} vs {want}"
            );
        }
    }

    #[test]
    fn the_first_mark_ends_slow_start() {
        let mut c = sbrm("");
        for _ in 0..5 {
            c.on_ack(&ack(false));
        }
        assert_eq!(c.cwnd_pkts(), 6.0);
        assert!(c.in_slow_start());
        c.on_ack(&ack(true));
        assert!(!c.in_slow_start());
        assert!((c.cwnd_pkts() - 5.9).abs() < 1e-12);
        c.on_ack(&ack(false));
        assert!(!c.in_slow_start());
    }

    #[test]
    fn losses_react_as_new_reno_and_marks_are_echoed_per_packet() {
        let mut c = sbrm("initial_window = 40");
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 40_000 });
        assert_eq!(c.window(), 20_000);
        assert_eq!(c.ecn_feedback(), EcnFeedback::PerPacket);
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig = toml::from_str("kind = \"sbrm\"\nvariant = \"direct\"").unwrap();
        assert_eq!(c.name(), "sbrm");
        assert_eq!(
            c,
            CcConfig::Sbrm(SbrmConfig {
                variant: SbrmVariant::Direct,
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
        assert_eq!(key("kind = \"sbrm\"\nkappa = 0.0"), "kappa");
        assert_eq!(key("kind = \"sbrm\"\nw = -2.0"), "w");
        assert!(toml::from_str::<CcConfig>("kind = \"sbrm\"\nvariant = \"vqm\"").is_err());
        assert!(toml::from_str::<CcConfig>("kind = \"sbrm\"\nkappa_bar = 0.1").is_err());
    }
}
