//! The charts of the curves a campaign's `[[sweep.expect]]` entries check
//! that the summary table does not hold (a share or ratio of two subjects'
//! metric): one per (scope, name, parameter); see the parent module's docs.

use std::collections::BTreeMap;

use super::{chart_title, param_axis, Line, Reference, SweepChart, MAX_SERIES};
use crate::campaign::Manifest;

/// A curve a `[[sweep.expect]]` checks that is not a column of the summary
/// table (e.g. a group's share of throughput with another group), measured
/// per point: drawn on a chart of its own ([`super::plot_campaign_with`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Derived {
    /// Scope of the subjects (`group`, `link`, `run`).
    pub scope: String,
    /// The quantity's name, for the file name and to match [`Reference`]s
    /// (their `metric`), e.g. `throughput_bps_share_with_tcp`.
    pub name: String,
    /// The y axis's description, e.g. `share of throughput with tcp`.
    pub ydesc: String,
    /// A fraction in [0, 1] (a share), not an unbounded ratio.
    pub fraction: bool,
    /// The swept parameter on x.
    pub against: String,
    /// Legend text (the subject, and the point set when not all points).
    pub label: String,
    /// `(x in base units, mean, 95 % half-width)`, in x order; the
    /// half-width is NaN with one replication.
    pub points: Vec<(f64, f64, f64)>,
}

/// The charts of the derived curves (see [`Derived`]): one per (scope,
/// name, parameter), lines in the order given, at most [`MAX_SERIES`]; a
/// curve whose parameter is not in the manifest, or with no finite point,
/// is left out.
pub(super) fn derived_charts(
    m: &Manifest,
    derived: &[Derived],
    references: &[Reference],
) -> Vec<SweepChart> {
    let mut groups: BTreeMap<(&str, &str, &str), Vec<&Derived>> = BTreeMap::new();
    for d in derived
        .iter()
        .filter(|d| m.params.iter().any(|p| p.name == d.against))
    {
        groups
            .entry((&d.scope, &d.name, &d.against))
            .or_default()
            .push(d);
    }
    // A quantity drawn against two parameters names its charts by both.
    let mut against_count: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (scope, name, _) in groups.keys() {
        *against_count.entry((scope, name)).or_default() += 1;
    }
    let mut out = Vec::new();
    for ((scope, name, against), ds) in groups {
        let Some(p) = m.params.iter().find(|p| p.name == against) else {
            continue;
        };
        let stem = if against_count[&(scope, name)] > 1 {
            format!("{name}_vs_{against}")
        } else {
            name.to_string()
        };
        let (xdesc, scale) = param_axis(p);
        let mut lines: Vec<Line> = ds
            .iter()
            .map(|d| Line {
                name: d.label.clone(),
                points: d
                    .points
                    .iter()
                    .map(|&(x, y, h)| (x * scale, y, h))
                    .filter(|q| q.0.is_finite() && q.1.is_finite())
                    .collect(),
            })
            .filter(|l| !l.points.is_empty())
            .collect();
        if lines.is_empty() {
            continue;
        }
        let omitted = lines.len().saturating_sub(MAX_SERIES);
        lines.truncate(MAX_SERIES);
        let log = p.log && lines.iter().all(|l| l.points.iter().all(|q| q.0 > 0.0));
        let refs: Vec<(String, Vec<(f64, f64)>)> = references
            .iter()
            .filter(|r| r.scope == scope && r.metric == name && r.against == against)
            .map(|r| {
                let pts = r
                    .points
                    .iter()
                    .map(|&(a, b)| (a * scale, b))
                    .filter(|q| q.0.is_finite() && q.1.is_finite())
                    .collect();
                (r.label.clone(), pts)
            })
            .collect();
        let ydesc = ds[0].ydesc.clone();
        let title = chart_title(&format!("{ydesc} vs {against}"), omitted);
        out.push(SweepChart {
            title,
            xdesc,
            ydesc,
            log,
            ylog: false,
            ticks: BTreeMap::new(),
            domain: if ds[0].fraction {
                (0.0, 1.0)
            } else {
                (0.0, f64::INFINITY)
            },
            scope: scope.to_string(),
            metric: stem,
            lines,
            refs,
        });
    }
    out
}
