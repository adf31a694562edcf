//! The sender of seed 003's queue-length-based explicit-rate protocol (QLB): a
//! window that follows the rate the network echoes, through a first-order
//! filter with a delayed increase while the path reports congestion.
//!
//! Provenance (spec `seed-003-lestas.md`):
//! - \[PAPER\] §2.1-2.2: every departing packet carries `H_rtt = srtt` (0 with no
//!   estimate), `H_feedback` = the application's desired rate, `H_congestion =
//!   0`. On each new ACK, with the echoed header: `desired = H_feedback * srtt /
//!   size` (packets); if `desired > cwnd` and `H_congestion = 1`, `cwnd += (0.1
//!   / cwnd) (desired - cwnd)` (delayed increase), else `cwnd = max(1, cwnd +
//!   (1 / cwnd) (desired - cwnd))`; initial cwnd 1 and never below 1, kept
//!   fractional.
//! - \[INFERRED\] §2.2: the desired application rate of a persistent source is
//!   +infinity (routers clamp `p <= C`, so the first one overwrites it); `srtt`
//!   is the transport's RFC 6298 estimate (EWMA gain 1/8, the TCP default XCP's
//!   ns-2 agent inherits); `size` is the data packet size; the window counts
//!   whole segments (`floor(cwnd)` in flight).
//! - \[INFERRED\] §2.2 "loss recovery unspecified; Reno-like": the transport's
//!   NewReno recovery, with `loss = "halve"` (default: cwnd = max(1, flight/2)
//!   on a loss, 1 on a timeout) or `loss = "none"` (only the timeout resets).
//!   The paper observed no drops.
//! - The echoed rate travels in bits/s ([`sim_core::RateHeader::allowed`]).

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, CcHeader, Congestion, Controller, HeaderFamily, ParamError, SimTime};

use super::{greedy_rate_header, LossReaction};

/// Gain of the delayed increase (spec §2.2 eq. 2).
const DELAYED_GAIN: f64 = 0.1;

/// Parameters of the QLB sender (`cc = { kind = "qlb" }`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QlbCcConfig {
    /// Reaction to a loss (default `"halve"`).
    pub loss: LossReaction,
}

impl QlbCcConfig {
    /// Check parameter ranges (none to check).
    pub fn validate(&self) -> Result<(), ParamError> {
        Ok(())
    }
}

/// The QLB sender's window controller.
#[derive(Clone, Debug)]
pub struct QlbCc {
    /// Window, packets (fractional, >= 1).
    cwnd: f64,
    /// Data packet size, bytes.
    size: u32,
    /// Last smoothed RTT, seconds (0: none yet).
    srtt: f64,
    loss: LossReaction,
}

impl QlbCc {
    /// Validate and build for packets of `size` bytes.
    pub fn new(cfg: &QlbCcConfig, size: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(QlbCc {
            cwnd: 1.0,
            size: size.max(1),
            srtt: 0.0,
            loss: cfg.loss,
        })
    }

    /// The window in packets.
    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd
    }

    /// The filter of eqs. (1)-(4) for an echoed rate `allowed_bps` and bit.
    fn follow(&mut self, allowed_bps: f64, congested: bool) {
        let desired = allowed_bps / 8.0 * self.srtt / f64::from(self.size);
        if !desired.is_finite() {
            return;
        }
        if desired > self.cwnd && congested {
            self.cwnd += DELAYED_GAIN / self.cwnd * (desired - self.cwnd);
        } else {
            self.cwnd = (self.cwnd + (desired - self.cwnd) / self.cwnd).max(1.0);
        }
    }
}

impl Controller for QlbCc {
    fn on_ack(&mut self, ack: &AckInfo) {
        if let Some(s) = ack.srtt {
            self.srtt = s.as_secs_f64();
        }
        if ack.acked == 0 || ack.in_recovery || self.srtt <= 0.0 {
            return;
        }
        if let CcHeader::Rate(h) = ack.cc {
            self.follow(h.allowed, h.congested);
        }
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        match ev {
            Congestion::Loss { in_flight } | Congestion::Ecn { in_flight } => {
                if self.loss == LossReaction::Halve {
                    let flight = in_flight as f64 / f64::from(self.size);
                    self.cwnd = (flight / 2.0).max(1.0);
                }
            }
            Congestion::Timeout { .. } => self.cwnd = 1.0,
        }
    }

    fn window(&self) -> u64 {
        (self.cwnd * f64::from(self.size)) as u64
    }

    fn stamp(&mut self, _now: SimTime, _len: u32, hdr: &mut CcHeader) {
        *hdr = greedy_rate_header(self.srtt);
    }

    fn header_family(&self) -> HeaderFamily {
        HeaderFamily::Rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::RateHeader;
    use sim_core::SimDuration;

    fn ack(allowed_bps: f64, congested: bool) -> AckInfo {
        AckInfo {
            acked: 1000,
            cc: CcHeader::Rate(RateHeader {
                desired: f64::INFINITY,
                allowed: allowed_bps,
                rtt: 0.1,
                hops: 1,
                congested,
            }),
            ..AckInfo::segment(1000, SimDuration::from_millis(100))
        }
    }

    fn qlb() -> QlbCc {
        QlbCc::new(&QlbCcConfig::default(), 1000).unwrap()
    }

    #[test]
    fn the_window_converges_to_rate_times_rtt() {
        // 8 Mb/s = 1e6 B/s at 100 ms and 1000 B: 100 packets (eq. 1).
        let mut c = qlb();
        for _ in 0..2000 {
            c.on_ack(&ack(8e6, false));
        }
        assert!((c.cwnd_pkts() - 100.0).abs() < 1e-6, "{}", c.cwnd_pkts());
        assert_eq!(c.window(), 100_000);
    }

    #[test]
    fn one_ack_closes_one_over_cwnd_of_the_gap_and_a_congested_increase_a_tenth_of_that() {
        let mut c = qlb();
        c.cwnd = 10.0;
        c.srtt = 0.1;
        c.follow(8e6, false); // desired 100
        assert!((c.cwnd - (10.0 + 90.0 / 10.0)).abs() < 1e-12, "{}", c.cwnd);
        c.cwnd = 10.0;
        c.follow(8e6, true);
        assert!(
            (c.cwnd - (10.0 + 0.1 * 90.0 / 10.0)).abs() < 1e-12,
            "{}",
            c.cwnd
        );
        // A decrease uses the fast gain even when congested, floored at 1.
        c.cwnd = 10.0;
        c.follow(0.0, true);
        assert!((c.cwnd - 9.0).abs() < 1e-12, "{}", c.cwnd);
        c.cwnd = 1.0;
        c.follow(0.0, false);
        assert_eq!(c.cwnd, 1.0);
    }

    #[test]
    fn headers_carry_the_srtt_and_an_unbounded_desired_rate() {
        let mut c = qlb();
        let mut h = CcHeader::None;
        c.stamp(SimTime::ZERO, 1000, &mut h);
        let CcHeader::Rate(r) = h else { unreachable!() };
        assert_eq!((r.rtt, r.congested), (0.0, false));
        assert!(r.allowed.is_infinite());
        c.on_ack(&ack(8e6, false));
        c.stamp(SimTime::ZERO, 1000, &mut h);
        let CcHeader::Rate(r) = h else { unreachable!() };
        assert!((r.rtt - 0.1).abs() < 1e-12);
    }

    #[test]
    fn duplicate_acks_and_recovery_do_not_move_the_window() {
        let mut c = qlb();
        let mut a = ack(8e6, false);
        a.acked = 0;
        c.on_ack(&a);
        assert_eq!(c.cwnd_pkts(), 1.0);
        let mut a = ack(8e6, false);
        a.in_recovery = true;
        c.on_ack(&a);
        assert_eq!(c.cwnd_pkts(), 1.0);
        c.cwnd = 40.0;
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 40_000 });
        assert_eq!(c.cwnd_pkts(), 20.0);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 20_000 });
        assert_eq!(c.cwnd_pkts(), 1.0);
    }
}
