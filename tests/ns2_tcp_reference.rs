//! netsim's ns-2 TCP against ns-2 itself: 25 NewReno flows under Bernoulli
//! packet loss with the TCP of the ns-2 of April 2001 (the set-up of
//! `scenarios/papers/pcc/ns2/tcp-random-loss-2001.toml`, the TCP side of
//! Damm (2001)'s E7), at 2, 5 and 10 % loss. The reference values are
//! ns-2.35's outputs (Debian's `ns2` 2.35+dfsg-5) for seeds 1-6 of
//! `scenarios/papers/pcc/ns2/tcp-random-loss.tcl LOSS SEED 2001 100000`,
//! run on 2026-11-28 and recorded below (ns-2 is not installed in CI):
//! packets acknowledged per flow per second and the timeouts of all 25
//! flows. Each mean is compared with Welch's test at the 99.99 % level
//! over six netsim replications.
//!
//! What it resolves (measured 2026-11-28, each rule of the file's taken
//! out alone): RFC 5681's window arithmetic in place of `rules =
//! "ns2_integer"` (5 % loss: 36.8 packets/s per flow, t -9.7); the Less
//! Careful recover check (2 %: 497 timeouts against 601, t 6.2); the timer
//! restarted after the sample (10 %: 5811 timeouts against 5556, t -8.2);
//! all of them and RFC 6582's partial ACKs together (2 %: 74.5 packets/s,
//! t -9.3). RFC 6582's partial ACKs alone (deflation, the timer restarted
//! at the first partial ACK only) stay within it (timeouts t -1.9).
//! With ns-2.35's defaults, RFC 3042's limited transmit in place of ns-2's
//! (`limited_transmit_ns2`: the next segment, a go-back-N retransmission
//! too) leaves netsim 3 % low at 10 % loss (24.0 packets/s per flow against
//! 24.8, t 6.7): measured, but just inside the test's 99.99 % bound with
//! six replications a side, so not a rule this test resolves.

#[path = "common/reference.rs"]
#[allow(dead_code)]
mod reference;

use reference::same_mean;
use topology::Resolved;

const FILE: &str = include_str!("../scenarios/papers/pcc/ns2/tcp-random-loss-2001.toml");

/// ns-2's packets acknowledged per flow per second (`ack_` / 300 s,
/// averaged over the 25 flows) and timeouts (`nrexmit_`, summed), seeds 1-6.
const NS2: [(f64, [f64; 6], [f64; 6]); 3] = [
    (
        0.02,
        [72.3236, 72.3945, 71.8365, 71.4435, 70.8851, 71.1628],
        [581.0, 567.0, 607.0, 607.0, 641.0, 600.0],
    ),
    (
        0.05,
        [35.2368, 35.3727, 34.8652, 35.0083, 34.4883, 34.8228],
        [2616.0, 2671.0, 2718.0, 2687.0, 2765.0, 2644.0],
    ),
    (
        0.1,
        [16.5687, 15.9073, 16.0473, 16.2051, 15.9779, 15.6980],
        [5530.0, 5545.0, 5467.0, 5595.0, 5666.0, 5535.0],
    ),
];

/// The same for ns-2.35's defaults (`tcp-random-loss.tcl LOSS SEED 2.35
/// 100000`): 10-ms ticks, minrto_ 0.2 s, rtxcur_init_ 3 s, windowInit_ 2,
/// float reductions, RFC 6582's partial ACKs, limited transmit.
const NS2_235: [(f64, [f64; 6], [f64; 6]); 3] = [
    (
        0.02,
        [77.9749, 77.7384, 77.9611, 77.0564, 76.5579, 77.2673],
        [634.0, 663.0, 665.0, 629.0, 670.0, 659.0],
    ),
    (
        0.05,
        [42.8616, 43.4024, 42.7961, 42.9793, 42.5088, 42.6444],
        [2750.0, 2635.0, 2637.0, 2735.0, 2823.0, 2648.0],
    ),
    (
        0.1,
        [24.8837, 24.9941, 24.8637, 24.7587, 24.5435, 24.7713],
        [6730.0, 6690.0, 6798.0, 6823.0, 6936.0, 6800.0],
    ),
];

/// The file's flows with netsim's settings for ns-2.35's defaults.
fn era_235(file: &str) -> String {
    let cc = r#"cc = { kind = "new_reno", initial_window = 1, rules = "ns2_integer" }"#;
    let tcp = r#"tcp = { rtt_samples = "once_per_rtt", rto_estimator = "ns2", clock_granularity = "100ms", min_rto = "0s", initial_rto = "6s", max_rto = "64s", partial_window_deflation = false, partial_ack_timer = "every", careful_recover = true, timer_before_sample = true }"#;
    assert!(file.contains(cc) && file.contains(tcp));
    file.replace(cc, r#"cc = { kind = "new_reno", initial_window = 2, rules = "ns2" }"#)
        .replace(
            tcp,
            r#"tcp = { rtt_samples = "once_per_rtt", rto_estimator = "ns2", clock_granularity = "10ms", min_rto = "200ms", initial_rto = "3s", max_rto = "60s", careful_recover = true, limited_transmit = true, limited_transmit_ns2 = true }"#,
        )
}

/// Packets acknowledged per flow per second and timeouts, per replication.
fn netsim(file: &str, loss: f64) -> (Vec<f64>, Vec<f64>) {
    let src = file.replace("loss = 0.05,", &format!("loss = {loss},"));
    assert_eq!(src.matches(&format!("loss = {loss},")).count(), 1);
    let r = Resolved::parse(&src, "ns2-tcp").expect("scenario");
    let (mut rate, mut timeouts) = (Vec::new(), Vec::new());
    for rep in 0..6 {
        let o = r.build(r.scenario.run.seed, rep).expect("build").run();
        let acked: u64 = o.flows.iter().map(|f| f.counters.goodput_bytes).sum();
        let to: u64 = o.flows.iter().map(|f| f.counters.timeouts).sum();
        assert_eq!(o.flows.len(), 25);
        rate.push(acked as f64 / 1000.0 / 25.0 / 300.0);
        timeouts.push(to as f64);
    }
    (rate, timeouts)
}

#[test]
fn ns2_newreno_of_2001_under_random_loss_matches_ns2() {
    for (loss, rate, timeouts) in NS2 {
        let (r, t) = netsim(FILE, loss);
        same_mean(&format!("{loss} loss: packets/s per flow"), &rate, &r);
        same_mean(&format!("{loss} loss: timeouts"), &timeouts, &t);
    }
}

#[test]
fn ns2_newreno_of_2_35_under_random_loss_matches_ns2() {
    let file = era_235(FILE);
    for (loss, rate, timeouts) in NS2_235 {
        let (r, t) = netsim(&file, loss);
        same_mean(&format!("2.35, {loss} loss: packets/s per flow"), &rate, &r);
        same_mean(&format!("2.35, {loss} loss: timeouts"), &timeouts, &t);
    }
}
