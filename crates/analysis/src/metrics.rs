//! Every metric of every replication, computed once and looked up by index.
//!
//! A metric belongs to a [`Scope`] (a flow group, a link, or the run) and has
//! a fixed place in that scope's catalogue ([`GROUP_METRICS`],
//! [`LINK_METRICS`], [`RUN_METRICS`]); a subject is a group or link by its id.
//! [`Metrics`] holds, per replication, the group and run values in dense
//! arrays (NaN = undefined) and what the link values need from the sampled
//! series (per-link peaks, per-link time to fairness); a link's other values
//! are read off its report when asked for, so a run with 400 000 links holds
//! no second copy of them. Tables, the summary, the report, the plots and the
//! `[[expect]]` checks all read from here, by index: nothing after the event
//! loop scans every row for every subject, so its cost is linear in the
//! network's size.
//!
//! Only finite values count: a metric whose value is not finite in a
//! replication is undefined there (no row in a campaign part, not counted in
//! `n`), as a group with no active flow has no goodput.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use sim_core::{FlowId, FlowReport, PageReport, RunOutput, SeriesPoint, Subject};

use crate::dynamics::{
    group_cwnd, group_dynamics, group_send_rate, link_series_stats, LinkSeriesStats,
};
use crate::fairness::{fair_time, flow_rates};
use crate::stats::{jain, quantile, Summary};
use crate::tables::{finite, link_columns, link_jain, RunSet};

pub use crate::notable::{notable, LinkLoad, NOTABLE_UTILISATION};

/// What a metric is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// A flow group (subject: the group's name).
    Group,
    /// A link (subject: the link's name, `"r1->r2"`).
    Link,
    /// The whole replication (subject: `"all"`).
    Run,
}

impl Scope {
    /// The three scopes, in summary order.
    pub const ALL: [Scope; 3] = [Scope::Group, Scope::Link, Scope::Run];

    /// `"group"`, `"link"` or `"run"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Group => "group",
            Scope::Link => "link",
            Scope::Run => "run",
        }
    }

    /// The scope named `s`.
    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|x| x.as_str() == s)
    }

    /// The scope's metrics, in row order.
    pub fn metrics(self) -> &'static [&'static str] {
        match self {
            Scope::Group => &GROUP_METRICS,
            Scope::Link => &LINK_METRICS,
            Scope::Run => &RUN_METRICS,
        }
    }

    /// The place of metric `name` in [`Scope::metrics`].
    pub fn metric(self, name: &str) -> Option<usize> {
        self.metrics().iter().position(|m| *m == name)
    }
}

/// A flow group's metrics (see [`crate::summary`] for their definitions).
pub const GROUP_METRICS: [&str; 42] = [
    "flows",
    "active_flows",
    "active_flows_mean",
    "goodput_bps",
    "goodput_sum_bps",
    "throughput_bps",
    "throughput_sum_bps",
    "jain",
    "retx_pkts",
    "timeouts",
    "reductions",
    "ce_pkts",
    "ce_frac",
    "fct_s",
    "settle_s",
    "overshoot",
    "send_rate_bps",
    "send_rate_spread",
    "send_rate_min_bps",
    "send_rate_max_bps",
    "peak_rate_bps",
    "peak_rate_s",
    "fast_retransmits",
    "ecn_waits",
    "pages",
    "page_time_s",
    "page_throughput_bps",
    "fct_p50_s",
    "fct_p90_s",
    "fct_p99_s",
    "slowdown_mean",
    "slowdown_p99",
    "pcc_on_frac",
    "pcc_experiments",
    "pcc_failed",
    "pcc_off_periods",
    "pcc_rtcp_bps",
    "pcc_loss_rate",
    "pcc_loss_event_rate",
    "pcc_t_prot_mean_s",
    "cwnd_mean_bytes",
    "cwnd_sd_bytes",
];

/// How a links-table column is typed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A count (packets or bytes): an unsigned integer column.
    Count,
    /// A real number, always present.
    Real,
    /// A real number that may be undefined (null).
    Maybe,
}

/// The links table's metric columns (after replication, link and name), in
/// order, with their types: the first [`LINK_COLUMNS`]`.len()` link metrics.
pub const LINK_COLUMNS: [(&str, Kind); 36] = [
    ("capacity_bps", Kind::Real),
    ("utilisation", Kind::Real),
    ("backlog_mean_pkts", Kind::Real),
    ("backlog_p99_pkts", Kind::Real),
    ("backlog_lt2_frac", Kind::Maybe),
    ("backlog_lt10_frac", Kind::Maybe),
    ("backlog_max_pkts", Kind::Count),
    ("backlog_mean_bytes", Kind::Real),
    ("backlog_p99_bytes", Kind::Real),
    ("backlog_max_bytes", Kind::Count),
    ("qdelay_mean_s", Kind::Real),
    ("qdelay_max_s", Kind::Real),
    ("qdelay_sd_s", Kind::Real),
    ("mark_prob", Kind::Real),
    ("arrived_pkts", Kind::Count),
    ("departed_pkts", Kind::Count),
    ("dropped_pkts", Kind::Count),
    ("dropped_run_pkts", Kind::Count),
    ("marked_pkts", Kind::Count),
    // One per sim_core::Reason::TABLED, in order (a test checks it).
    ("drop_overflow_pkts", Kind::Count),
    ("drop_wire_loss_pkts", Kind::Count),
    ("drop_early_pkts", Kind::Count),
    ("drop_forced_pkts", Kind::Count),
    ("drop_threshold_pkts", Kind::Count),
    ("drop_virtual_pkts", Kind::Count),
    ("drop_load_pkts", Kind::Count),
    ("mark_overflow_pkts", Kind::Count),
    ("mark_wire_loss_pkts", Kind::Count),
    ("mark_early_pkts", Kind::Count),
    ("mark_forced_pkts", Kind::Count),
    ("mark_threshold_pkts", Kind::Count),
    ("mark_virtual_pkts", Kind::Count),
    ("mark_load_pkts", Kind::Count),
    ("jain", Kind::Maybe),
    ("drop_prob", Kind::Real),
    ("backlog_sd_pkts", Kind::Real),
];

/// Index of `drop_overflow_pkts` in [`LINK_COLUMNS`]: the per-reason drop
/// counts follow, then the mark counts.
pub const FIRST_REASON_COLUMN: usize = 19;

const fn names<const N: usize, const M: usize>(
    cols: [(&'static str, Kind); N],
    extra: [&'static str; 4],
) -> [&'static str; M] {
    let mut out = [""; M];
    let mut i = 0;
    while i < N {
        out[i] = cols[i].0;
        i += 1;
    }
    while i < M {
        out[i] = extra[i - N];
        i += 1;
    }
    out
}

/// A link's metrics: the links table's columns, then `fair_s` (from the
/// `flow_rate` series) and `peak_arrival_bps`, `peak_loss_frac`,
/// `utilisation_var` (from the `link_rate` series).
pub const LINK_METRICS: [&str; 40] = names(
    LINK_COLUMNS,
    [
        "fair_s",
        "peak_arrival_bps",
        "peak_loss_frac",
        "utilisation_var",
    ],
);

/// The run's metrics: events, and the wall-clock seconds and event rate of
/// the replication where the set has them.
pub const RUN_METRICS: [&str; 3] = ["events", "wall_s", "events_per_wall_s"];

/// Run-scope metrics that measure the machine, not the network: they differ
/// between identical runs, so campaign summaries leave them out.
pub const WALL_CLOCK_METRICS: [&str; 2] = ["wall_s", "events_per_wall_s"];

/// Buffers reused from subject to subject by [`Metrics::summaries_into`].
#[derive(Default)]
pub(crate) struct Scratch {
    rows: Vec<f64>,
    vals: Vec<f64>,
}

/// What one replication's values need, computed once.
struct Rep {
    /// Groups x [`GROUP_METRICS`], row-major; NaN = undefined.
    groups: Vec<f64>,
    /// [`RUN_METRICS`]; NaN = undefined.
    run: [f64; 3],
    /// Per link, from the link series (empty without one).
    peaks: Vec<LinkSeriesStats>,
    /// Per link, `fair_s` (NaN = undefined; empty without flow rates).
    fair: Vec<f64>,
}

/// The metrics of every replication of a [`RunSet`].
pub struct Metrics<'a> {
    set: &'a RunSet,
    groups: usize,
    links: usize,
    reps: Vec<Rep>,
    group_index: OnceLock<HashMap<String, usize>>,
    link_index: OnceLock<HashMap<&'a str, usize>>,
}

impl<'a> Metrics<'a> {
    /// Compute the group and run values of every replication of `set`, and
    /// what its link values need from the series.
    pub fn new(set: &'a RunSet) -> Self {
        let groups = set
            .runs
            .iter()
            .flat_map(|r| r.flows.iter().map(|f| f.group.index() + 1))
            .max()
            .unwrap_or(0)
            .max(set.meta.group_names.len());
        let links = set.runs.iter().map(|r| r.links.len()).max().unwrap_or(0);
        let reps = set
            .runs
            .iter()
            .enumerate()
            .map(|(i, run)| rep_values(set, i, run, groups))
            .collect();
        Metrics {
            set,
            groups,
            links,
            reps,
            group_index: OnceLock::new(),
            link_index: OnceLock::new(),
        }
    }

    /// The run set.
    pub fn set(&self) -> &'a RunSet {
        self.set
    }

    /// Number of replications.
    pub fn replications(&self) -> usize {
        self.reps.len()
    }

    /// Number of subjects of `scope` (ids `0..count`).
    pub fn count(&self, scope: Scope) -> usize {
        match scope {
            Scope::Group => self.groups,
            Scope::Link => self.links,
            Scope::Run => 1,
        }
    }

    /// The name of subject `i` of `scope`.
    pub fn name(&self, scope: Scope, i: usize) -> Cow<'a, str> {
        match scope {
            Scope::Group => match self.set.meta.group_names.get(i) {
                Some(n) => Cow::Borrowed(n.as_str()),
                None => Cow::Owned(sim_core::GroupId::from_index(i).to_string()),
            },
            Scope::Link => self.link_name(i),
            Scope::Run => Cow::Borrowed("all"),
        }
    }

    /// Link `i`'s label: the engine's name in the first run that has the
    /// link, else the scenario's, else `l<i>`.
    fn link_name(&self, i: usize) -> Cow<'a, str> {
        let set = self.set;
        if let Some(l) = set.runs.iter().find_map(|r| r.links.get(i)) {
            if !l.name.is_empty() {
                return Cow::Borrowed(l.name.as_str());
            }
        }
        match set.meta.link_names.get(i) {
            Some(n) => Cow::Borrowed(n.as_str()),
            None => Cow::Owned(sim_core::LinkId::from_index(i).to_string()),
        }
    }

    /// The id of the subject of `scope` named `name` (an index, built on the
    /// first lookup).
    pub fn index(&self, scope: Scope, name: &str) -> Option<usize> {
        match scope {
            Scope::Group => self
                .group_index
                .get_or_init(|| {
                    (0..self.groups)
                        .rev()
                        .map(|i| (self.name(Scope::Group, i).into_owned(), i))
                        .collect()
                })
                .get(name)
                .copied(),
            Scope::Link => {
                let index = self.link_index.get_or_init(|| {
                    // Names are unique; where they are not, the first id wins.
                    let mut m = HashMap::with_capacity(self.links);
                    for i in 0..self.links {
                        if let Cow::Borrowed(n) = self.link_name(i) {
                            m.entry(n).or_insert(i);
                        }
                    }
                    m
                });
                index.get(name).copied().or_else(|| {
                    // An unnamed link is found by its `l<i>` label.
                    let i: usize = name.strip_prefix('l')?.parse().ok()?;
                    (i < self.links && self.link_name(i) == name).then_some(i)
                })
            }
            Scope::Run => (name == "all").then_some(0),
        }
    }

    /// Every metric of subject `i` of `scope` in replication `rep`, in
    /// [`Scope::metrics`] order (`None` = undefined).
    pub fn row(&self, rep: usize, scope: Scope, i: usize) -> Vec<Option<f64>> {
        let mut out = vec![f64::NAN; scope.metrics().len()];
        self.fill_row(rep, scope, i, &mut out);
        out.into_iter().map(finite).collect()
    }

    /// Every metric of subject `i` of `scope` in replication `rep` into `out`
    /// ([`Scope::metrics`]`.len()` long; NaN where undefined).
    pub(crate) fn fill_row(&self, rep: usize, scope: Scope, i: usize, out: &mut [f64]) {
        out.fill(f64::NAN);
        let Some(r) = self.reps.get(rep) else {
            return;
        };
        let keep = |x: f64| if x.is_finite() { x } else { f64::NAN };
        match scope {
            Scope::Group => {
                let k = GROUP_METRICS.len();
                if let Some(v) = r.groups.get(i * k..(i + 1) * k) {
                    for (o, &x) in out.iter_mut().zip(v) {
                        *o = keep(x);
                    }
                }
            }
            Scope::Run => {
                for (o, &x) in out.iter_mut().zip(&r.run) {
                    *o = keep(x);
                }
            }
            Scope::Link => {
                let run = &self.set.runs[rep];
                let Some(l) = run.links.get(i) else {
                    return;
                };
                let cols = link_columns(l, link_jain(run, l));
                for (o, v) in out.iter_mut().zip(cols) {
                    *o = v.value().unwrap_or(f64::NAN);
                }
                let n = cols.len();
                out[n] = r.fair.get(i).copied().map_or(f64::NAN, keep);
                let lp = r.peaks.get(i).copied().unwrap_or_default();
                out[n + 1] = lp.arrival.map_or(f64::NAN, keep);
                out[n + 2] = lp.loss.map_or(f64::NAN, keep);
                out[n + 3] = lp
                    .rate_var()
                    .filter(|_| l.capacity_bps > 0.0)
                    .map_or(f64::NAN, |v| keep(v / (l.capacity_bps * l.capacity_bps)));
            }
        }
    }

    /// Metric `m` of subject `i` of `scope` in replication `rep`.
    pub fn value(&self, rep: usize, scope: Scope, i: usize, m: usize) -> Option<f64> {
        let r = self.reps.get(rep)?;
        match scope {
            Scope::Group => r
                .groups
                .get(i * GROUP_METRICS.len() + m)
                .copied()
                .and_then(finite),
            Scope::Run => r.run.get(m).copied().and_then(finite),
            Scope::Link => self.row(rep, scope, i).get(m).copied().flatten(),
        }
    }

    /// The value of `metric` for (`scope`, `subject`) in replication `rep`,
    /// by names.
    pub fn find_value(&self, rep: usize, scope: &str, subject: &str, metric: &str) -> Option<f64> {
        let s = Scope::parse(scope)?;
        let m = s.metric(metric)?;
        let i = self.index(s, subject)?;
        self.value(rep, s, i, m)
    }

    /// The mean of a sampled time series of the subject named `subject` in
    /// replication `rep` over the samples at times in `(t0, t1]` seconds:
    /// for a link, its series `metric` (`queue_pkts`, `rate_bps`, ...; and
    /// `utilisation`, the sampled departure rate over the capacity); for a
    /// group, the samples of all its flows together (`cwnd_bytes`,
    /// `rate_bps`, `throughput_bps`, ...). `None` when no sample falls in the
    /// window. Cost: one pass over the replication's series.
    pub fn window_mean(
        &self,
        rep: usize,
        scope: Scope,
        subject: &str,
        metric: &str,
        (t0, t1): (f64, f64),
    ) -> Option<f64> {
        let i = self.index(scope, subject)?;
        let run = self.set.runs.get(rep)?;
        let (name, scale) = match (scope, metric) {
            (Scope::Link, "utilisation") => {
                let c = run.links.get(i)?.capacity_bps;
                ("rate_bps", 1.0 / c)
            }
            _ => (metric, 1.0),
        };
        let mine = |s: &Subject| match (scope, s) {
            (Scope::Link, Subject::Link(l)) => l.index() == i,
            (Scope::Group, Subject::Flow(f)) => run
                .flows
                .get(f.index())
                .is_some_and(|f| f.group.index() == i),
            _ => false,
        };
        let (mut sum, mut n) = (0.0, 0usize);
        for p in &run.series {
            if p.time > t0 && p.time <= t1 && p.metric == name && mine(&p.subject) {
                sum += p.value;
                n += 1;
            }
        }
        (n > 0).then(|| sum / n as f64 * scale)
    }

    /// Each metric of subject `i` summarised across replications (`None`
    /// where no replication defines it), in [`Scope::metrics`] order.
    pub fn summaries(&self, scope: Scope, i: usize) -> Vec<Option<Summary>> {
        let mut out = Vec::new();
        self.summaries_into(scope, i, &mut Scratch::default(), &mut out);
        out
    }

    /// [`Metrics::summaries`] into `out`, with buffers that a caller going
    /// through many subjects keeps from one to the next.
    pub(crate) fn summaries_into(
        &self,
        scope: Scope,
        i: usize,
        scratch: &mut Scratch,
        out: &mut Vec<Option<Summary>>,
    ) {
        let k = scope.metrics().len();
        let reps = self.reps.len();
        scratch.rows.resize(reps * k, f64::NAN);
        for rep in 0..reps {
            self.fill_row(rep, scope, i, &mut scratch.rows[rep * k..(rep + 1) * k]);
        }
        out.clear();
        for m in 0..k {
            scratch.vals.clear();
            scratch.vals.extend(
                (0..reps)
                    .map(|rep| scratch.rows[rep * k + m])
                    .filter(|x| !x.is_nan()),
            );
            out.push(match scratch.vals.len() {
                0 => None,
                // One replication: its value, no spread, no interval (what
                // Summary::new gives, without its arithmetic).
                1 => Some(Summary {
                    n: 1,
                    mean: scratch.vals[0],
                    sd: f64::NAN,
                    half_width: f64::NAN,
                }),
                _ => Some(Summary::new(&scratch.vals)),
            });
        }
    }

    /// Metric `m` of subject `i` of `scope` summarised across replications.
    pub fn summary(&self, scope: Scope, i: usize, m: usize) -> Option<Summary> {
        let vals: Vec<f64> = (0..self.reps.len())
            .filter_map(|r| self.value(r, scope, i, m))
            .collect();
        (!vals.is_empty()).then(|| Summary::new(&vals))
    }

    /// The summary of `metric` for (`scope`, `subject`), by names.
    pub fn find(&self, scope: &str, subject: &str, metric: &str) -> Option<Summary> {
        let s = Scope::parse(scope)?;
        let m = s.metric(metric)?;
        let i = self.index(s, subject)?;
        self.summary(s, i, m)
    }

    /// The groups with flows in at least one replication, by id.
    pub fn present_groups(&self) -> Vec<usize> {
        let k = GROUP_METRICS.len();
        (0..self.groups)
            .filter(|&g| self.reps.iter().any(|r| r.groups[g * k].is_finite()))
            .collect()
    }

    /// The links worth showing ([`notable`]), by id, and how many were left
    /// out.
    pub fn notable_links(&self) -> (Vec<usize>, usize) {
        // The five means the choice needs, read off the reports (not every
        // link's whole summary): each the mean over the replications that
        // have the link, as the summary's would be.
        let mean = |vals: &[f64]| {
            if vals.is_empty() {
                0.0
            } else {
                vals.iter().sum::<f64>() / vals.len() as f64
            }
        };
        let mut v: [Vec<f64>; 5] = Default::default();
        let loads: Vec<LinkLoad> = (0..self.links)
            .map(|i| {
                v.iter_mut().for_each(Vec::clear);
                for l in self.set.runs.iter().filter_map(|r| r.links.get(i)) {
                    let c = &l.counters;
                    v[0].push(c.arrived.pkts as f64);
                    v[1].push(c.dropped_total().pkts as f64);
                    v[2].push(c.marked_total().pkts as f64);
                    v[3].push(l.backlog_p99_pkts());
                    let u = l.utilisation();
                    if u.is_finite() {
                        v[4].push(u);
                    }
                }
                LinkLoad {
                    arrived: mean(&v[0]),
                    dropped: mean(&v[1]),
                    marked: mean(&v[2]),
                    backlog_p99: mean(&v[3]),
                    utilisation: mean(&v[4]),
                }
            })
            .collect();
        notable(&loads)
    }
}

/// The report of flow `id` in `run` (reports are stored by flow id).
pub(crate) fn flow_of(run: &RunOutput, id: FlowId) -> Option<&FlowReport> {
    run.flows.get(id.index()).filter(|f| f.flow == id)
}

/// The group and run values of replication `i` (`run`), and what its link
/// values need from the series.
fn rep_values(set: &RunSet, i: usize, run: &RunOutput, groups: usize) -> Rep {
    let k = GROUP_METRICS.len();
    let mut members: Vec<Vec<&FlowReport>> = vec![Vec::new(); groups];
    for f in &run.flows {
        members[f.group.index()].push(f);
    }
    // Each group's flow samples, in series order.
    let mut points: Vec<Vec<&SeriesPoint>> = vec![Vec::new(); groups];
    for p in &run.series {
        if let Subject::Flow(id) = p.subject {
            if let Some(f) = flow_of(run, id) {
                points[f.group.index()].push(p);
            }
        }
    }
    let mut pages: Vec<Vec<&PageReport>> = vec![Vec::new(); groups];
    for p in &run.pages {
        if let Some(v) = pages.get_mut(p.group.index()) {
            v.push(p);
        }
    }
    let mut values = vec![f64::NAN; groups * k];
    for (g, flows) in members.iter().enumerate() {
        if !flows.is_empty() {
            let row = group_values(run, flows, &points[g], &pages[g]);
            for (slot, v) in values[g * k..(g + 1) * k].iter_mut().zip(row) {
                *slot = v.unwrap_or(f64::NAN);
            }
        }
    }
    drop(points);
    let wall = set.wall_secs.get(i).copied();
    let run_values = [
        run.events as f64,
        wall.unwrap_or(f64::NAN),
        wall.filter(|&w| w > 0.0)
            .map_or(f64::NAN, |w| run.events as f64 / w),
    ];
    let peaks = if run.series.is_empty() {
        Vec::new()
    } else {
        link_series_stats(run)
    };
    let rates = flow_rates(run);
    let fair = if rates.is_empty() {
        Vec::new()
    } else {
        run.links
            .iter()
            .map(|l| {
                let starts: Vec<(FlowId, f64)> = l
                    .flows
                    .iter()
                    .filter_map(|id| flow_of(run, *id))
                    .map(|f| (f.flow, f.start.as_secs_f64()))
                    .collect();
                fair_time(&rates, &starts, set.meta.fairness).unwrap_or(f64::NAN)
            })
            .collect()
    };
    Rep {
        groups: values,
        run: run_values,
        peaks,
        fair,
    }
}

/// The [`GROUP_METRICS`] of one group's `flows` in `run` (`points`: their
/// samples, in series order; `pages`: the web pages its sessions completed).
fn group_values(
    run: &RunOutput,
    flows: &[&FlowReport],
    points: &[&SeriesPoint],
    pages: &[&PageReport],
) -> [Option<f64>; 42] {
    let goodputs: Vec<f64> = flows.iter().filter_map(|f| f.goodput_bps()).collect();
    let thr: Vec<f64> = flows.iter().filter_map(|f| f.throughput_bps()).collect();
    let mean = |x: &[f64]| (!x.is_empty()).then(|| x.iter().sum::<f64>() / x.len() as f64);
    let w = run.window_secs;
    let per_window = |bytes: u64| (w > 0.0).then(|| bytes as f64 * 8.0 / w);
    let total = |f: fn(&FlowReport) -> u64| flows.iter().map(|fl| f(fl)).sum::<u64>();
    let fcts: Vec<f64> = flows.iter().filter_map(|f| f.fct_secs()).collect();
    let ce = total(|f| f.counters.ce_pkts);
    let rx = total(|f| f.counters.rx_pkts);
    let (settle, overshoot) = group_dynamics(points, flows, mean(&thr));
    let send = group_send_rate(points, run);
    let cwnd = group_cwnd(points, run);
    let slowdowns: Vec<f64> = flows.iter().filter_map(|f| f.slowdown()).collect();
    let on_fracs: Vec<f64> = flows.iter().filter_map(|f| f.pcc_on_frac()).collect();
    let pcc = flows.iter().any(|f| f.pcc_active());
    // Ratios of sums over the group's PCC flows (the flows table's per-flow
    // ratios, pooled): Fig. 6.5's mean of all single estimates of all flows,
    // not a mean of per-flow means.
    let pcc_total = |f: fn(&sim_core::FlowCounters) -> u64| {
        flows
            .iter()
            .filter(|fl| fl.pcc_active())
            .map(|fl| f(&fl.counters))
            .sum::<u64>()
    };
    let ratio = |num: u64, den: u64| (den > 0).then(|| num as f64 / den as f64);
    let pcc_lost = pcc_total(|c| c.pcc_lost_pkts);
    let pcc_seen = pcc_total(|c| c.rx_pkts) + pcc_lost;
    let pcc_periods = pcc_total(|c| c.pcc_prot_periods);
    let page_time = mean(
        &pages
            .iter()
            .map(|p| p.completion_secs())
            .collect::<Vec<_>>(),
    );
    let page_bytes = mean(&pages.iter().map(|p| p.bytes as f64).collect::<Vec<_>>());
    [
        Some(flows.len() as f64),
        Some(goodputs.len() as f64),
        (w > 0.0).then(|| flows.iter().map(|f| f.active_secs).sum::<f64>() / w),
        mean(&goodputs),
        per_window(total(|f| f.counters.goodput_bytes)),
        mean(&thr),
        per_window(total(|f| f.counters.rx_bytes)),
        finite(jain(&goodputs)),
        Some(total(|f| f.counters.retx_pkts) as f64),
        Some(total(|f| f.counters.timeouts) as f64),
        Some(total(|f| f.counters.reductions) as f64),
        Some(ce as f64),
        (rx > 0).then(|| ce as f64 / rx as f64),
        mean(&fcts),
        settle,
        overshoot,
        send.mean,
        send.spread,
        send.min,
        send.max,
        send.peak,
        send.peak_at,
        Some(total(|f| f.counters.fast_retransmits) as f64),
        Some(total(|f| f.counters.ecn_waits) as f64),
        (!pages.is_empty()).then_some(pages.len() as f64),
        page_time,
        page_time
            .zip(page_bytes)
            .and_then(|(t, b)| (t > 0.0).then(|| b * 8.0 / t)),
        quantile(&fcts, 0.5),
        quantile(&fcts, 0.9),
        quantile(&fcts, 0.99),
        mean(&slowdowns),
        quantile(&slowdowns, 0.99),
        mean(&on_fracs),
        pcc.then(|| total(|f| f.counters.pcc_experiments) as f64),
        pcc.then(|| total(|f| f.counters.pcc_failed) as f64),
        pcc.then(|| total(|f| f.counters.pcc_off_periods) as f64),
        ratio(
            pcc_total(|c| c.pcc_rtcp_sum_bps),
            pcc_total(|c| c.pcc_rtcp_samples),
        ),
        ratio(pcc_lost, pcc_seen),
        ratio(pcc_total(|c| c.pcc_loss_events), pcc_seen),
        pcc.then(|| {
            ratio(pcc_total(|c| c.pcc_prot_ps), pcc_periods)
                .map_or(0.0, |ps| ps / sim_core::PS_PER_SEC as f64)
        }),
        cwnd.mean,
        cwnd.sd,
    ]
}

/// The links-table values' reason columns name every `sim_core::Reason`.
#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::Reason;

    #[test]
    fn the_reason_columns_follow_reason_all() {
        for (k, r) in Reason::TABLED.iter().enumerate() {
            assert_eq!(
                LINK_COLUMNS[FIRST_REASON_COLUMN + k].0,
                format!("drop_{}_pkts", r.as_str())
            );
            assert_eq!(
                LINK_COLUMNS[FIRST_REASON_COLUMN + Reason::TABLED.len() + k].0,
                format!("mark_{}_pkts", r.as_str())
            );
        }
        assert_eq!(
            LINK_COLUMNS.len(),
            FIRST_REASON_COLUMN + 2 * Reason::TABLED.len() + 3
        );
        assert_eq!(LINK_METRICS[..LINK_COLUMNS.len()].len(), LINK_COLUMNS.len());
        assert_eq!(LINK_METRICS[39], "utilisation_var");
    }

    #[test]
    fn scopes_and_metrics_are_found_by_name() {
        assert_eq!(Scope::parse("link"), Some(Scope::Link));
        assert_eq!(Scope::parse("flow"), None);
        assert_eq!(Scope::Group.metric("jain"), Some(7));
        assert_eq!(Scope::Link.metric("jain"), Some(33));
        assert_eq!(Scope::Run.metric("wall_s"), Some(1));
    }
}
