//! `netsim check` names the place of every bad input and never panics.

use assert_cmd::Command;

const BASE: &str = r#"
[run]
duration = "10s"
warmup = "1s"
replications = 2

[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[nodes]]
name = "island"

[[links]]
from = "a"
to = "b"
capacity = "10Mbps"
delay = "10ms"
buffer = "50pkt"

[[links]]
from = "b"
to = "c"
capacity = "10Mbps"
delay = "10ms"
buffer = "50pkt"
algo = { kind = "threshold", k_pkts = 20 }

[[flows]]
name = "tcp"
from = "a"
to = "c"
cc = { kind = "new_reno" }
"#;

/// Run `netsim check` on `src`; return (exit code, stderr).
fn check(src: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, src).unwrap();
    let out = Command::cargo_bin("netsim")
        .unwrap()
        .arg("check")
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!err.contains("panicked"), "panic on bad input:\n{err}");
    (out.status.code().unwrap_or(-1), err)
}

/// Replace the first occurrence of `from` in BASE (which must exist).
fn with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

fn assert_error(src: &str, needles: &[&str]) {
    let (code, err) = check(src);
    assert_eq!(code, 2, "expected a user error, got {code}: {err}");
    for n in needles {
        assert!(err.contains(n), "error should mention `{n}`:\n{err}");
    }
}

#[test]
fn the_base_scenario_is_valid() {
    let (code, err) = check(BASE);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn an_unknown_key_is_named_with_its_line() {
    assert_error(
        &with("warmup = \"1s\"", "warmup = \"1s\"\nwarmpu = 3"),
        &["run.warmpu", "line 5"],
    );
}

#[test]
fn an_unknown_algorithm_is_rejected() {
    assert_error(
        &with("kind = \"threshold\", k_pkts = 20", "kind = \"blue\""),
        &["links[1].algo", "blue", "line"],
    );
}

#[test]
fn a_malformed_unit_string_is_rejected() {
    assert_error(
        &with("capacity = \"10Mbps\"", "capacity = \"10 furlongs\""),
        &["links[0].capacity", "Mbps", "line 19, column 12"],
    );
}

#[test]
fn a_zero_capacity_is_rejected() {
    assert_error(
        &with("capacity = \"10Mbps\"", "capacity = \"0Mbps\""),
        &["links[0].capacity", "> 0", "line 19"],
    );
}

#[test]
fn a_negative_delay_is_rejected() {
    assert_error(
        &with("delay = \"10ms\"", "delay = \"-10ms\""),
        &["links[0].delay", "negative"],
    );
}

#[test]
fn a_zero_buffer_is_rejected() {
    assert_error(
        &with("buffer = \"50pkt\"", "buffer = \"0pkt\""),
        &["links[0].buffer", "zero"],
    );
}

#[test]
fn a_flow_between_unconnected_nodes_is_rejected() {
    assert_error(
        &with("to = \"c\"\ncc", "to = \"island\"\ncc"),
        &["flows[0].to", "not connected", "line"],
    );
}

#[test]
fn a_path_through_a_missing_link_is_rejected() {
    assert_error(
        &with("to = \"c\"\ncc", "to = \"c\"\npath = [\"a\", \"c\"]\ncc"),
        &["flows[0].path[1]", "missing link", "line"],
    );
}

#[test]
fn a_stop_before_start_is_rejected() {
    assert_error(
        &with(
            "to = \"c\"\ncc",
            "to = \"c\"\nstart = \"5s\"\nstop = \"2s\"\ncc",
        ),
        &["flows[0].stop", "after start", "line"],
    );
}

#[test]
fn a_warmup_not_shorter_than_the_run_is_rejected() {
    assert_error(
        &with("warmup = \"1s\"", "warmup = \"10s\""),
        &["run.warmup", "shorter", "line 4"],
    );
}

#[test]
fn zero_replications_are_rejected() {
    assert_error(
        &with("replications = 2", "replications = 0"),
        &["run.replications", ">= 1", "line 5"],
    );
}

#[test]
fn a_fairness_epsilon_outside_zero_one_is_rejected() {
    assert_error(
        &with(
            "replications = 2",
            "replications = 2\nsample_interval = \"1s\"\nseries = [\"flow_rate\"]\nfairness = { epsilon = 1.5 }",
        ),
        &["run.fairness.epsilon", "not in (0, 1)", "line"],
    );
}

#[test]
fn a_fairness_setting_without_the_rate_series_is_rejected() {
    assert_error(
        &with(
            "replications = 2",
            "replications = 2\nfairness = { epsilon = 0.01, average = \"10s\" }",
        ),
        &["run.fairness", "flow_rate", "line"],
    );
}

#[test]
fn an_unknown_fairness_key_is_rejected() {
    assert_error(
        &with(
            "replications = 2",
            "replications = 2\nfairness = { epsilon = 0.01, averge = \"10s\" }",
        ),
        &["averge", "line"],
    );
}

#[test]
fn a_threshold_marker_needs_a_positive_k() {
    assert_error(
        &with("k_pkts = 20", "k_pkts = 0"),
        &["links[1].algo.k_pkts", ">= 1", "line"],
    );
}

#[test]
fn newreno_rejects_a_zero_initial_window() {
    assert_error(
        &with(
            "cc = { kind = \"new_reno\" }",
            "cc = { kind = \"new_reno\", initial_window = 0 }",
        ),
        &["flows[0].cc.initial_window", "line"],
    );
}

#[test]
fn sack_is_refused_to_a_rate_paced_controller() {
    assert_error(
        &with(
            "cc = { kind = \"new_reno\" }",
            "cc = { kind = \"rcp\" }\ntcp = { sack = true }",
        ),
        &["flows[0].tcp.sack", "paces"],
    );
}

#[test]
fn web_traffic_names_a_bad_distribution_and_an_oversized_population() {
    assert_error(
        &with(
            "cc = { kind = \"new_reno\" }",
            "cc = { kind = \"new_reno\" }\ntraffic = { kind = \"web\", objects = { dist = \"uniform\", min = 3, max = 1 } }",
        ),
        &["flows[0].traffic.objects.max", "line"],
    );
    assert_error(
        &with(
            "cc = { kind = \"new_reno\" }",
            "cc = { kind = \"new_reno\" }\ntraffic = { kind = \"web\", sessions = 900000 }",
        ),
        &["flows[0].traffic.sessions", "at most 1000000"],
    );
}

#[test]
fn a_pacing_jitter_outside_zero_one_is_rejected() {
    assert_error(
        &with(
            "cc = { kind = \"new_reno\" }",
            "cc = { kind = \"new_reno\" }\ntcp = { pacing_jitter = 1.0 }",
        ),
        &["flows[0].tcp.pacing_jitter", "0 <= pacing_jitter < 1"],
    );
}

#[test]
fn the_ns2_rto_estimator_needs_its_tick_and_only_it_allows_a_zero_min_rto() {
    assert_error(
        &with(
            "cc = { kind = \"new_reno\" }",
            "cc = { kind = \"new_reno\" }\ntcp = { rto_estimator = \"ns2\" }",
        ),
        &["flows[0].tcp.clock_granularity", "tcpTick_"],
    );
    assert_error(
        &with(
            "cc = { kind = \"new_reno\" }",
            "cc = { kind = \"new_reno\" }\ntcp = { min_rto = \"0s\" }",
        ),
        &["flows[0].tcp.min_rto", "ns2"],
    );
    assert_error(
        &with(
            "cc = { kind = \"new_reno\" }",
            "cc = { kind = \"new_reno\" }\ntcp = { rto_estimator = \"ns3\" }",
        ),
        &["rto_estimator", "ns2"],
    );
    let ok = with(
        "cc = { kind = \"new_reno\" }",
        "cc = { kind = \"new_reno\" }\ntcp = { rto_estimator = \"ns2\", clock_granularity = \"100ms\", min_rto = \"0s\" }",
    );
    assert_eq!(check(&ok).0, 0, "{}", check(&ok).1);
}

#[test]
fn an_unknown_node_in_a_link_is_named() {
    assert_error(
        &with("from = \"a\"\nto = \"b\"", "from = \"x\"\nto = \"b\""),
        &["links[0].from", "unknown node `x`"],
    );
}

#[test]
fn a_loss_probability_outside_zero_one_is_rejected() {
    assert_error(
        &with("buffer = \"50pkt\"", "buffer = \"50pkt\"\nloss = 1.5"),
        &["links[0].loss", "0 <= loss < 1"],
    );
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let out = Command::cargo_bin("netsim")
        .unwrap()
        .args(["check", "/nonexistent/s.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn unknown_keys_beside_a_parameterless_kind_are_rejected() {
    assert_error(
        &with(
            "buffer = \"50pkt\"",
            "buffer = \"50pkt\"\nalgo = { kind = \"drop_tail\", limit = 5 }",
        ),
        &["links[0].algo", "unknown field `limit`"],
    );
    assert_error(
        &with(
            "cc = { kind = \"new_reno\" }",
            "traffic = { kind = \"bulk\", size = \"1MB\" }",
        ),
        &["flows[0].traffic", "unknown field `size`"],
    );
}

#[test]
fn a_feedback_controller_without_a_link_that_computes_the_feedback_is_an_error() {
    // QLB follows the rate its path's qlb links advertise; on drop-tail and
    // threshold links it would sit at one packet forever.
    assert_error(
        &with("cc = { kind = \"new_reno\" }", "cc = { kind = \"qlb\" }"),
        &[
            "flows[0].cc",
            "`qlb` follows Rate feedback",
            "no link on its data path computes it",
        ],
    );
}

/// A preset topology: its keys sit inside an internally tagged enum
/// (`kind = "dumbbell"`), where serde loses the key path.
const DUMBBELL: &str = r#"
[run]
duration = "10s"
warmup = "1s"

[topology]
kind = "dumbbell"
pairs = 2
access = { capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }

[topology.bottleneck]
capacity = "10Mbps"
delay = "10ms"
buffer = "50pkt"
algo = { kind = "red", preset = "A" }

[[flows]]
name = "tcp"
count = 2
from = "s{i}"
to = "d{i}"
cc = { kind = "new_reno" }
"#;

fn dumbbell_with(from: &str, to: &str) -> String {
    assert!(DUMBBELL.contains(from), "{from}");
    DUMBBELL.replacen(from, to, 1)
}

#[test]
fn the_dumbbell_scenario_is_valid() {
    let (code, err) = check(DUMBBELL);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_bad_value_inside_a_preset_names_its_key_and_line() {
    // Line 12 is `capacity = ...` in [topology.bottleneck], not the
    // [topology] header of line 6.
    assert_error(
        &dumbbell_with("capacity = \"10Mbps\"", "capacity = \"10Mxbps\""),
        &[
            "topology.bottleneck.capacity",
            "line 12, column 1",
            "10Mxbps",
        ],
    );
    assert_error(
        &dumbbell_with("pairs = 2", "pairs = \"two\""),
        &["topology.pairs", "line 8, column 1"],
    );
    assert_error(
        &dumbbell_with("preset = \"A\"", "preset = \"Q\""),
        &["topology.bottleneck.algo.preset", "line 15, column 24"],
    );
}

#[test]
fn an_unknown_key_inside_a_preset_or_a_kind_table_is_named() {
    assert_error(
        &dumbbell_with("buffer = \"50pkt\"", "buffer = \"50pkt\"\nbufer = 3"),
        &["topology.bottleneck.bufer", "line 15", "expected one of"],
    );
    assert_error(
        &dumbbell_with("preset = \"A\"", "preset = \"A\", wq = 0.1"),
        &["topology.bottleneck.algo.wq", "line 15", "w_q"],
    );
    assert_error(
        &dumbbell_with("kind = \"new_reno\"", "kind = \"new_reno\", iw = 3"),
        &["flows[0].cc.iw", "line 22"],
    );
}

#[test]
fn an_ambiguous_bad_value_stays_at_its_table() {
    // Both delays read `1e400ms`: the message cannot tell which, so the
    // error names the table that holds them both.
    let src = dumbbell_with("delay = \"1ms\"", "delay = \"1e400ms\"").replacen(
        "delay = \"10ms\"",
        "delay = \"1e400ms\"",
        1,
    );
    let (code, err) = check(&src);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("line 6, column 1: topology: "), "{err}");
}

#[test]
fn counts_past_a_million_are_rejected_not_allocated() {
    // 2^31 flows or pairs once aborted on a failed allocation (or ran for
    // ever building the network).
    assert_error(
        &dumbbell_with("count = 2", "count = 2147483648"),
        &["flows[0].count", "line 19", "1 ..= 1000000"],
    );
    assert_error(
        &dumbbell_with("pairs = 2", "pairs = 2147483648"),
        &["topology.pairs", "line 8", "1 ..= 1000000"],
    );
}

#[test]
fn a_duration_past_the_clock_is_rejected() {
    // A 213-day delay once overflowed the simulated clock mid-run.
    assert_error(
        &dumbbell_with("delay = \"10ms\"", "delay = \"18446744s\""),
        &["topology.bottleneck.delay", "line 13", "at most 1000000 s"],
    );
    let (code, err) = check(&dumbbell_with("delay = \"10ms\"", "delay = \"1000000s\""));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_bad_swept_value_is_named_in_the_sweep() {
    let src = format!(
        "{DUMBBELL}\n[sweep]\n[[sweep.param]]\nkey = \"flows.tcp.count\"\nvalues = [1, 2, 0, 4]\n"
    );
    // Line 27 is `values = [...]`, column 17 its third value.
    assert_error(
        &src,
        &[
            "line 27, column 17: sweep.param[0].values[2]: flows[0].count: at sweep point 2",
            "0 is out of range; allowed: 1 ..= 1000000",
        ],
    );
}

#[test]
fn a_start_spacing_that_runs_off_the_clock_is_rejected() {
    // 20 flows 10^6 s apart once overflowed the clock while the flows were set up.
    let spaced = |jitter: &str| {
        dumbbell_with(
            "count = 2",
            &format!("count = 2\nstart_spacing = \"600000s\"\nstart_jitter = \"{jitter}\""),
        )
    };
    let (code, err) = check(&spaced("400000s"));
    assert_eq!(code, 0, "{err}");
    assert_error(
        &spaced("400001s"),
        &[
            "flows[0].start_spacing",
            "line 20",
            "flow 1 would start at 1000001 s",
        ],
    );
}

/// BASE sampling its 4 directed links' queues (3 values each per sample).
fn sampled(interval: &str) -> String {
    with(
        "replications = 2",
        &format!("replications = 2\nsample_interval = \"{interval}\"\nseries = [\"link_queue\"]"),
    )
}

#[test]
fn a_sampling_interval_that_would_fill_memory_is_rejected() {
    // "1ns" for "1ms": 10^10 samples of 12 values. It once grew a run by
    // 0.8 GB a second until memory ran out.
    assert_error(
        &sampled("1ns"),
        &[
            "run.sample_interval",
            "line 6",
            "10000000001 samples of up to 12",
            "at most 250000000",
        ],
    );
    let (code, err) = check(&sampled("1ms"));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn replications_whose_series_together_would_fill_memory_are_refused_before_running() {
    // 0.5 us over 10 s: 2 x 10^7 samples of 12 values, 2.4 x 10^8 for one
    // replication (under the limit), 4.8 x 10^8 for the two that `netsim run`
    // holds at once. The 5-s timeout bounds the damage if the check is lost.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, sampled("0.5us")).unwrap();
    let (code, err) = check(&sampled("0.5us"));
    assert_eq!(code, 0, "{err}");
    let out = Command::cargo_bin("netsim")
        .unwrap()
        .args(["run", "--quiet", "--out"])
        .arg(dir.path().join("out"))
        .arg(&path)
        .timeout(std::time::Duration::from_secs(5))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "2 replications of up to 240000012 time-series values each are 480000024 values"
        ),
        "{err}"
    );
    assert!(
        !dir.path().join("out").exists(),
        "a refused run wrote output"
    );
}

#[test]
fn an_arrival_rate_past_a_million_flows_needs_a_count() {
    let arrivals = |rest: &str| {
        dumbbell_with(
            "cc = { kind = \"new_reno\" }",
            &format!(
                "cc = {{ kind = \"new_reno\" }}\ntraffic = {{ kind = \"poisson_arrivals\", \
                 duration = {{ dist = \"lognormal\", mean = \"1s\", sigma = 1.0 }}, {rest} }}"
            ),
        )
    };
    // 10^6 arrivals/s over the 10-s run: 10^7 flows, each with its own state.
    assert_error(
        &arrivals("rate = 1e6"),
        &[
            "flows[0].traffic.rate",
            "line 23",
            "10000000 flows on average",
        ],
    );
    let (code, err) = check(&arrivals("rate = 1e6, count = 1000"));
    assert_eq!(code, 0, "{err}");
    assert_error(
        &arrivals("rate = 1e6, count = 2000000"),
        &["flows[0].traffic.count", "1 ..= 1000000"],
    );
}

#[test]
fn a_packet_size_distribution_is_only_for_packet_sources_and_is_range_checked() {
    // BASE's flow group is a NewReno transport: its segments have one size
    // per flow. The added key is line 36.
    let exp = "packet_size = { dist = \"exponential\", mean = \"1000B\" }";
    let tcp = with(
        "cc = { kind = \"new_reno\" }",
        &format!("cc = {{ kind = \"new_reno\" }}\n{exp}"),
    );
    assert_error(
        &tcp,
        &[
            "flows[0].packet_size",
            "line 36",
            "`poisson_packets` and `cbr`",
            "traffic `bulk`",
        ],
    );
    // The same distribution on a Poisson packet source is valid ...
    let udp = |size: &str| {
        with(
            "cc = { kind = \"new_reno\" }",
            &format!(
                "packet_size = {size}\ntraffic = {{ kind = \"poisson_packets\", rate = \"1Mbps\" }}"
            ),
        )
    };
    let (code, err) = check(&udp("{ dist = \"exponential\", mean = \"1000B\" }"));
    assert_eq!(code, 0, "{err}");
    // ... and its values are named when they are out of range (the key is
    // on line 35 there).
    assert_error(
        &udp("{ dist = \"exponential\", mean = \"100KB\" }"),
        &[
            "line 35",
            "flows[0].packet_size.mean",
            "100000 B is out of range",
            "65535 B",
        ],
    );
    assert_error(
        &udp("{ dist = \"choice\", values = [\"500B\", \"1500B\"], weights = [0.5] }"),
        &["flows[0].packet_size.weights", "1 weights for 2 values"],
    );
    assert_error(
        &udp("{ dist = \"normal\", mean = \"1000B\" }"),
        &[
            "line 35, column 24: flows[0].packet_size.dist",
            "unknown variant `normal`",
        ],
    );
}

#[test]
fn a_share_with_an_unknown_group_or_beside_a_ratio_is_named() {
    let expect = |extra: &str| {
        format!(
            "{BASE}\n[[flows]]\nname = \"other\"\nfrom = \"a\"\nto = \"c\"\n\n[[expect]]\n\
             scope = \"group\"\nsubject = \"tcp\"\nmetric = \"goodput_bps\"\nvalue = 0.5\n\
             source = \"t\"\n{extra}"
        )
    };
    assert_eq!(check(&expect("share_with = \"other\"\n")).0, 0);
    assert_error(
        &expect("share_with = \"nobody\"\n"),
        &["expect[0].share_with", "no group named `nobody`"],
    );
    assert_error(
        &expect("share_with = \"other\"\nratio_to = \"other\"\n"),
        &["expect[0].share_with", "use one of"],
    );
}
