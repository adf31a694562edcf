//! PCC (Damm 2001, spec `seed-004-damm-pcc.md`) on a small dumbbell: a flow
//! far below its TCP-friendly rate stays on; PCC flows at 3x the fair rate
//! alone on a link are on about a third of the time (spec §3 item 3); the
//! receiver's off signal stops the sender within one round trip.

use sim_core::{FlowId, RunOutput, Subject};
use topology::Resolved;

fn run(src: &str, seed: u64) -> RunOutput {
    Resolved::parse(src, "pcc")
        .expect("scenario")
        .build(seed, 0)
        .expect("build")
        .run()
}

/// A dumbbell of `pairs` host pairs, `mbps` bottleneck with `delay_ms` one
/// way, 1 ms access links; `run` holds the `[run]` keys besides the
/// replications and seed; `flows` is appended as written.
fn dumbbell(run: &str, pairs: u32, mbps: f64, delay_ms: u32, buffer: u32, flows: &str) -> String {
    format!(
        r#"
[run]
{run}
replications = 1
seed = 1

[topology]
kind = "dumbbell"
pairs = {pairs}
bottleneck = {{ capacity = "{mbps}Mbps", delay = "{delay_ms}ms", buffer = "{buffer}pkt" }}
access = {{ capacity = "1000Mbps", delay = "1ms", buffer = "10000pkt" }}
{flows}
"#
    )
}

/// r_NA = 100 kb/s beside one TCP flow on 10 Mb/s (fair rate 5 Mb/s): every
/// experiment has p_ON >= 1 (r_TCP far above r_NA, or infinite before a
/// loss event), so the flow never turns off and delivers r_NA.
#[test]
fn a_pcc_flow_far_below_its_tcp_friendly_rate_stays_on() {
    let src = dumbbell(
        "duration = \"120s\"
warmup = \"0s\"",
        2,
        10.0,
        20,
        100,
        r#"
[[flows]]
name = "pcc"
from = "s0"
to = "d0"
packet_size = "1000B"
transport = "pcc"
pcc = { rate = "100kbps" }

[[flows]]
name = "tcp"
from = "s1"
to = "d1"
packet_size = "1000B"
"#,
    );
    let o = run(&src, 3);
    let f = &o.flows[0];
    // Experiments every 2 s from the end of protected time (30 s at most).
    assert!(f.counters.pcc_experiments >= 45, "{:?}", f.counters);
    assert_eq!(f.counters.pcc_failed, 0);
    assert_eq!(f.counters.pcc_off_periods, 0);
    let on = f.pcc_on_frac().unwrap();
    assert!(on > 0.99, "on {on}");
    // It delivered r_NA: 1500 packets in 120 s whose dithered gaps (uniform
    // in [0.5, 1.5] x nominal) give the count a relative sd of
    // 0.5 / sqrt(3 n) = 0.75 %; 3 % is 4 sd (drops at this rate are rare).
    let thr = f.throughput_bps().unwrap();
    assert!((thr - 100e3).abs() < 3e3, "throughput {thr}");
    // The TCP flow got the rest of the link.
    assert!(o.flows[1].throughput_bps().unwrap() > 9e6);
}

/// Spec §3 item 3: a flow sending at x times its TCP-friendly rate is on
/// about 1/x of the time. 20 PCC flows at 3x the fair rate (fair: 32 pkt/s
/// of 1000 B on 5.12 Mb/s, 256 kb/s; r_NA 768 kb/s), alone on the link,
/// standard parameters, 100 ms round-trip propagation delay.
///
/// Tolerance: the thesis calls a share within 30-70 % acceptable where 50 %
/// is exact (spec §3 item 7), i.e. within 40 % of the ideal either way; the
/// same relative band around 1/3 is [0.2, 0.47] for the mean fraction of
/// time on. PCC-only links run below the ideal above the fair rate (thesis
/// Fig. 6.12), so the band is not centred on the expected bias.
#[test]
fn pcc_flows_at_three_times_the_fair_rate_are_on_a_third_of_the_time() {
    let src = dumbbell(
        "duration = \"1500s\"
warmup = \"300s\"",
        20,
        5.12,
        48,
        64,
        r#"
[[flows]]
name = "pcc"
count = 20
from = "s{i}"
to = "d{i}"
packet_size = "1000B"
start_jitter = "10s"
transport = "pcc"
pcc = { rate = "768kbps" }
"#,
    );
    let o = run(&src, 11);
    let fracs: Vec<f64> = o.flows.iter().map(|f| f.pcc_on_frac().unwrap()).collect();
    let mean = fracs.iter().sum::<f64>() / fracs.len() as f64;
    assert!(
        (0.2..=0.47).contains(&mean),
        "mean on fraction {mean}: {fracs:?}"
    );
    let failed: u64 = o.flows.iter().map(|f| f.counters.pcc_failed).sum();
    assert!(failed >= 20, "{failed} failed experiments");
}

/// Spec 2.11: a failed experiment sends rate 0 at once and the sender stops
/// when it arrives, within one round trip. With `n_le` out of reach protected
/// time ends at exactly `t_prot_max` = 5 s after the first data packet
/// reached the receiver; r_NA = 10x the bottleneck gives p_ON < 0 (Eq. 4.7)
/// and a certain turn-off then, at t_f in [5 s, 5 s + the first packet's
/// one-way delay].
#[test]
fn the_off_signal_stops_the_sender_within_one_rtt() {
    let src = dumbbell(
        "duration = \"20s\"
warmup = \"0s\"
sample_interval = \"5ms\"
series = [\"flow_rate\"]",
        1,
        1.0,
        20,
        20,
        r#"
[[flows]]
name = "pcc"
from = "s0"
to = "d0"
packet_size = "1000B"
transport = "pcc"
pcc = { rate = "10Mbps", n_le = 1000, t_prot_max = "5s" }
"#,
    );
    let o = run(&src, 5);
    let f = &o.flows[0];
    assert_eq!(f.counters.pcc_experiments, 1);
    assert_eq!(f.counters.pcc_failed, 1);
    assert_eq!(f.counters.pcc_off_periods, 1);
    // First packet's one-way delay: 1 + 20 + 1 ms propagation plus three
    // serialisations (8 us, 8 ms, 8 us): under 31 ms. Round trip without
    // queueing (the reverse path carries only 40-B control packets): 44 ms.
    let t_f_max = 5.0 + 0.031;
    let rtt = 0.044 + 0.001;
    let rates: Vec<(f64, f64)> = o
        .series
        .iter()
        .filter(|p| p.subject == Subject::Flow(FlowId(0)) && p.metric == "rate_bps")
        .map(|p| (p.time, p.value))
        .collect();
    assert!(rates.len() > 3000);
    for &(t, r) in &rates {
        if t < 5.0 {
            assert!(r > 0.0, "off at {t} before the experiment");
        } else if t >= t_f_max + rtt {
            assert_eq!(r, 0.0, "still sending at {t}");
        }
    }
}
