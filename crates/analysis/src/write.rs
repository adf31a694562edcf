//! Result files, written atomically.
//!
//! Every file goes to a temporary name in its final directory
//! (`.<stem>.tmp-<pid>-<k>.<ext>`), is flushed and fsynced, then renamed over the
//! final name, and the directory is fsynced (best effort). A crash or Ctrl-C
//! leaves at worst a hidden temporary file, never a truncated file under the
//! final name. The temporary name keeps the extension because some encoders (the
//! PNG backend) choose the format from it.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use polars::prelude::{CsvWriter, DataFrame, ParquetWriter, PolarsError, PolarsResult, SerWriter};

use crate::error::AnalysisError;
use crate::metrics::Metrics;
use crate::summary::summary_batches;
use crate::tables::{
    flows_batches, links_batches, objects_batches, pages_batches, runs_table, series_batches, Sink,
};

/// Table file format.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Apache Parquet (typed, compressed; the default).
    #[default]
    Parquet,
    /// Comma-separated values with a header row; nulls are empty fields.
    Csv,
}

impl Format {
    /// File extension without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
        }
    }
}

/// Write `runs`, `flows`, `links`, `summary`, `objects`, `pages`,
/// `link_changes`, `fct_bins` and `series` as `<name>.<ext>` in `dir` (which
/// must exist), each in batches as it is built ([`write_table`]). `objects`,
/// `pages`, `link_changes`, `fct_bins` (no finite flow finished) and `series`
/// are skipped when the runs have
/// none, and such a file of the same format left by an earlier run in `dir`
/// is then removed, so the directory never pairs new tables with old ones. Returns the files written.
pub fn write_tables(
    dir: &Path,
    m: &Metrics<'_>,
    format: Format,
) -> Result<Vec<PathBuf>, AnalysisError> {
    let set = m.set();
    let path = |name: &str| dir.join(format!("{name}.{}", format.extension()));
    let mut written = Vec::new();
    let runs = runs_table(set).map_err(|e| AnalysisError::table("runs", e))?;
    write_frame(&path("runs"), &runs, format)?;
    written.push(path("runs"));
    write_table(&path("flows"), format, |s| flows_batches(m, s))?;
    written.push(path("flows"));
    write_table(&path("links"), format, |s| links_batches(m, s))?;
    written.push(path("links"));
    write_table(&path("summary"), format, |s| summary_batches(m, s))?;
    written.push(path("summary"));
    if set.runs.iter().all(|r| r.objects.is_empty()) {
        remove_if_exists(&path("objects"))?;
    } else {
        write_table(&path("objects"), format, |s| objects_batches(m, s))?;
        written.push(path("objects"));
    }
    if set.runs.iter().all(|r| r.pages.is_empty()) {
        remove_if_exists(&path("pages"))?;
    } else {
        write_table(&path("pages"), format, |s| pages_batches(m, s))?;
        written.push(path("pages"));
    }
    if set.runs.iter().all(|r| r.link_changes.is_empty()) {
        remove_if_exists(&path("link_changes"))?;
    } else {
        let df = crate::link_changes::link_changes_table(m)
            .map_err(|e| AnalysisError::table("link_changes", e))?;
        write_frame(&path("link_changes"), &df, format)?;
        written.push(path("link_changes"));
    }
    match crate::fct_bins::fct_bins_table(set, &set.meta.fct_bin_edges)
        .map_err(|e| AnalysisError::table("fct_bins", e))?
    {
        Some(df) => {
            write_frame(&path("fct_bins"), &df, format)?;
            written.push(path("fct_bins"));
        }
        None => remove_if_exists(&path("fct_bins"))?,
    }
    if set.runs.iter().all(|r| r.series.is_empty()) {
        remove_if_exists(&path("series"))?;
    } else {
        write_table(&path("series"), format, |s| series_batches(m, s))?;
        written.push(path("series"));
    }
    Ok(written)
}

/// Remove `path`; a file that does not exist is not an error.
pub fn remove_if_exists(path: &Path) -> Result<(), AnalysisError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(AnalysisError::io("cannot remove", path, e)),
    }
}

/// Write one table to `path` atomically.
pub fn write_frame(path: &Path, df: &DataFrame, format: Format) -> Result<(), AnalysisError> {
    write_table(path, format, |sink| sink(df.clone()))
}

/// Write a table to `path` atomically as `produce` hands its batches to the
/// sink it is given (each a frame with the same columns; at least one): each
/// batch goes to the file before the next is built, one Parquet row group or
/// a run of CSV lines, so the table is never whole in memory. A second thread
/// encodes and writes while `produce` builds the next batch (one batch is
/// handed over at a time). The file appears under its name only once the last
/// batch is written.
pub fn write_table(
    path: &Path,
    format: Format,
    produce: impl FnOnce(&mut Sink<'_>) -> PolarsResult<()>,
) -> Result<(), AnalysisError> {
    let label = path.display().to_string();
    write_atomic_with(path, |file| {
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<DataFrame>(1);
            let writer = scope.spawn(|| encode(file, format, rx, path));
            let produced = produce(&mut |df| {
                tx.send(df)
                    .map_err(|_| PolarsError::ComputeError("the table's writer stopped".into()))
            });
            drop(tx);
            let written = match writer.join() {
                Ok(w) => w,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            // A writer that failed closed the channel: its error says why.
            written?;
            produced.map_err(|e| AnalysisError::table(label.clone(), e))
        })
    })
}

/// Encode the batches arriving on `rx` into `file` in `format`, until the
/// producer hangs up (`path` names the table in errors).
fn encode(
    file: &mut File,
    format: Format,
    rx: std::sync::mpsc::Receiver<DataFrame>,
    path: &Path,
) -> Result<(), AnalysisError> {
    let table = |e| AnalysisError::table(path.display().to_string(), e);
    let mut batches = rx.into_iter();
    let Some(first) = batches.next() else {
        return Err(no_batch(path));
    };
    // Buffered: the Parquet writer emits its metadata a byte or a field at a
    // time (14 700 write calls for benchmark B1's four small tables, 25 ms
    // of its 40 ms after the event loop; 119 000 at N = 10 000).
    let mut buf = BufWriter::with_capacity(1 << 16, &mut *file);
    let all = |first| std::iter::once(first).chain(batches);
    match format {
        Format::Parquet => {
            let mut w = ParquetWriter::new(&mut buf)
                .set_parallel(false)
                .batched(first.schema())
                .map_err(table)?;
            for df in all(first) {
                w.write_batch(&df).map_err(table)?;
            }
            w.finish().map_err(table)?;
        }
        Format::Csv => {
            let mut w = CsvWriter::new(&mut buf)
                .include_header(true)
                .batched(first.schema())
                .map_err(table)?;
            for df in all(first) {
                w.write_batch(&df).map_err(table)?;
            }
            w.finish().map_err(table)?;
        }
    }
    buf.flush()
        .map_err(|e| AnalysisError::io("cannot write", path, e))
}

/// The error of a table producer that handed over no batch at all.
fn no_batch(path: &Path) -> AnalysisError {
    AnalysisError::Input {
        path: path.to_path_buf(),
        msg: "the table produced no batch, not even an empty one".into(),
    }
}

/// Write `bytes` to `path` atomically (temporary file, fsync, rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AnalysisError> {
    write_atomic_with(path, |file| {
        file.write_all(bytes)
            .map_err(|e| AnalysisError::io("cannot write", path, e))
    })
}

/// Write `path` atomically with `fill`, which writes the whole content to the
/// temporary file it is given. On any error the temporary file is removed.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> Result<(), AnalysisError>,
) -> Result<(), AnalysisError> {
    let tmp = temp_path(path);
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(|e| AnalysisError::io("cannot create", &tmp, e))?;
        fill(&mut file)?;
        file.flush()
            .map_err(|e| AnalysisError::io("cannot write", &tmp, e))?;
        drop(file);
        commit(&tmp, path)
    })();
    if result.is_err() {
        // The temporary file is ours and incomplete; losing it is the point.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A fresh temporary name next to `path`: `.<stem>.tmp-<pid>-<k>.<ext>`.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let k = NEXT.fetch_add(1, Ordering::Relaxed);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    path.with_file_name(format!(".{stem}.tmp-{}-{k}{ext}", std::process::id()))
}

/// fsync the finished temporary file `tmp`, rename it to `path`, fsync the directory.
pub(crate) fn commit(tmp: &Path, path: &Path) -> Result<(), AnalysisError> {
    File::open(tmp)
        .and_then(|f| f.sync_all())
        .map_err(|e| AnalysisError::io("cannot sync", tmp, e))?;
    std::fs::rename(tmp, path).map_err(|e| AnalysisError::io("cannot rename into", path, e))?;
    // Make the rename itself durable. Directories cannot be opened or synced on
    // every platform; the file content is already safe, so this is best effort.
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::read_table;
    use crate::summary::summary_table;
    use crate::tables::tests::sample;
    use crate::tables::{
        flows_table, links_table, objects_table, pages_table, series_table, RunSet,
    };

    /// The seven tables of `set`, whole, in file order.
    fn tables(set: &RunSet) -> Vec<(&'static str, DataFrame)> {
        let m = Metrics::new(set);
        vec![
            ("runs", runs_table(set).unwrap()),
            ("flows", flows_table(&m).unwrap()),
            ("links", links_table(&m).unwrap()),
            ("summary", summary_table(&m).unwrap()),
            ("objects", objects_table(&m).unwrap()),
            ("pages", pages_table(&m).unwrap()),
            ("series", series_table(&m).unwrap()),
        ]
    }

    fn hidden_files(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect()
    }

    #[test]
    fn csv_tables_read_back_with_the_same_rows() {
        let dir = tempfile::tempdir().unwrap();
        let set = sample();
        let files = write_tables(dir.path(), &Metrics::new(&set), Format::Csv).unwrap();
        assert_eq!(files.len(), 7);
        for (name, df) in tables(&set) {
            let back = read_table(&dir.path().join(format!("{name}.csv"))).unwrap();
            assert_eq!(back.height(), df.height(), "{name}");
            assert_eq!(back.width(), df.width(), "{name}");
        }
        assert!(hidden_files(dir.path()).is_empty());
    }

    #[test]
    fn parquet_tables_read_back_identical() {
        let dir = tempfile::tempdir().unwrap();
        let set = sample();
        write_tables(dir.path(), &Metrics::new(&set), Format::Parquet).unwrap();
        for (name, df) in tables(&set) {
            let back = read_table(&dir.path().join(format!("{name}.parquet"))).unwrap();
            assert!(
                back.equals_missing(&df),
                "{name} differs after a round trip"
            );
        }
        assert!(hidden_files(dir.path()).is_empty());
    }

    #[test]
    fn empty_series_objects_and_pages_are_not_written_and_stale_ones_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let mut set = sample();
        write_tables(dir.path(), &Metrics::new(&set), Format::Csv).unwrap();
        assert!(dir.path().join("series.csv").is_file());
        assert!(dir.path().join("objects.csv").is_file());
        assert!(dir.path().join("pages.csv").is_file());
        for r in &mut set.runs {
            r.series.clear();
            r.objects.clear();
            r.pages.clear();
        }
        let files = write_tables(dir.path(), &Metrics::new(&set), Format::Csv).unwrap();
        assert_eq!(files.len(), 4);
        assert!(!dir.path().join("series.csv").exists());
        assert!(!dir.path().join("objects.csv").exists());
        assert!(!dir.path().join("pages.csv").exists());
    }

    #[test]
    fn a_table_in_several_batches_reads_back_whole_in_both_formats() {
        let dir = tempfile::tempdir().unwrap();
        let a = DataFrame::new(2, vec![crate::tables::col("x", vec![1u64, 2])]).unwrap();
        let b = DataFrame::new(1, vec![crate::tables::col("x", vec![3u64])]).unwrap();
        for f in [Format::Parquet, Format::Csv] {
            let p = dir.path().join(format!("t.{}", f.extension()));
            write_table(&p, f, |sink| {
                sink(a.clone())?;
                sink(b.clone())
            })
            .unwrap();
            let back = read_table(&p).unwrap();
            let x: Vec<Option<i64>> = back
                .column("x")
                .unwrap()
                .cast(&polars::prelude::DataType::Int64)
                .unwrap()
                .i64()
                .unwrap()
                .iter()
                .collect();
            assert_eq!(x, [Some(1), Some(2), Some(3)], "{f:?}");
        }
        assert!(hidden_files(dir.path()).is_empty());
    }

    #[test]
    fn a_producer_that_fails_after_a_batch_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = DataFrame::new(1, vec![crate::tables::col("x", vec![1u64])]).unwrap();
        for f in [Format::Parquet, Format::Csv] {
            let p = dir.path().join(format!("t.{}", f.extension()));
            let e = write_table(&p, f, |sink| {
                sink(a.clone())?;
                Err(polars::prelude::PolarsError::ComputeError("stopped".into()))
            });
            assert!(e.is_err());
            assert!(!p.exists(), "{f:?}");
        }
        assert!(hidden_files(dir.path()).is_empty());
    }

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("scenario.resolved.toml");
        write_atomic(&p, b"old").unwrap();
        write_atomic(&p, b"new contents").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new contents");
        assert!(hidden_files(dir.path()).is_empty());
    }

    #[test]
    fn a_failing_writer_leaves_neither_the_file_nor_a_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.txt");
        let err = write_atomic_with(&p, |f| {
            f.write_all(b"half").unwrap();
            Err(AnalysisError::Input {
                path: p.clone(),
                msg: "interrupted".into(),
            })
        });
        assert!(err.is_err());
        assert!(!p.exists());
        assert!(hidden_files(dir.path()).is_empty());
    }

    #[test]
    fn writing_into_a_missing_directory_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no/such/dir/runs.csv");
        let e = write_atomic(&p, b"x").unwrap_err();
        assert!(e.to_string().contains("cannot create"), "{e}");
    }

    #[test]
    fn temporary_names_are_hidden_and_keep_the_extension() {
        let t = temp_path(Path::new("/a/b/plot.png"));
        let name = t.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(".plot.tmp-") && name.ends_with(".png"),
            "{name}"
        );
        assert_eq!(t.parent(), Some(Path::new("/a/b")));
    }
}
