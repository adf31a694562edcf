//! The event queue: a binary heap ordered by `(time, insertion sequence)`.
//!
//! **Ordering contract.** Events run in non-decreasing time order; events scheduled
//! for the same instant run in the order they were scheduled (FIFO). Nothing is ever
//! removed from the queue: a component that changes its mind bumps a generation
//! number and the stale event is skipped when it surfaces (see [`TimerSlot`]).

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

/// Bits of a timer generation carried in a packed event.
const GEN_BITS: u32 = 28;
const GEN_MASK: u32 = (1 << GEN_BITS) - 1;

impl Event {
    /// Pack into 64 bits: kind (4) | id (32) | generation (28).
    #[inline]
    fn pack(self) -> u64 {
        let (kind, id, gen): (u64, u32, u32) = match self {
            Event::LinkArrive(l) => (0, l.0, 0),
            Event::LinkTxDone(l) => (1, l.0, 0),
            Event::LinkTimer(l, g) => (2, l.0, g),
            Event::EndpointTimer(e, g) => (3, e.0, g),
            Event::EndpointStart(e) => (4, e.0, 0),
            Event::EndpointStop(e) => (5, e.0, 0),
            Event::GroupArrival(g) => (6, g.0, 0),
            Event::Sample => (7, 0, 0),
            Event::WarmupEnd => (8, 0, 0),
        };
        debug_assert!(gen <= GEN_MASK);
        (kind << 60) | (u64::from(id) << GEN_BITS) | u64::from(gen & GEN_MASK)
    }

    #[inline]
    fn unpack(x: u64) -> Event {
        let id = (x >> GEN_BITS) as u32;
        let gen = (x as u32) & GEN_MASK;
        match x >> 60 {
            0 => Event::LinkArrive(LinkId(id)),
            1 => Event::LinkTxDone(LinkId(id)),
            2 => Event::LinkTimer(LinkId(id), gen),
            3 => Event::EndpointTimer(EndpointId(id), gen),
            4 => Event::EndpointStart(EndpointId(id)),
            5 => Event::EndpointStop(EndpointId(id)),
            6 => Event::GroupArrival(GroupId(id)),
            7 => Event::Sample,
            _ => Event::WarmupEnd,
        }
    }
}

/// A heap entry: 24 bytes, ordered by `(time, seq)`.
#[derive(Copy, Clone, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    event: u64,
}

impl Entry {
    #[inline]
    fn before(&self, o: &Entry) -> bool {
        self.time < o.time || (self.time == o.time && self.seq < o.seq)
    }
}

/// Children per heap node: a 4-ary heap halves the depth of a binary one and keeps
/// siblings in one or two cache lines.
const ARITY: usize = 4;

/// The pending-event set: a 4-ary min-heap on `(time, insertion sequence)`.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: Vec<Entry>,
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
        let e = Entry {
            time: time.as_ps(),
            seq: self.seq,
            event: event.pack(),
        };
        let mut i = self.heap.len();
        self.heap.push(e);
        while i > 0 {
            let p = (i - 1) / ARITY;
            if e.before(&self.heap[p]) {
                self.heap[i] = self.heap[p];
                i = p;
            } else {
                break;
            }
        }
        self.heap[i] = e;
    }

    /// Remove and return the earliest event if it is not later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        let head = *self.heap.first()?;
        if head.time > until.as_ps() {
            return None;
        }
        let last = self.heap.pop().expect("non-empty");
        let n = self.heap.len();
        if n > 0 {
            let mut i = 0;
            loop {
                let c = ARITY * i + 1;
                if c >= n {
                    break;
                }
                let mut m = c;
                for k in c + 1..(c + ARITY).min(n) {
                    if self.heap[k].before(&self.heap[m]) {
                        m = k;
                    }
                }
                if self.heap[m].before(&last) {
                    self.heap[i] = self.heap[m];
                    i = m;
                } else {
                    break;
                }
            }
            self.heap[i] = last;
        }
        let t = SimTime::from_ps(head.time);
        debug_assert!(t >= self.now, "event time went backwards");
        self.now = t;
        Some((t, Event::unpack(head.event)))
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
                self.gen = self.gen.wrapping_add(1) & GEN_MASK;
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
    fn events_survive_packing() {
        let all = [
            Event::LinkArrive(LinkId(u32::MAX)),
            Event::LinkTxDone(LinkId(3)),
            Event::LinkTimer(LinkId(7), GEN_MASK),
            Event::EndpointTimer(EndpointId(123_456), 99),
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
