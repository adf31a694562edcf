//! `netsim plot DIR --x SEL --y SEL [--by P,...]`: one metric of a campaign
//! against another, both measured: each point of the sweep is drawn at (mean of
//! x, mean of y) with y's interval as an error bar, and the points of one
//! series are joined in x order. This is how the papers draw, for example, the
//! marking probability against the utilisation that a load sweep produced
//! (seed 001, Figs. 8-10). A series is joined in the sweep's point order (the
//! order of the parameters that move it), not in x order, so a curve that
//! turns back on itself is drawn as the loop it is.
//!
//! - A selector is `scope:subject:metric`, e.g. `link:r1->r2:utilisation`.
//! - Series: the combinations of the `--by` parameters' labels; by default the
//!   parameters whose values are not numbers (a marker, a variant), or, when
//!   all are numbers and there are several, the one with the fewest distinct
//!   values. The other parameters move a series along its curve.
//! - One chart, `xy_<y metric>_vs_<x metric>.{png,svg}`, at most
//!   [`MAX_SERIES`] series.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::{Line, Rows, SweepChart, MAX_SERIES};
use crate::campaign::Manifest;
use crate::error::AnalysisError;
use crate::plot::{axis, render, safe, PlotFormat};
use crate::read::{find_table, read_table};

/// One metric of one subject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    /// "group", "link" or "run".
    pub scope: String,
    /// Group or link name, or "all".
    pub subject: String,
    /// Metric name.
    pub metric: String,
}

impl FromStr for Selector {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.splitn(3, ':').collect();
        match parts[..] {
            [scope, subject, metric] if !scope.is_empty() && !metric.is_empty() => Ok(Selector {
                scope: scope.into(),
                subject: subject.into(),
                metric: metric.into(),
            }),
            _ => Err(format!(
                "`{s}`: expected scope:subject:metric, e.g. link:r1->r2:utilisation"
            )),
        }
    }
}

/// The `(mean, ci95_half)` of `sel` per point.
fn per_point(rows: &Rows, sel: &Selector) -> BTreeMap<usize, (f64, f64)> {
    (0..rows.len())
        .filter(|&i| {
            rows.scope[i] == sel.scope
                && rows.subject[i] == sel.subject
                && rows.metric[i] == sel.metric
        })
        .map(|i| (rows.point[i] as usize, (rows.mean[i], rows.half[i])))
        .collect()
}

/// The parameters that name the series (see the module docs).
fn series_params(m: &Manifest, rows: &Rows, by: Option<&[String]>) -> Result<Vec<usize>, String> {
    let names: Vec<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
    if let Some(by) = by {
        return by
            .iter()
            .map(|b| {
                names.iter().position(|n| n == b).ok_or_else(|| {
                    format!(
                        "--by {b}: no such parameter; the parameters are: {}",
                        names.join(", ")
                    )
                })
            })
            .collect();
    }
    let labels: Vec<usize> = (0..names.len())
        .filter(|&k| rows.values[k].iter().any(|v| !v.is_finite()))
        .collect();
    if !labels.is_empty() || names.len() < 2 {
        return Ok(labels);
    }
    let distinct = |k: usize| {
        let mut v: Vec<u64> = rows.values[k].iter().map(|x| x.to_bits()).collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    Ok((0..names.len())
        .min_by_key(|&k| (distinct(k), k))
        .into_iter()
        .collect())
}

/// Draw `y` against `x` for the campaign in `dir` (PNG and SVG, into `dir`).
pub fn plot_xy(
    dir: &Path,
    x: &Selector,
    y: &Selector,
    by: Option<&[String]>,
) -> Result<Vec<PathBuf>, AnalysisError> {
    let input = |msg: String| AnalysisError::Input {
        path: dir.to_path_buf(),
        msg,
    };
    let m = Manifest::read(dir)?;
    let summary = find_table(dir, "summary").ok_or_else(|| {
        input(format!(
            "no summary.parquet or summary.csv in this campaign: run `netsim collect {}` first",
            dir.display()
        ))
    })?;
    let rows = Rows::read(&read_table(&summary)?, &m)?;
    let xs = per_point(&rows, x);
    let ys = per_point(&rows, y);
    for (sel, got, flag) in [(x, &xs, "--x"), (y, &ys, "--y")] {
        if got.is_empty() {
            let mut known: Vec<String> = (0..rows.len())
                .filter(|&i| rows.scope[i] == sel.scope && rows.subject[i] == sel.subject)
                .map(|i| rows.metric[i].clone())
                .collect();
            known.sort();
            known.dedup();
            return Err(input(format!(
                "{flag} {}:{}:{}: not in the summary; {}",
                sel.scope,
                sel.subject,
                sel.metric,
                if known.is_empty() {
                    format!("no metrics for {} `{}`", sel.scope, sel.subject)
                } else {
                    format!("its metrics are: {}", known.join(", "))
                }
            )));
        }
    }
    let series = series_params(&m, &rows, by).map_err(input)?;
    let (xdesc, xk) = axis(&x.metric);
    let (ydesc, yk) = axis(&y.metric);
    let mut lines: Vec<Line> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut left_out = 0usize;
    for p in &m.points {
        let (Some(&(xm, _)), Some(&(ym, yh))) = (xs.get(&p.index), ys.get(&p.index)) else {
            continue;
        };
        if !(xm.is_finite() && ym.is_finite()) {
            continue;
        }
        let name = if series.is_empty() {
            format!("{} {}", y.subject, y.metric)
        } else {
            series
                .iter()
                .map(|&k| format!("{}={}", m.params[k].name, p.labels[k]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let i = match index.get(&name) {
            Some(&i) => i,
            None if lines.len() < MAX_SERIES => {
                index.insert(name.clone(), lines.len());
                lines.push(Line {
                    name,
                    points: Vec::new(),
                });
                lines.len() - 1
            }
            None => {
                left_out += 1;
                continue;
            }
        };
        lines[i].points.push((xm * xk, ym * yk, yh * yk));
    }
    if lines.is_empty() {
        return Err(input("no point has finite values of both metrics".into()));
    }
    let mut title = format!(
        "{}: {} {} against {} {}",
        m.name, y.subject, y.metric, x.subject, x.metric
    );
    if left_out > 0 {
        title.push_str(&format!(" ({left_out} points of further series left out)"));
    }
    let chart = SweepChart {
        scope: y.scope.clone(),
        metric: y.metric.clone(),
        title,
        xdesc: format!("{xdesc} ({} {})", x.scope, x.subject),
        ydesc: format!("{ydesc} ({} {})", y.scope, y.subject),
        log: false,
        ylog: false,
        ticks: BTreeMap::new(),
        domain: crate::plot::domain(&y.metric),
        lines,
        refs: Vec::new(),
    };
    let stem = format!("xy_{}_vs_{}", safe(&y.metric), safe(&x.metric));
    render(dir, &stem, &PlotFormat::ALL, &chart)
}
