//! `netsim plot DIR` for a sweep campaign: every metric of the collected
//! `summary` table against a swept parameter.
//!
//! - The x axis is the parameter with the most distinct values among those whose
//!   `<name>_value` is finite in every summary row (the first on a tie), in readable units (Mb/s, ms, kB, packets); it is logarithmic
//!   when the manifest marks the parameter's range as `log`. When no parameter
//!   is numeric, x is the point index and the tick labels are the points' labels.
//! - One chart per (scope, metric): `sweep_<scope>_<metric>.{png,svg}`. Each
//!   series is one subject combined with the labels of the other parameters
//!   (legend `high` or `high, buf=50pkt`; a parameter zipped with x, one value
//!   per x, splits nothing), drawn as markers at the means, joined
//!   in x order, with ±`ci95_half` error bars (none where the half-width is null).
//! - At most [`MAX_SERIES`] series per chart, in the order they first appear in
//!   the summary; the caption says how many more were left out.
//!
//! - Link charts show the busy links only (see `busy_links`): a dumbbell's
//!   bottleneck, not its dozens of access and ACK links.
//!
//! - The y axis is logarithmic too when x is, every mean is positive and
//!   the means span at least a decade (a response function's log-log plot).
//! - Reference curves ([`Reference`], e.g. a published law the sweep checks)
//!   are drawn as black lines on the chart of their scope and metric when x
//!   is their parameter.
//! - Derived curves ([`Derived`]: a share or ratio of two subjects' metric
//!   that a `[[sweep.expect]]` checks, which the summary table does not
//!   hold) get charts of their own, `sweep_<scope>_<name>.{png,svg}`, one per
//!   (scope, name, parameter), a line per subject and point set, with the
//!   references of that name; x is their parameter, in its units. A name
//!   drawn against two parameters gets `_vs_<parameter>` on each chart.
//!
//! Points with a non-finite mean are skipped; a chart with no point left is not
//! drawn. Drawing, fonts and atomic file writes are [`crate::plot`]'s.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use polars::prelude::DataFrame;

use crate::campaign::{Manifest, ManifestParam};
use crate::error::AnalysisError;
use crate::metrics::NOTABLE_UTILISATION;
use crate::plot::style::{colour, dash, is_125, legend_segments, marker};
use crate::plot::{axis, domain, render, safe, Chart, PlotFormat, FONT};
use crate::read::{find_table, floats, read_table, strings};

/// A curve to draw beside the measured ones: `y(x)` sampled in base units,
/// on the chart of `scope` and `metric` whose x axis is the parameter
/// `against`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Scope of the chart (`group`, `link`, `run`).
    pub scope: String,
    /// Metric of the chart.
    pub metric: String,
    /// The swept parameter it is a function of.
    pub against: String,
    /// Legend text.
    pub label: String,
    /// `(x, y)` in base units, in x order.
    pub points: Vec<(f64, f64)>,
}

/// Most series drawn on one chart; more would make the legend unreadable.
pub const MAX_SERIES: usize = 12;

/// The summary table's rows, one column per field.
struct Rows {
    point: Vec<f64>,
    /// Per parameter: the label as written, per row.
    labels: Vec<Vec<String>>,
    /// Per parameter: the value in base units (NaN for a label), per row.
    values: Vec<Vec<f64>>,
    scope: Vec<String>,
    subject: Vec<String>,
    metric: Vec<String>,
    mean: Vec<f64>,
    half: Vec<f64>,
}

impl Rows {
    fn read(df: &DataFrame, m: &Manifest) -> Result<Rows, AnalysisError> {
        let mut labels = Vec::with_capacity(m.params.len());
        let mut values = Vec::with_capacity(m.params.len());
        for p in &m.params {
            labels.push(strings(df, &p.name)?);
            values.push(floats(df, &format!("{}_value", p.name))?);
        }
        Ok(Rows {
            point: floats(df, "point")?,
            labels,
            values,
            scope: strings(df, "scope")?,
            subject: strings(df, "subject")?,
            metric: strings(df, "metric")?,
            mean: floats(df, "mean")?,
            half: floats(df, "ci95_half")?,
        })
    }

    fn len(&self) -> usize {
        self.point.len()
    }
}

/// What the x axis shows.
struct XAxis {
    /// The parameter on x, or `None` for the point index.
    param: Option<usize>,
    /// Axis description.
    desc: String,
    /// Factor from base units to the axis's units.
    scale: f64,
    /// Logarithmic axis.
    log: bool,
    /// Tick labels by point index (index axis only).
    ticks: BTreeMap<i64, String>,
}

/// `(axis description, scale)` of a parameter, from its base unit.
fn param_axis(p: &ManifestParam) -> (String, f64) {
    let suffix = match p.unit.as_str() {
        "bps" => "bps",
        "s" => "s",
        "B" => "bytes",
        "pkt" => "pkts",
        "" => return (p.name.clone(), 1.0),
        other => return (format!("{} [{other}]", p.name), 1.0),
    };
    axis(&format!("{}_{suffix}", p.name))
}

/// The x axis for `rows` of campaign `m` (see the module docs).
fn choose_x(m: &Manifest, rows: &Rows) -> XAxis {
    // The numeric parameter with the most distinct values (the first on a tie):
    // a 2 x 5 sweep is drawn as two lines of five points, not five of two.
    let distinct = |vs: &[f64]| {
        let mut v: Vec<u64> = vs.iter().map(|x| x.to_bits()).collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    let numeric = rows
        .values
        .iter()
        .enumerate()
        .filter(|(_, vs)| vs.iter().all(|v| v.is_finite()))
        .map(|(k, vs)| (distinct(vs), std::cmp::Reverse(k)))
        .max()
        .map(|(_, std::cmp::Reverse(k))| k);
    if let Some(k) = numeric.filter(|&k| k < m.params.len()) {
        let p = &m.params[k];
        let (desc, scale) = param_axis(p);
        return XAxis {
            param: Some(k),
            desc,
            scale,
            log: p.log && rows.values[k].iter().all(|&v| v * scale > 0.0),
            ticks: BTreeMap::new(),
        };
    }
    let mut ticks = BTreeMap::new();
    for i in 0..rows.len() {
        if rows.point[i].is_finite() {
            ticks.entry(rows.point[i] as i64).or_insert_with(|| {
                rows.labels
                    .iter()
                    .map(|l| l[i].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            });
        }
    }
    let names: Vec<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
    let desc = match names.len() {
        0 => "point".to_string(),
        1 => names[0].to_string(),
        _ => format!("point ({})", names.join(", ")),
    };
    XAxis {
        param: None,
        desc,
        scale: 1.0,
        log: false,
        ticks,
    }
}

/// One line: a subject at one combination of the other parameters.
struct Line {
    name: String,
    /// `(x, mean, ci95_half)` in axis units; the half-width is NaN when unknown.
    points: Vec<(f64, f64, f64)>,
}

/// One chart: a metric of a scope against the x parameter.
struct SweepChart {
    scope: String,
    metric: String,
    title: String,
    xdesc: String,
    ydesc: String,
    log: bool,
    /// Logarithmic y axis (only with a logarithmic x).
    ylog: bool,
    /// Tick labels by point index; empty for a numeric axis.
    ticks: BTreeMap<i64, String>,
    lines: Vec<Line>,
    /// Reference curves `(label, points)` in axis units.
    refs: Vec<(String, Vec<(f64, f64)>)>,
    /// The values the quantity can take, in axis units (see [`domain`]).
    domain: (f64, f64),
}

/// A chart under construction: lines in first-seen order.
#[derive(Default)]
struct Building {
    index: BTreeMap<String, usize>,
    lines: Vec<Line>,
}

/// The links drawn: those that, at some point, were at least
/// [`NOTABLE_UTILISATION`] busy, dropped or marked a packet, or held a queue at
/// their 99th backlog percentile (in a dumbbell: the bottleneck, not the access
/// and ACK links). If no link qualifies, every link that carried traffic; if none
/// did, every link.
fn busy_links(rows: &Rows) -> BTreeSet<&str> {
    let pick = |test: &dyn Fn(&str, f64) -> bool| -> BTreeSet<&str> {
        (0..rows.len())
            .filter(|&i| rows.scope[i] == "link" && test(&rows.metric[i], rows.mean[i]))
            .map(|i| rows.subject[i].as_str())
            .collect()
    };
    let busy = pick(&|m, v| match m {
        "utilisation" => v >= NOTABLE_UTILISATION,
        "dropped_pkts" | "marked_pkts" | "backlog_p99_pkts" => v > 0.0,
        _ => false,
    });
    if !busy.is_empty() {
        return busy;
    }
    let used = pick(&|m, v| m == "arrived_pkts" && v > 0.0);
    if !used.is_empty() {
        return used;
    }
    pick(&|_, _| true)
}

/// The parameters other than x that split a chart's lines: those that take
/// more than one value at some x. A parameter zipped with x (one value per x,
/// e.g. a run length that grows as the loss rate falls) does not.
fn splitting(m: &Manifest, rows: &Rows, x: &XAxis) -> Vec<usize> {
    let Some(k) = x.param else {
        return Vec::new();
    };
    (0..m.params.len())
        .filter(|&j| j != k)
        .filter(|&j| {
            let mut at: BTreeMap<u64, &str> = BTreeMap::new();
            (0..rows.len()).any(|i| {
                let label = rows.labels[j][i].as_str();
                *at.entry(rows.values[k][i].to_bits()).or_insert(label) != label
            })
        })
        .collect()
}

/// The charts of `rows`, sorted by (scope, metric), before capping.
fn build(m: &Manifest, rows: &Rows, x: &XAxis) -> BTreeMap<(String, String), Building> {
    let mut charts: BTreeMap<(String, String), Building> = BTreeMap::new();
    let links = busy_links(rows);
    let split = splitting(m, rows, x);
    for i in 0..rows.len() {
        if rows.scope[i] == "link" && !links.contains(rows.subject[i].as_str()) {
            continue;
        }
        let xv = match x.param {
            Some(k) => rows.values[k][i] * x.scale,
            None => rows.point[i],
        };
        let (_, k) = axis(&rows.metric[i]);
        let (y, h) = (rows.mean[i] * k, rows.half[i] * k);
        let mut name = rows.subject[i].clone();
        for &j in &split {
            name.push_str(&format!(", {}={}", m.params[j].name, rows.labels[j][i]));
        }
        let chart = charts
            .entry((rows.scope[i].clone(), rows.metric[i].clone()))
            .or_default();
        let li = match chart.index.get(&name) {
            Some(&li) => li,
            None => {
                chart.lines.push(Line {
                    name: name.clone(),
                    points: Vec::new(),
                });
                chart.index.insert(name, chart.lines.len() - 1);
                chart.lines.len() - 1
            }
        };
        if xv.is_finite() && y.is_finite() {
            chart.lines[li].points.push((xv, y, h));
        }
    }
    charts
}

/// The finished charts: points in x order, empty lines dropped, at most
/// [`MAX_SERIES`] lines each, charts without a point left out.
fn charts(m: &Manifest, rows: &Rows, references: &[Reference]) -> Vec<SweepChart> {
    let x = choose_x(m, rows);
    let mut out = Vec::new();
    for ((scope, metric), b) in build(m, rows, &x) {
        let mut lines: Vec<Line> = b
            .lines
            .into_iter()
            .filter(|l| !l.points.is_empty())
            .collect();
        // A metric that is zero at every point (no drops, no marks) says
        // nothing a chart could show.
        let zero = lines.iter().all(|l| {
            l.points
                .iter()
                .all(|p| p.1 == 0.0 && (p.2 == 0.0 || p.2.is_nan()))
        });
        if lines.is_empty() || zero {
            continue;
        }
        for l in &mut lines {
            l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let omitted = lines.len().saturating_sub(MAX_SERIES);
        lines.truncate(MAX_SERIES);
        let xname = match x.param {
            Some(k) => m.params[k].name.as_str(),
            None => "point",
        };
        let (ydesc, yscale) = axis(&metric);
        // "Goodput (Mb/s) per group vs buffer": the quantity in words with its unit.
        let title = chart_title(&format!("{ydesc} per {scope} vs {xname}"), omitted);
        let refs: Vec<(String, Vec<(f64, f64)>)> = match x.param {
            Some(k) => references
                .iter()
                .filter(|r| r.scope == scope && r.metric == metric && r.against == m.params[k].name)
                .map(|r| {
                    let pts = r
                        .points
                        .iter()
                        .map(|&(a, b)| (a * x.scale, b * yscale))
                        .filter(|p| p.0.is_finite() && p.1.is_finite())
                        .collect();
                    (r.label.clone(), pts)
                })
                .collect(),
            None => Vec::new(),
        };
        let means = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
        let (lo, hi) = means.fold((f64::INFINITY, 0.0f64), |(a, b), y| (a.min(y), b.max(y)));
        let ylog = x.log
            && lo > 0.0
            && hi >= 10.0 * lo
            && refs.iter().all(|r| r.1.iter().all(|p| p.1 > 0.0));
        out.push(SweepChart {
            title,
            xdesc: x.desc.clone(),
            ydesc,
            log: x.log,
            ylog,
            ticks: x.ticks.clone(),
            domain: domain(&metric),
            scope,
            metric,
            lines,
            refs,
        });
    }
    out
}

/// A chart's title: `what` capitalised, the interval drawn, and how many
/// series were left out.
fn chart_title(what: &str, omitted: usize) -> String {
    let mut title = match what.get(..1) {
        Some(c) => c.to_uppercase() + &what[1..],
        None => String::new(),
    };
    title.push_str(" (mean, 95% CI)");
    if omitted > 0 {
        title.push_str(&format!("; {omitted} more series not drawn"));
    }
    title
}

/// A tick label with at most four significant digits.
fn fmt_tick(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        return format!("{v:.1e}");
    }
    let decimals = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A tick label; on a logarithmic axis spanning a decade or more (`sparse`)
/// only 1-2-5 values are labelled, so that the labels do not collide.
fn log_label(sparse: bool, v: f64) -> String {
    if sparse && !is_125(v) {
        String::new()
    } else {
        fmt_tick(v)
    }
}

/// `(lo, hi)` with `pad` of the span added each side; a zero span becomes
/// `±fallback` (or ±10 % of the value).
fn padded(lo: f64, hi: f64, pad: f64, fallback: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    if hi > lo {
        let d = (hi - lo) * pad;
        (lo - d, hi + d)
    } else {
        let d = if lo != 0.0 { lo.abs() * 0.1 } else { fallback };
        (lo - d, hi + d)
    }
}

impl SweepChart {
    fn file_stem(&self) -> String {
        format!("sweep_{}_{}", safe(&self.scope), safe(&self.metric))
    }

    fn points(&self) -> impl Iterator<Item = &(f64, f64, f64)> {
        self.lines.iter().flat_map(|l| l.points.iter())
    }

    /// The x range: padded, and on a log axis extended down to a 1-2-5 value
    /// so that the axis has at least one labelled tick.
    fn x_range(&self) -> (f64, f64) {
        let (lo, hi) = self
            .points()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.0), b.max(p.0))
            });
        if self.log && lo > 0.0 && hi.is_finite() {
            // Down to the 1-2-5 value below the padded minimum: a labelled
            // tick without a decade of empty axis.
            let lo = lo / 1.15;
            let decade = 10f64.powf(lo.log10().floor());
            let tick = [5.0, 2.0, 1.0]
                .iter()
                .map(|m| m * decade)
                .find(|&t| t <= lo * (1.0 + 1e-9))
                .unwrap_or(decade);
            return (tick, hi * 1.15);
        }
        if !self.ticks.is_empty() {
            return (lo - 0.5, hi + 0.5);
        }
        padded(lo, hi, 0.05, 0.5)
    }

    /// The interval `y` +- `h` clipped to the metric's [`domain`] (just `y`
    /// when the half-width is unknown).
    fn interval(&self, y: f64, h: f64) -> (f64, f64) {
        let h = if h.is_finite() { h.abs() } else { 0.0 };
        let (d0, d1) = self.domain;
        ((y - h).max(d0).min(y), (y + h).min(d1).max(y))
    }

    /// The y range over means, intervals and reference curves, padded; not
    /// below zero when no value is; on a log axis, over the positive values,
    /// widened by 15 % each way.
    fn y_range(&self) -> (f64, f64) {
        let refs = self.refs.iter().flat_map(|r| r.1.iter().map(|p| p.1));
        let (lo, hi) = self
            .points()
            .flat_map(|&(_, y, h)| {
                let (a, b) = self.interval(y, h);
                [a, b]
            })
            .chain(refs)
            .filter(|v| !self.ylog || *v > 0.0)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        if self.ylog {
            return (lo / 1.15, hi * 1.15);
        }
        let (y0, y1) = padded(lo, hi, 0.08, 1.0);
        if lo >= 0.0 && y0 < 0.0 {
            (0.0, y1)
        } else {
            (y0, y1)
        }
    }

    fn tick_label(&self, v: f64) -> String {
        if self.ticks.is_empty() {
            let (x0, x1) = self.x_range();
            return log_label(self.log && x1 >= 10.0 * x0, v);
        }
        let i = v.round();
        if (v - i).abs() > 1e-6 {
            return String::new();
        }
        self.ticks.get(&(i as i64)).cloned().unwrap_or_default()
    }

    /// The corner of the plot holding the fewest points, for the legend
    /// (upper right on a tie). `x` maps an x value to its axis position in 0..1.
    fn legend_corner(&self, x: impl Fn(f64) -> f64) -> SeriesLabelPosition {
        let (y0, y1) = self.y_range();
        let y = |v: f64| {
            if self.ylog {
                (v.max(y0).ln() - y0.ln()) / (y1.ln() - y0.ln())
            } else {
                (v - y0) / (y1 - y0)
            }
        };
        let mut count = [0usize; 4];
        for &(px, py, _) in self.points() {
            let right = x(px) > 0.5;
            let upper = y(py) > 0.5;
            count[usize::from(!upper) * 2 + usize::from(!right)] += 1;
        }
        let best = (0..4).min_by_key(|&i| (count[i], i)).unwrap_or(0);
        [
            SeriesLabelPosition::UpperRight,
            SeriesLabelPosition::UpperLeft,
            SeriesLabelPosition::LowerRight,
            SeriesLabelPosition::LowerLeft,
        ][best]
            .clone()
    }

    /// Draw on `root` with the axes `xspec` and `yspec` (linear or
    /// logarithmic) and the legend in `corner`.
    fn draw_on<DB, X, Y>(
        &self,
        root: &DrawingArea<DB, Shift>,
        xspec: X,
        yspec: Y,
        corner: SeriesLabelPosition,
    ) -> Result<(), String>
    where
        DB: DrawingBackend,
        X: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let (y0, _) = self.y_range();
        // An interval reaching below a log axis is drawn down to its floor.
        let floor = |v: f64| if self.ylog { v.max(y0) } else { v };
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 22))
            .margin(12)
            .margin_right(28)
            .x_label_area_size(56)
            .y_label_area_size(84)
            .build_cartesian_2d(xspec, yspec)
            .map_err(e)?;
        let xfmt = |v: &f64| self.tick_label(*v);
        let (y0, y1) = self.y_range();
        let sparse_y = self.ylog && y1 >= 10.0 * y0;
        let yfmt = |v: &f64| log_label(sparse_y, *v);
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(self.xdesc.as_str())
            .y_desc(self.ydesc.as_str())
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17));
        if !self.ticks.is_empty() {
            mesh.x_labels(self.ticks.len().clamp(1, 40));
        }
        mesh.draw().map_err(e)?;
        for (i, l) in self.lines.iter().enumerate() {
            let color = colour(i);
            let shape = marker(i);
            chart
                .draw_series(
                    l.points
                        .iter()
                        .filter(|p| p.2.is_finite())
                        .map(|&(x, y, h)| {
                            let (a, b) = self.interval(y, h);
                            ErrorBar::new_vertical(x, floor(a), y, b, color.stroke_width(1), 8)
                        }),
                )
                .map_err(e)?;
            let style = color.stroke_width(2);
            let xy = l.points.iter().map(|&(x, y, _)| (x, y));
            match dash(i) {
                None => chart.draw_series(LineSeries::new(xy, style)),
                Some((d, g)) => chart.draw_series(DashedLineSeries::new(xy, d, g, style)),
            }
            .map_err(e)?;
            let m = shape.clone();
            chart
                .draw_series(l.points.iter().map(|&(x, y, _)| {
                    EmptyElement::at((x, y)) + Polygon::new(m.clone(), color.filled())
                }))
                .map_err(e)?
                .label(l.name.as_str())
                .legend(move |(x, y)| {
                    let [a, b, c] = legend_segments(i);
                    let seg = |(f, t): (i32, i32)| PathElement::new(vec![(f, 0), (t, 0)], style);
                    EmptyElement::at((x - 4, y))
                        + seg(a)
                        + seg(b)
                        + seg(c)
                        + Polygon::new(
                            shape
                                .iter()
                                .map(|&(px, py)| (px + 15, py))
                                .collect::<Vec<_>>(),
                            color.filled(),
                        )
                });
        }
        // Reference curves in black: the first solid, the others dashed
        // with longer dashes each.
        for (i, (label, pts)) in self.refs.iter().enumerate() {
            let style = BLACK.stroke_width(2);
            let anno = if i == 0 {
                chart.draw_series(LineSeries::new(pts.iter().copied(), style))
            } else {
                let dash = 4 + 4 * i as u32;
                chart.draw_series(DashedLineSeries::new(pts.iter().copied(), dash, 4, style))
            }
            .map_err(e)?;
            // Legend: a solid line, or two dashes.
            let gap = if i == 0 { 0 } else { 4 };
            anno.label(label.as_str()).legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (10 - gap, 0)], style)
                    + PathElement::new(vec![(10 + gap, 0), (20, 0)], style)
            });
        }
        let mut legend = chart.configure_series_labels();
        legend
            .position(corner)
            .label_font((FONT, 15))
            .border_style(BLACK)
            .background_style(WHITE.mix(0.85));
        legend.draw().map_err(e)?;
        Ok(())
    }
}

impl Chart for SweepChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let (x0, x1) = self.x_range();
        let (y0, y1) = self.y_range();
        if self.log {
            let (l0, l1) = (x0.ln(), x1.ln());
            let corner = self.legend_corner(|x| (x.ln() - l0) / (l1 - l0));
            if self.ylog {
                self.draw_on(root, (x0..x1).log_scale(), (y0..y1).log_scale(), corner)
            } else {
                self.draw_on(root, (x0..x1).log_scale(), y0..y1, corner)
            }
        } else {
            let corner = self.legend_corner(|x| (x - x0) / (x1 - x0));
            self.draw_on(root, x0..x1, y0..y1, corner)
        }
    }
}

/// Every chart of the campaign in `dir` (PNG and SVG), from its manifest and
/// collected `summary` table, into `dir`; returns the files in (scope, metric,
/// format) order. A missing summary is an [`AnalysisError::Input`]: run
/// `netsim collect DIR` first.
pub fn plot_campaign(dir: &Path) -> Result<Vec<PathBuf>, AnalysisError> {
    plot_campaign_with(dir, &[], &[])
}

/// [`plot_campaign`] with reference curves drawn on the charts they belong
/// to, and the derived curves' charts after the summary's.
pub fn plot_campaign_with(
    dir: &Path,
    references: &[Reference],
    derived: &[Derived],
) -> Result<Vec<PathBuf>, AnalysisError> {
    let m = Manifest::read(dir)?;
    let summary = find_table(dir, "summary").ok_or_else(|| AnalysisError::Input {
        path: dir.to_path_buf(),
        msg: format!(
            "no summary.parquet or summary.csv in this campaign: run `netsim collect {}` first",
            dir.display()
        ),
    })?;
    let rows = Rows::read(&read_table(&summary)?, &m)?;
    let mut out = Vec::new();
    let mut used = BTreeMap::new();
    for c in charts(&m, &rows, references)
        .into_iter()
        .chain(derived_charts(&m, derived, references))
    {
        // Distinct metrics can share a sanitized name; keep both charts.
        let stem = c.file_stem();
        let n: &mut usize = used.entry(stem.clone()).or_default();
        *n += 1;
        let stem = if *n == 1 { stem } else { format!("{stem}_{n}") };
        out.extend(render(dir, &stem, &PlotFormat::ALL, &c)?);
    }
    Ok(out)
}

mod derived;
#[cfg(test)]
mod tests;
pub mod xy;

use derived::derived_charts;
pub use derived::Derived;
