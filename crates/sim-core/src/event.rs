//! The event queue: pending events ordered by `(time, scheduling order)`.
//!
//! **Ordering contract.** Events run in non-decreasing time order; events scheduled
//! for the same instant run in the order they were scheduled (FIFO), for runs of any
//! length. Nothing is ever removed from the queue: a timer whose owner changed its
//! mind leaves a stale event behind, recognised and skipped when it surfaces (see
//! [`TimerSlot`]).
//!
//! The queue is a monotone radix queue keyed by time alone, with a short sorted
//! "front" of the nearest events; see [`EventQueue`] for how it keeps FIFO order
//! without sequence numbers.

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
    /// The head of an endpoint's host delay line is due at its first link
    /// ([`crate::FlowSpec::host_delay`]).
    EndpointRelease(EndpointId),
    /// A flow group's arrival process produces a new flow.
    GroupArrival(GroupId),
    /// A scheduled link change (index into the simulator's change list,
    /// `Simulator::schedule_link_change`) takes effect.
    LinkChange(u32),
    /// Take one sample of the requested time series.
    Sample,
    /// End of the warm-up: measurement counters start here.
    WarmupEnd,
}

/// One pending event: its time in picoseconds and what happens (16 bytes).
#[derive(Copy, Clone, Debug)]
struct Entry {
    time: u64,
    event: Event,
}

/// Largest bucket the front takes over by sorting it; larger ones are split first.
/// (B1: 8 beat 4, 6, 12, 16 and 32 on instruction counts at N = 10 and 1000.)
const SORT_MAX: usize = 8;
/// An insertion into the front that passes this many later events spills the
/// front back into the buckets, so a wide, crowded front cannot make inserts slow.
const SCAN_MAX: usize = 64;

/// The pending-event set: a monotone radix queue keyed by time, whose nearest
/// events form a sorted `front`.
///
/// **Layout.** Let `now` be the time of the last event popped; every pending event
/// is at or after it. The *front interval* is the set of times `t >= now` with
/// `t ^ now <= front_mask` (`front_mask` is `2^(level+1) - 1`: the times that agree
/// with `now` above bit `level`). The pending events in it are in `front[head..]`,
/// ascending by time and in scheduling order among equal times, so a pop takes
/// `front[head]`. Every other pending event `t` sits in bucket `ilog2(t ^ now)`, the
/// highest bit where it differs from `now`, which is above the front's level. As
/// `now` moves through the front interval its bits above that level stay put, so
/// no bucketed event ever changes bucket until it is moved on purpose.
///
/// **Refill.** When the front runs dry, the lowest non-empty bucket `j` holds the
/// next events. If it has at most `SORT_MAX`, the front takes it over (the two
/// swap buffers, then an insertion sort) together with its interval (level `j`).
/// Otherwise it is split: its earliest time `m` becomes `now` (it is popped next),
/// the events at `m` become the front, the rest move to buckets `ilog2(t ^ m) < j`.
/// So an event moves at most 64 times whatever the time scale (picoseconds to
/// months), and on benchmark B1 about twice.
///
/// **FIFO without sequence numbers.** Within a bucket, events with equal times are
/// in scheduling order: a direct schedule appends the newest event, and a bucket
/// receives moved events only while it is empty (a split fills only buckets below
/// the lowest non-empty one; a spill only buckets at or below the front's level),
/// from a bucket or front that is itself in order, moved in order. The front's
/// sort and insertions are stable. So no counter can wrap, however long the run.
///
/// (Replaced a 4-ary heap of `time | seq | event` keys: on B1 the queue's own
/// instructions fell from about 190 to 70 per event at N = 10 and from 380 to 120
/// at N = 1000, where about 1700 events are pending. A bottom-up heap pop measured
/// 3% worse than the plain one; a radix heap over the 128-bit keys lost because the
/// sequence bits made keys move between buckets, which keying by time avoids.)
#[derive(Debug)]
pub struct EventQueue {
    /// The events in the front interval from `head` on, in pop order; the popped
    /// prefix is dropped when the buffer fills (see `make_room`).
    front: Vec<Entry>,
    head: usize,
    /// The front interval: times `t >= now` with `t ^ now <= front_mask`.
    front_mask: u64,
    /// `buckets[j]` holds the later events whose time differs from `now` first in
    /// bit `j`.
    buckets: [Vec<Entry>; 64],
    /// Bit `j` is set when `buckets[j]` is not empty.
    occupied: u64,
    now: SimTime,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self {
            front: Vec::new(),
            head: 0,
            front_mask: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            occupied: 0,
            now: SimTime::ZERO,
        }
    }
}

/// Move `s[i]` towards the start past the events later than it, so it lands after
/// those at its own time (a stable insertion step); returns how many it passed.
#[inline]
fn sift_back(s: &mut [Entry], i: usize) -> usize {
    let e = s[i];
    let mut k = i;
    while k > 0 {
        let p = s[k - 1];
        if p.time <= e.time {
            break;
        }
        s[k] = p;
        k -= 1;
    }
    s[k] = e;
    i - k
}

#[cold]
#[inline(never)]
fn scheduled_in_the_past(time: SimTime, event: Event, now: SimTime) -> ! {
    panic!("event scheduled in the past: {event:?} at {time} < now {now}")
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
    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        if time < self.now {
            scheduled_in_the_past(time, event, self.now);
        }
        let e = Entry {
            time: time.as_ps(),
            event,
        };
        let x = e.time ^ self.now.as_ps();
        if x <= self.front_mask {
            self.insert_front(e);
        } else {
            let j = x.ilog2() as usize;
            self.buckets[j].push(e);
            self.occupied |= 1 << j;
        }
    }

    /// Insert `e`, which is in the front interval, after every front event not
    /// later than it.
    ///
    /// The events it passes are found by comparing with `e`, held in registers,
    /// and shifted up one place; `e` is written once, at its place. (Pushing
    /// `e` and sifting it back re-read it from memory at once, a 16-byte load
    /// over the push's stores that stalled store forwarding: 8% of the B1
    /// loop's samples under perf sat on that load.)
    #[inline(always)]
    fn insert_front(&mut self, e: Entry) {
        if self.front.len() == self.front.capacity() {
            self.make_room();
        }
        let s = &self.front[self.head..];
        let mut k = s.len();
        while k > 0 && s[k - 1].time > e.time {
            k -= 1;
        }
        let passed = s.len() - k;
        self.front.push(e);
        if passed > 0 {
            let s = &mut self.front[self.head + k..];
            s.copy_within(0..passed, 1);
            s[0] = e;
            if passed >= SCAN_MAX {
                self.spill();
            }
        }
    }

    /// The front's buffer is full: drop the popped prefix if it is at least as
    /// long as the pending part (so the copying is O(1) per pop), else grow.
    #[cold]
    fn make_room(&mut self) {
        let f = &mut self.front;
        let pending = f.len() - self.head;
        if self.head >= pending {
            f.copy_within(self.head.., 0);
            f.truncate(pending);
            self.head = 0;
        } else {
            f.reserve(f.len().max(8));
        }
    }

    /// Return the front's events after `now` to the buckets, which are empty at
    /// and below the front's level; the front interval shrinks to `now` alone.
    #[cold]
    fn spill(&mut self) {
        let now = self.now.as_ps();
        let f = &mut self.front;
        let keep = self.head + f[self.head..].partition_point(|e| e.time == now);
        for &e in &f[keep..] {
            let j = (e.time ^ now).ilog2() as usize;
            self.buckets[j].push(e);
            self.occupied |= 1 << j;
        }
        f.truncate(keep);
        self.front_mask = 0;
    }

    /// Remove and return the earliest event if it is not later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        if let Some(&e) = self.front.get(self.head) {
            return self.take_front(e, until);
        }
        self.refill(until.as_ps());
        let &e = self.front.get(self.head)?;
        self.take_front(e, until)
    }

    /// Pop `e`, the front's first event, if it is not later than `until`.
    #[inline(always)]
    fn take_front(&mut self, e: Entry, until: SimTime) -> Option<(SimTime, Event)> {
        if e.time > until.as_ps() {
            return None;
        }
        self.head += 1;
        debug_assert!(e.time >= self.now.as_ps(), "event time went backwards");
        self.now = SimTime::from_ps(e.time);
        Some((self.now, e.event))
    }

    /// The front is exhausted: refill it from the lowest non-empty bucket. Leaves
    /// it empty, and `now` unchanged, when nothing is due by `until`.
    fn refill(&mut self, until: u64) {
        self.front.clear();
        self.head = 0;
        if self.occupied == 0 {
            return;
        }
        let j = self.occupied.trailing_zeros() as usize;
        let (lower, upper) = self.buckets.split_at_mut(j);
        let src = &mut upper[0];
        if src.len() <= SORT_MAX {
            // The front takes over bucket j and its interval; the bucket gets the
            // front's empty buffer.
            std::mem::swap(&mut self.front, src);
            for i in 1..self.front.len() {
                sift_back(&mut self.front, i);
            }
            self.occupied &= !(1 << j);
            self.front_mask = u64::MAX >> (63 - j);
            return;
        }
        // Too big to sort: split it below its earliest time `m`, which becomes
        // `now` (an event at `m` is popped next, as `m <= until`).
        let m = src.iter().fold(u64::MAX, |m, e| m.min(e.time));
        if m > until {
            return;
        }
        self.now = SimTime::from_ps(m);
        self.front_mask = 0;
        let mut occupied = self.occupied & !(1 << j);
        for &e in src.iter() {
            let x = e.time ^ m;
            if x == 0 {
                self.front.push(e);
            } else {
                let k = x.ilog2() as usize;
                lower[k].push(e);
                occupied |= 1 << k;
            }
        }
        self.occupied = occupied;
        src.clear();
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.front.len() - self.head + self.buckets.iter().map(Vec::len).sum::<usize>()
    }

    /// The next event in the front, if the front holds one (no refill).
    #[inline(always)]
    pub fn peek_front(&self) -> Option<Event> {
        self.front.get(self.head).map(|e| e.event)
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.head == self.front.len() && self.occupied == 0
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
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};

    impl EventQueue {
        /// Assert the layout invariants documented on [`EventQueue`].
        fn check(&self) {
            let now = self.now.as_ps();
            let front = &self.front[self.head..];
            for w in front.windows(2) {
                assert!(w[0].time <= w[1].time, "front out of order");
            }
            for e in front {
                assert!(e.time >= now, "front event in the past");
                assert!(
                    e.time ^ now <= self.front_mask,
                    "front event outside its interval"
                );
            }
            for (j, b) in self.buckets.iter().enumerate() {
                assert_eq!(
                    self.occupied >> j & 1 == 1,
                    !b.is_empty(),
                    "occupancy bit {j}"
                );
                for e in b {
                    assert!(e.time > now, "bucketed event not after now");
                    assert!(
                        e.time ^ now > self.front_mask,
                        "bucketed event in the front interval"
                    );
                    assert_eq!(
                        (e.time ^ now).ilog2() as usize,
                        j,
                        "event in the wrong bucket"
                    );
                }
            }
        }
    }

    /// The reference: pending `(time, scheduling index)` pairs sorted in
    /// descending order, so the next event is the last.
    #[derive(Default)]
    struct Reference {
        pending: Vec<(u64, u32)>,
        next: u32,
    }

    impl Reference {
        fn schedule(&mut self, q: &mut EventQueue, time: u64) {
            q.schedule(SimTime::from_ps(time), Event::LinkArrive(LinkId(self.next)));
            let key = (time, self.next);
            let at = self.pending.partition_point(|&p| p > key);
            self.pending.insert(at, key);
            self.next += 1;
        }

        fn pop_until(&mut self, q: &mut EventQueue, until: u64) -> Option<(u64, u32)> {
            let got = q.pop_until(SimTime::from_ps(until)).map(|(t, e)| match e {
                Event::LinkArrive(l) => (t.as_ps(), l.0),
                _ => unreachable!(),
            });
            let want = match self.pending.last() {
                Some(&(t, _)) if t <= until => self.pending.pop(),
                _ => None,
            };
            assert_eq!(got, want);
            assert_eq!(q.len(), self.pending.len());
            assert_eq!(q.is_empty(), self.pending.is_empty());
            q.check();
            got
        }

        fn drain(&mut self, q: &mut EventQueue) {
            while self.pop_until(q, u64::MAX).is_some() {}
            assert!(q.is_empty());
        }
    }

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
    fn an_entry_is_16_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), 16);
    }

    #[test]
    fn the_queue_pops_random_times_in_time_then_fifo_order() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let (mut q, mut r) = (EventQueue::new(), Reference::default());
        for _ in 0..5000 {
            r.schedule(&mut q, rng.random_range(0..200u64));
        }
        r.drain(&mut q);
    }

    #[test]
    fn pop_until_leaves_later_events() {
        let mut q = EventQueue::new();
        q.schedule(SimTime::from_ps(10), Event::Sample);
        assert!(q.pop_until(SimTime::from_ps(9)).is_none());
        assert_eq!(q.now(), SimTime::ZERO, "a refused pop does not move time");
        q.schedule(SimTime::from_ps(3), Event::WarmupEnd);
        assert_eq!(
            q.pop_until(SimTime::from_ps(10)),
            Some((SimTime::from_ps(3), Event::WarmupEnd))
        );
        assert!(q.pop_until(SimTime::from_ps(10)).is_some());
        assert!(q.is_empty());
    }

    #[test]
    fn a_big_bucket_is_split_in_fifo_order() {
        // 100 events at 4 interleaved times, all in one bucket (more than SORT_MAX).
        let (mut q, mut r) = (EventQueue::new(), Reference::default());
        for i in 0..100 {
            r.schedule(&mut q, 1 << 40 | [7, 3, 7, 5][i % 4]);
        }
        assert_eq!(q.occupied.count_ones(), 1);
        r.pop_until(&mut q, u64::MAX);
        assert_eq!(q.now(), SimTime::from_ps(1 << 40 | 3));
        r.schedule(&mut q, 1 << 40 | 3); // after the 25 already at this time
        r.schedule(&mut q, 1 << 40 | 5);
        r.drain(&mut q);
    }

    #[test]
    fn a_long_insertion_spills_the_front_and_keeps_order() {
        let (mut q, mut r) = (EventQueue::new(), Reference::default());
        // A front over [1 << 20, 1 << 21): one bucket, taken over whole.
        r.schedule(&mut q, 1 << 20);
        r.schedule(&mut q, 1 << 20);
        r.pop_until(&mut q, u64::MAX);
        assert_eq!(q.front_mask, (1 << 21) - 1);
        // Many later events in the front, some equal, then one before them all.
        for i in 0..SCAN_MAX as u64 + 10 {
            r.schedule(&mut q, (1 << 20) + 1000 + i / 3);
        }
        assert_eq!(q.len(), SCAN_MAX + 11);
        r.schedule(&mut q, (1 << 20) + 1);
        assert_eq!(q.front_mask, 0, "the front spilled");
        assert_eq!(q.front.len() - q.head, 1, "the event at now stays in front");
        q.check();
        for _ in 0..5 {
            r.pop_until(&mut q, u64::MAX);
            r.schedule(&mut q, (1 << 20) + 1000 + 7);
        }
        r.drain(&mut q);
    }

    #[test]
    fn time_scales_from_picoseconds_to_the_end_of_time() {
        let (mut q, mut r) = (EventQueue::new(), Reference::default());
        let times = [
            0,
            1,
            2,
            1_000,              // 1 ns
            60_000_000_000_000, // 1 min
            u64::MAX / 2,
            u64::MAX / 2 + 1,
            u64::MAX - 1,
            u64::MAX,
            u64::MAX,
            60_000_000_000_000,
            1,
        ];
        for &t in &times {
            r.schedule(&mut q, t);
        }
        while let Some((t, _)) = r.pop_until(&mut q, u64::MAX) {
            if t < u64::MAX - 1 {
                r.schedule(&mut q, t + 1);
                r.schedule(&mut q, u64::MAX);
            }
            if r.next > 200 {
                break;
            }
        }
        r.drain(&mut q);
        assert_eq!(q.now(), SimTime::MAX);
    }

    #[test]
    fn a_popped_prefix_is_reclaimed_in_a_long_lived_front() {
        // A hold model whose front never runs dry: the buffer must not grow.
        let (mut q, mut r) = (EventQueue::new(), Reference::default());
        for i in 0..SORT_MAX as u64 {
            r.schedule(&mut q, 1 << 30 | i << 10);
        }
        r.pop_until(&mut q, u64::MAX);
        assert_eq!(q.front_mask, (1 << 31) - 1, "the front took over bucket 30");
        for i in 0..100_000u64 {
            let (t, _) = r.pop_until(&mut q, u64::MAX).expect("pending");
            r.schedule(&mut q, t + 2000 + i % 3);
        }
        assert_eq!(q.front_mask, (1 << 31) - 1, "the same front all along");
        assert!(
            q.front.capacity() <= 64,
            "front buffer grew to {}",
            q.front.capacity()
        );
        r.drain(&mut q);
    }

    #[test]
    #[should_panic(expected = "event scheduled in the past")]
    fn scheduling_in_the_past_panics() {
        let mut q = EventQueue::new();
        q.schedule(SimTime::from_ps(10), Event::Sample);
        q.pop_until(SimTime::MAX);
        q.schedule(SimTime::from_ps(9), Event::Sample);
    }

    #[test]
    fn fifo_holds_over_a_long_hold_model_run() {
        // A million events with heavy ties and mixed time scales: every popped
        // (time, scheduling index) pair must exceed the previous one.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut q = EventQueue::new();
        let mut next = 0u32;
        let sched = |q: &mut EventQueue, t: u64, next: &mut u32| {
            q.schedule(SimTime::from_ps(t), Event::LinkArrive(LinkId(*next)));
            *next += 1;
        };
        for _ in 0..1000 {
            let t = rng.random_range(0..1_000_000);
            sched(&mut q, t, &mut next);
        }
        let mut last = (0, 0);
        for _ in 0..1_000_000 {
            let (t, e) = q.pop_until(SimTime::MAX).expect("pending");
            let Event::LinkArrive(l) = e else {
                unreachable!()
            };
            let (t, i) = (t.as_ps(), l.0);
            assert!(
                (t, i) > last || (t, i) == (0, 0),
                "{:?} after {:?}",
                (t, i),
                last
            );
            last = (t, i);
            let d = match rng.random_range(0..4) {
                0 => 0,
                1 => rng.random_range(0..4),
                2 => rng.random_range(0..1_000_000),
                _ => rng.random_range(0..1u64 << 45),
            };
            sched(&mut q, t + d, &mut next);
        }
        assert_eq!(q.len(), 1000);
    }

    /// One step of a random interleaving: schedule at `now + delay`; schedule
    /// `n` events at `now + delay`, `now + delay - 1`, ... (descending, to make
    /// long insertions); or pop with `until = now + horizon`.
    #[derive(Clone, Debug)]
    enum Op {
        Schedule(u64),
        Burst(u64, u64),
        Pop(u64),
    }

    fn delay() -> impl Strategy<Value = u64> {
        prop_oneof![
            3 => Just(0u64),
            3 => 0..8u64,
            3 => 0..1_000u64,
            2 => 0..1_000_000_000u64,
            1 => 0..u64::MAX / 4,
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => delay().prop_map(Op::Schedule),
            1 => (delay(), 0..80u64).prop_map(|(d, n)| Op::Burst(d, n)),
            2 => delay().prop_map(Op::Pop),
            1 => Just(Op::Pop(u64::MAX)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn the_queue_matches_a_sorted_reference(ops in prop::collection::vec(op(), 1..200)) {
            let (mut q, mut r) = (EventQueue::new(), Reference::default());
            for op in ops {
                let now = q.now().as_ps();
                match op {
                    Op::Schedule(d) => {
                        r.schedule(&mut q, now.saturating_add(d));
                        q.check();
                    }
                    Op::Burst(d, n) => {
                        for i in 0..n {
                            r.schedule(&mut q, now.saturating_add(d).saturating_sub(i).max(now));
                        }
                        q.check();
                    }
                    Op::Pop(h) => {
                        r.pop_until(&mut q, now.saturating_add(h));
                    }
                }
            }
            r.drain(&mut q);
        }
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
}
