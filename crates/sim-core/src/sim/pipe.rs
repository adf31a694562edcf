//! A link's propagation pipe: the packets on the wire, in arrival order, with
//! the first one stored inline and the others in the shared slot pool.
//!
//! Most links carry at most one packet at a time (in benchmark B1 at N = 1000 an
//! access link holds 0.008 packets on average), so keeping the head inside the
//! link's state saves a visit elsewhere, a cache miss per hop on a link that is
//! visited rarely and at random.

use super::slots::{Fifo, Slots};
use crate::ids::{FlowId, RouteId};
use crate::packet::{Packet, PacketKind};
use crate::units::SimTime;

/// FIFO of `(arrival time, packet)`; invariant: `rest` is empty when the
/// head is.
///
/// The head's time and packet are separate fields, and a packet moves in and
/// out of them on its own, never inside an `(SimTime, Packet)` tuple: a copy
/// of a 104-byte tuple is split into 16-byte moves on a different grid from a
/// copy of the 96-byte packet inside it, and a load that spans two earlier
/// stores cannot be forwarded from them (a store-forwarding stall, the two
/// hottest instructions of the B1 loop under `perf` before this layout).
pub(super) struct Pipe {
    /// Arrival time of `head`; [`SimTime::MAX`] when nothing is on the wire.
    head_at: SimTime,
    /// The first packet to arrive (meaningless when `head_at` is `MAX`).
    head: Packet,
    rest: Fifo,
}

impl Default for Pipe {
    fn default() -> Self {
        Pipe {
            head_at: SimTime::MAX,
            head: Packet::new(FlowId(0), RouteId(0), PacketKind::Control, 0, SimTime::ZERO),
            rest: Fifo::default(),
        }
    }
}

impl Pipe {
    /// True when nothing is on the wire.
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.head_at == SimTime::MAX
    }

    /// Append a packet arriving at `at` (the latest to arrive; `at` is a real
    /// instant, before [`SimTime::MAX`]); returns the stored packet.
    #[inline]
    pub(super) fn push_back<'a>(
        &'a mut self,
        slots: &'a mut Slots,
        at: SimTime,
        pkt: Packet,
    ) -> &'a mut Packet {
        debug_assert!(at < SimTime::MAX);
        if self.is_empty() {
            self.head_at = at;
            self.head = pkt;
            &mut self.head
        } else {
            slots.push(&mut self.rest, at, pkt)
        }
    }

    /// Remove the packet that arrives first; the pipe must not be empty
    /// (the caller checks, e.g. with [`Pipe::head_at`]).
    /// (Not an `Option<Packet>`: see [`Slots::pop`].)
    #[inline]
    pub(super) fn pop_front(&mut self, slots: &mut Slots) -> Packet {
        debug_assert!(!self.is_empty(), "pop from an empty pipe");
        let p = self.head;
        self.head_at = slots
            .pop_into(&mut self.rest, &mut self.head)
            .unwrap_or(SimTime::MAX);
        p
    }

    /// When the first packet arrives; [`SimTime::MAX`] when nothing is on
    /// the wire.
    #[inline]
    pub(super) fn head_at(&self) -> SimTime {
        self.head_at
    }

    /// When the last packet on the wire arrives, if one is.
    pub(super) fn back_at(&self, slots: &Slots) -> Option<SimTime> {
        slots.back_time(&self.rest).or(self.front_at())
    }

    /// When the first packet arrives, if one is on the wire.
    #[inline]
    pub(super) fn front_at(&self) -> Option<SimTime> {
        (!self.is_empty()).then_some(self.head_at)
    }

    /// All packets on the wire, first to arrive first.
    pub(super) fn iter<'a>(
        &'a self,
        slots: &'a Slots,
    ) -> impl Iterator<Item = (SimTime, &'a Packet)> {
        self.front_at()
            .map(|t| (t, &self.head))
            .into_iter()
            .chain(slots.iter(&self.rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(seq: u64) -> Packet {
        let mut x = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 100, SimTime::ZERO);
        x.seq = seq;
        x
    }

    #[test]
    fn the_pipe_is_a_fifo_across_the_inline_head() {
        let mut s = Slots::default();
        let mut q = Pipe::default();
        assert!(q.is_empty());
        for k in 0..3 {
            q.push_back(&mut s, SimTime::from_ps(k), p(k));
        }
        assert_eq!(q.front_at(), Some(SimTime::ZERO));
        assert_eq!(q.iter(&s).map(|x| x.1.seq).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(q.pop_front(&mut s).seq, 0);
        assert_eq!(q.front_at(), Some(SimTime::from_ps(1)));
        q.push_back(&mut s, SimTime::from_ps(3), p(3));
        let order: Vec<u64> =
            std::iter::from_fn(|| (!q.is_empty()).then(|| q.pop_front(&mut s).seq)).collect();
        assert_eq!(order, [1, 2, 3]);
        assert!(q.is_empty() && q.front_at().is_none());
    }
}
