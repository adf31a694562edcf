//! NewReno through the real engine: one long-lived flow fills a DropTail
//! bottleneck, and a finite flow delivers exactly its bytes and finishes.

use protocols::cc::CcConfig;
use protocols::link::{DropTail, LinkBuildCtx, ThresholdMarker, ThresholdMarkerConfig};
use protocols::transport::{TcpConfig, TcpSink, WindowSender};
use sim_core::{
    BufferLimit, FlowSpec, GroupId, LinkAlgorithm, LinkSpec, NodeId, Rate, Reason, RunOutput,
    SeriesSelect, SimConfig, SimDuration, SimTime, Simulator,
};

const MSS: u32 = 1500;

/// A -> B data link (10 Mb/s, 10 ms, `buffer` packets) and B -> A ACK link.
fn two_links(
    sim: &mut Simulator,
    buffer: u32,
    algo: Box<dyn LinkAlgorithm>,
) -> (sim_core::RouteId, sim_core::RouteId) {
    let spec = |name: &str, from, to, limit| LinkSpec {
        name: name.to_string(),
        from: NodeId(from),
        to: NodeId(to),
        capacity: Rate::from_bps(10_000_000),
        delay: SimDuration::from_millis(10),
        limit,
        loss: 0.0,
    };
    let fwd = sim.add_link(spec("a->b", 0, 1, BufferLimit::Packets(buffer)), algo);
    let rev = sim.add_link(
        spec("b->a", 1, 0, BufferLimit::Unlimited),
        Box::new(DropTail),
    );
    (sim.add_route(vec![fwd]), sim.add_route(vec![rev]))
}

fn run(
    tcp: TcpConfig,
    size: Option<u64>,
    buffer: u32,
    algo: Box<dyn LinkAlgorithm>,
    end_s: u64,
) -> RunOutput {
    let mut sim = Simulator::new(SimConfig {
        seed: 1,
        replication: 0,
        warmup: SimDuration::from_secs(5),
        end: SimDuration::from_secs(end_s),
        sample_interval: None,
        series: SeriesSelect::default(),
    });
    let (fwd, rev) = two_links(&mut sim, buffer, algo);
    let cc = CcConfig::default().build(MSS).unwrap();
    sim.add_flow(FlowSpec {
        group: GroupId(0),
        sender: Box::new(WindowSender::new(&tcp, cc, MSS, size).unwrap()),
        receiver: Box::new(TcpSink::new(&tcp, sim_core::EcnFeedback::Classic).unwrap()),
        fwd,
        rev,
        start: SimTime::ZERO,
        stop: None,
        host_delay: SimDuration::ZERO,
    });
    // `run` panics if a conservation invariant is broken at the end.
    sim.run()
}

fn scenario_tcp() -> TcpConfig {
    TcpConfig {
        min_rto: SimDuration::from_millis(200),
        ..TcpConfig::default()
    }
}

#[test]
fn a_long_lived_flow_fills_a_droptail_bottleneck() {
    // RTT ~ 20 ms + 1.2 ms serialisation: BDP ~ 17.7 packets; buffer 20 packets.
    let out = run(scenario_tcp(), None, 20, Box::new(DropTail), 20);
    let link = &out.links[0];
    assert!(
        link.utilisation() > 0.99,
        "utilisation {}",
        link.utilisation()
    );
    let f = &out.flows[0];
    // Start-up overshoot may cost timeouts (no SACK: one hole repaired per RTT);
    // in steady state every overflow is a single loss that fast recovery repairs.
    assert!(
        f.counters.reductions > 0,
        "the buffer must overflow now and then"
    );
    assert_eq!(f.counters.timeouts, 0);
    // One retransmission per drop (a drop and its repair may straddle the warm-up).
    let drops = link.counters.dropped_total().pkts;
    assert!(
        f.counters.retx_pkts.abs_diff(drops) <= 1,
        "{drops} drops, {:?}",
        f.counters
    );
    assert!(f.counters.goodput_bytes > 0 && f.finish.is_none());
}

#[test]
fn a_long_lived_flow_with_delayed_acks_still_fills_the_bottleneck() {
    let tcp = TcpConfig {
        delayed_ack: true,
        ..scenario_tcp()
    };
    let out = run(tcp, None, 20, Box::new(DropTail), 20);
    let u = out.links[0].utilisation();
    assert!(u > 0.99, "utilisation {u}");
    let (data, acks) = (
        out.links[0].counters.departed.pkts,
        out.links[1].counters.departed.pkts,
    );
    // About one ACK per two data packets (immediate ACKs around losses add a few).
    assert!(
        acks * 20 > data * 9 && acks * 20 < data * 12,
        "{data} data, {acks} acks"
    );
}

#[test]
fn an_ecn_flow_behind_a_threshold_marker_loses_nothing_and_keeps_the_link_busy() {
    let tcp = TcpConfig {
        ecn: true,
        ..scenario_tcp()
    };
    let ctx = LinkBuildCtx {
        capacity: Rate::from_bps(10_000_000),
        delay: SimDuration::from_millis(10),
        limit: BufferLimit::Packets(100),
    };
    let cfg = ThresholdMarkerConfig {
        k_pkts: Some(20),
        k_bytes: None,
    };
    let marker = ThresholdMarker::new(&cfg, &ctx).unwrap();
    let out = run(tcp, None, 100, Box::new(marker), 20);
    let link = &out.links[0];
    let f = &out.flows[0];
    assert_eq!(link.counters.dropped_total().pkts, 0);
    assert_eq!(f.total.retx_pkts, 0);
    assert!(link.counters.marked[Reason::Threshold as usize].pkts > 0);
    assert!(f.counters.reductions > 0);
    assert!(
        link.utilisation() > 0.99,
        "utilisation {}",
        link.utilisation()
    );
}

#[test]
fn a_finite_flow_delivers_exactly_its_bytes_and_finishes() {
    // Not a multiple of the MSS, and large enough to overflow the 10-packet buffer.
    let n = 2_000_250;
    let out = run(scenario_tcp(), Some(n), 10, Box::new(DropTail), 20);
    let f = &out.flows[0];
    assert_eq!(f.total.goodput_bytes, n);
    assert!(
        f.total.retx_pkts > 0,
        "slow-start overshoot should cost retransmissions"
    );
    let t = f.finish.expect("the flow finishes").as_secs_f64();
    // 2 MB at 10 Mb/s takes 1.6 s at best.
    assert!(t > 1.6 && t < 5.0, "finish {t}");
}
