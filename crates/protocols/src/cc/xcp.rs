//! XCP's sender (Katabi, Handley, Rohrs, SIGCOMM 2002), as seed 002 uses it as
//! a baseline: the window follows the feedback routers write into the header.
//!
//! Provenance (spec `seed-002-zhang.md` §2.6, \[EXTERNAL\] standard XCP): every
//! data packet carries `H_cwnd` (bytes), `H_rtt` (the sender's smoothed RTT, 0
//! before the first sample) and `H_feedback`, initialised to the desired window
//! change; on each ACK, `cwnd = max(cwnd + H_feedback, s)` with the echoed
//! value.
//! - \[INFERRED\] a greedy source desires an unbounded increase (`H_feedback =
//!   +inf`; every XCP router lowers it to its own value); until the first RTT
//!   sample it sends at its initial window (routers give no positive feedback
//!   without an RTT).
//! - \[EXTERNAL\] `rtt_ewma`: Katabi's ns-2 XCP agent carries its own EWMA
//!   of every RTT sample (`srtt = 0.6 srtt + 0.4 rtt`), and seed 002 ch. VI
//!   §3.3 estimates "all delays ... using XCP's smoothed EWMA estimator with
//!   the default weight 0.4". `rtt_ewma = 0.4` carries that EWMA
//!   ([`crate::transport::rtt::RttEwma`], shared with EMKC's sender); unset
//!   (default, kept for the scenarios tuned with it) carries the transport's
//!   RFC 6298 SRTT (gain 1/8, which damps RTT spikes 3x more).
//! - \[INFERRED\] spec §2.6 and issue 5 "Reno-like" loss recovery: the
//!   transport's NewReno recovery with `loss = "halve"` (default: cwnd =
//!   max(s, flight/2); a timeout resets to one packet) or `"none"`.

use serde::{Deserialize, Serialize};
use sim_core::{
    AckInfo, CcHeader, Congestion, Controller, HeaderFamily, ParamError, SimTime, WindowHeader,
};

use super::LossReaction;
use crate::transport::rtt::CarriedRtt;

/// Parameters of the XCP sender (`cc = { kind = "xcp" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct XcpCcConfig {
    /// Reaction to a loss (default `"halve"`).
    pub loss: LossReaction,
    /// Initial window, packets (default 1).
    pub initial_window: u32,
    /// Weight of the EWMA of RTT samples carried in the header, in (0, 1]
    /// (XCP's own: 0.4); unset (default): the transport's RFC 6298 SRTT.
    pub rtt_ewma: Option<f64>,
}

impl Default for XcpCcConfig {
    fn default() -> Self {
        XcpCcConfig {
            loss: LossReaction::Halve,
            initial_window: 1,
            rtt_ewma: None,
        }
    }
}

impl XcpCcConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.initial_window == 0 {
            return Err(ParamError::new("initial_window", "must be >= 1 packet"));
        }
        CarriedRtt::validate(self.rtt_ewma)
    }
}

/// The XCP sender's window.
#[derive(Clone, Debug)]
pub struct XcpCc {
    /// Window, bytes (>= one packet).
    cwnd: f64,
    /// Packet size, bytes.
    size: f64,
    /// The smoothed RTT the header carries.
    srtt: CarriedRtt,
    loss: LossReaction,
}

impl XcpCc {
    /// Validate and build for packets of `size` bytes.
    pub fn new(cfg: &XcpCcConfig, size: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        let size = f64::from(size.max(1));
        Ok(XcpCc {
            cwnd: f64::from(cfg.initial_window) * size,
            size,
            srtt: CarriedRtt::new(cfg.rtt_ewma),
            loss: cfg.loss,
        })
    }

    /// The window, bytes.
    pub fn cwnd_bytes(&self) -> f64 {
        self.cwnd
    }
}

impl Controller for XcpCc {
    fn on_ack(&mut self, ack: &AckInfo) {
        self.srtt.on_ack(ack);
        if ack.acked == 0 || ack.in_recovery {
            return;
        }
        if let CcHeader::Window(h) = ack.cc {
            if h.feedback.is_finite() {
                self.cwnd = (self.cwnd + h.feedback).max(self.size);
            }
        }
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        match ev {
            Congestion::Loss { in_flight } | Congestion::Ecn { in_flight } => {
                if self.loss == LossReaction::Halve {
                    self.cwnd = (in_flight as f64 / 2.0).max(self.size);
                }
            }
            Congestion::Timeout { .. } => self.cwnd = self.size,
        }
    }

    fn window(&self) -> u64 {
        self.cwnd as u64
    }

    fn stamp(&mut self, _now: SimTime, _len: u32, hdr: &mut CcHeader) {
        *hdr = CcHeader::Window(WindowHeader {
            cwnd: self.cwnd,
            rtt: self.srtt.secs(),
            feedback: f64::INFINITY,
        });
    }

    fn header_family(&self) -> HeaderFamily {
        HeaderFamily::Window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::SimDuration;

    fn ack(feedback: f64) -> AckInfo {
        AckInfo {
            acked: 1000,
            cc: CcHeader::Window(WindowHeader {
                cwnd: 0.0,
                rtt: 0.1,
                feedback,
            }),
            ..AckInfo::segment(1000, SimDuration::from_millis(100))
        }
    }

    #[test]
    fn the_window_adds_the_echoed_feedback_with_a_floor_of_one_packet() {
        let mut c = XcpCc::new(&XcpCcConfig::default(), 1000).unwrap();
        assert_eq!(c.window(), 1000);
        c.on_ack(&ack(2500.0));
        assert_eq!(c.cwnd_bytes(), 3500.0);
        c.on_ack(&ack(-10_000.0));
        assert_eq!(c.cwnd_bytes(), 1000.0);
        // No XCP router on the path: the echo is still +inf and nothing changes.
        c.on_ack(&ack(f64::INFINITY));
        assert_eq!(c.cwnd_bytes(), 1000.0);
    }

    #[test]
    fn headers_carry_the_window_and_rtt_and_ask_for_everything() {
        let mut c = XcpCc::new(&XcpCcConfig::default(), 1000).unwrap();
        c.on_ack(&ack(1000.0));
        let mut h = CcHeader::None;
        c.stamp(SimTime::ZERO, 1000, &mut h);
        let CcHeader::Window(w) = h else {
            unreachable!()
        };
        assert_eq!((w.cwnd, w.rtt), (2000.0, 0.1));
        assert!(w.feedback.is_infinite());
    }

    #[test]
    fn with_rtt_ewma_the_header_carries_the_ewma_of_every_sample() {
        // ns-2 XCP: srtt = 0.6 srtt + 0.4 rtt, the first sample taken whole;
        // the transport's own SRTT (gain 1/8) is ignored.
        let cfg = XcpCcConfig {
            rtt_ewma: Some(0.4),
            ..XcpCcConfig::default()
        };
        let mut c = XcpCc::new(&cfg, 1000).unwrap();
        let mut want = 0.0;
        for (i, ms) in [200u64, 1200, 700, 220].into_iter().enumerate() {
            c.on_ack(&AckInfo {
                srtt: Some(SimDuration::from_millis(50)),
                ..ack_rtt(ms)
            });
            let r = ms as f64 / 1000.0;
            want = if i == 0 { r } else { 0.6 * want + 0.4 * r };
            let mut h = CcHeader::None;
            c.stamp(SimTime::ZERO, 1000, &mut h);
            let CcHeader::Window(w) = h else {
                unreachable!()
            };
            assert!(
                (w.rtt - want).abs() < 1e-12,
                "sample {i}: {} vs {want}",
                w.rtt
            );
        }
        let bad = XcpCcConfig {
            rtt_ewma: Some(0.0),
            ..XcpCcConfig::default()
        };
        assert_eq!(XcpCc::new(&bad, 1000).unwrap_err().key, "rtt_ewma");
    }

    fn ack_rtt(ms: u64) -> AckInfo {
        AckInfo {
            cc: CcHeader::Window(WindowHeader {
                cwnd: 0.0,
                rtt: 0.0,
                feedback: 0.0,
            }),
            ..AckInfo::segment(1000, SimDuration::from_millis(ms))
        }
    }

    #[test]
    fn losses_halve_and_timeouts_reset() {
        let mut c = XcpCc::new(&XcpCcConfig::default(), 1000).unwrap();
        c.cwnd = 40_000.0;
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 40_000 });
        assert_eq!(c.cwnd_bytes(), 20_000.0);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 0 });
        assert_eq!(c.cwnd_bytes(), 1000.0);
    }
}
