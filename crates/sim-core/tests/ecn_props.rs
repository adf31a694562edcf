//! Property test of the engine's ECN rule (`Verdict::Mark` in `link.rs`): a
//! link algorithm's mark is applied only to ECN-capable packets; a packet that
//! is not ECN-capable is dropped instead, with the same reason, and counted as
//! a drop, never as a mark. Checked on random chains of random markers with a
//! random mix of ECT and non-ECT traffic, against the decisions the markers
//! themselves record.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use rand::Rng;
use sim_core::*;

/// What one marker decided, by the ECN capability of the packet.
#[derive(Default)]
struct Decisions {
    mark_capable: u64,
    mark_not_capable: u64,
}

/// Marks each arrival with probability `q`, whatever its ECN codepoint.
struct RandomMarker {
    q: f64,
    seen: Arc<Mutex<Decisions>>,
}
impl LinkAlgorithm for RandomMarker {
    fn on_arrival(&mut self, p: &mut Packet, _: &LinkView, rng: &mut LazyRng) -> Verdict {
        if rng.get().random::<f64>() >= self.q {
            return Verdict::Enqueue;
        }
        let mut d = self.seen.lock().unwrap();
        if p.ecn.is_capable() {
            d.mark_capable += 1;
        } else {
            d.mark_not_capable += 1;
        }
        Verdict::Mark(Reason::Early)
    }
}

/// The codepoint each (flow, seq) was sent with.
type Sent = Arc<Mutex<HashMap<(u32, u64), Ecn>>>;

/// Sends `count` packets at random gaps, each ECT with probability `ect`.
struct MixedSource {
    count: u64,
    ect: f64,
    sent: u64,
    log: Sent,
}
impl Endpoint for MixedSource {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        self.on_timer(ctx);
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        if self.sent >= self.count {
            return;
        }
        let mut p = Packet::new(ctx.flow(), RouteId(0), PacketKind::Data, 1000, ctx.now());
        p.seq = self.sent;
        p.ecn = if ctx.rng().random::<f64>() < self.ect {
            Ecn::Ect
        } else {
            Ecn::NotEct
        };
        self.log.lock().unwrap().insert((p.flow.0, p.seq), p.ecn);
        ctx.send(p);
        self.sent += 1;
        let gap = ctx.rng().random_range(100..=2000);
        let at = ctx.now() + SimDuration::from_micros(gap);
        ctx.set_deadline(Some(at));
    }
    fn on_packet(&mut self, _: Packet, _: &mut EndpointCtx) {}
}

/// Checks every delivered packet against the codepoint it was sent with.
struct Sink {
    log: Sent,
    violations: Arc<Mutex<Vec<String>>>,
}
impl Endpoint for Sink {
    fn on_packet(&mut self, p: Packet, _: &mut EndpointCtx) {
        let sent = self.log.lock().unwrap()[&(p.flow.0, p.seq)];
        let ok = match sent {
            Ecn::NotEct => p.ecn == Ecn::NotEct,
            _ => p.ecn.is_capable(),
        };
        if !ok {
            self.violations.lock().unwrap().push(format!(
                "flow {} seq {} sent {sent:?} delivered {:?}",
                p.flow.0, p.seq, p.ecn
            ));
        }
    }
}

/// Every trace `Mark` event must be on an ECN-capable packet.
struct MarkTracer(Arc<Mutex<Vec<String>>>);
impl Tracer for MarkTracer {
    fn on_event(&mut self, _: SimTime, link: LinkId, kind: TraceKind, p: &Packet) {
        if matches!(kind, TraceKind::Mark(_)) && !p.ecn.is_capable() {
            self.0
                .lock()
                .unwrap()
                .push(format!("link {link} marked a non-ECT packet"));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn marks_reach_only_ect_packets_and_non_ect_ones_are_dropped_and_counted(
        qs in prop::collection::vec(0.0f64..0.6, 1..4),
        ects in prop::collection::vec(0.0f64..=1.0, 1..4),
        seed in 0u64..1000,
    ) {
        let mut sim = Simulator::new(SimConfig {
            seed,
            replication: 0,
            warmup: SimDuration::ZERO,
            end: SimDuration::from_secs(2),
            sample_interval: None,
            series: SeriesSelect::default(),
        });
        let k = qs.len();
        let mut seen = Vec::new();
        for (i, &q) in qs.iter().enumerate() {
            let d = Arc::new(Mutex::new(Decisions::default()));
            seen.push(d.clone());
            sim.add_link(LinkSpec {
                name: format!("{i}->{}", i + 1),
                from: NodeId(i as u32),
                to: NodeId(i as u32 + 1),
                capacity: Rate::from_bps(20_000_000),
                delay: SimDuration::from_millis(1),
                // Never full: every drop is the marker's.
                limit: BufferLimit::Packets(1_000_000),
                loss: 0.0,
            }, Box::new(RandomMarker { q, seen: d }));
        }
        let log: Sent = Arc::default();
        let violations = Arc::new(Mutex::new(Vec::new()));
        let fwd = sim.add_route((0..k).map(|j| LinkId(j as u32)).collect());
        for (i, &ect) in ects.iter().enumerate() {
            sim.add_flow(FlowSpec {
                group: GroupId(0),
                sender: Box::new(MixedSource { count: 400, ect, sent: 0, log: log.clone() }),
                receiver: Box::new(Sink { log: log.clone(), violations: violations.clone() }),
                fwd,
                rev: fwd,
                start: SimTime::ZERO + SimDuration::from_millis(i as u64 * 3),
                stop: None,
                host_delay: SimDuration::ZERO,
            });
        }
        sim.set_tracer(Box::new(MarkTracer(violations.clone())));
        // `run` asserts the conservation identities (arrived = enqueued + dropped ...).
        let out = sim.run();
        let v = violations.lock().unwrap();
        prop_assert!(v.is_empty(), "{:?}", &v[..v.len().min(5)]);
        for (l, d) in out.links.iter().zip(&seen) {
            let d = d.lock().unwrap();
            let c = &l.counters;
            // A mark decision on an ECT (or CE) packet is a mark; on a non-ECT
            // packet it is a drop with the same reason; nothing else drops here.
            prop_assert_eq!(c.marked[Reason::Early as usize].pkts, d.mark_capable, "{}", l.name);
            prop_assert_eq!(c.dropped[Reason::Early as usize].pkts, d.mark_not_capable, "{}", l.name);
            prop_assert_eq!(c.dropped_total().pkts, d.mark_not_capable, "{}", l.name);
            let marks: u64 = c.marked.iter().map(|m| m.pkts).sum();
            prop_assert_eq!(marks, d.mark_capable, "{}", l.name);
        }
    }
}
