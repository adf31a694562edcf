//! A flow's host delay (`FlowSpec::host_delay`): every packet either endpoint
//! sends waits that long before its first link, in order, on both paths.

use std::sync::{Arc, Mutex};

use sim_core::*;

mod common;
use common::{config, link, Burst};

/// Records data arrivals and answers each with a 40-byte ACK.
struct Echo(Arc<Mutex<Vec<(u64, SimTime)>>>);
impl Endpoint for Echo {
    fn on_packet(&mut self, p: Packet, ctx: &mut EndpointCtx) {
        self.0.lock().unwrap().push((p.seq, ctx.now()));
        let mut a = Packet::new(ctx.flow(), RouteId(0), PacketKind::Ack, 40, ctx.now());
        a.ack = p.seq;
        ctx.send(a);
    }
}

type Trace = Vec<(u64, SimTime)>;

/// Two 10 Mb/s links forward (5 and 7 ms), one back (1 ms); a burst of 5
/// packets at 0 with host delay `delay_ms`; the run ends at `end_ms`.
fn run(delay_ms: u64, end_ms: u64) -> (RunOutput, Trace, Trace) {
    let mut sim = Simulator::new(config(SimDuration::from_millis(end_ms)));
    let mut link =
        |from: u32, to: u32, ms: u64| link(&mut sim, from, to, 10, ms, BufferLimit::Unlimited, 0.0);
    let (a, b, back) = (link(0, 1, 5), link(1, 2, 7), link(2, 0, 1));
    let fwd = sim.add_route(vec![a, b]);
    let rev = sim.add_route(vec![back]);
    let (data, acks) = (
        Arc::new(Mutex::new(Vec::new())),
        Arc::new(Mutex::new(Vec::new())),
    );
    sim.add_flow(FlowSpec {
        group: GroupId(0),
        sender: Box::new(Burst {
            n: 5,
            size: 1250,
            acks: Some(acks.clone()),
        }),
        receiver: Box::new(Echo(data.clone())),
        fwd,
        rev,
        start: SimTime::ZERO,
        stop: None,
        host_delay: SimDuration::from_millis(delay_ms),
    });
    let out = sim.run();
    let d = data.lock().unwrap().clone();
    let k = acks.lock().unwrap().clone();
    (out, d, k)
}

fn ms(x: f64) -> SimTime {
    SimTime::from_secs_f64(x / 1e3)
}

#[test]
fn the_host_delay_adds_once_to_each_direction_in_order() {
    // Without delay, data packet j (1250 B = 1 ms at 10 Mb/s) reaches node 2
    // at (j + 1) + 5 + 1 + 7 = j + 14 ms; its 40-byte ACK (32 us) then at
    // j + 14 + 0.032 + 1 ms. A 3-ms host delay adds 3 ms on each side.
    let (out, data, acks) = run(3, 1000);
    assert_eq!(data.len(), 5);
    assert_eq!(acks.len(), 5);
    for j in 0..5u64 {
        assert_eq!(data[j as usize], (j, ms(j as f64 + 14.0 + 3.0)), "data {j}");
        assert_eq!(
            acks[j as usize],
            (j, ms(j as f64 + 14.0 + 3.0 + 3.0 + 0.032 + 1.0)),
            "ack {j}"
        );
    }
    // The delay is no queue: the first link still queues the burst behind
    // its head exactly as without the delay (4 waiting, 2 ms mean).
    let la = &out.links[0];
    assert_eq!(la.stats.max_pkts, 4);
    assert!((la.qdelay_mean_secs() - 0.002).abs() < 1e-12);
    let (_, data0, acks0) = run(0, 1000);
    for j in 0..5 {
        assert_eq!(data0[j].1 + SimDuration::from_millis(3), data[j].1);
        assert_eq!(acks0[j].1 + SimDuration::from_millis(6), acks[j].1);
    }
}

#[test]
fn packets_still_in_the_delay_line_at_the_end_are_not_in_the_network() {
    // The run ends at 2 ms, before the 3-ms delay releases anything: the
    // sender sent 5 packets, no link saw one, and conservation holds (the
    // engine checks it at the end of every run).
    let (out, data, _) = run(3, 2);
    assert!(data.is_empty());
    assert_eq!(out.flows[0].total.sent_pkts, 5);
    assert!(out.links.iter().all(|l| l.counters.arrived.pkts == 0));
}
