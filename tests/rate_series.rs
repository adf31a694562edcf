//! The sending rate of paced sources as netsim reports it (`send_rate_bps`,
//! from the `flow_rate` series) checked against a conservation law: what the
//! sources' rates add up to over the measurement window is what arrives at
//! the bottleneck, when nothing is lost on the way to it.
//!
//! The case is seed 002's T2 in small (EMKC, 20 flows, 2 Mb/s, alpha = 0.2
//! Mb/s, beta = 0.5, p* = N alpha / (beta C + N alpha) = 0.8): at 80 % loss
//! each flow's rate moves at the router's 100-ms interval, at a phase that
//! depends on its own rate, and a 100-ms point sample of the rate misreads
//! its time average (issue 6 session 18: +2.6 % in T2, where the summed
//! point-sampled rates were 49.2 Mb/s and the link's arrivals 47.9 Mb/s;
//! +1.5 % here). As in T2 the flows share one RTT and start within 220 ms.
//!
//! The second case is T2 in small with EMKC-AVQ, where each flow's rate
//! flips around x* every control step (1 - beta p* = 1 - N alpha / (gamma C)
//! = -1): there the pacer decides what a flow sends, and only
//! `tcp.pacing = "integrate"` sends the rates' time average (issue 6
//! session 19: T2's rates read 2.9 % below the link's arrivals with the
//! default `restart`).

use analysis::dynamics::send_rate_of;
use topology::Resolved;

/// Summed `send_rate_bps` of the flows and the bottleneck's arrival rate
/// (bits/s over the window).
fn rates_and_arrivals(src: &str) -> (f64, f64) {
    let out = Resolved::parse(src, "rate-conservation")
        .unwrap()
        .build(1, 0)
        .unwrap()
        .run();
    let window = out.window_secs;
    let rates: f64 = out
        .flows
        .iter()
        .map(|f| send_rate_of(&out, &[f]).mean.unwrap())
        .sum();
    let bottleneck = out.links.iter().find(|l| l.name == "r1->r2").unwrap();
    let arrived = bottleneck.counters.arrived.bytes as f64 * 8.0 / window;
    (rates, arrived)
}

#[test]
fn paced_senders_rates_add_up_to_the_bottlenecks_arrivals() {
    let src = t2_small(
        r#"{ kind = "emkc", interval = "100ms" }"#,
        60,
        18,
        "restart",
    );
    let (rates, arrived) = rates_and_arrivals(&src);
    // The window's edges: each flow has rate x 100 ms of packets on its
    // access link (~0.5 Mb/s: 6 packets); they are counted at the sending
    // end and not yet at the link at the window's end, and the other way
    // round at its start, so only the change between the two edges counts,
    // <= 3 packets per flow (the rates' 100-ms samples move by < 50 %);
    // pacing adds at most one packet per flow at each edge: <= 5 packets x
    // 20 flows of the ~24,000 that arrive (X = 9.6 Mb/s for 20 s), 0.42 %.
    // Measured: 0.03 %; the mean of the 100-ms point samples: +1.5 %.
    assert!(
        (rates / arrived - 1.0).abs() < 0.0042,
        "summed rates {rates} vs arrivals {arrived}"
    );
}

/// T2 in small: 20 EMKC flows (alpha = 0.2 Mb/s, beta = 0.5, RTT ~220 ms,
/// started within 220 ms) on a 2-Mb/s link whose algorithm is `algo`,
/// measured over `[40, duration_s]` s, paced by `pacing`.
fn t2_small(algo: &str, duration_s: u32, seed: u64, pacing: &str) -> String {
    let n = 20;
    format!(
        r#"
name = "rate-conservation"
[run]
duration = "{duration_s}s"
warmup = "40s"
replications = 1
seed = {seed}
sample_interval = "100ms"
series = ["flow_rate"]
[topology]
kind = "dumbbell"
pairs = {n}
access = {{ capacity = "1Gbps", delay = "100ms", buffer = "100000pkt" }}
egress = {{ capacity = "1Gbps", delay = "0ms", buffer = "100000pkt" }}
bottleneck = {{ capacity = "2Mbps", delay = "5ms", buffer = "100pkt", algo = {algo} }}
[[flows]]
name = "u"
count = {n}
start_jitter = "220ms"
from = "s{{i}}"
to = "d{{i}}"
packet_size = "1000B"
cc = {{ kind = "emkc", alpha = "200kbps", beta = 0.5 }}
tcp = {{ reliable = false, initial_rto = "60s", min_rto = "60s", pacing = "{pacing}" }}
traffic = {{ kind = "bulk" }}
"#,
    )
}

/// T2 with EMKC-AVQ in small (gamma = 1, tau = 0.2): N alpha / (gamma C) =
/// 2 as in T2, x* = 0.1 Mb/s; 60 s measured.
fn t2_avq_small(pacing: &str) -> String {
    let avq = r#"{ kind = "emkc_avq", interval = "100ms", tau = 0.2, gamma = 1.0 }"#;
    t2_small(avq, 100, 19, pacing)
}

#[test]
fn integrated_pacing_sends_the_rates_even_when_they_flip_every_step() {
    let (rates, arrived) = rates_and_arrivals(&t2_avq_small("integrate"));
    // AVQ holds the arrivals at gamma C (eq. 130): within 2 % here.
    assert!((arrived / 2e6 - 1.0).abs() < 0.02, "arrivals {arrived}");
    // The window's edges as in the first test, at x* = 0.1 Mb/s flipping by
    // up to +-50 %: <= 1.9 packets per flow on the access link's 100 ms,
    // so <= 2 from the change between the edges and 2 from pacing (one per
    // edge): 4 x 20 of the ~15,000 packets that arrive in 60 s, 0.53 %.
    // Measured: -0.02 %.
    assert!(
        (rates / arrived - 1.0).abs() < 0.0053,
        "summed rates {rates} vs arrivals {arrived}"
    );
    // The default pacer re-derives a pending gap at each new rate, so a gap
    // begun at the low rate is cut short when the rate rises: the flows
    // send more than their rates say (measured: rates 3.0 % below the
    // arrivals), beyond the 0.53 % the window's edges allow.
    let (rates, arrived) = rates_and_arrivals(&t2_avq_small("restart"));
    assert!(
        rates / arrived < 1.0 - 0.0053,
        "summed rates {rates} vs arrivals {arrived}"
    );
}
