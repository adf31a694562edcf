//! A link's propagation pipe: the packets on the wire, in arrival order, with
//! the first one stored inline and the others in the shared slot pool.
//!
//! Most links carry at most one packet at a time (in benchmark B1 at N = 1000 an
//! access link holds 0.008 packets on average), so keeping the head inside the
//! link's state saves a visit elsewhere, a cache miss per hop on a link that is
//! visited rarely and at random.

use super::slots::{Fifo, Slots};
use crate::packet::Packet;
use crate::units::SimTime;

/// FIFO of `(arrival time, packet)`; invariant: `rest` is empty when `head` is.
#[derive(Default)]
pub(super) struct Pipe {
    head: Option<(SimTime, Packet)>,
    rest: Fifo,
}

impl Pipe {
    /// True when nothing is on the wire.
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// Append a packet (the latest to arrive).
    #[inline]
    pub(super) fn push_back(&mut self, slots: &mut Slots, x: (SimTime, Packet)) {
        if self.head.is_none() {
            self.head = Some(x);
        } else {
            slots.push(&mut self.rest, x.0, x.1);
        }
    }

    /// Remove the packet that arrives first.
    #[inline]
    pub(super) fn pop_front(&mut self, slots: &mut Slots) -> Option<(SimTime, Packet)> {
        let h = self.head.take();
        if h.is_some() && !self.rest.is_empty() {
            self.head = slots.pop(&mut self.rest);
        }
        h
    }

    /// The packet that arrives first.
    #[inline]
    pub(super) fn front(&self) -> Option<&(SimTime, Packet)> {
        self.head.as_ref()
    }

    /// All packets on the wire, first to arrive first.
    pub(super) fn iter<'a>(
        &'a self,
        slots: &'a Slots,
    ) -> impl Iterator<Item = (SimTime, &'a Packet)> {
        self.head
            .iter()
            .map(|(t, p)| (*t, p))
            .chain(slots.iter(&self.rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, RouteId};
    use crate::packet::PacketKind;

    fn p(seq: u64) -> (SimTime, Packet) {
        let mut x = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 100, SimTime::ZERO);
        x.seq = seq;
        (SimTime::ZERO, x)
    }

    #[test]
    fn the_pipe_is_a_fifo_across_the_inline_head() {
        let mut s = Slots::default();
        let mut q = Pipe::default();
        assert!(q.is_empty() && q.pop_front(&mut s).is_none());
        for k in 0..3 {
            q.push_back(&mut s, p(k));
        }
        assert_eq!(q.iter(&s).map(|x| x.1.seq).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(q.pop_front(&mut s).unwrap().1.seq, 0);
        q.push_back(&mut s, p(3));
        let order: Vec<u64> = std::iter::from_fn(|| q.pop_front(&mut s).map(|x| x.1.seq)).collect();
        assert_eq!(order, [1, 2, 3]);
        assert!(q.is_empty() && q.front().is_none());
    }
}
