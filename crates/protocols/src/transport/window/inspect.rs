//! Read-only views of a [`WindowSender`]'s state, for probes, traces and
//! tests.

use super::WindowSender;
use crate::transport::{RttEstimator, Scoreboard};
use sim_core::Controller;

impl WindowSender {
    /// Congestion window in bytes: the controller's window plus fast-recovery
    /// inflation, at least 1 MSS.
    pub fn cwnd(&self) -> u64 {
        let w = self.cc.window();
        let w = if self.inflation >= 0 {
            w.saturating_add(self.inflation.unsigned_abs())
        } else {
            w.saturating_sub(self.inflation.unsigned_abs())
        };
        w.max(self.mss)
    }
    /// Slow-start threshold in bytes, if the controller has one.
    pub fn ssthresh(&self) -> Option<u64> {
        self.cc.ssthresh()
    }
    /// Oldest unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Next byte to send.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    /// The RFC 6298 estimator (SRTT, RTTVAR, the RTO in force).
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// True during NewReno fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// The controller.
    pub fn controller(&self) -> &dyn Controller {
        self.cc.as_ref()
    }
    /// What the receiver reported holding above `snd_una` (empty without SACK).
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.scoreboard
    }
    /// One past the highest byte ever sent.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// RFC 6675's pipe: the bytes a SACK sender estimates are in the network.
    pub fn pipe(&self) -> u64 {
        self.scoreboard.pipe(
            self.snd_una,
            self.snd_max,
            self.high_rxt,
            self.dupthresh,
            self.mss,
        )
    }
}
