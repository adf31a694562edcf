//! Optional packet-level tracing: every queue and wire event of every packet,
//! for debugging, for tests of the engine's invariants and for `netsim run
//! --trace`. Off by default; when off, the cost is one predictable branch per
//! traced event (the tracer slot is `None` for the whole run).

use crate::ids::LinkId;
use crate::link::Reason;
use crate::packet::Packet;
use crate::units::SimTime;

/// What happened to a packet at a link.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// Accepted into the queue (or straight to the idle serializer).
    Enqueue,
    /// Dropped at the queue or on the wire. A wire loss is reported right
    /// after the packet's `Depart`, at the instant its transmission starts.
    Drop(Reason),
    /// Marked CE at the queue: on arrival, or as it left the queue (a
    /// departure marker; its `Depart` event follows).
    Mark(Reason),
    /// Left the queue and *started* serialization (the end of its
    /// transmission is this time plus size / capacity).
    Depart,
    /// Reached the far end of the link (transmission end plus propagation delay).
    Arrive,
    /// Handed to its endpoint (the receiver for data, the sender for ACKs)
    /// at the far end of the route's last link, at the instant of its `Arrive`
    /// there; `link` is that last link.
    Deliver,
}

/// Receives trace events.
pub trait Tracer: Send {
    /// `pkt` had `kind` happen at link `link` at time `now`.
    fn on_event(&mut self, now: SimTime, link: LinkId, kind: TraceKind, pkt: &Packet);

    /// The run reached its configured end at `now` (not called when a run
    /// stops early or panics): a tracer that writes a file completes it
    /// here, so a trace without this call is known to be incomplete.
    fn on_end(&mut self, _now: SimTime) {}
}
