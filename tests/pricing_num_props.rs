//! Congestion pricing against the NUM oracle on random multi-link networks
//! (Zimmermann (2005) section 3.2: sources that move their window until
//! `w = p x`, with links that price their excess load, solve the weighted
//! proportionally fair problem `max sum w_n ln x_n` subject to the
//! capacities). The packet-level system is the direct window update
//! (`cc = "cp_tcp"`, eq. 4.2.3) over REM links with PC3 and explicit price
//! feedback; the reference is `analysis::num::alpha_fair` at alpha = 1 over
//! the same paths and capacities, an optimisation the simulator does not run.
//!
//! Networks: parking lots of 2-3 hops of 20-50 Mb/s (one-way hop delays
//! 5-20 ms, access delays 20-40 ms), one long flow over every hop and one
//! cross flow per hop, weights w in [100, 300] packets/s, 1000-B packets.
//! Every link is a bottleneck of some flow, so the optimum prices all of them.
//!
//! Gains: kappa_bar = 0.3 and PC3's gamma = 1e-4 per packet/ms (alpha 0.1,
//! b0 10 packets, 1-ms updates) keep the price loop's gain, gamma C /
//! lambda times the RTT, below one on these links; the thesis's E1 gamma of
//! 0.001 is ten times that here (slower links, longer RTTs than E1's).
//!
//! Tolerance per flow, on its throughput over [60, 120] s against its optimum:
//! `1.5 / W* + 0.02`, W* its optimal window in segments (rate x base RTT
//! plus the b0 = 10 packets of queue per link at the optimum). The transport
//! sends whole segments, so a real-valued window W delivers between
//! floor(W) and W segments per round trip: a bias of up to one segment in
//! W*; the extra half segment and the 2 % cover the remaining price
//! fluctuation of REM's 1-ms updates (measured deviations are listed by
//! the test's output). Windows are kept >= 20 segments by the ranges above.

use analysis::num::{alpha_fair, NumFlow};
use proptest::prelude::*;
use topology::Resolved;

const PKT_BITS: f64 = 8000.0;
const B0: f64 = 10.0;

#[derive(Debug)]
struct Case {
    caps_mbps: Vec<u32>,
    delays_ms: Vec<u32>,
    access_ms: u32,
    /// Weights: the long flow's, then one per hop.
    w_long: u32,
    w_cross: Vec<u32>,
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..=3).prop_flat_map(|hops| {
        (
            proptest::collection::vec(20u32..=50, hops),
            proptest::collection::vec(5u32..=20, hops),
            20u32..=40,
            100u32..=300,
            proptest::collection::vec(100u32..=300, hops),
        )
            .prop_map(|(caps_mbps, delays_ms, access_ms, w_long, w_cross)| Case {
                caps_mbps,
                delays_ms,
                access_ms,
                w_long,
                w_cross,
            })
    })
}

fn scenario(c: &Case) -> String {
    let hops = c.caps_mbps.len();
    let per_hop: Vec<String> = c
        .caps_mbps
        .iter()
        .zip(&c.delays_ms)
        .map(|(cap, d)| format!("{{ capacity = \"{cap}Mbps\", delay = \"{d}ms\" }}"))
        .collect();
    let mut s = format!(
        r#"
name = "pricing-num"
[run]
duration = "120s"
warmup = "60s"
seed = 57
[topology]
kind = "parking_lot"
hops = {hops}
link = {{ capacity = "10Mbps", delay = "5ms", buffer = "100000pkt", algo = {{ kind = "rem", price_rule = "pc3", feedback = "explicit", gamma = 0.0001, alpha = 0.1, b0 = {B0}, interval = "1ms", mean_pkt_size = "1000B" }}, reverse = {{ algo = {{ kind = "drop_tail" }} }} }}
per_hop = [{per_hop}]
access = {{ capacity = "10Gbps", delay = "{access}ms", buffer = "100000pkt" }}
[[flows]]
name = "long"
from = "src"
to = "dst"
packet_size = "1000B"
cc = {{ kind = "cp_tcp", w = {wl}.0, kappa_bar = 0.3 }}
"#,
        per_hop = per_hop.join(", "),
        access = c.access_ms,
        wl = c.w_long,
    );
    for (h, w) in c.w_cross.iter().enumerate() {
        let k = h + 1;
        s += &format!(
            r#"
[[flows]]
name = "c{k}"
from = "cs{k}"
to = "cd{k}"
packet_size = "1000B"
cc = {{ kind = "cp_tcp", w = {w}.0, kappa_bar = 0.3 }}
"#
        );
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn the_direct_window_update_reaches_the_weighted_proportionally_fair_optimum(c in case()) {
        let hops = c.caps_mbps.len();
        let out = Resolved::parse(&scenario(&c), "prop").unwrap().build(1, 0).unwrap().run();
        // The oracle, in packets/s, over the capacity each hop carried.
        // PC3 with the direct window update leaves part of a link idle in
        // its price cycles (the price falls to 0 while the queue is below b0
        // and the windows climb back by kappa_bar w RTT per round trip;
        // measured 84-99 % here, and the thesis's own EPF runs carry 93 %,
        // Table 4.3.3): the claim checked is the split of what the links
        // carry. The 75 % floor only catches a stalled network.
        let hop = |h: usize| out.links.iter().find(|l| l.name == format!("r{h}->r{}", h + 1)).unwrap();
        for h in 0..hops {
            let u = hop(h).utilisation();
            println!("hop {h}: utilisation {u:.4}");
            prop_assert!(u >= 0.75, "hop {h}: utilisation {u}");
        }
        let caps: Vec<f64> = c
            .caps_mbps
            .iter()
            .enumerate()
            .map(|(h, m)| hop(h).utilisation() * f64::from(*m) * 1e6 / PKT_BITS)
            .collect();
        let mut flows = vec![NumFlow { links: (0..hops).collect(), weight: f64::from(c.w_long), demand: f64::INFINITY }];
        flows.extend(c.w_cross.iter().enumerate().map(|(h, w)| NumFlow { links: vec![h], weight: f64::from(*w), demand: f64::INFINITY }));
        let opt = alpha_fair(&caps, &flows, 1.0);
        prop_assert!(opt.kkt_residual < 1e-9);
        // Base RTTs: access both ways, the hops' delays both ways (reverse
        // hops mirror the forward ones), 1000-B serialisation neglected.
        let access = 2.0 * 2.0 * f64::from(c.access_ms) / 1e3;
        let rtt = |links: &[usize]| access + links.iter().map(|&l| 2.0 * f64::from(c.delays_ms[l]) / 1e3 + B0 / caps[l]).sum::<f64>();
        for (i, f) in flows.iter().enumerate() {
            let got = out.flows[i].throughput_bps().unwrap() / PKT_BITS;
            let want = opt.rates[i];
            let w_star = want * rtt(&f.links);
            let tol = 1.5 / w_star + 0.02;
            println!("flow {i} ({} links, w {}): {got:.1} vs {want:.1} pkts/s ({:+.2} %, W* {w_star:.1}, tolerance {:.1} %)",
                f.links.len(), f.weight, 100.0 * (got / want - 1.0), 100.0 * tol);
            prop_assert!(w_star >= 15.0, "window {w_star} below the test's range");
            prop_assert!((got / want - 1.0).abs() <= tol, "flow {i}: {got} vs {want}");
        }
    }
}
