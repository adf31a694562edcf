//! The simulator: arenas of links, routes, flows and endpoints, and the event loop.
//!
//! Build-time API ([`Simulator::add_link`], [`Simulator::add_route`],
//! [`Simulator::add_flow`], [`Simulator::add_group`]) is called by the topology
//! crate after it has validated a scenario; [`Simulator::run`] then cannot fail.
//! A broken engine invariant inside a run is a bug and panics naming the invariant.

use std::collections::VecDeque;

use rand::Rng;

use crate::endpoint::{Closed, Endpoint, EndpointCtx, FlowCounters, RngRef};
use crate::event::{Event, EventQueue, TimerSlot};
use crate::ids::{EndpointId, FlowId, GroupId, LinkId, RouteId};
use crate::link::{
    BufferLimit, Count, LinkAlgorithm, LinkControl, LinkCounters, LinkSpec, LinkStats, LinkView,
    Reason, ReasonCounts, Verdict,
};
use crate::packet::{Ecn, Packet, PacketKind};
use crate::report::{
    FlowReport, LinkReport, Overload, RunOutput, SeriesPoint, SeriesSelect, Subject,
};
use crate::rng::{stream, LazyRng, SimRng, StreamKind};
use crate::trace::{TraceKind, Tracer};
use crate::units::{Rate, SimDuration, SimTime};

mod changes;
mod closing;
mod groups;
mod host_delay;
mod measure;
mod pipe;
mod setup;
mod slots;

pub use changes::{LinkChange, LinkSetting};
use host_delay::DelayLine;
use pipe::Pipe;
pub use slots::MAX_PACKETS_HELD;
use slots::{Fifo, SlotId, Slots};

/// Run-wide settings.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Master seed of the scenario.
    pub seed: u64,
    /// Replication index (selects independent random streams).
    pub replication: u32,
    /// Measurement starts here; counters before it are discarded.
    pub warmup: SimDuration,
    /// The run ends here (absolute simulated time).
    pub end: SimDuration,
    /// Sampling interval of time series, if any are requested.
    pub sample_interval: Option<SimDuration>,
    /// Which time series to record.
    pub series: SeriesSelect,
}

/// Everything needed to start a flow.
pub struct FlowSpec {
    /// The group the flow belongs to.
    pub group: GroupId,
    /// The sending endpoint (data on `fwd`).
    pub sender: Box<dyn Endpoint>,
    /// The receiving endpoint (ACKs on `rev`).
    pub receiver: Box<dyn Endpoint>,
    /// Data route.
    pub fwd: RouteId,
    /// ACK route.
    pub rev: RouteId,
    /// Start time.
    pub start: SimTime,
    /// Stop time (no new data after it), if any.
    pub stop: Option<SimTime>,
    /// One-way delay every packet of either endpoint waits before the first
    /// link of its route: a propagation delay private to this flow, as if each
    /// host sat behind its own infinitely fast access wire of this delay (the
    /// flow's round-trip time grows by twice it). Per-flow random RTTs on shared
    /// links (seed 002 E6.1: RTT ~ U[40, 1040] ms on one dumbbell). Zero: no
    /// delay line, packets go straight to their first link.
    pub host_delay: SimDuration,
}

/// A flow group whose flows arrive over time (e.g. a Poisson arrival process).
///
/// The engine keeps one arrival pending per group: it asks
/// [`FlowFactory::next_arrival`] at the start and after each arrival. A
/// factory whose arrivals depend on its flows' completions (a closed-loop
/// web session requests its next page a think time after the last object
/// arrived) says so with [`FlowFactory::wants_completions`]: it is then told
/// of each of its flows' end ([`FlowFactory::flow_finished`]) and asked
/// again, so `next_arrival` returning `None` means only "none known now".
pub trait FlowFactory: Send {
    /// Time of the first or next arrival after `now`, or `None` when none is
    /// known (no more ever, unless the factory wants completions).
    fn next_arrival(&mut self, now: SimTime, rng: &mut SimRng) -> Option<SimTime>;
    /// Build the flow that arrives at `now`; the engine gives it the id `flow`.
    fn make(&mut self, now: SimTime, flow: FlowId, rng: &mut SimRng) -> FlowSpec;
    /// Whether [`FlowFactory::flow_finished`] is wanted (asked once, when the
    /// group is added). Default: no.
    fn wants_completions(&self) -> bool {
        false
    }
    /// Flow `flow`, made by this factory, declared itself finished at `now`
    /// (its sender saw all its data acknowledged). Called once per flow,
    /// only if [`FlowFactory::wants_completions`].
    fn flow_finished(&mut self, _flow: FlowId, _now: SimTime, _rng: &mut SimRng) {}
    /// The pages this factory's sessions completed, taken at the end of the
    /// run (web traffic). Default: none.
    fn take_pages(&mut self) -> Vec<crate::report::PageReport> {
        Vec::new()
    }
}

/// A link's run-time state: the fields a packet's visit touches, packed into
/// four cache lines (`repr(C)`, 64-byte aligned): the counters, the
/// serializer, and the heads of the queue's and the pipe's lists of packet
/// slots ([`Slots`], shared by all links; a packet stays in one slot from
/// its sender to its receiver), with the pipe's first arrival time; a boxed
/// cold part holds what only drops, marks, queueing, timers and reports
/// touch. In benchmark B1 at N = 1000 the 4000 access links are visited
/// rarely and at random, so each visit costs cache misses: fewer and
/// smaller places per visit is the speed-up. (The first packet on the wire
/// was once stored inline here, five lines, which saved a visit to the pool
/// per hop but cost two copies of the packet; moving slots instead of
/// copying packets made B1's loop 10-15 % faster at N = 10, 100 and 1000.)
#[repr(C, align(64))]
struct LinkState {
    /// The serializer is busy until then.
    busy_until: SimTime,
    /// Bytes waiting in `queue`.
    backlog_bytes: u64,
    /// Waiting packets with their enqueue time (in [`Simulator::slots`]).
    queue: Fifo,
    /// Packets propagating, with their arrival time at the far end (FIFO).
    pipe: Pipe,
    algo: Box<dyn LinkAlgorithm>,
    capacity: Rate,
    delay: SimDuration,
    loss: f64,
    limit: BufferLimit,
    /// Bytes dropped at the queue (all reasons but wire loss), for [`LinkView`].
    queue_dropped_bytes: u64,
    /// A `LinkTxDone` event for the queue's head is pending. (A stale one, left
    /// when an arrival at the same instant started the head first, may be
    /// pending too; it finds the serializer busy and does nothing.)
    txdone_armed: bool,
    /// The algorithm stamps departing packets ([`LinkAlgorithm::stamps_departures`]).
    stamps: bool,
    /// The algorithm judges arrivals ([`LinkAlgorithm::judges_arrivals`]).
    judges: bool,
    /// Serializing a packet takes the slower path of [`changes`]: a random
    /// loss draw (`loss > 0`), or FIFO-clamped arrivals after a delay decrease.
    slow: bool,
    /// `(size, serialization time)` of the last packet size serialized.
    tx_cache: (u32, SimDuration),
    /// Packets that reached the queue.
    arrived: Count,
    /// Packets accepted into the queue.
    enqueued: Count,
    /// Packets that left the queue for the serializer.
    departed: Count,
    /// Packets that reached the far end.
    delivered: Count,
    cold: Box<LinkCold>,
}

/// The parts of a link's state that a packet crossing an idle link never touches.
struct LinkCold {
    /// Drops per [`Reason`] (wire loss included).
    dropped: ReasonCounts,
    /// Marks per [`Reason`].
    marked: ReasonCounts,
    stats: LinkStats,
    algo_rng: LazyRng,
    loss_rng: LazyRng,
    timer: TimerSlot,
    last_sample_departed: u64,
    /// Arrived and dropped bytes at the last `link_rate` sample.
    last_sample_arrived: u64,
    last_sample_dropped: u64,
    spec: LinkSpec,
    /// Run-time changes' state ([`changes`]): the algorithm parked while down,
    /// packets cut when it went down, whether arrivals are FIFO-clamped.
    changed: changes::Changed,
}

impl LinkState {
    #[inline]
    fn view(&self, id: LinkId, now: SimTime) -> LinkView {
        LinkView {
            now,
            id,
            capacity: self.capacity,
            delay: self.delay,
            backlog_pkts: self.queue.len() as u32,
            backlog_bytes: self.backlog_bytes,
            limit: self.limit,
            arrived_bytes: self.arrived.bytes,
            departed_bytes: self.departed.bytes,
            dropped_bytes: self.queue_dropped_bytes,
            busy_until: self.busy_until,
        }
    }

    /// The cumulative counters, assembled from the hot and cold parts.
    fn counters(&self) -> LinkCounters {
        LinkCounters {
            arrived: self.arrived,
            enqueued: self.enqueued,
            departed: self.departed,
            delivered: self.delivered,
            dropped: self.cold.dropped.clone(),
            marked: self.cold.marked.clone(),
            cut_queued: self.cold.changed.cut_queued,
            cut_on_wire: self.cold.changed.cut_on_wire,
        }
    }

    /// Packets and bytes in the propagation pipe.
    fn in_pipe(&self, slots: &Slots) -> Count {
        let mut c = Count::default();
        for (_, p) in self.pipe.iter(slots) {
            c.add(p.size);
        }
        c
    }
}

struct FlowState {
    group: GroupId,
    sender: EndpointId,
    receiver: EndpointId,
    fwd: RouteId,
    rev: RouteId,
    start: SimTime,
    stop: Option<SimTime>,
    /// [`Endpoint::flow_size`] of its sender.
    size: Option<u64>,
    /// [`FlowSpec::host_delay`].
    host_delay: SimDuration,
    /// [`Endpoint::packet_size`] of its sender.
    packet_size: Option<u32>,
    /// [`Endpoint::rto_stats`] of its sender, taken when its endpoints were freed.
    rto: Option<Box<crate::RtoStats>>,
    counters: FlowCounters,
    baseline: FlowCounters,
    finished: Option<SimTime>,
    last_sample_rx: u64,
    /// The sender's rate integral (bits) at the previous sample that had one.
    last_sample_rate_bits: Option<(SimTime, f64)>,
    /// Packets of the flow handed to the network (or to a host delay line)
    /// and not yet delivered or dropped.
    in_flight: u32,
    /// Its endpoints were freed ([`Simulator::try_close`]).
    closed: bool,
    /// Its end was handled ([`Simulator::on_flow_finished`]).
    notified: bool,
}

struct EndpointSlot {
    ep: Box<dyn Endpoint>,
    rng: LazyRng,
    timer: TimerSlot,
    flow: FlowId,
    route: RouteId,
    /// The host delay line ([`FlowSpec::host_delay`]); `None` without one, so
    /// the flows that have none pay one branch per packet.
    line: Option<Box<DelayLine>>,
}

struct GroupState {
    factory: Box<dyn FlowFactory>,
    rng: SimRng,
    /// The time of the group's pending `GroupArrival` event, if any; an
    /// event at another time is stale (an earlier arrival, known after a
    /// completion, superseded it) and ignored.
    pending: Option<SimTime>,
    /// [`FlowFactory::wants_completions`].
    completions: bool,
}

/// The simulator for one replication of one scenario.
pub struct Simulator {
    cfg: SimConfig,
    queue: EventQueue,
    links: Vec<LinkState>,
    /// Every packet in the network, in link queues and pipes.
    slots: Slots,
    /// Link counters at the end of the warm-up (cold: kept apart from `links`).
    link_baselines: Vec<LinkCounters>,
    routes: Vec<Vec<LinkId>>,
    flows: Vec<FlowState>,
    endpoints: Vec<EndpointSlot>,
    groups: Vec<Option<GroupState>>,
    outbox: Vec<Packet>,
    events: u64,
    measuring: bool,
    series: Vec<SeriesPoint>,
    /// Application objects completed ([`EndpointCtx::object_done`]).
    objects: Vec<crate::report::ObjectReport>,
    /// Packets handed to the network by endpoints.
    injected: Count,
    /// Packets handed by the network to endpoints.
    absorbed: Count,
    tracer: Option<Box<dyn Tracer>>,
    /// Stop the run once the network has held more packets than this.
    packet_limit: usize,
    /// Keep the endpoints of finished flows ([`Simulator::keep_finished_flows`]).
    keep_finished: bool,
    /// Scheduled link changes, by the index their `LinkChange` event carries.
    changes: Vec<LinkChange>,
    /// The link changes applied so far, in order.
    change_log: Vec<crate::report::LinkChangeRecord>,
}

impl Simulator {
    #[inline]
    fn trace(&mut self, now: SimTime, l: LinkId, kind: TraceKind, pkt: &Packet) {
        if let Some(t) = &mut self.tracer {
            t.on_event(now, l, kind, pkt);
        }
    }

    /// Run to the configured end and report.
    pub fn run(self) -> RunOutput {
        self.run_observed(SimDuration::from_millis(100), &mut |_| {})
    }

    /// Run to the configured end, calling `observer` with the simulated time about
    /// every `every` of simulated time (for progress bars).
    pub fn run_observed(
        mut self,
        every: SimDuration,
        observer: &mut dyn FnMut(SimTime),
    ) -> RunOutput {
        let end = SimTime::ZERO + self.cfg.end;
        let warm = SimTime::ZERO + self.cfg.warmup;
        // The arenas are complete (flows from arrival processes only append):
        // give back the slack of their doubling growth.
        self.links.shrink_to_fit();
        self.endpoints.shrink_to_fit();
        self.flows.shrink_to_fit();
        self.routes.shrink_to_fit();
        if warm == SimTime::ZERO {
            self.on_warmup_end(SimTime::ZERO);
        } else {
            self.queue.schedule(warm, Event::WarmupEnd);
        }
        if self.cfg.sample_interval.is_some() && self.cfg.series.any() {
            self.queue.schedule(SimTime::ZERO, Event::Sample);
        }
        for i in 0..self.links.len() {
            let id = LinkId::from_index(i);
            let l = &mut self.links[i];
            let view = l.view(id, SimTime::ZERO);
            let mut ctl = LinkControl {
                next_timer: None,
                limit: l.limit,
            };
            l.algo.on_start(&view, &mut ctl);
            self.apply_link_control(id, ctl);
        }
        let mut next_report = SimTime::ZERO.saturating_add(every);
        while let Some((now, ev)) = self.queue.pop_until(end) {
            self.events += 1;
            self.touch_next();
            self.dispatch(now, ev);
            if now >= next_report {
                // Off the per-event path: an overloaded `unlimited` buffer is
                // stopped within one report interval of passing the limit.
                if self.slots.capacity() > self.packet_limit {
                    return self.overloaded(now);
                }
                observer(now);
                next_report = now.saturating_add(every);
            }
        }
        observer(end);
        self.finish(end)
    }

    /// Read what the next event will need, so that its cache misses overlap
    /// with this event's work (out-of-order execution; no unsafe prefetch).
    #[inline(always)]
    fn touch_next(&self) {
        match self.queue.peek_front() {
            Some(Event::LinkArrive(n)) => {
                // The packet's slot, and the state of the link it enters.
                let l = &self.links[n.index()];
                if let Some(to) = l.pipe.front_to(&self.slots) {
                    std::hint::black_box(self.links[to.index()].busy_until);
                }
            }
            Some(Event::LinkTxDone(n)) => {
                let l = &self.links[n.index()];
                self.slots.touch_front(&l.queue);
            }
            _ => {}
        }
    }

    #[inline(always)]
    fn dispatch(&mut self, now: SimTime, ev: Event) {
        match ev {
            Event::LinkArrive(l) => self.on_link_arrive(now, l),
            Event::LinkTxDone(l) => self.on_tx_done(now, l),
            Event::LinkTimer(l) => {
                let link = &mut self.links[l.index()];
                if link.cold.timer.fire(now) {
                    let view = link.view(l, now);
                    let mut ctl = LinkControl {
                        next_timer: None,
                        limit: link.limit,
                    };
                    link.algo_mut().on_timer(&view, &mut ctl);
                    self.apply_link_control(l, ctl);
                } else {
                    self.arm_link_timer(l);
                }
            }
            Event::EndpointTimer(e) => {
                if self.endpoints[e.index()].timer.fire(now) {
                    self.call_endpoint(now, e, |ep, ctx| ep.on_timer(ctx));
                } else {
                    self.arm_endpoint_timer(e);
                }
            }
            Event::EndpointStart(e) => self.call_endpoint(now, e, |ep, ctx| ep.on_start(ctx)),
            Event::EndpointStop(e) => self.call_endpoint(now, e, |ep, ctx| ep.on_stop(ctx)),
            Event::EndpointRelease(e) => self.on_release(now, e),
            Event::GroupArrival(g) => self.on_group_arrival(now, g),
            Event::LinkChange(i) => self.on_link_change(now, i),
            Event::Sample => self.on_sample(now),
            Event::WarmupEnd => self.on_warmup_end(now),
        }
    }

    fn apply_link_control(&mut self, l: LinkId, ctl: LinkControl) {
        let link = &mut self.links[l.index()];
        link.limit = ctl.limit;
        link.cold.timer.deadline = ctl.next_timer;
        self.arm_link_timer(l);
    }

    fn arm_link_timer(&mut self, l: LinkId) {
        if let Some(t) = self.links[l.index()].cold.timer.arm() {
            self.queue.schedule(t, Event::LinkTimer(l));
        }
    }

    fn arm_endpoint_timer(&mut self, e: EndpointId) {
        if let Some(t) = self.endpoints[e.index()].timer.arm() {
            self.queue.schedule(t, Event::EndpointTimer(e));
        }
    }

    /// Call one endpoint hook, then inject what it sent and re-arm its timer.
    #[inline]
    fn call_endpoint(
        &mut self,
        now: SimTime,
        e: EndpointId,
        f: impl FnOnce(&mut dyn Endpoint, &mut EndpointCtx),
    ) {
        let mut out = std::mem::take(&mut self.outbox);
        let slot = &mut self.endpoints[e.index()];
        let flow = &mut self.flows[slot.flow.index()];
        let mut ctx = EndpointCtx {
            now,
            flow: slot.flow,
            out: &mut out,
            deadline: &mut slot.timer.deadline,
            rng: RngRef::Lazy(&mut slot.rng),
            counters: &mut flow.counters,
            finished: &mut flow.finished,
            group: flow.group,
            objects: &mut self.objects,
        };
        f(slot.ep.as_mut(), &mut ctx);
        let (fid, route) = (slot.flow, slot.route);
        self.arm_endpoint_timer(e);
        // By reference, not `out.drain(..)`, whose `Option<Packet>` copies
        // the packet in overlapping moves that the next copy reads across
        // (see `Slots::pop`).
        for p in &out {
            self.flows[fid.index()].in_flight += 1;
            if p.kind == PacketKind::Data {
                let c = &mut self.flows[fid.index()].counters;
                c.sent_pkts += 1;
                c.sent_bytes += u64::from(p.size);
                if p.flags.contains(crate::packet::Flags::RETX) {
                    c.retx_pkts += 1;
                    c.retx_bytes += u64::from(p.size);
                }
            }
            if let Some(line) = &mut self.endpoints[e.index()].line {
                // Behind the host delay: the packet enters the network (and
                // counts as injected) when it is released.
                let due = now + line.delay;
                if line.queue.is_empty() {
                    self.queue.schedule(due, Event::EndpointRelease(e));
                }
                let mut pkt = *p;
                (pkt.flow, pkt.route, pkt.hop) = (fid, route, 0);
                line.queue.push_back((due, pkt));
                continue;
            }
            self.injected.add(p.size);
            let first = self.routes[route.index()][0];
            // Copied once, straight into its slot; the identity is written
            // there after the copy (written before it, into a copy on the
            // stack, the copy's wide loads would span the narrow stores).
            let i = self.slots.alloc(*p);
            let pkt = self.slots.pkt_mut(i);
            (pkt.flow, pkt.route, pkt.hop) = (fid, route, 0);
            self.link_enqueue(now, first, i);
        }
        out.clear();
        self.outbox = out;
        if self.flows[fid.index()].finished.is_some() {
            self.on_flow_finished(now, fid);
            self.try_close(now, fid);
        }
    }

    /// The packet in slot `i` (in no list) arrives at link `l`'s queue.
    #[inline]
    fn link_enqueue(&mut self, now: SimTime, l: LinkId, i: SlotId) {
        // Departures before arrivals at one instant: a transmission that ends
        // now hands the serializer to the head of the queue before this packet
        // sees the queue, whichever of the two events was scheduled first
        // (events at one instant run in scheduling order). Its own event, still
        // pending, then finds the serializer busy and does nothing.
        let link = &self.links[l.index()];
        if link.busy_until <= now && !link.queue.is_empty() {
            self.on_tx_done(now, l);
        }
        let link = &mut self.links[l.index()];
        let pkt = self.slots.pkt_mut(i);
        link.arrived.add(pkt.size);
        let verdict = if link.judges {
            let view = link.view(l, now);
            link.algo.on_arrival(pkt, &view, &mut link.cold.algo_rng)
        } else {
            Verdict::Enqueue
        };
        let drop = match verdict {
            Verdict::Enqueue => None,
            Verdict::Mark(r) if pkt.ecn.is_capable() => {
                pkt.ecn = Ecn::Ce;
                link.cold.marked.add(r, pkt.size);
                if let Some(t) = &mut self.tracer {
                    t.on_event(now, l, TraceKind::Mark(r), pkt);
                }
                None
            }
            Verdict::Mark(r) | Verdict::Drop(r) => Some(r),
        };
        let drop = drop.or_else(|| {
            link.limit
                .would_overflow(link.queue.len() as u32, link.backlog_bytes, pkt.size)
                .then_some(Reason::Overflow)
        });
        let size = pkt.size;
        if let Some(r) = drop {
            link.cold.dropped.add(r, size);
            link.queue_dropped_bytes += u64::from(size);
            let pkt = self.slots.take(i);
            self.trace(now, l, TraceKind::Drop(r), &pkt);
            self.packet_lost(now, pkt.flow);
            return;
        }
        link.enqueued.add(size);
        if let Some(t) = &mut self.tracer {
            t.on_event(now, l, TraceKind::Enqueue, pkt);
        }
        if link.queue.is_empty() && link.busy_until <= now {
            // Idle link: straight to the serializer, no queueing. Its zero
            // queueing delay is a sample all the same: `finish` counts the samples
            // as the departures in the window, so this path touches no statistics.
            self.start_tx(now, l, i);
            return;
        }
        if self.measuring {
            link.cold
                .stats
                .advance(now, link.queue.len() as u32, link.backlog_bytes);
        }
        self.slots.push(&mut link.queue, i, now);
        link.backlog_bytes += u64::from(size);
        if self.measuring {
            link.cold
                .stats
                .observe_max(link.queue.len() as u32, link.backlog_bytes);
        }
        if !link.txdone_armed {
            link.txdone_armed = true;
            let t = link.busy_until;
            self.queue.schedule(t, Event::LinkTxDone(l));
        }
    }

    /// Start serializing the packet in slot `i` (in no list) on idle link `l`.
    #[inline(always)]
    fn start_tx(&mut self, now: SimTime, l: LinkId, i: SlotId) {
        let link = &mut self.links[l.index()];
        debug_assert!(link.busy_until <= now, "serializer double-booked");
        let pkt = self.slots.pkt_mut(i);
        link.departed.add(pkt.size);
        if link.stamps {
            let view = link.view(l, now);
            let algo_rng = &mut link.cold.algo_rng;
            if let Some(r) = link.algo.on_departure(pkt, &view, algo_rng) {
                debug_assert_eq!(pkt.ecn, Ecn::Ce, "a departure mark must set CE");
                link.cold.marked.add(r, pkt.size);
                if let Some(t) = &mut self.tracer {
                    t.on_event(now, l, TraceKind::Mark(r), pkt);
                }
            }
        }
        // Serialization time, cached for the last size seen: a link mostly carries
        // one packet size, and this saves a 64-bit division per hop.
        if pkt.size != link.tx_cache.0 {
            let t = link
                .capacity
                .tx_time(crate::units::Bytes::new(u64::from(pkt.size)));
            link.tx_cache = (pkt.size, t);
        }
        let done = now + link.tx_cache.1;
        link.busy_until = done;
        let mut arrive = done + link.delay;
        let mut lost = false;
        if link.slow {
            // One branch, as the `loss > 0` test it replaces (`LinkState::slow`).
            (lost, arrive) = link.slow_tx(arrive, &self.slots);
        }
        if lost {
            link.cold
                .dropped
                .add(Reason::WireLoss, self.slots.pkt(i).size);
        }
        if let Some(t) = &mut self.tracer {
            let pkt = self.slots.pkt(i);
            t.on_event(now, l, TraceKind::Depart, pkt);
            if lost {
                t.on_event(now, l, TraceKind::Drop(Reason::WireLoss), pkt);
            }
        }
        if lost {
            let flow = self.slots.take(i).flow;
            self.packet_lost(now, flow);
            return;
        }
        let link = &mut self.links[l.index()];
        let was_empty = link.pipe.is_empty();
        // A packet on the wire already carries the index of its next link
        // (`on_link_arrive`).
        let pkt = self.slots.pkt_mut(i);
        pkt.hop += 1;
        let to = self.routes[pkt.route.index()]
            .get(usize::from(pkt.hop))
            .copied();
        self.slots.set_to(i, to);
        link.pipe.push_back(&mut self.slots, arrive, i);
        if was_empty {
            self.queue.schedule(arrive, Event::LinkArrive(l));
        }
    }

    fn on_tx_done(&mut self, now: SimTime, l: LinkId) {
        let measuring = self.measuring;
        let link = &mut self.links[l.index()];
        if link.busy_until > now {
            // Stale: an arrival at this instant already started the head
            // (`link_enqueue`), and the next end of transmission, if anything
            // waits, has its own event.
            return;
        }
        link.txdone_armed = false;
        if measuring {
            link.cold
                .stats
                .advance(now, link.queue.len() as u32, link.backlog_bytes);
        }
        if link.queue.is_empty() {
            return;
        }
        let i = self.slots.pop(&mut link.queue);
        link.backlog_bytes -= u64::from(self.slots.pkt(i).size);
        if measuring {
            link.cold.stats.record_qdelay(now - self.slots.time(i));
        }
        self.start_tx(now, l, i);
        let link = &mut self.links[l.index()];
        if !link.queue.is_empty() {
            link.txdone_armed = true;
            let t = link.busy_until;
            self.queue.schedule(t, Event::LinkTxDone(l));
        }
    }

    fn on_link_arrive(&mut self, now: SimTime, l: LinkId) {
        let link = &mut self.links[l.index()];
        if link.pipe.head_at() != now {
            // Stale: the link went down and dropped what was on its wire
            // (`changes`). This test replaces the pop's emptiness check.
            return;
        }
        let i = link.pipe.pop_front(&mut self.slots);
        let pkt = self.slots.pkt(i);
        link.delivered.add(pkt.size);
        if let Some(next) = link.pipe.front_at() {
            self.queue.schedule(next, Event::LinkArrive(l));
        }
        if let Some(t) = &mut self.tracer {
            // The tracer sees the packet on the link it arrives from.
            let mut p = *pkt;
            p.hop -= 1;
            t.on_event(now, l, TraceKind::Arrive, &p);
        }
        // Its next link was found when it left the serializer (`start_tx`).
        if let Some(next) = self.slots.to(i) {
            self.link_enqueue(now, next, i);
        } else {
            let pkt = self.slots.take(i);
            self.deliver(now, l, pkt);
        }
    }

    /// A packet reached the end of its route, link `l`: hand it to its endpoint.
    fn deliver(&mut self, now: SimTime, l: LinkId, pkt: Packet) {
        if let Some(t) = &mut self.tracer {
            // The trace gives the hop of the link it names, the last one;
            // the endpoint gets the packet past it.
            let mut at = pkt;
            at.hop -= 1;
            t.on_event(now, l, TraceKind::Deliver, &at);
        }
        self.absorbed.add(pkt.size);
        let flow = &mut self.flows[pkt.flow.index()];
        flow.in_flight -= 1;
        let dst = if pkt.route == flow.fwd {
            if pkt.kind == PacketKind::Data {
                flow.counters.rx_pkts += 1;
                flow.counters.rx_bytes += u64::from(pkt.size);
                flow.counters.ce_pkts += u64::from(pkt.ecn == Ecn::Ce);
            }
            flow.receiver
        } else {
            flow.sender
        };
        self.call_endpoint(now, dst, |ep, ctx| ep.on_packet(pkt, ctx));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_links_hot_state_fits_four_cache_lines() {
        // What a packet crossing an idle link touches (see `LinkState`): the
        // counters, the serializer, the queue and pipe lists.
        let size = std::mem::size_of::<super::LinkState>();
        assert!(size <= 256, "{size}");
        assert_eq!(std::mem::align_of::<super::LinkState>(), 64);
    }
}
