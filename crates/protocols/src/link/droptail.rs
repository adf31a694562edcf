//! DropTail: accept every packet; the engine drops at the buffer limit.
//!
//! Provenance: the FIFO tail-drop queue every seed paper uses as its baseline
//! (e.g. seed 002, benchmark B1). No parameters: the buffer limit is the link's.

use sim_core::{LazyRng, LinkAlgorithm, LinkView, Packet, Verdict};

/// Tail drop (the engine enforces the limit and counts overflow drops).
#[derive(Copy, Clone, Debug, Default)]
pub struct DropTail;

impl LinkAlgorithm for DropTail {
    #[inline]
    fn on_arrival(&mut self, _pkt: &mut Packet, _view: &LinkView, _rng: &mut LazyRng) -> Verdict {
        Verdict::Enqueue
    }

    fn judges_arrivals(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::*;

    #[test]
    fn droptail_accepts_everything_it_is_offered() {
        let view = LinkView {
            backlog_pkts: 1_000_000,
            backlog_bytes: 1 << 40,
            limit: BufferLimit::Packets(1),
            ..LinkView::idle(SimTime::ZERO, Rate::from_bps(1))
        };
        let mut pkt = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1500, SimTime::ZERO);
        let mut rng = LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0);
        assert_eq!(
            DropTail.on_arrival(&mut pkt, &view, &mut rng),
            Verdict::Enqueue
        );
    }
}
