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

use polars::prelude::{CsvWriter, DataFrame, ParquetWriter, SerWriter};

use crate::error::AnalysisError;
use crate::tables::Tables;

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

/// Write `runs`, `flows`, `links`, `summary` and `series` as `<name>.<ext>` in
/// `dir` (which must exist). `series` is skipped when empty, and a `series` file
/// of the same format left by an earlier run in `dir` is then removed, so the
/// directory never pairs new tables with old series. Returns the files written.
pub fn write_tables(
    dir: &Path,
    tables: &Tables,
    format: Format,
) -> Result<Vec<PathBuf>, AnalysisError> {
    let mut written = Vec::new();
    for (name, df) in tables.named() {
        let path = dir.join(format!("{name}.{}", format.extension()));
        if name == "series" && df.height() == 0 {
            remove_if_exists(&path)?;
            continue;
        }
        write_frame(&path, df, format)?;
        written.push(path);
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
    let label = path.display().to_string();
    write_atomic_with(path, |file| {
        let mut df = df.clone();
        match format {
            Format::Parquet => ParquetWriter::new(&mut *file)
                .finish(&mut df)
                .map(|_| ())
                .map_err(|e| AnalysisError::table(label, e)),
            Format::Csv => {
                let mut w = BufWriter::new(&mut *file);
                CsvWriter::new(&mut w)
                    .include_header(true)
                    .finish(&mut df)
                    .map_err(|e| AnalysisError::table(label.clone(), e))?;
                w.flush()
                    .map_err(|e| AnalysisError::io("cannot write", path, e))
            }
        }
    })
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
    use crate::tables::build_tables;
    use crate::tables::tests::sample;

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
        let t = build_tables(&sample()).unwrap();
        let files = write_tables(dir.path(), &t, Format::Csv).unwrap();
        assert_eq!(files.len(), 5);
        for (name, df) in t.named() {
            let back = read_table(&dir.path().join(format!("{name}.csv"))).unwrap();
            assert_eq!(back.height(), df.height(), "{name}");
            assert_eq!(back.width(), df.width(), "{name}");
        }
        assert!(hidden_files(dir.path()).is_empty());
    }

    #[test]
    fn parquet_tables_read_back_identical() {
        let dir = tempfile::tempdir().unwrap();
        let t = build_tables(&sample()).unwrap();
        write_tables(dir.path(), &t, Format::Parquet).unwrap();
        for (name, df) in t.named() {
            let back = read_table(&dir.path().join(format!("{name}.parquet"))).unwrap();
            assert!(back.equals_missing(df), "{name} differs after a round trip");
        }
        assert!(hidden_files(dir.path()).is_empty());
    }

    #[test]
    fn empty_series_is_not_written_and_a_stale_one_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let mut set = sample();
        write_tables(dir.path(), &build_tables(&set).unwrap(), Format::Csv).unwrap();
        assert!(dir.path().join("series.csv").is_file());
        for r in &mut set.runs {
            r.series.clear();
        }
        let files = write_tables(dir.path(), &build_tables(&set).unwrap(), Format::Csv).unwrap();
        assert_eq!(files.len(), 4);
        assert!(!dir.path().join("series.csv").exists());
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
