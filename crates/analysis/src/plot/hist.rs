//! Histograms of sampled windows and queues, as congestion-control papers
//! draw them: Zimmermann (2005) Figs. 5.6.4 and 5.6.6 show "the aggregated
//! congestion windows of all flows on a path", Figs. 5.6.5, 5.6.7 and 5.6.9
//! the occupancy of the bottleneck's buffer.
//!
//! - `hist_flow_cwnd_bytes`: one line per flow group (at most
//!   [`MAX_LINES`], in the order of their first flow), the samples of all
//!   its flows pooled; `hist_link_queue_pkts` and `hist_link_queue_bytes`:
//!   one line per link, the links the time series draws.
//! - The samples after the warm-up (all of them without one), of every
//!   replication pooled, or of the one `--replication` names.
//! - Equal bins from 0 to the largest sample drawn ([`BINS`] of them; a
//!   queue in packets gets whole-packet bins), each line the share of its
//!   own samples in each bin (%), drawn as steps.
//!
//! These are the same samples the group metrics `cwnd_mean_bytes` and
//! `cwnd_sd_bytes` and the time series summarise; the link's exact
//! time-weighted histogram is behind `backlog_sd_pkts` and
//! `backlog_p99_pkts`.

use super::series::{busiest_links, by_group, describe, flow_number, ChartData, Line, SeriesChart};
use super::series::{SeriesOptions, SubjectData, MAX_LINES};

/// Bins per histogram (a queue in packets: at most this many, each a
/// whole number of packets wide).
const BINS: usize = 60;

/// The histogram of chart `c`'s samples, if its metric has one and any
/// sample falls after the warm-up.
pub(super) fn histogram(c: &ChartData, reps: usize, opts: &SeriesOptions) -> Option<SeriesChart> {
    let whole = match (c.kind.as_str(), c.metric.as_str()) {
        ("flow", "cwnd_bytes") | ("link", "queue_bytes") => false,
        ("link", "queue_pkts") => true,
        _ => return None,
    };
    let (name, desc, k) = describe(&c.kind, &c.metric);
    let after = opts.warmup_s.unwrap_or(f64::NEG_INFINITY);
    // Each line's label and its subjects (a group's flows, or one link);
    // the samples are read in place, twice (the range, then the bins), not
    // copied.
    let mut lines: Vec<(String, Vec<&SubjectData>)> = Vec::new();
    let mut hidden = 0usize;
    if c.kind == "flow" {
        let mut subjects: Vec<&SubjectData> = c.subjects.iter().collect();
        subjects.sort_by_key(|s| flow_number(&s.name));
        let groups = by_group(&subjects);
        hidden = groups.iter().skip(MAX_LINES).map(|g| g.1.len()).sum();
        for (g, members) in groups.into_iter().take(MAX_LINES) {
            let label = match members.len() {
                1 => format!("{g} {}", members[0].name),
                n => format!("{g} ({n} flows)"),
            };
            lines.push((label, members));
        }
    } else {
        let mut subjects: Vec<&SubjectData> = c.subjects.iter().collect();
        hidden += busiest_links(&mut subjects);
        for s in subjects {
            lines.push((s.name.clone(), vec![s]));
        }
    }
    lines.retain(|(_, m)| samples(m, after, k).next().is_some());
    let top = lines
        .iter()
        .flat_map(|(_, m)| samples(m, after, k))
        .fold(0.0f64, f64::max);
    if lines.is_empty() || !top.is_finite() {
        return None;
    }
    let (bins, width) = bins(top, whole);
    let lines = lines
        .into_iter()
        .map(|(label, m)| Line {
            label,
            points: steps(&shares(samples(&m, after, k), bins, width), width),
        })
        .collect();
    let mut notes = vec![match (opts.replication, reps) {
        (Some(r), _) => format!("replication {r}"),
        (None, 0 | 1) => "1 replication".to_string(),
        (None, n) => format!("{n} replications pooled"),
    }];
    if opts.warmup_s.is_some_and(|w| w > 0.0) {
        notes.push("after the warm-up".to_string());
    }
    if hidden > 0 {
        let what = if c.kind == "link" { "links" } else { "flows" };
        notes.push(format!("{hidden} {what} not drawn"));
    }
    let who = if c.kind == "link" {
        "per link"
    } else {
        "per flow group"
    };
    Some(SeriesChart {
        prefix: "hist",
        kind: c.kind.clone(),
        metric: c.metric.clone(),
        title: format!(
            "Histogram of the {} {who} — {}",
            name.to_lowercase(),
            notes.join("; ")
        ),
        xdesc: desc,
        ydesc: "share of samples (%)".to_string(),
        lines,
        warmup_s: None,
    })
}

/// The samples of `members` after time `after`, scaled by `k`, in place.
fn samples<'a>(
    members: &'a [&'a SubjectData],
    after: f64,
    k: f64,
) -> impl Iterator<Item = f64> + 'a {
    members
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(move |p| p.1 > after && p.2.is_finite())
        .map(move |p| p.2 * k)
}

/// `(number of bins, bin width)` covering [0, `top`]: [`BINS`] equal bins,
/// or for a whole-numbered quantity at most [`BINS`] bins a whole number
/// wide (bin `i` holds the values from `i width` to below `(i + 1) width`,
/// the last also `top`).
fn bins(top: f64, whole: bool) -> (usize, f64) {
    if whole {
        let width = (((top + 1.0) / BINS as f64).ceil()).max(1.0);
        (((top / width).floor() as usize + 1).min(BINS), width)
    } else if top > 0.0 {
        (BINS, top / BINS as f64)
    } else {
        (1, 1.0)
    }
}

/// The share (%) of `values` in each of `bins` bins of `width` from 0.
fn shares(values: impl IntoIterator<Item = f64>, bins: usize, width: f64) -> Vec<f64> {
    let mut count = vec![0usize; bins];
    let mut n = 0usize;
    for v in values {
        let i = ((v / width).floor().max(0.0) as usize).min(bins - 1);
        count[i] += 1;
        n += 1;
    }
    let n = n.max(1) as f64;
    count.iter().map(|&c| 100.0 * c as f64 / n).collect()
}

/// A step line through the bins: each bin's share held over its width, no
/// interval (NaN bounds).
fn steps(share: &[f64], width: f64) -> Vec<(f64, f64, f64, f64)> {
    share
        .iter()
        .enumerate()
        .flat_map(|(i, &y)| {
            let x = i as f64 * width;
            [
                (x, y, f64::NAN, f64::NAN),
                (x + width, y, f64::NAN, f64::NAN),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_sum_to_100_and_place_each_value_in_its_bin() {
        // Whole-packet bins for a queue of at most 10 packets: 11 bins of 1.
        let (n, w) = bins(10.0, true);
        assert_eq!((n, w), (11, 1.0));
        let s = shares([0.0, 0.0, 3.0, 10.0], n, w);
        assert_eq!(s[0], 50.0);
        assert_eq!(s[3], 25.0);
        assert_eq!(s[10], 25.0);
        assert!((s.iter().sum::<f64>() - 100.0).abs() < 1e-9);
        // A queue of up to 299 packets: 5-packet bins, 60 of them.
        assert_eq!(bins(299.0, true), (60, 5.0));
        // A real quantity: 60 equal bins, the largest value in the last.
        let (n, w) = bins(6.0, false);
        assert_eq!((n, w), (BINS, 0.1));
        let s = shares([6.0, 0.05], n, w);
        assert_eq!((s[0], s[BINS - 1]), (50.0, 50.0));
        // Nothing above zero: one bin.
        assert_eq!(bins(0.0, false), (1, 1.0));
    }

    #[test]
    fn steps_hold_each_share_over_its_bin() {
        let p = steps(&[10.0, 90.0], 2.0);
        let xy: Vec<(f64, f64)> = p.iter().map(|q| (q.0, q.1)).collect();
        assert_eq!(xy, vec![(0.0, 10.0), (2.0, 10.0), (2.0, 90.0), (4.0, 90.0)]);
        assert!(p.iter().all(|q| q.2.is_nan() && q.3.is_nan()));
    }
}
