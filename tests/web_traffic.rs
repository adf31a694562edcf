//! The web traffic model (`traffic = { kind = "web" }`) on an uncongested
//! path, against closed forms that do not depend on the code:
//!
//! - Offered load (renewal-reward theorem, e.g. Ross, *Stochastic
//!   Processes*, 2nd ed., Thm 3.6.1): a session repeats cycles of one page,
//!   a page of N objects requested `inter_object` apart followed by an
//!   `inter_page` gap, so each session offers E[N] E[S] bytes per mean cycle
//!   (E[N] - 1) E[inter_object] + E[inter_page]; on a path that never
//!   queues, the group's goodput is that rate times the number of sessions,
//!   and its object count the cycle rate times E[N].
//! - Object completion time under slow start (RFC 5681 section 3.1): an
//!   object of 10 segments with an initial window of 4 (RFC 5681's rule for
//!   1000-B segments) and one ACK per segment takes two round trips (4, then
//!   the 6 left within a window of 8) plus the segments' transmission times;
//!   on a persistent connection the window the first object opened (14
//!   segments) carries every later one in one round trip.
//!
//! Statistics as in tests/queueing.rs: independent replications, the
//! Student-t interval of their means at 99.9 %, and a bound on its half-width
//! so that a short run cannot pass by being vague.

use analysis::Summary;
use rayon::prelude::*;
use sim_core::{FlowReport, RunOutput};
use topology::Resolved;

const LEVEL: f64 = 0.999;

/// Two hosts `a -> b` on 1 Gb/s, 10 ms one way; `sessions` sessions of
/// pages that never end within the run, objects sized by `size`.
fn scenario(sessions: u32, size: &str, reps: u32, secs: f64) -> String {
    web_scenario(sessions, &format!("object_size = {size}"), reps, secs)
}

fn web_scenario(sessions: u32, keys: &str, reps: u32, secs: f64) -> String {
    format!(
        r#"
name = "web"
[run]
duration = "{secs}s"
warmup = "5s"
replications = {reps}
seed = 11

[[nodes]]
name = "a"
[[nodes]]
name = "b"

[[links]]
from = "a"
to = "b"
capacity = "1Gbps"
delay = "10ms"
buffer = "unlimited"

[[flows]]
name = "web"
from = "a"
to = "b"
packet_size = "1000B"
tcp = {{ min_rto = "1s" }}
[flows.traffic]
kind = "web"
sessions = {sessions}
pages = {{ dist = "fixed", n = 1000000 }}
{keys}
"#
    )
}

fn run(src: &str) -> Vec<RunOutput> {
    let r = Resolved::parse(src, "web").unwrap_or_else(|e| panic!("{e}\n{src}"));
    let (seed, reps) = (r.scenario.run.seed, r.scenario.run.replications);
    (0..reps)
        .into_par_iter()
        .map(|k| r.build(seed, k).unwrap().run())
        .collect()
}

/// Each replication's total goodput over its window, bits/s.
fn goodputs(out: &[RunOutput]) -> Vec<f64> {
    out.iter()
        .map(|o| {
            let bytes: u64 = o.flows.iter().map(|f| f.counters.goodput_bytes).sum();
            bytes as f64 * 8.0 / o.window_secs
        })
        .collect()
}

/// The mean page cycle of the default timing, seconds: (E[N] - 1) x 10 ms
/// + 1 s with N ~ U[1, 5].
const CYCLE: f64 = 2.0 * 0.01 + 1.0;

fn check(label: &str, closed: f64, values: &[f64], precision: f64) {
    let s = Summary::with_level(values, LEVEL);
    let (lo, hi) = (s.mean - s.half_width, s.mean + s.half_width);
    println!(
        "{label}: closed form {closed:.6}, measured {:.6} +- {:.6} ({:.2} %)",
        s.mean,
        s.half_width,
        100.0 * s.half_width / closed
    );
    assert!(
        (lo..=hi).contains(&closed),
        "{label}: {closed} outside [{lo}, {hi}]"
    );
    assert!(
        s.half_width <= precision * closed,
        "{label}: interval too wide"
    );
}

#[test]
fn a_web_group_offers_the_renewal_reward_load() {
    let sessions = 50;
    let out = run(&scenario(
        sessions,
        "{ dist = \"exponential\", mean = \"10000B\" }",
        10,
        185.0,
    ));
    let per_session_bps = 3.0 * 10_000.0 * 8.0 / CYCLE;
    let goodput = goodputs(&out);
    check(
        "goodput (b/s)",
        f64::from(sessions) * per_session_bps,
        &goodput,
        0.03,
    );
    // Objects requested in the window: 3 per cycle per session.
    let objects: Vec<f64> = out
        .iter()
        .map(|o| {
            let from = o.end_secs - o.window_secs;
            o.flows
                .iter()
                .filter(|f| f.start.as_secs_f64() >= from)
                .count() as f64
                / o.window_secs
        })
        .collect();
    check(
        "objects per second",
        f64::from(sessions) * 3.0 / CYCLE,
        &objects,
        0.03,
    );
}

#[test]
fn every_ten_segment_object_takes_two_round_trips() {
    let out = run(&scenario(
        20,
        "{ dist = \"fixed\", size = \"10000B\" }",
        2,
        30.0,
    ));
    let rtt = 0.020;
    // Transmission of 10 segments at 1 Gb/s is 80 us; the ACK path adds 40-B
    // ACKs (0.32 us each). Two round trips plus at most the ten segments'
    // transmission and 1 ms of margin for objects overlapping in the queue.
    let fcts: Vec<f64> = out
        .iter()
        .flat_map(|o| o.flows.iter().filter_map(FlowReport::fct_secs))
        .collect();
    assert!(fcts.len() > 1000, "{} objects", fcts.len());
    let (min, max) = fcts
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    println!("{} objects: FCT {min:.6} .. {max:.6} s", fcts.len());
    assert!(min >= 2.0 * rtt, "{min}");
    assert!(max <= 2.0 * rtt + 0.001, "{max}");
}

#[test]
fn a_persistent_connection_offers_the_same_load_and_keeps_its_window() {
    // The offered load does not depend on how objects travel.
    let sessions = 50;
    let out = run(&web_scenario(
        sessions,
        "object_size = { dist = \"exponential\", mean = \"10000B\" }\nconnection = \"persistent\"",
        10,
        185.0,
    ));
    let goodput = goodputs(&out);
    check(
        "persistent goodput (b/s)",
        f64::from(sessions) * 3.0 * 10_000.0 * 8.0 / CYCLE,
        &goodput,
        0.03,
    );
    assert!(out.iter().all(|o| o.flows.len() == sessions as usize));

    // One 10-segment object per second per session: the first takes two
    // round trips, every later one one round trip (the window is kept).
    let out = run(&web_scenario(
        5,
        "object_size = { dist = \"fixed\", size = \"10000B\" }\n\
         objects = { dist = \"fixed\", n = 1 }\n\
         inter_page = { dist = \"fixed\", duration = \"1s\" }\n\
         connection = \"persistent\"",
        1,
        30.0,
    ));
    let objects = &out[0].objects;
    // Requests at 1, 2, ..., 29 s in each session, all complete by 30 s.
    assert_eq!(objects.len(), 5 * 29);
    let rtt = 0.020;
    for o in objects {
        let t = o.completion_secs();
        let rounds = if o.requested.as_secs_f64() < 1.5 {
            2.0
        } else {
            1.0
        };
        assert!(
            t >= rounds * rtt && t <= rounds * rtt + 0.001,
            "object requested at {} s took {t} s",
            o.requested.as_secs_f64()
        );
        assert_eq!(o.bytes, 10_000);
    }
}
