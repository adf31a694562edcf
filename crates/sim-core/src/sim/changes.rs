//! Link changes at run time: a schedule that sets a link's loss probability,
//! capacity, propagation delay or state (up / down) at given instants, each
//! applied by its own event ([`Event::LinkChange`]) and logged for the
//! `link_changes` table ([`crate::report::LinkChangeRecord`]).
//!
//! Issue 59 ("Link changes at run time"), for seed 004's E16 (the
//! bottleneck's random loss switched from 1 % to 10 % for 10 s or 50 s,
//! several times). The semantics, chosen here and documented in the README:
//!
//! - **Order.** Changes are scheduled when the network is built, so a change
//!   at `t` takes effect before every packet event at `t` (those are scheduled
//!   during the run; events at one instant run in scheduling order) and before
//!   the sample taken at `t`. Changes at one instant apply in schedule order.
//! - **Capacity** applies from the next packet to start serialization; the
//!   packet being serialized finishes at the old rate. This is ns-3's
//!   `PointToPointNetDevice::SetDataRate` and ns-2's `LinkDelay` (the rate is
//!   read when a transmission starts), and it keeps the serializer's single
//!   pending event valid. The link algorithm is told
//!   ([`LinkAlgorithm::on_capacity_change`]).
//! - **Delay** applies to the packets that start serialization after the
//!   change; those already on the wire keep theirs. The wire stays FIFO: after
//!   a decrease, a packet arrives at `max(its own arrival, the arrival of the
//!   packet ahead of it)`, so packets bunch up behind the last slow one
//!   instead of overtaking it (a real wire, and ns-2's `LinkDelay`, never
//!   reorder; this engine's pipe schedules only its head and relies on it).
//! - **Loss** applies from the next packet to start serialization (the
//!   Bernoulli draw is made then, from the link's own loss stream).
//! - **Down**: the packets the link holds are dropped at once, those waiting
//!   in its queue and those on its wire (the one serializing included), as
//!   ns-2's dynamic links drop the packets in transit on a link that goes
//!   down; packets that arrive while it is down are dropped at the queue
//!   before its algorithm sees them. All count under reason `link_down`
//!   (`LinkCounters::cut_queued` / `cut_on_wire` tell the held ones apart).
//!   The algorithm's timers keep running (it sees an empty, idle link).
//!   **Up**: the link takes packets again, with the capacity, delay and loss
//!   in force (changed while down or not). Routing is static: a flow whose
//!   route crosses a down link loses its packets there; nothing reroutes.
//!
//! **Cost.** None on the per-packet path of a link without changes: the
//! serializer's test of `LinkState::slow` replaces its test of `loss > 0`
//! (a link takes the slower path only with random loss, as before, or after a
//! delay decrease), the arrival handler's check that its event is not stale
//! replaces the pipe's emptiness check, and a down link drops arrivals
//! through the existing link-algorithm branch (its algorithm is parked and a
//! drop-everything one stands in).

use super::*;
use crate::report::LinkChangeRecord;

/// What a link change sets.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum LinkSetting {
    /// Bernoulli loss probability per packet on the wire, in [0, 1).
    Loss(f64),
    /// Serialization rate (> 0).
    Capacity(Rate),
    /// One-way propagation delay.
    Delay(SimDuration),
    /// Up (`true`) or down (`false`).
    Up(bool),
}

/// One scheduled change.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LinkChange {
    /// When it takes effect.
    pub at: SimTime,
    /// The link it changes.
    pub link: LinkId,
    /// What it sets.
    pub set: LinkSetting,
}

/// A link's run-time change state (in its cold part).
#[derive(Default)]
pub(super) struct Changed {
    /// The link's own algorithm while it is down (a [`Down`] stands in).
    parked: Option<Box<dyn LinkAlgorithm>>,
    /// Packets in the queue when the link went down.
    pub(super) cut_queued: Count,
    /// Packets on the wire when the link went down.
    pub(super) cut_on_wire: Count,
    /// The delay decreased once: arrivals are clamped to the wire's tail.
    clamp: bool,
    /// A change is scheduled for the link: the `link_rate` series gets its
    /// settings in force ([`LinkState::settings_series`]).
    pub(super) scheduled: bool,
}

/// The algorithm of a down link: every arrival is dropped.
struct Down;

impl LinkAlgorithm for Down {
    fn on_arrival(&mut self, _: &mut Packet, _: &LinkView, _: &mut LazyRng) -> Verdict {
        Verdict::Drop(Reason::LinkDown)
    }
}

impl LinkState {
    /// The link's own algorithm, parked or not.
    pub(super) fn algo_mut(&mut self) -> &mut dyn LinkAlgorithm {
        match self.cold.changed.parked.as_mut() {
            Some(a) => a.as_mut(),
            None => self.algo.as_mut(),
        }
    }

    /// The link's own algorithm, parked or not.
    pub(super) fn algo_ref(&self) -> &dyn LinkAlgorithm {
        self.cold.changed.parked.as_deref().unwrap_or(&*self.algo)
    }

    /// The settings in force, for the `link_rate` series of a link with a
    /// change schedule: `capacity_bps` (0 while down), `loss_prob`, `delay_s`.
    pub(super) fn settings_series(&self) -> [(&'static str, f64); 3] {
        let up = self.cold.changed.parked.is_none();
        [
            (
                "capacity_bps",
                if up { self.capacity.bps_f64() } else { 0.0 },
            ),
            ("loss_prob", self.loss),
            ("delay_s", self.delay.as_secs_f64()),
        ]
    }

    /// The slower part of starting a transmission ([`LinkState::slow`]):
    /// clamp the arrival time `arrive` to the wire's tail after a delay
    /// decrease, and draw the random loss. Returns whether the packet is
    /// lost, and its arrival time.
    #[inline(never)]
    pub(super) fn slow_tx(&mut self, mut arrive: SimTime, slots: &Slots) -> (bool, SimTime) {
        if self.cold.changed.clamp {
            if let Some(back) = self.pipe.back_at(slots) {
                arrive = arrive.max(back);
            }
        }
        let lost = self.loss > 0.0 && self.cold.loss_rng.get().random::<f64>() < self.loss;
        (lost, arrive)
    }
}

impl Simulator {
    /// Change link `link` at `at` (a build-time call: `at` must not be in the
    /// past). The topology layer validates the values (a capacity > 0, a loss
    /// in [0, 1), an algorithm that follows capacity changes).
    pub fn schedule_link_change(&mut self, at: SimTime, link: LinkId, set: LinkSetting) {
        let i = u32::try_from(self.changes.len()).expect("more than 2^32 link changes");
        self.changes.push(LinkChange { at, link, set });
        self.links[link.index()].cold.changed.scheduled = true;
        self.queue.schedule(at, Event::LinkChange(i));
    }

    /// Apply change `i` (kept out of line: inlined, it made the event
    /// dispatch too big to inline into the event loop, +3 % instructions on
    /// benchmark B1 at N = 10 under cachegrind).
    #[cold]
    #[inline(never)]
    pub(super) fn on_link_change(&mut self, now: SimTime, i: u32) {
        let LinkChange { link: l, set, .. } = self.changes[i as usize];
        let link = &mut self.links[l.index()];
        let up = link.cold.changed.parked.is_none();
        let (quantity, old, new, mut dropped) = match set {
            LinkSetting::Loss(p) => {
                let old = link.loss;
                link.loss = p;
                link.slow = p > 0.0 || link.cold.changed.clamp;
                ("loss", old, p, 0)
            }
            LinkSetting::Capacity(c) => {
                let old = link.capacity;
                link.capacity = c;
                link.tx_cache = (0, SimDuration::ZERO);
                let view = link.view(l, now);
                link.algo_mut().on_capacity_change(&view);
                ("capacity_bps", old.bps_f64(), c.bps_f64(), 0)
            }
            LinkSetting::Delay(d) => {
                let old = link.delay;
                if d < old {
                    link.cold.changed.clamp = true;
                    link.slow = true;
                }
                link.delay = d;
                ("delay_s", old.as_secs_f64(), d.as_secs_f64(), 0)
            }
            LinkSetting::Up(to) => ("up", f64::from(u8::from(up)), f64::from(u8::from(to)), 0),
        };
        match set {
            LinkSetting::Up(false) if up => dropped = self.take_down(now, l),
            LinkSetting::Up(true) if !up => {
                let link = &mut self.links[l.index()];
                let algo = link
                    .cold
                    .changed
                    .parked
                    .take()
                    .expect("a down link parks its algorithm");
                link.judges = algo.judges_arrivals();
                link.stamps = algo.stamps_departures();
                link.algo = algo;
            }
            _ => {}
        }
        self.change_log.push(LinkChangeRecord {
            time_secs: now.as_secs_f64(),
            link: l,
            quantity,
            old,
            new,
            dropped_pkts: dropped,
        });
    }

    /// Take link `l` down: park its algorithm behind [`Down`] and drop what
    /// it holds. Returns the packets dropped.
    fn take_down(&mut self, now: SimTime, l: LinkId) -> u64 {
        let measuring = self.measuring;
        let link = &mut self.links[l.index()];
        if measuring {
            link.cold
                .stats
                .advance(now, link.queue.len() as u32, link.backlog_bytes);
        }
        let algo = std::mem::replace(&mut link.algo, Box::new(Down));
        link.cold.changed.parked = Some(algo);
        link.judges = true;
        link.stamps = false;
        let mut cut = Vec::new();
        while !link.queue.is_empty() {
            let i = self.slots.pop(&mut link.queue);
            let p = self.slots.take(i);
            link.backlog_bytes -= u64::from(p.size);
            link.queue_dropped_bytes += u64::from(p.size);
            link.cold.changed.cut_queued.add(p.size);
            cut.push(p);
        }
        while !link.pipe.is_empty() {
            let i = link.pipe.pop_front(&mut self.slots);
            let mut p = self.slots.take(i);
            link.cold.changed.cut_on_wire.add(p.size);
            // On the wire a packet already names its next hop.
            p.hop -= 1;
            cut.push(p);
        }
        // The serializer is free (its packet was on the wire); a pending
        // `LinkTxDone` or `LinkArrive` of the link is stale from now on.
        link.busy_until = link.busy_until.min(now);
        link.txdone_armed = false;
        for p in &cut {
            link.cold.dropped.add(Reason::LinkDown, p.size);
        }
        for p in &cut {
            self.trace(now, l, TraceKind::Drop(Reason::LinkDown), p);
            self.packet_lost(now, p.flow);
        }
        cut.len() as u64
    }

    /// Links whose capacity or state changed: their time-weighted mean
    /// capacity over `[warm, end]`, bits/s, with the time they were down
    /// counted at zero.
    pub(super) fn mean_capacities(&self, warm: SimTime, end: SimTime) -> Vec<(LinkId, f64)> {
        // Per link: (since, capacity bps, up, integral in bit-seconds).
        let mut acc: std::collections::BTreeMap<u32, (f64, f64, bool, f64)> = Default::default();
        let (w, e) = (warm.as_secs_f64(), end.as_secs_f64());
        for r in &self.change_log {
            if !matches!(r.quantity, "capacity_bps" | "up") {
                continue;
            }
            let cap = self.links[r.link.index()].cold.spec.capacity.bps_f64();
            let a = acc.entry(r.link.0).or_insert((w, cap, true, 0.0));
            let t = r.time_secs.clamp(w, e);
            a.3 += if a.2 { a.1 * (t - a.0) } else { 0.0 };
            a.0 = t;
            match r.quantity {
                "capacity_bps" => a.1 = r.new,
                _ => a.2 = r.new > 0.0,
            }
        }
        acc.into_iter()
            .map(|(l, (since, cap, up, area))| {
                let area = area + if up { cap * (e - since) } else { 0.0 };
                let mean = if e > w { area / (e - w) } else { cap };
                (LinkId(l), mean)
            })
            .collect()
    }
}
