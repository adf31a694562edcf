//! Paced sending: the transport shape of rate-based controllers (RCP, and the
//! explicit-rate sources of seed 002). A [`Pacer`] spaces a sender's
//! transmissions so that each packet of `len` bytes is followed by a gap of
//! `8 len / rate` seconds before the next, at the rate its controller gives
//! ([`sim_core::Controller::rate`], bits/s).
//!
//! Rules (INFERRED, as ns-2's rate-based agents such as RCP's pace):
//! - The gap runs from the last transmission, whatever it was (a
//!   retransmission consumes its share of the rate like new data).
//! - A rate change takes effect at once: the next departure is re-derived from
//!   the last transmission and the new rate (a rate that rises shortens the
//!   pending gap; one that falls lengthens it).
//! - The first packet of a flow is sent at its start whatever the rate: a
//!   controller that learns its rate from the network (RCP's SYN exchange)
//!   returns rate 0 until the first acknowledgement and so sends exactly one
//!   packet, then paces at the echoed rate.
//! - Rate 0 (or not finite) means no further departure until the rate changes.

use sim_core::{SimDuration, SimTime};

/// The pacing state of one sender.
#[derive(Clone, Debug, Default)]
pub struct Pacer {
    /// The last transmission: when, and its length in bytes.
    last: Option<(SimTime, u64)>,
    /// When the next packet may leave (`None`: not until the rate changes).
    next: Option<SimTime>,
    /// The pending gap's jitter: the gap is `len / rate * (1 + stretch)`.
    stretch: f64,
}

impl Pacer {
    /// A pacer that has sent nothing: the first packet may leave at once.
    pub fn new() -> Self {
        Pacer::default()
    }

    /// May a packet leave at `now`?
    #[inline]
    pub fn ready(&self, now: SimTime) -> bool {
        match self.last {
            None => true,
            Some(_) => self.next.is_some_and(|t| t <= now),
        }
    }

    /// When the next packet may leave (`None`: at once if nothing was sent
    /// yet, else never at the current rate).
    #[inline]
    pub fn next_departure(&self) -> Option<SimTime> {
        self.next
    }

    /// A packet of `len` bytes left at `now`; the controller's rate is
    /// `rate_bps`; the gap after it is stretched by `1 + stretch` (the
    /// transport's `pacing_jitter` draw, 0 for exact pacing), also when the
    /// rate changes before it ends.
    #[inline]
    pub fn sent(&mut self, now: SimTime, len: u64, rate_bps: f64, stretch: f64) {
        self.last = Some((now, len));
        self.stretch = stretch;
        self.set_rate(rate_bps);
    }

    /// The rate is now `rate_bps`: re-derive the next departure.
    #[inline]
    pub fn set_rate(&mut self, rate_bps: f64) {
        self.next = match self.last {
            Some((at, len)) if rate_bps > 0.0 && rate_bps.is_finite() => {
                let gap =
                    SimDuration::from_secs_f64(len as f64 * 8.0 / rate_bps * (1.0 + self.stretch));
                Some(at.saturating_add(gap))
            }
            _ => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_packet_leaves_at_once_then_gaps_are_len_over_rate() {
        let mut p = Pacer::new();
        assert!(p.ready(SimTime::ZERO));
        // 1000 B at 8 Mb/s: 1 ms.
        p.sent(SimTime::ZERO, 1000, 8e6, 0.0);
        assert_eq!(p.next_departure(), Some(SimTime::from_secs_f64(1e-3)));
        assert!(!p.ready(SimTime::from_secs_f64(0.999e-3)));
        assert!(p.ready(SimTime::from_secs_f64(1e-3)));
    }

    #[test]
    fn a_rate_change_rederives_the_pending_gap_from_the_last_packet() {
        let mut p = Pacer::new();
        p.sent(SimTime::from_secs_f64(1.0), 1000, 8e6, 0.0);
        p.set_rate(16e6);
        assert_eq!(p.next_departure(), Some(SimTime::from_secs_f64(1.0005)));
        p.set_rate(0.0);
        assert_eq!(p.next_departure(), None);
        assert!(!p.ready(SimTime::from_secs_f64(100.0)));
        p.set_rate(f64::INFINITY);
        assert_eq!(p.next_departure(), None);
    }

    #[test]
    fn a_stretched_gap_stays_stretched_when_the_rate_changes() {
        let mut p = Pacer::new();
        // 1000 B at 8 Mb/s is 1 ms; stretched by 1 - 0.25 it is 0.75 ms.
        p.sent(SimTime::ZERO, 1000, 8e6, -0.25);
        assert_eq!(p.next_departure(), Some(SimTime::from_secs_f64(0.75e-3)));
        p.set_rate(16e6);
        assert_eq!(p.next_departure(), Some(SimTime::from_secs_f64(0.375e-3)));
        // The next packet draws afresh.
        p.sent(SimTime::from_secs_f64(1e-3), 1000, 8e6, 0.0);
        assert_eq!(p.next_departure(), Some(SimTime::from_secs_f64(2e-3)));
    }

    #[test]
    fn rate_zero_before_any_packet_still_lets_the_first_one_go() {
        let mut p = Pacer::new();
        p.set_rate(0.0);
        assert!(p.ready(SimTime::ZERO));
        p.sent(SimTime::ZERO, 1000, 0.0, 0.0);
        assert!(!p.ready(SimTime::from_secs_f64(1e9)));
    }
}
