//! Fixtures shared by the engine's integration tests: a link that accepts
//! everything, a burst source, the run configuration and a link builder.
//! Each test binary uses a subset.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use sim_core::*;

/// `(sequence or ack number, time)` pairs recorded by an endpoint.
pub type Log = Arc<Mutex<Vec<(u64, SimTime)>>>;

/// Accepts everything (the engine enforces the buffer limit).
pub struct Accept;
impl LinkAlgorithm for Accept {
    fn on_arrival(&mut self, _: &mut Packet, _: &LinkView, _: &mut LazyRng) -> Verdict {
        Verdict::Enqueue
    }
}

/// Sends `n` packets of `size` bytes at its start time; records the ACKs
/// that come back in `acks`, if given.
pub struct Burst {
    pub n: u32,
    pub size: u32,
    pub acks: Option<Log>,
}
impl Endpoint for Burst {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        for i in 0..self.n {
            let mut p = Packet::new(
                ctx.flow(),
                RouteId(0),
                PacketKind::Data,
                self.size,
                ctx.now(),
            );
            p.seq = u64::from(i);
            ctx.send(p);
        }
    }
    fn on_packet(&mut self, p: Packet, ctx: &mut EndpointCtx) {
        if let Some(acks) = &self.acks {
            acks.lock().unwrap().push((p.ack, ctx.now()));
        }
    }
}

/// Seed 1, replication 0, no warm-up or sampling, ending at `end`.
pub fn config(end: SimDuration) -> SimConfig {
    SimConfig {
        seed: 1,
        replication: 0,
        warmup: SimDuration::ZERO,
        end,
        sample_interval: None,
        series: SeriesSelect::default(),
    }
}

/// A link `from -> to` of `mbps` Mb/s and `ms` ms with an [`Accept`] queue.
pub fn link(
    sim: &mut Simulator,
    from: u32,
    to: u32,
    mbps: u64,
    ms: u64,
    limit: BufferLimit,
    loss: f64,
) -> LinkId {
    sim.add_link(
        LinkSpec {
            name: format!("{from}->{to}"),
            from: NodeId(from),
            to: NodeId(to),
            capacity: Rate::from_bps(mbps * 1_000_000),
            delay: SimDuration::from_millis(ms),
            limit,
            loss,
        },
        Box::new(Accept),
    )
}
