//! Charts: time series of replication 0 and summary bars with CI whiskers.
//!
//! - One time-series chart per (subject kind, metric): `series_flow_cwnd_bytes`,
//!   `series_link_queue_pkts`, ..., one line per flow or link, replication 0 only
//!   (several replications on one chart hide more than they show). Lines with many
//!   points are thinned to the minimum and maximum of each of [`MAX_POINTS`]/2
//!   buckets, which keeps every spike.
//! - `summary_goodput`: mean goodput per flow of each group, 95 % CI whiskers.
//! - `summary_utilisation`: utilisation of each notable link (see
//!   [`Metrics::notable_links`]), 95 % CI whiskers.
//!
//! Text uses the DejaVu Sans font embedded by the `dejavu` crate (no system fonts),
//! registered once as `"sans-serif"`. Files are rendered under a temporary name and
//! renamed, like every other result file.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use polars::prelude::DataFrame;
use sim_core::Subject;

use crate::error::AnalysisError;
use crate::metrics::{notable, LinkLoad, Metrics, Scope};
use crate::read::{find_table, floats, read_table, rows_from_table, strings};
use crate::stats::Summary;
use crate::summary::SummaryRow;
use crate::tables::Labels;
use crate::write::{commit, temp_path, write_atomic};

/// Image format of a chart.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PlotFormat {
    /// Raster, 1024 x 640 pixels.
    Png,
    /// Vector.
    Svg,
}

impl PlotFormat {
    /// Both formats.
    pub const ALL: [PlotFormat; 2] = [PlotFormat::Png, PlotFormat::Svg];

    /// File extension without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            PlotFormat::Png => "png",
            PlotFormat::Svg => "svg",
        }
    }
}

/// Chart size, pixels.
const SIZE: (u32, u32) = (1024, 640);
/// Most points drawn per line before thinning.
pub const MAX_POINTS: usize = 4000;
/// Most lines that get a legend entry (beyond it the legend would hide the plot).
const MAX_LEGEND: usize = 12;
/// The font family every text element uses.
pub(crate) const FONT: &str = "sans-serif";

/// One line of a time-series chart.
#[derive(Clone, Debug, PartialEq)]
struct Line {
    subject: String,
    points: Vec<(f64, f64)>,
}

/// One time-series chart: one metric of one kind of subject.
#[derive(Clone, Debug, PartialEq)]
struct SeriesChart {
    kind: String,
    metric: String,
    lines: Vec<Line>,
    /// Lines left out because they are zero throughout.
    hidden: usize,
}

impl SeriesChart {
    fn file_stem(&self) -> String {
        format!("series_{}_{}", safe(&self.kind), safe(&self.metric))
    }
}

/// A name made safe for a file name.
pub(crate) fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `(axis label, scale)` of a metric, from its unit suffix.
pub(crate) fn axis(metric: &str) -> (String, f64) {
    let (name, unit, k) = if let Some(n) = metric.strip_suffix("_bps") {
        (n, "Mb/s", 1e-6)
    } else if let Some(n) = metric.strip_suffix("_s") {
        (n, "ms", 1e3)
    } else if let Some(n) = metric.strip_suffix("_bytes") {
        (n, "kB", 1e-3)
    } else if let Some(n) = metric.strip_suffix("_pkts") {
        (n, "packets", 1.0)
    } else {
        return (metric.replace('_', " "), 1.0);
    };
    (format!("{} ({unit})", name.replace('_', " ")), k)
}

/// Time-series charts under construction, with an index of each chart's
/// lines by subject: adding a point costs the same however many lines there
/// are.
#[derive(Default)]
struct ChartSet {
    charts: Vec<SeriesChart>,
    /// Per chart: line index by subject.
    lines: Vec<HashMap<String, usize>>,
}

impl ChartSet {
    /// Append a point to the line of `(kind, metric, subject)`, creating chart
    /// and line in first-seen order.
    fn push(&mut self, kind: &str, metric: &str, subject: &str, p: (f64, f64)) {
        // A handful of (kind, metric) charts: a scan is cheapest.
        let ci = match self
            .charts
            .iter()
            .position(|c| c.kind == kind && c.metric == metric)
        {
            Some(i) => i,
            None => {
                self.charts.push(SeriesChart {
                    kind: kind.into(),
                    metric: metric.into(),
                    lines: Vec::new(),
                    hidden: 0,
                });
                self.lines.push(HashMap::new());
                self.charts.len() - 1
            }
        };
        let lines = &mut self.charts[ci].lines;
        let li = match self.lines[ci].get(subject) {
            Some(&i) => i,
            None => {
                lines.push(Line {
                    subject: subject.into(),
                    points: Vec::new(),
                });
                self.lines[ci].insert(subject.to_string(), lines.len() - 1);
                lines.len() - 1
            }
        };
        if p.0.is_finite() && p.1.is_finite() {
            lines[li].points.push(p);
        }
    }
}

/// The charts of replication 0 of the set of `m`.
fn charts_from_runs(m: &Metrics<'_>) -> Vec<SeriesChart> {
    let mut charts = ChartSet::default();
    if let Some(run) = m.set().first_run() {
        let labels = Labels::new(m);
        for p in &run.series {
            let (kind, subject) = match p.subject {
                Subject::Flow(f) => (
                    "flow",
                    labels
                        .flows
                        .get(f.index())
                        .map_or_else(|| Cow::Owned(f.to_string()), |s| Cow::Borrowed(s.as_str())),
                ),
                Subject::Link(l) => ("link", labels.link(l)),
            };
            charts.push(kind, p.metric, &subject, (p.time, p.value));
        }
    }
    charts.charts
}

/// The charts of the lowest replication in a `series` table.
fn charts_from_table(df: &DataFrame) -> Result<Vec<SeriesChart>, AnalysisError> {
    let rep = floats(df, "replication")?;
    let time = floats(df, "time_s")?;
    let value = floats(df, "value")?;
    let kind = strings(df, "subject_kind")?;
    let subject = strings(df, "subject")?;
    let metric = strings(df, "metric")?;
    let first = rep.iter().copied().fold(f64::INFINITY, f64::min);
    let mut charts = ChartSet::default();
    for i in (0..df.height()).filter(|&i| rep[i] == first) {
        charts.push(&kind[i], &metric[i], &subject[i], (time[i], value[i]));
    }
    Ok(charts.charts)
}

/// Order flow lines by flow id (`f2` before `f10`), not by when each flow first
/// reported (links keep the engine's id order), and leave out lines that are zero
/// throughout when another line is not: the idle access links of a dumbbell
/// would otherwise bury the bottleneck's queue and crowd out the legend.
fn tidy(charts: &mut [SeriesChart]) {
    for c in charts.iter_mut() {
        if c.kind == "flow" {
            c.lines.sort_by_key(|l| {
                l.subject
                    .strip_prefix('f')
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or(u64::MAX)
            });
        }
        let zero = |l: &Line| l.points.iter().all(|p| p.1 == 0.0);
        if c.lines.iter().any(|l| !zero(l)) {
            let before = c.lines.len();
            c.lines.retain(|l| !zero(l));
            c.hidden += before - c.lines.len();
        }
    }
}

/// At most [`MAX_POINTS`] points: the minimum and maximum of equal-count buckets,
/// in time order.
fn thin(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    if points.len() <= MAX_POINTS {
        return points.to_vec();
    }
    let buckets = MAX_POINTS / 2;
    let mut out = Vec::with_capacity(MAX_POINTS);
    for b in 0..buckets {
        let lo = b * points.len() / buckets;
        let hi = ((b + 1) * points.len() / buckets).max(lo + 1);
        let chunk = &points[lo..hi];
        let (mut imin, mut imax) = (0, 0);
        for (i, p) in chunk.iter().enumerate() {
            if p.1 < chunk[imin].1 {
                imin = i;
            }
            if p.1 > chunk[imax].1 {
                imax = i;
            }
        }
        out.push(chunk[imin.min(imax)]);
        if imin != imax {
            out.push(chunk[imin.max(imax)]);
        }
    }
    out
}

/// Register the embedded DejaVu font once; false if it could not be parsed.
fn fonts_ready() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| {
        register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok()
            && register_font(FONT, FontStyle::Bold, dejavu::sans::bold()).is_ok()
    })
}

/// Something that can draw itself on any backend.
pub(crate) trait Chart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// Render `chart` as `<dir>/<stem>.<ext>` in each format, atomically.
pub(crate) fn render(
    dir: &Path,
    stem: &str,
    formats: &[PlotFormat],
    chart: &impl Chart,
) -> Result<Vec<PathBuf>, AnalysisError> {
    let mut out = Vec::new();
    for &f in formats {
        let path = dir.join(format!("{stem}.{}", f.extension()));
        let fail = |msg: String| AnalysisError::Plot {
            path: path.clone(),
            msg,
        };
        if !fonts_ready() {
            return Err(fail("the embedded DejaVu font could not be loaded".into()));
        }
        match f {
            PlotFormat::Png => {
                // The bitmap encoder picks the format from the extension, which the
                // temporary name keeps.
                let tmp = temp_path(&path);
                let drawn = (|| {
                    let root = BitMapBackend::new(&tmp, SIZE).into_drawing_area();
                    chart.draw(&root)?;
                    root.present().map_err(|e| e.to_string())
                })();
                let done = drawn.map_err(&fail).and_then(|()| commit(&tmp, &path));
                if let Err(e) = done {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(e);
                }
            }
            PlotFormat::Svg => {
                let mut svg = String::new();
                {
                    let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
                    chart.draw(&root).map_err(&fail)?;
                    root.present().map_err(|e| fail(e.to_string()))?;
                }
                write_atomic(&path, svg.as_bytes())?;
            }
        }
        out.push(path);
    }
    Ok(out)
}

impl Chart for SeriesChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let (ydesc, k) = axis(&self.metric);
        let lines: Vec<(String, Vec<(f64, f64)>)> = self
            .lines
            .iter()
            .map(|l| {
                let pts = thin(&l.points)
                    .into_iter()
                    .map(|(t, v)| (t, v * k))
                    .collect();
                (l.subject.clone(), pts)
            })
            .collect();
        let all = || lines.iter().flat_map(|(_, p)| p.iter());
        let (mut x0, mut x1) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
        let (mut y0, mut y1) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
        if !(x0.is_finite() && y0.is_finite()) {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        // Rates, windows and queues are non-negative: start the axis at zero.
        y0 = y0.min(0.0);
        y1 = if y1 > y0 {
            y1 + 0.05 * (y1 - y0)
        } else {
            y0 + 1.0
        };
        let title = match self.hidden {
            0 => format!("{} per {} (replication 0)", self.metric, self.kind),
            h => format!(
                "{} per {} (replication 0; {h} all-zero {}(s) not drawn)",
                self.metric, self.kind, self.kind
            ),
        };
        let mut chart = ChartBuilder::on(root)
            .caption(title, (FONT, 24))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc(ydesc)
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17))
            .draw()
            .map_err(e)?;
        for (i, (name, pts)) in lines.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let s = chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                .map_err(e)?;
            if lines.len() <= MAX_LEGEND {
                s.label(name.as_str()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            }
        }
        if lines.len() <= MAX_LEGEND {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .label_font((FONT, 15))
                .draw()
                .map_err(e)?;
        }
        Ok(())
    }
}

/// One bar of a summary chart: a mean with its interval.
struct Bar {
    label: String,
    mean: f64,
    lo: f64,
    hi: f64,
}

/// Bars with CI whiskers over named categories.
struct BarChart {
    title: String,
    ydesc: String,
    /// The y axis reaches at least this value (100 for a utilisation in %).
    ymin_top: f64,
    bars: Vec<Bar>,
}

impl Bar {
    /// A bar for `label` from a summary scaled by `k`, if its mean is finite.
    fn new(label: &str, s: Summary, k: f64) -> Option<Bar> {
        s.mean.is_finite().then(|| Bar {
            label: label.to_string(),
            mean: s.mean * k,
            lo: s.lo() * k,
            hi: s.hi() * k,
        })
    }
}

/// The bars of the summary charts: each group's goodput per flow (Mb/s) and
/// each notable link's utilisation (%).
#[derive(Default)]
pub struct SummaryBars {
    groups: Vec<Bar>,
    links: Vec<Bar>,
}

impl SummaryBars {
    /// The bars of a finished run set.
    pub fn from_metrics(m: &Metrics<'_>) -> Self {
        let goodput = Scope::Group.metric("goodput_bps");
        let util = Scope::Link.metric("utilisation");
        let groups = m
            .present_groups()
            .into_iter()
            .filter_map(|g| {
                let s = m.summary(Scope::Group, g, goodput?)?;
                Bar::new(&m.name(Scope::Group, g), s, 1e-6)
            })
            .collect();
        let links = m
            .notable_links()
            .0
            .into_iter()
            .filter_map(|l| {
                let s = m.summary(Scope::Link, l, util?)?;
                Bar::new(&m.name(Scope::Link, l), s, 100.0)
            })
            .collect();
        SummaryBars { groups, links }
    }

    /// The bars from a `summary` table's rows, in one pass: subjects in the
    /// order they first appear, notable links chosen as for a run set.
    pub fn from_rows(rows: &[SummaryRow]) -> Self {
        let mut groups: Vec<(&str, Option<Summary>)> = Vec::new();
        let mut group_at: HashMap<&str, usize> = HashMap::new();
        let mut links: Vec<(&str, LinkLoad, Option<Summary>)> = Vec::new();
        let mut link_at: HashMap<&str, usize> = HashMap::new();
        for r in rows {
            match r.scope.as_str() {
                "group" => {
                    let i = *group_at.entry(&r.subject).or_insert_with(|| {
                        groups.push((&r.subject, None));
                        groups.len() - 1
                    });
                    if r.metric == "goodput_bps" {
                        groups[i].1 = Some(r.summary());
                    }
                }
                "link" => {
                    let i = *link_at.entry(&r.subject).or_insert_with(|| {
                        links.push((&r.subject, LinkLoad::default(), None));
                        links.len() - 1
                    });
                    let (_, load, util) = &mut links[i];
                    match r.metric.as_str() {
                        "arrived_pkts" => load.arrived = r.mean,
                        "dropped_pkts" => load.dropped = r.mean,
                        "marked_pkts" => load.marked = r.mean,
                        "backlog_p99_pkts" => load.backlog_p99 = r.mean,
                        "utilisation" => {
                            load.utilisation = r.mean;
                            *util = Some(r.summary());
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        let loads: Vec<LinkLoad> = links.iter().map(|l| l.1).collect();
        let shown = notable(&loads).0;
        SummaryBars {
            groups: groups
                .into_iter()
                .filter_map(|(name, s)| Bar::new(name, s?, 1e-6))
                .collect(),
            links: shown
                .into_iter()
                .filter_map(|i| Bar::new(links[i].0, links[i].2?, 100.0))
                .collect(),
        }
    }
}

impl Chart for BarChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let n = self.bars.len() as i32;
        let pad = if n < 3 { 1 } else { 0 };
        let top = self
            .bars
            .iter()
            .map(|b| b.hi.max(b.mean))
            .fold(self.ymin_top, f64::max)
            * 1.08;
        let bottom = self.bars.iter().map(|b| b.lo).fold(0.0, f64::min);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 24))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(72)
            // An i32 range includes its end: pad..=n-1+pad gives n segments plus
            // an empty one each side when there are few bars (a lone bar would
            // otherwise fill the chart, and a one-value range is degenerate).
            .build_cartesian_2d((-pad..n - 1 + pad).into_segmented(), bottom..top)
            .map_err(e)?;
        let label = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => usize::try_from(*i)
                .ok()
                .and_then(|i| self.bars.get(i))
                .map(|b| b.label.clone())
                .unwrap_or_default(),
            SegmentValue::Last => String::new(),
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .x_labels((n + 2 * pad).max(1) as usize)
            .x_label_formatter(&label)
            .y_desc(self.ydesc.as_str())
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17))
            .draw()
            .map_err(e)?;
        let fill = Palette99::pick(0).to_rgba().mix(0.6).filled();
        chart
            .draw_series(self.bars.iter().enumerate().map(|(i, b)| {
                let i = i as i32;
                let mut r = Rectangle::new(
                    [
                        (SegmentValue::Exact(i), 0.0),
                        (SegmentValue::Exact(i + 1), b.mean),
                    ],
                    fill,
                );
                r.set_margin(0, 0, 18, 18);
                r
            }))
            .map_err(e)?;
        chart
            .draw_series(self.bars.iter().enumerate().map(|(i, b)| {
                ErrorBar::new_vertical(
                    SegmentValue::CenterOf(i as i32),
                    b.lo,
                    b.mean,
                    b.hi,
                    BLACK.filled().stroke_width(2),
                    12,
                )
            }))
            .map_err(e)?;
        Ok(())
    }
}

/// Time-series charts of replication 0 of the set of `m`, into `dir`.
pub fn plot_series(
    dir: &Path,
    m: &Metrics<'_>,
    formats: &[PlotFormat],
) -> Result<Vec<PathBuf>, AnalysisError> {
    render_series(dir, charts_from_runs(m), formats)
}

/// Time-series charts from a `series` table (lowest replication), into `dir`.
pub fn plot_series_table(
    dir: &Path,
    series: &DataFrame,
    formats: &[PlotFormat],
) -> Result<Vec<PathBuf>, AnalysisError> {
    render_series(dir, charts_from_table(series)?, formats)
}

fn render_series(
    dir: &Path,
    mut charts: Vec<SeriesChart>,
    formats: &[PlotFormat],
) -> Result<Vec<PathBuf>, AnalysisError> {
    tidy(&mut charts);
    let mut out = Vec::new();
    for c in charts
        .iter()
        .filter(|c| c.lines.iter().any(|l| !l.points.is_empty()))
    {
        out.extend(render(dir, &c.file_stem(), formats, c)?);
    }
    Ok(out)
}

/// Summary charts into `dir`: `summary_goodput` (mean goodput per flow of each group,
/// Mb/s) and `summary_utilisation` (each notable link, %), with 95 %
/// CI whiskers. A chart with nothing to show is skipped.
pub fn plot_summary(
    dir: &Path,
    bars: SummaryBars,
    formats: &[PlotFormat],
) -> Result<Vec<PathBuf>, AnalysisError> {
    let charts = [
        (
            "summary_goodput",
            BarChart {
                title: "Goodput per flow by group (mean, 95% CI)".into(),
                ydesc: "goodput per flow (Mb/s)".into(),
                ymin_top: 0.0,
                bars: bars.groups,
            },
        ),
        (
            "summary_utilisation",
            BarChart {
                title: "Link utilisation (mean, 95% CI)".into(),
                ydesc: "utilisation (%)".into(),
                ymin_top: 100.0,
                bars: bars.links,
            },
        ),
    ];
    let mut out = Vec::new();
    for (stem, chart) in charts.iter().filter(|(_, c)| !c.bars.is_empty()) {
        out.extend(render(dir, stem, formats, chart)?);
    }
    Ok(out)
}

/// Every chart (PNG and SVG) of a finished run set, into `dir` next to its tables.
pub fn plot_all(dir: &Path, m: &Metrics<'_>) -> Result<Vec<PathBuf>, AnalysisError> {
    let mut out = plot_series(dir, m, &PlotFormat::ALL)?;
    out.extend(plot_summary(
        dir,
        SummaryBars::from_metrics(m),
        &PlotFormat::ALL,
    )?);
    Ok(out)
}

/// Every chart (PNG and SVG) from the tables a run wrote into `dir` (`series` and
/// `summary`, Parquet or CSV), into `dir` as [`plot_all`] would have.
pub fn plot_dir(dir: &Path) -> Result<Vec<PathBuf>, AnalysisError> {
    let summary = find_table(dir, "summary").ok_or_else(|| AnalysisError::Input {
        path: dir.to_path_buf(),
        msg: "no summary.parquet or summary.csv here: is this a `netsim run` output directory?"
            .into(),
    })?;
    let mut out = Vec::new();
    if let Some(series) = find_table(dir, "series") {
        out.extend(plot_series_table(
            dir,
            &read_table(&series)?,
            &PlotFormat::ALL,
        )?);
    }
    let rows = rows_from_table(&read_table(&summary)?)?;
    out.extend(plot_summary(
        dir,
        SummaryBars::from_rows(&rows),
        &PlotFormat::ALL,
    )?);
    Ok(out)
}

#[cfg(test)]
mod tests;
