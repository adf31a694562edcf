//! Tidy long-format tables of a scenario's replications.
//!
//! One row per observation, one column per variable, units in the column names
//! (`_s` seconds, `_bps` bits/s, `_pkts` packets, `_bytes` bytes):
//! - `runs`: one row per replication;
//! - `flows`: one row per (replication, flow);
//! - `links`: one row per (replication, link);
//! - `summary`: one row per (scope, subject, metric), see [`crate::summary`];
//! - `series`: one row per sampled point, replication 0 and the others alike.
//!
//! Per-flow and per-link figures are measured over the scenario's measurement
//! window (after warm-up), as the engine reports them; `fct_s` alone spans the
//! whole run.

use std::collections::BTreeMap;

use polars::prelude::{Column, DataFrame, NamedFrom, PolarsResult, Series};
use sim_core::{FlowId, GroupId, LinkId, LinkReport, Reason, RunOutput, Subject};

use crate::error::AnalysisError;
use crate::stats::jain;
use crate::summary::summary_rows;

/// What the analysis needs to know about a scenario besides its run outputs.
#[derive(Clone, Debug, Default)]
pub struct RunMeta {
    /// Scenario name.
    pub scenario: String,
    /// Flow-group names; index = [`GroupId`].
    pub group_names: Vec<String>,
    /// Link names; index = [`LinkId`].
    pub link_names: Vec<String>,
    /// The parameters of the links' time to fairness (`fair_s`).
    pub fairness: crate::FairnessSpec,
}

impl RunMeta {
    /// The name of group `g` (`"g3"` if the scenario did not name it).
    pub fn group_name(&self, g: GroupId) -> String {
        self.group_names
            .get(g.index())
            .cloned()
            .unwrap_or_else(|| g.to_string())
    }

    /// The name of link `l` (`"l3"` if the scenario did not name it).
    pub fn link_name(&self, l: LinkId) -> String {
        self.link_names
            .get(l.index())
            .cloned()
            .unwrap_or_else(|| l.to_string())
    }
}

/// Every replication of one scenario.
#[derive(Clone, Debug, Default)]
pub struct RunSet {
    /// Names and labels.
    pub meta: RunMeta,
    /// One output per replication, sorted by replication.
    pub runs: Vec<RunOutput>,
    /// Wall-clock seconds each run took (same order as `runs`).
    pub wall_secs: Vec<f64>,
}

impl RunSet {
    /// Number of replications.
    pub fn replications(&self) -> usize {
        self.runs.len()
    }

    /// The run of replication 0 (or the first run if there is none numbered 0).
    pub fn first_run(&self) -> Option<&RunOutput> {
        self.runs
            .iter()
            .find(|r| r.replication == 0)
            .or(self.runs.first())
    }

    /// The name of link report `l`: the engine's name, else the scenario's, else `l<i>`.
    pub fn link_label(&self, l: &LinkReport) -> String {
        if l.name.is_empty() {
            self.meta.link_name(l.link)
        } else {
            l.name.clone()
        }
    }
}

/// The five result tables.
#[derive(Clone, Debug)]
pub struct Tables {
    /// One row per replication.
    pub runs: DataFrame,
    /// One row per (replication, flow).
    pub flows: DataFrame,
    /// One row per (replication, link).
    pub links: DataFrame,
    /// One row per (scope, subject, metric), with the CI across replications.
    pub summary: DataFrame,
    /// One row per sampled time-series point (may be empty).
    pub series: DataFrame,
}

impl Tables {
    /// `(name, table)` pairs in file order: runs, flows, links, summary, series.
    pub fn named(&self) -> [(&'static str, &DataFrame); 5] {
        [
            ("runs", &self.runs),
            ("flows", &self.flows),
            ("links", &self.links),
            ("summary", &self.summary),
            ("series", &self.series),
        ]
    }
}

/// Build all five tables.
pub fn build_tables(set: &RunSet) -> Result<Tables, AnalysisError> {
    Ok(Tables {
        runs: runs_table(set).map_err(|e| AnalysisError::table("runs", e))?,
        flows: flows_table(set).map_err(|e| AnalysisError::table("flows", e))?,
        links: links_table(set).map_err(|e| AnalysisError::table("links", e))?,
        summary: crate::summary::summary_table(&summary_rows(set))
            .map_err(|e| AnalysisError::table("summary", e))?,
        series: series_table(set).map_err(|e| AnalysisError::table("series", e))?,
    })
}

/// A named column from anything polars can build a series from.
pub(crate) fn col<V, P>(name: &str, values: V) -> Column
where
    Series: NamedFrom<V, P>,
    P: ?Sized,
{
    Column::from(Series::new(name.into(), values))
}

/// `Some(x)` for a finite `x`, else `None` (written as null).
pub(crate) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// `runs`: replication, seed, events, end_s, window_s, wall_s, events_per_wall_s.
pub fn runs_table(set: &RunSet) -> PolarsResult<DataFrame> {
    let rs = &set.runs;
    let wall: Vec<Option<f64>> = (0..rs.len())
        .map(|i| set.wall_secs.get(i).copied())
        .collect();
    let eps: Vec<Option<f64>> = rs
        .iter()
        .zip(&wall)
        .map(|(r, w)| w.filter(|&w| w > 0.0).map(|w| r.events as f64 / w))
        .collect();
    DataFrame::new(
        rs.len(),
        vec![
            col(
                "replication",
                rs.iter().map(|r| r.replication).collect::<Vec<u32>>(),
            ),
            col("seed", rs.iter().map(|r| r.seed).collect::<Vec<u64>>()),
            col("events", rs.iter().map(|r| r.events).collect::<Vec<u64>>()),
            col("end_s", rs.iter().map(|r| r.end_secs).collect::<Vec<f64>>()),
            col(
                "window_s",
                rs.iter().map(|r| r.window_secs).collect::<Vec<f64>>(),
            ),
            col("wall_s", wall),
            col("events_per_wall_s", eps),
        ],
    )
}

/// `flows`: replication, flow, group, start_s, finish_s, active_s, goodput_bps,
/// throughput_bps, sent_pkts, retx_pkts, rx_bytes, goodput_bytes, timeouts,
/// reductions, ce_pkts, fct_s. Rates are null for a flow inactive in the window; `finish_s`
/// and `fct_s` are null for a flow that did not complete.
pub fn flows_table(set: &RunSet) -> PolarsResult<DataFrame> {
    let rows: Vec<(u32, &sim_core::FlowReport)> = set
        .runs
        .iter()
        .flat_map(|r| r.flows.iter().map(move |f| (r.replication, f)))
        .collect();
    let u = |f: fn(&sim_core::FlowReport) -> u64| rows.iter().map(|(_, r)| f(r)).collect();
    let o = |f: fn(&sim_core::FlowReport) -> Option<f64>| -> Vec<Option<f64>> {
        rows.iter().map(|(_, r)| f(r)).collect()
    };
    let c = |name: &str, v: Vec<u64>| col(name, v);
    DataFrame::new(
        rows.len(),
        vec![
            col(
                "replication",
                rows.iter().map(|(rep, _)| *rep).collect::<Vec<u32>>(),
            ),
            col(
                "flow",
                rows.iter().map(|(_, f)| f.flow.0).collect::<Vec<u32>>(),
            ),
            col(
                "group",
                rows.iter()
                    .map(|(_, f)| set.meta.group_name(f.group))
                    .collect::<Vec<String>>(),
            ),
            col(
                "start_s",
                rows.iter()
                    .map(|(_, f)| f.start.as_secs_f64())
                    .collect::<Vec<f64>>(),
            ),
            col("finish_s", o(|f| f.finish.map(|t| t.as_secs_f64()))),
            col(
                "active_s",
                rows.iter()
                    .map(|(_, f)| f.active_secs)
                    .collect::<Vec<f64>>(),
            ),
            col("goodput_bps", o(|f| f.goodput_bps())),
            col("throughput_bps", o(|f| f.throughput_bps())),
            c("sent_pkts", u(|f| f.counters.sent_pkts)),
            c("retx_pkts", u(|f| f.counters.retx_pkts)),
            c("rx_bytes", u(|f| f.counters.rx_bytes)),
            c("goodput_bytes", u(|f| f.counters.goodput_bytes)),
            c("timeouts", u(|f| f.counters.timeouts)),
            c("reductions", u(|f| f.counters.reductions)),
            c("ce_pkts", u(|f| f.counters.ce_pkts)),
            col("fct_s", o(|f| f.fct_secs())),
        ],
    )
}

/// The fraction of the measurement window during which a link's queue held
/// fewer than `k` packets (waiting, not counting the one being serialised),
/// from its time-weighted backlog histogram: the limit of sampling the queue
/// at a fine period (seed 002 Fig. 37(d) samples every 10 ms: "64 % of the
/// time less than two packets"). `None` for an empty window.
/// Links table and summary: `backlog_lt2_frac`, `backlog_lt10_frac`.
pub fn backlog_below_frac(hist_pkts: &[u64], k: usize) -> Option<f64> {
    let total: u128 = hist_pkts.iter().map(|&x| u128::from(x)).sum();
    let below: u128 = hist_pkts.iter().take(k).map(|&x| u128::from(x)).sum();
    (total > 0).then(|| below as f64 / total as f64)
}

/// One per-link figure, typed as its column will be.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Val {
    /// A count (packets).
    Count(u64),
    /// A real number in the metric's unit.
    Real(f64),
    /// A real number that may be undefined.
    Maybe(Option<f64>),
}

impl Val {
    /// The value as a number for the summary, if defined.
    pub(crate) fn value(self) -> Option<f64> {
        match self {
            Val::Count(c) => Some(c as f64),
            Val::Real(x) => finite(x),
            Val::Maybe(x) => x.and_then(finite),
        }
    }
}

/// Jain's index over the goodputs of the flows crossing `l` that were active in
/// the window (`None` if there is no such flow).
pub fn link_jain(run: &RunOutput, l: &LinkReport) -> Option<f64> {
    let by_id: BTreeMap<FlowId, &sim_core::FlowReport> =
        run.flows.iter().map(|f| (f.flow, f)).collect();
    let x: Vec<f64> = l
        .flows
        .iter()
        .filter_map(|id| by_id.get(id).and_then(|f| f.goodput_bps()))
        .collect();
    finite(jain(&x))
}

/// The numeric per-link metrics, in column order: the links table's columns after
/// replication, link and name, and the link metrics of the summary.
pub(crate) fn link_metrics(l: &LinkReport, jain: Option<f64>) -> Vec<(String, Val)> {
    let c = &l.counters;
    let mut v: Vec<(String, Val)> = vec![
        ("capacity_bps".into(), Val::Real(l.capacity_bps)),
        ("utilisation".into(), Val::Real(l.utilisation())),
        ("backlog_mean_pkts".into(), Val::Real(l.backlog_mean_pkts())),
        ("backlog_p99_pkts".into(), Val::Real(l.backlog_p99_pkts())),
        (
            "backlog_lt2_frac".into(),
            Val::Maybe(backlog_below_frac(&l.stats.hist_pkts, 2)),
        ),
        (
            "backlog_lt10_frac".into(),
            Val::Maybe(backlog_below_frac(&l.stats.hist_pkts, 10)),
        ),
        (
            "backlog_max_pkts".into(),
            Val::Count(u64::from(l.stats.max_pkts)),
        ),
        (
            "backlog_mean_bytes".into(),
            Val::Real(l.backlog_mean_bytes()),
        ),
        ("backlog_p99_bytes".into(), Val::Real(l.backlog_p99_bytes())),
        ("backlog_max_bytes".into(), Val::Count(l.stats.max_bytes)),
        ("qdelay_mean_s".into(), Val::Real(l.qdelay_mean_secs())),
        ("qdelay_max_s".into(), Val::Real(l.qdelay_max_secs())),
        ("qdelay_sd_s".into(), Val::Real(l.qdelay_sd_secs())),
        ("mark_prob".into(), Val::Real(l.mark_prob())),
        ("arrived_pkts".into(), Val::Count(c.arrived.pkts)),
        ("departed_pkts".into(), Val::Count(c.departed.pkts)),
        ("dropped_pkts".into(), Val::Count(c.dropped_total().pkts)),
        ("dropped_run_pkts".into(), Val::Count(l.total_dropped.pkts)),
        ("marked_pkts".into(), Val::Count(c.marked_total().pkts)),
    ];
    for r in Reason::ALL {
        v.push((
            format!("drop_{}_pkts", r.as_str()),
            Val::Count(c.dropped[r as usize].pkts),
        ));
    }
    for r in Reason::ALL {
        v.push((
            format!("mark_{}_pkts", r.as_str()),
            Val::Count(c.marked[r as usize].pkts),
        ));
    }
    v.push(("jain".into(), Val::Maybe(jain)));
    v
}

/// A column under construction, typed by the first value pushed.
enum Buf {
    Count(Vec<u64>),
    Real(Vec<f64>),
    Maybe(Vec<Option<f64>>),
}

impl Buf {
    fn for_val(v: Val) -> Buf {
        match v {
            Val::Count(_) => Buf::Count(Vec::new()),
            Val::Real(_) => Buf::Real(Vec::new()),
            Val::Maybe(_) => Buf::Maybe(Vec::new()),
        }
    }
    fn push(&mut self, v: Val) {
        match (self, v) {
            (Buf::Count(b), Val::Count(x)) => b.push(x),
            (Buf::Real(b), Val::Real(x)) => b.push(x),
            (Buf::Maybe(b), Val::Maybe(x)) => b.push(x),
            // link_metrics returns the same variant for a name on every call.
            _ => unreachable!("link metric changed type between rows"),
        }
    }
    fn into_column(self, name: &str) -> Column {
        match self {
            Buf::Count(b) => col(name, b),
            Buf::Real(b) => col(name, b),
            Buf::Maybe(b) => col(name, b),
        }
    }
}

/// A link report with nothing in it, to learn the links table's schema.
fn empty_link() -> LinkReport {
    LinkReport {
        link: LinkId(0),
        name: String::new(),
        capacity_bps: 0.0,
        counters: Default::default(),
        total_departed: Default::default(),
        total_dropped: Default::default(),
        stats: Default::default(),
        window_secs: 0.0,
        flows: Vec::new(),
    }
}

/// `links`: replication, link, name, then every per-link metric:
/// capacity_bps, utilisation, backlog (mean, p99, max in pkts and bytes), queueing
/// delay (mean, max), arrived/departed/dropped/marked packets in the window,
/// `dropped_run_pkts` (drops over the whole run, warm-up included), `drop_<reason>_pkts`
/// and `mark_<reason>_pkts` for every [`Reason`], and `jain` (null when no flow
/// crossing the link was active in the window).
pub fn links_table(set: &RunSet) -> PolarsResult<DataFrame> {
    let schema = link_metrics(&empty_link(), None);
    let mut bufs: Vec<Buf> = schema.iter().map(|(_, v)| Buf::for_val(*v)).collect();
    let (mut reps, mut ids, mut names) = (Vec::new(), Vec::new(), Vec::new());
    for run in &set.runs {
        for l in &run.links {
            reps.push(run.replication);
            ids.push(l.link.0);
            names.push(set.link_label(l));
            for (b, (_, v)) in bufs.iter_mut().zip(link_metrics(l, link_jain(run, l))) {
                b.push(v);
            }
        }
    }
    let height = reps.len();
    let mut cols = vec![
        col("replication", reps),
        col("link", ids),
        col("name", names),
    ];
    cols.extend(
        bufs.into_iter()
            .zip(&schema)
            .map(|(b, (name, _))| b.into_column(name)),
    );
    DataFrame::new(height, cols)
}

/// `series`: replication, time_s, subject_kind (`"flow"` or `"link"`), subject
/// (`"f<id>"` for a flow, the link's name for a link), group (the flow's group;
/// null for links), metric, value.
pub fn series_table(set: &RunSet) -> PolarsResult<DataFrame> {
    let n: usize = set.runs.iter().map(|r| r.series.len()).sum();
    let mut rep = Vec::with_capacity(n);
    let mut time = Vec::with_capacity(n);
    let mut kind = Vec::with_capacity(n);
    let mut subject = Vec::with_capacity(n);
    let mut group: Vec<Option<String>> = Vec::with_capacity(n);
    let mut metric = Vec::with_capacity(n);
    let mut value = Vec::with_capacity(n);
    for run in &set.runs {
        let labels = SubjectLabels::new(set, run);
        for p in &run.series {
            let (k, s, g) = labels.of(p.subject);
            rep.push(run.replication);
            time.push(p.time);
            kind.push(k);
            subject.push(s);
            group.push(g);
            metric.push(p.metric);
            value.push(p.value);
        }
    }
    DataFrame::new(
        n,
        vec![
            col("replication", rep),
            col("time_s", time),
            col("subject_kind", kind),
            col("subject", subject),
            col("group", group),
            col("metric", metric),
            col("value", value),
        ],
    )
}

/// Labels for series subjects of one run: flow `f<id>` with its group name, link name.
pub(crate) struct SubjectLabels {
    flow_group: BTreeMap<FlowId, String>,
    link_name: BTreeMap<LinkId, String>,
    meta: RunMeta,
}

impl SubjectLabels {
    /// Labels for `run`.
    pub(crate) fn new(set: &RunSet, run: &RunOutput) -> Self {
        SubjectLabels {
            flow_group: run
                .flows
                .iter()
                .map(|f| (f.flow, set.meta.group_name(f.group)))
                .collect(),
            link_name: run
                .links
                .iter()
                .map(|l| (l.link, set.link_label(l)))
                .collect(),
            meta: set.meta.clone(),
        }
    }

    /// `(subject_kind, subject, group)` of a series subject.
    pub(crate) fn of(&self, s: Subject) -> (&'static str, String, Option<String>) {
        match s {
            Subject::Flow(f) => ("flow", f.to_string(), self.flow_group.get(&f).cloned()),
            Subject::Link(l) => (
                "link",
                self.link_name
                    .get(&l)
                    .cloned()
                    .unwrap_or_else(|| self.meta.link_name(l)),
                None,
            ),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
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
            ce_pkts: 4,
        };
        FlowReport {
            flow: FlowId(id),
            group: GroupId(group),
            start: SimTime::from_ps(0),
            finish: None,
            active_secs: active,
            counters,
            total: counters,
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
            counters,
            total_departed: counters.departed,
            total_dropped: counters.dropped_total(),
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
            series: vec![
                SeriesPoint::new(0.5, Subject::Flow(FlowId(0)), "cwnd_bytes", 3000.0),
                SeriesPoint::new(0.5, Subject::Link(LinkId(0)), "queue_pkts", 2.0),
            ],
            overload: None,
        };
        RunSet {
            meta: RunMeta {
                scenario: "sample".into(),
                group_names: vec!["a".into(), "b".into()],
                link_names: vec!["r1->r2".into(), "h1->r1".into()],
                fairness: crate::FairnessSpec::default(),
            },
            runs: vec![run(0, 1), run(1, 2)],
            wall_secs: vec![0.5, 0.25],
        }
    }

    fn get(df: &DataFrame, col: &str, row: usize) -> AnyValue<'static> {
        df.column(col).unwrap().get(row).unwrap().into_static()
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
        let df = flows_table(&sample()).unwrap();
        assert_eq!(df.height(), 6);
        assert_eq!(get(&df, "goodput_bps", 0), AnyValue::Float64(1e6));
        assert_eq!(get(&df, "throughput_bps", 0), AnyValue::Float64(1.0008e6));
        assert_eq!(get(&df, "goodput_bps", 2), AnyValue::Null);
        assert_eq!(get(&df, "group", 2), AnyValue::String("b"));
        assert_eq!(get(&df, "finish_s", 0), AnyValue::Null);
        assert_eq!(get(&df, "retx_pkts", 4), AnyValue::UInt64(2));
    }

    #[test]
    fn links_table_computes_utilisation_backlog_delay_and_jain() {
        let df = links_table(&sample()).unwrap();
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
        for r in Reason::ALL {
            assert!(df.column(&format!("drop_{}_pkts", r.as_str())).is_ok());
            assert!(df.column(&format!("mark_{}_pkts", r.as_str())).is_ok());
        }
    }

    #[test]
    fn series_table_labels_flows_with_their_group_and_links_by_name() {
        let df = series_table(&sample()).unwrap();
        assert_eq!(df.height(), 4);
        assert_eq!(get(&df, "subject", 0), AnyValue::String("f0"));
        assert_eq!(get(&df, "group", 0), AnyValue::String("a"));
        assert_eq!(get(&df, "subject", 1), AnyValue::String("r1->r2"));
        assert_eq!(get(&df, "group", 1), AnyValue::Null);
        assert_eq!(get(&df, "metric", 1), AnyValue::String("queue_pkts"));
    }

    #[test]
    fn empty_run_set_gives_empty_tables_with_their_columns() {
        let t = build_tables(&RunSet::default()).unwrap();
        for (name, df) in t.named() {
            assert_eq!(df.height(), 0, "{name}");
        }
        assert!(t.links.column("jain").is_ok());
        assert!(t.flows.column("fct_s").is_ok());
    }
}
