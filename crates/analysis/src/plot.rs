//! Charts: time series (mean across replications with a 95 % band) and
//! summary bars with CI whiskers.
//!
//! - One time-series chart per (subject kind, metric): `series_flow_cwnd_bytes`,
//!   `series_link_queue_pkts`, ...: see [`series`] for the lines, the band, the
//!   warm-up shading and [`SeriesOptions`].
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
use crate::metrics::{flow_of, notable, LinkLoad, Metrics, Scope};
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
/// The font family every text element uses.
pub(crate) const FONT: &str = "sans-serif";

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
    } else if metric == "utilisation" {
        // One unit per quantity: utilisation is a percentage on every chart
        // (the tables keep the fraction).
        return ("utilisation (%)".to_string(), 100.0);
    } else {
        return (metric.replace('_', " "), 1.0);
    };
    (format!("{} ({unit})", name.replace('_', " ")), k)
}

/// The values a metric can take, in the axis units of [`axis`]: a fraction
/// or probability in [0, 1] (utilisation in [0, 100] %), a rate, time, size,
/// packet count or event count at least 0, anything else unbounded. An
/// interval is drawn clipped to it (a Student-t interval of two replications
/// at 86 +- 58 % utilisation does not reach 144 %).
pub(crate) fn domain(metric: &str) -> (f64, f64) {
    let (_, k) = axis(metric);
    let (lo, hi) = base_domain(metric);
    (lo * k, hi * k)
}

/// [`domain`] in the tables' base units (fractions in [0, 1]).
pub(crate) fn base_domain(metric: &str) -> (f64, f64) {
    let fraction = metric == "utilisation"
        || metric == "jain"
        || metric.ends_with("_frac")
        || metric.ends_with("_prob");
    if fraction {
        return (0.0, 1.0);
    }
    let counted = ["_bps", "_s", "_bytes", "_pkts"]
        .iter()
        .any(|u| metric.ends_with(u))
        || matches!(
            metric,
            "flows"
                | "active_flows"
                | "active_flows_mean"
                | "timeouts"
                | "reductions"
                | "fast_retransmits"
                | "ecn_waits"
                | "pages"
                | "events"
        );
    if counted && metric != "overshoot" {
        (0.0, f64::INFINITY)
    } else {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
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
        let fill = style::colour(0).mix(0.55).filled();
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

/// Time-series charts of the set of `m` (see [`series`]), into `dir`.
pub fn plot_series(
    dir: &Path,
    m: &Metrics<'_>,
    formats: &[PlotFormat],
    opts: &SeriesOptions,
) -> Result<Vec<PathBuf>, AnalysisError> {
    let mut c = Collect::new(opts.replication);
    let labels = Labels::new(m);
    for run in &m.set().runs {
        for p in &run.series {
            let (kind, subject, group) = match p.subject {
                Subject::Flow(f) => (
                    "flow",
                    labels
                        .flows
                        .get(f.index())
                        .map_or_else(|| Cow::Owned(f.to_string()), |s| Cow::Borrowed(s.as_str())),
                    flow_of(run, f).map(|fr| labels.group(fr.group)),
                ),
                Subject::Link(l) => ("link", labels.link(l), None),
            };
            c.push(Sample {
                rep: run.replication,
                time: p.time,
                kind,
                subject: &subject,
                group,
                metric: p.metric,
                value: p.value,
            });
        }
    }
    render_series(dir, c.finish(opts), formats)
}

/// Time-series charts from a `series` table (see [`series`]), into `dir`.
pub fn plot_series_table(
    dir: &Path,
    df: &DataFrame,
    formats: &[PlotFormat],
    opts: &SeriesOptions,
) -> Result<Vec<PathBuf>, AnalysisError> {
    let rep = floats(df, "replication")?;
    let time = floats(df, "time_s")?;
    let value = floats(df, "value")?;
    let kind = strings(df, "subject_kind")?;
    let subject = strings(df, "subject")?;
    let metric = strings(df, "metric")?;
    // Tables written before the group column existed have none.
    let group = strings(df, "group").ok();
    let mut c = Collect::new(opts.replication);
    for i in 0..df.height() {
        c.push(Sample {
            rep: rep[i] as u32,
            time: time[i],
            kind: &kind[i],
            subject: &subject[i],
            group: group
                .as_ref()
                .map(|g| g[i].as_str())
                .filter(|g| !g.is_empty()),
            metric: &metric[i],
            value: value[i],
        });
    }
    render_series(dir, c.finish(opts), formats)
}

fn render_series(
    dir: &Path,
    charts: Vec<SeriesChart>,
    formats: &[PlotFormat],
) -> Result<Vec<PathBuf>, AnalysisError> {
    let mut out = Vec::new();
    for c in &charts {
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
pub fn plot_all(
    dir: &Path,
    m: &Metrics<'_>,
    opts: &SeriesOptions,
) -> Result<Vec<PathBuf>, AnalysisError> {
    let mut out = plot_series(dir, m, &PlotFormat::ALL, opts)?;
    out.extend(plot_summary(
        dir,
        SummaryBars::from_metrics(m),
        &PlotFormat::ALL,
    )?);
    Ok(out)
}

/// Every chart (PNG and SVG) from the tables a run wrote into `dir` (`series` and
/// `summary`, Parquet or CSV), into `dir` as [`plot_all`] would have.
pub fn plot_dir(dir: &Path, opts: &SeriesOptions) -> Result<Vec<PathBuf>, AnalysisError> {
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
            opts,
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

pub(crate) mod hist;
pub mod series;
pub(crate) mod style;

pub use series::SeriesOptions;
use series::{Collect, Sample, SeriesChart};

#[cfg(test)]
mod tests;
