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
//! Tables that grow with the network (`flows`, `links`, `series`, `summary`)
//! are built in batches of [`BATCH_ROWS`] rows handed to a [`Sink`], which
//! writes each to disk before the next is built: a table is never held whole
//! in memory, nor as rows of strings. Labels are borrowed, not copied per
//! row; link values are looked up by index ([`Metrics`]).
//!
//! Per-flow and per-link figures are measured over the scenario's measurement
//! window (after warm-up), as the engine reports them; `fct_s` alone spans the
//! whole run.

use std::borrow::Cow;

use polars::prelude::{
    Column, DataFrame, Float64Chunked, IdxSize, IntoSeries, NamedFrom, PolarsResult, Series,
};
use polars_arrow::bitmap::Bitmap;
use sim_core::{FlowId, GroupId, LinkId, LinkReport, Reason, RunOutput, Subject};

use crate::metrics::{flow_of, Kind, Metrics, Scope, FIRST_REASON_COLUMN, LINK_COLUMNS};
use crate::stats::jain;

/// What the analysis needs to know about a scenario besides its run outputs.
#[derive(Clone, Debug, Default)]
pub struct RunMeta {
    /// Scenario name.
    pub scenario: String,
    /// Flow-group names; index = [`GroupId`].
    pub group_names: Vec<String>,
    /// Link names; index = [`LinkId`].
    pub link_names: Vec<String>,
    /// Node names; index = [`sim_core::NodeId`] (the flows table's `src` and `dst`).
    pub node_names: Vec<String>,
    /// The flow-size bin edges of the `fct_bins` table, bytes (empty: the
    /// default, [`crate::fct_bins::DEFAULT_EDGES`]).
    pub fct_bin_edges: Vec<u64>,
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

    /// Whether two or more replications ran and every one gave the same
    /// result as the first (events, every flow's counters, every link's
    /// counters): the scenario draws no random number that matters, so
    /// every interval is +- 0 and more replications add nothing.
    pub fn identical_replications(&self) -> bool {
        let Some((first, rest)) = self.runs.split_first() else {
            return false;
        };
        let same =
            |r: &RunOutput| {
                r.events == first.events
                    && r.flows.len() == first.flows.len()
                    && r.links.len() == first.links.len()
                    && r.flows.iter().zip(&first.flows).all(|(a, b)| {
                        a.total == b.total && a.finish == b.finish && a.start == b.start
                    })
                    && r.links.iter().zip(&first.links).all(|(a, b)| {
                        a.counters == b.counters && a.total_dropped == b.total_dropped
                    })
            };
        !rest.is_empty() && rest.iter().all(same)
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

/// Rows per batch of a table written as it is built: a batch is one Parquet
/// row group, and the most of a table held in memory at once.
pub const BATCH_ROWS: usize = 1 << 14;

/// Where a table's batches go: each is a [`DataFrame`] of at most
/// [`BATCH_ROWS`] rows, with the same columns; every table sends at least
/// one (empty if the table has no rows), so a writer always learns its
/// schema.
pub type Sink<'s> = dyn FnMut(DataFrame) -> PolarsResult<()> + 's;

/// `sink` with the `scenario` column (the scenario's name) put first in
/// every batch: single-run tables stack and join across runs without hand
/// work.
pub(crate) fn stamped<'s, 'k: 's>(
    set: &'s RunSet,
    sink: &'s mut Sink<'k>,
) -> impl FnMut(DataFrame) -> PolarsResult<()> + use<'s, 'k> {
    move |mut df: DataFrame| {
        let n = df.height();
        let name = polars::prelude::Scalar::new(
            polars::prelude::DataType::String,
            polars::prelude::AnyValue::StringOwned(set.meta.scenario.as_str().into()),
        );
        df.insert_column(0, Column::new_scalar("scenario".into(), name, n))?;
        sink(df)
    }
}

/// Every batch of a table stacked into one frame (for tests and small sets).
pub fn whole(produce: impl FnOnce(&mut Sink<'_>) -> PolarsResult<()>) -> PolarsResult<DataFrame> {
    let mut all: Option<DataFrame> = None;
    produce(&mut |df| {
        match &mut all {
            None => all = Some(df),
            Some(a) => {
                a.vstack_mut(&df)?;
            }
        }
        Ok(())
    })?;
    let mut df = all.unwrap_or_default();
    df.rechunk_mut();
    Ok(df)
}

/// A named column from anything polars can build a series from.
pub(crate) fn col<V, P>(name: &str, values: V) -> Column
where
    Series: NamedFrom<V, P>,
    P: ?Sized,
{
    Column::from(Series::new(name.into(), values))
}

/// A string column built from a few distinct values by index: the values
/// are stored once and each row holds a reference to one, so a summary's
/// 10^7 rows of metric names, scopes and link names cost no string copy each
/// (polars gathers the views; the column reads as any other string column).
#[derive(Default)]
pub(crate) struct Dict<'a> {
    values: Vec<Cow<'a, str>>,
    rows: Vec<IdxSize>,
}

impl<'a> Dict<'a> {
    /// A dictionary of the given distinct values.
    pub(crate) fn of(values: impl IntoIterator<Item = &'a str>) -> Self {
        Dict {
            values: values.into_iter().map(Cow::Borrowed).collect(),
            rows: Vec::new(),
        }
    }

    /// Add a value; returns its index.
    pub(crate) fn add(&mut self, v: Cow<'a, str>) -> IdxSize {
        self.values.push(v);
        (self.values.len() - 1) as IdxSize
    }

    /// The index of the last value added (`None` if none).
    pub(crate) fn last(&self) -> Option<IdxSize> {
        self.values.len().checked_sub(1).map(|i| i as IdxSize)
    }

    /// Append a row holding value `k`.
    #[inline]
    pub(crate) fn push(&mut self, k: IdxSize) {
        self.rows.push(k);
    }

    /// The column of the rows so far; the rows are cleared (the values kept
    /// when `keep_values`, for a fixed dictionary).
    pub(crate) fn take_column(&mut self, name: &str, keep_values: bool) -> PolarsResult<Column> {
        let values: Vec<&str> = self.values.iter().map(|v| v.as_ref()).collect();
        let dict = Series::new(name.into(), values);
        let col = dict.take_slice(&self.rows)?;
        self.rows.clear();
        if !keep_values {
            self.values.clear();
        }
        Ok(Column::from(col))
    }
}

/// A Float64 column of `values` in which every non-finite value is null:
/// built from the values and a validity bitmap, not value by value from
/// options (a summary's 10^7 rows).
pub(crate) fn nullable(name: &str, mut values: Vec<f64>) -> Column {
    let name = name.into();
    let column = if values.iter().all(|x| x.is_finite()) {
        Float64Chunked::from_vec(name, values)
    } else {
        let valid: Bitmap = values.iter().map(|x| x.is_finite()).collect();
        for x in values.iter_mut().filter(|x| !x.is_finite()) {
            *x = 0.0;
        }
        Float64Chunked::from_vec_validity(name, values, Some(valid))
    };
    Column::from(column.into_series())
}

/// `Some(x)` for a finite `x`, else `None` (written as null).
pub(crate) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Feed rows to `push` and hand a batch to `sink` every [`BATCH_ROWS`] rows
/// and at the end (an empty one if there were no rows). `push` adds a row
/// to the columns; `frame` drains them into a frame.
fn batched<C, R>(
    rows: impl Iterator<Item = R>,
    cols: &mut C,
    mut push: impl FnMut(&mut C, R),
    mut frame: impl FnMut(&mut C) -> PolarsResult<DataFrame>,
    sink: &mut Sink<'_>,
) -> PolarsResult<()> {
    let mut in_batch = 0;
    let mut sent = false;
    for k in rows {
        push(cols, k);
        in_batch += 1;
        if in_batch == BATCH_ROWS {
            sink(frame(cols)?)?;
            in_batch = 0;
            sent = true;
        }
    }
    if in_batch > 0 || !sent {
        sink(frame(cols)?)?;
    }
    Ok(())
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
            col("scenario", vec![set.meta.scenario.as_str(); rs.len()]),
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

/// Every item of every run, in run order, as (run, item): `items` gives a
/// run's items.
fn per_run<'s, T: 's>(
    set: &'s RunSet,
    items: impl Fn(&'s RunOutput) -> &'s [T] + Copy + 's,
) -> impl Iterator<Item = (&'s RunOutput, &'s T)> + 's {
    set.runs
        .iter()
        .flat_map(move |r| items(r).iter().map(move |x| (r, x)))
}

/// Names of a set's subjects for tables and charts, made once: flow `f<id>`,
/// group names, link names.
pub(crate) struct Labels<'m, 'a> {
    /// `"f<id>"` by flow id.
    pub flows: Vec<String>,
    /// Group names by id.
    pub groups: Vec<Cow<'a, str>>,
    metrics: &'m Metrics<'a>,
}

impl<'m, 'a> Labels<'m, 'a> {
    pub(crate) fn new(m: &'m Metrics<'a>) -> Self {
        let flows = m
            .set()
            .runs
            .iter()
            .map(|r| r.flows.len())
            .max()
            .unwrap_or(0);
        Labels {
            flows: (0..flows)
                .map(|i| FlowId::from_index(i).to_string())
                .collect(),
            groups: (0..m.count(Scope::Group))
                .map(|g| m.name(Scope::Group, g))
                .collect(),
            metrics: m,
        }
    }

    /// The name of group `g`.
    pub(crate) fn group(&self, g: GroupId) -> &str {
        self.groups.get(g.index()).map_or("", |c| c.as_ref())
    }

    /// The name of link `l`.
    pub(crate) fn link(&self, l: LinkId) -> Cow<'a, str> {
        self.metrics.name(Scope::Link, l.index())
    }
}

/// The columns of a batch of the `pages` table.
#[derive(Default)]
struct PageCols<'a> {
    rep: Vec<u32>,
    group: Vec<&'a str>,
    session: Vec<u32>,
    requested: Vec<f64>,
    completed: Vec<f64>,
    objects: Vec<u32>,
    bytes: Vec<u64>,
    completion: Vec<f64>,
}

/// The `pages` table in batches: one row per web page a session completed
/// (web traffic with fresh connections), over the whole run: replication,
/// group, session, `requested_s` (its first object's request),
/// `completed_s` (its last object's last acknowledgement), `objects`,
/// `bytes`, `completion_s`.
pub fn pages_batches(m: &Metrics<'_>, sink: &mut Sink<'_>) -> PolarsResult<()> {
    let sink = &mut stamped(m.set(), sink);
    let labels = Labels::new(m);
    let mut cols = PageCols::default();
    batched(
        per_run(m.set(), |r| &r.pages),
        &mut cols,
        |c, (r, p)| {
            c.rep.push(r.replication);
            c.group.push(labels.group(p.group));
            c.session.push(p.session);
            c.requested.push(p.requested.as_secs_f64());
            c.completed.push(p.completed.as_secs_f64());
            c.objects.push(p.objects);
            c.bytes.push(p.bytes);
            c.completion.push(p.completion_secs());
        },
        |c| {
            let c = std::mem::take(c);
            let height = c.rep.len();
            DataFrame::new(
                height,
                vec![
                    col("replication", c.rep),
                    col("group", c.group),
                    col("session", c.session),
                    col("requested_s", c.requested),
                    col("completed_s", c.completed),
                    col("objects", c.objects),
                    col("bytes", c.bytes),
                    col("completion_s", c.completion),
                ],
            )
        },
        sink,
    )
}

/// The whole `pages` table ([`pages_batches`] stacked).
pub fn pages_table(m: &Metrics<'_>) -> PolarsResult<DataFrame> {
    whole(|s| pages_batches(m, s))
}

/// The columns of a batch of the `objects` table.
#[derive(Default)]
struct ObjectCols<'a> {
    rep: Vec<u32>,
    flow: Vec<u32>,
    group: Vec<&'a str>,
    requested: Vec<f64>,
    completed: Vec<f64>,
    bytes: Vec<u64>,
    completion: Vec<f64>,
}

/// The `objects` table in batches: one row per application object a flow
/// completed (persistent web connections), over the whole run: replication,
/// flow, group, `requested_s`, `completed_s`, `bytes`, `completion_s`.
pub fn objects_batches(m: &Metrics<'_>, sink: &mut Sink<'_>) -> PolarsResult<()> {
    let sink = &mut stamped(m.set(), sink);
    let labels = Labels::new(m);
    let mut cols = ObjectCols::default();
    batched(
        per_run(m.set(), |r| &r.objects),
        &mut cols,
        |c, (r, o)| {
            c.rep.push(r.replication);
            c.flow.push(o.flow.0);
            c.group.push(labels.group(o.group));
            c.requested.push(o.requested.as_secs_f64());
            c.completed.push(o.completed.as_secs_f64());
            c.bytes.push(o.bytes);
            c.completion.push(o.completion_secs());
        },
        |c| {
            let c = std::mem::take(c);
            let height = c.rep.len();
            DataFrame::new(
                height,
                vec![
                    col("replication", c.rep),
                    col("flow", c.flow),
                    col("group", c.group),
                    col("requested_s", c.requested),
                    col("completed_s", c.completed),
                    col("bytes", c.bytes),
                    col("completion_s", c.completion),
                ],
            )
        },
        sink,
    )
}

/// The fraction of the measurement window during which a link's queue held
/// fewer than `k` packets (waiting, not counting the one being serialised),
/// from its time-weighted backlog histogram: the limit of sampling the queue
/// at a fine period (seed 002 Fig. 37(d) samples every 10 ms: "64 % of the
/// time less than two packets"). `None` for an empty window.
/// Links table and summary: `backlog_lt2_frac`, `backlog_lt10_frac`.
pub fn backlog_below_frac(hist_pkts: &[u64], k: usize) -> Option<f64> {
    below_frac(hist_pkts, hist_total(hist_pkts), k)
}

/// The time a histogram covers: the sum of its bins.
fn hist_total(hist: &[u64]) -> u128 {
    hist.iter().map(|&x| u128::from(x)).sum()
}

/// [`backlog_below_frac`] with the histogram's total already summed.
fn below_frac(hist_pkts: &[u64], total: u128, k: usize) -> Option<f64> {
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
    thread_local! {
        // Reused: a link at a time, 10^5 links would otherwise allocate 10^5 times.
        static GOODPUTS: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    GOODPUTS.with(|x| {
        let mut x = x.borrow_mut();
        x.clear();
        x.extend(
            l.flows
                .iter()
                .filter_map(|id| flow_of(run, *id).and_then(|f| f.goodput_bps())),
        );
        finite(jain(&x))
    })
}

/// The links table's metric columns of `l` ([`LINK_COLUMNS`], in order), with
/// `jain` over its flows.
pub(crate) fn link_columns(l: &LinkReport, jain: Option<f64>) -> [Val; 36] {
    let c = &l.counters;
    let total = hist_total(&l.stats.hist_pkts);
    let mut v = [Val::Count(0); 36];
    let head = [
        Val::Real(l.capacity_bps),
        Val::Real(l.utilisation()),
        Val::Real(l.backlog_mean_pkts()),
        Val::Real(l.backlog_p99_pkts()),
        Val::Maybe(below_frac(&l.stats.hist_pkts, total, 2)),
        Val::Maybe(below_frac(&l.stats.hist_pkts, total, 10)),
        Val::Count(u64::from(l.stats.max_pkts)),
        Val::Real(l.backlog_mean_bytes()),
        Val::Real(l.backlog_p99_bytes()),
        Val::Count(l.stats.max_bytes),
        Val::Real(l.qdelay_mean_secs()),
        Val::Real(l.qdelay_max_secs()),
        Val::Real(l.qdelay_sd_secs()),
        Val::Real(l.mark_prob()),
        Val::Count(c.arrived.pkts),
        Val::Count(c.departed.pkts),
        Val::Count(c.dropped_total().pkts),
        Val::Count(l.total_dropped.pkts),
        Val::Count(c.marked_total().pkts),
    ];
    v[..FIRST_REASON_COLUMN].copy_from_slice(&head);
    for &r in Reason::TABLED {
        v[FIRST_REASON_COLUMN + r as usize] = Val::Count(c.dropped[r as usize].pkts);
        v[FIRST_REASON_COLUMN + Reason::TABLED.len() + r as usize] =
            Val::Count(c.marked[r as usize].pkts);
    }
    v[33] = Val::Maybe(jain);
    v[34] = Val::Real(drop_prob(c));
    v[35] = Val::Real(l.backlog_sd_pkts());
    v
}

/// The fraction of the packets that arrived at the link in the window that it
/// dropped (any reason), the loss rate L / (L + A) of buffer-sizing studies;
/// 0 when nothing arrived.
fn drop_prob(c: &sim_core::LinkCounters) -> f64 {
    let a = c.arrived.pkts;
    if a == 0 {
        0.0
    } else {
        c.dropped_total().pkts as f64 / a as f64
    }
}

/// A column under construction, typed by its [`Kind`].
enum Buf {
    Count(Vec<u64>),
    Real(Vec<f64>),
    Maybe(Vec<Option<f64>>),
}

impl Buf {
    fn new(k: Kind) -> Buf {
        match k {
            Kind::Count => Buf::Count(Vec::new()),
            Kind::Real => Buf::Real(Vec::new()),
            Kind::Maybe => Buf::Maybe(Vec::new()),
        }
    }
    fn push(&mut self, v: Val) {
        match (self, v) {
            (Buf::Count(b), Val::Count(x)) => b.push(x),
            (Buf::Real(b), Val::Real(x)) => b.push(x),
            (Buf::Maybe(b), Val::Maybe(x)) => b.push(x),
            // link_columns returns each column's Kind on every call (a test checks it).
            _ => unreachable!("link metric changed type between rows"),
        }
    }
    fn take_column(&mut self, name: &str) -> Column {
        match self {
            Buf::Count(b) => col(name, std::mem::take(b)),
            Buf::Real(b) => col(name, std::mem::take(b)),
            Buf::Maybe(b) => col(name, std::mem::take(b)),
        }
    }
}

/// The columns of a batch of the `links` table.
struct LinkCols<'a> {
    rep: Vec<u32>,
    id: Vec<u32>,
    name: Vec<Cow<'a, str>>,
    bufs: Vec<Buf>,
}

/// `links`: replication, link, name, then every per-link metric of
/// [`LINK_COLUMNS`]: capacity_bps, utilisation, backlog (mean, p99, max in pkts
/// and bytes), queueing delay (mean, max), arrived/departed/dropped/marked
/// packets in the window, `dropped_run_pkts` (drops over the whole run, warm-up
/// included), `drop_<reason>_pkts` and `mark_<reason>_pkts` for every
/// [`Reason`], `jain` (null when no flow crossing the link was active in
/// the window), `drop_prob` (dropped / arrived packets in the window, any
/// reason; 0 when nothing arrived) and `backlog_sd_pkts` (the standard
/// deviation of the time-weighted backlog); in batches.
pub fn links_batches(m: &Metrics<'_>, sink: &mut Sink<'_>) -> PolarsResult<()> {
    let sink = &mut stamped(m.set(), sink);
    let labels = Labels::new(m);
    let mut cols = LinkCols {
        rep: Vec::new(),
        id: Vec::new(),
        name: Vec::new(),
        bufs: LINK_COLUMNS.iter().map(|(_, k)| Buf::new(*k)).collect(),
    };
    batched(
        per_run(m.set(), |r| &r.links),
        &mut cols,
        |c, (run, l)| {
            c.rep.push(run.replication);
            c.id.push(l.link.0);
            c.name.push(if l.name.is_empty() {
                labels.link(l.link)
            } else {
                Cow::Borrowed(l.name.as_str())
            });
            for (b, v) in c.bufs.iter_mut().zip(link_columns(l, link_jain(run, l))) {
                b.push(v);
            }
        },
        |c| {
            let height = c.rep.len();
            let names: Vec<&str> = c.name.iter().map(|n| n.as_ref()).collect();
            let mut v = vec![
                col("replication", std::mem::take(&mut c.rep)),
                col("link", std::mem::take(&mut c.id)),
                col("name", names),
            ];
            c.name.clear();
            v.extend(
                c.bufs
                    .iter_mut()
                    .zip(LINK_COLUMNS.iter())
                    .map(|(b, (name, _))| b.take_column(name)),
            );
            DataFrame::new(height, v)
        },
        sink,
    )
}

/// The columns of a batch of the `series` table.
#[derive(Default)]
struct SeriesCols<'a> {
    rep: Vec<u32>,
    time: Vec<f64>,
    kind: Vec<&'static str>,
    subject: Vec<Cow<'a, str>>,
    flow: Vec<Option<u32>>,
    group: Vec<Option<&'a str>>,
    metric: Vec<&'static str>,
    value: Vec<f64>,
}

/// `series`: scenario, replication, time_s, subject_kind (`"flow"` or
/// `"link"`), subject (`"f<id>"` for a flow, the link's name for a link),
/// flow (the flow's id as in `flows`; null for links), group (the flow's
/// group; null for links), metric, value; in batches.
pub fn series_batches(m: &Metrics<'_>, sink: &mut Sink<'_>) -> PolarsResult<()> {
    let sink = &mut stamped(m.set(), sink);
    let labels = Labels::new(m);
    let mut cols = SeriesCols::default();
    batched(
        per_run(m.set(), |r| &r.series),
        &mut cols,
        |c, (run, p)| {
            c.rep.push(run.replication);
            c.time.push(p.time);
            match p.subject {
                Subject::Flow(f) => {
                    c.kind.push("flow");
                    c.flow.push(Some(f.0));
                    c.subject.push(match labels.flows.get(f.index()) {
                        Some(s) => Cow::Borrowed(s.as_str()),
                        None => Cow::Owned(f.to_string()),
                    });
                    c.group
                        .push(flow_of(run, f).map(|fr| labels.group(fr.group)));
                }
                Subject::Link(l) => {
                    c.kind.push("link");
                    c.flow.push(None);
                    c.subject.push(labels.link(l));
                    c.group.push(None);
                }
            }
            c.metric.push(p.metric);
            c.value.push(p.value);
        },
        |c| {
            let c = std::mem::take(c);
            let height = c.rep.len();
            let subject: Vec<&str> = c.subject.iter().map(|s| s.as_ref()).collect();
            DataFrame::new(
                height,
                vec![
                    col("replication", c.rep),
                    col("time_s", c.time),
                    col("subject_kind", c.kind),
                    col("subject", subject),
                    col("flow", c.flow),
                    col("group", c.group),
                    col("metric", c.metric),
                    col("value", c.value),
                ],
            )
        },
        sink,
    )
}

/// The whole `links` table ([`links_batches`] stacked).
pub fn links_table(m: &Metrics<'_>) -> PolarsResult<DataFrame> {
    whole(|s| links_batches(m, s))
}

/// The whole `objects` table ([`objects_batches`] stacked).
pub fn objects_table(m: &Metrics<'_>) -> PolarsResult<DataFrame> {
    whole(|s| objects_batches(m, s))
}

/// The whole `series` table ([`series_batches`] stacked).
pub fn series_table(m: &Metrics<'_>) -> PolarsResult<DataFrame> {
    whole(|s| series_batches(m, s))
}

mod flows;
pub use flows::{flows_batches, flows_table};

#[cfg(test)]
pub(crate) mod tests;
