//! SACK loss recovery (RFC 2018 blocks, RFC 6675 scoreboard) and limited
//! transmit (RFC 3042) through the real engine, against NewReno recovery.
//!
//! The path: 10 Mb/s, 100 ms of propagation RTT, an unlimited buffer, one
//! long-lived flow of 1000-B segments whose first window is 40 segments. A
//! link algorithm drops chosen segments on their first transmission only, so
//! every loss is one the sender must repair, and records every retransmission.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use protocols::cc::{CcConfig, NewRenoConfig};
use protocols::link::DropTail;
use protocols::transport::{TcpConfig, TcpSink, WindowSender};
use sim_core::{
    BufferLimit, Endpoint, EndpointCtx, FlowSpec, GroupId, HeaderFamily, LazyRng, LinkAlgorithm,
    LinkSpec, LinkView, NodeId, Packet, PacketKind, Probe, Rate, Reason, RunOutput, SeriesSelect,
    SimConfig, SimDuration, SimTime, Simulator, Verdict,
};

const MSS: u64 = 1000;
const RTT: f64 = 0.1;

/// Drops the listed segments (by first byte) the first time they pass;
/// records the first byte of every retransmission.
struct Dropper {
    drop: BTreeSet<u64>,
    retx: Arc<Mutex<Vec<u64>>>,
}

impl LinkAlgorithm for Dropper {
    fn on_arrival(&mut self, pkt: &mut Packet, _: &LinkView, _: &mut LazyRng) -> Verdict {
        if pkt.kind != PacketKind::Data {
            return Verdict::Enqueue;
        }
        if pkt.flags.contains(sim_core::Flags::RETX) {
            self.retx.lock().unwrap().push(pkt.seq);
            return Verdict::Enqueue;
        }
        if self.drop.remove(&pkt.seq) {
            Verdict::Drop(Reason::Forced)
        } else {
            Verdict::Enqueue
        }
    }
}

/// Loss-recovery episodes: entry time and, once over, exit time.
type Episodes = Vec<(SimTime, Option<SimTime>)>;

/// The sender, logging when it enters and leaves loss recovery.
struct Recorder {
    inner: WindowSender,
    episodes: Arc<Mutex<Episodes>>,
}

impl Recorder {
    fn track(&mut self, was: bool, now: SimTime) {
        let mut e = self.episodes.lock().unwrap();
        match (was, self.inner.in_recovery()) {
            (false, true) => e.push((now, None)),
            (true, false) => {
                if let Some(last) = e.last_mut() {
                    last.1 = Some(now);
                }
            }
            _ => {}
        }
    }
}

impl Endpoint for Recorder {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        self.inner.on_start(ctx);
    }
    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx) {
        let was = self.inner.in_recovery();
        self.inner.on_packet(pkt, ctx);
        self.track(was, ctx.now());
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        let was = self.inner.in_recovery();
        self.inner.on_timer(ctx);
        self.track(was, ctx.now());
    }
    fn on_stop(&mut self, ctx: &mut EndpointCtx) {
        self.inner.on_stop(ctx);
    }
    fn header_family(&self) -> HeaderFamily {
        self.inner.header_family()
    }
    fn probe(&self) -> Probe {
        self.inner.probe()
    }
}

struct Outcome {
    out: RunOutput,
    retx: Vec<u64>,
    episodes: Episodes,
}

fn run(tcp: &TcpConfig, iw: u32, drop: BTreeSet<u64>, secs: u64) -> Outcome {
    let mut sim = Simulator::new(SimConfig {
        seed: 1,
        replication: 0,
        warmup: SimDuration::ZERO,
        end: SimDuration::from_secs(secs),
        sample_interval: None,
        series: SeriesSelect::default(),
    });
    let spec = |name: &str, from, to| LinkSpec {
        name: name.to_string(),
        from: NodeId(from),
        to: NodeId(to),
        capacity: Rate::from_bps(10_000_000),
        delay: SimDuration::from_millis(50),
        limit: BufferLimit::Unlimited,
        loss: 0.0,
    };
    let retx = Arc::new(Mutex::new(Vec::new()));
    let fwd = sim.add_link(
        spec("a->b", 0, 1),
        Box::new(Dropper {
            drop,
            retx: Arc::clone(&retx),
        }),
    );
    let rev = sim.add_link(spec("b->a", 1, 0), Box::new(DropTail));
    let (fwd, rev) = (sim.add_route(vec![fwd]), sim.add_route(vec![rev]));
    let cc = CcConfig::NewReno(NewRenoConfig {
        initial_window: Some(iw),
        initial_ssthresh: Some(iw),
        ..Default::default()
    })
    .build(MSS as u32)
    .unwrap();
    let episodes = Arc::new(Mutex::new(Vec::new()));
    sim.add_flow(FlowSpec {
        group: GroupId(0),
        sender: Box::new(Recorder {
            inner: WindowSender::new(tcp, cc, MSS as u32, None).unwrap(),
            episodes: Arc::clone(&episodes),
        }),
        receiver: Box::new(TcpSink::new(tcp, sim_core::EcnFeedback::Classic).unwrap()),
        fwd,
        rev,
        start: SimTime::ZERO,
        stop: None,
        host_delay: SimDuration::ZERO,
    });
    let out = sim.run();
    let retx = std::mem::take(&mut *retx.lock().unwrap());
    let episodes = std::mem::take(&mut *episodes.lock().unwrap());
    Outcome {
        out,
        retx,
        episodes,
    }
}

fn tcp(sack: bool, limited_transmit: bool) -> TcpConfig {
    TcpConfig {
        sack,
        limited_transmit,
        ..TcpConfig::default()
    }
}

/// Segments `first, first + 4, ...`: `k` drops spread over one window.
fn spread(k: u64, first: u64) -> BTreeSet<u64> {
    (0..k).map(|i| (first + 4 * i) * MSS).collect()
}

/// The one recovery episode's length in round trips.
fn recovery_rtts(o: &Outcome) -> f64 {
    assert_eq!(o.episodes.len(), 1, "one recovery: {:?}", o.episodes);
    let (from, to) = o.episodes[0];
    let to = to.expect("the recovery ended");
    (to - from).as_secs_f64() / RTT
}

#[test]
fn newreno_repairs_one_hole_per_round_trip_and_sack_all_in_about_one() {
    for k in 1..=6 {
        let drop = spread(k, 10);
        let nr = run(&tcp(false, false), 40, drop.clone(), 4);
        let sk = run(&tcp(true, false), 40, drop.clone(), 4);
        let (nr_rtts, sk_rtts) = (recovery_rtts(&nr), recovery_rtts(&sk));
        eprintln!("k = {k}: NewReno recovery {nr_rtts:.2} RTTs, SACK {sk_rtts:.2} RTTs");
        for o in [&nr, &sk] {
            assert_eq!(o.out.flows[0].counters.timeouts, 0);
            let mut r = o.retx.clone();
            r.sort_unstable();
            assert_eq!(r, drop.iter().copied().collect::<Vec<_>>());
        }
        // NewReno: the fast retransmit, then one partial ACK per RTT per
        // further hole (RFC 6582 section 1): k round trips, each at least
        // one propagation RTT and at most that plus the window's queueing.
        assert!(
            nr_rtts > k as f64 - 0.1 && nr_rtts < k as f64 + 0.5,
            "NewReno {nr_rtts} RTTs for {k} drops"
        );
        // SACK: every hole retransmitted within the first round trip.
        assert!(
            sk_rtts > 0.9 && sk_rtts < 1.5,
            "SACK {sk_rtts} RTTs for {k} drops"
        );
    }
}

#[test]
fn limited_transmit_turns_a_timeout_of_a_small_window_into_a_fast_retransmit() {
    // Three segments in flight, the first lost: two duplicate ACKs only.
    for sack in [false, true] {
        let drop = BTreeSet::from([0]);
        let plain = run(&tcp(sack, false), 3, drop.clone(), 3);
        assert_eq!(plain.out.flows[0].counters.timeouts, 1, "sack {sack}");
        let lt = run(&tcp(sack, true), 3, drop, 3);
        let c = &lt.out.flows[0].counters;
        assert_eq!((c.timeouts, c.reductions), (0, 1), "sack {sack}");
        assert_eq!(lt.retx, [0]);
        assert!(
            c.goodput_bytes > plain.out.flows[0].counters.goodput_bytes,
            "sack {sack}"
        );
    }
}

#[test]
fn a_sack_option_is_refused_to_a_rate_paced_controller() {
    let rcp: CcConfig = toml::from_str("kind = \"rcp\"").unwrap();
    let e = WindowSender::new(&tcp(true, false), rcp.build(1000).unwrap(), 1000, None)
        .err()
        .unwrap();
    assert_eq!(e.key, "sack");
    let xcp: CcConfig = toml::from_str("kind = \"xcp\"").unwrap();
    assert!(WindowSender::new(&tcp(true, false), xcp.build(1000).unwrap(), 1000, None).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// RFC 6675's aim: for any loss pattern in a window, every lost segment
    /// is retransmitted exactly once, before any timeout, and no segment that
    /// arrived is retransmitted.
    #[test]
    fn sack_retransmits_exactly_the_lost_segments_once(
        lost in proptest::collection::btree_set(2u64..36, 1..20),
        limited_transmit in any::<bool>(),
    ) {
        let drop: BTreeSet<u64> = lost.iter().map(|k| k * MSS).collect();
        let o = run(&tcp(true, limited_transmit), 40, drop.clone(), 4);
        let c = &o.out.flows[0].counters;
        prop_assert_eq!(c.timeouts, 0);
        prop_assert_eq!(c.reductions, 1);
        let mut r = o.retx.clone();
        r.sort_unstable();
        prop_assert_eq!(r, drop.into_iter().collect::<Vec<_>>());
    }
}
