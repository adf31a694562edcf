//! The receiver's random ACK delay (seed 002, E5.8 / T3) through the real engine:
//! a NewReno flow whose receiver holds one ACK in every m for d seconds sees its
//! RTT samples spike by about d once per m ACKs, the ACKs queued behind a held
//! one arrive right after it at the queue's `gap` spacing, and the flow keeps
//! delivering data.

use std::sync::{Arc, Mutex};

use protocols::cc::CcConfig;
use protocols::link::DropTail;
use protocols::transport::{AckDelayConfig, TcpConfig, TcpSink, WindowSender};
use sim_core::{
    BufferLimit, Endpoint, EndpointCtx, FlowSpec, GroupId, HeaderFamily, LinkSpec, NodeId, Packet,
    PacketKind, Probe, Rate, RunOutput, SeriesSelect, SimConfig, SimDuration, SimTime, Simulator,
};

const MSS: u32 = 1000;
const END_S: u64 = 40;
/// Receive window, packets: above the path's BDP (10 Mb/s x 20.8 ms = 26
/// packets) so the undelayed flow fills the link, below BDP + buffer (50), so
/// nothing is ever lost.
const RWND: u32 = 40;

/// One ACK as the sender saw it.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Sample {
    /// Arrival time at the sender.
    at: SimTime,
    /// RTT sample: arrival minus the echoed data timestamp.
    rtt: SimDuration,
}

/// A sender that records every ACK reaching it, then hands it on.
struct Recorder {
    inner: WindowSender,
    log: Arc<Mutex<Vec<Sample>>>,
}

impl Endpoint for Recorder {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        self.inner.on_start(ctx);
    }
    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx) {
        if pkt.kind == PacketKind::Ack {
            self.log.lock().unwrap().push(Sample {
                at: ctx.now(),
                rtt: ctx.now() - pkt.echo,
            });
        }
        self.inner.on_packet(pkt, ctx);
    }
    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        self.inner.on_timer(ctx);
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

/// The ACK delay of the test: one in every 200..400 ACKs held 0.5..1 s (the
/// paper's d; m scaled down so that a 40 s run has tens of spikes), 10 µs gap.
fn delay() -> AckDelayConfig {
    AckDelayConfig {
        every: [200, 400],
        hold: [SimDuration::from_millis(500), SimDuration::from_secs(1)],
        gap: SimDuration::from_micros(10),
    }
}

/// RTO floor above the longest hold: the sender stalls through a spike
/// instead of timing out, so every spike is pure feedback delay.
fn tcp(ack_delay: Option<AckDelayConfig>) -> TcpConfig {
    TcpConfig {
        min_rto: SimDuration::from_secs(2),
        rwnd_pkts: Some(RWND),
        ack_delay,
        ..TcpConfig::default()
    }
}

/// A -> B data link (10 Mb/s, 10 ms, 50 packets), B -> A ACK link (100 Mb/s,
/// 10 ms: a 40 B ACK takes 3.2 µs, less than the 10 µs gap, so ACKs arrive at
/// the sender as the queue released them). Returns the run and the ACK log.
fn run(tcp: TcpConfig, seed: u64) -> (RunOutput, Vec<Sample>) {
    let mut sim = Simulator::new(SimConfig {
        seed,
        replication: 0,
        warmup: SimDuration::from_secs(1),
        end: SimDuration::from_secs(END_S),
        sample_interval: None,
        series: SeriesSelect::default(),
    });
    let spec = |name: &str, from, to, mbps: u64, limit| LinkSpec {
        name: name.to_string(),
        from: NodeId(from),
        to: NodeId(to),
        capacity: Rate::from_bps(mbps * 1_000_000),
        delay: SimDuration::from_millis(10),
        limit,
        loss: 0.0,
    };
    let fwd = sim.add_link(
        spec("a->b", 0, 1, 10, BufferLimit::Packets(50)),
        Box::new(DropTail),
    );
    let rev = sim.add_link(
        spec("b->a", 1, 0, 100, BufferLimit::Unlimited),
        Box::new(DropTail),
    );
    let (fwd, rev) = (sim.add_route(vec![fwd]), sim.add_route(vec![rev]));
    let log = Arc::new(Mutex::new(Vec::new()));
    let cc = CcConfig::default().build(MSS).unwrap();
    sim.add_flow(FlowSpec {
        group: GroupId(0),
        sender: Box::new(Recorder {
            inner: WindowSender::new(&tcp, cc, MSS, None).unwrap(),
            log: Arc::clone(&log),
        }),
        receiver: Box::new(TcpSink::new(&tcp, sim_core::EcnFeedback::Classic).unwrap()),
        fwd,
        rev,
        start: SimTime::ZERO,
        stop: None,
        host_delay: SimDuration::ZERO,
    });
    let out = sim.run();
    let log = std::mem::take(&mut *log.lock().unwrap());
    (out, log)
}

/// Samples at least this large are delayed by a spike (the held ACK or one
/// queued behind it): half the shortest hold, far above any RTT the path alone
/// gives (20 ms propagation + at most 50 x 0.8 ms of queueing + transmission).
fn threshold() -> SimDuration {
    SimDuration::from_ps(delay().hold[0].as_ps() / 2)
}

/// Indices of the held ACKs: the first delayed sample after an undelayed one.
fn held_indices(log: &[Sample]) -> Vec<usize> {
    let th = threshold();
    (0..log.len())
        .filter(|&i| log[i].rtt >= th && (i == 0 || log[i - 1].rtt < th))
        .collect()
}

#[test]
fn rtt_samples_spike_by_d_once_every_m_acks_and_data_keeps_flowing() {
    let cfg = delay();
    let (out, log) = run(tcp(Some(cfg.clone())), 1);
    let th = threshold();
    let [m_min, m_max] = cfg.every;
    let [d_min, d_max] = cfg.hold;
    // The path: 20 ms propagation, 0.8 ms per data packet on the bottleneck, at
    // most RWND packets queued there.
    let t_pkt = SimDuration::from_micros(800);
    let prop = SimDuration::from_millis(20);

    // Undelayed samples see the path's RTT only.
    let normal: Vec<SimDuration> = log.iter().map(|s| s.rtt).filter(|&r| r < th).collect();
    let (base_min, base_max) = (*normal.iter().min().unwrap(), *normal.iter().max().unwrap());
    assert!(
        base_min >= prop + t_pkt
            && base_max <= prop + t_pkt.saturating_mul(u64::from(RWND)) + cfg.gap.saturating_mul(2),
        "path RTT {base_min} .. {base_max}"
    );

    let held = held_indices(&log);
    // A 40 s run with cycles of ~300 ACKs (~0.24 s of data) plus a 0.75 s hold
    // on average: tens of spikes.
    assert!(held.len() >= 20, "{} spikes", held.len());
    // The first held ACK is the m_1-th, and each next one m_k ACKs later
    // (no ACK is lost on the return path, so the sender sees them all).
    assert!(
        (m_min..=m_max).contains(&(held[0] as u64 + 1)),
        "first spike at ACK {}",
        held[0] + 1
    );
    let ms: Vec<u64> = held.windows(2).map(|w| (w[1] - w[0]) as u64).collect();
    assert!(
        ms.iter().all(|m| (m_min..=m_max).contains(m)),
        "ACKs between spikes {ms:?}"
    );
    // Each spike is d on top of the path's RTT (the held ACK may wait < gap
    // behind the one before it), and arrives about d after that one.
    let mut ds = Vec::new();
    for &i in &held {
        let rtt = log[i].rtt;
        assert!(
            rtt >= d_min + base_min && rtt <= d_max + base_max + cfg.gap,
            "spike {rtt} outside [{d_min} + {base_min}, {d_max} + {base_max}]"
        );
        assert!(log[i].at - log[i - 1].at >= d_min.saturating_sub(cfg.gap));
        ds.push(rtt.saturating_sub(base_min).as_secs_f64());
    }
    // The holds spread over [d_min, d_max] (tens of uniform draws).
    let (lo, hi) = ds
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &d| (lo.min(d), hi.max(d)));
    let span = d_max.as_secs_f64() - d_min.as_secs_f64();
    assert!(hi - lo > 0.6 * span, "holds {ds:?}");
    // The other delayed samples are the ACKs queued behind a held one: they
    // arrive right after it, each exactly `gap` after the one before. The
    // window was full at every spike, so there are RWND - 1 of them each time.
    let mut delayed = held.len();
    for &h in &held {
        let n = log[h + 1..].iter().take_while(|s| s.rtt >= th).count();
        for i in h + 1..=h + n {
            assert_eq!(log[i].at - log[i - 1].at, cfg.gap, "ACK {i}");
        }
        assert_eq!(n, RWND as usize - 1, "followers of the spike at ACK {h}");
        delayed += n;
    }
    assert_eq!(delayed, log.iter().filter(|s| s.rtt >= th).count());

    // Throughput stays positive: the flow stalls through each hold (no timeout:
    // min_rto > d_max; no loss: RWND < BDP + buffer) and resumes at link speed.
    let f = &out.flows[0];
    assert_eq!((f.counters.timeouts, f.counters.retx_pkts), (0, 0));
    // One data packet per ACK: a cycle carries m packets at link speed, then
    // the link idles about d, so goodput ~ C E[m] t_pkt / (E[m] t_pkt + E[d]).
    let mean_m = (m_min + m_max) as f64 / 2.0;
    let mean_d = (d_min.as_secs_f64() + d_max.as_secs_f64()) / 2.0;
    let busy = mean_m * t_pkt.as_secs_f64();
    let expected = 10e6 * busy / (busy + mean_d);
    let goodput = f.goodput_bps().unwrap();
    assert!(
        (goodput / expected - 1.0).abs() < 0.15,
        "goodput {goodput} b/s, expected ~{expected}"
    );
    // Without the option: the same flow fills the link and never spikes.
    let (plain, plain_log) = run(tcp(None), 1);
    let plain_goodput = plain.flows[0].goodput_bps().unwrap();
    assert!(plain_goodput > 0.95 * 10e6, "{plain_goodput} b/s");
    assert!(
        plain_log.iter().all(|s| s.rtt < th),
        "a spike without the option"
    );
}

#[test]
fn the_spikes_repeat_for_a_seed_and_move_with_it() {
    let a = run(tcp(Some(delay())), 7).1;
    let b = run(tcp(Some(delay())), 7).1;
    let c = run(tcp(Some(delay())), 8).1;
    assert_eq!(a, b);
    assert_ne!(held_indices(&a), held_indices(&c));
}
