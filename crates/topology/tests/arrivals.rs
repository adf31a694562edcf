//! Flows with drawn lifetimes (`poisson_arrivals` with `duration` and
//! `count`), per-flow packet sizes and extra delays drawn from ranges, and the
//! errors for bad input.

use rand::Rng;
use sim_core::{stream, StreamKind, Subject};
use topology::Resolved;

/// One 100 kb/s link a -> b (10 ms each way) and a group `g` whose
/// `traffic` and extra keys are filled in.
fn scenario(run: &str, group: &str) -> String {
    format!(
        r#"
[run]
{run}

[[nodes]]
name = "a"
[[nodes]]
name = "b"

[[links]]
from = "a"
to = "b"
capacity = "100kbps"
delay = "10ms"
buffer = "1000pkt"

[[flows]]
name = "g"
from = "a"
to = "b"
{group}
"#
    )
}

#[test]
fn a_mice_group_creates_count_flows_that_live_their_drawn_lifetimes() {
    // E6.1's mice: 500 arrivals, mean gap 0.2 s from 15 s, log-normal
    // lifetimes of mean 10 s (sigma 1). A slow link keeps the run cheap.
    let src = scenario(
        "duration = \"400s\"",
        r#"packet_size = "1000B"
start = "15s"
tcp = { reliable = false }
traffic = { kind = "poisson_arrivals", rate = 5.0, count = 500, duration = { dist = "lognormal", mean = "10s", sigma = 1.0 } }"#,
    );
    let r = Resolved::parse(&src, "m").unwrap();
    let out = r.build(11, 0).unwrap().run();
    assert_eq!(out.flows.len(), 500);
    let starts: Vec<f64> = out.flows.iter().map(|f| f.start.as_secs_f64()).collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]));
    assert!(starts[0] > 15.0);
    // The 500th arrival: 15 s + a sum of 500 gaps of mean 0.2 s (sd 4.47 s).
    let last = starts[499];
    assert!((last - 115.0).abs() < 5.0 * 4.47, "last arrival at {last}");
    // Every flow stopped before the end (no flow finishes: they are bulk),
    // so its active time is its lifetime; their mean is the lifetimes' mean,
    // 10 s (SE over 500 draws: 10 sqrt(e - 1) / sqrt(500) = 0.586 s).
    for f in &out.flows {
        assert!(f.finish.is_none());
        assert!(f.active_secs > 0.0);
        assert!(f.active_secs < 400.0 - f.start.as_secs_f64(), "{f:?}");
    }
    let mean = out.flows.iter().map(|f| f.active_secs).sum::<f64>() / 500.0;
    assert!((mean - 10.0).abs() < 5.0 * 0.586, "mean lifetime {mean}");
}

#[test]
fn timed_flows_send_nothing_after_their_lifetime() {
    // Five flows of 1 s each, arriving at 10/s: all done by ~3 s. The window
    // [5, 10] s sees no packet from any of them, and none is sampled there.
    let src = scenario(
        "duration = \"10s\"\nwarmup = \"5s\"\nsample_interval = \"100ms\"\nseries = [\"flow_rate\"]",
        r#"packet_size = "500B"
traffic = { kind = "poisson_arrivals", rate = 10.0, count = 5, duration = { dist = "fixed", duration = "1s" } }"#,
    );
    let r = Resolved::parse(&src, "t").unwrap();
    let out = r.build(2, 0).unwrap().run();
    assert_eq!(out.flows.len(), 5);
    for f in &out.flows {
        assert!(f.total.sent_pkts > 0);
        assert_eq!(f.counters.sent_pkts, 0, "{f:?}");
        assert_eq!(f.active_secs, 0.0);
    }
    assert!(out.links.iter().all(|l| l.counters.arrived.pkts == 0));
    let last_sample = out
        .series
        .iter()
        .filter(|p| matches!(p.subject, Subject::Flow(_)))
        .map(|p| p.time)
        .fold(0.0, f64::max);
    assert!(
        last_sample < 3.5,
        "a stopped flow sampled at {last_sample} s"
    );
}

#[test]
fn each_flow_of_a_static_group_draws_its_packet_size_and_delay() {
    // A 1 Gb/s link: the 20 initial windows queue for at most ~2 ms.
    let src = scenario(
        "duration = \"3s\"\nsample_interval = \"100ms\"\nseries = [\"flow_rtt\"]",
        r#"count = 20
packet_size = ["800B", "1300B"]
extra_delay = ["0ms", "500ms"]
cc = { kind = "new_reno" }"#,
    )
    .replace("100kbps", "1Gbps");
    let r = Resolved::parse(&src, "s").unwrap();
    let out = r.build(5, 0).unwrap().run();
    // The draws, from the group's own stream in flow order: the packet size,
    // then the extra delay (no start jitter here).
    let mut rng = stream(5, 0, StreamKind::Group, 0);
    let mut sizes = Vec::new();
    for f in &out.flows {
        let mss: u64 = rng.random_range(800..=1300);
        let delay = rng.random_range(0..=500_000_000_000u64) as f64 / 1e12;
        sizes.push(mss);
        // Bulk segments are all full-sized.
        assert!(f.total.sent_pkts > 0);
        assert_eq!(
            f.total.sent_bytes,
            mss * f.total.sent_pkts,
            "flow {:?}",
            f.flow
        );
        // The first RTT sample: 20 ms of propagation, twice the extra delay,
        // the data packet's and the ACK's serialisation (ACKs are small).
        let rtt = out
            .series
            .iter()
            .filter(|p| p.subject == Subject::Flow(f.flow) && p.metric == "srtt_s")
            .map(|p| p.value)
            .next()
            .expect("an RTT sample");
        let base = 0.020 + 2.0 * delay + mss as f64 * 8.0 / 1e9;
        assert!(
            rtt >= base - 1e-9 && rtt < base + 0.01,
            "flow {:?}: {rtt} vs {base}",
            f.flow
        );
    }
    sizes.sort();
    sizes.dedup();
    assert!(sizes.len() > 15, "{sizes:?}");
}

#[test]
fn arrival_flows_draw_packet_sizes_in_range_and_runs_repeat() {
    let src = scenario(
        "duration = \"10s\"",
        r#"packet_size = ["800B", "1300B"]
extra_delay = ["0ms", "100ms"]
traffic = { kind = "poisson_arrivals", rate = 4.0, duration = { dist = "exponential", mean = "1s" } }"#,
    );
    let r = Resolved::parse(&src, "a").unwrap();
    let run = || r.build(9, 0).unwrap().run();
    let (a, b) = (run(), run());
    assert!(a.flows.len() > 20);
    let mut sizes = Vec::new();
    for f in a.flows.iter().filter(|f| f.total.sent_pkts > 0) {
        let mss = f.total.sent_bytes / f.total.sent_pkts;
        assert_eq!(f.total.sent_bytes % f.total.sent_pkts, 0);
        assert!((800..=1300).contains(&mss), "{mss}");
        sizes.push(mss);
    }
    sizes.dedup();
    assert!(sizes.len() > 10);
    // Same seed, same run.
    assert_eq!(a.events, b.events);
    let key = |o: &sim_core::RunOutput| {
        o.flows
            .iter()
            .map(|f| (f.start, f.total.sent_bytes, f.active_secs.to_bits()))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&a), key(&b));
}

fn error_of(group: &str) -> String {
    Resolved::parse(&scenario("duration = \"10s\"", group), "e")
        .map(|_| ())
        .expect_err("a bad scenario")
        .to_string()
}

fn assert_error(group: &str, needles: &[&str]) {
    let e = error_of(group);
    for n in needles {
        assert!(e.contains(n), "error should mention `{n}`:\n{e}");
    }
}

#[test]
fn bad_ranges_and_arrival_settings_name_their_key() {
    assert_error(
        "packet_size = [\"1300B\", \"800B\"]",
        &["flows[0].packet_size", "<="],
    );
    assert_error(
        "packet_size = [\"0B\", \"800B\"]",
        &["flows[0].packet_size", "out of range"],
    );
    assert_error(
        "packet_size = [\"800B\", \"70000B\"]",
        &["flows[0].packet_size", "out of range"],
    );
    assert_error(
        "packet_size = [\"800B\"]",
        &["flows[0].packet_size", "two values"],
    );
    assert_error(
        "packet_size = [\"800B\", \"900B\", \"1000B\"]",
        &["flows[0].packet_size", "two values"],
    );
    assert_error("packet_size = 800", &["flows[0].packet_size"]);
    assert_error(
        "extra_delay = [\"500ms\", \"0ms\"]",
        &["flows[0].extra_delay", "<="],
    );
    assert_error(
        "extra_delay = [\"-1ms\", \"0ms\"]",
        &["flows[0].extra_delay"],
    );
    let arrivals =
        |rest: &str| format!("traffic = {{ kind = \"poisson_arrivals\", rate = 5.0{rest} }}");
    assert_error(&arrivals(""), &["flows[0].traffic.size", "duration"]);
    assert_error(
        &arrivals(", size = { dist = \"fixed\", size = \"1KB\" }, duration = { dist = \"fixed\", duration = \"1s\" }"),
        &["flows[0].traffic.duration", "not both"],
    );
    assert_error(
        &arrivals(", count = 0, duration = { dist = \"fixed\", duration = \"1s\" }"),
        &["flows[0].traffic.count"],
    );
    assert_error(
        &arrivals(", duration = { dist = \"lognormal\", mean = \"10s\", sigma = 0.0 }"),
        &["flows[0].traffic.duration.sigma"],
    );
    assert_error(
        &arrivals(", duration = { dist = \"lognormal\", mean = \"10s\" }"),
        &["flows[0].traffic", "sigma"],
    );
    assert_error(
        &arrivals(", duration = { dist = \"uniform\", min = \"2s\", max = \"1s\" }"),
        &["flows[0].traffic.duration.max"],
    );
    assert_error(
        &arrivals(", duration = { dist = \"fixed\", duration = \"0s\" }"),
        &["flows[0].traffic.duration.duration"],
    );
    assert_error(
        &arrivals(", duration = { dist = \"weibull\", mean = \"1s\" }"),
        &["flows[0].traffic", "weibull"],
    );
}
