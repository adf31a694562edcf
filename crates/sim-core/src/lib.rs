//! # sim-core: the netsim engine
//!
//! A discrete-event engine for packet networks. It names no algorithm: it defines
//! the plug-in traits ([`LinkAlgorithm`], [`Endpoint`], [`Controller`]) that the
//! `protocols` crate implements, and owns everything else: time, ids, packets,
//! events, links with their queues and pipes, flows, counters and traces.
//!
//! ## Layers
//! - [`units`]: integer picosecond time, bytes, bit rates, unit-string parsing.
//! - [`ids`], [`packet`]: `u32` arena ids; the `Copy` packet and its congestion header.
//! - [`event`]: the event queue and lazily re-armed timers.
//! - [`link`], [`endpoint`]: the plug-in traits and the engine-owned link counters.
//! - [`sim`]: the arenas and the event loop; [`report`]: what a run produces.
//! - [`rng`]: per-component random streams.
//! - [`trace`]: the optional per-packet [`Tracer`] (enqueue, drop, mark,
//!   depart, arrive, deliver), off by default at the cost of one branch.
//!
//! ## The life of one packet
//! An endpoint hook calls [`EndpointCtx::send`]. The engine stamps the flow and
//! route and offers the packet to the first link of the route: the link algorithm
//! decides (enqueue / mark / drop), the engine enforces the buffer limit, and either
//! starts serializing at once (idle link: no event) or queues it behind a single
//! pending `LinkTxDone` event. As a packet starts serializing, an algorithm that
//! asks for it may stamp its header or mark it (set CE). A serialized packet
//! enters the link's FIFO propagation pipe, of which only the head has an event
//! (`LinkArrive`). On arrival the hop index advances and the packet is offered to
//! the next link, or handed to the flow's receiver (data route) or sender
//! (reverse route). A flow with a
//! [`FlowSpec::host_delay`] first holds each packet its endpoints send in a FIFO
//! delay line (one `EndpointRelease` event for its head) before the first link.
//!
//! ## Ordering guarantees
//! Events run in non-decreasing simulated time; events at the same instant run in
//! the order they were scheduled. Packets on one link leave in arrival order (FIFO)
//! and reach the far end in that order. Timers are never cancelled: a stale timer
//! event is recognised by its generation and skipped. Each component draws from its
//! own random stream, so the same seed gives bit-identical results on any thread
//! count, and adding a flow never changes an unrelated link's draws.
#![forbid(unsafe_code)]

pub mod config;
pub mod endpoint;
pub mod event;
pub mod ids;
pub mod link;
pub mod packet;
pub mod report;
pub mod rng;
pub mod sim;
pub mod trace;
pub mod units;

pub use config::{check_range, fmt_num, ParamError};
pub use endpoint::{
    AckInfo, Congestion, Controller, EcnFeedback, Endpoint, EndpointCtx, FlowCounters, Harness,
    Probe,
};
pub use event::{Event, EventQueue, TimerSlot};
pub use ids::{EndpointId, FlowId, GroupId, LinkId, NodeId, RouteId};
pub use link::{
    BufferLimit, Count, LinkAlgorithm, LinkControl, LinkCounters, LinkSpec, LinkStats, LinkView,
    Reason, ReasonCounts, Verdict,
};
pub use packet::{
    CcHeader, Combine, Ecn, Flags, HeaderFamily, JetMaxHeader, MkcHeader, Packet, PacketKind,
    PriceHeader, RateHeader, SackBlocks, TfrcData, TfrcFeedback, WindowHeader,
};
pub use report::{
    FlowReport, LinkReport, ObjectReport, Overload, PageReport, RunOutput, SeriesPoint,
    SeriesSelect, Subject,
};
pub use rng::{stream, LazyRng, SimRng, StreamKind};
pub use sim::{FlowFactory, FlowSpec, SimConfig, Simulator, MAX_PACKETS_HELD};
pub use trace::{TraceKind, Tracer};
pub use units::{
    parse_bytes, parse_duration, parse_rate, Bytes, Rate, SimDuration, SimTime, PS_PER_SEC,
};
