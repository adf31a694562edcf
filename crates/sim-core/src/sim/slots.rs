//! One pool of packet slots for every packet in the network, with a FIFO list
//! per link queue and pipe.
//!
//! A packet is written into a slot once, when its endpoint hands it to the
//! network, and stays there until it is delivered or dropped: moving it from
//! a queue to a pipe, or from a pipe to the next link's queue, relinks the
//! slot and copies nothing. (Copying the 96-byte packet at each step cost a
//! store-forwarding stall or a cache miss per copy: the copy of the next
//! packet out of the pool was 38 % of benchmark B1's L1 read misses at
//! N = 100.)
//!
//! A ring buffer per link would keep the capacity of the largest burst that
//! link ever held: in benchmark B1 at N = 1000 the 4000 access links each
//! grew buffers of 4-16 entries and kept them, ~7 MB of mostly empty buffers,
//! while the network held about 1200 packets at a time. The pool holds as
//! many slots as the network ever held packets at once, and a freed slot is
//! the next one taken (a LIFO free list), so the slot a packet is written
//! into is usually still in cache.

use crate::packet::Packet;
use crate::units::SimTime;

/// No slot: the end of a list.
const NIL: u32 = u32::MAX;

/// The most packets the network may hold at once by default: 4 GiB of slots
/// (about 3.4 x 10^7 packets; a 100 Gb/s pipe three seconds long holds 2.5 x
/// 10^7 of 1500 B). An `unlimited` buffer behind an overloaded link passes it
/// and would otherwise grow until memory runs out (a 10-Gb/s CBR into a
/// 10-Mb/s link: 8 GiB in 90 s of simulated time).
pub const MAX_PACKETS_HELD: usize = (4 << 30) / std::mem::size_of::<Slot>();

/// Where a packet lives while it is in the network: an index into [`Slots`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct SlotId(u32);

/// A packet with its time (enqueue time in a queue, arrival time in a pipe),
/// the next slot of its list (or of the free list) and that slot's time.
/// Two cache lines: the list fields and the packet's routing fields
/// (`Packet` is `repr(C)` with them first) share the first, so moving a
/// packet along its route touches one line. With the next slot's time at
/// hand, taking a pipe's head tells when the new head arrives without a
/// visit to the new head's slot (that visit, a cache miss dependent on the
/// one before it, was 14 % of the event loop's samples at B1 N = 100).
///
/// While the packet is on a link's wire the slot also names the link it
/// enters next (`to`), so that the event loop can bring that link's state
/// into cache one event ahead without a walk through the route.
#[repr(C, align(64))]
struct Slot {
    time: SimTime,
    next_time: SimTime,
    next: u32,
    to: u32,
    pkt: Packet,
}

/// A FIFO list of slots: a link's queue or its pipe.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fifo {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo {
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }
}

impl Fifo {
    /// Packets in the list.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// True when the list holds no packet.
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.head == NIL
    }
}

/// The shared pool.
pub(super) struct Slots {
    slots: Vec<Slot>,
    /// Head of the free list.
    free: u32,
}

impl Default for Slots {
    fn default() -> Self {
        Slots {
            slots: Vec::new(),
            free: NIL,
        }
    }
}

impl Slots {
    /// Store `pkt` in a free slot (in no list yet).
    #[inline]
    pub(super) fn alloc(&mut self, pkt: Packet) -> SlotId {
        let i = self.free;
        if i == NIL {
            return SlotId(self.grow(pkt));
        }
        let s = &mut self.slots[i as usize];
        self.free = s.next;
        s.pkt = pkt;
        SlotId(i)
    }

    /// A new slot holding `pkt`: the network holds more packets than ever
    /// before.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, pkt: Packet) -> u32 {
        let i = u32::try_from(self.slots.len()).expect("more than 2^32 - 1 packets in flight");
        self.slots.push(Slot {
            time: SimTime::ZERO,
            next_time: SimTime::MAX,
            next: NIL,
            to: NIL,
            pkt,
        });
        i
    }

    /// Put slot `i` (in no list) back on the free list.
    #[inline]
    pub(super) fn release(&mut self, i: SlotId) {
        self.slots[i.0 as usize].next = self.free;
        self.free = i.0;
    }

    /// Copy the packet out of slot `i` (in no list) and free the slot.
    #[inline]
    pub(super) fn take(&mut self, i: SlotId) -> Packet {
        let p = self.slots[i.0 as usize].pkt;
        self.release(i);
        p
    }

    /// The packet in slot `i`.
    #[inline]
    pub(super) fn pkt(&self, i: SlotId) -> &Packet {
        &self.slots[i.0 as usize].pkt
    }

    /// The packet in slot `i`, to change.
    #[inline]
    pub(super) fn pkt_mut(&mut self, i: SlotId) -> &mut Packet {
        &mut self.slots[i.0 as usize].pkt
    }

    /// Record that the packet in slot `i` enters link `to` next (`None`: it
    /// is delivered at the end of the link it is on).
    #[inline]
    pub(super) fn set_to(&mut self, i: SlotId, to: Option<crate::ids::LinkId>) {
        self.slots[i.0 as usize].to = to.map_or(NIL, |l| l.0);
    }

    /// The link the packet in slot `i` enters next ([`Slots::set_to`]).
    #[inline]
    pub(super) fn to(&self, i: SlotId) -> Option<crate::ids::LinkId> {
        let to = self.slots[i.0 as usize].to;
        (to != NIL).then_some(crate::ids::LinkId(to))
    }

    /// The link the first packet of `q` enters next, if `q` is not empty
    /// and the packet has one (for `Simulator::touch_next`).
    #[inline(always)]
    pub(super) fn front_to(&self, q: &Fifo) -> Option<crate::ids::LinkId> {
        let to = self.slots.get(q.head as usize)?.to;
        (to != NIL).then_some(crate::ids::LinkId(to))
    }

    /// The time slot `i` was given when it was appended to its list.
    #[inline]
    pub(super) fn time(&self, i: SlotId) -> SimTime {
        self.slots[i.0 as usize].time
    }

    /// Append slot `i` (in no list) to `q` with time `time`.
    #[inline]
    pub(super) fn push(&mut self, q: &mut Fifo, i: SlotId, time: SimTime) {
        let s = &mut self.slots[i.0 as usize];
        s.time = time;
        s.next = NIL;
        if q.tail == NIL {
            q.head = i.0;
        } else {
            let t = &mut self.slots[q.tail as usize];
            t.next = i.0;
            t.next_time = time;
        }
        q.tail = i.0;
        q.len += 1;
    }

    /// Unlink the first slot of `q`, which must not be empty; the slot
    /// keeps its packet and time and is in no list afterwards.
    #[inline]
    pub(super) fn pop(&mut self, q: &mut Fifo) -> SlotId {
        self.pop_with_next_time(q).0
    }

    /// Unlink the first slot of `q`, which must not be empty, as
    /// [`Slots::pop`]; also returns the time of the slot that is first now
    /// ([`SimTime::MAX`] when `q` is empty now), read from the slot taken.
    #[inline]
    pub(super) fn pop_with_next_time(&mut self, q: &mut Fifo) -> (SlotId, SimTime) {
        let i = q.head;
        let s = &self.slots[i as usize]; // NIL: out of bounds, a panic
        q.head = s.next;
        let next_time = if q.head == NIL {
            q.tail = NIL;
            SimTime::MAX
        } else {
            s.next_time
        };
        q.len -= 1;
        (SlotId(i), next_time)
    }

    /// Read the first cache line of the first slot of `q` (its list fields
    /// and the packet's routing fields), so that a later visit finds it in
    /// cache: see `Simulator::touch_next`.
    #[inline(always)]
    pub(super) fn touch_front(&self, q: &Fifo) {
        if let Some(s) = self.slots.get(q.head as usize) {
            std::hint::black_box(s.next);
        }
    }

    /// The time of the last slot of `q`, if any.
    pub(super) fn back_time(&self, q: &Fifo) -> Option<SimTime> {
        (q.tail != NIL).then(|| self.slots[q.tail as usize].time)
    }

    /// The packets of `q` with their times, first first.
    pub(super) fn iter<'a>(&'a self, q: &Fifo) -> impl Iterator<Item = (SimTime, &'a Packet)> {
        let mut i = q.head;
        std::iter::from_fn(move || {
            (i != NIL).then(|| {
                let s = &self.slots[i as usize];
                i = s.next;
                (s.time, &s.pkt)
            })
        })
    }

    /// Slots allocated: the most packets in the network at once so far.
    pub(super) fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, RouteId};
    use crate::packet::PacketKind;

    fn p(seq: u64) -> Packet {
        let mut x = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 100, SimTime::ZERO);
        x.seq = seq;
        x
    }

    fn seqs(s: &Slots, q: &Fifo) -> Vec<u64> {
        s.iter(q).map(|(_, p)| p.seq).collect()
    }

    fn put(s: &mut Slots, q: &mut Fifo, seq: u64) {
        let i = s.alloc(p(seq));
        s.push(q, i, SimTime::from_ps(seq));
    }

    #[test]
    fn a_slot_is_two_cache_lines_with_the_routing_fields_in_the_first() {
        assert_eq!(std::mem::size_of::<Slot>(), 128);
        let at = |f: usize| f < 64;
        assert!(at(std::mem::offset_of!(Slot, next)));
        let pkt = std::mem::offset_of!(Slot, pkt);
        assert!(at(pkt + std::mem::offset_of!(Packet, route) + 4));
        assert!(at(pkt + std::mem::offset_of!(Packet, hop) + 2));
        assert!(at(pkt + std::mem::offset_of!(Packet, size) + 4));
        assert!(at(pkt + std::mem::offset_of!(Packet, flow) + 4));
    }

    #[test]
    fn interleaved_lists_stay_fifo_and_reuse_freed_slots() {
        let mut s = Slots::default();
        let (mut a, mut b) = (Fifo::default(), Fifo::default());
        assert!(a.is_empty() && s.iter(&a).next().is_none());
        for k in 0..3 {
            put(&mut s, &mut a, k);
            put(&mut s, &mut b, 10 + k);
        }
        assert_eq!(seqs(&s, &a), [0, 1, 2]);
        assert_eq!(seqs(&s, &b), [10, 11, 12]);
        let x = s.pop(&mut a);
        assert_eq!((s.pkt(x).seq, s.time(x)), (0, SimTime::ZERO));
        assert_eq!(s.take(x).seq, 0);
        let y = s.pop(&mut b);
        assert_eq!(s.take(y).seq, 10);
        // The two freed slots are taken again before the pool grows.
        put(&mut s, &mut b, 13);
        put(&mut s, &mut a, 3);
        assert_eq!(s.capacity(), 6);
        assert_eq!((a.len(), b.len()), (3, 3));
        assert_eq!(s.iter(&a).next().map(|x| x.0), Some(SimTime::from_ps(1)));
        assert_eq!(s.back_time(&a), Some(SimTime::from_ps(3)));
        // Taking the head tells the new head's time from the slot taken.
        let (h, next) = s.pop_with_next_time(&mut b);
        assert_eq!((s.take(h).seq, next), (11, SimTime::from_ps(12)));
        let (h, next) = s.pop_with_next_time(&mut b);
        assert_eq!((s.take(h).seq, next), (12, SimTime::from_ps(13)));
        put(&mut s, &mut b, 11);
        put(&mut s, &mut b, 12);
        let order: Vec<u64> = s.iter(&b).map(|x| x.1.seq).collect();
        assert_eq!(order, [13, 11, 12]);
        // A slot names the link its packet enters next.
        let f = s.pop(&mut a);
        assert_eq!(s.to(f), None);
        s.set_to(f, Some(crate::ids::LinkId(5)));
        s.push(&mut a, f, SimTime::from_ps(50));
        assert_eq!(s.front_to(&a), None, "the new slot is last");
        assert_eq!(s.iter(&a).map(|x| x.1.seq).collect::<Vec<_>>(), [2, 3, 1]);
        let f = s.pop(&mut a);
        s.push(&mut a, f, SimTime::from_ps(51));
        let f = s.pop(&mut a);
        s.push(&mut a, f, SimTime::from_ps(52));
        assert_eq!(s.front_to(&a), Some(crate::ids::LinkId(5)));
        let f = s.pop(&mut a);
        assert_eq!(s.to(f), Some(crate::ids::LinkId(5)));
        s.set_to(f, None);
        s.push(&mut a, f, SimTime::from_ps(53));
        // A slot moves from one list to another without being copied.
        let m = s.pop(&mut a);
        s.pkt_mut(m).hop = 7;
        s.push(&mut b, m, SimTime::from_ps(99));
        assert_eq!(seqs(&s, &b), [13, 11, 12, 2]);
        assert_eq!(s.back_time(&b), Some(SimTime::from_ps(99)));
        assert_eq!(s.iter(&b).last().map(|x| x.1.hop), Some(7));
        let drained: Vec<u64> = std::iter::from_fn(|| {
            (!a.is_empty()).then(|| {
                let i = s.pop(&mut a);
                s.take(i).seq
            })
        })
        .collect();
        assert_eq!(drained, [3, 1]);
        assert!(a.is_empty());
        assert_eq!(a.len(), 0);
        // An emptied list takes new packets from the start again.
        put(&mut s, &mut a, 4);
        assert_eq!(seqs(&s, &a), [4]);
        assert_eq!(s.capacity(), 6);
    }
}
