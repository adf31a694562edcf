//! The campaign store: where `netsim sweep` keeps a campaign's results.
//!
//! ```text
//! DIR/
//!   scenario.toml           the scenario text the campaign was expanded from
//!   manifest.toml           netsim version, parameters, points, hashes and seeds
//!   parts/<hash>-r<rep>.parquet   one finished run: scope, subject, metric, value
//!   parts/<hash>-r<rep>.failed    a run that failed: its error text
//!   parts/<hash>-r<rep>.started   a run in progress: host, pid, start time
//!   summary.*, metrics.*, runs.*  written by `netsim collect`
//! ```
//!
//! A run's files are named by the content hash of its resolved point and its
//! replication index, so a part is valid for any campaign containing that point:
//! re-running skips it, a changed replication count or an extended range reuses
//! what exists, and several machines can fill one store (Slurm array tasks on a
//! shared file system) without coordination. Every file is written atomically
//! ([`crate::write_atomic`]): a part either exists complete or not at all. A
//! `.started` marker whose process is gone, with no part and no `.failed` record,
//! is a run that was killed; [`RunStatus`] reports it as such.

pub mod collect;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use polars::prelude::{DataFrame, PolarsResult};
use serde::{Deserialize, Serialize};

use crate::error::AnalysisError;
use crate::metrics::{Metrics, Scope};
use crate::read::{floats, read_table, strings};
use crate::tables::{col, whole, Sink, BATCH_ROWS};
use crate::write::{remove_if_exists, write_atomic, write_table, Format};

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.toml";
/// The scenario copy's file name.
pub const SCENARIO: &str = "scenario.toml";
/// The directory of result parts.
pub const PARTS: &str = "parts";

/// What a campaign is: everything `collect` and `plot` need without re-reading
/// the scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Version of netsim that wrote it.
    pub netsim_version: String,
    /// Campaign (scenario) name.
    pub name: String,
    /// SHA-256 of the scenario text.
    pub source_hash: String,
    /// Replications per point.
    pub replications: u32,
    /// `"common"` or `"independent"`.
    pub seeds: String,
    /// The swept parameters, in order.
    #[serde(default, rename = "param")]
    pub params: Vec<ManifestParam>,
    /// The points, in order.
    #[serde(default, rename = "point")]
    pub points: Vec<ManifestPoint>,
    /// The per-run tables each run keeps beside its metrics (`flows`,
    /// `series`: `[sweep] keep`), collected with the point's parameters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keep: Vec<String>,
}

/// A swept parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestParam {
    /// Column name.
    pub name: String,
    /// Key path in the scenario.
    pub key: String,
    /// Unit family (`number`, `rate`, `duration`, `bytes`, `packets`, `label`).
    pub family: String,
    /// Base unit of the numeric values (`bps`, `s`, `B`, `pkt`, or empty).
    pub unit: String,
    /// `true` for a log range (plots use a log axis).
    #[serde(default)]
    pub log: bool,
}

/// A point of the campaign.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestPoint {
    /// Index (0-based).
    pub index: usize,
    /// Content hash of the resolved scenario.
    pub hash: String,
    /// Master seed.
    pub seed: u64,
    /// Relative cost estimate.
    pub cost: f64,
    /// Each parameter's value as written (`10Mbps`).
    pub labels: Vec<String>,
    /// Each parameter's value in base units (NaN for a label).
    pub values: Vec<f64>,
}

impl Manifest {
    /// Read `DIR/manifest.toml`.
    pub fn read(dir: &Path) -> Result<Manifest, AnalysisError> {
        let path = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| AnalysisError::io("cannot read campaign manifest", &path, e))?;
        toml::from_str(&text).map_err(|e| AnalysisError::Input {
            path,
            msg: format!("not a campaign manifest: {e}"),
        })
    }

    /// Write `DIR/manifest.toml` atomically.
    pub fn write(&self, dir: &Path) -> Result<(), AnalysisError> {
        let path = dir.join(MANIFEST);
        let text = toml::to_string(self).map_err(|e| AnalysisError::Input {
            path: path.clone(),
            msg: format!("cannot encode the manifest: {e}"),
        })?;
        write_atomic(&path, text.as_bytes())
    }

    /// Total runs (points times replications).
    pub fn runs(&self) -> usize {
        self.points.len() * self.replications as usize
    }

    /// `n=4, buf=20pkt` for point `p`.
    pub fn describe(&self, p: &ManifestPoint) -> String {
        self.params
            .iter()
            .zip(&p.labels)
            .map(|(k, v)| format!("{}={v}", k.name))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Whether `dir` holds a campaign.
pub fn is_campaign(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file()
}

/// One run: a point and a replication.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunKey {
    /// Point index.
    pub point: usize,
    /// Replication index.
    pub replication: u32,
}

/// The paths of one run's files.
#[derive(Clone, Debug)]
pub struct RunFiles {
    /// The finished result.
    pub part: PathBuf,
    /// The failure record.
    pub failed: PathBuf,
    /// The in-progress marker.
    pub started: PathBuf,
}

impl RunFiles {
    /// The files of replication `rep` of the point with `hash` in store `dir`.
    pub fn new(dir: &Path, hash: &str, rep: u32) -> RunFiles {
        let stem = dir.join(PARTS).join(format!("{hash}-r{rep}"));
        RunFiles {
            part: stem.with_extension("parquet"),
            failed: stem.with_extension("failed"),
            started: stem.with_extension("started"),
        }
    }

    /// Mark the run as started by this process (host, pid, time).
    pub fn mark_started(&self) -> Result<(), AnalysisError> {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let text = format!("{} {} {secs}\n", host_name(), std::process::id());
        write_atomic(&self.started, text.as_bytes())
    }

    /// Where the run keeps its table `name` (`[sweep] keep`).
    pub fn kept(&self, name: &str) -> PathBuf {
        self.part.with_extension(format!("{name}.parquet"))
    }

    /// Write the tables `keep` names (`flows`, `series`) of replication
    /// `rep` of `m` beside the part; before [`RunFiles::write_part`], whose
    /// file marks the run done. A table with no rows (a run without series)
    /// is written empty, so that collection finds every run's file.
    pub fn write_kept(&self, m: &Metrics<'_>, keep: &[String]) -> Result<(), AnalysisError> {
        for name in keep {
            let path = self.kept(name);
            match name.as_str() {
                "flows" => write_table(&path, Format::Parquet, |s| {
                    crate::tables::flows_batches(m, s)
                })?,
                "series" => write_table(&path, Format::Parquet, |s| {
                    crate::tables::series_batches(m, s)
                })?,
                other => {
                    return Err(AnalysisError::Input {
                        path,
                        msg: format!("`{other}` is not a table a campaign can keep"),
                    })
                }
            }
        }
        Ok(())
    }

    /// Record the result of replication `rep` of `m` (removing any failure
    /// record, then the marker).
    pub fn write_part(&self, m: &Metrics<'_>, rep: usize) -> Result<(), AnalysisError> {
        write_table(&self.part, Format::Parquet, |s| part_batches(m, rep, s))?;
        remove_if_exists(&self.failed)?;
        remove_if_exists(&self.started)
    }

    /// Record the run as failed with `error` (then remove the marker).
    pub fn write_failed(&self, error: &str) -> Result<(), AnalysisError> {
        write_atomic(&self.failed, format!("{}\n", error.trim_end()).as_bytes())?;
        remove_if_exists(&self.started)
    }

    /// Remove a failure record or marker left beside a finished part (by a
    /// kill between writing the part and removing them): the run is done.
    pub fn clear_stale(&self) -> Result<(), AnalysisError> {
        if self.part.is_file() {
            remove_if_exists(&self.failed)?;
            remove_if_exists(&self.started)?;
        }
        Ok(())
    }

    /// The run's state on disk.
    pub fn status(&self) -> RunStatus {
        if self.part.is_file() {
            return RunStatus::Done;
        }
        if let Ok(text) = std::fs::read_to_string(&self.failed) {
            return RunStatus::Failed(text.trim_end().to_string());
        }
        match std::fs::read_to_string(&self.started) {
            Ok(text) => {
                let mut it = text.split_whitespace();
                let host = it.next().unwrap_or("?").to_string();
                let pid: u32 = it.next().and_then(|p| p.parse().ok()).unwrap_or(0);
                if host == host_name() && pid != 0 && !process_alive(pid) {
                    RunStatus::Failed(format!(
                        "killed: started by process {pid} on {host}, which ended without a result"
                    ))
                } else {
                    RunStatus::Running { host, pid }
                }
            }
            Err(_) => RunStatus::Missing,
        }
    }
}

/// The state of one run in a store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Its part exists.
    Done,
    /// It failed (or was killed) with this error.
    Failed(String),
    /// A live process (or one on another host) has started it.
    Running {
        /// Host name of the process.
        host: String,
        /// Its process id.
        pid: u32,
    },
    /// Never started.
    Missing,
}

impl RunStatus {
    /// `done`, `failed`, `running` or `missing`.
    pub fn word(&self) -> &'static str {
        match self {
            RunStatus::Done => "done",
            RunStatus::Failed(_) => "failed",
            RunStatus::Running { .. } => "running",
            RunStatus::Missing => "missing",
        }
    }
}

/// The status of every run of `m` in `dir`, in (point, replication) order.
pub fn statuses(dir: &Path, m: &Manifest) -> Vec<(RunKey, RunStatus)> {
    let mut out = Vec::with_capacity(m.runs());
    for p in &m.points {
        for r in 0..m.replications {
            let key = RunKey {
                point: p.index,
                replication: r,
            };
            out.push((key, RunFiles::new(dir, &p.hash, r).status()));
        }
    }
    out
}

/// Counts of runs by status word, in a fixed order (done, failed, running, missing).
pub fn status_counts(st: &[(RunKey, RunStatus)]) -> BTreeMap<&'static str, usize> {
    let mut c: BTreeMap<&'static str, usize> = ["done", "failed", "running", "missing"]
        .iter()
        .map(|w| (*w, 0))
        .collect();
    for (_, s) in st {
        *c.entry(s.word()).or_default() += 1;
    }
    c
}

/// The columns of a batch of a part.
#[derive(Default)]
struct PartCols<'a> {
    scope: Vec<&'static str>,
    subject: Vec<std::borrow::Cow<'a, str>>,
    metric: Vec<&'static str>,
    value: Vec<f64>,
}

impl PartCols<'_> {
    fn frame(&mut self) -> PolarsResult<DataFrame> {
        let c = std::mem::take(self);
        let subject: Vec<&str> = c.subject.iter().map(|s| s.as_ref()).collect();
        DataFrame::new(
            c.value.len(),
            vec![
                col("scope", c.scope),
                col("subject", subject),
                col("metric", c.metric),
                col("value", c.value),
            ],
        )
    }
}

/// A part's table (scope, subject, metric, value: every metric replication
/// `rep` of `m` defines, groups, then links, then the run), in batches.
pub fn part_batches(m: &Metrics<'_>, rep: usize, sink: &mut Sink<'_>) -> PolarsResult<()> {
    let mut c = PartCols::default();
    let mut sent = false;
    let mut row = Vec::new();
    for scope in Scope::ALL {
        row.resize(scope.metrics().len(), f64::NAN);
        for i in 0..m.count(scope) {
            m.fill_row(rep, scope, i, &mut row);
            for (k, &v) in row.iter().enumerate() {
                if v.is_nan() {
                    continue;
                }
                c.scope.push(scope.as_str());
                c.subject.push(m.name(scope, i));
                c.metric.push(scope.metrics()[k]);
                c.value.push(v);
                if c.value.len() == BATCH_ROWS {
                    sink(c.frame()?)?;
                    sent = true;
                }
            }
        }
    }
    if !c.value.is_empty() || !sent {
        sink(c.frame()?)?;
    }
    Ok(())
}

/// A part's whole table ([`part_batches`] stacked).
pub fn part_frame(m: &Metrics<'_>, rep: usize) -> Result<DataFrame, AnalysisError> {
    whole(|s| part_batches(m, rep, s)).map_err(|e| AnalysisError::table("part", e))
}

/// A part's rows back: (scope, subject, metric, value).
pub fn read_part(path: &Path) -> Result<Vec<(String, String, String, f64)>, AnalysisError> {
    let df = read_table(path)?;
    let scope = strings(&df, "scope")?;
    let subject = strings(&df, "subject")?;
    let metric = strings(&df, "metric")?;
    let value = floats(&df, "value")?;
    Ok(scope
        .into_iter()
        .zip(subject)
        .zip(metric)
        .zip(value)
        .map(|(((a, b), c), d)| (a, b, c, d))
        .collect())
}

/// This machine's host name (`/etc/hostname`, `HOSTNAME`, or `localhost`).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}

/// Whether process `pid` exists on this machine (Linux `/proc`; elsewhere
/// assumed alive, so a run is never wrongly called killed).
fn process_alive(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(test)]
mod tests;
