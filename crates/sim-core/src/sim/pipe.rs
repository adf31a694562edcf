//! A link's propagation pipe: the packets on the wire, in arrival order, as a
//! list of slots in the shared pool, with the first arrival time kept in the
//! link's state.
//!
//! The first arrival time is what the link's `LinkArrive` event is checked
//! against and what the next event's prefetch reads; keeping it beside the
//! list saves a visit to the pool for both.

use super::slots::{Fifo, SlotId, Slots};
use crate::units::SimTime;

/// FIFO of slots by arrival time; `head_at` is the first one's.
pub(super) struct Pipe {
    /// Arrival time of the first packet; [`SimTime::MAX`] when nothing is on
    /// the wire.
    head_at: SimTime,
    list: Fifo,
}

impl Default for Pipe {
    fn default() -> Self {
        Pipe {
            head_at: SimTime::MAX,
            list: Fifo::default(),
        }
    }
}

impl Pipe {
    /// True when nothing is on the wire.
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.head_at == SimTime::MAX
    }

    /// Append slot `i` (in no list), arriving at `at` (the latest to arrive;
    /// `at` is a real instant, before [`SimTime::MAX`]).
    #[inline]
    pub(super) fn push_back(&mut self, slots: &mut Slots, at: SimTime, i: SlotId) {
        debug_assert!(at < SimTime::MAX);
        if self.is_empty() {
            self.head_at = at;
        }
        slots.push(&mut self.list, i, at);
    }

    /// Remove the packet that arrives first; the pipe must not be empty
    /// (the caller checks, e.g. with [`Pipe::head_at`]). Its slot is in no
    /// list afterwards.
    #[inline]
    pub(super) fn pop_front(&mut self, slots: &mut Slots) -> SlotId {
        debug_assert!(!self.is_empty(), "pop from an empty pipe");
        let (i, next) = slots.pop_with_next_time(&mut self.list);
        self.head_at = next;
        i
    }

    /// The link the first packet enters next, if any ([`Slots::front_to`]).
    #[inline(always)]
    pub(super) fn front_to(&self, slots: &Slots) -> Option<crate::ids::LinkId> {
        slots.front_to(&self.list)
    }

    /// When the first packet arrives; [`SimTime::MAX`] when nothing is on
    /// the wire.
    #[inline]
    pub(super) fn head_at(&self) -> SimTime {
        self.head_at
    }

    /// When the last packet on the wire arrives, if one is.
    pub(super) fn back_at(&self, slots: &Slots) -> Option<SimTime> {
        slots.back_time(&self.list)
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
    ) -> impl Iterator<Item = (SimTime, &'a crate::packet::Packet)> {
        slots.iter(&self.list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, RouteId};
    use crate::packet::{Packet, PacketKind};

    fn p(s: &mut Slots, seq: u64) -> SlotId {
        let mut x = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 100, SimTime::ZERO);
        x.seq = seq;
        s.alloc(x)
    }

    #[test]
    fn the_pipe_is_a_fifo_that_keeps_its_first_arrival_time() {
        let mut s = Slots::default();
        let mut q = Pipe::default();
        assert!(q.is_empty() && q.back_at(&s).is_none());
        for k in 0..3 {
            let i = p(&mut s, k);
            q.push_back(&mut s, SimTime::from_ps(k), i);
        }
        assert_eq!(q.front_at(), Some(SimTime::ZERO));
        assert_eq!(q.back_at(&s), Some(SimTime::from_ps(2)));
        assert_eq!(q.iter(&s).map(|x| x.1.seq).collect::<Vec<_>>(), [0, 1, 2]);
        let first = q.pop_front(&mut s);
        assert_eq!(s.take(first).seq, 0);
        assert_eq!(q.front_at(), Some(SimTime::from_ps(1)));
        let i = p(&mut s, 3);
        q.push_back(&mut s, SimTime::from_ps(3), i);
        let order: Vec<u64> = std::iter::from_fn(|| {
            (!q.is_empty()).then(|| {
                let i = q.pop_front(&mut s);
                s.take(i).seq
            })
        })
        .collect();
        assert_eq!(order, [1, 2, 3]);
        assert!(q.is_empty() && q.front_at().is_none());
        assert_eq!(q.head_at(), SimTime::MAX);
    }
}
