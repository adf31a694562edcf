//! `netsim collect`: a campaign's parts merged into tidy tables.
//!
//! - `summary`: point, one label column and one `<name>_value` column (base
//!   units; null for labels) per parameter, scope, subject, metric, n, mean, sd,
//!   ci95_half (95 % Student-t, n-1 degrees of freedom; null when n < 2);
//! - `metrics`: point, replication, the parameter columns, scope, subject,
//!   metric, value: every per-run value the summary is computed from;
//! - `runs`: point, replication, hash, seed, status, events, wall_s, error.
//!
//! Wall-clock metrics ([`WALL_CLOCK_METRICS`]) measure the machine, not the
//! network: they appear only in `runs`, so `summary` and `metrics` are identical
//! wherever and however the runs were executed (one machine, a Slurm array).
//! Rows follow point order, then replication order, then the order metrics first
//! appear; nothing depends on file-system or hash-map order.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use polars::prelude::{Column, DataFrame};

use super::{read_part, statuses, Manifest, RunFiles, RunKey, RunStatus};

use crate::error::AnalysisError;
use crate::metrics::WALL_CLOCK_METRICS;
use crate::read::read_table;
use crate::stats::Summary;
use crate::tables::{col, finite};
use crate::write::{remove_if_exists, write_frame, write_table, Format};

/// The collected tables, and the runs that were not done.
#[derive(Debug)]
pub struct Collected {
    /// Per point and metric: n, mean, sd, ci95_half.
    pub summary: DataFrame,
    /// Per run and metric: the value.
    pub metrics: DataFrame,
    /// Per run: status, events, wall time, error.
    pub runs: DataFrame,
    /// Runs that are not done, with their status.
    pub incomplete: Vec<(RunKey, RunStatus)>,
    /// The kept per-run tables (`[sweep] keep`): each table's name and its
    /// runs' files, by point, in point then replication order.
    pub kept: Vec<(String, Vec<(usize, PathBuf)>)>,
    /// The manifest, for the kept tables' parameter columns.
    manifest: Manifest,
}

impl Collected {
    /// The three tables with their file stems.
    pub fn named(&self) -> [(&'static str, &DataFrame); 3] {
        [
            ("summary", &self.summary),
            ("metrics", &self.metrics),
            ("runs", &self.runs),
        ]
    }
}

/// File stems `collect` writes (removed when a campaign changes): the
/// three tables and the kept per-run tables (`[sweep] keep`).
pub const COLLECTED: [&str; 5] = ["summary", "metrics", "runs", "flows", "series"];

/// Metric rows keyed by (scope, subject, metric), in first-seen order.
#[derive(Default)]
struct Ordered {
    index: HashMap<(String, String, String), usize>,
    keys: Vec<(String, String, String)>,
    values: Vec<Vec<f64>>,
}

impl Ordered {
    fn push(&mut self, key: (String, String, String), v: f64) {
        let i = *self.index.entry(key.clone()).or_insert_with(|| {
            self.keys.push(key);
            self.values.push(Vec::new());
            self.keys.len() - 1
        });
        self.values[i].push(v);
    }
}

/// Columns under construction: the point's parameter values repeated per row.
struct Builder<'a> {
    m: &'a Manifest,
    point: Vec<u32>,
    labels: Vec<Vec<String>>,
    values: Vec<Vec<Option<f64>>>,
}

impl<'a> Builder<'a> {
    fn new(m: &'a Manifest) -> Self {
        Builder {
            m,
            point: Vec::new(),
            labels: vec![Vec::new(); m.params.len()],
            values: vec![Vec::new(); m.params.len()],
        }
    }

    fn row(&mut self, p: usize) {
        let pt = &self.m.points[p];
        self.point.push(p as u32);
        for k in 0..self.m.params.len() {
            self.labels[k].push(pt.labels.get(k).cloned().unwrap_or_default());
            self.values[k].push(pt.values.get(k).copied().and_then(finite));
        }
    }

    /// `point` then the parameter columns.
    fn columns(mut self, extra_after_point: Vec<Column>) -> Vec<Column> {
        let mut cols = vec![col("point", self.point)];
        cols.extend(extra_after_point);
        for (k, p) in self.m.params.iter().enumerate() {
            cols.push(col(&p.name, std::mem::take(&mut self.labels[k])));
            cols.push(col(
                &format!("{}_value", p.name),
                std::mem::take(&mut self.values[k]),
            ));
        }
        cols
    }
}

/// Merge the parts of the campaign in `dir`. Unless `partial`, a run that is not
/// done is an error listing what is missing or failed; with `partial` the
/// summary covers the runs that are done and `n` says how many.
pub fn collect(dir: &Path, m: &Manifest, partial: bool) -> Result<Collected, AnalysisError> {
    let st = statuses(dir, m);
    let incomplete: Vec<(RunKey, RunStatus)> = st
        .iter()
        .filter(|(_, s)| *s != RunStatus::Done)
        .cloned()
        .collect();
    if !incomplete.is_empty() && !partial {
        return Err(AnalysisError::Input {
            path: dir.to_path_buf(),
            msg: incomplete_message(m, &incomplete, st.len()),
        });
    }
    let mut summary_b = Builder::new(m);
    let mut metrics_b = Builder::new(m);
    let (mut s_scope, mut s_subject, mut s_metric) = (Vec::new(), Vec::new(), Vec::new());
    let (mut s_n, mut s_mean, mut s_sd, mut s_half) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut m_rep = Vec::new();
    let (mut m_scope, mut m_subject, mut m_metric, mut m_value) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut runs = RunsCols::default();
    let mut kept: Vec<(String, Vec<(usize, PathBuf)>)> =
        m.keep.iter().map(|k| (k.clone(), Vec::new())).collect();
    let mut st_iter = st.into_iter();
    for (p, pt) in m.points.iter().enumerate() {
        let mut acc = Ordered::default();
        for r in 0..m.replications {
            let (_, status) = st_iter.next().expect("one status per run");
            let mut events = None;
            let mut wall = None;
            if status == RunStatus::Done {
                let files = RunFiles::new(dir, &pt.hash, r);
                for (name, list) in &mut kept {
                    let path = files.kept(name);
                    if !path.is_file() {
                        return Err(AnalysisError::Input {
                            path,
                            msg: format!(
                                "point {p} replication {r} kept no `{name}` table: \
                                 remove its part and run `netsim sweep` again"
                            ),
                        });
                    }
                    list.push((p, path));
                }
                for (scope, subject, metric, value) in read_part(&files.part)? {
                    if scope == "run" && metric == "events" {
                        events = Some(value as u64);
                    }
                    if scope == "run" && metric == "wall_s" {
                        wall = Some(value);
                    }
                    if scope == "run" && WALL_CLOCK_METRICS.contains(&metric.as_str()) {
                        continue;
                    }
                    metrics_b.row(p);
                    m_rep.push(r);
                    m_scope.push(scope.clone());
                    m_subject.push(subject.clone());
                    m_metric.push(metric.clone());
                    m_value.push(value);
                    acc.push((scope, subject, metric), value);
                }
            }
            runs.push(p, r, pt, &status, events, wall);
        }
        for (key, vals) in acc.keys.into_iter().zip(acc.values) {
            let s = Summary::new(&vals);
            summary_b.row(p);
            s_scope.push(key.0);
            s_subject.push(key.1);
            s_metric.push(key.2);
            s_n.push(s.n as u64);
            s_mean.push(s.mean);
            s_sd.push(finite(s.sd));
            s_half.push(finite(s.half_width));
        }
    }
    let table = |name: &str, height: usize, cols: Vec<Column>| {
        DataFrame::new(height, cols).map_err(|e| AnalysisError::table(name, e))
    };
    let s_height = s_n.len();
    let mut cols = summary_b.columns(Vec::new());
    cols.extend([
        col("scope", s_scope),
        col("subject", s_subject),
        col("metric", s_metric),
        col("n", s_n),
        col("mean", s_mean),
        col("sd", s_sd),
        col("ci95_half", s_half),
    ]);
    let summary = table("summary", s_height, cols)?;
    let m_height = m_value.len();
    let mut cols = metrics_b.columns(vec![col("replication", m_rep)]);
    cols.extend([
        col("scope", m_scope),
        col("subject", m_subject),
        col("metric", m_metric),
        col("value", m_value),
    ]);
    let metrics = table("metrics", m_height, cols)?;
    let runs = table("runs", runs.point.len(), runs.columns())?;
    Ok(Collected {
        summary,
        metrics,
        runs,
        incomplete,
        kept,
        manifest: m.clone(),
    })
}

#[derive(Default)]
struct RunsCols {
    point: Vec<u32>,
    rep: Vec<u32>,
    hash: Vec<String>,
    seed: Vec<u64>,
    status: Vec<&'static str>,
    events: Vec<Option<u64>>,
    wall: Vec<Option<f64>>,
    error: Vec<Option<String>>,
}

impl RunsCols {
    fn push(
        &mut self,
        p: usize,
        r: u32,
        pt: &super::ManifestPoint,
        status: &RunStatus,
        events: Option<u64>,
        wall: Option<f64>,
    ) {
        self.point.push(p as u32);
        self.rep.push(r);
        self.hash.push(pt.hash.clone());
        self.seed.push(pt.seed);
        self.status.push(status.word());
        self.events.push(events);
        self.wall.push(wall);
        self.error.push(match status {
            RunStatus::Failed(e) => Some(e.clone()),
            _ => None,
        });
    }

    fn columns(self) -> Vec<Column> {
        vec![
            col("point", self.point),
            col("replication", self.rep),
            col("hash", self.hash),
            col("seed", self.seed),
            col("status", self.status),
            col("events", self.events),
            col("wall_s", self.wall),
            col("error", self.error),
        ]
    }
}

/// "3 of 12 runs are not done (2 missing, 1 failed): point 1 (n=4) replication 0:
/// failed: ...". At most ten runs are listed.
pub fn incomplete_message(
    m: &Manifest,
    incomplete: &[(RunKey, RunStatus)],
    total: usize,
) -> String {
    let count = |w: &str| incomplete.iter().filter(|(_, s)| s.word() == w).count();
    let mut parts = Vec::new();
    for w in ["missing", "failed", "running"] {
        let c = count(w);
        if c > 0 {
            parts.push(format!("{c} {w}"));
        }
    }
    let mut msg = format!(
        "{} of {total} runs are not done ({})",
        incomplete.len(),
        parts.join(", ")
    );
    for (k, s) in incomplete.iter().take(10) {
        let pt = &m.points[k.point];
        let what = match s {
            RunStatus::Failed(e) => format!("failed: {}", e.lines().next().unwrap_or("")),
            other => other.word().to_string(),
        };
        msg.push_str(&format!(
            "\n  point {} ({}) replication {}: {what}",
            k.point,
            m.describe(pt),
            k.replication
        ));
    }
    if incomplete.len() > 10 {
        msg.push_str(&format!("\n  ... and {} more", incomplete.len() - 10));
    }
    msg.push_str(
        "\nrun `netsim sweep` again to finish them (it skips finished runs), \
         or collect what exists with --partial",
    );
    msg
}

/// Write the collected tables into `dir`; returns the files written.
pub fn write_collected(
    dir: &Path,
    c: &Collected,
    format: Format,
) -> Result<Vec<PathBuf>, AnalysisError> {
    let mut out = Vec::new();
    for (name, df) in c.named() {
        let path = dir.join(format!("{name}.{}", format.extension()));
        write_frame(&path, df, format)?;
        out.push(path);
    }
    for (name, files) in &c.kept {
        let path = dir.join(format!("{name}.{}", format.extension()));
        write_table(&path, format, |sink| {
            for (p, file) in files {
                let df = read_table(file).map_err(|e| {
                    polars::prelude::PolarsError::ComputeError(e.to_string().into())
                })?;
                sink(with_point(df, &c.manifest, *p)?)?;
            }
            Ok(())
        })?;
        out.push(path);
    }
    Ok(out)
}

/// `df` (one run's kept table) with the point's index and parameter
/// columns (label and `<name>_value`, as the summary's) after its
/// `scenario` column.
fn with_point(
    mut df: DataFrame,
    m: &Manifest,
    p: usize,
) -> polars::prelude::PolarsResult<DataFrame> {
    use polars::prelude::{AnyValue, DataType, Scalar};
    let n = df.height();
    let pt = &m.points[p];
    let at = usize::from(df.get_column_index("scenario").is_some());
    let mut cols = vec![Column::new_scalar(
        "point".into(),
        Scalar::new(DataType::UInt32, AnyValue::UInt32(p as u32)),
        n,
    )];
    for (k, param) in m.params.iter().enumerate() {
        let label = pt.labels.get(k).cloned().unwrap_or_default();
        cols.push(Column::new_scalar(
            param.name.as_str().into(),
            Scalar::new(DataType::String, AnyValue::StringOwned(label.into())),
            n,
        ));
        let value = pt.values.get(k).copied().and_then(finite);
        cols.push(Column::new_scalar(
            format!("{}_value", param.name).into(),
            Scalar::new(
                DataType::Float64,
                value.map_or(AnyValue::Null, AnyValue::Float64),
            ),
            n,
        ));
    }
    for (i, c) in cols.into_iter().enumerate() {
        df.insert_column(at + i, c)?;
    }
    Ok(df)
}

/// Remove collected tables (both formats) from `dir`: they describe an earlier
/// state of the campaign once it is changed or extended.
pub fn remove_collected(dir: &Path) -> Result<(), AnalysisError> {
    for name in COLLECTED {
        for f in [Format::Parquet, Format::Csv] {
            remove_if_exists(&dir.join(format!("{name}.{}", f.extension())))?;
        }
    }
    Ok(())
}
