//! Paced sending: the transport shape of rate-based controllers (RCP, and the
//! explicit-rate sources of seed 002). A [`Pacer`] spaces a sender's
//! transmissions so that each packet of `len` bytes is followed by a gap of
//! `8 len / rate` seconds before the next, at the rate its controller gives
//! ([`sim_core::Controller::rate`], bits/s).
//!
//! Rules (INFERRED, as ns-2's rate-based agents such as RCP's pace):
//! - The gap runs from the last transmission, whatever it was (a
//!   retransmission consumes its share of the rate like new data).
//! - A rate change takes effect at once. With [`PacingMode::Restart`] (the
//!   default) the next departure is re-derived from the last transmission and
//!   the new rate (a rate that rises shortens the pending gap; one that falls
//!   lengthens it); with [`PacingMode::Integrate`] the part of the gap already
//!   paid at the old rate is kept and the rest is paid at the new one.
//!   [`PacingMode::Announced`] is `Restart` except that a fall keeps the
//!   pending departure: the packet after it carries the new gap.
//!   [`PacingMode::Hold`] keeps it on a rise as well. [INFERRED] A
//!   JetMax packet carries the gap after it, `s / x` at send time, and routers
//!   count flows as the sum of those gaps over an interval (eq. 148); under
//!   `Restart` a fall from `x` to `x'` leaves `s (1/x' - 1/x)` of the flow's
//!   sending time covered by no packet, up to 0.8 s for a drop to the 10-kb/s
//!   rate floor, and a router that counts fewer flows than it carries hands out
//!   a larger share (issue 6 session 40: the floor cycle near tau = 2).
//! - The first packet of a flow is sent at its start whatever the rate: a
//!   controller that learns its rate from the network (RCP's SYN exchange)
//!   returns rate 0 until the first acknowledgement and so sends exactly one
//!   packet, then paces at the echoed rate.
//! - Rate 0 (or not finite) means no further departure until the rate changes.

use serde::{Deserialize, Serialize};
use sim_core::{SimDuration, SimTime};

/// How a rate change moves the pending departure (`tcp.pacing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PacingMode {
    /// The next departure is the last one plus `8 len / rate` at the rate now
    /// in force, whatever rates held since (ns-2's rate-based agents, e.g.
    /// RCP's `rate_change`). A flow whose rate alternates faster than its
    /// packet gaps does not send its rates' time average: a gap begun at a
    /// low rate and cut by a rise ends at once, one begun at a high rate is
    /// stretched by a fall; which wins depends on the phase (seed 002's T2
    /// EMKC-AVQ: 3 % above; the unit test below: 20 % below).
    #[default]
    Restart,
    /// The next departure is when the rate's integral since the last one
    /// reaches `8 len` bits (exact fluid pacing): over any stretch the flow
    /// sends its rates' time average, to within one packet.
    Integrate,
    /// As `Restart`, except that a fall never delays the pending departure:
    /// the next packet leaves no later than the gap the last one announced
    /// at its rate (`8 len / rate`, the gap a JetMax packet carries), and
    /// the new rate spaces the packets after it. A flow's announced gaps
    /// then tile its sending time; under `Restart` a fall from `x` to `x'`
    /// leaves `8 len (1/x' - 1/x)` covered by no packet's gap.
    Announced,
    /// A rate change never moves a pending departure: every gap is
    /// `8 len / rate` at the rate in force when its packet left, exactly the
    /// gap a JetMax packet announces, whether the rate then falls or rises.
    /// The new rate spaces the packets after the pending one. Only a
    /// departure that the old rate did not schedule (rate 0) is derived
    /// from the new rate. Unlike `Announced` it has no bias upwards: each
    /// packet's gap is its own send-time rate's, where `Announced` takes
    /// the shorter of the old and the new gap at every change. Its cost: a
    /// rise waits out the pending gap, up to 0.8 s from JetMax's 10-kb/s
    /// floor, and the link is under-used meanwhile (as JetMax's default,
    /// 5 of seed 002's reference values missed that "restart" meets: zhang
    /// README item 16).
    Hold,
}

/// The pacing state of one sender.
#[derive(Clone, Debug, Default)]
pub struct Pacer {
    mode: PacingMode,
    /// The last transmission's length in bytes (`None`: nothing sent yet);
    /// when it left is `mark` until an `Integrate` rate change moves it.
    last_len: Option<u64>,
    /// When the next packet may leave (`None`: not until the rate changes).
    next: Option<SimTime>,
    /// The pending gap's jitter: the gap is `len / rate * (1 + stretch)`.
    stretch: f64,
    /// The rate in force (bits/s).
    rate: f64,
    /// `Integrate`: bits the rate has accrued since the last transmission,
    /// up to `mark` (`Restart` keeps 0).
    credit: f64,
    /// Where the unpaid part of the gap starts (`Restart`: always the last
    /// transmission).
    mark: SimTime,
}

impl Pacer {
    /// A pacer that has sent nothing: the first packet may leave at once.
    pub fn new(mode: PacingMode) -> Self {
        Pacer {
            mode,
            ..Pacer::default()
        }
    }

    /// May a packet leave at `now`?
    #[inline]
    pub fn ready(&self, now: SimTime) -> bool {
        match self.last_len {
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
        self.last_len = Some(len);
        self.stretch = stretch;
        self.credit = 0.0;
        self.mark = now;
        self.rate = rate_bps;
        self.schedule();
    }

    /// The rate is `rate_bps` from `now` on: re-derive the next departure.
    #[inline]
    pub fn set_rate(&mut self, now: SimTime, rate_bps: f64) {
        if self.mode == PacingMode::Integrate && self.last_len.is_some() && now > self.mark {
            if self.rate > 0.0 && self.rate.is_finite() {
                self.credit += self.rate * (now - self.mark).as_secs_f64();
            }
            self.mark = now;
        }
        let pending = self.next;
        self.rate = rate_bps;
        self.schedule();
        if let (Some(p), Some(n)) = (pending, self.next) {
            match self.mode {
                PacingMode::Announced => self.next = Some(p.min(n)),
                PacingMode::Hold => self.next = Some(p),
                PacingMode::Restart | PacingMode::Integrate => {}
            }
        }
    }

    /// The next departure: when the bits still owed for the last packet are
    /// paid at the current rate, counted from `mark`.
    #[inline]
    fn schedule(&mut self) {
        self.next = match self.last_len {
            Some(len) if self.rate > 0.0 && self.rate.is_finite() => {
                let owed = (len as f64 * 8.0 * (1.0 + self.stretch) - self.credit).max(0.0);
                Some(
                    self.mark
                        .saturating_add(SimDuration::from_secs_f64(owed / self.rate)),
                )
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
        let mut p = Pacer::new(PacingMode::Restart);
        assert!(p.ready(SimTime::ZERO));
        // 1000 B at 8 Mb/s: 1 ms.
        p.sent(SimTime::ZERO, 1000, 8e6, 0.0);
        assert_eq!(p.next_departure(), Some(SimTime::from_secs_f64(1e-3)));
        assert!(!p.ready(SimTime::from_secs_f64(0.999e-3)));
        assert!(p.ready(SimTime::from_secs_f64(1e-3)));
    }

    #[test]
    fn a_rate_change_rederives_the_pending_gap_from_the_last_packet() {
        let mut p = Pacer::new(PacingMode::Restart);
        p.sent(SimTime::from_secs_f64(1.0), 1000, 8e6, 0.0);
        // Whenever the change comes, the gap runs from the last packet.
        p.set_rate(SimTime::from_secs_f64(1.0004), 16e6);
        assert_eq!(p.next_departure(), Some(SimTime::from_secs_f64(1.0005)));
        p.set_rate(SimTime::from_secs_f64(1.0004), 0.0);
        assert_eq!(p.next_departure(), None);
        assert!(!p.ready(SimTime::from_secs_f64(100.0)));
        p.set_rate(SimTime::from_secs_f64(1.0004), f64::INFINITY);
        assert_eq!(p.next_departure(), None);
    }

    #[test]
    fn announced_keeps_the_pending_departure_on_a_fall_and_follows_a_rise() {
        let t = SimTime::from_secs_f64;
        let mut p = Pacer::new(PacingMode::Announced);
        // 1000 B at 80 Mb/s: the packet announces a gap of 0.1 ms.
        p.sent(t(1.0), 1000, 80e6, 0.0);
        // A fall to 80 kb/s (a 0.1-s gap at Restart) keeps that departure.
        p.set_rate(t(1.00005), 80e3);
        assert_eq!(p.next_departure(), Some(t(1.0001)));
        // The packet after it is spaced at the new rate.
        p.sent(t(1.0001), 1000, 80e3, 0.0);
        assert_eq!(p.next_departure(), Some(t(1.1001)));
        // A rise shortens the pending gap as Restart does: 1 ms at 8 Mb/s.
        p.set_rate(t(1.1), 8e6);
        assert_eq!(p.next_departure(), Some(t(1.0011)));
        // Rate 0 still stops the flow.
        p.set_rate(t(1.1), 0.0);
        assert_eq!(p.next_departure(), None);
    }

    #[test]
    fn hold_keeps_the_pending_departure_on_a_fall_and_on_a_rise() {
        let t = SimTime::from_secs_f64;
        let mut p = Pacer::new(PacingMode::Hold);
        // 1000 B at 80 kb/s: the packet announces a gap of 0.1 s.
        p.sent(t(1.0), 1000, 80e3, 0.0);
        // A rise to 80 Mb/s (a 0.1-ms gap at Restart) keeps that departure.
        p.set_rate(t(1.05), 80e6);
        assert_eq!(p.next_departure(), Some(t(1.1)));
        // So does a fall to 8 kb/s (a 1-s gap at Restart).
        p.set_rate(t(1.06), 8e3);
        assert_eq!(p.next_departure(), Some(t(1.1)));
        // The packet after it is spaced at the rate in force when it leaves.
        p.set_rate(t(1.07), 80e6);
        p.sent(t(1.1), 1000, 80e6, 0.0);
        assert_eq!(p.next_departure(), Some(t(1.1001)));
        // Rate 0 stops the flow; the rate after it schedules from the last
        // packet, since rate 0 left nothing pending.
        p.set_rate(t(1.10005), 0.0);
        assert_eq!(p.next_departure(), None);
        p.set_rate(t(1.10006), 8e6);
        assert_eq!(p.next_departure(), Some(t(1.101)));
    }

    #[test]
    fn a_stretched_gap_stays_stretched_when_the_rate_changes() {
        let mut p = Pacer::new(PacingMode::Restart);
        // 1000 B at 8 Mb/s is 1 ms; stretched by 1 - 0.25 it is 0.75 ms.
        p.sent(SimTime::ZERO, 1000, 8e6, -0.25);
        assert_eq!(p.next_departure(), Some(SimTime::from_secs_f64(0.75e-3)));
        p.set_rate(SimTime::from_secs_f64(0.1e-3), 16e6);
        assert_eq!(p.next_departure(), Some(SimTime::from_secs_f64(0.375e-3)));
        // The next packet draws afresh.
        p.sent(SimTime::from_secs_f64(1e-3), 1000, 8e6, 0.0);
        assert_eq!(p.next_departure(), Some(SimTime::from_secs_f64(2e-3)));
    }

    #[test]
    fn rate_zero_before_any_packet_still_lets_the_first_one_go() {
        let mut p = Pacer::new(PacingMode::Restart);
        p.set_rate(SimTime::ZERO, 0.0);
        assert!(p.ready(SimTime::ZERO));
        p.sent(SimTime::ZERO, 1000, 0.0, 0.0);
        assert!(!p.ready(SimTime::from_secs_f64(1e9)));
    }

    #[test]
    fn integrate_pays_the_packet_at_the_rates_in_force_since_it_left() {
        let t = SimTime::from_secs_f64;
        let mut p = Pacer::new(PacingMode::Integrate);
        // 1000 B = 8000 bits at 8 kb/s: 1 s.
        p.sent(t(0.0), 1000, 8e3, 0.0);
        assert_eq!(p.next_departure(), Some(t(1.0)));
        // Half paid at 0.5 s; the other 4000 bits at 16 kb/s take 0.25 s
        // (restart would send at 0 + 8000 / 16000 = 0.5 s, i.e. at once).
        p.set_rate(t(0.5), 16e3);
        assert_eq!(p.next_departure(), Some(t(0.75)));
        // Rate 0 from 0.6 s (5600 bits paid) pays nothing until it rises.
        p.set_rate(t(0.6), 0.0);
        assert_eq!(p.next_departure(), None);
        p.set_rate(t(2.0), 4e3);
        assert_eq!(p.next_departure(), Some(t(2.6)));
        // Paid in full already: at once.
        p.set_rate(t(3.0), 1e3);
        assert_eq!(p.next_departure(), Some(t(3.0)));
        // A departure starts the count afresh; the stretch scales the bill.
        p.sent(t(3.0), 1000, 8e3, 0.5);
        assert_eq!(p.next_departure(), Some(t(4.5)));
        p.set_rate(t(3.75), 16e3);
        assert_eq!(p.next_departure(), Some(t(4.125)));
    }

    /// Packets sent by a sender that is always backlogged, under a rate that
    /// alternates between `lo` and `hi` every `period` seconds, over `n`
    /// periods (the rate changes are the only events besides departures).
    fn sent_under_alternating_rate(mode: PacingMode, lo: f64, hi: f64, period: f64, n: u32) -> u32 {
        let t = SimTime::from_secs_f64;
        let mut p = Pacer::new(mode);
        let mut sent = 0;
        for k in 0..n {
            let (start, end) = (t(k as f64 * period), t((k + 1) as f64 * period));
            let rate = if k % 2 == 0 { lo } else { hi };
            p.set_rate(start, rate);
            let mut now = start;
            loop {
                if p.ready(now) {
                    p.sent(now, 1000, rate, 0.0);
                    sent += 1;
                }
                match p.next_departure() {
                    Some(at) if at < end => now = at.max(now),
                    _ => break,
                }
            }
        }
        sent
    }

    #[test]
    fn an_alternating_rate_is_sent_at_its_time_average_only_when_integrated() {
        // 1000-B packets; 50 / 150 kb/s alternating every 100 ms, as a rate
        // that flips by a factor 1 - beta p* = -1 each step around 100 kb/s
        // (seed 002, EMKC-AVQ in T2): gaps 160 / 53.3 ms against 100-ms
        // periods. The time average is 100 kb/s: 12.5 packets per second,
        // 2500 in 200 s.
        let (lo, hi, period, n) = (50e3, 150e3, 0.1, 2000);
        let mean_pkts = (lo + hi) / 2.0 * period * n as f64 / 8000.0;
        let integrated = sent_under_alternating_rate(PacingMode::Integrate, lo, hi, period, n);
        // Fluid pacing: the first packet is free, then within one packet.
        assert!(
            (integrated as f64 - mean_pkts).abs() <= 1.0,
            "{integrated} vs {mean_pkts}"
        );
        // Restart misses the average, here below it: each 150-kb/s period
        // sends at its start (the gap begun 53.3 ms after the previous one's
        // start, re-derived at 150 kb/s, has run out) and 53.3 ms later; the
        // third would fall 6.7 ms into the 50-kb/s period, where the gap is
        // re-derived as 160 ms from the last packet, past that period's end.
        // So two packets per 200 ms (10 per second, -20 %), plus the first.
        // With other phases the error has the other sign (seed 002's T2
        // EMKC-AVQ sends 3 % above its rates' average).
        let restarted = sent_under_alternating_rate(PacingMode::Restart, lo, hi, period, n);
        assert_eq!(restarted, 1 + 2 * n / 2);
    }
}
