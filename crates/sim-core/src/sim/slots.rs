//! One pool of packet slots for every link queue and pipe, with a FIFO list
//! per queue or pipe.
//!
//! A ring buffer per link keeps the capacity of the largest burst that link
//! ever held: in benchmark B1 at N = 1000 the 4000 access links each grew
//! buffers of 4-16 entries (a two-packet window already allocates one) and
//! kept them, ~7 MB of mostly empty buffers, while the network held about
//! 1200 packets at a time. The pool holds as many slots as the network ever
//! held packets at once, and a freed slot is the next one taken (a LIFO free
//! list), so the slot a packet is written into is usually still in cache.

use crate::packet::Packet;
use crate::units::SimTime;

/// No slot: the end of a list.
const NIL: u32 = u32::MAX;

/// The most packets the network may hold at once by default: 4 GiB of slots
/// (about 3.8 x 10^7 packets; a 100 Gb/s pipe three seconds long holds 2.5 x
/// 10^7 of 1500 B). An `unlimited` buffer behind an overloaded link passes it
/// and would otherwise grow until memory runs out (a 10-Gb/s CBR into a
/// 10-Mb/s link: 8 GiB in 90 s of simulated time).
pub const MAX_PACKETS_HELD: usize = (4 << 30) / std::mem::size_of::<Slot>();

/// A packet with its time (enqueue time in a queue, arrival time in a pipe)
/// and the next slot of its list (or of the free list).
struct Slot {
    time: SimTime,
    pkt: Packet,
    next: u32,
}

/// A FIFO list of slots: a link's queue or the rest of its pipe.
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
    /// Append `(time, pkt)` to `q`; returns the stored packet.
    #[inline]
    pub(super) fn push(&mut self, q: &mut Fifo, time: SimTime, pkt: Packet) -> &mut Packet {
        let i = self.free;
        let i = if i == NIL {
            self.grow(time, pkt)
        } else {
            let s = &mut self.slots[i as usize];
            self.free = s.next;
            s.time = time;
            s.pkt = pkt;
            s.next = NIL;
            i
        };
        if q.tail == NIL {
            q.head = i;
        } else {
            self.slots[q.tail as usize].next = i;
        }
        q.tail = i;
        q.len += 1;
        &mut self.slots[i as usize].pkt
    }

    /// A new slot holding `(time, pkt)`: the network holds more packets than
    /// ever before.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, time: SimTime, pkt: Packet) -> u32 {
        let i = u32::try_from(self.slots.len()).expect("more than 2^32 - 1 packets in flight");
        self.slots.push(Slot {
            time,
            pkt,
            next: NIL,
        });
        i
    }

    /// Remove the first packet of `q`, which must not be empty (its time:
    /// [`Slots::front`]).
    ///
    /// The packet alone, neither in a `(SimTime, Packet)` tuple nor in an
    /// `Option` (whose niche is the packet's first word, so the rest was
    /// copied as 92 bytes in overlapping 16-byte moves): either way the copy
    /// was read back across two of its stores, a store-forwarding stall that
    /// took a quarter of `on_tx_done`'s samples (see [`super::pipe::Pipe`]).
    #[inline]
    pub(super) fn pop(&mut self, q: &mut Fifo) -> Packet {
        let i = q.head;
        let out = self.slots[i as usize].pkt; // NIL: out of bounds, a panic
        self.release_head(q, i);
        out
    }

    /// Unlink `q`'s head slot `i` (its packet already copied out) and put it
    /// on the free list.
    #[inline]
    fn release_head(&mut self, q: &mut Fifo, i: u32) {
        let s = &mut self.slots[i as usize];
        q.head = s.next;
        if q.head == NIL {
            q.tail = NIL;
        }
        s.next = self.free;
        self.free = i;
        q.len -= 1;
    }

    /// Remove the first packet of `q` into `dst` and return its time (`None`,
    /// `dst` untouched, when `q` is empty). The packet is copied on its own,
    /// straight into its new place (see [`super::pipe::Pipe`] for why).
    #[inline]
    pub(super) fn pop_into(&mut self, q: &mut Fifo, dst: &mut Packet) -> Option<SimTime> {
        if q.head == NIL {
            return None;
        }
        let i = q.head;
        let s = &self.slots[i as usize];
        *dst = s.pkt;
        let time = s.time;
        self.release_head(q, i);
        Some(time)
    }

    /// The first packet of `q` with its time.
    #[inline]
    pub(super) fn front(&self, q: &Fifo) -> Option<(SimTime, &Packet)> {
        (q.head != NIL).then(|| {
            let s = &self.slots[q.head as usize];
            (s.time, &s.pkt)
        })
    }

    /// The time of the last packet of `q`, if any.
    pub(super) fn back_time(&self, q: &Fifo) -> Option<SimTime> {
        (q.tail != NIL).then(|| self.slots[q.tail as usize].time)
    }

    /// The packets of `q`, first first.
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

    /// Slots allocated: the most packets queued and propagating at once so far.
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

    #[test]
    fn interleaved_lists_stay_fifo_and_reuse_freed_slots() {
        let mut s = Slots::default();
        let (mut a, mut b) = (Fifo::default(), Fifo::default());
        assert!(a.is_empty() && s.front(&a).is_none());
        for k in 0..3 {
            s.push(&mut a, SimTime::ZERO, p(k));
            s.push(&mut b, SimTime::ZERO, p(10 + k));
        }
        assert_eq!(seqs(&s, &a), [0, 1, 2]);
        assert_eq!(seqs(&s, &b), [10, 11, 12]);
        assert_eq!(s.pop(&mut a).seq, 0);
        assert_eq!(s.pop(&mut b).seq, 10);
        // The two freed slots are taken again before the pool grows.
        s.push(&mut b, SimTime::ZERO, p(13));
        s.push(&mut a, SimTime::ZERO, p(3));
        assert_eq!(s.capacity(), 6);
        assert_eq!((a.len(), b.len()), (3, 3));
        assert_eq!(s.front(&a).map(|x| x.1.seq), Some(1));
        let drained: Vec<u64> =
            std::iter::from_fn(|| (!a.is_empty()).then(|| s.pop(&mut a).seq)).collect();
        assert_eq!(drained, [1, 2, 3]);
        assert!(a.is_empty());
        assert_eq!(a.len(), 0);
        assert_eq!(seqs(&s, &b), [11, 12, 13]);
        // An emptied list takes new packets from the start again.
        s.push(&mut a, SimTime::ZERO, p(4));
        assert_eq!(seqs(&s, &a), [4]);
        assert_eq!(s.capacity(), 6);
    }
}
