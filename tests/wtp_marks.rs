//! WTP end to end on the engine: the mark-rate identity and loss-free operation.
//!
//! Seed 001, spec section 3.1: at equilibrium a WTP flow receives `w̄` marks per
//! RTT (marks per second `w̄ / RTT`), whatever the marker and the other flows;
//! this is what Eq. (5)'s fixed point means. With a real window the number of
//! packets per RTT is the integer flight `floor(cwnd)`-ish, between `cwnd − 1`
//! and `cwnd`, and the mark fraction is `w̄ / cwnd`, so the marks per RTT lie in
//! `[w̄ (1 − 1/cwnd), w̄]` (DERIVED). The test checks the measured mark rate of
//! each class against that interval, with the RTT measured as propagation +
//! serialisation + mean queueing delay, and allows 1 % for the RTT estimate.

use sim_core::GroupId;
use topology::Resolved;

const SCENARIO: &str = r#"
name = "wtp-marks"
[run]
duration = "120s"
warmup = "40s"
replications = 1
seed = 7
[topology]
kind = "dumbbell"
pairs = 10
bottleneck = { capacity = "10Mbps", delay = "99ms", buffer = "unlimited", algo = { kind = "threshold", k_pkts = 30 } }
access = { capacity = "1Gbps", delay = "0.5ms", buffer = "unlimited" }
[[flows]]
name = "low"
count = 5
from = "s{i}"
to = "d{i}"
packet_size = "1000B"
start_jitter = "5s"
cc = { kind = "wtp", weight = 1.0 }
tcp = { ecn = true }
[[flows]]
name = "high"
count = 5
from = "s{i+5}"
to = "d{i+5}"
packet_size = "1000B"
start_jitter = "5s"
cc = { kind = "wtp", weight = 4.0, variant = "ipd" }
tcp = { ecn = true }
"#;

#[test]
fn each_wtp_flow_receives_its_willingness_to_pay_in_marks_per_rtt() {
    let r = Resolved::parse(SCENARIO, "t").unwrap();
    let out = r.build(r.scenario.run.seed, 0).unwrap().run();
    let link = out.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert_eq!(link.counters.dropped_total().pkts, 0, "loss-free by design");
    assert!(out.flows.iter().all(|f| f.counters.retx_pkts == 0));

    // RTT = 2 x (99 + 0.5 + 0.5) ms + one 1000-B serialisation at 10 Mb/s
    // (0.8 ms; the 1 Gb/s hops and the 40-B ACKs add < 0.05 ms) + queueing.
    let rtt = 0.2 + 0.0008 + link.qdelay_mean_secs();
    let window = out.window_secs;
    for (group, weight) in [(0u32, 1.0f64), (1, 4.0)] {
        let flows: Vec<_> = out
            .flows
            .iter()
            .filter(|f| f.group == GroupId(group))
            .collect();
        let marks: u64 = flows.iter().map(|f| f.counters.ce_pkts).sum();
        let marks_per_rtt = marks as f64 / window * rtt / flows.len() as f64;
        let rate_bps: f64 = flows
            .iter()
            .map(|f| f.throughput_bps().unwrap())
            .sum::<f64>()
            / flows.len() as f64;
        let cwnd = rate_bps * rtt / 8000.0;
        let (lo, hi) = (weight * (1.0 - 1.0 / cwnd), weight);
        assert!(
            marks_per_rtt >= lo * 0.99 && marks_per_rtt <= hi * 1.01,
            "group {group}: {marks_per_rtt:.4} marks per RTT, expected in [{lo:.4}, {hi:.4}] \
             (w̄ = {weight}, cwnd ≈ {cwnd:.1})"
        );
    }
}
