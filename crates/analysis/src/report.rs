//! The plain-text report: aligned tables a person reads after a run.
//!
//! Every figure comes from the [`SummaryRow`]s (so the report, the summary table
//! and the reference-value checks agree) and is printed as `mean ± half-width` of
//! the 95 % Student-t interval across replications. With one replication the
//! header says so and figures are bare means; a figure defined in only one of
//! several replications is marked `(n=1)`. Units: Mb/s, %, ms, packets, kB
//! (1000 bytes).

use std::fmt::Write as _;

use sim_core::Reason;

use crate::summary::{lookup, notable_links, subjects, SummaryRow, NOTABLE_UTILISATION};
use crate::tables::RunSet;

/// The whole report: header, flow groups, links, backlog, drops and marks by
/// reason, fairness.
pub fn render_report(set: &RunSet, rows: &[SummaryRow]) -> String {
    let mut out = String::new();
    out.push_str(&header(set));
    let groups = subjects(rows, "group");
    if !groups.is_empty() {
        out.push_str("\nFlow groups\n");
        group_table(rows, &groups).render(&mut out);
    }
    let (links, omitted) = notable_links(rows);
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
        link_table(rows, &links).render(&mut out);
        out.push_str("\nLink backlog (time-weighted)\n");
        backlog_table(rows, &links).render(&mut out);
        let reasons = reason_table(rows, &links);
        if !reasons.rows.is_empty() {
            out.push_str("\nDrops and marks by reason (packets in the window)\n");
            reasons.render(&mut out);
        }
    }
    let fair = fairness_table(set, rows, &groups, &links);
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

fn mean(rows: &[SummaryRow], scope: &str, subject: &str, metric: &str) -> Option<f64> {
    lookup(rows, scope, subject, metric).map(|r| r.mean)
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

/// `"mean ± half"` scaled by `k` with `d` decimals; `"mean"` without an interval,
/// `"mean (n=1)"` when only one of several replications defines it; `"-"` if absent.
fn figure(
    rows: &[SummaryRow],
    scope: &str,
    subject: &str,
    metric: &str,
    k: f64,
    d: usize,
) -> String {
    match lookup(rows, scope, subject, metric) {
        None => "-".into(),
        Some(r) if r.n >= 2 && r.ci95_half.is_finite() => {
            format!(
                "{} ± {}",
                fmt_num(r.mean * k, d),
                fmt_num(r.ci95_half * k, d)
            )
        }
        Some(r) => {
            let total = rows
                .iter()
                .filter(|x| x.scope == "run" && x.metric == "events")
                .map(|x| x.n)
                .next()
                .unwrap_or(r.n);
            if total > 1 {
                format!("{} (n={})", fmt_num(r.mean * k, d), r.n)
            } else {
                fmt_num(r.mean * k, d)
            }
        }
    }
}

/// Per group: flows, goodput and throughput per flow and in total, retransmissions,
/// timeouts, completion time.
fn group_table(rows: &[SummaryRow], groups: &[&str]) -> TextTable {
    let mut t = TextTable::new(&[
        "group",
        "flows",
        "goodput/flow (Mb/s)",
        "goodput total (Mb/s)",
        "throughput/flow (Mb/s)",
        "retx (pkts)",
        "timeouts",
    ]);
    let with_fct = groups
        .iter()
        .any(|g| lookup(rows, "group", g, "fct_s").is_some());
    if with_fct {
        t.head.push("FCT (ms)".into());
    }
    for g in groups {
        let f = |m: &str, k: f64, d: usize| figure(rows, "group", g, m, k, d);
        let mut row = vec![
            g.to_string(),
            compact(mean(rows, "group", g, "flows").unwrap_or(0.0)),
            f("goodput_bps", 1e-6, 3),
            f("goodput_sum_bps", 1e-6, 3),
            f("throughput_bps", 1e-6, 3),
            f("retx_pkts", 1.0, 1),
            f("timeouts", 1.0, 1),
        ];
        if with_fct {
            row.push(f("fct_s", 1e3, 1));
        }
        t.rows.push(row);
    }
    t
}

/// Per link: capacity, utilisation, queueing delay, drop and mark totals.
fn link_table(rows: &[SummaryRow], links: &[&str]) -> TextTable {
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
        let f = |m: &str, k: f64, d: usize| figure(rows, "link", l, m, k, d);
        t.rows.push(vec![
            l.to_string(),
            fmt_num(
                mean(rows, "link", l, "capacity_bps").unwrap_or(f64::NAN) * 1e-6,
                3,
            ),
            f("utilisation", 100.0, 2),
            f("qdelay_mean_s", 1e3, 3),
            f("qdelay_max_s", 1e3, 3),
            f("dropped_pkts", 1.0, 1),
            f("marked_pkts", 1.0, 1),
        ]);
    }
    t
}

/// Per link: backlog mean, 99th percentile and maximum, in packets and kB.
fn backlog_table(rows: &[SummaryRow], links: &[&str]) -> TextTable {
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
        let f = |m: &str, k: f64, d: usize| figure(rows, "link", l, m, k, d);
        t.rows.push(vec![
            l.to_string(),
            f("backlog_mean_pkts", 1.0, 2),
            f("backlog_p99_pkts", 1.0, 1),
            f("backlog_max_pkts", 1.0, 1),
            f("backlog_mean_bytes", 1e-3, 2),
            f("backlog_p99_bytes", 1e-3, 1),
            f("backlog_max_bytes", 1e-3, 1),
        ]);
    }
    t
}

/// Per link and reason that occurred (mean > 0): drops and marks.
fn reason_table(rows: &[SummaryRow], links: &[&str]) -> TextTable {
    let mut t = TextTable::new(&["link", "reason", "drops (pkts)", "marks (pkts)"]).left_aligned(2);
    for l in links {
        for r in Reason::ALL {
            let drop = format!("drop_{}_pkts", r.as_str());
            let mark = format!("mark_{}_pkts", r.as_str());
            let occurred = |m: &str| mean(rows, "link", l, m).is_some_and(|x| x > 0.0);
            if occurred(&drop) || occurred(&mark) {
                t.rows.push(vec![
                    l.to_string(),
                    r.as_str().to_string(),
                    figure(rows, "link", l, &drop, 1.0, 1),
                    figure(rows, "link", l, &mark, 1.0, 1),
                ]);
            }
        }
    }
    t
}

/// Jain's index per link crossed by at least two flows, and per group of at least
/// two flows.
fn fairness_table(set: &RunSet, rows: &[SummaryRow], groups: &[&str], links: &[&str]) -> TextTable {
    let mut t = TextTable::new(&["scope", "subject", "flows", "jain"]).left_aligned(2);
    for l in links {
        let crossing = set
            .runs
            .iter()
            .flat_map(|r| r.links.iter())
            .filter(|lr| set.link_label(lr) == *l)
            .map(|lr| lr.flows.len())
            .max()
            .unwrap_or(0);
        if crossing >= 2 && lookup(rows, "link", l, "jain").is_some() {
            t.rows.push(vec![
                "link".into(),
                l.to_string(),
                crossing.to_string(),
                figure(rows, "link", l, "jain", 1.0, 4),
            ]);
        }
    }
    for g in groups {
        let flows = mean(rows, "group", g, "flows").unwrap_or(0.0);
        if flows >= 2.0 && lookup(rows, "group", g, "jain").is_some() {
            t.rows.push(vec![
                "group".into(),
                g.to_string(),
                fmt_num(flows, 0),
                figure(rows, "group", g, "jain", 1.0, 4),
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
    use crate::summary::summary_rows;
    use crate::tables::tests::sample;

    #[test]
    fn report_prints_mean_and_half_width_in_sensible_units() {
        let set = sample();
        let text = render_report(&set, &summary_rows(&set));
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
        let text = render_report(&set, &summary_rows(&set));
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
        let text = render_report(&set, &summary_rows(&set));
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
        let text = render_report(&set, &summary_rows(&set));
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
