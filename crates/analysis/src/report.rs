//! The plain-text report: aligned tables a person reads after a run.
//!
//! Every figure comes from [`Metrics`] (so the report, the summary table and
//! the reference-value checks agree) and is printed as `mean ± half-width` of
//! the 95 % Student-t interval across replications. With one replication the
//! header says so and figures are bare means; a figure defined in only one of
//! several replications is marked `(n=1)`. Units: Mb/s, %, ms, packets, kB
//! (1000 bytes).

use std::borrow::Cow;
use std::fmt::Write as _;

use sim_core::Reason;

use crate::metrics::{Metrics, Scope, NOTABLE_UTILISATION};
use crate::stats::Summary;
use crate::tables::RunSet;

/// One subject shown in the report, with every metric's summary.
struct Shown<'a> {
    scope: Scope,
    /// Subject id.
    id: usize,
    name: Cow<'a, str>,
    summaries: Vec<Option<Summary>>,
    /// Replications in the set (a figure defined in fewer says so).
    reps: usize,
}

impl<'a> Shown<'a> {
    fn new(m: &Metrics<'a>, scope: Scope, id: usize) -> Self {
        Shown {
            scope,
            id,
            name: m.name(scope, id),
            summaries: m.summaries(scope, id),
            reps: m.replications(),
        }
    }

    fn get(&self, metric: &str) -> Option<Summary> {
        self.scope.metric(metric).and_then(|k| self.summaries[k])
    }

    fn mean(&self, metric: &str) -> Option<f64> {
        self.get(metric).map(|s| s.mean)
    }

    /// `"mean ± half"` scaled by `k` with `d` decimals; `"mean"` without an
    /// interval, `"mean (n=1)"` when only one of several replications defines
    /// it; `"-"` if absent.
    fn figure(&self, metric: &str, k: f64, d: usize) -> String {
        match self.get(metric) {
            None => "-".into(),
            Some(r) if r.n >= 2 && r.half_width.is_finite() => {
                format!(
                    "{} ± {}",
                    fmt_num(r.mean * k, d),
                    fmt_num(r.half_width * k, d)
                )
            }
            Some(r) => {
                if self.reps > 1 {
                    format!("{} (n={})", fmt_num(r.mean * k, d), r.n)
                } else {
                    fmt_num(r.mean * k, d)
                }
            }
        }
    }
}

/// The whole report: header, flow groups, links, backlog, drops and marks by
/// reason, fairness.
pub fn render_report(m: &Metrics<'_>) -> String {
    let set = m.set();
    let mut out = String::new();
    out.push_str(&header(set));
    let groups: Vec<Shown> = m
        .present_groups()
        .into_iter()
        .map(|g| Shown::new(m, Scope::Group, g))
        .collect();
    if !groups.is_empty() {
        out.push_str("\nFlow groups\n");
        group_table(&groups).render(&mut out);
    }
    let (notable, omitted) = m.notable_links();
    let links: Vec<Shown> = notable
        .into_iter()
        .map(|l| Shown::new(m, Scope::Link, l))
        .collect();
    if !links.is_empty() {
        let note = if omitted > 0 {
            format!(
                " ({omitted} idle or quiet link(s) omitted: no drops, marks or queue, \
                 utilisation < {:.0}%; all are in the links table)",
                NOTABLE_UTILISATION * 100.0
            )
        } else {
            String::new()
        };
        let _ = writeln!(out, "\nLinks{note}");
        link_table(&links).render(&mut out);
        out.push_str("\nLink backlog (time-weighted)\n");
        backlog_table(&links).render(&mut out);
        let reasons = reason_table(&links);
        if !reasons.rows.is_empty() {
            out.push_str("\nDrops and marks by reason (packets in the window)\n");
            reasons.render(&mut out);
        }
    }
    let fair = fairness_table(set, &groups, &links);
    if !fair.rows.is_empty() {
        out.push_str("\nFairness: Jain's index over the goodput of flows active in the window\n");
        fair.render(&mut out);
    }
    out
}

/// The first line(s): scenario, replications, what "±" means, the window.
fn header(set: &RunSet) -> String {
    let n = set.replications();
    let name = &set.meta.scenario;
    let mut h = match n {
        0 => format!("{name}: no replications\n"),
        1 => format!("{name} (1 replication: no confidence interval)\n"),
        _ => format!(
            "{name}: {n} replications; figures are mean ± 95% CI half-width (Student t, {} df)\n",
            n - 1
        ),
    };
    if let Some(r) = set.first_run() {
        let _ = writeln!(
            h,
            "Measured over the {} s window after warm-up (run length {} s)",
            compact(r.window_secs),
            compact(r.end_secs)
        );
    }
    h
}

/// A number with `d` decimals, without a negative zero.
fn fmt_num(x: f64, d: usize) -> String {
    let s = format!("{x:.d$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// At most three decimals, trailing zeros dropped (`10`, `0.25`).
fn compact(x: f64) -> String {
    let s = fmt_num(x, 3);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Per group: flows, goodput and throughput per flow and in total, retransmissions,
/// timeouts, completion time and, for web pages, their count, mean time and
/// throughput.
fn group_table(groups: &[Shown]) -> TextTable {
    let mut t = TextTable::new(&[
        "group",
        "flows",
        "goodput/flow (Mb/s)",
        "goodput total (Mb/s)",
        "throughput/flow (Mb/s)",
        "retx (pkts)",
        "timeouts",
    ]);
    let with_fct = groups.iter().any(|g| g.get("fct_s").is_some());
    if with_fct {
        t.head.push("FCT (ms)".into());
    }
    let with_pages = groups.iter().any(|g| g.get("page_time_s").is_some());
    if with_pages {
        t.head.push("pages".into());
        t.head.push("page time (ms)".into());
        t.head.push("page throughput (kB/s)".into());
    }
    for g in groups {
        let mut row = vec![
            g.name.to_string(),
            compact(g.mean("flows").unwrap_or(0.0)),
            g.figure("goodput_bps", 1e-6, 3),
            g.figure("goodput_sum_bps", 1e-6, 3),
            g.figure("throughput_bps", 1e-6, 3),
            g.figure("retx_pkts", 1.0, 1),
            g.figure("timeouts", 1.0, 1),
        ];
        if with_fct {
            row.push(g.figure("fct_s", 1e3, 1));
        }
        if with_pages {
            row.push(g.figure("pages", 1.0, 1));
            row.push(g.figure("page_time_s", 1e3, 1));
            row.push(g.figure("page_throughput_bps", 1.0 / 8000.0, 2));
        }
        t.rows.push(row);
    }
    t
}

/// Per link: capacity, utilisation, queueing delay, drop and mark totals.
fn link_table(links: &[Shown]) -> TextTable {
    let mut t = TextTable::new(&[
        "link",
        "capacity (Mb/s)",
        "utilisation (%)",
        "qdelay mean (ms)",
        "qdelay max (ms)",
        "drops (pkts)",
        "marks (pkts)",
    ]);
    for l in links {
        t.rows.push(vec![
            l.name.to_string(),
            fmt_num(l.mean("capacity_bps").unwrap_or(f64::NAN) * 1e-6, 3),
            l.figure("utilisation", 100.0, 2),
            l.figure("qdelay_mean_s", 1e3, 3),
            l.figure("qdelay_max_s", 1e3, 3),
            l.figure("dropped_pkts", 1.0, 1),
            l.figure("marked_pkts", 1.0, 1),
        ]);
    }
    t
}

/// Per link: backlog mean, 99th percentile and maximum, in packets and kB.
fn backlog_table(links: &[Shown]) -> TextTable {
    let mut t = TextTable::new(&[
        "link",
        "mean (pkts)",
        "p99 (pkts)",
        "max (pkts)",
        "mean (kB)",
        "p99 (kB)",
        "max (kB)",
    ]);
    for l in links {
        t.rows.push(vec![
            l.name.to_string(),
            l.figure("backlog_mean_pkts", 1.0, 2),
            l.figure("backlog_p99_pkts", 1.0, 1),
            l.figure("backlog_max_pkts", 1.0, 1),
            l.figure("backlog_mean_bytes", 1e-3, 2),
            l.figure("backlog_p99_bytes", 1e-3, 1),
            l.figure("backlog_max_bytes", 1e-3, 1),
        ]);
    }
    t
}

/// Per link and reason that occurred (mean > 0): drops and marks.
fn reason_table(links: &[Shown]) -> TextTable {
    let mut t = TextTable::new(&["link", "reason", "drops (pkts)", "marks (pkts)"]).left_aligned(2);
    for l in links {
        for r in Reason::TABLED {
            let drop = format!("drop_{}_pkts", r.as_str());
            let mark = format!("mark_{}_pkts", r.as_str());
            let occurred = |m: &str| l.mean(m).is_some_and(|x| x > 0.0);
            if occurred(&drop) || occurred(&mark) {
                t.rows.push(vec![
                    l.name.to_string(),
                    r.as_str().to_string(),
                    l.figure(&drop, 1.0, 1),
                    l.figure(&mark, 1.0, 1),
                ]);
            }
        }
    }
    t
}

/// Jain's index per link crossed by at least two flows, and per group of at least
/// two flows.
fn fairness_table(set: &RunSet, groups: &[Shown], links: &[Shown]) -> TextTable {
    let mut t = TextTable::new(&["scope", "subject", "flows", "jain"]).left_aligned(2);
    for l in links {
        let crossing = set
            .runs
            .iter()
            .filter_map(|r| r.links.get(l.id))
            .map(|lr| lr.flows.len())
            .max()
            .unwrap_or(0);
        if crossing >= 2 && l.get("jain").is_some() {
            t.rows.push(vec![
                "link".into(),
                l.name.to_string(),
                crossing.to_string(),
                l.figure("jain", 1.0, 4),
            ]);
        }
    }
    for g in groups {
        let flows = g.mean("flows").unwrap_or(0.0);
        if flows >= 2.0 && g.get("jain").is_some() {
            t.rows.push(vec![
                "group".into(),
                g.name.to_string(),
                fmt_num(flows, 0),
                g.figure("jain", 1.0, 4),
            ]);
        }
    }
    t
}

/// Columns separated by two spaces; the first `left` (names) left-aligned, the
/// others (numbers) right-aligned.
struct TextTable {
    head: Vec<String>,
    rows: Vec<Vec<String>>,
    left: usize,
}

impl TextTable {
    fn new(head: &[&str]) -> Self {
        TextTable {
            head: head.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
            left: 1,
        }
    }

    fn left_aligned(mut self, left: usize) -> Self {
        self.left = left;
        self
    }

    fn render(&self, out: &mut String) {
        let ncol = self.head.len();
        let width = |c: usize| {
            std::iter::once(&self.head)
                .chain(&self.rows)
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..ncol).map(width).collect();
        for r in std::iter::once(&self.head).chain(&self.rows) {
            let mut line = String::new();
            for (c, w) in widths.iter().enumerate() {
                let cell = r.get(c).map(String::as_str).unwrap_or("");
                let sep = if c == 0 { "" } else { "  " };
                if c < self.left {
                    let _ = write!(line, "{sep}{cell:<w$}");
                } else {
                    let _ = write!(line, "{sep}{cell:>w$}");
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::tests::sample;

    fn render(set: &RunSet) -> String {
        render_report(&Metrics::new(set))
    }

    #[test]
    fn report_prints_mean_and_half_width_in_sensible_units() {
        let set = sample();
        let text = render(&set);
        assert!(text.starts_with("sample: 2 replications; figures are mean ± 95% CI"));
        // Group a: goodput/flow 2.5 ± 6.353 Mb/s (t_{0.975,1} = 12.706).
        let line = text.lines().find(|l| l.starts_with("a ")).unwrap();
        assert!(line.contains("2.500 ± 6.353"), "{line}");
        // r1->r2: utilisation 95 % ± 63.53 %, 2 ms mean queueing delay, no spread.
        let line = text
            .lines()
            .find(|l| l.starts_with("r1->r2") && l.contains("10.000"))
            .unwrap();
        assert!(line.contains("95.00 ± 63.53"), "{line}");
        assert!(line.contains("2.000 ± 0.000"), "{line}");
        assert!(text.contains("(1 idle or quiet link(s) omitted"));
        assert!(!text.lines().any(|l| l.starts_with("h1->r1")));
    }

    #[test]
    fn only_reasons_that_occurred_are_listed() {
        let set = sample();
        let text = render(&set);
        let reasons: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("r1->r2") && l.split_whitespace().count() == 8)
            .map(|l| l.split_whitespace().nth(1).unwrap())
            .collect();
        assert_eq!(reasons, ["overflow", "early"]);
    }

    #[test]
    fn fairness_lists_shared_links_and_multi_flow_groups() {
        let set = sample();
        let text = render(&set);
        let fair: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("Fairness"))
            .collect();
        assert!(
            fair.iter().any(|l| l.starts_with("link   r1->r2")),
            "{fair:?}"
        );
        assert!(fair
            .iter()
            .any(|l| l.starts_with("group  a") && l.contains("0.8500")));
        assert!(!fair.iter().any(|l| l.starts_with("group  b")));
    }

    #[test]
    fn one_replication_says_there_is_no_interval() {
        let mut set = sample();
        set.runs.truncate(1);
        let text = render(&set);
        assert!(text.starts_with("sample (1 replication: no confidence interval)"));
        assert!(!text.contains('±'));
        let line = text.lines().find(|l| l.starts_with("a ")).unwrap();
        assert!(line.contains("2.000"), "{line}");
    }

    #[test]
    fn aligned_columns_share_their_right_edge() {
        let mut t = TextTable::new(&["x", "long header"]);
        t.rows.push(vec!["abc".into(), "1".into()]);
        let mut s = String::new();
        t.render(&mut s);
        assert_eq!(s, "x    long header\nabc            1\n");
    }
}
