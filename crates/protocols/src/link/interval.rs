//! The control-interval clock shared by the per-interval link laws (QLB, XCP,
//! RCP): each law runs once at the end of an interval whose length it chooses
//! (its average RTT, or `min(d, 10 ms)` for RCP), through the link's timer.

use sim_core::{LinkControl, SimDuration, SimTime};

/// When the current control interval began, and the scheduling of its end.
#[derive(Copy, Clone, Debug, Default)]
pub struct IntervalClock {
    began: SimTime,
}

impl IntervalClock {
    /// Begin an interval of `secs` seconds at `now`: the link's timer fires at
    /// its end (at least 1 ns later).
    pub fn begin(&mut self, now: SimTime, secs: f64, ctl: &mut LinkControl) {
        self.began = now;
        let len = SimDuration::from_secs_f64(secs).max(SimDuration::from_nanos(1));
        ctl.next_timer = Some(now + len);
    }

    /// Seconds from the start of the current interval to `now`.
    pub fn elapsed(&self, now: SimTime) -> f64 {
        now.saturating_since(self.began).as_secs_f64()
    }
}

/// A link's build context for unit tests: capacity `bps`, 10 ms, no buffer limit.
#[cfg(test)]
pub(crate) fn test_ctx(bps: u64) -> super::LinkBuildCtx {
    super::LinkBuildCtx {
        capacity: sim_core::Rate::from_bps(bps),
        delay: SimDuration::from_millis(10),
        limit: sim_core::BufferLimit::Unlimited,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_ends_after_its_length_and_never_at_its_start() {
        let mut c = IntervalClock::default();
        let mut ctl = LinkControl {
            next_timer: None,
            limit: sim_core::BufferLimit::Unlimited,
        };
        let t = SimTime::from_secs_f64(1.0);
        c.begin(t, 0.1, &mut ctl);
        assert_eq!(ctl.next_timer, Some(SimTime::from_secs_f64(1.1)));
        assert!((c.elapsed(SimTime::from_secs_f64(1.05)) - 0.05).abs() < 1e-12);
        c.begin(t, 0.0, &mut ctl);
        assert_eq!(ctl.next_timer, Some(t + SimDuration::from_nanos(1)));
    }
}
