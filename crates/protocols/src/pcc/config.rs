//! The scenario parameters of a PCC flow (`pcc = { ... }` beside
//! `transport = "pcc"`), with the thesis's Table 6.1 values as defaults.
//!
//! Provenance (spec `seed-004-damm-pcc.md` §2.0, §2.11, §2.15): every key of
//! spec 2.0's table, under the name given here, with its default:
//! `rate` r_NA 256 kbit/s (32 pkt/s of 1000 B, the standard scenario's fair
//! rate), `t_exp` 2 s, `t_off` 60 s, `t_prot_max` 30 s, `n_le` 3, `n_rtt` 5,
//! `n_samples` 24, `discount` true, `rtt_weight` 0.2, `b` 1, `overhead` 0.5,
//! `control_size` 40 B, `no_feedback_rtts` 24, `adjust_rate` false.
//! Gap-filling keys (the thesis leaves them open; spec appendix):
//! - `idle_control_rtts` = 8: with no data since the last control packet the
//!   receiver sends one every 8 srtt ("at a much lower frequency", §5.3.1).
//!   INFERRED: a third of the sender's 24-srtt no-feedback time, so two
//!   consecutive lost control packets do not stop a sender.
//! - `initial_rtt` = 500 ms: the control-packet interval before the first
//!   RTT sample. INFERRED: the receiver sends a control packet at the first
//!   data packet (RTT samples need an echo) and then every `initial_rtt`
//!   until it has a sample; the value only matters for one or two RTTs.
//! - `no_feedback_initial` = 2 s: the sender's no-feedback time before any
//!   control packet. INFERRED from RFC 5348 §4.2 (TFRC's initial
//!   no-feedback timer of 2 s), since the thesis gives none.
//! - `adjust_loss_span` = `"history"`: the packets the rate adjustment's
//!   packet loss rate `lossrate` is measured over (spec §2.13: unspecified):
//!   those of the loss history, since the start of the current protected
//!   time (INFERRED, see `adjust.rs`), or `"flow"`, every packet of the
//!   flow since it started (the thesis's App. B lists a `totalReceived_`
//!   counter on its receiver agent, which such a rate would use).

use serde::{Deserialize, Serialize};
use sim_core::{check_range, Bytes, ParamError, Rate, SimDuration};

use super::decision::DecisionConfig;

/// Which packets the rate adjustment's packet loss rate is measured over.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossSpan {
    /// The loss history's, since the current protected time began.
    #[default]
    History,
    /// The whole flow's, since its first packet.
    Flow,
}

/// Parameters of a PCC flow (sender and receiver).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PccConfig {
    /// Application rate r_NA while on (Table 6.1: 32 pkt/s x 1000 B = 256 kbit/s).
    pub rate: Rate,
    /// Experiment interval T_EXP (Table 6.1: 2 s).
    pub t_exp: SimDuration,
    /// Off time T_OFF (Table 6.1: 60 s); a multiple of `t_exp`.
    pub t_off: SimDuration,
    /// Maximum protected time T_PROT,MAX (Table 6.1: 30 s).
    pub t_prot_max: SimDuration,
    /// Loss events that end protected time N_LE (Table 6.1: 3).
    pub n_le: u32,
    /// RTT samples that end protected time N_RTT (Table 6.1: 5).
    pub n_rtt: u32,
    /// Loss intervals of the Average Loss Interval method N_SAMP (Table 6.1: 24).
    pub n_samples: u32,
    /// History discounting (Table 6.1: used).
    pub discount: bool,
    /// Weight of a new RTT sample in the EWMA (Table 6.1: 0.2; ns-2 df_ = 0.8).
    pub rtt_weight: f64,
    /// Packets acknowledged per ACK in the TCP equation, b (ns-2 bval_: 1).
    pub b: f64,
    /// Maximum relative dither of the inter-packet gap (ns-2 overhead_: 0.5).
    pub overhead: f64,
    /// Size of a receiver control packet (Table 6.1: 40 B).
    pub control_size: Bytes,
    /// The sender stops after this many of its srtt without a control packet (24).
    pub no_feedback_rtts: f64,
    /// The Ramesh/Rhee rate adjustment of §6.5.1 (ns-2 adjustRate_: off).
    pub adjust_rate: bool,
    /// The adjustment's packet loss rate over the loss history's packets
    /// (default) or the whole flow's.
    pub adjust_loss_span: LossSpan,
    /// Control-packet interval in srtt when no data arrived (INFERRED: 8).
    pub idle_control_rtts: f64,
    /// Control-packet interval before the first RTT sample (INFERRED: 500 ms).
    pub initial_rtt: SimDuration,
    /// The sender's no-feedback time before any control packet (INFERRED: 2 s).
    pub no_feedback_initial: SimDuration,
}

impl Default for PccConfig {
    fn default() -> Self {
        let d = DecisionConfig::default();
        PccConfig {
            rate: Rate::from_bps(256_000),
            t_exp: d.t_exp,
            t_off: d.t_off,
            t_prot_max: d.t_prot_max,
            n_le: d.n_le,
            n_rtt: d.n_rtt,
            n_samples: 24,
            discount: true,
            rtt_weight: 0.2,
            b: 1.0,
            overhead: 0.5,
            control_size: Bytes::new(40),
            no_feedback_rtts: 24.0,
            adjust_rate: false,
            adjust_loss_span: LossSpan::History,
            idle_control_rtts: 8.0,
            initial_rtt: SimDuration::from_millis(500),
            no_feedback_initial: SimDuration::from_secs(2),
        }
    }
}

impl PccConfig {
    /// The decision machine's part.
    pub fn decision(&self) -> DecisionConfig {
        DecisionConfig {
            t_exp: self.t_exp,
            t_off: self.t_off,
            t_prot_max: self.t_prot_max,
            n_le: self.n_le,
            n_rtt: self.n_rtt,
        }
    }

    /// Check every range; keys are relative to the `pcc` table.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.rate.bps() == 0 {
            return Err(ParamError::new(
                "rate",
                "must be > 0 (p_ON is never computed for r_NA = 0)",
            ));
        }
        self.decision().validate()?;
        if self.n_samples == 0 || !self.n_samples.is_multiple_of(2) {
            return Err(ParamError::new(
                "n_samples",
                format!(
                    "{} must be even and >= 2 (the weights of Eqs. 5.2/5.3 split n in halves)",
                    self.n_samples
                ),
            ));
        }
        check_range("rtt_weight", self.rtt_weight, f64::MIN_POSITIVE, 1.0)?;
        check_range("b", self.b, f64::MIN_POSITIVE, f64::MAX)?;
        check_range("overhead", self.overhead, 0.0, 1.0 - f64::EPSILON)?;
        if self.control_size.get() == 0 {
            return Err(ParamError::new("control_size", "must be > 0"));
        }
        check_range("no_feedback_rtts", self.no_feedback_rtts, 1.0, f64::MAX)?;
        check_range("idle_control_rtts", self.idle_control_rtts, 1.0, f64::MAX)?;
        for (key, d) in [
            ("initial_rtt", self.initial_rtt),
            ("no_feedback_initial", self.no_feedback_initial),
        ] {
            if d == SimDuration::ZERO {
                return Err(ParamError::new(key, "must be > 0"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_table_6_1_and_valid() {
        let c = PccConfig::default();
        c.validate().unwrap();
        assert_eq!(c.rate.bps(), 32 * 1000 * 8);
        assert_eq!(c.decision(), DecisionConfig::default());
        assert_eq!(c.n_samples, 24);
        assert_eq!(c.control_size.get(), 40);
    }

    #[test]
    fn parses_unit_strings_and_names_bad_keys() {
        let c: PccConfig =
            toml::from_str("rate = \"64kbps\"\nt_exp = \"1s\"\nadjust_rate = true").unwrap();
        assert_eq!(c.rate.bps(), 64_000);
        assert_eq!(c.t_exp, SimDuration::from_secs(1));
        assert!(c.adjust_rate);
        assert_eq!(c.adjust_loss_span, LossSpan::History);
        let c: PccConfig = toml::from_str("adjust_loss_span = \"flow\"").unwrap();
        assert_eq!(c.adjust_loss_span, LossSpan::Flow);
        assert!(toml::from_str::<PccConfig>("adjust_loss_span = \"all\"").is_err());
        assert!(toml::from_str::<PccConfig>("t_of = \"1s\"").is_err());
        let bad = PccConfig {
            t_exp: SimDuration::from_secs(7),
            ..PccConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().key, "t_off");
        let bad = PccConfig {
            overhead: 1.0,
            ..PccConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().key, "overhead");
        let bad = PccConfig {
            n_samples: 5,
            ..PccConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().key, "n_samples");
    }
}
