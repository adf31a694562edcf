//! TFRC, TCP-Friendly Rate Control (RFC 5348), and the TFRC mechanisms that
//! seed 004's PCC reuses (Damm 2001, section 5.4).
//!
//! - [`loss_events`]: receiver-side loss-event detection and the Average Loss
//!   Interval method ([`LossHistory`]).
//! - [`equation`]: the Padhye TCP throughput equation ([`padhye`]).
//! - [`sender`]: [`TfrcSender`], RFC 5348 section 4's sender (allowed rate
//!   from the equation and the receive rate, slow start, no-feedback timer,
//!   oscillation prevention), paced at its rate.
//! - [`receiver`]: [`TfrcReceiver`], RFC 5348 section 6's receiver (feedback
//!   once per RTT and on a new loss event).
//!
//! Packets carry [`sim_core::TfrcData`] / [`sim_core::TfrcFeedback`] headers.
//! Both endpoints take their parameters from one [`TfrcConfig`] (`tfrc = {
//! ... }` in a flow group with `transport = "tfrc"`). TFRC is unreliable:
//! nothing is retransmitted; goodput counts the data that arrived.

use serde::{Deserialize, Serialize};
use sim_core::{check_range, Bytes, ParamError, SimDuration};

pub mod equation;
pub mod loss_events;
pub mod receiver;
pub mod sender;

pub use equation::{p_for_rate, padhye, RtoRule, NS2_MAXRATE};
pub use loss_events::{weight, weights, AliConfig, Arrival, LossHistory};
pub use receiver::TfrcReceiver;
pub use sender::TfrcSender;

/// How the sender picks its rate when the first feedback arrives.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitialRate {
    /// RFC 5348 section 4.2: `W_init / R` with `W_init = min(4 s, max(2 s,
    /// 4380 B))` (RFC 3390's initial window).
    #[default]
    Rfc5348,
    /// RFC 3448 (the first TFRC RFC) and ns-2's default: 1 packet per RTT,
    /// `s / R`, doubling from there.
    OnePacket,
}

/// Parameters of the TFRC sender and receiver (RFC 5348). Every field has a
/// default (given with its source), so `tfrc = {}` is valid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TfrcConfig {
    /// Loss intervals averaged, n (even, 2..=64). Default 8 (RFC 5348
    /// section 5.4); seed 004's PCC runs use 24.
    pub intervals: usize,
    /// History discounting (RFC 5348 section 5.5). Default true (RFC 5348;
    /// ns-2 `discount_ = 1`).
    pub discounting: bool,
    /// Weight of a new RTT sample in the sender's EWMA of the RTT, in (0, 1].
    /// Default 0.1 (RFC 5348 section 4.3: `q = 0.9` on the old value).
    pub rtt_weight: f64,
    /// Packets acknowledged per TCP ACK in the equation, b (>= 1). Default 1
    /// (RFC 5348 section 3.1).
    pub b: f64,
    /// The equation's `t_RTO` as a multiple of the RTT (> 0). Default 4 (RFC
    /// 5348 section 3.1's simplification `t_RTO = 4 R`).
    pub rto_rtts: f64,
    /// Lower bound on the equation's `t_RTO`. Default 0 (none, as RFC 5348
    /// section 3.1; TCP's own would be 1 s).
    pub rto_min: SimDuration,
    /// Oscillation prevention (RFC 5348 section 4.5): the sending rate is `X
    /// R_sqmean / sqrt(R_sample)`, lower while the queue (and so the latest
    /// RTT sample) grows. Default true (ns-2's `Agent/TFRC` default `ca_ =
    /// 1`; RFC 5348 describes it as an optional refinement).
    pub oscillation_prevention: bool,
    /// The rate set when the first feedback arrives. Default `"rfc5348"`.
    pub initial_rate: InitialRate,
    /// Feedback packet size on the wire. Default 40 B (ns-2's
    /// `Agent/TFRCSink packetSize_ = 40`; seed 004's 40-B control packets).
    pub feedback_size: Bytes,
    /// t_mbi, the longest time between two packets at the lowest allowed rate
    /// `s / t_mbi` (> 0). Default 64 s (RFC 5348 section 4.3).
    pub t_mbi: SimDuration,
    /// The no-feedback timer before the first feedback (> 0). Default 2 s
    /// (RFC 5348 section 4.2).
    pub initial_nofeedback: SimDuration,
    /// Random displacement of each departure, as a fraction of the gap
    /// (`tcp.pacing_jitter`'s meaning), in [0, 1). Default 0.01
    /// ([`crate::transport::DEFAULT_PACING_JITTER`], netsim's rate-paced
    /// senders, against phase effects; RFC 5348 has none, ns-2's
    /// `overhead_` plays this role).
    pub pacing_jitter: f64,
}

impl Default for TfrcConfig {
    fn default() -> Self {
        TfrcConfig {
            intervals: 8,
            discounting: true,
            rtt_weight: 0.1,
            b: 1.0,
            rto_rtts: 4.0,
            rto_min: SimDuration::ZERO,
            oscillation_prevention: true,
            initial_rate: InitialRate::Rfc5348,
            feedback_size: Bytes::new(40),
            t_mbi: SimDuration::from_secs(64),
            initial_nofeedback: SimDuration::from_secs(2),
            pacing_jitter: crate::transport::DEFAULT_PACING_JITTER,
        }
    }
}

impl TfrcConfig {
    /// Check parameter ranges (keys relative to the `tfrc` table).
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.intervals < 2 || self.intervals > 64 || !self.intervals.is_multiple_of(2) {
            return Err(ParamError::new(
                "intervals",
                format!(
                    "{} is out of range; allowed: an even number, 2 <= intervals <= 64",
                    self.intervals
                ),
            ));
        }
        check_range("rtt_weight", self.rtt_weight, f64::MIN_POSITIVE, 1.0)?;
        check_range("b", self.b, 1.0, f64::MAX)?;
        check_range("rto_rtts", self.rto_rtts, f64::MIN_POSITIVE, f64::MAX)?;
        if self.feedback_size.get() == 0 || self.feedback_size.get() > u64::from(u32::MAX) {
            return Err(ParamError::new(
                "feedback_size",
                format!(
                    "{} is out of range; allowed: 1B <= feedback_size <= 4294967295B",
                    self.feedback_size
                ),
            ));
        }
        if self.t_mbi == SimDuration::ZERO {
            return Err(ParamError::new("t_mbi", "must be > 0"));
        }
        if self.initial_nofeedback == SimDuration::ZERO {
            return Err(ParamError::new("initial_nofeedback", "must be > 0"));
        }
        if !(0.0..1.0).contains(&self.pacing_jitter) {
            return Err(ParamError::new(
                "pacing_jitter",
                format!(
                    "{} is out of range; allowed: 0 <= pacing_jitter < 1",
                    self.pacing_jitter
                ),
            ));
        }
        Ok(())
    }

    /// The loss-history parameters.
    pub fn ali(&self) -> AliConfig {
        AliConfig {
            n: self.intervals,
            discounting: self.discounting,
        }
    }

    /// The equation's `t_RTO` rule.
    pub fn rto_rule(&self) -> RtoRule {
        if self.rto_min == SimDuration::ZERO {
            RtoRule::Multiple { k: self.rto_rtts }
        } else {
            RtoRule::MultipleWithFloor {
                k: self.rto_rtts,
                min: self.rto_min.as_secs_f64(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_table_gives_the_documented_defaults() {
        let c: TfrcConfig = toml::from_str("").unwrap();
        assert_eq!(c, TfrcConfig::default());
        assert!(c.validate().is_ok());
        assert_eq!(c.intervals, 8);
        assert_eq!(c.rto_rule(), RtoRule::Multiple { k: 4.0 });
        let c: TfrcConfig =
            toml::from_str("intervals = 24\ninitial_rate = \"one_packet\"\nrto_min = \"1s\"")
                .unwrap();
        assert_eq!(c.intervals, 24);
        assert_eq!(c.initial_rate, InitialRate::OnePacket);
        assert_eq!(
            c.rto_rule(),
            RtoRule::MultipleWithFloor { k: 4.0, min: 1.0 }
        );
        assert!(toml::from_str::<TfrcConfig>("interval = 8").is_err());
        assert!(toml::from_str::<TfrcConfig>("initial_rate = \"fast\"").is_err());
    }

    #[test]
    fn each_bad_parameter_is_rejected_with_its_key() {
        let d = TfrcConfig::default();
        let cases = [
            (
                TfrcConfig {
                    intervals: 7,
                    ..d.clone()
                },
                "intervals",
            ),
            (
                TfrcConfig {
                    intervals: 0,
                    ..d.clone()
                },
                "intervals",
            ),
            (
                TfrcConfig {
                    intervals: 66,
                    ..d.clone()
                },
                "intervals",
            ),
            (
                TfrcConfig {
                    rtt_weight: 0.0,
                    ..d.clone()
                },
                "rtt_weight",
            ),
            (
                TfrcConfig {
                    rtt_weight: 1.5,
                    ..d.clone()
                },
                "rtt_weight",
            ),
            (
                TfrcConfig {
                    b: 0.5,
                    ..d.clone()
                },
                "b",
            ),
            (
                TfrcConfig {
                    rto_rtts: 0.0,
                    ..d.clone()
                },
                "rto_rtts",
            ),
            (
                TfrcConfig {
                    feedback_size: Bytes::ZERO,
                    ..d.clone()
                },
                "feedback_size",
            ),
            (
                TfrcConfig {
                    t_mbi: SimDuration::ZERO,
                    ..d.clone()
                },
                "t_mbi",
            ),
            (
                TfrcConfig {
                    initial_nofeedback: SimDuration::ZERO,
                    ..d.clone()
                },
                "initial_nofeedback",
            ),
            (
                TfrcConfig {
                    pacing_jitter: 1.0,
                    ..d.clone()
                },
                "pacing_jitter",
            ),
        ];
        for (c, key) in cases {
            assert_eq!(c.validate().unwrap_err().key, key, "{c:?}");
        }
    }
}
