//! MulTCP(N): one TCP connection that behaves like N NewReno connections.
//!
//! Provenance:
//! - Seed 001 (spec `seed-001-wtp-multcp.md` section 2.5) describes MulTCP only
//!   qualitatively: "a modification of TCP that makes one connection approximate
//!   the behavior of multiple normal TCP flows", with TCP's "double multiplicative
//!   decrease" and throughput proportional to the weight over the square root of
//!   the marking probability. It gives no equations.
//! - \[EXTERNAL\] Crowcroft & Oechslin, "Differentiated end-to-end Internet services
//!   using a weighted proportional fair sharing TCP", CCR 28(3), 1998, the rules
//!   reimplementations use (spec section 2.5): congestion avoidance grows by N
//!   segments per RTT (`cwnd += N SMSS² / cwnd` per ACK, byte-counted as for
//!   NewReno here); a congestion signal sets
//!   `ssthresh = cwnd = FlightSize (1 − 1/(2N))`, N = 1 being TCP's halving
//!   (RFC 5681 eq. 4, with its 2 SMSS floor); a timeout collapses cwnd to 1 SMSS.
//!   Fast recovery, retransmission and the RTO are the transport's (NewReno).
//!
//! Open choices, configurable (spec section 2.5 and 7 item 13):
//! - `ecn_reaction`: `"once_per_rtt"` (default, INFERRED: MulTCP is "a
//!   modification of TCP", and TCP/ECN reacts at most once per window, RFC 3168)
//!   or `"every_mark"` (per-packet echo, one decrease per marked packet);
//!   either way an ACK carrying ECN-Echo never grows the window (RFC 3168
//!   section 6.1.2, as NewReno);
//! - slow start: standard (RFC 5681 / RFC 3465), not the original's faster
//!   N-flow slow start; it ends before the measurement window of seed 001.
//!
//! INFERRED: N may be any real number > 0.5 (the decrease factor `1 − 1/(2N)`
//! must stay positive); the paper's weights are such numbers.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, EcnFeedback, ParamError, SimTime};

/// RFC 3465 section 2.2: slow start grows by at most `L = 2` segments per ACK.
const ABC_LIMIT_SEGMENTS: u64 = 2;

/// How often MulTCP reacts to ECN echoes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnReaction {
    /// RFC 3168: at most one decrease per window of data.
    #[default]
    OncePerRtt,
    /// One decrease per marked packet (per-packet echo).
    EveryMark,
}

/// Parameters of MulTCP (`cc = { kind = "multcp", n = 4.0, ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MulTcpConfig {
    /// The weight N: the number of TCP connections emulated (> 0.5). Default 1.
    pub n: f64,
    /// ECN reaction frequency. Default `"once_per_rtt"`.
    pub ecn_reaction: EcnReaction,
    /// Initial window, segments (>= 1). Default: RFC 5681's rule by MSS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial slow-start threshold, segments (>= 1). Default: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
}

impl Default for MulTcpConfig {
    fn default() -> Self {
        MulTcpConfig {
            n: 1.0,
            ecn_reaction: EcnReaction::OncePerRtt,
            initial_window: None,
            initial_ssthresh: None,
        }
    }
}

impl MulTcpConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.n.is_finite() && self.n > 0.5) {
            return Err(ParamError::new(
                "n",
                format!(
                    "{} is out of range; MulTCP's decrease factor 1 - 1/(2N) needs N > 0.5",
                    self.n
                ),
            ));
        }
        if self.initial_window == Some(0) {
            return Err(ParamError::new("initial_window", "must be >= 1 segment"));
        }
        if self.initial_ssthresh == Some(0) {
            return Err(ParamError::new("initial_ssthresh", "must be >= 1 segment"));
        }
        Ok(())
    }
}

/// MulTCP's state.
#[derive(Clone, Debug)]
pub struct MulTcp {
    n: f64,
    reaction: EcnReaction,
    mss: u64,
    /// Congestion window, bytes.
    cwnd: f64,
    /// Slow-start threshold, bytes (`u64::MAX`: unlimited).
    ssthresh: u64,
}

impl MulTcp {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &MulTcpConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        if mss == 0 {
            return Err(ParamError::new("mss", "must be >= 1 byte"));
        }
        let iw = cfg.initial_window.unwrap_or(match mss {
            m if m > 2190 => 2,
            m if m > 1095 => 3,
            _ => 4,
        });
        let mss = u64::from(mss);
        Ok(MulTcp {
            n: cfg.n,
            reaction: cfg.ecn_reaction,
            mss,
            cwnd: (u64::from(iw) * mss) as f64,
            ssthresh: cfg
                .initial_ssthresh
                .map_or(u64::MAX, |s| u64::from(s) * mss),
        })
    }

    /// True while in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh as f64
    }

    /// `ssthresh = cwnd = max(flight (1 − 1/(2N)), 2 SMSS)`.
    fn decrease(&mut self, in_flight: u64) {
        let reduced = in_flight as f64 * (1.0 - 1.0 / (2.0 * self.n));
        self.ssthresh = (reduced as u64).max(2 * self.mss);
        self.cwnd = self.ssthresh as f64;
    }
}

impl Controller for MulTcp {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo) {
        if ack.ece && self.reaction == EcnReaction::EveryMark && !ack.in_recovery {
            self.decrease(self.cwnd as u64);
            return;
        }
        // RFC 3168 section 6.1.2: no growth on an ECN-Echo ACK (see NewReno).
        if ack.in_recovery || ack.acked == 0 || ack.ece {
            return;
        }
        if self.in_slow_start() {
            self.cwnd += ack.acked.min(ABC_LIMIT_SEGMENTS * self.mss) as f64;
        } else {
            self.cwnd += self.n * self.mss as f64 * ack.acked as f64 / self.cwnd;
        }
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        match ev {
            Congestion::Loss { in_flight } | Congestion::Ecn { in_flight } => {
                self.decrease(in_flight);
            }
            Congestion::Timeout { in_flight } => {
                self.decrease(in_flight);
                self.cwnd = self.mss as f64;
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.cwnd = self.ssthresh as f64;
    }

    #[inline]
    fn window(&self) -> u64 {
        self.cwnd as u64
    }

    fn ssthresh(&self) -> Option<u64> {
        Some(self.ssthresh)
    }

    fn ecn_feedback(&self) -> EcnFeedback {
        match self.reaction {
            EcnReaction::OncePerRtt => EcnFeedback::Classic,
            EcnReaction::EveryMark => EcnFeedback::PerPacket,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{NewReno, NewRenoConfig};
    use sim_core::SimDuration;

    const MSS: u32 = 1000;

    fn ack(acked: u64, ece: bool) -> AckInfo {
        AckInfo {
            acked,
            in_flight: 10_000,
            ece,
            ..AckInfo::segment(MSS, SimDuration::from_millis(100))
        }
    }

    fn multcp(n: f64, reaction: EcnReaction) -> MulTcp {
        let cfg = MulTcpConfig {
            n,
            ecn_reaction: reaction,
            initial_window: Some(10),
            initial_ssthresh: Some(10),
        };
        MulTcp::new(&cfg, MSS).unwrap()
    }

    #[test]
    fn congestion_avoidance_grows_n_segments_per_window() {
        let mut c = multcp(4.0, EcnReaction::OncePerRtt);
        let mut expect = 10_000.0f64;
        for _ in 0..10 {
            c.on_ack(&ack(1000, false));
            expect += 4.0 * 1000.0 * 1000.0 / expect;
        }
        assert_eq!(c.cwnd, expect);
        assert!(c.window() > 13_000 && c.window() < 14_000);
    }

    #[test]
    fn a_congestion_signal_removes_one_2n_th_of_the_flight() {
        for n in [1.0, 2.0, 4.0, 10.0] {
            let mut c = multcp(n, EcnReaction::OncePerRtt);
            c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 40_000 });
            let expect = (40_000.0 * (1.0 - 1.0 / (2.0 * n))) as u64;
            assert_eq!(c.window(), expect, "n = {n}");
            assert_eq!(c.ssthresh(), Some(expect));
        }
    }

    #[test]
    fn n_equal_one_is_newreno() {
        let mut m = multcp(1.0, EcnReaction::OncePerRtt);
        let mut r = NewReno::new(
            &NewRenoConfig {
                initial_window: Some(10),
                initial_ssthresh: Some(10),
                ..Default::default()
            },
            MSS,
        )
        .unwrap();
        let events = [
            Congestion::Loss { in_flight: 20_000 },
            Congestion::Ecn { in_flight: 7_000 },
            Congestion::Timeout { in_flight: 9_000 },
        ];
        for ev in events {
            for _ in 0..30 {
                m.on_ack(&ack(1000, false));
                r.on_ack(&ack(1000, false));
            }
            m.on_congestion(SimTime::ZERO, ev);
            r.on_congestion(SimTime::ZERO, ev);
            assert_eq!(m.window(), r.window());
            assert_eq!(m.ssthresh(), r.ssthresh());
        }
    }

    #[test]
    fn no_ack_carrying_ecn_echo_grows_the_window_in_either_reaction() {
        // RFC 3168 section 6.1.2: with every ACK of a window marked, the window
        // stays where the (once-per-window) reduction put it.
        let mut c = multcp(4.0, EcnReaction::OncePerRtt);
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 10_000 });
        let after_cut = c.window();
        for _ in 0..20 {
            c.on_ack(&ack(1000, true));
            assert_eq!(c.window(), after_cut);
        }
        c.on_ack(&ack(1000, false));
        assert!(c.window() > after_cut);
        // Per-packet reaction: each echo decreases, none grows.
        let mut c = multcp(4.0, EcnReaction::EveryMark);
        let mut last = c.window();
        for _ in 0..5 {
            c.on_ack(&ack(1000, true));
            assert!(c.window() < last);
            last = c.window();
        }
    }

    #[test]
    fn every_mark_reaction_decreases_on_each_echo_and_asks_for_per_packet_feedback() {
        let mut c = multcp(2.0, EcnReaction::EveryMark);
        assert_eq!(c.ecn_feedback(), EcnFeedback::PerPacket);
        c.on_ack(&ack(1000, true));
        assert_eq!(c.window(), 7_500);
        c.on_ack(&ack(1000, true));
        assert_eq!(c.window(), 5_625);
        let c = multcp(2.0, EcnReaction::OncePerRtt);
        assert_eq!(c.ecn_feedback(), EcnFeedback::Classic);
    }

    #[test]
    fn bad_parameters_are_rejected_with_their_key() {
        let key = |t: &str| {
            toml::from_str::<MulTcpConfig>(t)
                .unwrap()
                .validate()
                .unwrap_err()
                .key
        };
        assert_eq!(key("n = 0.5"), "n");
        assert_eq!(key("n = 2.0\ninitial_window = 0"), "initial_window");
        assert!(toml::from_str::<MulTcpConfig>("n = 2.0\necn_reaction = \"never\"").is_err());
        assert!(toml::from_str::<MulTcpConfig>("weight = 2.0").is_err());
    }
}
