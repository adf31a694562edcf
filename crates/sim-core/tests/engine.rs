//! Engine behaviour against closed-form expectations: store-and-forward timing,
//! tail drop at the buffer limit, wire loss, conservation and tracing.

use std::sync::{Arc, Mutex};

use sim_core::*;

mod common;
use common::{config, link, Burst};

/// Records arrival times of data.
struct Recorder(Arc<Mutex<Vec<(u64, SimTime)>>>);
impl Endpoint for Recorder {
    fn on_packet(&mut self, p: Packet, ctx: &mut EndpointCtx) {
        ctx.counters().goodput_bytes += u64::from(p.size);
        self.0.lock().unwrap().push((p.seq, ctx.now()));
    }
}

/// A flow of `n` 1250-B packets sent at `start` on `fwd` (ACKs on `rev`) into
/// `receiver`.
fn burst(n: u32, receiver: Recorder, fwd: RouteId, rev: RouteId, start: SimTime) -> FlowSpec {
    FlowSpec {
        group: GroupId(0),
        sender: Box::new(Burst {
            n,
            size: 1250,
            acks: None,
        }),
        receiver: Box::new(receiver),
        fwd,
        rev,
        start,
        stop: None,
        host_delay: SimDuration::ZERO,
    }
}

fn burst_over_two_links(n: u32, limit: BufferLimit, loss: f64) -> (RunOutput, Vec<(u64, SimTime)>) {
    let mut sim = Simulator::new(config(SimDuration::from_secs(10)));
    let a = link(&mut sim, 0, 1, 10, 5, limit, loss);
    let b = link(&mut sim, 1, 2, 10, 7, BufferLimit::Unlimited, 0.0);
    let back = link(&mut sim, 2, 0, 10, 1, BufferLimit::Unlimited, 0.0);
    let fwd = sim.add_route(vec![a, b]);
    let rev = sim.add_route(vec![back]);
    let log = Arc::new(Mutex::new(Vec::new()));
    sim.add_flow(burst(n, Recorder(log.clone()), fwd, rev, SimTime::ZERO));
    let out = sim.run();
    let v = log.lock().unwrap().clone();
    (out, v)
}

#[test]
fn store_and_forward_timing_matches_the_closed_form() {
    // 1250 B at 10 Mb/s = 1 ms per packet. Packet j (0-based) leaves link a at
    // (j+1) ms, arrives at node 1 at (j+1) + 5 ms, and since link b is as fast and
    // idle by then, reaches node 2 at (j+1) + 5 + 1 + 7 ms.
    let (out, arrivals) = burst_over_two_links(5, BufferLimit::Unlimited, 0.0);
    assert_eq!(arrivals.len(), 5);
    for (j, (seq, t)) in arrivals.iter().enumerate() {
        assert_eq!(*seq, j as u64, "FIFO order");
        assert_eq!(*t, SimTime::ZERO + SimDuration::from_millis(j as u64 + 14));
    }
    assert_eq!(out.flows[0].counters.goodput_bytes, 5 * 1250);
    // Link a queued packets 1..4 for 1,2,3,4 ms: mean delay 2 ms over 5 packets.
    let la = &out.links[0];
    assert_eq!(la.stats.qdelay_n, 5);
    assert!((la.qdelay_mean_secs() - 0.002).abs() < 1e-12);
    assert_eq!(la.stats.max_pkts, 4);
}

#[test]
fn a_full_buffer_drops_the_tail_and_counts_it() {
    // 10 packets offered at once, 1 in service + 3 waiting: 6 overflow drops.
    let (out, arrivals) = burst_over_two_links(10, BufferLimit::Packets(3), 0.0);
    assert_eq!(arrivals.len(), 4);
    assert_eq!(
        arrivals.iter().map(|a| a.0).collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
    let la = &out.links[0];
    assert_eq!(la.counters.dropped[Reason::Overflow as usize].pkts, 6);
    assert_eq!(la.counters.arrived.pkts, 10);
    assert_eq!(la.counters.enqueued.pkts, 4);
}

#[test]
fn wire_loss_drops_about_the_configured_fraction() {
    // 2000 packets at loss 0.2: binomial sd = sqrt(2000 * 0.16) = 17.9; allow 5 sd.
    let (out, arrivals) = burst_over_two_links(2000, BufferLimit::Unlimited, 0.2);
    let lost = out.links[0].counters.dropped[Reason::WireLoss as usize].pkts;
    assert_eq!(lost + arrivals.len() as u64, 2000);
    assert!((lost as f64 - 400.0).abs() < 5.0 * 17.9, "{lost}");
}

#[test]
fn utilisation_and_backlog_are_time_averages_over_the_window() {
    // 5 packets (5 ms of work) in a 10 s window: link a busy 0.05 % of the time.
    let (out, _) = burst_over_two_links(5, BufferLimit::Unlimited, 0.0);
    let la = &out.links[0];
    assert!((la.utilisation() - 0.005 / 10.0).abs() < 1e-12);
    // Backlog 4,3,2,1 packets for 1 ms each: area 10 pkt-ms over 10 s.
    assert!((la.backlog_mean_pkts() - 0.010 / 10.0).abs() < 1e-12);
}

type Events = Vec<(SimTime, LinkId, TraceKind, u64)>;
struct Log(Arc<Mutex<Events>>);
impl Tracer for Log {
    fn on_event(&mut self, now: SimTime, link: LinkId, kind: TraceKind, pkt: &Packet) {
        self.0.lock().unwrap().push((now, link, kind, pkt.seq));
    }
}

#[test]
fn the_tracer_sees_every_packet_event_in_time_order() {
    let mut sim = Simulator::new(config(SimDuration::from_secs(1)));
    let a = link(&mut sim, 0, 1, 10, 5, BufferLimit::Packets(1), 0.0);
    let back = link(&mut sim, 1, 0, 10, 5, BufferLimit::Packets(1), 0.0);
    let fwd = sim.add_route(vec![a]);
    let rev = sim.add_route(vec![back]);
    sim.add_flow(burst(3, Recorder(Arc::default()), fwd, rev, SimTime::ZERO));
    let log = Arc::new(Mutex::new(Vec::new()));
    sim.set_tracer(Box::new(Log(log.clone())));
    sim.run();
    let log = log.lock().unwrap();
    let kinds: Vec<_> = log.iter().map(|e| (e.2, e.3)).collect();
    assert_eq!(
        kinds,
        vec![
            (TraceKind::Enqueue, 0),
            (TraceKind::Depart, 0),
            (TraceKind::Enqueue, 1),
            (TraceKind::Drop(Reason::Overflow), 2),
            (TraceKind::Depart, 1),
            (TraceKind::Arrive, 0),
            (TraceKind::Deliver, 0),
            (TraceKind::Arrive, 1),
            (TraceKind::Deliver, 1),
        ]
    );
    assert!(log.windows(2).all(|w| w[0].0 <= w[1].0));
}

/// Halves the buffer limit every 10 ms, starting from 8 packets, and records
/// when its timer fired.
struct Shrinker {
    fired: Arc<Mutex<Vec<SimTime>>>,
}
impl LinkAlgorithm for Shrinker {
    fn on_arrival(&mut self, _: &mut Packet, _: &LinkView, _: &mut LazyRng) -> Verdict {
        Verdict::Enqueue
    }
    fn on_start(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        ctl.next_timer = Some(view.now + SimDuration::from_millis(10));
    }
    fn on_timer(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.fired.lock().unwrap().push(view.now);
        if let BufferLimit::Packets(n) = ctl.limit {
            ctl.limit = BufferLimit::Packets((n / 2).max(1));
        }
        ctl.next_timer = Some(view.now + SimDuration::from_millis(10));
    }
}

#[test]
fn a_link_control_law_runs_periodically_and_changes_the_buffer() {
    let mut sim = Simulator::new(config(SimDuration::from_secs(1)));
    let fired = Arc::new(Mutex::new(Vec::new()));
    let a = sim.add_link(
        LinkSpec {
            name: "a".into(),
            from: NodeId(0),
            to: NodeId(1),
            capacity: Rate::from_bps(10_000_000),
            delay: SimDuration::from_millis(1),
            limit: BufferLimit::Packets(8),
            loss: 0.0,
        },
        Box::new(Shrinker {
            fired: fired.clone(),
        }),
    );
    let back = link(&mut sim, 1, 0, 10, 1, BufferLimit::Unlimited, 0.0);
    let fwd = sim.add_route(vec![a]);
    let rev = sim.add_route(vec![back]);
    // A burst of 20 packets at t = 35 ms, when the limit is 8 / 2 / 2 / 2 = 1 packet.
    sim.add_flow(burst(
        20,
        Recorder(Arc::default()),
        fwd,
        rev,
        SimTime::ZERO + SimDuration::from_millis(35),
    ));
    let out = sim.run();
    let fired = fired.lock().unwrap();
    assert_eq!(fired.len(), 100, "every 10 ms over 1 s");
    for (k, t) in fired.iter().enumerate() {
        assert_eq!(
            *t,
            SimTime::ZERO + SimDuration::from_millis(10 * (k as u64 + 1))
        );
    }
    // One in service + one waiting; the other 18 overflow the shrunk buffer.
    assert_eq!(
        out.links[0].counters.dropped[Reason::Overflow as usize].pkts,
        18
    );
}

/// 5000 packets at once into link a (1 ms each), under a packet limit.
fn burst_under_limit(limit: usize) -> RunOutput {
    let mut sim = Simulator::new(config(SimDuration::from_secs(10)));
    let a = link(&mut sim, 0, 1, 10, 5, BufferLimit::Unlimited, 0.0);
    let back = link(&mut sim, 1, 0, 10, 1, BufferLimit::Unlimited, 0.0);
    let fwd = sim.add_route(vec![a]);
    let rev = sim.add_route(vec![back]);
    sim.add_flow(burst(
        5000,
        Recorder(Arc::default()),
        fwd,
        rev,
        SimTime::ZERO,
    ));
    sim.set_packet_limit(limit);
    sim.run()
}

#[test]
fn a_network_holding_more_packets_than_the_limit_is_stopped_with_the_fullest_link() {
    let out = burst_under_limit(1000);
    let o = out
        .overload
        .expect("5000 packets held against a limit of 1000");
    // `run` checks every 100 ms of simulated time: the first check after the
    // burst is at the first event at or after 0.1 s (departures every 1 ms).
    assert!((0.1..0.102).contains(&o.at_secs), "{o:?}");
    assert!((4990..=5000).contains(&o.packets), "{o:?}");
    assert_eq!(o.link, LinkId(0));
    // 100 of the 5000 have left link a by 0.1 s, one packet per ms.
    assert!((4898..=4901).contains(&o.queue_pkts), "{o:?}");
    assert!(out.flows.is_empty() && out.links.is_empty() && out.series.is_empty());
    // Under a limit it never reaches, the same burst runs to the end.
    let out = burst_under_limit(5000);
    assert!(out.overload.is_none());
    assert_eq!(out.flows[0].counters.goodput_bytes, 5000 * 1250);
}

/// Records the backlog each arrival sees.
struct SeeBacklog(Arc<Mutex<Vec<(SimTime, u32)>>>);
impl LinkAlgorithm for SeeBacklog {
    fn on_arrival(&mut self, _: &mut Packet, view: &LinkView, _: &mut LazyRng) -> Verdict {
        self.0.lock().unwrap().push((view.now, view.backlog_pkts));
        Verdict::Enqueue
    }
}

#[test]
fn an_arrival_as_a_transmission_ends_sees_the_next_packet_started() {
    // 1250 B at 10 Mb/s = 1 ms on every link. On the 10-ms link L: P0 (flow 0,
    // injected at 0) is sent over [0, 1) ms; A (flow 1, injected at 0.5 ms)
    // waits for it; B (flow 2, sent at 0 over a zero-delay 1-ms access link)
    // reaches L at 1 ms, the instant P0's transmission ends and A's begins.
    // B's arrival event was scheduled at 0, before L armed its end-of-
    // transmission event (at A's arrival, 0.5 ms), so it runs first; B must
    // still see A gone from the queue: departures before arrivals at one
    // instant. Then A is sent over [1, 2) ms and B over [2, 3) ms, each once.
    let mut sim = Simulator::new(config(SimDuration::from_secs(1)));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let l = sim.add_link(
        LinkSpec {
            name: "1->2".into(),
            from: NodeId(1),
            to: NodeId(2),
            capacity: Rate::from_bps(10_000_000),
            delay: SimDuration::from_millis(10),
            limit: BufferLimit::Unlimited,
            loss: 0.0,
        },
        Box::new(SeeBacklog(seen.clone())),
    );
    let access = link(&mut sim, 0, 1, 10, 0, BufferLimit::Unlimited, 0.0);
    let back = link(&mut sim, 2, 0, 10, 1, BufferLimit::Unlimited, 0.0);
    let direct = sim.add_route(vec![l]);
    let via_access = sim.add_route(vec![access, l]);
    let rev = sim.add_route(vec![back]);
    let logs: Vec<_> = (0..3).map(|_| Arc::new(Mutex::new(Vec::new()))).collect();
    let starts = [0, 500, 0];
    let routes = [direct, direct, via_access];
    for f in 0..3 {
        let start = SimTime::ZERO.saturating_add(SimDuration::from_micros(starts[f]));
        sim.add_flow(burst(1, Recorder(logs[f].clone()), routes[f], rev, start));
    }
    let out = sim.run();
    let ms = |x: u64| SimTime::ZERO.saturating_add(SimDuration::from_millis(x));
    let us = |x: u64| SimTime::ZERO.saturating_add(SimDuration::from_micros(x));
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(ms(0), 0), (us(500), 0), (ms(1), 0)]
    );
    // Store and forward: delivered 10 ms after each transmission ends.
    let delivered: Vec<SimTime> = logs.iter().map(|g| g.lock().unwrap()[0].1).collect();
    assert_eq!(delivered, vec![ms(11), ms(12), ms(13)]);
    let link_l = out.links.iter().find(|r| r.name == "1->2").unwrap();
    assert_eq!(link_l.total_departed.pkts, 3);
}

/// Marks every ECN-capable packet with an odd sequence number as it leaves.
struct MarkOddOnDeparture;
impl LinkAlgorithm for MarkOddOnDeparture {
    fn on_arrival(&mut self, _: &mut Packet, _: &LinkView, _: &mut LazyRng) -> Verdict {
        Verdict::Enqueue
    }
    fn on_departure(&mut self, p: &mut Packet, _: &LinkView, _: &mut LazyRng) -> Option<Reason> {
        (p.seq % 2 == 1 && p.ecn.is_capable()).then(|| {
            p.ecn = Ecn::Ce;
            Reason::Early
        })
    }
    fn stamps_departures(&self) -> bool {
        true
    }
}

/// `n` 1250-B data packets at once, ECN-capable when `ect`.
struct EcnBurst {
    n: u32,
    ect: bool,
}
impl Endpoint for EcnBurst {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        for i in 0..self.n {
            let mut p = Packet::new(ctx.flow(), RouteId(0), PacketKind::Data, 1250, ctx.now());
            p.seq = u64::from(i);
            p.ecn = if self.ect { Ecn::Ect } else { Ecn::NotEct };
            ctx.send(p);
        }
    }
    fn on_packet(&mut self, _: Packet, _: &mut EndpointCtx) {}
}

#[test]
fn a_mark_set_on_departure_is_counted_and_traced_before_the_departure() {
    for ect in [true, false] {
        let mut sim = Simulator::new(config(SimDuration::from_secs(1)));
        let a = sim.add_link(
            LinkSpec {
                name: "a".into(),
                from: NodeId(0),
                to: NodeId(1),
                capacity: Rate::from_bps(10_000_000),
                delay: SimDuration::from_millis(1),
                limit: BufferLimit::Unlimited,
                loss: 0.0,
            },
            Box::new(MarkOddOnDeparture),
        );
        let back = link(&mut sim, 1, 0, 10, 1, BufferLimit::Unlimited, 0.0);
        let fwd = sim.add_route(vec![a]);
        let rev = sim.add_route(vec![back]);
        sim.add_flow(FlowSpec {
            group: GroupId(0),
            sender: Box::new(EcnBurst { n: 5, ect }),
            receiver: Box::new(Recorder(Arc::default())),
            fwd,
            rev,
            start: SimTime::ZERO,
            stop: None,
            host_delay: SimDuration::ZERO,
        });
        let log = Arc::new(Mutex::new(Vec::new()));
        sim.set_tracer(Box::new(Log(log.clone())));
        let out = sim.run();
        let c = &out.links[0].counters;
        let marked = if ect { 2 } else { 0 };
        assert_eq!(c.marked[Reason::Early as usize].pkts, marked);
        assert_eq!(c.dropped_total().pkts, 0, "a departure mark never drops");
        assert_eq!(out.flows[0].total.ce_pkts, marked);
        let log = log.lock().unwrap();
        let at_a: Vec<_> = log
            .iter()
            .filter(|e| e.1 == a && matches!(e.2, TraceKind::Mark(_) | TraceKind::Depart))
            .map(|e| (e.2, e.3))
            .collect();
        let mut want = Vec::new();
        for s in 0..5 {
            if ect && s % 2 == 1 {
                want.push((TraceKind::Mark(Reason::Early), s));
            }
            want.push((TraceKind::Depart, s));
        }
        assert_eq!(at_a, want);
    }
}
