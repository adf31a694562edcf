//! Property tests of engine invariants on random chains and random loads:
//! conservation (checked by `run` itself), per-link FIFO, monotone event time,
//! queues within their limit, and departures never faster than the capacity.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use rand::Rng;
use sim_core::*;

mod common;
use common::Accept;

/// Sends packets of random size at random gaps (mean `gap_us`) until `count` sent;
/// the receiver answers every data packet with a 40-byte ACK.
struct RandomSource {
    count: u32,
    gap_us: u64,
    sent: u32,
}
impl Endpoint for RandomSource {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        self.on_timer(ctx);
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        if self.sent >= self.count {
            return;
        }
        let size = ctx.rng().random_range(40..=1500);
        let mut p = Packet::new(ctx.flow(), RouteId(0), PacketKind::Data, size, ctx.now());
        p.seq = u64::from(self.sent);
        ctx.send(p);
        self.sent += 1;
        let gap = ctx.rng().random_range(0..=2 * self.gap_us);
        let at = ctx.now() + SimDuration::from_micros(gap);
        ctx.set_deadline(Some(at));
    }
    fn on_packet(&mut self, _: Packet, _: &mut EndpointCtx) {}
}

struct Echo;
impl Endpoint for Echo {
    fn on_packet(&mut self, p: Packet, ctx: &mut EndpointCtx) {
        ctx.counters().goodput_bytes += u64::from(p.size);
        let mut a = Packet::new(ctx.flow(), RouteId(0), PacketKind::Ack, 40, ctx.now());
        a.ack = p.seq + 1;
        ctx.send(a);
    }
}

type Key = (u32, u8, u64);
#[derive(Default)]
struct Check {
    last: SimTime,
    waiting: HashMap<u32, VecDeque<Key>>,
    last_depart: HashMap<u32, (SimTime, u32)>,
    violations: Vec<String>,
    limits: Vec<u32>,
    rates: Vec<Rate>,
}
struct Shared(Arc<Mutex<Check>>);
impl Tracer for Shared {
    fn on_event(&mut self, now: SimTime, link: LinkId, kind: TraceKind, p: &Packet) {
        let mut c = self.0.lock().unwrap();
        if now < c.last {
            c.violations.push(format!("time went backwards at {now}"));
        }
        c.last = now;
        let key = (p.flow.0, p.kind as u8, p.seq);
        let limit = c.limits[link.index()];
        let rate = c.rates[link.index()];
        match kind {
            TraceKind::Enqueue => {
                let q = c.waiting.entry(link.0).or_default();
                q.push_back(key);
                let n = q.len();
                if n > limit as usize {
                    c.violations
                        .push(format!("link {link} holds {n} > limit {limit}"));
                }
            }
            TraceKind::Depart => {
                let head = c.waiting.entry(link.0).or_default().pop_front();
                if head != Some(key) {
                    c.violations
                        .push(format!("link {link} not FIFO: {head:?} vs {key:?}"));
                }
                if let Some((t, size)) = c.last_depart.get(&link.0).copied() {
                    let min = rate.tx_time(Bytes::new(u64::from(size)));
                    if now.saturating_since(t) < min {
                        c.violations
                            .push(format!("link {link} faster than capacity"));
                    }
                }
                c.last_depart.insert(link.0, (now, p.size));
            }
            _ => {}
        }
    }
}

#[derive(Debug, Clone)]
struct LinkCase {
    mbps: u64,
    delay_us: u64,
    limit: u32,
    loss: f64,
}

fn link_case() -> impl Strategy<Value = LinkCase> {
    (
        1u64..50,
        0u64..20_000,
        1u32..30,
        prop_oneof![Just(0.0), 0.0f64..0.3],
    )
        .prop_map(|(mbps, delay_us, limit, loss)| LinkCase {
            mbps,
            delay_us,
            limit,
            loss,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_chains_keep_every_engine_invariant(
        links in prop::collection::vec(link_case(), 1..5),
        flows in prop::collection::vec((0usize..5, 1usize..5, 1u32..300, 50u64..3000), 1..6),
        seed in 0u64..1000,
    ) {
        let mut sim = Simulator::new(SimConfig {
            seed,
            replication: 0,
            warmup: SimDuration::from_millis(100),
            end: SimDuration::from_secs(2),
            sample_interval: None,
            series: SeriesSelect::default(),
        });
        let k = links.len();
        let mut limits = Vec::new();
        let mut rates = Vec::new();
        // Forward chain node i -> i+1, then the reverse chain i+1 -> i.
        for dir in 0..2 {
            for (i, l) in links.iter().enumerate() {
                let (from, to) = if dir == 0 { (i, i + 1) } else { (i + 1, i) };
                let rate = Rate::from_bps(l.mbps * 1_000_000);
                limits.push(l.limit);
                rates.push(rate);
                sim.add_link(LinkSpec {
                    name: format!("{from}->{to}"),
                    from: NodeId(from as u32),
                    to: NodeId(to as u32),
                    capacity: rate,
                    delay: SimDuration::from_micros(l.delay_us),
                    limit: BufferLimit::Packets(l.limit),
                    loss: l.loss,
                }, Box::new(Accept));
            }
        }
        for (i, &(a, len, count, gap)) in flows.iter().enumerate() {
            let a = a % k;
            let b = (a + len).min(k);
            let fwd = sim.add_route((a..b).map(|j| LinkId(j as u32)).collect());
            let rev = sim.add_route((a..b).rev().map(|j| LinkId((k + j) as u32)).collect());
            sim.add_flow(FlowSpec {
                group: GroupId(0),
                sender: Box::new(RandomSource { count, gap_us: gap, sent: 0 }),
                receiver: Box::new(Echo),
                fwd,
                rev,
                start: SimTime::ZERO + SimDuration::from_millis(i as u64 * 7),
                stop: None,
                host_delay: SimDuration::ZERO,
            });
        }
        let check = Arc::new(Mutex::new(Check { limits, rates, ..Default::default() }));
        sim.set_tracer(Box::new(Shared(check.clone())));
        // `run` panics if a conservation identity is broken.
        let out = sim.run();
        let c = check.lock().unwrap();
        prop_assert!(c.violations.is_empty(), "{:?}", &c.violations[..c.violations.len().min(5)]);
        for l in &out.links {
            // Departures are counted when serialization starts, so the last packet
            // of the window may finish up to one 1500-byte transmission after it.
            let slack = 1500.0 * 8.0 / l.capacity_bps / l.window_secs;
            prop_assert!(l.utilisation() <= 1.0 + slack, "utilisation {}", l.utilisation());
        }
    }
}
