//! The persistent queue of the explicit-feedback routers (XCP, and seed 003's
//! QLB, which borrows it): the minimum queue seen by arriving packets over
//! about one propagation delay, estimated as `d - Q_inst / C` for the average
//! RTT `d`.
//!
//! \[INFERRED\] (spec seed-003 §2.4): a running minimum of the backlog (bytes)
//! found by arrivals, restarted every `max(2 ms, d - Q_inst/C)` (the 2 ms floor
//! follows XCP's ns-2 practice); the value read at a control tick is that
//! minimum (the current backlog if nothing arrived since the restart).

use sim_core::{SimDuration, SimTime};

/// Floor of the window (XCP ns-2 practice).
const MIN_WINDOW_S: f64 = 0.002;

/// Running minimum of the backlog over a propagation-delay window.
#[derive(Clone, Debug, Default)]
pub struct PersistentQueue {
    min: Option<f64>,
    restart: SimTime,
}

impl PersistentQueue {
    /// An arrival at `now` found `backlog` bytes; `d` is the current average
    /// RTT (s) and `c` the capacity (bytes/s).
    #[inline]
    pub fn observe(&mut self, now: SimTime, backlog: f64, d: f64, c: f64) {
        if now >= self.restart {
            self.min = Some(backlog);
            let window = (d - backlog / c).max(MIN_WINDOW_S);
            self.restart = now + SimDuration::from_secs_f64(window);
        } else {
            self.min = Some(self.min.map_or(backlog, |m| m.min(backlog)));
        }
    }

    /// The persistent queue, bytes (`backlog` if nothing arrived yet).
    pub fn value(&self, backlog: f64) -> f64 {
        self.min.unwrap_or(backlog)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimum_restarts_after_the_window() {
        let mut q = PersistentQueue::default();
        let t = |s: f64| SimTime::from_secs_f64(s);
        // d = 0.1 s, C = 1e6 B/s: the first arrival sees 10 kB, window 0.09 s.
        q.observe(t(0.0), 10_000.0, 0.1, 1e6);
        q.observe(t(0.05), 4_000.0, 0.1, 1e6);
        q.observe(t(0.08), 8_000.0, 0.1, 1e6);
        assert_eq!(q.value(0.0), 4_000.0);
        // After 0.09 s a new window starts from the backlog found then.
        q.observe(t(0.1), 9_000.0, 0.1, 1e6);
        assert_eq!(q.value(0.0), 9_000.0);
        assert_eq!(PersistentQueue::default().value(123.0), 123.0);
    }
}
