//! Optional packet-level tracing: every queue and wire event of every packet,
//! for debugging and for tests of the engine's invariants. Off by default; when
//! off, the cost is one branch per hop.

use crate::ids::LinkId;
use crate::link::Reason;
use crate::packet::Packet;
use crate::units::SimTime;

/// What happened to a packet at a link.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// Accepted into the queue (or straight to the idle serializer).
    Enqueue,
    /// Dropped at the queue or on the wire.
    Drop(Reason),
    /// Marked CE at the queue: on arrival, or as it left the queue (a
    /// departure marker; its `Depart` event follows).
    Mark(Reason),
    /// Left the queue and started serialization.
    Depart,
    /// Reached the far end of the link.
    Arrive,
}

/// Receives trace events.
pub trait Tracer: Send {
    /// `pkt` had `kind` happen at link `link` at time `now`.
    fn on_event(&mut self, now: SimTime, link: LinkId, kind: TraceKind, pkt: &Packet);
}
