//! H-TCP and Westwood+ through the real engine and window transport, on the
//! path of `loss_based_tcps_sim.rs`: one long-lived flow on a 100 Mb/s, 40 ms
//! RTT bottleneck (BDP ~ 333 packets of 1500 B) with a BDP of DropTail
//! buffer; and, for Westwood+, the same path with Bernoulli loss on the wire
//! and no congestion, against NewReno. RTO floor 1 s (RFC 6298, the
//! transport's default).

use std::sync::{Arc, Mutex};

use protocols::cc::CcConfig;
use protocols::link::{DropTail, LinkBuildCtx, ThresholdMarker, ThresholdMarkerConfig};
use protocols::transport::{TcpConfig, TcpSink, WindowSender};
use sim_core::{
    AckInfo, BufferLimit, Congestion, Controller, FlowSpec, GroupId, LinkAlgorithm, LinkSpec,
    NodeId, Rate, Reason, RunOutput, SeriesSelect, SimConfig, SimDuration, SimTime, Simulator,
};

const MSS: u32 = 1500;
const CAPACITY: u64 = 100_000_000;
const DELAY_MS: u64 = 20;
const BDP_PKTS: u32 = 333;

/// What a [`Watch`] saw.
#[derive(Clone, Debug, Default)]
struct Seen {
    /// The smallest window the controller answered, bytes (the transport
    /// clamps what it uses to one segment, so its probe cannot show a
    /// controller's window below that).
    min_window: u64,
    /// Each fast-retransmit loss: the window before it and the ssthresh
    /// after it, bytes.
    losses: Vec<(u64, u64)>,
    /// Each ECN-Echo reduction, likewise.
    echoes: Vec<(u64, u64)>,
}

/// A controller wrapper that records what the controller did.
struct Watch {
    inner: Box<dyn Controller>,
    seen: Arc<Mutex<Seen>>,
}

impl Watch {
    fn note(&self) {
        let mut s = self.seen.lock().unwrap();
        s.min_window = s.min_window.min(self.inner.window());
    }
}

impl Controller for Watch {
    fn on_ack(&mut self, ack: &AckInfo) {
        self.inner.on_ack(ack);
        self.note();
    }
    fn on_congestion(&mut self, now: SimTime, ev: Congestion) {
        let before = self.inner.window();
        self.inner.on_congestion(now, ev);
        let after = self.inner.ssthresh().unwrap();
        match ev {
            Congestion::Loss { .. } => self.seen.lock().unwrap().losses.push((before, after)),
            Congestion::Ecn { .. } => self.seen.lock().unwrap().echoes.push((before, after)),
            Congestion::Timeout { .. } => {}
        }
        self.note();
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        self.inner.on_recovery_exit(now);
        self.note();
    }
    fn window(&self) -> u64 {
        self.inner.window()
    }
    fn ssthresh(&self) -> Option<u64> {
        self.inner.ssthresh()
    }
}

/// One run over a DropTail bottleneck: the report and what the controller
/// did.
fn run(cc: &CcConfig, buffer: u32, loss: f64, end_secs: u64) -> (RunOutput, Seen) {
    run_with(cc, buffer, loss, end_secs, Box::new(DropTail), false)
}

/// One run over a bottleneck of `algo`, with ECN if `ecn`.
fn run_with(
    cc: &CcConfig,
    buffer: u32,
    loss: f64,
    end_secs: u64,
    algo: Box<dyn LinkAlgorithm>,
    ecn: bool,
) -> (RunOutput, Seen) {
    let mut sim = Simulator::new(SimConfig {
        seed: 1,
        replication: 0,
        warmup: SimDuration::from_secs(10),
        end: SimDuration::from_secs(end_secs),
        sample_interval: None,
        series: SeriesSelect::default(),
    });
    let spec = |name: &str, from, to, limit, loss| LinkSpec {
        name: name.to_string(),
        from: NodeId(from),
        to: NodeId(to),
        capacity: Rate::from_bps(CAPACITY),
        delay: SimDuration::from_millis(DELAY_MS),
        limit,
        loss,
    };
    let fwd = sim.add_link(spec("a->b", 0, 1, BufferLimit::Packets(buffer), loss), algo);
    let rev = sim.add_link(
        spec("b->a", 1, 0, BufferLimit::Unlimited, 0.0),
        Box::new(DropTail),
    );
    let (fwd, rev) = (sim.add_route(vec![fwd]), sim.add_route(vec![rev]));
    let inner = cc.build(MSS).unwrap();
    let seen = Arc::new(Mutex::new(Seen {
        min_window: inner.window(),
        ..Seen::default()
    }));
    let ctl = Box::new(Watch {
        inner,
        seen: Arc::clone(&seen),
    });
    let tcp = TcpConfig {
        min_rto: SimDuration::from_secs(1),
        ecn,
        ..TcpConfig::default()
    };
    sim.add_flow(FlowSpec {
        group: GroupId(0),
        sender: Box::new(WindowSender::new(&tcp, ctl, MSS, None).unwrap()),
        receiver: Box::new(TcpSink::new(&tcp, sim_core::EcnFeedback::Classic).unwrap()),
        fwd,
        rev,
        start: SimTime::ZERO,
        stop: None,
        host_delay: SimDuration::ZERO,
    });
    let out = sim.run();
    let seen = seen.lock().unwrap().clone();
    (out, seen)
}

/// `kind` with its default parameters and `initial_ssthresh = 100` segments,
/// as `loss_based_tcps_sim.rs` (the slow-start overshoot, which this
/// transport without SACK repairs only by timeouts, stays out).
fn cc(kind: &str) -> CcConfig {
    toml::from_str(&format!("kind = \"{kind}\"\ninitial_ssthresh = 100")).unwrap()
}

#[test]
fn each_controller_fills_a_droptail_bottleneck_with_a_bdp_of_buffer() {
    // 100 s (utilisation over 10-100 s), not the 40 s of
    // loss_based_tcps_sim.rs: Westwood+ grows as NewReno, one segment per
    // RTT, so a congestion epoch from BDP to 2 BDP lasts ~13 s and 40 s
    // would hold one loss.
    let bdp_bytes = CAPACITY as f64 / 8.0 * 0.040;
    for kind in ["htcp", "westwood"] {
        let (out, seen) = run(&cc(kind), BDP_PKTS, 0.0, 100);
        let (link, f) = (&out.links[0], &out.flows[0]);
        let u = link.utilisation();
        let drops = link.counters.dropped_total().pkts;
        let kept: Vec<String> = seen
            .losses
            .iter()
            .map(|&(w, s)| {
                format!(
                    "{:.0}->{:.0} ({:.2})",
                    w as f64 / 1500.0,
                    s as f64 / 1500.0,
                    s as f64 / w as f64
                )
            })
            .collect();
        println!(
            "{kind}: utilisation {u:.4}, {} reductions, {} timeouts, {drops} drops, \
             {} retransmissions, smallest window {} B; losses (segments, \
             window -> ssthresh, ratio): {}",
            f.counters.reductions,
            f.counters.timeouts,
            f.counters.retx_pkts,
            seen.min_window,
            kept.join(", ")
        );
        assert!(u >= 0.95, "{kind}: utilisation {u}");
        assert!(seen.losses.len() >= 2, "{kind}: {:?}", seen.losses);
        assert!(
            seen.min_window >= u64::from(MSS),
            "{kind}: window {}",
            seen.min_window
        );
        for &(w, s) in &seen.losses[1..] {
            let kept = s as f64 / w as f64;
            match kind {
                // RTT_max ~ 2 RTT_min with a BDP of buffer: beta = 0.5 (the
                // clamp), or beta_min after a bandwidth switch.
                "htcp" => assert!((0.49..=0.81).contains(&kept), "{kind}: {kept}"),
                // The link was full: BWE ~ capacity, so ssthresh ~ BDP.
                _ => {
                    let r = s as f64 / bdp_bytes;
                    assert!((0.9..=1.1).contains(&r), "{kind}: ssthresh {s} B, {r} BDP");
                }
            }
        }
    }
}

#[test]
fn each_controller_behind_an_ecn_marker_loses_nothing_and_keeps_the_link_busy() {
    // RFC 3168: ECN-Echo is a congestion signal, once per window, and no
    // ACK carrying it grows the window. Marking at 200 packets of a 2000
    // packet buffer: nothing is dropped, the link stays busy.
    let ctx = LinkBuildCtx {
        capacity: Rate::from_bps(CAPACITY),
        delay: SimDuration::from_millis(DELAY_MS),
        limit: BufferLimit::Packets(2000),
    };
    let cfg = ThresholdMarkerConfig {
        k_pkts: Some(200),
        k_bytes: None,
    };
    for kind in ["htcp", "westwood"] {
        let marker = ThresholdMarker::new(&cfg, &ctx).unwrap();
        let (out, seen) = run_with(&cc(kind), 2000, 0.0, 100, Box::new(marker), true);
        let (link, f) = (&out.links[0], &out.flows[0]);
        let u = link.utilisation();
        let kept: Vec<String> = seen
            .echoes
            .iter()
            .map(|&(w, s)| format!("{:.2}", s as f64 / w as f64))
            .collect();
        println!(
            "{kind} + ECN: utilisation {u:.4}, {} reductions, {} marks, smallest window {} B; \
             ssthresh / window at each echo: {}",
            f.counters.reductions,
            link.counters.marked[Reason::Threshold as usize].pkts,
            seen.min_window,
            kept.join(" ")
        );
        assert_eq!(link.counters.dropped_total().pkts, 0, "{kind}");
        assert_eq!(f.total.retx_pkts, 0, "{kind}");
        assert!(f.counters.reductions > 0, "{kind}");
        assert!(u > 0.97, "{kind}: utilisation {u}");
        assert!(seen.min_window >= u64::from(MSS), "{kind}");
        assert!(seen.echoes.len() >= 3, "{kind}");
        for &(w, s) in &seen.echoes[2..] {
            let kept = s as f64 / w as f64;
            match kind {
                // Adaptive backoff, not the clamp: marking at 200 packets
                // (24 ms of queue) makes RTT_max >= 64 ms, so beta =
                // RTT_min / RTT_max <= 40/64 = 0.625, and well above 0.5.
                "htcp" => assert!((0.55..=0.63).contains(&kept), "{kind}: {kept}"),
                // ssthresh = BWE x RTT_min = the BDP on a full link.
                _ => {
                    let r = s as f64 / (CAPACITY as f64 / 8.0 * 0.040);
                    assert!((0.9..=1.1).contains(&r), "{kind}: {r} BDP");
                }
            }
        }
    }
}

/// Goodput, bits/s, over the measurement window.
fn goodput(out: &RunOutput) -> f64 {
    out.flows[0].counters.goodput_bytes as f64 * 8.0 / out.window_secs
}

#[test]
fn under_random_loss_westwood_keeps_more_throughput_than_new_reno() {
    // Bernoulli loss on the forward wire, a buffer too large to overflow at
    // these rates: every loss is "non-congestion" loss. NewReno halves its
    // window on each; Westwood+ sets ssthresh = BWE x RTT_min, which with an
    // empty queue is about the window the flow was using (Mascolo et al.
    // 2001, Grieco & Mascolo 2004: higher goodput on leaky links).
    // Expected NewReno rate (Mathis et al. 1997): MSS/RTT * sqrt(3/(2p)),
    // 3.7 Mb/s at p = 1 %, 11.6 Mb/s at 0.1 %.
    for p in [0.001, 0.005, 0.01] {
        let (reno, reno_seen) = run(&cc("new_reno"), 2000, p, 70);
        let (ww, ww_seen) = run(&cc("westwood"), 2000, p, 70);
        let (reno_min, ww_min) = (reno_seen.min_window, ww_seen.min_window);
        let (r, w) = (goodput(&reno), goodput(&ww));
        let mathis = f64::from(MSS) * 8.0 / 0.040 * (1.5 / p).sqrt();
        println!(
            "p = {p}: NewReno {:.2} Mb/s (Mathis {:.2}), Westwood+ {:.2} Mb/s, ratio {:.2}; \
             timeouts {} / {}, smallest windows {reno_min} / {ww_min} B",
            r / 1e6,
            mathis / 1e6,
            w / 1e6,
            w / r,
            reno.flows[0].counters.timeouts,
            ww.flows[0].counters.timeouts,
        );
        // Only the wire loses packets: no congestion loss.
        for o in [&reno, &ww] {
            assert_eq!(o.links[0].counters.dropped_at_queue().pkts, 0);
        }
        assert!(ww_min >= u64::from(MSS));
        // The papers' claim is qualitative; seed 1 measures 2.5x-5.5x. At
        // 1.5x the check holds the claim with margin, not this seed's numbers.
        assert!(w > 1.5 * r, "p = {p}: Westwood+ {w} vs NewReno {r}");
    }
}
