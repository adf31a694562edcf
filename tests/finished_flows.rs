//! The engine frees the endpoints of a finished flow once nothing can reach
//! them again (nothing of the flow in the network or a host delay line, no
//! timer set, its stop passed, the samples done with it). That must change no
//! result: each case runs twice, once freeing and once keeping every flow's
//! endpoints (`Simulator::keep_finished_flows`), and every report, counter,
//! statistic and time-series point must agree exactly, while most flows were
//! in fact freed.

use sim_core::RunOutput;
use topology::Resolved;

/// Run `src` replication 0 with and without freeing finished flows.
fn both(src: &str) -> (RunOutput, RunOutput) {
    let r = Resolved::parse(src, "finished-flows").expect("scenario");
    let freed = r.build(7, 0).expect("build").run();
    let mut keep = r.build(7, 0).expect("build");
    keep.keep_finished_flows();
    (freed, keep.run())
}

/// Every result of the two runs agrees.
fn same(a: &RunOutput, b: &RunOutput) {
    assert_eq!(a.events, b.events, "event counts");
    assert_eq!(a.flows.len(), b.flows.len());
    for (x, y) in a.flows.iter().zip(&b.flows) {
        assert_eq!(
            (x.flow, x.start, x.finish, x.counters, x.total),
            (y.flow, y.start, y.finish, y.counters, y.total),
            "flow {}",
            x.flow
        );
        assert_eq!(x.active_secs.to_bits(), y.active_secs.to_bits());
    }
    assert_eq!(a.links.len(), b.links.len());
    for (x, y) in a.links.iter().zip(&b.links) {
        assert_eq!(x.counters, y.counters, "link {}", x.name);
        assert_eq!(
            (x.stats.area_pkts, x.stats.qdelay_sum, x.stats.max_pkts),
            (y.stats.area_pkts, y.stats.qdelay_sum, y.stats.max_pkts),
            "link {}",
            x.name
        );
        assert_eq!(x.stats.hist_pkts, y.stats.hist_pkts, "link {}", x.name);
    }
    assert_eq!(a.series.len(), b.series.len(), "series points");
    for (x, y) in a.series.iter().zip(&b.series) {
        assert_eq!(
            (x.time.to_bits(), x.subject, x.metric, x.value.to_bits()),
            (y.time.to_bits(), y.subject, y.metric, y.value.to_bits())
        );
    }
    assert_eq!(b.closed_flows, 0);
}

/// Most of the flows that finished were freed: all but those that finished
/// so late that the run ended before the last of their packets or timers.
fn mostly_freed(o: &RunOutput) {
    let finished = o.flows.iter().filter(|f| f.finish.is_some()).count() as u64;
    assert!(finished > 500, "{finished} flows finished");
    assert!(
        o.closed_flows >= finished * 9 / 10,
        "{} of {finished} freed",
        o.closed_flows
    );
}

/// Short flows with Pareto sizes over a congested dumbbell (drops, fast
/// retransmits, timeouts), with `series` of the flows and links sampled.
fn short_flows(series: &str, extra: &str) -> String {
    format!(
        r#"
[run]
duration = "4s"
warmup = "1s"
replications = 1
seed = 7
{series}
[topology]
kind = "dumbbell"
pairs = 2
bottleneck = {{ capacity = "20Mbps", delay = "10ms", buffer = "30pkt", loss = 0.002 }}
access = {{ capacity = "1Gbps", delay = "1ms", buffer = "1000pkt" }}

[[flows]]
name = "web"
from = "s0"
to = "d0"
cc = {{ kind = "new_reno" }}
tcp = {{ min_rto = "200ms" }}
traffic = {{ kind = "poisson_arrivals", rate = 300.0, count = 900, size = {{ dist = "pareto", mean = "20KB", shape = 1.3 }} }}
{extra}

[[flows]]
name = "bulk"
from = "s1"
to = "d1"
cc = {{ kind = "new_reno" }}
traffic = {{ kind = "bulk" }}
"#
    )
}

#[test]
fn freeing_finished_flows_changes_no_result_without_series() {
    let (a, b) = both(&short_flows("", ""));
    same(&a, &b);
    mostly_freed(&a);
}

#[test]
fn freeing_finished_flows_changes_no_result_with_sampled_series() {
    let series = r#"sample_interval = "50ms"
series = ["flow_window", "flow_rate", "flow_rtt", "link_queue", "link_rate"]"#;
    let (a, b) = both(&short_flows(series, ""));
    same(&a, &b);
    mostly_freed(&a);
}

#[test]
fn freeing_finished_flows_changes_no_result_with_host_delays_delayed_acks_and_stops() {
    // Per-flow host delay lines and delayed ACKs on the arriving flows, and a
    // fixed group of finite flows stopped at 2.5 s: those that finish before
    // their stop are freed only after it, those it cuts short never finish.
    let extra = r#"extra_delay = ["0ms", "30ms"]

[[flows]]
name = "finite"
count = 20
from = "s1"
to = "d1"
start_spacing = "100ms"
stop = "2.5s"
cc = { kind = "new_reno" }
tcp = { delayed_ack = true }
traffic = { kind = "finite", size = "40KB" }"#;
    let src = short_flows("", extra).replace(
        "tcp = { min_rto = \"200ms\" }\ntraffic = { kind = \"poisson_arrivals\"",
        "tcp = { min_rto = \"200ms\", delayed_ack = true }\ntraffic = { kind = \"poisson_arrivals\"",
    );
    assert!(src.contains("delayed_ack = true }\ntraffic = { kind = \"poisson"));
    let (a, b) = both(&src);
    same(&a, &b);
    let finite = |o: &RunOutput| {
        o.flows
            .iter()
            .filter(|f| f.group == sim_core::GroupId(1))
            .map(|f| f.finish.is_some())
            .collect::<Vec<_>>()
    };
    let done = finite(&a);
    assert!(
        done.iter().any(|d| *d) && done.iter().any(|d| !*d),
        "{done:?}"
    );
    mostly_freed(&a);
}
