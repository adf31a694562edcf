//! Property test (issue 5): on random single-bottleneck set-ups QLB, XCP and
//! RCP converge to full utilisation with no drops and equal rates.
//!
//! Ranges: 1-20 users, bottleneck 10-200 Mb/s, one-way bottleneck delay
//! 5-100 ms (round trips 10-200 ms plus 0.5-ms access increments), buffers of
//! one bandwidth-delay product (at least 200 packets), q_ref = 50 packets for
//! QLB, XCP's and RCP's defaults; users join one per 50 ms and 10 s are
//! measured after 150 round trips of the slowest user (at least 30 s). Thresholds: utilisation at least 98 % (RCP,
//! whose law trades utilisation for queue: within 0.3 points of its law's
//! fixed point for the measured queue, and at least 95 %; see the test) and Jain at least 0.98 (the issue's), zero drops in the
//! measured window (the paper's; RCP may drop while flows join, its known
//! start-up overshoot).

use proptest::prelude::*;
use topology::Resolved;

/// The explicit-rate protocols under test.
const PROTOCOLS: [&str; 3] = ["qlb", "xcp", "rcp"];

fn scenario(users: u32, mbps: u32, delay_ms: u32, protocol: &str) -> String {
    let pkts_per_s = f64::from(mbps) * 1e6 / 8000.0;
    let rtt = 4.0 * f64::from(delay_ms) / 1000.0 + f64::from(users) * 0.0005;
    let buffer = ((pkts_per_s * rtt) as u32).max(200);
    // The window opens after 150 round trips of the slowest user (at least
    // 30 s): the control period of all three laws is the round trip, and
    // QLB's start-up at the longest round trips here (0.4 s) overshoots into
    // a queue of a bandwidth-delay product, swings for some 60 periods and
    // then lets its estimate of N decay at gain 0.1 per period (18 users,
    // 179 Mb/s, 86 ms: 95 % used in [30, 40] s, 100 % from 150 periods on;
    // scenarios/papers/qlb/README.md, Exp. 2).
    let warmup = (150.0 * rtt).ceil().max(30.0);
    let cc = format!(r#"{{ kind = "{protocol}" }}"#);
    let algo = if protocol == "qlb" {
        r#"{ kind = "qlb", q_ref = "50pkt" }"#.to_string()
    } else {
        cc.clone()
    };
    format!(
        r#"
name = "qlb-random"
[run]
duration = "{end}s"
warmup = "{warmup}s"
replications = 1
seed = 1
[topology]
kind = "dumbbell"
pairs = {users}
bottleneck = {{ capacity = "{mbps}Mbps", delay = "{delay_ms}ms", buffer = "{buffer}pkt", algo = {algo}, reverse = {{ algo = {{ kind = "drop_tail" }} }} }}
access = {{ capacity = "1Gbps", delay = "{delay_ms}ms", buffer = "{buffer}pkt" }}
access_delay_step = "0.5ms"
egress = {{ capacity = "1Gbps", delay = "0ms", buffer = "{buffer}pkt" }}
[[flows]]
name = "u"
count = {users}
from = "s{{i}}"
to = "d{{i}}"
packet_size = "1000B"
start_spacing = "50ms"
cc = {cc}
"#,
        end = warmup + 10.0
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn explicit_rate_protocols_fill_a_random_bottleneck_fairly_without_drops(
        users in 1u32..=20,
        mbps in 10u32..=200,
        delay_ms in 5u32..=100,
        which in 0usize..3,
    ) {
        let protocol = PROTOCOLS[which];
        let r = Resolved::parse(&scenario(users, mbps, delay_ms, protocol), "q").unwrap();
        let out = r.build(1, 0).unwrap().run();
        let b = out.links.iter().find(|l| l.name == "r1->r2").unwrap();
        let util = b.utilisation();
        // RCP's fixed point with a standing queue q is y = C - beta q/(alpha d)
        // (its law, spec seed-002 2.6; alpha 0.4, beta 1): RCP gives up
        // utilisation for queue by design, and at a small bandwidth-delay
        // product a fraction of a packet of mean queue costs percents of C
        // (8 users, 12 Mb/s, 5 ms: mean queue 0.31 kB, d ~ 23 ms, 97.81 %
        // measured). So RCP is held to its law rather than to 98 %: the
        // utilisation within 0.3 percentage points of the law's for the
        // measured mean queue, with d the mean base RTT (RCP's average RTT
        // also holds the queueing delay q / C, which moves the law's value by
        // less than that here), and at least 95 % in any case.
        if protocol == "rcp" {
            let d = 4.0 * f64::from(delay_ms) / 1000.0 + f64::from(users - 1) * 0.0005;
            let c = f64::from(mbps) * 1e6 / 8.0;
            let law = 1.0 - b.backlog_mean_bytes() / (0.4 * d * c);
            prop_assert!(
                (util - law).abs() <= 0.003,
                "RCP's utilisation {util} is off its law's {law}"
            );
            prop_assert!(util >= 0.95, "utilisation {util} < 0.95 (rcp)");
        } else {
            prop_assert!(util >= 0.98, "utilisation {util} < 0.98 ({protocol})");
        }
        prop_assert_eq!(out.links.iter().map(|l| l.counters.dropped_total().pkts).sum::<u64>(), 0);
        let rates: Vec<f64> = out.flows.iter().map(|f| f.throughput_bps().unwrap_or(0.0)).collect();
        let jain = analysis::stats::jain(&rates);
        prop_assert!(jain >= 0.98, "Jain {jain} ({protocol}): {rates:?}");
    }
}
