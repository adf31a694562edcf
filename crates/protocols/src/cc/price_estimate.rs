//! The congestion-pricing source's estimates of its path price `p` and of
//! the RTT in its rate estimate `x = cwnd / RTT`: shared by `cp_tcp`,
//! `sbrm`'s relatives and `vegas_cp`.
//!
//! Provenance (Zimmermann 2005, spec `seed-000-zimmermann.md`):
//! - Explicit price feedback, EPF (Sec. 4.2.3, spec 2.3.3): routers add their
//!   price to the packet's price field and the receiver echoes it; the
//!   source's price is the echoed sum at full precision.
//! - One bit (REM, Sec. 5.2.1, eqs. 5.2.1-5.2.2, spec 2.4): each link marks
//!   with `m_l = 1 - phi^-lambda_l`, so the path's marking probability is
//!   `m = 1 - phi^-p` with `p = sum_l lambda_l`; the source takes `m_hat` =
//!   the fraction of marked packets over "a history of 50 packets" and
//!   `p_hat = -log_phi(1 - m_hat)`.
//! - Four bits (Sec. 5.2.3, \[ZHK01\], spec 2.4): bit i is marked with
//!   `1 - phi_i^-lambda` (`phi = 1.06, 1.007, 1.001, 1.00015`); the source
//!   estimates `m_hat_i` per bit over the history and uses "the bit with the
//!   marking probability closest to 0.5".
//! - Per ACK (SBRM, Sec. 5.4.2, spec 2.6, source variant 2): "the path price
//!   p_n is assumed to be either zero or one, depending on whether the packet
//!   was marked or not": no estimation.
//! - Rate estimate (eq. 2.3.1, Table 5.4.2's "Rate Estimation" column):
//!   `x_hat = cwnd / RTT` with the current (smoothed) RTT or the minimum RTT.
//!
//! INFERRED: the history is a sliding window over the last `history` packets
//!   (the thesis says "a history of 50 packets"; spec 2.4 reads it as
//!   sliding). Before `history` packets have been seen the fraction is taken
//!   over those seen; before any, the price is 0.
//! INFERRED: with `one_bit`, the marks arrive as the per-packet ECN echo
//!   (`EcnFeedback::PerPacket`): an ACK with ECE stands for its one marked
//!   packet, an ACK without it for the packets it newly acknowledges (1, or 2
//!   under delayed ACKs; at least 1, a duplicate ACK being one arrival; at
//!   most 2, RFC 3465's L, so the cumulative ACK that ends a recovery does not
//!   flood the history). With `four_bit`, each ACK carries the code of the one
//!   data packet whose header it echoes: one history entry per ACK.
//! INFERRED: a fraction of 1 (every packet of the history marked) has no
//!   finite price; it is read as `(n - 1/2) / n` for `n` packets in the
//!   history (half a packet unmarked, a continuity correction), so the largest
//!   price a history of 50 reports is `log_phi(100)` (79 for phi = 1.06).
//! INFERRED: 4-bit ties (two bits equally close to 0.5) go to the lower bit,
//!   i.e. the larger phi.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, CcHeader, EcnFeedback, HeaderFamily, ParamError, PriceHeader};

/// The REM double-bottleneck runs' base (Sec. 5.2.2): `phi` default.
pub const DEFAULT_PHI: f64 = 1.06;
/// The 4-bit bases of Sec. 5.2.3: `phis` default.
pub const DEFAULT_PHIS: [f64; 4] = [1.06, 1.007, 1.001, 1.00015];
/// "A history of 50 packets" (Sec. 5.2.2, 5.2.3): `history` default.
pub const DEFAULT_HISTORY: u32 = 50;
/// Bits the price header's `marks` field carries.
const MAX_BITS: usize = 8;

/// How the source learns its path price (`feedback = "..."`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceFeedback {
    /// EPF: the price sum the routers wrote into the header, echoed.
    #[default]
    Explicit,
    /// REM 1-bit: ECN marks over a sliding history, `p = -log_phi(1 - m)`.
    OneBit,
    /// REM 4-bit: the header's code bits over a sliding history, the bit
    /// whose marked fraction is closest to 0.5.
    FourBit,
    /// SBRM variant 2: each ACK's ECN mark is its price, 0 or 1.
    PerAck,
}

impl PriceFeedback {
    /// True if the price rides in the price header (`CcHeader::Price`), so
    /// the flow needs a link on its path that writes it; false if it rides
    /// in the ECN bits, which any marking link sets.
    pub fn uses_header(self) -> bool {
        matches!(self, PriceFeedback::Explicit | PriceFeedback::FourBit)
    }

    /// True if the source needs every ECN mark echoed on its own ACK.
    pub fn uses_ecn(self) -> bool {
        matches!(self, PriceFeedback::OneBit | PriceFeedback::PerAck)
    }

    /// The header a source with this feedback stamps on each data packet:
    /// a zeroed price header when the price rides in it.
    pub fn stamp(self, hdr: &mut CcHeader) {
        if self.uses_header() {
            *hdr = CcHeader::Price(PriceHeader::default());
        }
    }

    /// The header family a source with this feedback declares.
    pub fn header_family(self) -> HeaderFamily {
        if self.uses_header() {
            HeaderFamily::Price
        } else {
            HeaderFamily::None
        }
    }

    /// How a source with this feedback wants ECN marks reported.
    pub fn ecn_feedback(self) -> EcnFeedback {
        if self.uses_ecn() {
            EcnFeedback::PerPacket
        } else {
            EcnFeedback::Classic
        }
    }
}

/// Which RTT the rate estimate `x_hat = cwnd / RTT` uses (`rtt = "..."`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateRtt {
    /// The transport's smoothed RTT (RFC 6298 SRTT): Table 5.4.2's "RTT".
    #[default]
    Srtt,
    /// The smallest RTT sample seen: Table 5.4.2's "min. RTT".
    MinRtt,
}

/// The RTT a pricing source puts in its rate estimate, in seconds.
#[derive(Clone, Debug)]
pub struct RttTracker {
    which: RateRtt,
    /// Smallest sample seen, seconds.
    min: Option<f64>,
}

impl RttTracker {
    /// A tracker reporting `which`.
    pub fn new(which: RateRtt) -> Self {
        RttTracker { which, min: None }
    }

    /// Take `ack`'s sample; return the RTT to use now, seconds (`None`
    /// before any sample or smoothed value).
    pub fn on_ack(&mut self, ack: &AckInfo) -> Option<f64> {
        if let Some(r) = ack.rtt.map(|r| r.as_secs_f64()).filter(|r| *r > 0.0) {
            if self.min.is_none_or(|m| r < m) {
                self.min = Some(r);
            }
        }
        self.current(ack.srtt.map(|s| s.as_secs_f64()))
    }

    /// The RTT to use given the transport's smoothed RTT `srtt` (seconds).
    pub fn current(&self, srtt: Option<f64>) -> Option<f64> {
        match self.which {
            RateRtt::Srtt => srtt.filter(|s| *s > 0.0).or(self.min),
            RateRtt::MinRtt => self.min,
        }
    }
}

/// The price-estimate keys a pricing controller carries (`feedback`,
/// `history`, `phi`, `phis`), resolved and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct PriceEstimateConfig {
    /// The feedback channel.
    pub feedback: PriceFeedback,
    /// Sliding-history length, packets (one_bit, four_bit).
    pub history: Option<u32>,
    /// Base of the 1-bit code (one_bit).
    pub phi: Option<f64>,
    /// Bases of the multi-bit code, bit 0 first (four_bit).
    pub phis: Option<Vec<f64>>,
}

impl PriceEstimateConfig {
    /// Check the keys: each only with the feedback that reads it, and in range.
    pub fn validate(&self) -> Result<(), ParamError> {
        let fb = self.feedback;
        let only = |key: &str, given: bool, ok: bool, with: &str| {
            if given && !ok {
                Err(ParamError::new(
                    key,
                    format!("is read only with feedback = {with}; remove it (feedback is {fb:?})"),
                ))
            } else {
                Ok(())
            }
        };
        let estimated = matches!(fb, PriceFeedback::OneBit | PriceFeedback::FourBit);
        only(
            "history",
            self.history.is_some(),
            estimated,
            "\"one_bit\" or \"four_bit\"",
        )?;
        only(
            "phi",
            self.phi.is_some(),
            fb == PriceFeedback::OneBit,
            "\"one_bit\"",
        )?;
        only(
            "phis",
            self.phis.is_some(),
            fb == PriceFeedback::FourBit,
            "\"four_bit\"",
        )?;
        if self.history == Some(0) {
            return Err(ParamError::new("history", "must be >= 1 packet"));
        }
        let base_ok = |v: f64| v.is_finite() && v > 1.0;
        if let Some(phi) = self.phi {
            if !base_ok(phi) {
                return Err(ParamError::new("phi", format!("{phi} must be > 1")));
            }
        }
        if let Some(phis) = &self.phis {
            if phis.is_empty() || phis.len() > MAX_BITS {
                return Err(ParamError::new(
                    "phis",
                    format!(
                        "has {} bases; give 1 to {MAX_BITS} (one per code bit)",
                        phis.len()
                    ),
                ));
            }
            if let Some((i, v)) = phis.iter().enumerate().find(|(_, v)| !base_ok(**v)) {
                return Err(ParamError::new(
                    format!("phis[{i}]"),
                    format!("{v} must be > 1"),
                ));
            }
        }
        Ok(())
    }
}

/// The last `cap` packets' code bits, with a running count per bit.
#[derive(Clone, Debug)]
struct MarkHistory {
    ring: Vec<u8>,
    /// Next slot to write.
    head: usize,
    /// Entries held (<= ring.len()).
    len: usize,
    /// Entries among those held with bit i set.
    counts: [u32; MAX_BITS],
}

impl MarkHistory {
    fn new(cap: u32) -> Self {
        MarkHistory {
            ring: vec![0; cap as usize],
            head: 0,
            len: 0,
            counts: [0; MAX_BITS],
        }
    }

    fn push(&mut self, bits: u8) {
        if self.len == self.ring.len() {
            let old = self.ring[self.head];
            for (i, c) in self.counts.iter_mut().enumerate() {
                *c -= u32::from((old >> i) & 1);
            }
        } else {
            self.len += 1;
        }
        self.ring[self.head] = bits;
        for (i, c) in self.counts.iter_mut().enumerate() {
            *c += u32::from((bits >> i) & 1);
        }
        self.head = (self.head + 1) % self.ring.len();
    }

    /// Fraction of held entries with bit `i` set (0 when empty).
    fn fraction(&self, i: usize) -> f64 {
        if self.len == 0 {
            0.0
        } else {
            f64::from(self.counts[i]) / self.len as f64
        }
    }
}

/// `-log_phi(1 - m)` for a marked fraction `m` of `n` packets, with `m = 1`
/// read as `(n - 1/2) / n` (module docs).
pub fn price_from_fraction(m: f64, n: usize, ln_phi: f64) -> f64 {
    if n == 0 || m <= 0.0 {
        return 0.0;
    }
    let m = m.min(1.0 - 0.5 / n as f64);
    -(1.0 - m).ln() / ln_phi
}

#[derive(Clone, Debug)]
enum Estimate {
    /// The last echoed price.
    Explicit { last: f64 },
    /// Bit 0 of the history is the ECN mark.
    OneBit { hist: MarkHistory, ln_phi: f64 },
    /// The header's code bits.
    FourBit {
        hist: MarkHistory,
        ln_phis: Vec<f64>,
    },
    /// The last ACK's mark as 0 or 1.
    PerAck { last: f64 },
}

/// A pricing source's running estimate of its path price (dimensionless).
#[derive(Clone, Debug)]
pub struct PriceEstimator {
    est: Estimate,
}

impl PriceEstimator {
    /// Check `cfg` and build its estimator.
    pub fn new(cfg: &PriceEstimateConfig) -> Result<Self, ParamError> {
        cfg.validate()?;
        let history = cfg.history.unwrap_or(DEFAULT_HISTORY);
        let est = match cfg.feedback {
            PriceFeedback::Explicit => Estimate::Explicit { last: 0.0 },
            PriceFeedback::PerAck => Estimate::PerAck { last: 0.0 },
            PriceFeedback::OneBit => Estimate::OneBit {
                hist: MarkHistory::new(history),
                ln_phi: cfg.phi.unwrap_or(DEFAULT_PHI).ln(),
            },
            PriceFeedback::FourBit => Estimate::FourBit {
                hist: MarkHistory::new(history),
                ln_phis: cfg
                    .phis
                    .as_deref()
                    .unwrap_or(&DEFAULT_PHIS)
                    .iter()
                    .map(|p| p.ln())
                    .collect(),
            },
        };
        Ok(PriceEstimator { est })
    }

    /// Take what `ack` says about the price (its echoed header, or its ECE
    /// flag standing for one marked packet, or for the `packets` unmarked
    /// ones it acknowledges).
    #[inline]
    pub fn on_ack(&mut self, ack: &AckInfo, packets: f64) {
        match &mut self.est {
            Estimate::Explicit { last } => {
                if let CcHeader::Price(h) = ack.cc {
                    *last = h.price;
                }
            }
            Estimate::PerAck { last } => *last = if ack.ece { 1.0 } else { 0.0 },
            Estimate::OneBit { hist, .. } => {
                if ack.ece {
                    hist.push(1);
                } else {
                    let n = if packets >= 1.5 { 2 } else { 1 };
                    for _ in 0..n {
                        hist.push(0);
                    }
                }
            }
            Estimate::FourBit { hist, .. } => {
                if let CcHeader::Price(h) = ack.cc {
                    hist.push(h.marks);
                }
            }
        }
    }

    /// The current price estimate (dimensionless, >= 0 unless a link
    /// writes negative prices).
    pub fn price(&self) -> f64 {
        match &self.est {
            Estimate::Explicit { last } | Estimate::PerAck { last } => *last,
            Estimate::OneBit { hist, ln_phi } => {
                price_from_fraction(hist.fraction(0), hist.len, *ln_phi)
            }
            Estimate::FourBit { hist, ln_phis } => {
                let i = Self::chosen_bit(hist, ln_phis.len());
                price_from_fraction(hist.fraction(i), hist.len, ln_phis[i])
            }
        }
    }

    /// The marked fraction per code bit over the history (one entry for
    /// one_bit; empty for explicit and per_ack).
    pub fn fractions(&self) -> Vec<f64> {
        match &self.est {
            Estimate::OneBit { hist, .. } => vec![hist.fraction(0)],
            Estimate::FourBit { hist, ln_phis } => {
                (0..ln_phis.len()).map(|i| hist.fraction(i)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The code bit the 4-bit estimate reads (`None` for the other kinds).
    pub fn bit(&self) -> Option<usize> {
        match &self.est {
            Estimate::FourBit { hist, ln_phis } => Some(Self::chosen_bit(hist, ln_phis.len())),
            _ => None,
        }
    }

    /// Packets in the history (0 for explicit and per_ack).
    pub fn history_len(&self) -> usize {
        match &self.est {
            Estimate::OneBit { hist, .. } | Estimate::FourBit { hist, .. } => hist.len,
            _ => 0,
        }
    }

    /// The bit whose fraction is closest to 1/2, the lowest on a tie.
    fn chosen_bit(hist: &MarkHistory, bits: usize) -> usize {
        let mut best = 0;
        for i in 1..bits {
            if (hist.fraction(i) - 0.5).abs() < (hist.fraction(best) - 0.5).abs() {
                best = i;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use sim_core::{PriceHeader, SimDuration};

    fn cfg(feedback: PriceFeedback) -> PriceEstimateConfig {
        PriceEstimateConfig {
            feedback,
            history: None,
            phi: None,
            phis: None,
        }
    }

    fn ack(ece: bool, hdr: Option<PriceHeader>) -> AckInfo {
        AckInfo {
            ece,
            cc: hdr.map_or(CcHeader::None, CcHeader::Price),
            ..AckInfo::segment(1000, SimDuration::from_millis(50))
        }
    }

    fn marks(bits: u8) -> Option<PriceHeader> {
        Some(PriceHeader {
            price: 0.0,
            marks: bits,
        })
    }

    #[test]
    fn explicit_feedback_is_the_last_echoed_price() {
        let mut e = PriceEstimator::new(&cfg(PriceFeedback::Explicit)).unwrap();
        assert_eq!(e.price(), 0.0);
        let h = PriceHeader {
            price: 0.35,
            marks: 0,
        };
        e.on_ack(&ack(false, Some(h)), 1.0);
        assert_eq!(e.price(), 0.35);
        // An ACK without a price header leaves the estimate as it was.
        e.on_ack(&ack(true, None), 1.0);
        assert_eq!(e.price(), 0.35);
    }

    #[test]
    fn per_ack_feedback_is_each_acks_mark() {
        let mut e = PriceEstimator::new(&cfg(PriceFeedback::PerAck)).unwrap();
        e.on_ack(&ack(true, None), 1.0);
        assert_eq!(e.price(), 1.0);
        e.on_ack(&ack(false, None), 2.0);
        assert_eq!(e.price(), 0.0);
    }

    #[test]
    fn one_bit_price_is_minus_log_phi_of_the_unmarked_fraction() {
        let mut e = PriceEstimator::new(&cfg(PriceFeedback::OneBit)).unwrap();
        // 10 marked of 50: m = 0.2, p = -ln(0.8)/ln(1.06) = 3.8296.
        for i in 0..50 {
            e.on_ack(&ack(i % 5 == 0, None), 1.0);
        }
        assert_eq!(e.fractions(), vec![0.2]);
        let want = -(0.8f64).ln() / 1.06f64.ln();
        assert!((e.price() - want).abs() < 1e-12, "{}", e.price());
        assert!((want - 3.8296).abs() < 1e-4);
    }

    #[test]
    fn one_bit_history_slides_over_the_last_packets() {
        let c = PriceEstimateConfig {
            history: Some(4),
            ..cfg(PriceFeedback::OneBit)
        };
        let mut e = PriceEstimator::new(&c).unwrap();
        for m in [true, true, false, false] {
            e.on_ack(&ack(m, None), 1.0);
        }
        assert_eq!(e.fractions(), vec![0.5]);
        // Two more unmarked push the two marks out.
        e.on_ack(&ack(false, None), 1.0);
        assert_eq!(e.fractions(), vec![0.25]);
        e.on_ack(&ack(false, None), 1.0);
        assert_eq!(e.fractions(), vec![0.0]);
        assert_eq!(e.price(), 0.0);
        // A delayed ACK of two unmarked packets is two entries; a marked ACK one.
        e.on_ack(&ack(true, None), 1.0);
        e.on_ack(&ack(false, None), 2.0);
        assert_eq!(e.history_len(), 4);
        assert_eq!(e.fractions(), vec![0.25]);
    }

    #[test]
    fn a_fully_marked_history_reads_as_half_a_packet_unmarked() {
        let mut e = PriceEstimator::new(&cfg(PriceFeedback::OneBit)).unwrap();
        for _ in 0..50 {
            e.on_ack(&ack(true, None), 1.0);
        }
        // m = 99.5 / 100 of... (50 - 1/2)/50 = 0.99: p = ln(100)/ln(1.06).
        let want = 100f64.ln() / 1.06f64.ln();
        assert!((e.price() - want).abs() < 1e-9, "{}", e.price());
        assert!(e.price().is_finite());
        // Partly filled: 3 of 3 marked reads as 2.5/3, p = ln(6)/ln(phi).
        let mut e = PriceEstimator::new(&cfg(PriceFeedback::OneBit)).unwrap();
        for _ in 0..3 {
            e.on_ack(&ack(true, None), 1.0);
        }
        assert!((e.price() - 6f64.ln() / 1.06f64.ln()).abs() < 1e-9);
    }

    #[test]
    fn four_bit_uses_the_bit_whose_fraction_is_closest_to_one_half() {
        let mut e = PriceEstimator::new(&cfg(PriceFeedback::FourBit)).unwrap();
        // Of 50 packets: bit 0 marked on 48, bit 1 on 20, bit 2 on 3, bit 3 on 0.
        for i in 0..50u32 {
            let mut b = 0u8;
            if i < 48 {
                b |= 1;
            }
            if i < 20 {
                b |= 2;
            }
            if i < 3 {
                b |= 4;
            }
            e.on_ack(&ack(false, marks(b)), 1.0);
        }
        assert_eq!(e.fractions(), vec![0.96, 0.4, 0.06, 0.0]);
        assert_eq!(e.bit(), Some(1));
        let want = -(0.6f64).ln() / 1.007f64.ln();
        assert!((e.price() - want).abs() < 1e-9, "{} vs {want}", e.price());
    }

    #[test]
    fn four_bit_ties_go_to_the_lower_bit_and_an_unmarked_history_is_free() {
        let mut e = PriceEstimator::new(&cfg(PriceFeedback::FourBit)).unwrap();
        for _ in 0..10 {
            e.on_ack(&ack(false, marks(0)), 1.0);
        }
        assert_eq!(e.bit(), Some(0));
        assert_eq!(e.price(), 0.0);
        // Bits 0 and 1 at 0.25 and 0.75: equally close, bit 0 wins.
        let c = PriceEstimateConfig {
            history: Some(8),
            ..cfg(PriceFeedback::FourBit)
        };
        let mut e = PriceEstimator::new(&c).unwrap();
        for i in 0..8 {
            let b = u8::from(i < 2) | (u8::from(i < 6) << 1);
            e.on_ack(&ack(false, marks(b)), 1.0);
        }
        assert_eq!(e.bit(), Some(0));
    }

    #[test]
    fn keys_are_checked_and_only_accepted_with_their_feedback() {
        let bad = |c: PriceEstimateConfig| c.validate().unwrap_err().key;
        assert_eq!(
            bad(PriceEstimateConfig {
                phi: Some(1.0),
                ..cfg(PriceFeedback::OneBit)
            }),
            "phi"
        );
        assert_eq!(
            bad(PriceEstimateConfig {
                phi: Some(1.06),
                ..cfg(PriceFeedback::Explicit)
            }),
            "phi"
        );
        assert_eq!(
            bad(PriceEstimateConfig {
                history: Some(0),
                ..cfg(PriceFeedback::FourBit)
            }),
            "history"
        );
        assert_eq!(
            bad(PriceEstimateConfig {
                history: Some(50),
                ..cfg(PriceFeedback::PerAck)
            }),
            "history"
        );
        assert_eq!(
            bad(PriceEstimateConfig {
                phis: Some(vec![1.06, 0.9]),
                ..cfg(PriceFeedback::FourBit)
            }),
            "phis[1]"
        );
        assert_eq!(
            bad(PriceEstimateConfig {
                phis: Some(vec![]),
                ..cfg(PriceFeedback::FourBit)
            }),
            "phis"
        );
        assert_eq!(
            bad(PriceEstimateConfig {
                phis: Some(vec![1.1]),
                ..cfg(PriceFeedback::OneBit)
            }),
            "phis"
        );
    }

    #[test]
    fn min_rtt_tracks_the_smallest_sample_and_srtt_the_transports() {
        let a = |rtt_ms: u64, srtt_ms: u64| AckInfo {
            rtt: Some(SimDuration::from_millis(rtt_ms)),
            srtt: Some(SimDuration::from_millis(srtt_ms)),
            ..AckInfo::segment(1000, SimDuration::from_millis(1))
        };
        let mut t = RttTracker::new(RateRtt::MinRtt);
        assert_eq!(t.on_ack(&a(50, 60)), Some(0.05));
        assert_eq!(t.on_ack(&a(40, 58)), Some(0.04));
        assert_eq!(t.on_ack(&a(70, 59)), Some(0.04));
        let mut t = RttTracker::new(RateRtt::Srtt);
        assert_eq!(t.on_ack(&a(50, 60)), Some(0.06));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The 1-bit estimate recovers the price of a mark stream with
        /// `m = 1 - phi^-p` to within the binomial sampling error of its
        /// 50-packet window: it is exactly `-log_phi(1 - k/50)` for the `k`
        /// marks among the last 50, and `k/50` lies within 4 standard errors
        /// `sqrt(m (1 - m) / 50)` of `m` (the price is bounded by the same
        /// band mapped through `-log_phi(1 - .)`). Prices are drawn so that
        /// `m` is in REM's useful range [0.1, 0.9].
        #[test]
        fn one_bit_estimate_recovers_p_within_the_binomial_error(
            m in 0.1f64..0.9,
            phi in prop::sample::select(vec![1.06f64, 1.007, 1.001]),
            seed in any::<u64>(),
        ) {
            let p = -(1.0 - m).ln() / phi.ln();
            let c = PriceEstimateConfig { phi: Some(phi), ..cfg(PriceFeedback::OneBit) };
            let mut e = PriceEstimator::new(&c).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let stream: Vec<bool> = (0..537).map(|_| rng.random::<f64>() < m).collect();
            for &mk in &stream {
                e.on_ack(&ack(mk, None), 1.0);
            }
            let k = stream[stream.len() - 50..].iter().filter(|b| **b).count();
            let exact = price_from_fraction(k as f64 / 50.0, 50, phi.ln());
            prop_assert!((e.price() - exact).abs() < 1e-9, "{} vs {exact}", e.price());
            let se = (m * (1.0 - m) / 50.0).sqrt();
            let lo = price_from_fraction((m - 4.0 * se).max(0.0), 50, phi.ln());
            let hi = price_from_fraction((m + 4.0 * se).min(1.0), 50, phi.ln());
            prop_assert!(
                e.price() >= lo && e.price() <= hi,
                "p_hat {} outside [{lo}, {hi}] around p {p}", e.price()
            );
        }

        /// With every link on the path marking bit i with `1 - phi_i^-p`,
        /// the 4-bit estimate reads the bit whose true marking probability is
        /// closest to 0.5 whenever that bit is clearly best (its distance to
        /// 0.5 beats every other bit's by more than 4 standard errors of a
        /// 50-packet fraction), and its price is within that bit's binomial
        /// band.
        #[test]
        fn four_bit_estimate_picks_the_bit_nearest_one_half(
            log_p in 0.0f64..10.0,
            seed in any::<u64>(),
        ) {
            let p = log_p.exp();
            let m: Vec<f64> = DEFAULT_PHIS.iter().map(|f| 1.0 - f.powf(-p)).collect();
            let dist: Vec<f64> = m.iter().map(|x| (x - 0.5).abs()).collect();
            let best = (0..4).min_by(|a, b| dist[*a].total_cmp(&dist[*b])).unwrap();
            let se = |x: f64| (x * (1.0 - x) / 50.0).sqrt();
            let clear = (0..4).filter(|i| *i != best).all(|i| {
                dist[i] - dist[best] > 4.0 * (se(m[i]) + se(m[best]))
            });
            prop_assume!(clear);
            let mut e = PriceEstimator::new(&cfg(PriceFeedback::FourBit)).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for _ in 0..200 {
                let mut b = 0u8;
                for (i, mi) in m.iter().enumerate() {
                    if rng.random::<f64>() < *mi {
                        b |= 1 << i;
                    }
                }
                e.on_ack(&ack(false, marks(b)), 1.0);
            }
            prop_assert_eq!(e.bit(), Some(best), "fractions {:?}, true {:?}", e.fractions(), m);
            let ln = DEFAULT_PHIS[best].ln();
            let s = se(m[best]);
            let lo = price_from_fraction((m[best] - 4.0 * s).max(0.0), 50, ln);
            let hi = price_from_fraction((m[best] + 4.0 * s).min(1.0), 50, ln);
            prop_assert!(e.price() >= lo && e.price() <= hi, "{} outside [{lo}, {hi}], p {p}", e.price());
        }
    }
}
