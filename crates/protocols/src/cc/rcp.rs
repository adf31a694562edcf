//! RCP's sender (Dukkipati, McKeown et al.), as seed 002 uses it as a
//! baseline: a rate-paced source that sends at the rate the routers on its
//! path advertise.
//!
//! Provenance (spec `seed-002-zhang.md` §2.6):
//! - \[PAPER\] routers put their rate `r_l` in the header, a downstream router
//!   overwrites it if its own is smaller (min-combined), the receiver echoes
//!   it and the sender paces at the echoed rate.
//! - \[PAPER\] "A new flow starts directly at the current r_l": the flow sends
//!   one packet at its start (RCP's SYN), learns the path's rate from its
//!   acknowledgement one RTT later and from then on paces at the echoed rate
//!   (rate 0 before: see [`crate::transport::Pacer`]).
//! - [PAPER, suggested] loss: "halve the rate (TCP-like recovery) until the
//!   lost packets are recovered". With `loss = "halve"` (default) a loss (fast
//!   retransmit or timeout) halves the rate and caps it there, whatever the
//!   echo says, until the transport leaves recovery but \[INFERRED\] for at
//!   most one smoothed RTT (1 s before any RTT sample): the time a
//!   TCP-like repair of one window takes. Without the bound, the transport's
//!   NewReno repair of one hole per RTT (no SACK) pinned the long users of
//!   seed 003's parking lot at half rate for tens of seconds after a burst of
//!   start-up drops (1.95 instead of 2 Mb/s over [40, 60] s, measured).
//!   `loss = "none"` keeps following the echo.
//! - \[EXTERNAL\] the header carries the sender's smoothed RTT (the transport's
//!   RFC 6298 estimate, 0 before the first sample) for the routers' average
//!   RTT, as ns-2's RCP agent does; the requested rate of a greedy source is
//!   unbounded. [PAPER ch. VI §3.3] "all delays" are estimated with "XCP's
//!   smoothed EWMA estimator with the default weight 0.4": `rtt_ewma = 0.4`
//!   carries that EWMA of every RTT sample instead
//!   ([`crate::transport::rtt::RttEwma`], shared with EMKC's and XCP's
//!   senders); unset (default) keeps the RFC 6298 SRTT. The loss cap's hold
//!   is the RFC 6298 SRTT either way.
//! - The rate travels in bits/s ([`sim_core::RateHeader::allowed`]).

use serde::{Deserialize, Serialize};
use sim_core::{
    AckInfo, CcHeader, Congestion, Controller, HeaderFamily, ParamError, SimDuration, SimTime,
};

use super::{greedy_rate_header, LossReaction};
use crate::transport::rtt::CarriedRtt;

/// Parameters of the RCP sender (`cc = { kind = "rcp" }`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RcpCcConfig {
    /// Reaction to a loss (default `"halve"`).
    pub loss: LossReaction,
    /// Weight of the EWMA of RTT samples carried in the header, in (0, 1]
    /// (XCP's: 0.4); unset (default): the transport's RFC 6298 SRTT.
    pub rtt_ewma: Option<f64>,
}

impl RcpCcConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        CarriedRtt::validate(self.rtt_ewma)
    }
}

/// The RCP sender's rate.
#[derive(Clone, Debug)]
pub struct RcpCc {
    /// Sending rate, bits/s (0 until the first echo).
    rate: f64,
    /// Last rate the path echoed, bits/s (0: none yet).
    echoed: f64,
    /// Halved rate in force after a loss, bits/s.
    cap: Option<f64>,
    /// When the cap ends at the latest.
    cap_until: SimTime,
    /// The carried RTT and the transport's SRTT.
    srtt: CarriedRtt,
    loss: LossReaction,
}

impl RcpCc {
    /// Validate and build.
    pub fn new(cfg: &RcpCcConfig) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(RcpCc {
            rate: 0.0,
            echoed: 0.0,
            cap: None,
            cap_until: SimTime::ZERO,
            srtt: CarriedRtt::new(cfg.rtt_ewma),
            loss: cfg.loss,
        })
    }

    fn update_rate(&mut self) {
        self.rate = match self.cap {
            Some(c) => self.echoed.min(c),
            None => self.echoed,
        };
    }
}

impl Controller for RcpCc {
    fn on_ack(&mut self, ack: &AckInfo) {
        self.srtt.on_ack(ack);
        if let CcHeader::Rate(h) = ack.cc {
            if h.allowed.is_finite() && h.allowed > 0.0 {
                self.echoed = h.allowed;
            }
        }
        if ack.now >= self.cap_until {
            self.cap = None;
        }
        self.update_rate();
    }

    fn on_congestion(&mut self, now: SimTime, _ev: Congestion) {
        if self.loss != LossReaction::Halve || self.rate <= 0.0 {
            return;
        }
        self.cap = Some(self.rate / 2.0);
        let srtt = self.srtt.transport_srtt();
        let hold = if srtt > 0.0 {
            SimDuration::from_secs_f64(srtt)
        } else {
            SimDuration::from_secs(1)
        };
        self.cap_until = now.saturating_add(hold);
        self.update_rate();
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.cap = None;
        self.update_rate();
    }

    fn window(&self) -> u64 {
        u64::MAX
    }

    fn rate(&self) -> Option<f64> {
        Some(self.rate)
    }

    fn paced(&self) -> bool {
        true
    }

    fn stamp(&mut self, _now: SimTime, _len: u32, hdr: &mut CcHeader) {
        *hdr = greedy_rate_header(self.srtt.secs());
    }

    fn header_family(&self) -> HeaderFamily {
        HeaderFamily::Rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::RateHeader;

    fn ack(now: f64, allowed_bps: f64) -> AckInfo {
        AckInfo {
            now: SimTime::from_secs_f64(now),
            cc: CcHeader::Rate(RateHeader {
                desired: f64::INFINITY,
                allowed: allowed_bps,
                rtt: 0.1,
                hops: 1,
                congested: false,
            }),
            ..AckInfo::segment(1000, SimDuration::from_millis(100))
        }
    }

    fn rcp(loss: LossReaction) -> RcpCc {
        RcpCc::new(&RcpCcConfig {
            loss,
            ..RcpCcConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn the_rate_is_zero_until_the_first_echo_then_follows_it() {
        let mut c = rcp(LossReaction::Halve);
        assert_eq!(c.rate(), Some(0.0));
        assert!(c.paced());
        assert_eq!(c.window(), u64::MAX);
        c.on_ack(&ack(0.1, 5e6));
        assert_eq!(c.rate(), Some(5e6));
        c.on_ack(&ack(0.2, 7e6));
        assert_eq!(c.rate(), Some(7e6));
        // An echo no router wrote (infinite) leaves the rate alone.
        c.on_ack(&ack(0.3, f64::INFINITY));
        assert_eq!(c.rate(), Some(7e6));
    }

    #[test]
    fn a_fast_retransmit_halves_and_caps_the_rate_until_recovery_ends_or_one_srtt() {
        let mut c = rcp(LossReaction::Halve);
        c.on_ack(&ack(0.1, 8e6));
        c.on_congestion(
            SimTime::from_secs_f64(0.2),
            Congestion::Loss { in_flight: 0 },
        );
        assert_eq!(c.rate(), Some(4e6));
        c.on_ack(&ack(0.22, 8e6));
        assert_eq!(c.rate(), Some(4e6));
        // A lower echo still lowers it.
        c.on_ack(&ack(0.23, 3e6));
        assert_eq!(c.rate(), Some(3e6));
        c.on_recovery_exit(SimTime::from_secs_f64(0.25));
        assert_eq!(c.rate(), Some(3e6));
        c.on_ack(&ack(0.26, 8e6));
        assert_eq!(c.rate(), Some(8e6));
        // A repair that outlasts one srtt (100 ms) releases the cap then.
        c.on_congestion(
            SimTime::from_secs_f64(1.0),
            Congestion::Loss { in_flight: 0 },
        );
        c.on_ack(&ack(1.05, 8e6));
        assert_eq!(c.rate(), Some(4e6));
        c.on_ack(&ack(1.1, 8e6));
        assert_eq!(c.rate(), Some(8e6));
    }

    #[test]
    fn a_timeout_holds_the_halved_rate_for_one_srtt() {
        let mut c = rcp(LossReaction::Halve);
        c.on_ack(&ack(0.1, 8e6));
        c.on_congestion(
            SimTime::from_secs_f64(1.0),
            Congestion::Timeout { in_flight: 0 },
        );
        assert_eq!(c.rate(), Some(4e6));
        c.on_ack(&ack(1.05, 8e6));
        assert_eq!(c.rate(), Some(4e6));
        c.on_ack(&ack(1.1, 8e6));
        assert_eq!(c.rate(), Some(8e6));
    }

    #[test]
    fn without_a_loss_reaction_the_echo_rules() {
        let mut c = rcp(LossReaction::None);
        c.on_ack(&ack(0.1, 8e6));
        c.on_congestion(
            SimTime::from_secs_f64(0.2),
            Congestion::Loss { in_flight: 0 },
        );
        assert_eq!(c.rate(), Some(8e6));
    }

    #[test]
    fn headers_carry_the_srtt_and_an_unbounded_rate() {
        let mut c = rcp(LossReaction::Halve);
        let mut h = CcHeader::None;
        c.stamp(SimTime::ZERO, 1000, &mut h);
        let CcHeader::Rate(r) = h else { unreachable!() };
        assert_eq!(r.rtt, 0.0);
        assert!(r.allowed.is_infinite());
        c.on_ack(&ack(0.1, 8e6));
        c.stamp(SimTime::ZERO, 1000, &mut h);
        let CcHeader::Rate(r) = h else { unreachable!() };
        assert!((r.rtt - 0.1).abs() < 1e-12);
        assert_eq!(c.header_family(), HeaderFamily::Rate);
    }

    #[test]
    fn with_rtt_ewma_the_header_carries_the_ewma_of_every_sample() {
        let mut c = RcpCc::new(&RcpCcConfig {
            rtt_ewma: Some(0.4),
            ..RcpCcConfig::default()
        })
        .unwrap();
        let mut want = 0.0;
        for (i, ms) in [220u64, 1020, 520, 2020].into_iter().enumerate() {
            c.on_ack(&AckInfo {
                rtt: Some(SimDuration::from_millis(ms)),
                srtt: Some(SimDuration::from_millis(100)),
                ..ack(0.1, 8e6)
            });
            let r = ms as f64 / 1000.0;
            want = if i == 0 { r } else { 0.6 * want + 0.4 * r };
            let mut h = CcHeader::None;
            c.stamp(SimTime::ZERO, 1000, &mut h);
            let CcHeader::Rate(h) = h else { unreachable!() };
            assert!(
                (h.rtt - want).abs() < 1e-12,
                "sample {i}: {} vs {want}",
                h.rtt
            );
        }
        // The loss cap still holds for the transport's SRTT (100 ms).
        c.on_congestion(
            SimTime::from_secs_f64(1.0),
            Congestion::Loss { in_flight: 0 },
        );
        c.on_ack(&AckInfo {
            srtt: Some(SimDuration::from_millis(100)),
            ..ack(1.1, 8e6)
        });
        assert_eq!(c.rate(), Some(8e6));
    }
}
