//! WTP ("willingness to pay") weighted window control: a self-clocked window
//! version of Kelly's primal rate algorithm, reacting to every ECN mark.
//!
//! Provenance (seed 001, spec `seed-001-wtp-multcp.md`):
//! - Eq. (4), spec section 2.3: on every ACK `cwnd += k̄ (w̄ / cwnd − f)`, with
//!   `k̄ = k T` the gain per RTT, `w̄ = w T` the willingness to pay per RTT and
//!   `f = 1` if the ACK echoes a mark, else 0. Both terms apply on every ACK.
//! - Eqs. (5)-(6), spec section 2.4: the generalised rule
//!   `cwnd += k̄ (w̄_inc / cwnd − f / w̄_dec)` with `w̄ = w̄_inc w̄_dec`;
//!   proportional increase (PI-WTP: `w̄_inc = w̄, w̄_dec = 1`, which is Eq. (4)) and
//!   inversely-proportional decrease (IPD-WTP: `w̄_inc = 1, w̄_dec = w̄`).
//! - Section 5.1 / spec section 3.1: RTT compensation `w̄ ∝ (RTT / RTT_ref) w`, so
//!   that throughput follows the weight per unit time (Fig. 6, E5).
//! - Spec section 7 item 1: react to every mark, no once-per-RTT limit; the
//!   receiver echoes CE per packet (this controller asks the transport for
//!   `EcnFeedback::PerPacket`).
//!
//! INFERRED (spec section 2.4's table of unspecified items):
//! - the window is real-valued (packets, `f64`); the transport sends whole
//!   segments, i.e. `floor(cwnd)` packets in flight (the ns-2 convention);
//! - the window never falls below `min_window` (default 1 packet);
//! - an ACK of `n` segments (delayed ACKs) applies the increase term `n` times
//!   (`k̄ w̄_inc n / cwnd`); a marked ACK applies the decrease once, since the
//!   per-packet echo acknowledges each marked packet on its own ACK;
//! - start-up: `initial_window` packets and, by default, a standard slow start
//!   (one packet per ACKed packet, RFC 3465's limit of 2 per ACK) that ends at the
//!   first mark, after which Eq. (5) alone drives the window (`slow_start = false`
//!   runs Eq. (5) from the first ACK);
//! - losses (the paper's network is loss-free; this is the "basic retransmission
//!   path" the spec asks for): a fast retransmit halves the window, a timeout
//!   sets it to `min_window` and slow-starts back to half the old window, like
//!   TCP. The transport counts both, so a loss-free experiment can assert zero.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, EcnFeedback, ParamError, SimDuration, SimTime};

/// RFC 3465 section 2.2: slow start grows by at most `L = 2` segments per ACK.
const ABC_LIMIT_SEGMENTS: f64 = 2.0;

/// Which generalised form a single `weight` selects (spec section 2.4's table).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WtpVariant {
    /// Proportional increase, Eq. (4): `w̄_inc = weight`, `w̄_dec = 1`.
    Pi,
    /// Inversely proportional decrease, Eq. (6): `w̄_inc = 1`, `w̄_dec = weight`.
    Ipd,
}

/// RTT compensation: the weight per RTT is scaled by `rtt / rtt_ref`.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RttCompensation {
    /// The connection's round-trip time.
    pub rtt: SimDuration,
    /// The reference round-trip time at which `weight` is meant.
    pub rtt_ref: SimDuration,
}

/// Parameters of WTP (`cc = { kind = "wtp", ... }`).
///
/// Give either `weight` (w̄, marks per RTT; with `variant`, default `"pi"`) or both
/// `w_inc` and `w_dec`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WtpConfig {
    /// Which of `w_inc`, `w_dec` the weight goes to. Default `"pi"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<WtpVariant>,
    /// Willingness to pay per RTT, w̄ (> 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// w̄_inc (> 0), given together with `w_dec` instead of `weight`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub w_inc: Option<f64>,
    /// w̄_dec (> 0), given together with `w_inc` instead of `weight`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub w_dec: Option<f64>,
    /// Gain per RTT, k̄ (> 0). Default 0.5, the paper's value in every experiment.
    pub k: f64,
    /// Scale the weight by `rtt / rtt_ref` (spec section 3.1, Fig. 6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_compensation: Option<RttCompensation>,
    /// Slow start until the first mark. Default true.
    pub slow_start: bool,
    /// Initial window, packets (>= 1). Default 1.
    pub initial_window: f64,
    /// Smallest window, packets (> 0). Default 1.
    pub min_window: f64,
}

impl Default for WtpConfig {
    fn default() -> Self {
        WtpConfig {
            variant: None,
            weight: None,
            w_inc: None,
            w_dec: None,
            k: 0.5,
            rtt_compensation: None,
            slow_start: true,
            initial_window: 1.0,
            min_window: 1.0,
        }
    }
}

fn positive(key: &str, x: f64) -> Result<f64, ParamError> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(ParamError::new(key, format!("{x} must be finite and > 0")))
    }
}

impl WtpConfig {
    /// The resolved `(w̄_inc, w̄_dec)`, RTT compensation applied, after checking
    /// every parameter.
    pub fn weights(&self) -> Result<(f64, f64), ParamError> {
        positive("k", self.k)?;
        positive("min_window", self.min_window)?;
        if !(self.initial_window.is_finite() && self.initial_window >= 1.0) {
            return Err(ParamError::new("initial_window", "must be >= 1 packet"));
        }
        let scale = match self.rtt_compensation {
            None => 1.0,
            Some(c) => {
                if c.rtt_ref == SimDuration::ZERO {
                    return Err(ParamError::new("rtt_compensation.rtt_ref", "must be > 0"));
                }
                if c.rtt == SimDuration::ZERO {
                    return Err(ParamError::new("rtt_compensation.rtt", "must be > 0"));
                }
                c.rtt.as_secs_f64() / c.rtt_ref.as_secs_f64()
            }
        };
        match (self.weight, self.w_inc, self.w_dec) {
            (Some(w), None, None) => {
                let w = positive("weight", w)? * scale;
                Ok(match self.variant.unwrap_or(WtpVariant::Pi) {
                    WtpVariant::Pi => (w, 1.0),
                    WtpVariant::Ipd => (1.0, w),
                })
            }
            (None, Some(i), Some(d)) if self.variant.is_none() => {
                Ok((positive("w_inc", i)? * scale, positive("w_dec", d)?))
            }
            (None, Some(_), Some(_)) => Err(ParamError::new(
                "variant",
                "`variant` goes with `weight`; with explicit w_inc and w_dec leave it out",
            )),
            (Some(_), _, _) => Err(ParamError::new(
                "weight",
                "give either `weight` (with `variant`) or both `w_inc` and `w_dec`, not both",
            )),
            (None, None, None) => Err(ParamError::new(
                "weight",
                "missing: give `weight` (willingness to pay per RTT, with `variant` \
                 \"pi\" or \"ipd\") or both `w_inc` and `w_dec`",
            )),
            (None, Some(_), None) => Err(ParamError::new("w_dec", "missing (w_inc is given)")),
            (None, None, Some(_)) => Err(ParamError::new("w_inc", "missing (w_dec is given)")),
        }
    }

    /// Check every parameter.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.weights().map(|_| ())
    }
}

/// WTP's state: a real-valued window in packets.
#[derive(Clone, Debug)]
pub struct Wtp {
    mss: f64,
    k: f64,
    w_inc: f64,
    w_dec: f64,
    min_window: f64,
    /// Congestion window, packets.
    cwnd: f64,
    /// Slow-start threshold, packets: infinite until the first mark or loss, 0
    /// once slow start is over, half the old window after a timeout.
    ssthresh: f64,
}

impl Wtp {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &WtpConfig, mss: u32) -> Result<Self, ParamError> {
        let (w_inc, w_dec) = cfg.weights()?;
        if mss == 0 {
            return Err(ParamError::new("mss", "must be >= 1 byte"));
        }
        Ok(Wtp {
            mss: f64::from(mss),
            k: cfg.k,
            w_inc,
            w_dec,
            min_window: cfg.min_window,
            cwnd: cfg.initial_window.max(cfg.min_window),
            ssthresh: if cfg.slow_start { f64::INFINITY } else { 0.0 },
        })
    }

    /// The window in packets.
    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd
    }

    /// `(w̄_inc, w̄_dec)` in use.
    pub fn weights(&self) -> (f64, f64) {
        (self.w_inc, self.w_dec)
    }

    /// Whether the window is still in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Eq. (5) for one ACK of `segments` segments, `marked` if it echoes a mark.
    #[inline]
    fn wtp_step(&mut self, segments: f64, marked: bool) {
        let f = if marked { 1.0 } else { 0.0 };
        self.cwnd += self.k * (self.w_inc * segments / self.cwnd - f / self.w_dec);
        self.cwnd = self.cwnd.max(self.min_window);
    }
}

impl Controller for Wtp {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo) {
        if ack.in_recovery {
            return;
        }
        let segments = ack.acked as f64 / self.mss;
        if self.in_slow_start() {
            if !ack.ece {
                self.cwnd += segments.min(ABC_LIMIT_SEGMENTS);
                return;
            }
            // The first mark ends slow start; Eq. (5) takes over from this ACK.
            self.ssthresh = 0.0;
        }
        self.wtp_step(segments, ack.ece);
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        match ev {
            // Not sent with per-packet feedback; treated as one mark if it is.
            Congestion::Ecn { .. } => {
                self.ssthresh = 0.0;
                self.wtp_step(0.0, true);
            }
            Congestion::Loss { .. } => {
                self.cwnd = (self.cwnd / 2.0).max(self.min_window);
                self.ssthresh = 0.0;
            }
            Congestion::Timeout { .. } => {
                self.ssthresh = (self.cwnd / 2.0).max(self.min_window);
                self.cwnd = self.min_window;
            }
        }
    }

    #[inline]
    fn window(&self) -> u64 {
        (self.cwnd * self.mss) as u64
    }

    fn ssthresh(&self) -> Option<u64> {
        (self.ssthresh.is_finite() && self.ssthresh > 0.0)
            .then_some((self.ssthresh * self.mss) as u64)
    }

    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::PerPacket
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ack(marked: bool) -> AckInfo {
        AckInfo {
            in_flight: 10_000,
            ece: marked,
            ..AckInfo::segment(MSS, SimDuration::from_millis(200))
        }
    }

    fn wtp(toml_text: &str) -> Wtp {
        let cfg: WtpConfig = toml::from_str(toml_text).unwrap();
        Wtp::new(&cfg, MSS).unwrap()
    }

    #[test]
    fn variants_split_the_weight_as_the_paper_defines_them() {
        assert_eq!(wtp("weight = 6.0").weights(), (6.0, 1.0));
        assert_eq!(wtp("weight = 6.0\nvariant = \"pi\"").weights(), (6.0, 1.0));
        assert_eq!(wtp("weight = 6.0\nvariant = \"ipd\"").weights(), (1.0, 6.0));
        assert_eq!(wtp("w_inc = 4.0\nw_dec = 1.5").weights(), (4.0, 1.5));
        // Fig. 6: the 300 ms flows pay 1.5 times more per RTT at RTT_ref = 200 ms.
        let c = wtp("weight = 2.0\nrtt_compensation = { rtt = \"300ms\", rtt_ref = \"200ms\" }");
        let (w_inc, w_dec) = c.weights();
        assert!(
            (w_inc - 3.0).abs() < 1e-12 && w_dec == 1.0,
            "{w_inc} {w_dec}"
        );
    }

    #[test]
    fn every_ack_applies_eq_5_with_both_terms() {
        let mut c = wtp("weight = 2.0\nslow_start = false\ninitial_window = 10");
        // Unmarked: cwnd += k w_inc / cwnd = 0.5 * 2 / 10.
        c.on_ack(&ack(false));
        assert!((c.cwnd_pkts() - 10.1).abs() < 1e-12);
        // Marked: both terms, 0.5 * (2 / 10.1 - 1).
        c.on_ack(&ack(true));
        let expect = 10.1 + 0.5 * (2.0 / 10.1 - 1.0);
        assert!((c.cwnd_pkts() - expect).abs() < 1e-12);
        // IPD: a mark removes k / w_dec.
        let mut c = wtp("weight = 4.0\nvariant = \"ipd\"\nslow_start = false\ninitial_window = 10");
        c.on_ack(&ack(true));
        assert!((c.cwnd_pkts() - (10.0 + 0.5 * (1.0 / 10.0 - 1.0 / 4.0))).abs() < 1e-12);
    }

    #[test]
    fn every_mark_counts_no_once_per_rtt_limit() {
        let mut c = wtp("weight = 1.0\nslow_start = false\ninitial_window = 20");
        for _ in 0..10 {
            c.on_ack(&ack(true));
        }
        // Ten marks in a row each remove about k = 0.5 packet (minus the small
        // increase term): the window falls by about 5 packets.
        assert!((c.cwnd_pkts() - 15.0).abs() < 0.3, "{}", c.cwnd_pkts());
    }

    #[test]
    fn the_window_settles_at_w_over_p_under_a_fixed_marking_probability() {
        // Spec section 3.1: cwnd* = w̄ / p. With deterministic marking of every
        // 25th packet (p = 0.04) and w̄ = 1, the window oscillates about 25.
        let mut c = wtp("weight = 1.0\nslow_start = false\ninitial_window = 5");
        let mut sum = 0.0;
        let n = 200_000;
        for i in 0..n {
            c.on_ack(&ack(i % 25 == 24));
            sum += c.cwnd_pkts();
        }
        let mean = sum / f64::from(n);
        assert!((mean - 25.0).abs() < 0.5, "mean window {mean}");
    }

    #[test]
    fn slow_start_ends_at_the_first_mark_and_the_window_keeps_its_floor() {
        let mut c = wtp("weight = 1.0");
        assert!(c.in_slow_start());
        for _ in 0..7 {
            c.on_ack(&ack(false));
        }
        assert_eq!(c.cwnd_pkts(), 8.0);
        c.on_ack(&ack(true));
        assert!(!c.in_slow_start());
        assert!((c.cwnd_pkts() - (8.0 + 0.5 * (1.0 / 8.0 - 1.0))).abs() < 1e-12);
        for _ in 0..100 {
            c.on_ack(&ack(true));
        }
        assert_eq!(c.cwnd_pkts(), 1.0);
        assert_eq!(c.window(), 1000);
    }

    #[test]
    fn losses_halve_and_timeouts_restart_from_the_floor() {
        let mut c = wtp("weight = 1.0\nslow_start = false\ninitial_window = 20");
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 0 });
        assert_eq!(c.cwnd_pkts(), 10.0);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 0 });
        assert_eq!(c.cwnd_pkts(), 1.0);
        assert_eq!(c.ssthresh(), Some(5000));
        assert!(c.in_slow_start());
    }

    #[test]
    fn wtp_asks_for_per_packet_feedback() {
        assert_eq!(wtp("weight = 1.0").ecn_feedback(), EcnFeedback::PerPacket);
    }

    #[test]
    fn bad_or_ambiguous_weights_are_rejected_with_their_key() {
        let key = |t: &str| {
            let cfg: WtpConfig = toml::from_str(t).unwrap();
            cfg.validate().unwrap_err().key
        };
        assert_eq!(key(""), "weight");
        assert_eq!(key("weight = 0.0"), "weight");
        assert_eq!(key("weight = 1.0\nw_inc = 1.0\nw_dec = 1.0"), "weight");
        assert_eq!(key("w_inc = 1.0"), "w_dec");
        assert_eq!(key("w_dec = 1.0"), "w_inc");
        assert_eq!(
            key("w_inc = 1.0\nw_dec = 2.0\nvariant = \"ipd\""),
            "variant"
        );
        assert_eq!(key("weight = 1.0\nk = -1.0"), "k");
        assert_eq!(key("weight = 1.0\ninitial_window = 0.5"), "initial_window");
        assert_eq!(
            key("weight = 1.0\nrtt_compensation = { rtt = \"300ms\", rtt_ref = \"0s\" }"),
            "rtt_compensation.rtt_ref"
        );
        assert!(toml::from_str::<WtpConfig>("weight = 1.0\nbogus = 2").is_err());
        assert!(toml::from_str::<WtpConfig>("weight = 1.0\nvariant = \"xx\"").is_err());
    }
}
