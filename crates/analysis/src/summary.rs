//! The summary: every metric computed per replication, then summarised across
//! replications with a 95 % Student-t interval.
//!
//! Rows are `(scope, subject, metric, n, mean, sd, ci95_half)`:
//! - scope `"group"`, subject = group name: `flows` (flows in the group),
//!   `active_flows` (flows active in the window), `goodput_bps` and
//!   `throughput_bps` (mean over the group's active flows of each flow's rate over
//!   its active time), `goodput_sum_bps` and `throughput_sum_bps` (the group's bytes
//!   in the window * 8 / window length), `jain` (over the active flows' goodputs),
//!   `active_flows_mean` (the time-average number of the group's flows active
//!   in the window: each flow's active time in the window, summed, over the
//!   window; an arrival process's mean population, Little's `L`),
//!   `retx_pkts`, `timeouts`, `reductions`, `ce_pkts` (CE-marked data packets
//!   received; totals over the group's flows in the window), `ce_frac` (`ce_pkts`
//!   over data packets received), `fct_s` (mean completion time of the flows that finished, whole run),
//!   and, with the `flow_rate` series, `settle_s` and `overshoot` (the group's
//!   transient after its last member joined, [`crate::dynamics`]) and, for
//!   rate-paced controllers, `send_rate_bps`, `send_rate_spread`,
//!   `send_rate_min_bps`, `send_rate_max_bps`, `peak_rate_bps` and `peak_rate_s`
//!   (the controllers' own sending rate: the window mean of the mean over the
//!   members sampled at each instant, each member's rate averaged over the
//!   sample interval where its sender tracks it, [`crate::dynamics::SendRate`];
//!   the spread of the point samples, the smallest and largest
//!   rate any member was sampled at in the window, and the peak over the run);
//! - scope `"link"`, subject = link name: every numeric column of the links table
//!   (`utilisation`, `backlog_p99_pkts`, `backlog_lt2_frac`, `drop_early_pkts`,
//!   `jain`, ...) and, with
//!   the `link_rate` series, `peak_arrival_bps` and `peak_loss_frac` (whole run,
//!   per sampling interval, [`crate::dynamics::link_series_stats`]) and
//!   `utilisation_var` (the variance of the sampled utilisation in the
//!   window, seed 002's Fig. 40) and, with the `flow_rate` series, `fair_s`
//!   (the time after the last of the link's flows starts until they are
//!   epsilon-fair for good, [`crate::fairness`]);
//! - scope `"run"`, subject `"all"`: `events`, `wall_s`, `events_per_wall_s`.
//!
//! `n` counts the replications in which the metric is defined (a group with no
//! active flow has no goodput in that replication); a metric defined in no
//! replication has no row.

use std::collections::BTreeMap;

use polars::prelude::{DataFrame, PolarsResult};
use sim_core::{FlowId, FlowReport, GroupId, LinkId, LinkReport, RunOutput};

use crate::dynamics::{group_dynamics, group_send_rate, link_series_stats, LinkSeriesStats};
use crate::fairness::{fair_time, flow_rates, FairnessSpec, FlowRates};
use crate::stats::{jain, Summary};
use crate::tables::{col, finite, link_jain, link_metrics, RunSet};

/// One row of the summary table.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    /// `"group"`, `"link"` or `"run"`.
    pub scope: String,
    /// Group name, link name, or `"all"` for run metrics.
    pub subject: String,
    /// Metric name with its unit suffix (`"goodput_bps"`, `"qdelay_mean_s"`).
    pub metric: String,
    /// Replications that define the metric.
    pub n: usize,
    /// Mean over those replications.
    pub mean: f64,
    /// Sample standard deviation over replications (NaN when `n < 2`).
    pub sd: f64,
    /// Half-width of the 95 % Student-t interval (NaN when `n < 2`).
    pub ci95_half: f64,
}

impl SummaryRow {
    fn new(scope: &str, subject: &str, metric: &str, s: Summary) -> Self {
        SummaryRow {
            scope: scope.into(),
            subject: subject.into(),
            metric: metric.into(),
            n: s.n,
            mean: s.mean,
            sd: s.sd,
            ci95_half: s.half_width,
        }
    }

    /// The row as a [`Summary`].
    pub fn summary(&self) -> Summary {
        Summary {
            n: self.n,
            mean: self.mean,
            sd: self.sd,
            half_width: self.ci95_half,
        }
    }
}

/// The row for `(scope, subject, metric)`, if the summary has one.
pub fn lookup<'a>(
    rows: &'a [SummaryRow],
    scope: &str,
    subject: &str,
    metric: &str,
) -> Option<&'a SummaryRow> {
    rows.iter()
        .find(|r| r.scope == scope && r.subject == subject && r.metric == metric)
}

/// The subjects of `scope` in row order, each once.
pub fn subjects<'a>(rows: &'a [SummaryRow], scope: &str) -> Vec<&'a str> {
    let mut v: Vec<&str> = Vec::new();
    for r in rows.iter().filter(|r| r.scope == scope) {
        if !v.contains(&r.subject.as_str()) {
            v.push(&r.subject);
        }
    }
    v
}

/// Utilisation at or above which a link is shown even without queue or losses.
pub const NOTABLE_UTILISATION: f64 = 0.5;

/// The links worth showing in the report and the utilisation chart, in row order,
/// and how many were left out. A link is notable when it dropped or marked a
/// packet, had a queue at its 99th backlog percentile, or was at least
/// [`NOTABLE_UTILISATION`] busy: in a dumbbell, the bottleneck but not the dozens
/// of access and ACK links. If no link is notable, every link that carried traffic
/// is; a link nothing arrived at is never shown.
pub fn notable_links(rows: &[SummaryRow]) -> (Vec<&str>, usize) {
    let all = subjects(rows, "link");
    let m = |l: &str, metric: &str| lookup(rows, "link", l, metric).map_or(0.0, |r| r.mean);
    let used: Vec<&str> = all
        .iter()
        .copied()
        .filter(|l| m(l, "arrived_pkts") > 0.0)
        .collect();
    let loaded: Vec<&str> = used
        .iter()
        .copied()
        .filter(|l| {
            m(l, "dropped_pkts") > 0.0
                || m(l, "marked_pkts") > 0.0
                || m(l, "backlog_p99_pkts") > 0.0
                || m(l, "utilisation") >= NOTABLE_UTILISATION
        })
        .collect();
    let shown = if loaded.is_empty() { used } else { loaded };
    let omitted = all.len() - shown.len();
    (shown, omitted)
}

/// Per-replication values of the metrics of one subject, in first-seen order.
#[derive(Default)]
struct Acc {
    metrics: Vec<(String, Vec<f64>)>,
}

impl Acc {
    fn push(&mut self, metric: &str, value: Option<f64>) {
        let i = match self.metrics.iter().position(|(m, _)| m == metric) {
            Some(i) => i,
            None => {
                self.metrics.push((metric.to_string(), Vec::new()));
                self.metrics.len() - 1
            }
        };
        if let Some(v) = value.and_then(finite) {
            self.metrics[i].1.push(v);
        }
    }

    fn rows(&self, scope: &str, subject: &str, out: &mut Vec<SummaryRow>) {
        for (m, vals) in &self.metrics {
            if !vals.is_empty() {
                out.push(SummaryRow::new(scope, subject, m, Summary::new(vals)));
            }
        }
    }
}

/// The per-replication group metrics of `flows` (one group's flows in one run).
fn group_metrics(run: &RunOutput, flows: &[&FlowReport], acc: &mut Acc) {
    let goodputs: Vec<f64> = flows.iter().filter_map(|f| f.goodput_bps()).collect();
    let thr: Vec<f64> = flows.iter().filter_map(|f| f.throughput_bps()).collect();
    let mean = |x: &[f64]| (!x.is_empty()).then(|| x.iter().sum::<f64>() / x.len() as f64);
    let w = run.window_secs;
    let per_window = |bytes: u64| (w > 0.0).then(|| bytes as f64 * 8.0 / w);
    let total = |f: fn(&FlowReport) -> u64| flows.iter().map(|fl| f(fl)).sum::<u64>();
    let fcts: Vec<f64> = flows.iter().filter_map(|f| f.fct_secs()).collect();

    acc.push("flows", Some(flows.len() as f64));
    acc.push("active_flows", Some(goodputs.len() as f64));
    acc.push(
        "active_flows_mean",
        (w > 0.0).then(|| flows.iter().map(|f| f.active_secs).sum::<f64>() / w),
    );
    acc.push("goodput_bps", mean(&goodputs));
    acc.push(
        "goodput_sum_bps",
        per_window(total(|f| f.counters.goodput_bytes)),
    );
    acc.push("throughput_bps", mean(&thr));
    acc.push(
        "throughput_sum_bps",
        per_window(total(|f| f.counters.rx_bytes)),
    );
    acc.push("jain", finite(jain(&goodputs)));
    acc.push("retx_pkts", Some(total(|f| f.counters.retx_pkts) as f64));
    acc.push("timeouts", Some(total(|f| f.counters.timeouts) as f64));
    acc.push("reductions", Some(total(|f| f.counters.reductions) as f64));
    let ce = total(|f| f.counters.ce_pkts);
    let rx = total(|f| f.counters.rx_pkts);
    acc.push("ce_pkts", Some(ce as f64));
    acc.push("ce_frac", (rx > 0).then(|| ce as f64 / rx as f64));
    acc.push("fct_s", mean(&fcts));
    let (settle, overshoot) = group_dynamics(run, flows, mean(&thr));
    acc.push("settle_s", settle);
    acc.push("overshoot", overshoot);
    let send = group_send_rate(run, flows);
    acc.push("send_rate_bps", send.mean);
    acc.push("send_rate_spread", send.spread);
    acc.push("send_rate_min_bps", send.min);
    acc.push("send_rate_max_bps", send.max);
    acc.push("peak_rate_bps", send.peak);
    acc.push("peak_rate_s", send.peak_at);
}

/// The per-replication metrics of link `l` in `run`: the links table's columns,
/// then its peaks from the sampled series (`peaks`, [`link_series_stats`] of the run).
fn link_acc(
    run: &RunOutput,
    l: &LinkReport,
    peaks: &[LinkSeriesStats],
    fair: (&FlowRates, FairnessSpec),
    acc: &mut Acc,
) {
    for (m, v) in link_metrics(l, link_jain(run, l)) {
        acc.push(&m, v.value());
    }
    let starts: Vec<(FlowId, f64)> = l
        .flows
        .iter()
        .filter_map(|id| run.flows.get(id.index()).filter(|f| f.flow == *id))
        .map(|f| (f.flow, f.start.as_secs_f64()))
        .collect();
    acc.push("fair_s", fair_time(fair.0, &starts, fair.1));
    let lp = peaks.get(l.link.index()).copied().unwrap_or_default();
    acc.push("peak_arrival_bps", lp.arrival);
    acc.push("peak_loss_frac", lp.loss);
    acc.push(
        "utilisation_var",
        lp.rate_var()
            .filter(|_| l.capacity_bps > 0.0)
            .map(|v| v / (l.capacity_bps * l.capacity_bps)),
    );
}

/// The summary as plain rows: groups (by id), then links (by id), then the run.
pub fn summary_rows(set: &RunSet) -> Vec<SummaryRow> {
    let mut groups: BTreeMap<GroupId, Acc> = (0..set.meta.group_names.len())
        .map(|i| (GroupId::from_index(i), Acc::default()))
        .collect();
    let mut links: BTreeMap<LinkId, (String, Acc)> = BTreeMap::new();
    let mut run_acc = Acc::default();

    for (i, run) in set.runs.iter().enumerate() {
        let mut by_group: BTreeMap<GroupId, Vec<&FlowReport>> = BTreeMap::new();
        for f in &run.flows {
            by_group.entry(f.group).or_default().push(f);
        }
        for (g, flows) in &by_group {
            group_metrics(run, flows, groups.entry(*g).or_default());
        }
        let peaks = link_series_stats(run);
        let rates = flow_rates(run);
        for l in &run.links {
            let (_, acc) = links
                .entry(l.link)
                .or_insert_with(|| (set.link_label(l), Acc::default()));
            link_acc(run, l, &peaks, (&rates, set.meta.fairness), acc);
        }
        let wall = set.wall_secs.get(i).copied();
        run_acc.push("events", Some(run.events as f64));
        run_acc.push("wall_s", wall);
        run_acc.push(
            "events_per_wall_s",
            wall.filter(|&w| w > 0.0).map(|w| run.events as f64 / w),
        );
    }

    let mut out = Vec::new();
    for (g, acc) in &groups {
        acc.rows("group", &set.meta.group_name(*g), &mut out);
    }
    for (name, acc) in links.values() {
        acc.rows("link", name, &mut out);
    }
    run_acc.rows("run", "all", &mut out);
    out
}

/// One metric of one replication: a row of a campaign's result part.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricValue {
    /// `"group"`, `"link"` or `"run"`.
    pub scope: &'static str,
    /// Group name, link name, or `"all"`.
    pub subject: String,
    /// Metric name with its unit suffix.
    pub metric: String,
    /// The value (finite; undefined metrics have no row).
    pub value: f64,
}

/// Run-scope metrics that measure the machine, not the network: they differ
/// between identical runs, so campaign summaries leave them out.
pub const WALL_CLOCK_METRICS: [&str; 2] = ["wall_s", "events_per_wall_s"];

/// The metrics of replication `i` of `set`, the per-replication values that
/// [`summary_rows`] summarises: groups with flows (by id), links (by id), then the
/// run (`events`, and `wall_s` and `events_per_wall_s` when the set has wall times).
pub fn run_metrics(set: &RunSet, i: usize) -> Vec<MetricValue> {
    let mut out = Vec::new();
    let Some(run) = set.runs.get(i) else {
        return out;
    };
    let mut emit = |scope: &'static str, subject: &str, acc: Acc| {
        for (metric, vals) in acc.metrics {
            if let Some(&value) = vals.first() {
                out.push(MetricValue {
                    scope,
                    subject: subject.to_string(),
                    metric,
                    value,
                });
            }
        }
    };
    let mut by_group: BTreeMap<GroupId, Vec<&FlowReport>> = BTreeMap::new();
    for f in &run.flows {
        by_group.entry(f.group).or_default().push(f);
    }
    for (g, flows) in &by_group {
        let mut acc = Acc::default();
        group_metrics(run, flows, &mut acc);
        emit("group", &set.meta.group_name(*g), acc);
    }
    let peaks = link_series_stats(run);
    let rates = flow_rates(run);
    for l in &run.links {
        let mut acc = Acc::default();
        link_acc(run, l, &peaks, (&rates, set.meta.fairness), &mut acc);
        emit("link", &set.link_label(l), acc);
    }
    let mut acc = Acc::default();
    acc.push("events", Some(run.events as f64));
    let wall = set.wall_secs.get(i).copied();
    acc.push("wall_s", wall);
    acc.push(
        "events_per_wall_s",
        wall.filter(|&w| w > 0.0).map(|w| run.events as f64 / w),
    );
    emit("run", "all", acc);
    out
}

/// `summary`: scope, subject, metric, n, mean, sd, ci95_half (sd and ci95_half are
/// null with one replication).
pub fn summary_table(rows: &[SummaryRow]) -> PolarsResult<DataFrame> {
    let s = |f: fn(&SummaryRow) -> &str| rows.iter().map(f).collect::<Vec<&str>>();
    let x = |f: fn(&SummaryRow) -> f64| {
        rows.iter()
            .map(|r| finite(f(r)))
            .collect::<Vec<Option<f64>>>()
    };
    DataFrame::new(
        rows.len(),
        vec![
            col("scope", s(|r| &r.scope)),
            col("subject", s(|r| &r.subject)),
            col("metric", s(|r| &r.metric)),
            col("n", rows.iter().map(|r| r.n as u64).collect::<Vec<u64>>()),
            col("mean", x(|r| r.mean)),
            col("sd", x(|r| r.sd)),
            col("ci95_half", x(|r| r.ci95_half)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::t_quantile;
    use crate::tables::tests::sample;

    fn row<'a>(rows: &'a [SummaryRow], scope: &str, subject: &str, m: &str) -> &'a SummaryRow {
        lookup(rows, scope, subject, m).unwrap_or_else(|| panic!("no {scope} {subject} {m}"))
    }

    #[test]
    fn run_metrics_are_the_values_the_summary_summarises() {
        let set = sample();
        let rows = summary_rows(&set);
        for r in &rows {
            let vals: Vec<f64> = (0..set.runs.len())
                .flat_map(|i| run_metrics(&set, i))
                .filter(|m| m.scope == r.scope && m.subject == r.subject && m.metric == r.metric)
                .map(|m| m.value)
                .collect();
            assert_eq!(
                Summary::new(&vals),
                r.summary(),
                "{} {} {}",
                r.scope,
                r.subject,
                r.metric
            );
        }
        let g = run_metrics(&set, 1);
        let m = g
            .iter()
            .find(|m| m.subject == "a" && m.metric == "goodput_bps")
            .unwrap();
        assert_eq!(m.value, 3e6);
    }

    #[test]
    fn group_goodput_is_averaged_per_replication_then_across() {
        let rows = summary_rows(&sample());
        // Rep 0: flows at 1 and 3 Mb/s -> 2 Mb/s; rep 1: 2 and 4 -> 3 Mb/s.
        let g = row(&rows, "group", "a", "goodput_bps");
        assert_eq!((g.n, g.mean), (2, 2.5e6));
        // sd of {2e6, 3e6} = sqrt(0.5) * 1e6; half = t(0.975, 1) * sd / sqrt(2) = 6.3531 e5.
        assert!((g.sd - 0.5f64.sqrt() * 1e6).abs() < 1e-6);
        let half = t_quantile(0.95, 1) * 0.5e6;
        assert!((g.ci95_half - half).abs() < 1e-6);
        assert!((g.ci95_half - 6_353_102.5).abs() < 1.0);
        // Sums: 4 and 6 Mb/s of goodput over the 10 s window.
        assert_eq!(row(&rows, "group", "a", "goodput_sum_bps").mean, 5e6);
        // Jain per replication: 16/20 = 0.8 and 36/40 = 0.9.
        assert!((row(&rows, "group", "a", "jain").mean - 0.85).abs() < 1e-12);
        assert_eq!(row(&rows, "group", "a", "retx_pkts").mean, 4.0);
        assert_eq!(row(&rows, "group", "a", "flows").mean, 2.0);
        // Two flows active for the whole 10-s window: 2 on average.
        assert_eq!(row(&rows, "group", "a", "active_flows_mean").mean, 2.0);
        assert_eq!(row(&rows, "group", "b", "active_flows_mean").mean, 0.0);
    }

    #[test]
    fn a_group_without_active_flows_has_counts_but_no_rates() {
        let rows = summary_rows(&sample());
        assert_eq!(row(&rows, "group", "b", "active_flows").mean, 0.0);
        assert!(lookup(&rows, "group", "b", "goodput_bps").is_none());
        assert!(lookup(&rows, "group", "b", "jain").is_none());
        assert_eq!(row(&rows, "group", "b", "goodput_sum_bps").mean, 0.0);
    }

    #[test]
    fn link_rows_cover_the_links_table_metrics() {
        let rows = summary_rows(&sample());
        // Utilisation 0.9 and 1.0 (departed 11.25 and 12.5 MB in 10 s at 10 Mb/s).
        let u = row(&rows, "link", "r1->r2", "utilisation");
        assert_eq!(u.n, 2);
        assert!((u.mean - 0.95).abs() < 1e-12);
        assert_eq!(row(&rows, "link", "r1->r2", "drop_overflow_pkts").mean, 4.0);
        assert_eq!(row(&rows, "link", "r1->r2", "drop_early_pkts").mean, 0.0);
        assert!(lookup(&rows, "link", "h1->r1", "jain").is_none());
        assert_eq!(row(&rows, "link", "h1->r1", "utilisation").mean, 0.0);
    }

    #[test]
    fn run_rows_report_events_per_wall_second() {
        let rows = summary_rows(&sample());
        assert_eq!(row(&rows, "run", "all", "events_per_wall_s").mean, 5000.0);
        assert_eq!(row(&rows, "run", "all", "events").mean, 1500.0);
    }

    #[test]
    fn one_replication_leaves_sd_and_ci_null_in_the_table() {
        let mut set = sample();
        set.runs.truncate(1);
        let rows = summary_rows(&set);
        let g = row(&rows, "group", "a", "goodput_bps");
        assert_eq!((g.n, g.mean), (1, 2e6));
        assert!(g.ci95_half.is_nan());
        let df = summary_table(&rows).unwrap();
        assert_eq!(df.height(), rows.len());
        assert_eq!(df.column("ci95_half").unwrap().null_count(), rows.len());
    }

    #[test]
    fn notable_links_leave_out_idle_and_quiet_ones() {
        let mut set = sample();
        assert_eq!(notable_links(&summary_rows(&set)), (vec!["r1->r2"], 1));
        // A lightly used link without queue or losses is left out next to a loaded one...
        for r in &mut set.runs {
            r.links[1].counters.arrived.pkts = 10;
        }
        assert_eq!(notable_links(&summary_rows(&set)), (vec!["r1->r2"], 1));
        // ...but shown when no link is loaded.
        for r in &mut set.runs {
            r.links.truncate(1);
            r.links[0] = crate::tables::tests::link(0, "r1->r2", 1000, &[]);
            r.links[0].counters.dropped = Default::default();
            r.links[0].counters.marked = Default::default();
            r.links[0].stats.hist_pkts = vec![1];
        }
        assert_eq!(notable_links(&summary_rows(&set)), (vec!["r1->r2"], 0));
    }

    #[test]
    fn rows_come_in_group_link_run_order() {
        let rows = summary_rows(&sample());
        let scopes: Vec<&str> = rows.iter().map(|r| r.scope.as_str()).collect();
        let first_link = scopes.iter().position(|s| *s == "link").unwrap();
        let first_run = scopes.iter().position(|s| *s == "run").unwrap();
        assert!(scopes[..first_link].iter().all(|s| *s == "group"));
        assert!(scopes[first_link..first_run].iter().all(|s| *s == "link"));
        assert!(scopes[first_run..].iter().all(|s| *s == "run"));
    }
}
