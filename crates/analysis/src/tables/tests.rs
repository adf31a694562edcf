//! Unit tests of `tables`.

use super::*;
use polars::prelude::AnyValue;
use sim_core::{Count, FlowCounters, FlowReport, LinkCounters, LinkStats, SeriesPoint};
use sim_core::{SimDuration, SimTime};

/// A flow of `group` that moved `goodput_bytes` in `active` seconds.
pub(crate) fn flow(id: u32, group: u32, goodput_bytes: u64, active: f64) -> FlowReport {
    let counters = FlowCounters {
        sent_pkts: goodput_bytes / 1000 + 2,
        sent_bytes: goodput_bytes + 2000,
        retx_pkts: 2,
        retx_bytes: 2000,
        rx_pkts: goodput_bytes / 1000 + 1,
        rx_bytes: goodput_bytes + 1000,
        goodput_bytes,
        timeouts: 1,
        reductions: 3,
        fast_retransmits: 2,
        ecn_waits: 1,
        ce_pkts: 4,
        ..FlowCounters::default()
    };
    FlowReport {
        flow: FlowId(id),
        group: GroupId(group),
        start: SimTime::from_ps(0),
        finish: None,
        active_secs: active,
        counters,
        total: counters,
        size: Some(goodput_bytes),
        base_rtt_s: 0.02,
        path_bps: 1e7,
        src: sim_core::NodeId(0),
        dst: sim_core::NodeId(2),
        route: sim_core::RouteId(0),
        packet_size: Some(1000),
        host_delay_s: 0.005,
        rto: (id == 0).then_some(sim_core::RtoStats {
            min_s: 0.2,
            max_s: 1.0,
            sum_s: 1.5,
            count: 3,
        }),
    }
}

/// A 10 Mb/s link over a 10 s window that sent `departed_bytes`, with a
/// backlog of 2 packets (3000 bytes) half the time, 4 overflow drops and 1
/// early mark per 100 arrivals.
pub(crate) fn link(id: u32, name: &str, departed_bytes: u64, flows: &[u32]) -> LinkReport {
    let mut counters = LinkCounters {
        arrived: Count {
            pkts: 100,
            bytes: 100_000,
        },
        departed: Count {
            pkts: departed_bytes / 1000,
            bytes: departed_bytes,
        },
        ..Default::default()
    };
    counters.dropped[Reason::Overflow as usize] = Count {
        pkts: 4,
        bytes: 4000,
    };
    counters.marked[Reason::Early as usize] = Count {
        pkts: 1,
        bytes: 1000,
    };
    let half = 5_000_000_000_000u64; // 5 s in ps
    let stats = LinkStats {
        area_pkts: 2 * u128::from(half),
        area_bytes: 3000 * u128::from(half),
        hist_pkts: vec![half, 0, half],
        hist_bytes: {
            let mut h = vec![0; 47];
            h[0] = half;
            h[46] = half; // 3000 / 64 = 46
            h
        },
        max_pkts: 2,
        max_bytes: 3000,
        qdelay_sum: 3 * 2_000_000_000, // three packets, 2 ms each
        qdelay_sumsq: 3 * 2_000_000_000u128.pow(2),
        qdelay_max: SimDuration::from_millis(2),
        qdelay_n: 3,
        last_change: SimTime::from_ps(0),
    };
    LinkReport {
        link: LinkId(id),
        name: name.into(),
        capacity_bps: 10e6,
        total_departed: counters.departed,
        total_dropped: counters.dropped_total(),
        counters,
        stats,
        window_secs: 10.0,
        flows: flows.iter().map(|&f| FlowId(f)).collect(),
    }
}

/// Two replications of two groups ("a": flows 0 and 1, "b": flow 2) over one
/// bottleneck "r1->r2" and one idle access link.
pub(crate) fn sample() -> RunSet {
    let run = |rep: u32, scale: u64| RunOutput {
        replication: rep,
        seed: 42,
        events: 1000 * u64::from(rep + 1),
        end_secs: 11.0,
        window_secs: 10.0,
        flows: vec![
            // 1, 3 Mb/s in rep 0; 2, 4 Mb/s in rep 1 (scale = 1 or 2 shifts by 1).
            flow(0, 0, 1_250_000 * scale, 10.0),
            flow(1, 0, 1_250_000 * (scale + 2), 10.0),
            flow(2, 1, 0, 0.0),
        ],
        links: vec![
            link(0, "r1->r2", 10_000_000 + 1_250_000 * scale, &[0, 1, 2]),
            LinkReport {
                counters: LinkCounters::default(),
                stats: LinkStats::default(),
                ..link(1, "h1->r1", 0, &[])
            },
        ],
        routes: vec![vec![LinkId(1), LinkId(0)]],
        series: vec![
            SeriesPoint::new(0.5, Subject::Flow(FlowId(0)), "cwnd_bytes", 3000.0),
            SeriesPoint::new(0.5, Subject::Link(LinkId(0)), "queue_pkts", 2.0),
        ],
        objects: vec![sim_core::ObjectReport {
            flow: FlowId(2),
            group: GroupId(1),
            requested: SimTime::from_secs_f64(1.0),
            completed: SimTime::from_secs_f64(1.25 * scale as f64),
            bytes: 5000 * scale,
        }],
        pages: vec![sim_core::PageReport {
            group: GroupId(1),
            session: 3,
            requested: SimTime::from_secs_f64(1.0),
            completed: SimTime::from_secs_f64(1.0 + 2.0 * scale as f64),
            objects: 2,
            bytes: 8000 * scale,
        }],
        overload: None,
        closed_flows: 0,
        link_changes: Vec::new(),
    };
    RunSet {
        meta: RunMeta {
            scenario: "sample".into(),
            group_names: vec!["a".into(), "b".into()],
            link_names: vec!["r1->r2".into(), "h1->r1".into()],
            node_names: vec!["h1".into(), "r1".into(), "r2".into()],
            fct_bin_edges: Vec::new(),
            fairness: crate::FairnessSpec::default(),
        },
        runs: vec![run(0, 1), run(1, 2)],
        wall_secs: vec![0.5, 0.25],
    }
}

fn get(df: &DataFrame, col: &str, row: usize) -> AnyValue<'static> {
    df.column(col).unwrap().get(row).unwrap().into_static()
}

/// `f` applied to the metrics of the sample set.
fn with_sample<T>(f: impl FnOnce(&Metrics<'_>) -> T) -> T {
    let set = sample();
    let m = Metrics::new(&set);
    f(&m)
}

#[test]
fn runs_table_has_one_row_per_replication_with_event_rates() {
    let df = runs_table(&sample()).unwrap();
    assert_eq!(df.height(), 2);
    assert_eq!(get(&df, "events", 1), AnyValue::UInt64(2000));
    assert_eq!(get(&df, "events_per_wall_s", 0), AnyValue::Float64(2000.0));
    assert_eq!(get(&df, "events_per_wall_s", 1), AnyValue::Float64(8000.0));
}

#[test]
fn flows_table_leaves_rates_of_inactive_flows_null() {
    let df = with_sample(|m| flows_table(m).unwrap());
    assert_eq!(df.height(), 6);
    assert_eq!(get(&df, "goodput_bps", 0), AnyValue::Float64(1e6));
    assert_eq!(get(&df, "throughput_bps", 0), AnyValue::Float64(1.0008e6));
    assert_eq!(get(&df, "goodput_bps", 2), AnyValue::Null);
    assert_eq!(get(&df, "group", 2), AnyValue::String("b"));
    assert_eq!(get(&df, "finish_s", 0), AnyValue::Null);
    assert_eq!(get(&df, "retx_pkts", 4), AnyValue::UInt64(2));
}

#[test]
fn flows_table_names_ends_path_and_rto_of_each_flow() {
    let df = with_sample(|m| flows_table(m).unwrap());
    assert_eq!(get(&df, "src", 0), AnyValue::String("h1"));
    assert_eq!(get(&df, "dst", 0), AnyValue::String("r2"));
    // Route 0 is the access link then the bottleneck, in route order.
    assert_eq!(get(&df, "path", 3), AnyValue::String("h1->r1 r1->r2"));
    assert_eq!(get(&df, "packet_size_bytes", 1), AnyValue::UInt32(1000));
    assert_eq!(get(&df, "extra_delay_s", 1), AnyValue::Float64(0.005));
    assert_eq!(get(&df, "rto_min_s", 0), AnyValue::Float64(0.2));
    assert_eq!(get(&df, "rto_mean_s", 0), AnyValue::Float64(0.5));
    assert_eq!(get(&df, "rto_max_s", 0), AnyValue::Float64(1.0));
    assert_eq!(get(&df, "rto_mean_s", 1), AnyValue::Null);
}

#[test]
fn links_table_computes_utilisation_backlog_delay_and_jain() {
    let df = with_sample(|m| links_table(m).unwrap());
    assert_eq!(df.height(), 4);
    // (10e6 + 1.25e6) bytes * 8 / (10e6 b/s * 10 s) = 0.9.
    assert_eq!(get(&df, "utilisation", 0), AnyValue::Float64(0.9));
    assert_eq!(get(&df, "backlog_mean_pkts", 0), AnyValue::Float64(1.0));
    assert_eq!(get(&df, "backlog_p99_pkts", 0), AnyValue::Float64(2.0));
    // Half the time empty, half at 2 packets: 50 % below 2, all below 10.
    assert_eq!(get(&df, "backlog_lt2_frac", 0), AnyValue::Float64(0.5));
    assert_eq!(get(&df, "backlog_lt10_frac", 0), AnyValue::Float64(1.0));
    assert_eq!(get(&df, "backlog_lt2_frac", 1), AnyValue::Null);
    assert_eq!(get(&df, "backlog_mean_bytes", 0), AnyValue::Float64(1500.0));
    // Upper edge of bin 46 = 47 * 64 = 3008, capped at the 3000-byte maximum.
    assert_eq!(get(&df, "backlog_p99_bytes", 0), AnyValue::Float64(3000.0));
    assert_eq!(get(&df, "qdelay_mean_s", 0), AnyValue::Float64(0.002));
    assert_eq!(get(&df, "drop_overflow_pkts", 0), AnyValue::UInt64(4));
    assert_eq!(get(&df, "mark_early_pkts", 0), AnyValue::UInt64(1));
    assert_eq!(get(&df, "dropped_pkts", 0), AnyValue::UInt64(4));
    // Goodputs 1 and 3 Mb/s (flow 2 inactive): 16 / (2 * 10) = 0.8.
    assert_eq!(get(&df, "jain", 0), AnyValue::Float64(0.8));
    assert_eq!(get(&df, "jain", 1), AnyValue::Null);
    assert_eq!(get(&df, "name", 1), AnyValue::String("h1->r1"));
    for r in Reason::TABLED {
        assert!(df.column(&format!("drop_{}_pkts", r.as_str())).is_ok());
        assert!(df.column(&format!("mark_{}_pkts", r.as_str())).is_ok());
    }
}

#[test]
fn objects_table_has_one_row_per_object_with_its_completion_time() {
    let df = with_sample(|m| objects_table(m).unwrap());
    assert_eq!(df.height(), 2);
    assert_eq!(get(&df, "replication", 1), AnyValue::UInt32(1));
    assert_eq!(get(&df, "flow", 0), AnyValue::UInt32(2));
    assert_eq!(get(&df, "group", 0), AnyValue::String("b"));
    assert_eq!(get(&df, "requested_s", 1), AnyValue::Float64(1.0));
    assert_eq!(get(&df, "completed_s", 1), AnyValue::Float64(2.5));
    assert_eq!(get(&df, "bytes", 1), AnyValue::UInt64(10_000));
    assert_eq!(get(&df, "completion_s", 1), AnyValue::Float64(1.5));
}

#[test]
fn pages_table_has_one_row_per_page_with_its_completion_time() {
    let df = with_sample(|m| pages_table(m).unwrap());
    assert_eq!(df.height(), 2);
    assert_eq!(get(&df, "replication", 1), AnyValue::UInt32(1));
    assert_eq!(get(&df, "group", 0), AnyValue::String("b"));
    assert_eq!(get(&df, "session", 0), AnyValue::UInt32(3));
    assert_eq!(get(&df, "requested_s", 1), AnyValue::Float64(1.0));
    assert_eq!(get(&df, "completed_s", 1), AnyValue::Float64(5.0));
    assert_eq!(get(&df, "objects", 1), AnyValue::UInt32(2));
    assert_eq!(get(&df, "bytes", 1), AnyValue::UInt64(16_000));
    assert_eq!(get(&df, "completion_s", 1), AnyValue::Float64(4.0));
}

#[test]
fn every_single_run_table_starts_with_the_scenario_name() {
    let set = sample();
    let m = Metrics::new(&set);
    for (name, df) in [
        ("runs", runs_table(&set).unwrap()),
        ("flows", flows_table(&m).unwrap()),
        ("links", links_table(&m).unwrap()),
        ("summary", crate::summary::summary_table(&m).unwrap()),
        ("objects", objects_table(&m).unwrap()),
        ("pages", pages_table(&m).unwrap()),
        ("series", series_table(&m).unwrap()),
    ] {
        assert_eq!(df.get_column_names()[0].as_str(), "scenario", "{name}");
        assert!(df.height() > 0, "{name}");
        for row in 0..df.height() {
            assert_eq!(
                get(&df, "scenario", row),
                AnyValue::String("sample"),
                "{name}"
            );
        }
    }
}

#[test]
fn series_rows_carry_the_flow_id_of_the_flows_table() {
    let df = with_sample(|m| series_table(m).unwrap());
    assert_eq!(get(&df, "flow", 0), AnyValue::UInt32(0));
    assert_eq!(get(&df, "flow", 1), AnyValue::Null);
}

#[test]
fn series_table_labels_flows_with_their_group_and_links_by_name() {
    let df = with_sample(|m| series_table(m).unwrap());
    assert_eq!(df.height(), 4);
    assert_eq!(get(&df, "subject", 0), AnyValue::String("f0"));
    assert_eq!(get(&df, "group", 0), AnyValue::String("a"));
    assert_eq!(get(&df, "subject", 1), AnyValue::String("r1->r2"));
    assert_eq!(get(&df, "group", 1), AnyValue::Null);
    assert_eq!(get(&df, "metric", 1), AnyValue::String("queue_pkts"));
}

#[test]
fn empty_run_set_gives_empty_tables_with_their_columns() {
    let set = RunSet::default();
    let m = Metrics::new(&set);
    for df in [
        runs_table(&set).unwrap(),
        flows_table(&m).unwrap(),
        links_table(&m).unwrap(),
        series_table(&m).unwrap(),
        crate::summary::summary_table(&m).unwrap(),
    ] {
        assert_eq!(df.height(), 0);
    }
    assert!(links_table(&m).unwrap().column("jain").is_ok());
    assert!(flows_table(&m).unwrap().column("fct_s").is_ok());
}

#[test]
fn link_values_have_their_columns_kinds() {
    let set = sample();
    for l in &set.runs[0].links {
        for (v, (name, k)) in link_columns(l, Some(1.0)).iter().zip(LINK_COLUMNS) {
            let kind = match v {
                Val::Count(_) => Kind::Count,
                Val::Real(_) => Kind::Real,
                Val::Maybe(_) => Kind::Maybe,
            };
            assert_eq!(kind, k, "{name}");
        }
    }
}

#[test]
fn a_large_table_comes_in_batches_of_at_most_batch_rows() {
    // 2 x 40 000 flows: full batches and a partial one.
    let mut set = sample();
    for r in &mut set.runs {
        r.flows = (0..40_000).map(|i| flow(i, 0, 1000, 1.0)).collect();
    }
    let m = Metrics::new(&set);
    let mut sizes = Vec::new();
    flows_batches(&m, &mut |df| {
        sizes.push(df.height());
        Ok(())
    })
    .unwrap();
    let full = 80_000 / BATCH_ROWS;
    assert_eq!(sizes.len(), full + 1);
    assert!(sizes[..full].iter().all(|&n| n == BATCH_ROWS), "{sizes:?}");
    assert_eq!(sizes[full], 80_000 - full * BATCH_ROWS);
    let whole = flows_table(&m).unwrap();
    assert_eq!(whole.height(), 80_000);
    assert_eq!(get(&whole, "flow", 79_999), AnyValue::UInt32(39_999));
    assert_eq!(get(&whole, "replication", 79_999), AnyValue::UInt32(1));
}

/// The receiver statistics of PCC flows (Damm 2001 Figs. 6.5, 6.7, 6.26):
/// per flow the ratios of its own counts, per group the ratios of the
/// summed counts (not means of the flows' ratios), null / undefined for
/// other flows and groups; a PCC group without a restart has a mean
/// protected time of 0.
#[test]
fn pcc_columns_and_group_metrics_pool_the_receivers_counts() {
    let mut set = sample();
    let pcc = |f: &mut FlowReport,
               rtcp: (u64, u64),
               rx: u64,
               lost: u64,
               events: u64,
               prot: (u64, u64)| {
        let c = &mut f.counters;
        c.pcc_on_ps = 1;
        c.pcc_experiments = rtcp.1 + 1;
        (c.pcc_rtcp_sum_bps, c.pcc_rtcp_samples) = rtcp;
        (c.rx_pkts, c.pcc_lost_pkts, c.pcc_loss_events) = (rx, lost, events);
        (c.pcc_prot_ps, c.pcc_prot_periods) = prot;
        f.total = f.counters;
    };
    let s = 1_000_000_000_000u64;
    {
        let f = &mut set.runs[0].flows;
        pcc(&mut f[0], (3_000_000, 3), 990, 10, 5, (4 * s, 2));
        pcc(&mut f[1], (5_000_000, 1), 1980, 20, 4, (0, 0));
        f[2].active_secs = 10.0; // an active flow that is not PCC
        let f = &mut set.runs[1].flows;
        pcc(&mut f[0], (0, 0), 1000, 0, 0, (0, 0));
        pcc(&mut f[1], (0, 0), 1000, 0, 0, (0, 0));
    }
    let m = Metrics::new(&set);
    let df = flows_table(&m).unwrap();
    let f64_at = |c: &str, row: usize| get(&df, c, row);
    assert_eq!(f64_at("pcc_rtcp_mean_bps", 0), AnyValue::Float64(1e6));
    assert_eq!(f64_at("pcc_rtcp_mean_bps", 1), AnyValue::Float64(5e6));
    assert_eq!(f64_at("pcc_loss_rate", 0), AnyValue::Float64(0.01));
    assert_eq!(f64_at("pcc_loss_event_rate", 0), AnyValue::Float64(0.005));
    assert_eq!(f64_at("pcc_loss_event_rate", 1), AnyValue::Float64(0.002));
    assert_eq!(f64_at("pcc_t_prot_mean_s", 0), AnyValue::Float64(2.0));
    assert_eq!(f64_at("pcc_t_prot_mean_s", 1), AnyValue::Float64(0.0));
    // Not PCC: empty, like pcc_on_frac.
    for c in [
        "pcc_on_frac",
        "pcc_rtcp_mean_bps",
        "pcc_loss_rate",
        "pcc_loss_event_rate",
        "pcc_t_prot_mean_s",
    ] {
        assert_eq!(f64_at(c, 2), AnyValue::Null, "{c}");
    }
    // Replication 1: PCC flows without an estimate or a loss.
    assert_eq!(f64_at("pcc_rtcp_mean_bps", 3), AnyValue::Null);
    assert_eq!(f64_at("pcc_loss_rate", 3), AnyValue::Float64(0.0));
    assert_eq!(f64_at("pcc_t_prot_mean_s", 3), AnyValue::Float64(0.0));
    let v = |rep: usize, group: &str, metric: &str| m.find_value(rep, "group", group, metric);
    // Pooled: 8 Mb/s over 4 estimates, not (1 + 5) / 2 Mb/s.
    assert_eq!(v(0, "a", "pcc_rtcp_bps"), Some(2e6));
    assert_eq!(v(0, "a", "pcc_loss_rate"), Some(0.01));
    assert_eq!(v(0, "a", "pcc_loss_event_rate"), Some(0.003));
    assert_eq!(v(0, "a", "pcc_t_prot_mean_s"), Some(2.0));
    assert_eq!(v(1, "a", "pcc_rtcp_bps"), None);
    assert_eq!(v(1, "a", "pcc_loss_rate"), Some(0.0));
    assert_eq!(v(1, "a", "pcc_t_prot_mean_s"), Some(0.0));
    for metric in [
        "pcc_on_frac",
        "pcc_rtcp_bps",
        "pcc_loss_rate",
        "pcc_loss_event_rate",
        "pcc_t_prot_mean_s",
    ] {
        assert_eq!(v(0, "b", metric), None, "{metric}");
    }
}
