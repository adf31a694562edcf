//! The event queue: a binary heap ordered by `(time, insertion sequence)`.
//!
//! **Ordering contract.** Events run in non-decreasing time order; events scheduled
//! for the same instant run in the order they were scheduled (FIFO). Nothing is ever
//! removed from the queue: a timer whose owner changed its mind leaves a stale event
//! behind, recognised and skipped when it surfaces (see [`TimerSlot`]).

use crate::ids::{EndpointId, GroupId, LinkId};
use crate::units::SimTime;

/// What happens when an event fires.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head of a link's propagation pipe reaches the far end.
    LinkArrive(LinkId),
    /// A link's serializer finished and its queue is not empty.
    LinkTxDone(LinkId),
    /// A link algorithm's timer (checked against its [`TimerSlot`]).
    LinkTimer(LinkId),
    /// An endpoint's timer (checked against its [`TimerSlot`]).
    EndpointTimer(EndpointId),
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

/// Ids in packed events have 28 bits (268 million links, endpoints or groups).
const ID_BITS: u32 = 28;
/// Largest id an event can carry.
pub const MAX_EVENT_ID: u32 = (1 << ID_BITS) - 1;

impl Event {
    /// Pack into 32 bits: kind (4) | id (28).
    #[inline]
    fn pack(self) -> u32 {
        let (kind, id): (u32, u32) = match self {
            Event::LinkArrive(l) => (0, l.0),
            Event::LinkTxDone(l) => (1, l.0),
            Event::LinkTimer(l) => (2, l.0),
            Event::EndpointTimer(e) => (3, e.0),
            Event::EndpointStart(e) => (4, e.0),
            Event::EndpointStop(e) => (5, e.0),
            Event::GroupArrival(g) => (6, g.0),
            Event::Sample => (7, 0),
            Event::WarmupEnd => (8, 0),
        };
        assert!(id <= MAX_EVENT_ID, "event id {id} exceeds {MAX_EVENT_ID}");
        (kind << ID_BITS) | id
    }

    #[inline]
    fn unpack(x: u32) -> Event {
        let id = x & MAX_EVENT_ID;
        match x >> ID_BITS {
            0 => Event::LinkArrive(LinkId(id)),
            1 => Event::LinkTxDone(LinkId(id)),
            2 => Event::LinkTimer(LinkId(id)),
            3 => Event::EndpointTimer(EndpointId(id)),
            4 => Event::EndpointStart(EndpointId(id)),
            5 => Event::EndpointStop(EndpointId(id)),
            6 => Event::GroupArrival(GroupId(id)),
            7 => Event::Sample,
            _ => Event::WarmupEnd,
        }
    }
}

/// Children per heap node: a 4-ary heap halves the depth of a binary one, and the
/// four 16-byte children of a node share one cache line.
const ARITY: usize = 4;

/// The pending-event set: a 4-ary min-heap of 128-bit keys
/// `time (64) | sequence (32) | packed event (32)`. One integer comparison orders
/// by time, then by scheduling order; the event rides in the low bits.
///
/// The 32-bit sequence is renumbered (order-preserving) before it would wrap, so
/// FIFO order among equal times holds for runs of any length.
///
/// (A radix heap over the same keys was measured and executed more instructions
/// on benchmark B1: the sequence bits make most keys move between buckets.)
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: Vec<u128>,
    seq: u32,
    now: SimTime,
}

#[inline]
fn key(time: u64, seq: u32, ev: u32) -> u128 {
    (u128::from(time) << 64) | (u128::from(seq) << 32) | u128::from(ev)
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
        if self.seq == u32::MAX {
            self.renumber();
        }
        self.seq += 1;
        let e = key(time.as_ps(), self.seq, event.pack());
        let h = &mut self.heap;
        let mut i = h.len();
        h.push(e);
        while i > 0 {
            let p = (i - 1) / ARITY;
            if e < h[p] {
                h[i] = h[p];
                i = p;
            } else {
                break;
            }
        }
        h[i] = e;
    }

    /// Give pending events fresh sequence numbers 1..=n in their current order.
    #[cold]
    fn renumber(&mut self) {
        self.heap.sort_unstable();
        for (i, e) in self.heap.iter_mut().enumerate() {
            let time = (*e >> 64) as u64;
            *e = key(time, i as u32 + 1, *e as u32);
        }
        // A sorted array is a valid heap.
        self.seq = self.heap.len() as u32;
    }

    /// Remove and return the earliest event if it is not later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        let head = *self.heap.first()?;
        let t = (head >> 64) as u64;
        if t > until.as_ps() {
            return None;
        }
        let last = self.heap.pop().expect("non-empty");
        let h = &mut self.heap[..];
        let n = h.len();
        if n > 0 {
            let mut i = 0;
            loop {
                let c = ARITY * i + 1;
                if c + ARITY <= n {
                    let kids = &h[c..c + ARITY];
                    let mut m = 0;
                    for k in 1..ARITY {
                        if kids[k] < kids[m] {
                            m = k;
                        }
                    }
                    let m = c + m;
                    if h[m] < last {
                        h[i] = h[m];
                        i = m;
                        continue;
                    }
                } else if c < n {
                    let mut m = c;
                    for k in c + 1..n {
                        if h[k] < h[m] {
                            m = k;
                        }
                    }
                    if h[m] < last {
                        h[i] = h[m];
                        i = m;
                    }
                }
                break;
            }
            h[i] = last;
        }
        let t = SimTime::from_ps(t);
        debug_assert!(t >= self.now, "event time went backwards");
        self.now = t;
        Some((t, Event::unpack(head as u32)))
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

/// A lazily re-armed timer: the owner sets a `deadline`; the slot remembers the
/// time of the one event it counts as live. Moving the deadline later leaves that
/// event alone (it fires early and re-arms); moving it earlier schedules a new
/// event, and the old one becomes stale: when it surfaces its time no longer
/// matches the slot's armed time and it is skipped.
#[derive(Copy, Clone, Debug, Default)]
pub struct TimerSlot {
    /// When the owner wants to be called, if at all.
    pub deadline: Option<SimTime>,
    /// Time of the live event in the queue for this slot, if any.
    armed: Option<SimTime>,
}

impl TimerSlot {
    /// If the slot needs a (new) event, return the time to schedule it at.
    #[inline]
    pub fn arm(&mut self) -> Option<SimTime> {
        let d = self.deadline?;
        match self.armed {
            Some(a) if a <= d => None,
            _ => {
                self.armed = Some(d);
                Some(d)
            }
        }
    }

    /// An event for this slot fired at `now`. Returns true when the owner's
    /// deadline has come (the deadline is then cleared and the owner is called);
    /// false for a stale event or one that fired before a postponed deadline (the
    /// caller then re-arms).
    #[inline]
    pub fn fire(&mut self, now: SimTime) -> bool {
        if self.armed != Some(now) {
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
    fn events_survive_packing() {
        let all = [
            Event::LinkArrive(LinkId(0)),
            Event::LinkTxDone(LinkId(3)),
            Event::LinkTimer(LinkId(MAX_EVENT_ID)),
            Event::EndpointTimer(EndpointId(123_456)),
            Event::EndpointStart(EndpointId(1)),
            Event::EndpointStop(EndpointId(2)),
            Event::GroupArrival(GroupId(5)),
            Event::Sample,
            Event::WarmupEnd,
        ];
        for e in all {
            assert_eq!(Event::unpack(e.pack()), e);
        }
    }

    #[test]
    fn the_heap_pops_random_times_in_time_then_fifo_order() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut q = EventQueue::new();
        let mut expect = Vec::new();
        for i in 0..5000u32 {
            let t = rng.random_range(0..200u64);
            q.schedule(SimTime::from_ps(t), Event::LinkArrive(LinkId(i)));
            expect.push((t, i));
        }
        expect.sort();
        let got: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop_until(SimTime::MAX))
            .map(|(t, e)| match e {
                Event::LinkArrive(l) => (t.as_ps(), l.0),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::new();
        q.schedule(SimTime::from_ps(10), Event::Sample);
        assert!(q.pop_until(SimTime::from_ps(9)).is_none());
        assert!(q.pop_until(SimTime::from_ps(10)).is_some());
    }

    #[test]
    fn moving_a_deadline_earlier_makes_the_old_event_stale() {
        let mut s = TimerSlot {
            deadline: Some(SimTime::from_ps(100)),
            ..Default::default()
        };
        assert_eq!(s.arm(), Some(SimTime::from_ps(100)));
        s.deadline = Some(SimTime::from_ps(50));
        assert_eq!(s.arm(), Some(SimTime::from_ps(50)));
        assert!(s.fire(SimTime::from_ps(50)));
        assert!(
            !s.fire(SimTime::from_ps(100)),
            "stale event must be skipped"
        );
    }

    #[test]
    fn moving_a_deadline_later_reuses_the_queued_event() {
        let mut s = TimerSlot {
            deadline: Some(SimTime::from_ps(100)),
            ..Default::default()
        };
        assert_eq!(s.arm(), Some(SimTime::from_ps(100)));
        s.deadline = Some(SimTime::from_ps(200));
        assert!(s.arm().is_none(), "no new event needed");
        assert!(
            !s.fire(SimTime::from_ps(100)),
            "fires early, owner not called"
        );
        assert_eq!(s.arm(), Some(SimTime::from_ps(200)));
        assert!(s.fire(SimTime::from_ps(200)));
        assert!(s.deadline.is_none());
    }

    #[test]
    fn a_stale_event_at_the_rearmed_time_calls_the_owner_once() {
        let mut s = TimerSlot {
            deadline: Some(SimTime::from_ps(100)),
            ..Default::default()
        };
        s.arm(); // event A at 100
        s.deadline = Some(SimTime::from_ps(50));
        s.arm(); // event B at 50
        assert!(s.fire(SimTime::from_ps(50)));
        s.deadline = Some(SimTime::from_ps(100));
        assert_eq!(s.arm(), Some(SimTime::from_ps(100))); // event C at 100
        assert!(
            s.fire(SimTime::from_ps(100)),
            "A and C coincide: the first call wins"
        );
        assert!(!s.fire(SimTime::from_ps(100)), "the second is skipped");
    }

    #[test]
    fn renumbering_keeps_time_and_fifo_order() {
        let mut q = EventQueue::new();
        for i in 0..10u32 {
            q.schedule(
                SimTime::from_ps(u64::from(i % 3)),
                Event::LinkArrive(LinkId(i)),
            );
        }
        q.renumber();
        q.schedule(SimTime::from_ps(1), Event::LinkArrive(LinkId(99)));
        let got: Vec<u32> = std::iter::from_fn(|| q.pop_until(SimTime::MAX))
            .map(|(_, e)| match e {
                Event::LinkArrive(l) => l.0,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(got, vec![0, 3, 6, 9, 1, 4, 7, 99, 2, 5, 8]);
    }
}
