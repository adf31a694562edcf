//! The event queue: a binary heap ordered by `(time, insertion sequence)`.
//!
//! **Ordering contract.** Events run in non-decreasing time order; events scheduled
//! for the same instant run in the order they were scheduled (FIFO). Nothing is ever
//! removed from the queue: a component that changes its mind bumps a generation
//! number and the stale event is skipped when it surfaces (see [`TimerSlot`]).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::ids::{EndpointId, GroupId, LinkId};
use crate::units::SimTime;

/// What happens when an event fires.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head of a link's propagation pipe reaches the far end.
    LinkArrive(LinkId),
    /// A link's serializer finished and its queue is not empty.
    LinkTxDone(LinkId),
    /// A link algorithm's timer (generation-checked).
    LinkTimer(LinkId, u32),
    /// An endpoint's timer (generation-checked).
    EndpointTimer(EndpointId, u32),
    /// An endpoint starts (its flow's start time).
    EndpointStart(EndpointId),
    /// An endpoint is told to stop sending (its flow's stop time).
    EndpointStop(EndpointId),
    /// A flow group's arrival process produces a new flow.
    GroupArrival(GroupId),
    /// Take one sample of the requested time series.
    Sample,
    /// End of the warm-up: measurement counters start here.
    WarmupEnd,
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// The pending-event set.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    now: SimTime,
}

impl EventQueue {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// The time of the last event popped.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedule `event` at `time`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        assert!(
            time >= self.now,
            "event scheduled in the past: {event:?} at {time} < now {}",
            self.now
        );
        self.seq += 1;
        self.heap.push(Entry {
            time,
            seq: self.seq,
            event,
        });
    }

    /// Remove and return the earliest event if it is not later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        let head = self.heap.peek()?;
        if head.time > until {
            return None;
        }
        let e = self.heap.pop().expect("peeked");
        debug_assert!(e.time >= self.now, "event time went backwards");
        self.now = e.time;
        Some((e.time, e.event))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// A lazily re-armed timer: the owner sets a `deadline`; at most one event is in
/// the queue for it, identified by `gen`. Moving the deadline later leaves the
/// queued event alone (it fires early and re-arms); moving it earlier schedules a
/// new event and invalidates the old one by bumping `gen`.
#[derive(Copy, Clone, Debug, Default)]
pub struct TimerSlot {
    /// When the owner wants to be called, if at all.
    pub deadline: Option<SimTime>,
    /// Time of the event currently in the queue for this slot, if any.
    armed: Option<SimTime>,
    /// Generation of the live event.
    gen: u32,
}

impl TimerSlot {
    /// If the slot needs a (new) event, return `(time, generation)` to schedule.
    #[inline]
    pub fn arm(&mut self) -> Option<(SimTime, u32)> {
        let d = self.deadline?;
        match self.armed {
            Some(a) if a <= d => None,
            _ => {
                self.gen = self.gen.wrapping_add(1);
                self.armed = Some(d);
                Some((d, self.gen))
            }
        }
    }

    /// An event of generation `gen` fired at `now`. Returns true when the owner's
    /// deadline has come (the caller then clears or moves it and calls the owner).
    #[inline]
    pub fn fire(&mut self, gen: u32, now: SimTime) -> bool {
        if gen != self.gen || self.armed.is_none() {
            return false;
        }
        self.armed = None;
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_time_events_run_in_scheduling_order() {
        let mut q = EventQueue::new();
        let t = SimTime::from_ps(10);
        q.schedule(t, Event::Sample);
        q.schedule(SimTime::from_ps(5), Event::WarmupEnd);
        q.schedule(t, Event::LinkArrive(LinkId(1)));
        q.schedule(t, Event::LinkArrive(LinkId(2)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime::MAX)).collect();
        assert_eq!(
            order,
            vec![
                (SimTime::from_ps(5), Event::WarmupEnd),
                (t, Event::Sample),
                (t, Event::LinkArrive(LinkId(1))),
                (t, Event::LinkArrive(LinkId(2))),
            ]
        );
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::new();
        q.schedule(SimTime::from_ps(10), Event::Sample);
        assert!(q.pop_until(SimTime::from_ps(9)).is_none());
        assert!(q.pop_until(SimTime::from_ps(10)).is_some());
    }

    #[test]
    fn moving_a_deadline_earlier_invalidates_the_old_event() {
        let mut s = TimerSlot {
            deadline: Some(SimTime::from_ps(100)),
            ..Default::default()
        };
        let (t1, g1) = s.arm().unwrap();
        assert_eq!(t1, SimTime::from_ps(100));
        s.deadline = Some(SimTime::from_ps(50));
        let (t2, g2) = s.arm().unwrap();
        assert_eq!(t2, SimTime::from_ps(50));
        assert!(s.fire(g2, t2));
        assert!(!s.fire(g1, t1), "stale generation must be skipped");
    }

    #[test]
    fn moving_a_deadline_later_reuses_the_queued_event() {
        let mut s = TimerSlot {
            deadline: Some(SimTime::from_ps(100)),
            ..Default::default()
        };
        let (t1, g1) = s.arm().unwrap();
        s.deadline = Some(SimTime::from_ps(200));
        assert!(s.arm().is_none(), "no new event needed");
        assert!(!s.fire(g1, t1), "fires early, owner not called");
        let (t2, g2) = s.arm().unwrap();
        assert_eq!(t2, SimTime::from_ps(200));
        assert!(s.fire(g2, t2));
        assert!(s.deadline.is_none());
    }
}
