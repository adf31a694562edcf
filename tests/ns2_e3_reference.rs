//! Zimmermann (2005)'s E3 with NewReno-ECN over RED against ns-2 itself:
//! the R1 -> R2 utilisation, mean queue and mean queueing delay of
//! `scenarios/papers/pricing/e3-newreno-ecn-red.toml` (ten connections each
//! way per path) and its one-way sibling, run with netsim's ns-2 TCP
//! options (`rules = "ns2"` with its wait for the timer below one segment,
//! `tcp.ecn_rto_wait`; ns-2's timer with the file's 1-s minimum RTO; the
//! careful recover check), against ns-2.35's outputs (Debian's `ns2`
//! 2.35+dfsg-5) for seeds 1-10 of
//! `scenarios/papers/pricing/ns2/e3-newreno-ecn-red.tcl SEED WAYS file`,
//! run on 2026-11-28 and recorded below (ns-2 is not installed in CI).
//! ns-2's delay is its time-average queue over its departures per second
//! (Little's law), netsim's each departing packet's measured wait. Welch's
//! test at the 99.99 % level over the file's ten replications.
//!
//! The thesis ran Ptolemy, not ns-2: this checks netsim's model of the
//! stated set-up (RED dropping the non-ECT ACKs, the senders' timeouts and
//! recovery, which `tests/pricing_reference_model.rs` does not model), not
//! the thesis's numbers (89 %, 28.8 packets, 6.9 ms), which both
//! simulators miss the same way. With the files' own TCP (RFC 5681's
//! window arithmetic) netsim is within 0.2 points of utilisation and 2.5 %
//! of queue of ns-2 (measured 2026-11-28: two-way 86.68 % / 27.69 packets,
//! one-way 97.56 % / 28.90 against ns-2's 86.86 % / 28.33 and 97.73 % /
//! 29.64); the one-way queue's difference is the window rules' and is
//! outside this test's resolution, so the comparison runs with ns-2's.

use topology::Resolved;

#[path = "common/reference.rs"]
#[allow(dead_code)]
mod reference;

use reference::same_mean;

const TWO_WAY: &str = include_str!("../scenarios/papers/pricing/e3-newreno-ecn-red.toml");
const ONE_WAY: &str = include_str!("../scenarios/papers/pricing/e3-newreno-ecn-red-oneway.toml");

/// ns-2's utilisation, mean queue (packets) and Little delay (ms), seeds 1-10.
struct Ns2 {
    utilisation: [f64; 10],
    queue: [f64; 10],
    delay_ms: [f64; 10],
}

const NS2_TWO_WAY: Ns2 = Ns2 {
    utilisation: [
        0.86815, 0.86929, 0.86664, 0.86774, 0.86227, 0.87184, 0.86847, 0.87391, 0.87130, 0.86655,
    ],
    queue: [
        28.866, 28.786, 28.652, 29.220, 29.157, 27.866, 29.102, 27.359, 27.684, 26.657,
    ],
    delay_ms: [
        4.2652, 4.2433, 4.2346, 4.3742, 4.3301, 4.0930, 4.2984, 4.0094, 4.0615, 3.9106,
    ],
};

const NS2_ONE_WAY: Ns2 = Ns2 {
    utilisation: [
        0.97702, 0.97807, 0.97753, 0.97804, 0.97584, 0.97732, 0.97702, 0.97772, 0.97740, 0.97729,
    ],
    queue: [
        29.776, 29.576, 29.705, 29.681, 29.529, 29.665, 29.649, 29.682, 29.599, 29.571,
    ],
    delay_ms: [
        7.3134, 7.2566, 7.2921, 7.2825, 7.2615, 7.2840, 7.2823, 7.2850, 7.2671, 7.2612,
    ],
};

/// The file with ns-2's TCP: its window rules and the wait for the timer
/// below one segment, its timer (10-ms ticks, the file's 1-s minimum RTO,
/// ns-2.35's 3-s initial RTO), one timed segment per RTT, the careful
/// recover check.
fn with_ns2_tcp(file: &str) -> String {
    let cc = r#"cc = { kind = "new_reno", initial_window = 1, initial_ssthresh = 32 }"#;
    let tcp = "tcp = { ecn = true }";
    assert!(file.contains(cc) && file.contains(tcp));
    file.replace(
        cc,
        r#"cc = { kind = "new_reno", initial_window = 1, initial_ssthresh = 32, rules = "ns2" }"#,
    )
    .replace(
        tcp,
        r#"tcp = { ecn = true, ecn_rto_wait = true, rto_estimator = "ns2", clock_granularity = "10ms", min_rto = "1s", initial_rto = "3s", max_rto = "60s", rtt_samples = "once_per_rtt", careful_recover = true }"#,
    )
}

fn compare(what: &str, file: &str, ns2: &Ns2) {
    let src = with_ns2_tcp(file);
    let r = Resolved::parse(&src, "e3").expect("scenario");
    let reps = r.scenario.run.replications;
    assert_eq!(reps, 10);
    let (mut u, mut q, mut d) = (Vec::new(), Vec::new(), Vec::new());
    for rep in 0..reps {
        let out = r.build(r.scenario.run.seed, rep).expect("build").run();
        let l = out.links.iter().find(|l| l.name == "r1->r2").unwrap();
        u.push(l.utilisation());
        q.push(l.backlog_mean_pkts());
        d.push(l.qdelay_mean_secs() * 1e3);
    }
    same_mean(&format!("{what}: utilisation"), &ns2.utilisation, &u);
    same_mean(&format!("{what}: mean queue"), &ns2.queue, &q);
    same_mean(&format!("{what}: queueing delay (ms)"), &ns2.delay_ms, &d);
}

#[test]
fn newreno_ecn_over_red_two_way_matches_ns2() {
    compare("two-way", TWO_WAY, &NS2_TWO_WAY);
}

#[test]
fn newreno_ecn_over_red_one_way_matches_ns2() {
    compare("one-way", ONE_WAY, &NS2_ONE_WAY);
}
