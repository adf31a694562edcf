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

/// The pages of replication `o`, by session then request time.
fn pages_by_session(o: &RunOutput) -> Vec<Vec<sim_core::PageReport>> {
    let n = o.pages.iter().map(|p| p.session + 1).max().unwrap_or(0);
    let mut v = vec![Vec::new(); n as usize];
    for p in &o.pages {
        v[p.session as usize].push(*p);
    }
    for s in &mut v {
        s.sort_by_key(|p| p.requested);
    }
    v
}

#[test]
fn a_closed_loop_page_waits_for_its_main_object_and_the_next_for_the_page() {
    // Fixed sizes and times on the uncongested path (RTT 20 ms): the main
    // object (10 segments) takes two round trips; the two in-line objects
    // are requested 5 ms and 10 ms after it arrives and take two round
    // trips each; the next page comes exactly 1 s after the last arrival.
    // Open loop the same page takes 10 ms of requests plus two round trips.
    let keys = "object_size = { dist = \"fixed\", size = \"10000B\" }\n\
                objects = { dist = \"fixed\", n = 3 }\n\
                inter_object = { dist = \"fixed\", duration = \"5ms\" }\n\
                inter_page = { dist = \"fixed\", duration = \"1s\" }\n";
    let rtt = 0.020;
    for (timing, page_time) in [
        ("closed_loop", 4.0 * rtt + 0.010),
        ("open_loop", 2.0 * rtt + 0.010),
    ] {
        let src = web_scenario(4, &format!("{keys}page_timing = \"{timing}\""), 1, 30.0);
        let out = run(&src);
        let sessions = pages_by_session(&out[0]);
        assert_eq!(sessions.len(), 4, "{timing}");
        for pages in &sessions {
            assert!(pages.len() >= 20, "{timing}: {} pages", pages.len());
            for p in pages {
                assert_eq!((p.objects, p.bytes), (3, 30_000), "{timing}");
                let t = p.completion_secs();
                // Plus at most the segments' transmission and queueing
                // behind the session's own objects (1 ms).
                assert!(
                    t >= page_time && t <= page_time + 0.001,
                    "{timing}: page took {t} s"
                );
            }
            for w in pages.windows(2) {
                let gap = (w[1].requested - w[0].completed).as_secs_f64();
                let from_request = (w[1].requested - w[0].requested).as_secs_f64();
                if timing == "closed_loop" {
                    assert_eq!(gap, 1.0, "think time from the last arrival");
                } else {
                    // Open loop: 1 s after the page's last request.
                    assert!((from_request - 1.010).abs() < 1e-9, "{from_request}");
                }
            }
        }
    }
}

/// The interactive response time law (Denning and Buzen, "The operational
/// analysis of queueing network models", Computing Surveys 1978): N
/// sessions that each wait a think time Z after a page arrives and then
/// request the next complete X = N / (R + Z) pages per second, R the mean
/// page time, whatever the network does to R. Over a 10 Mb/s bottleneck
/// that 50 sessions overload (12 Mb/s if pages took no time), R grows until
/// the law balances; an open-loop session (think time from the last
/// request) would not obey it.
#[test]
fn closed_loop_sessions_obey_the_interactive_response_time_law() {
    let src = r#"
name = "web-closed"
[run]
duration = "125s"
warmup = "25s"
replications = 6
seed = 5

[[nodes]]
name = "a"
[[nodes]]
name = "r"
[[nodes]]
name = "b"

[[links]]
from = "a"
to = "r"
capacity = "1Gbps"
delay = "1ms"
buffer = "unlimited"
[[links]]
from = "r"
to = "b"
capacity = "10Mbps"
delay = "20ms"
buffer = "100pkt"

[[flows]]
name = "web"
from = "a"
to = "b"
packet_size = "1000B"
[flows.traffic]
kind = "web"
sessions = 50
pages = { dist = "fixed", n = 1000000 }
objects = { dist = "fixed", n = 3 }
object_size = { dist = "exponential", mean = "10000B" }
inter_page = { dist = "fixed", duration = "1s" }
page_timing = "closed_loop"
"#;
    let out = run(src);
    let z = 1.0;
    let ratios: Vec<f64> = out
        .iter()
        .map(|o| {
            let from = o.end_secs - o.window_secs;
            let done: Vec<&sim_core::PageReport> = o
                .pages
                .iter()
                .filter(|p| p.completed.as_secs_f64() >= from)
                .collect();
            let r = done.iter().map(|p| p.completion_secs()).sum::<f64>() / done.len() as f64;
            let x = done.len() as f64 / o.window_secs;
            println!("X {x:.3} pages/s, R {r:.3} s");
            assert!(r > 0.2, "the bottleneck must slow pages down: R = {r}");
            x * (r + z) / 50.0
        })
        .collect();
    check("X (R + Z) / N", 1.0, &ratios, 0.02);
}

#[test]
fn closed_loop_needs_fresh_connections() {
    let src = web_scenario(
        1,
        "connection = \"persistent\"\npage_timing = \"closed_loop\"",
        1,
        10.0,
    );
    let Err(err) = Resolved::parse(&src, "web") else {
        panic!("a persistent closed-loop session was accepted");
    };
    let err = err.to_string();
    assert!(err.contains("page_timing"), "{err}");
}
