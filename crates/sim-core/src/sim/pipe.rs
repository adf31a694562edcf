//! A link's propagation pipe: the packets on the wire, in arrival order, with
//! the first one stored inline.
//!
//! Most links carry at most one packet at a time (in benchmark B1 at N = 1000 an
//! access link holds 0.008 packets on average), so keeping the head inside the
//! link's state saves the visit to a separately allocated ring buffer, a cache
//! miss per hop on a link that is visited rarely and at random.

use std::collections::VecDeque;

use crate::packet::Packet;
use crate::units::SimTime;

/// FIFO of `(arrival time, packet)`; invariant: `rest` is empty when `head` is.
#[derive(Default)]
pub(super) struct Pipe {
    head: Option<(SimTime, Packet)>,
    rest: VecDeque<(SimTime, Packet)>,
}

impl Pipe {
    /// True when nothing is on the wire.
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// Append a packet (the latest to arrive).
    #[inline]
    pub(super) fn push_back(&mut self, x: (SimTime, Packet)) {
        if self.head.is_none() {
            self.head = Some(x);
        } else {
            self.rest.push_back(x);
        }
    }

    /// Remove the packet that arrives first.
    #[inline]
    pub(super) fn pop_front(&mut self) -> Option<(SimTime, Packet)> {
        let h = self.head.take();
        if h.is_some() && !self.rest.is_empty() {
            self.head = self.rest.pop_front();
        }
        h
    }

    /// The packet that arrives first.
    #[inline]
    pub(super) fn front(&self) -> Option<&(SimTime, Packet)> {
        self.head.as_ref()
    }

    /// All packets on the wire, first to arrive first.
    pub(super) fn iter(&self) -> impl Iterator<Item = &(SimTime, Packet)> {
        self.head.iter().chain(self.rest.iter())
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
        let mut q = Pipe::default();
        assert!(q.is_empty() && q.pop_front().is_none());
        for s in 0..3 {
            q.push_back(p(s));
        }
        assert_eq!(q.iter().map(|x| x.1.seq).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(q.pop_front().unwrap().1.seq, 0);
        q.push_back(p(3));
        let order: Vec<u64> = std::iter::from_fn(|| q.pop_front().map(|x| x.1.seq)).collect();
        assert_eq!(order, [1, 2, 3]);
        assert!(q.is_empty() && q.front().is_none());
    }
}
