//! Time-series charts: the mean across replications with a 95 % confidence
//! band, or one replication on request.
//!
//! - One chart per (subject kind, metric): `series_flow_cwnd_bytes`,
//!   `series_link_queue_pkts`, ...
//! - Lines: one per flow, labelled by its group (`tcp f0`), while a chart has
//!   at most [`MAX_LINES`] flows; beyond that one per group, the mean over the
//!   group's flows (`tcp (mean of 40 flows)`). One per link, at most
//!   [`MAX_LINES`] (the busiest by mean value). Subjects that are zero
//!   throughout are left out when another is not (a dumbbell's idle access
//!   links); the caption says how many.
//! - At each sample time a line is the mean over the replications that have
//!   a sample there, and the band its Student-t 95 % interval across them
//!   (n - 1 degrees of freedom). A group line averages the group's flows
//!   within each replication first. With one replication (or
//!   [`SeriesOptions::replication`]) the line is that replication's samples.
//! - The warm-up is shaded grey and labelled.
//! - Lines with many points are thinned to [`MAX_POINTS`]: a single
//!   replication keeps each bucket's minimum and maximum (every spike), a mean
//!   keeps each bucket's average with the band's extremes.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{colour, dash, fmt_tick, legend_segments, marker};
use super::{Chart, FONT, MAX_POINTS};
use crate::stats::t_quantile;

/// Most lines on one time-series chart.
pub const MAX_LINES: usize = 8;

/// What the time-series charts show beyond the data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeriesOptions {
    /// End of the warm-up in seconds, shaded on every chart (`None`: not marked).
    pub warmup_s: Option<f64>,
    /// Draw this replication alone instead of the mean across replications.
    pub replication: Option<u32>,
}

/// One sample of one subject, as the `series` table holds it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample<'a> {
    pub rep: u32,
    pub time: f64,
    pub kind: &'a str,
    pub subject: &'a str,
    pub group: Option<&'a str>,
    pub metric: &'a str,
    pub value: f64,
}

/// One subject's samples, every replication.
pub(super) struct SubjectData {
    pub(super) name: String,
    pub(super) group: Option<String>,
    /// `(replication, time, value)` in arrival order.
    pub(super) points: Vec<(u32, f64, f64)>,
}

/// One chart's subjects, before lines are chosen.
pub(super) struct ChartData {
    pub(super) kind: String,
    pub(super) metric: String,
    pub(super) subjects: Vec<SubjectData>,
    index: HashMap<String, usize>,
}

/// Samples gathered into charts.
#[derive(Default)]
pub(crate) struct Collect {
    charts: Vec<ChartData>,
    reps: BTreeSet<u32>,
    only: Option<u32>,
}

impl Collect {
    /// A collector keeping replication `only` (every replication: `None`).
    pub(crate) fn new(only: Option<u32>) -> Self {
        Collect {
            only,
            ..Collect::default()
        }
    }

    /// Add one sample (non-finite ones are skipped).
    pub(crate) fn push(&mut self, s: Sample<'_>) {
        if self.only.is_some_and(|r| r != s.rep) {
            return;
        }
        self.reps.insert(s.rep);
        // A handful of (kind, metric) charts: a scan is cheapest.
        let ci = match self
            .charts
            .iter()
            .position(|c| c.kind == s.kind && c.metric == s.metric)
        {
            Some(i) => i,
            None => {
                self.charts.push(ChartData {
                    kind: s.kind.into(),
                    metric: s.metric.into(),
                    subjects: Vec::new(),
                    index: HashMap::new(),
                });
                self.charts.len() - 1
            }
        };
        let c = &mut self.charts[ci];
        let si = match c.index.get(s.subject) {
            Some(&i) => i,
            None => {
                c.subjects.push(SubjectData {
                    name: s.subject.into(),
                    group: s.group.map(str::to_string),
                    points: Vec::new(),
                });
                c.index.insert(s.subject.to_string(), c.subjects.len() - 1);
                c.subjects.len() - 1
            }
        };
        if s.time.is_finite() && s.value.is_finite() {
            c.subjects[si].points.push((s.rep, s.time, s.value));
        }
    }

    /// The finished charts: the time series, then the histograms of the
    /// metrics that have one ([`super::hist`]).
    pub(crate) fn finish(self, opts: &SeriesOptions) -> Vec<SeriesChart> {
        let reps = self.reps.len();
        let hists: Vec<SeriesChart> = self
            .charts
            .iter()
            .filter_map(|c| super::hist::histogram(c, reps, opts))
            .collect();
        self.charts
            .into_iter()
            .map(|c| chart(c, reps, opts))
            .chain(hists)
            .filter(|c| c.lines.iter().any(|l| !l.points.is_empty()))
            .collect()
    }
}

/// One line: `(time, mean, lo, hi)`; `lo`/`hi` are NaN without an interval.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Line {
    pub label: String,
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// One time-series chart, or a histogram drawn the same way, ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SeriesChart {
    /// `"series"` (x: time) or `"hist"` (x: the value), the file's prefix.
    pub prefix: &'static str,
    pub kind: String,
    pub metric: String,
    pub title: String,
    pub xdesc: String,
    pub ydesc: String,
    pub lines: Vec<Line>,
    pub warmup_s: Option<f64>,
}

impl SeriesChart {
    /// `<prefix>_<kind>_<metric>`: `series_link_queue_pkts`.
    pub(crate) fn file_stem(&self) -> String {
        format!(
            "{}_{}_{}",
            self.prefix,
            super::safe(&self.kind),
            super::safe(&self.metric)
        )
    }
}

/// The flow id in a subject name (`f12` -> 12), for ordering.
pub(super) fn flow_number(s: &str) -> u64 {
    s.strip_prefix('f')
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX)
}

/// `(time, mean, lo, hi)` of a line.
type Point = (f64, f64, f64, f64);

/// Per time: the replications' values, in time order.
type ByTime = BTreeMap<u64, Vec<f64>>;

/// `(time, mean, lo, hi)` per time from the values of each replication, the
/// interval clipped to `bounds` (the metric's possible values, base units:
/// [`super::base_domain`]), then scaled by `k`.
fn reduce(by_time: ByTime, k: f64, bounds: (f64, f64)) -> Vec<(f64, f64, f64, f64)> {
    by_time
        .into_iter()
        .map(|(t, vs)| {
            let n = vs.len();
            let mean = vs.iter().sum::<f64>() / n as f64;
            let (lo, hi) = if n >= 2 {
                let var = vs.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
                let h = t_quantile(0.95, n - 1) * (var / n as f64).sqrt();
                ((mean - h).max(bounds.0), (mean + h).min(bounds.1))
            } else {
                (f64::NAN, f64::NAN)
            };
            (f64::from_bits(t), mean * k, lo * k, hi * k)
        })
        .collect()
}

/// The per-time values of `subjects` taken together: within a replication
/// the mean over the subjects sampled at that time.
fn merge(subjects: &[&SubjectData]) -> ByTime {
    let mut acc: BTreeMap<(u64, u32), (f64, usize)> = BTreeMap::new();
    for s in subjects {
        for &(rep, t, v) in &s.points {
            // Times are non-negative: their bit patterns sort like the values.
            let e = acc.entry((t.max(0.0).to_bits(), rep)).or_default();
            e.0 += v;
            e.1 += 1;
        }
    }
    let mut out = ByTime::new();
    for ((t, _), (sum, n)) in acc {
        out.entry(t).or_default().push(sum / n as f64);
    }
    out
}

/// Words and unit for a series metric: `(name, axis description, scale)`.
pub(super) fn describe(kind: &str, metric: &str) -> (String, String, f64) {
    let (name, unit, k) = match (kind, metric) {
        (_, "cwnd_bytes") => ("Congestion window", "kB", 1e-3),
        ("flow", "rate_bps") => ("Sending rate", "Mb/s", 1e-6),
        ("link", "rate_bps") => ("Departure rate", "Mb/s", 1e-6),
        (_, "rate_avg_bps") => ("Average sending rate", "Mb/s", 1e-6),
        (_, "throughput_bps") => ("Throughput", "Mb/s", 1e-6),
        (_, "arrival_bps") => ("Arrival rate", "Mb/s", 1e-6),
        (_, "srtt_s") => ("Smoothed RTT", "ms", 1e3),
        (_, "queue_pkts") => ("Queue length", "packets", 1.0),
        (_, "queue_bytes") => ("Queue length", "kB", 1e-3),
        (_, "loss_frac") => ("Loss rate", "%", 100.0),
        (_, "utilisation") => ("Utilisation", "%", 100.0),
        (_, "p_on") => ("PCC p_ON (last experiment)", "probability", 1.0),
        (_, "on") => ("PCC on (1) or off (0)", "state", 1.0),
        (_, "r_tcp_bps") => ("PCC r_TCP estimate", "Mb/s", 1e-6),
        (_, "r_eff_bps") => ("PCC effective rate r_EFF", "Mb/s", 1e-6),
        _ => {
            let (desc, k) = super::axis(metric);
            let mut name = desc.clone();
            if let Some(c) = name.get(..1) {
                name = c.to_uppercase() + &name[1..];
            }
            return (name, desc, k);
        }
    };
    (name.to_string(), format!("{name} ({unit})"), k)
}

/// Lines, title and axis of one chart.
fn chart(c: ChartData, reps: usize, opts: &SeriesOptions) -> SeriesChart {
    let (name, ydesc, k) = describe(&c.kind, &c.metric);
    let bounds = super::base_domain(&c.metric);
    let zero = |s: &SubjectData| s.points.iter().all(|p| p.2 == 0.0);
    let mut subjects: Vec<&SubjectData> = c.subjects.iter().collect();
    if subjects.iter().any(|s| !zero(s)) {
        subjects.retain(|s| !zero(s));
    }
    let mut hidden = c.subjects.len() - subjects.len();
    let mut lines = Vec::new();
    let one = |s: &SubjectData| -> ByTime { merge(&[s]) };
    if c.kind == "flow" {
        subjects.sort_by_key(|s| flow_number(&s.name));
        if subjects.len() <= MAX_LINES {
            for s in &subjects {
                let label = match &s.group {
                    Some(g) if !g.is_empty() => format!("{g} {}", s.name),
                    _ => s.name.clone(),
                };
                lines.push(Line {
                    label,
                    points: reduce(one(s), k, bounds),
                });
            }
        } else {
            // One line per group, in order of the group's first flow.
            let groups = by_group(&subjects);
            hidden += groups
                .iter()
                .skip(MAX_LINES)
                .map(|g| g.1.len())
                .sum::<usize>();
            for (g, members) in groups.into_iter().take(MAX_LINES) {
                let label = match members.len() {
                    1 => format!("{g} {}", members[0].name),
                    n => format!("{g} (mean of {n} flows)"),
                };
                lines.push(Line {
                    label,
                    points: reduce(merge(&members), k, bounds),
                });
            }
        }
    } else {
        hidden += busiest_links(&mut subjects);
        for s in &subjects {
            lines.push(Line {
                label: s.name.clone(),
                points: reduce(one(s), k, bounds),
            });
        }
    }
    let what = match (&c.kind[..], lines.len()) {
        ("link", 1) => format!("{name} at {}", lines[0].label),
        ("link", _) => format!("{name} per link"),
        _ => format!("{name} per flow"),
    };
    let unit = ydesc
        .rsplit_once(" (")
        .map(|(_, u)| format!(" ({u}"))
        .unwrap_or_default();
    let mut title = format!("{what}{unit}");
    let mut notes = Vec::new();
    match (opts.replication, reps) {
        (Some(r), _) => notes.push(format!("replication {r}")),
        (None, 0 | 1) => notes.push("1 replication".to_string()),
        (None, n) => notes.push(format!("mean of {n} replications, 95% CI")),
    }
    if hidden > 0 {
        let what = if c.kind == "link" { "links" } else { "flows" };
        notes.push(format!("{hidden} {what} not drawn"));
    }
    title.push_str(&format!(" — {}", notes.join("; ")));
    SeriesChart {
        prefix: "series",
        kind: c.kind,
        metric: c.metric,
        title,
        xdesc: "time (s)".to_string(),
        ydesc,
        lines,
        warmup_s: opts.warmup_s.filter(|w| *w > 0.0),
    }
}

/// Flows (in the order given) gathered by their group, the groups in the
/// order of their first flow.
pub(super) fn by_group<'a>(flows: &[&'a SubjectData]) -> Vec<(String, Vec<&'a SubjectData>)> {
    let mut groups: Vec<(String, Vec<&SubjectData>)> = Vec::new();
    for s in flows {
        let g = s.group.clone().unwrap_or_default();
        match groups.iter_mut().find(|(n, _)| *n == g) {
            Some((_, v)) => v.push(*s),
            None => groups.push((g, vec![*s])),
        }
    }
    groups
}

/// Keep the links a chart draws, in their order: not those whose mean is
/// below 2 % of the busiest link's (a dumbbell's access links beside its
/// bottleneck would only draw a line along zero), and at most
/// [`MAX_LINES`], the busiest by mean value. Returns how many it left out.
pub(super) fn busiest_links(subjects: &mut Vec<&SubjectData>) -> usize {
    let mean =
        |s: &SubjectData| s.points.iter().map(|p| p.2).sum::<f64>() / s.points.len().max(1) as f64;
    let top = subjects.iter().map(|s| mean(s)).fold(0.0, f64::max);
    let before = subjects.len();
    subjects.retain(|s| mean(s) >= 0.02 * top);
    if subjects.len() > MAX_LINES {
        let mut order: Vec<usize> = (0..subjects.len()).collect();
        order.sort_by(|&a, &b| mean(subjects[b]).total_cmp(&mean(subjects[a])));
        let keep: BTreeSet<usize> = order.into_iter().take(MAX_LINES).collect();
        *subjects = keep.into_iter().map(|i| subjects[i]).collect();
    }
    before - subjects.len()
}

/// At most [`MAX_POINTS`] points. Without a band: the minimum and maximum of
/// equal-count buckets, in time order. With one: each bucket's mean and the
/// extremes of its band.
pub(crate) fn thin(points: &[(f64, f64, f64, f64)]) -> Vec<(f64, f64, f64, f64)> {
    if points.len() <= MAX_POINTS {
        return points.to_vec();
    }
    let band = points.iter().any(|p| p.2.is_finite());
    let buckets = MAX_POINTS / 2;
    let mut out = Vec::with_capacity(MAX_POINTS);
    for b in 0..buckets {
        let lo = b * points.len() / buckets;
        let hi = ((b + 1) * points.len() / buckets).max(lo + 1);
        let chunk = &points[lo..hi];
        if band {
            let n = chunk.len() as f64;
            let t = chunk.iter().map(|p| p.0).sum::<f64>() / n;
            let m = chunk.iter().map(|p| p.1).sum::<f64>() / n;
            let l = chunk.iter().map(|p| p.2).fold(f64::INFINITY, f64::min);
            let h = chunk.iter().map(|p| p.3).fold(f64::NEG_INFINITY, f64::max);
            out.push((t, m, l, h));
            continue;
        }
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

/// Markers drawn per line (the line itself carries the data).
const MARKERS: usize = 10;

impl SeriesChart {
    /// The corner of the plot with the fewest points, for the legend.
    fn legend_corner(&self, x: (f64, f64), y: (f64, f64)) -> SeriesLabelPosition {
        let mut count = [0usize; 4];
        for l in &self.lines {
            for p in &l.points {
                let right = (p.0 - x.0) / (x.1 - x.0) > 0.45;
                let upper = (p.3.max(p.1) - y.0) / (y.1 - y.0) > 0.45;
                count[usize::from(!upper) * 2 + usize::from(!right)] += 1;
            }
        }
        if self.warmup_s.is_some() {
            // The upper left holds the warm-up label.
            count[1] = usize::MAX;
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
}

impl Chart for SeriesChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let lines: Vec<(&str, Vec<Point>)> = self
            .lines
            .iter()
            .map(|l| (l.label.as_str(), thin(&l.points)))
            .collect();
        let all = || lines.iter().flat_map(|(_, p)| p.iter());
        let (mut x0, mut x1) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
        // The axis is set by the means; a band (wide where few replications
        // agree, e.g. slow start) may reach half as far again, and is clipped.
        let (mut y0, ymean) = all()
            .map(|p| p.1)
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        let yband = all()
            .map(|p| p.3)
            .filter(|v| v.is_finite())
            .fold(f64::NEG_INFINITY, f64::max);
        let mut y1 = ymean.max(yband.min(1.5 * ymean));
        if !(x0.is_finite() && y0.is_finite()) {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        // Time starts at zero, so that the warm-up shows whole.
        x0 = x0.min(0.0);
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        // Rates, windows and queues are non-negative: start the axis at zero.
        y0 = y0.min(0.0);
        y1 = if y1 > y0 {
            y1 + 0.08 * (y1 - y0)
        } else {
            y0 + 1.0
        };
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 22))
            .margin(16)
            .margin_right(28)
            .x_label_area_size(56)
            .y_label_area_size(84)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(e)?;
        let fmt = |v: &f64| fmt_tick(*v);
        chart
            .configure_mesh()
            .x_desc(self.xdesc.as_str())
            .y_desc(self.ydesc.as_str())
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt)
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(215, 215, 215))
            .label_style((FONT, 16))
            .axis_desc_style((FONT, 18))
            .draw()
            .map_err(e)?;
        if let Some(w) = self.warmup_s.filter(|w| *w > x0) {
            let w = w.min(x1);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x0, y0), (w, y1)],
                    RGBColor(0, 0, 0).mix(0.08).filled(),
                )))
                .map_err(e)?;
            chart
                .draw_series(DashedLineSeries::new(
                    [(w, y0), (w, y1)],
                    6,
                    4,
                    RGBColor(90, 90, 90).stroke_width(1),
                ))
                .map_err(e)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    "warm-up",
                    (x0 + 0.02 * (x1 - x0), y1 - 0.02 * (y1 - y0)),
                    (FONT, 16).into_font().color(&RGBColor(70, 70, 70)),
                )))
                .map_err(e)?;
        }
        // Bands first, so that no band hides another line.
        for (i, (_, pts)) in lines.iter().enumerate() {
            if !pts.iter().any(|p| p.2.is_finite()) {
                continue;
            }
            let band = |p: &(f64, f64, f64, f64), up: bool| {
                let v = if up { p.3 } else { p.2 };
                (p.0, if v.is_finite() { v } else { p.1 }.clamp(y0, y1))
            };
            let mut poly: Vec<(f64, f64)> = pts.iter().map(|p| band(p, true)).collect();
            poly.extend(pts.iter().rev().map(|p| band(p, false)));
            chart
                .draw_series(std::iter::once(Polygon::new(
                    poly,
                    colour(i).mix(0.18).filled(),
                )))
                .map_err(e)?;
        }
        for (i, (label, pts)) in lines.iter().enumerate() {
            let c = colour(i);
            let style = c.stroke_width(2);
            let xy = pts.iter().map(|p| (p.0, p.1));
            match dash(i) {
                None => chart.draw_series(LineSeries::new(xy, style)),
                Some((d, g)) => chart.draw_series(DashedLineSeries::new(xy, d, g, style)),
            }
            .map_err(e)?;
            // Markers spread evenly, offset per line so that they do not stack.
            let n = pts.len();
            let step = (n / MARKERS).max(1);
            let offset = step * i / lines.len().max(1);
            let shape = marker(i);
            let m = shape.clone();
            chart
                .draw_series(
                    pts.iter().skip(offset).step_by(step).map(|p| {
                        EmptyElement::at((p.0, p.1)) + Polygon::new(m.clone(), c.filled())
                    }),
                )
                .map_err(e)?
                .label(*label)
                .legend(move |(x, y)| {
                    let [a, b, s] = legend_segments(i);
                    let seg = |(f, t): (i32, i32)| PathElement::new(vec![(f, 0), (t, 0)], style);
                    EmptyElement::at((x - 4, y))
                        + seg(a)
                        + seg(b)
                        + seg(s)
                        + Polygon::new(
                            shape
                                .iter()
                                .map(|&(px, py)| (px + 15, py))
                                .collect::<Vec<_>>(),
                            c.filled(),
                        )
                });
        }
        chart
            .configure_series_labels()
            .position(self.legend_corner((x0, x1), (y0, y1)))
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(120, 120, 120))
            .legend_area_size(40)
            .label_font((FONT, 16))
            .draw()
            .map_err(e)?;
        Ok(())
    }
}
