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
//!   `fct_p50_s`, `fct_p90_s`, `fct_p99_s` (their quantiles, type 7),
//!   `slowdown_mean` and `slowdown_p99` (completion time over the ideal one
//!   alone on an idle path, `sim_core::FlowReport::slowdown`), for PCC
//!   flows `pcc_on_frac` (mean over the flows of the time their sender was
//!   on over their active time in the window), `pcc_experiments`,
//!   `pcc_failed` and `pcc_off_periods` (totals in the window),
//!   `pcc_rtcp_bps` (the mean of all the r_TCP estimates the flows'
//!   experiments used in the window, pooled over the flows, not a mean of
//!   per-flow means: Damm (2001) Fig. 6.5), `pcc_loss_rate` and
//!   `pcc_loss_event_rate` (the packets the receivers found lost, and the
//!   loss events their histories started, over the data packets received
//!   plus lost, summed over the flows: Fig. 6.7) and `pcc_t_prot_mean_s`
//!   (the flows' protected times after a restart that ended in the window,
//!   summed, over their number; 0 when there was none: Fig. 6.26; the
//!   start-up protected time is not in it),
//!   and, with the `flow_rate` series, `settle_s` and `overshoot` (the group's
//!   transient after its last member joined, [`crate::dynamics`]) and, for
//!   rate-paced controllers, `send_rate_bps`, `send_rate_spread`,
//!   `send_rate_min_bps`, `send_rate_max_bps`, `peak_rate_bps` and `peak_rate_s`
//!   (the controllers' own sending rate: the window mean of the mean over the
//!   members sampled at each instant, each member's rate averaged over the
//!   sample interval where its sender tracks it, [`crate::dynamics::SendRate`];
//!   the spread of the point samples, the smallest and largest
//!   rate any member was sampled at in the window, and the peak over the run),
//!   `fast_retransmits` (loss recoveries entered on duplicate ACKs or SACK,
//!   in the window, summed over the group's flows), `ecn_waits` (RFC 3168's
//!   waits of one RTO after an ECN-Echo at a one-segment window,
//!   `tcp.ecn_rto_wait`; in the window) and, for web traffic with
//!   fresh connections, `pages` (pages completed, whole run), `page_time_s`
//!   (their mean time from the first request to the last object's last
//!   acknowledgement) and `page_throughput_bps` (8 x their mean size /
//!   `page_time_s`: Zimmermann (2005)'s "mean throughput", the inverse of
//!   the mean time to transfer an average page), and, with the
//!   `flow_window` series, `cwnd_mean_bytes` and `cwnd_sd_bytes` (the mean
//!   and standard deviation of every window sample of the group's flows in
//!   the window, pooled: the width of the histogram of a path's aggregated
//!   windows, [`crate::dynamics::group_cwnd`]);
//! - scope `"link"`, subject = link name: every numeric column of the links table
//!   (`utilisation`, `backlog_p99_pkts`, `backlog_sd_pkts` (the standard
//!   deviation of the time-weighted backlog), `backlog_lt2_frac`,
//!   `drop_early_pkts`, `jain`, ...) and, with
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
//!
//! The values come from [`Metrics`], by index; the table is written in batches
//! as it is built ([`summary_batches`]), so a network of 400 000 links, 15
//! million summary rows, is never held whole in memory.

use polars::prelude::{DataFrame, PolarsResult};

use crate::metrics::{Metrics, Scope, Scratch};
use crate::stats::Summary;
use polars::prelude::IdxSize;

use crate::tables::{col, nullable, whole, Dict, Sink, BATCH_ROWS};

/// One row of the summary table, owned (the table read back from a file, or
/// a whole summary for tests: [`summary_rows`]).
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

/// Each defined metric of each subject summarised across replications, in
/// table order: groups (by id), links (by id), the run. `each` receives
/// (scope, subject id, metric index, summary).
pub fn for_each_summary(m: &Metrics<'_>, mut each: impl FnMut(Scope, usize, usize, Summary)) {
    let mut scratch = Scratch::default();
    let mut summaries = Vec::new();
    for scope in Scope::ALL {
        for i in 0..m.count(scope) {
            m.summaries_into(scope, i, &mut scratch, &mut summaries);
            for (k, s) in summaries.iter().enumerate() {
                if let Some(s) = s {
                    each(scope, i, k, *s);
                }
            }
        }
    }
}

/// The columns of a batch of the summary table.
struct Cols<'a> {
    scope: Dict<'static>,
    subject: Dict<'a>,
    /// The subject of the last row, for [`Cols::subject`].
    last: Option<(Scope, usize)>,
    metric: Dict<'static>,
    /// Where each scope's metrics start in `metric`'s values.
    metric_at: [IdxSize; 3],
    n: Vec<u64>,
    /// Mean, sd and half-width; non-finite values are written as nulls.
    mean: Vec<f64>,
    sd: Vec<f64>,
    half: Vec<f64>,
}

impl<'a> Cols<'a> {
    fn new() -> Self {
        let mut metric_at = [0; 3];
        let mut at = 0;
        for (k, s) in Scope::ALL.iter().enumerate() {
            metric_at[k] = at as IdxSize;
            at += s.metrics().len();
        }
        Cols {
            scope: Dict::of(Scope::ALL.map(Scope::as_str)),
            subject: Dict::default(),
            last: None,
            metric: Dict::of(Scope::ALL.iter().flat_map(|s| s.metrics().iter().copied())),
            metric_at,
            n: Vec::new(),
            mean: Vec::new(),
            sd: Vec::new(),
            half: Vec::new(),
        }
    }

    fn push(&mut self, m: &Metrics<'a>, scope: Scope, i: usize, k: usize, s: Summary) {
        let si = scope as usize;
        self.scope.push(si as IdxSize);
        let subject = match self.subject.last() {
            Some(j) if self.last == Some((scope, i)) => j,
            _ => {
                self.last = Some((scope, i));
                self.subject.add(m.name(scope, i))
            }
        };
        self.subject.push(subject);
        self.metric.push(self.metric_at[si] + k as IdxSize);
        self.n.push(s.n as u64);
        self.mean.push(s.mean);
        self.sd.push(s.sd);
        self.half.push(s.half_width);
    }

    fn frame(&mut self) -> PolarsResult<DataFrame> {
        self.last = None;
        DataFrame::new(
            self.n.len(),
            vec![
                self.scope.take_column("scope", true)?,
                self.subject.take_column("subject", false)?,
                self.metric.take_column("metric", true)?,
                col("n", std::mem::take(&mut self.n)),
                nullable("mean", std::mem::take(&mut self.mean)),
                nullable("sd", std::mem::take(&mut self.sd)),
                nullable("ci95_half", std::mem::take(&mut self.half)),
            ],
        )
    }
}

/// `summary`: scope, subject, metric, n, mean, sd, ci95_half (sd and ci95_half
/// are null with one replication), in batches of at most [`BATCH_ROWS`] rows.
pub fn summary_batches(m: &Metrics<'_>, sink: &mut Sink<'_>) -> PolarsResult<()> {
    let sink = &mut crate::tables::stamped(m.set(), sink);
    let mut c = Cols::new();
    let mut result = Ok(());
    let mut sent = false;
    for_each_summary(m, |scope, i, k, s| {
        if result.is_err() {
            return;
        }
        c.push(m, scope, i, k, s);
        if c.n.len() == BATCH_ROWS {
            result = c.frame().and_then(&mut *sink);
            sent = true;
        }
    });
    result?;
    if !c.n.is_empty() || !sent {
        sink(c.frame()?)?;
    }
    Ok(())
}

/// The whole summary table ([`summary_batches`] stacked).
pub fn summary_table(m: &Metrics<'_>) -> PolarsResult<DataFrame> {
    whole(|s| summary_batches(m, s))
}

/// The whole summary as owned rows (for tests and small sets: a large
/// network's summary belongs in [`summary_batches`]).
pub fn summary_rows(m: &Metrics<'_>) -> Vec<SummaryRow> {
    let mut out = Vec::new();
    for_each_summary(m, |scope, i, k, s| {
        out.push(SummaryRow {
            scope: scope.as_str().into(),
            subject: m.name(scope, i).into_owned(),
            metric: scope.metrics()[k].into(),
            n: s.n,
            mean: s.mean,
            sd: s.sd,
            ci95_half: s.half_width,
        })
    });
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::stats::t_quantile;
    use crate::tables::tests::sample;

    /// The row of (`scope`, `subject`, `m`), by a scan (tests only).
    pub(crate) fn lookup<'a>(
        rows: &'a [SummaryRow],
        scope: &str,
        subject: &str,
        m: &str,
    ) -> Option<&'a SummaryRow> {
        rows.iter()
            .find(|r| r.scope == scope && r.subject == subject && r.metric == m)
    }

    fn row<'a>(rows: &'a [SummaryRow], scope: &str, subject: &str, m: &str) -> &'a SummaryRow {
        lookup(rows, scope, subject, m).unwrap_or_else(|| panic!("no {scope} {subject} {m}"))
    }

    fn summary_of(set: &crate::RunSet) -> Vec<SummaryRow> {
        summary_rows(&Metrics::new(set))
    }

    #[test]
    fn the_summary_summarises_the_per_replication_values() {
        let set = sample();
        let m = Metrics::new(&set);
        let rows = summary_rows(&m);
        for r in &rows {
            let vals: Vec<f64> = (0..set.runs.len())
                .filter_map(|i| m.find_value(i, &r.scope, &r.subject, &r.metric))
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
        assert_eq!(m.find_value(1, "group", "a", "goodput_bps"), Some(3e6));
        // Every value some replication defines is summarised: count them.
        let mut defined = 0;
        for s in Scope::ALL {
            for i in 0..m.count(s) {
                defined += (0..s.metrics().len())
                    .filter(|&k| (0..2).any(|rep| m.value(rep, s, i, k).is_some()))
                    .count();
            }
        }
        assert_eq!(rows.len(), defined);
    }

    #[test]
    fn group_goodput_is_averaged_per_replication_then_across() {
        let rows = summary_of(&sample());
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
    fn web_pages_give_their_count_time_and_throughput() {
        let rows = summary_of(&sample());
        // One page per replication in group b: 8000 B in 2 s, 16 000 B in 4 s.
        assert_eq!(row(&rows, "group", "b", "pages").mean, 1.0);
        assert_eq!(row(&rows, "group", "b", "page_time_s").mean, 3.0);
        assert_eq!(
            row(&rows, "group", "b", "page_throughput_bps").mean,
            32_000.0
        );
        assert!(rows
            .iter()
            .all(|r| !(r.subject == "a" && r.metric.starts_with("page"))));
        // Each flow of the sample counts two fast retransmits and one ECN wait.
        assert_eq!(row(&rows, "group", "a", "fast_retransmits").mean, 4.0);
        assert_eq!(row(&rows, "group", "a", "ecn_waits").mean, 2.0);
    }

    #[test]
    fn a_group_without_active_flows_has_counts_but_no_rates() {
        let rows = summary_of(&sample());
        assert_eq!(row(&rows, "group", "b", "active_flows").mean, 0.0);
        assert!(lookup(&rows, "group", "b", "goodput_bps").is_none());
        assert!(lookup(&rows, "group", "b", "jain").is_none());
        assert_eq!(row(&rows, "group", "b", "goodput_sum_bps").mean, 0.0);
    }

    #[test]
    fn link_rows_cover_the_links_table_metrics() {
        let rows = summary_of(&sample());
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
        let rows = summary_of(&sample());
        assert_eq!(row(&rows, "run", "all", "events_per_wall_s").mean, 5000.0);
        assert_eq!(row(&rows, "run", "all", "events").mean, 1500.0);
    }

    #[test]
    fn one_replication_leaves_sd_and_ci_null_in_the_table() {
        let mut set = sample();
        set.runs.truncate(1);
        let m = Metrics::new(&set);
        let rows = summary_rows(&m);
        let g = row(&rows, "group", "a", "goodput_bps");
        assert_eq!((g.n, g.mean), (1, 2e6));
        assert!(g.ci95_half.is_nan());
        let df = summary_table(&m).unwrap();
        assert_eq!(df.height(), rows.len());
        assert_eq!(df.column("ci95_half").unwrap().null_count(), rows.len());
    }

    #[test]
    fn notable_links_leave_out_idle_and_quiet_ones() {
        let mut set = sample();
        let notable = |set: &crate::RunSet| Metrics::new(set).notable_links();
        assert_eq!(notable(&set), (vec![0], 1));
        // A lightly used link without queue or losses is left out next to a loaded one...
        for r in &mut set.runs {
            r.links[1].counters.arrived.pkts = 10;
        }
        assert_eq!(notable(&set), (vec![0], 1));
        // ...but shown when no link is loaded.
        for r in &mut set.runs {
            r.links.truncate(1);
            r.links[0] = crate::tables::tests::link(0, "r1->r2", 1000, &[]);
            r.links[0].counters.dropped = Default::default();
            r.links[0].counters.marked = Default::default();
            r.links[0].stats.hist_pkts = vec![1];
        }
        assert_eq!(notable(&set), (vec![0], 0));
    }

    #[test]
    fn rows_come_in_group_link_run_order() {
        let rows = summary_of(&sample());
        let scopes: Vec<&str> = rows.iter().map(|r| r.scope.as_str()).collect();
        let first_link = scopes.iter().position(|s| *s == "link").unwrap();
        let first_run = scopes.iter().position(|s| *s == "run").unwrap();
        assert!(scopes[..first_link].iter().all(|s| *s == "group"));
        assert!(scopes[first_link..first_run].iter().all(|s| *s == "link"));
        assert!(scopes[first_run..].iter().all(|s| *s == "run"));
    }
}
