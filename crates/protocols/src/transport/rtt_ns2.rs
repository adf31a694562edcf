//! ns-2's retransmission-timer estimator (`Agent/TCP`), for reproducing
//! studies run on ns-2: `tcp.rto_estimator = "ns2"`.
//!
//! Provenance: ns-2.35 `tcp/tcp.cc` (`TcpAgent::rtt_update`, `rtt_timeout`,
//! `rtt_backoff`) and `tcl/lib/ns-default.tcl`, read for their rules (ns-2's
//! code is not copied here):
//! - Time is counted in ticks of `tcpTick_` (`tcp.clock_granularity`). An
//!   RTT sample without the timestamp option is the number of tick
//!   boundaries between the segment's send time and its ACK on a clock whose
//!   phase (`boot_time_`) is uniform in [0, tick) per agent: `floor((R +
//!   ((send + boot) mod tick)) / tick)`, at least 1.
//! - SRTT is kept as an integer 8 x srtt and RTTVAR as 4 x rttvar, in ticks:
//!   the first sample sets srtt = R and rttvar = R / 2; later ones `delta =
//!   R - srtt` (srtt the scaled value shifted right by 3), `8srtt += delta`
//!   (at least 1), `4rttvar += |delta| - rttvar` (rttvar the scaled value
//!   shifted right by 2; at least 1).
//! - The current RTO is `((4rttvar << 3) + 8srtt) >> 3` ticks (srtt + 4
//!   rttvar, truncated to whole ticks) times the tick.
//! - The timer in force: with `rfc2988_` (ns-2's default since 2002) the
//!   RTO is raised to `minrto_` (`tcp.min_rto`) before the backoff
//!   multiplier, then capped at `maxrto_` (`tcp.max_rto`), then raised to two
//!   ticks. Each expiry doubles the multiplier; once it passes 8 the
//!   estimate is discarded (`rttvar += srtt`, `srtt = 0`) so that the next
//!   sample starts afresh. A sample clears the multiplier (the once-per-RTT
//!   timed segment's ACK, `tcp.rtt_samples = "once_per_rtt"`, as ns-2's
//!   agent without timestamps).
//! - `tcp.initial_rto` is `rtxcur_init_`.
//! - The timer is restarted at a fast retransmit (`dupack_action` ->
//!   `reset_rtx_timer(1, 0)`, which also stops timing the timed segment),
//!   besides every new ACK as in RFC 6298 (the transport does this in this
//!   mode only: RFC 6298 leaves a running timer alone).
//! - The timed segment (`rtt_active_`, `rtt_seq_`: the first new segment
//!   sent while none is timed) is given up only at those timer resets (a
//!   timeout, a fast retransmit), not when a partial ACK retransmits a
//!   segment below it: a segment sent during fast recovery is timed until
//!   the ACK that ends the recovery, so its sample spans the recovery's
//!   retransmissions (Karn's rule, which RFC 6298 mode applies, would
//!   drop it). NewReno's partial ACKs themselves give no sample in ns-2
//!   (`partialnewack`); here they cannot cover the timed segment, which was
//!   sent after `recover`.
//! - `timerfix_ false` (ns-2 before 2001/05/11 restarted the timer on a new
//!   ACK before folding in its sample and ending the backoff) is the
//!   transport's `tcp.timer_before_sample`. Measured with ns-2 itself (25
//!   NewReno flows under 1-10 % random loss, six seeds;
//!   `scenarios/papers/pcc/ns2/tcp-random-loss.tcl`): goodput within 1 % of
//!   `timerfix_ true` up to 5 % loss, 4 % lower at 10 %.
//!
//! Settings of the ns-2 in use when a paper ran (from ns-default.tcl's dated
//! comments and CHANGES.html): until 2002/03/07 `tcpTick_` 0.1 s and no
//! `rfc2988_`; `minrto_` added 2001/05/27 at 1 s, 0.2 s since 2004/10/14
//! (before its addition the only floor is two ticks: `min_rto = "0s"`);
//! `rtxcur_init_` 6 s until 2006/01/21, then 3 s; `maxrto_` 64 s until
//! 2007/03/28, then 60 s.
//!
//! INFERRED: the backoff multiplier stops doubling at the cap as the RFC
//! 6298 estimator's does (ns-2 with `rfc2988_`: doubling while the timeout
//! is below `maxrto_`, or below a multiplier of 64); `rfc2988_ = false`'s
//! order (the floor after the multiplier) is not modelled, which differs
//! only when `min_rto` is above the estimate.

/// ns-2's estimator state, in ticks of `tick` picoseconds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ns2Rto {
    /// The tick (`tcpTick_`), ps (> 0).
    tick: u64,
    /// The agent's clock phase (`boot_time_`), ps in [0, tick).
    boot: u64,
    /// 8 x srtt, ticks (0: no estimate).
    srtt8: i64,
    /// 4 x rttvar, ticks.
    rttvar4: i64,
}

impl Ns2Rto {
    /// An estimator counting in ticks of `tick_ps` picoseconds, phase 0.
    pub fn new(tick_ps: u64) -> Self {
        Ns2Rto {
            tick: tick_ps.max(1),
            boot: 0,
            srtt8: 0,
            rttvar4: 0,
        }
    }

    /// The tick, ps.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Set the clock phase (`boot_time_`), ps, reduced to [0, tick).
    pub fn set_boot(&mut self, boot_ps: u64) {
        self.boot = boot_ps % self.tick;
    }

    /// Fold in the RTT `r_ps` of a segment whose ACK arrived at `now_ps`;
    /// returns the current RTO (srtt + 4 rttvar in whole ticks), ps.
    pub fn on_sample(&mut self, r_ps: u64, now_ps: u64) -> u64 {
        let sent = now_ps.saturating_sub(r_ps);
        let tickoff = (sent + self.boot) % self.tick;
        let rtt = (((r_ps + tickoff) / self.tick) as i64).max(1);
        if self.srtt8 != 0 {
            let mut delta = rtt - (self.srtt8 >> 3);
            self.srtt8 += delta;
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            delta = delta.abs() - (self.rttvar4 >> 2);
            self.rttvar4 += delta;
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        } else {
            self.srtt8 = rtt << 3;
            self.rttvar4 = rtt << 1;
        }
        let ticks = ((self.rttvar4 << 3) + self.srtt8) >> 3;
        ticks.max(0) as u64 * self.tick
    }

    /// The smoothed RTT, ps (`None` without an estimate).
    pub fn srtt(&self) -> Option<u64> {
        (self.srtt8 > 0).then(|| (self.srtt8 >> 3).max(0) as u64 * self.tick)
    }

    /// The RTT variation, ps.
    pub fn rttvar(&self) -> u64 {
        (self.rttvar4 >> 2).max(0) as u64 * self.tick
    }

    /// The timer expired and the multiplier is now `multiplier`: past 8 the
    /// estimate is discarded (the next sample starts afresh).
    pub fn on_backoff(&mut self, multiplier: u64) {
        if multiplier > 8 && self.srtt8 != 0 {
            self.rttvar4 += self.srtt8 >> 3;
            self.srtt8 = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000_000;

    #[test]
    fn samples_count_tick_boundaries_and_the_rto_is_whole_ticks() {
        // 100-ms ticks, phase 0: a 150-ms sample sent at 0 crosses one
        // boundary, 1 tick; the first sample sets 8srtt = 8, 4rttvar = 2,
        // so the RTO is ((2 << 3) + 8) >> 3 = 3 ticks.
        let mut e = Ns2Rto::new(100 * MS);
        assert_eq!(e.on_sample(150 * MS, 150 * MS), 300 * MS);
        assert_eq!(e.srtt(), Some(100 * MS));
        // Sent at 60 ms with phase 0: tickoff 60 ms, (90 + 60) / 100 = 1.
        e.on_sample(90 * MS, 150 * MS);
        assert_eq!(e.srtt(), Some(100 * MS));
        // A phase moves the boundaries: sent at 0, phase 50 ms, 60 ms ->
        // (60 + 50) / 100 = 1 tick; phase 30 ms -> 0, raised to 1.
        let mut f = Ns2Rto::new(100 * MS);
        f.set_boot(30 * MS);
        f.on_sample(60 * MS, 60 * MS);
        assert_eq!(f.srtt(), Some(100 * MS));
    }

    #[test]
    fn later_samples_use_the_scaled_integer_gains() {
        // First sample 10 ticks: 8srtt 80, 4rttvar 20. Second 18 ticks:
        // delta 8 -> 8srtt 88 (srtt 11); |8| - 5 = 3 -> 4rttvar 23 (rttvar 5);
        // rtxcur ((23 << 3) + 88) >> 3 = (184 + 88) >> 3 = 34 ticks.
        let mut e = Ns2Rto::new(10 * MS);
        e.on_sample(100 * MS, 100 * MS);
        assert_eq!(e.on_sample(180 * MS, 1000 * MS), 340 * MS);
        assert_eq!(e.srtt(), Some(110 * MS));
        assert_eq!(e.rttvar(), 50 * MS);
    }

    #[test]
    fn a_long_backoff_discards_the_estimate() {
        let mut e = Ns2Rto::new(10 * MS);
        e.on_sample(100 * MS, 100 * MS);
        e.on_backoff(8);
        assert!(e.srtt().is_some());
        e.on_backoff(16);
        assert_eq!(e.srtt(), None);
        // The next sample starts afresh: srtt = R, rttvar = R / 2.
        assert_eq!(e.on_sample(200 * MS, 1000 * MS), 600 * MS);
    }
}
