//! Reading result tables back: for `netsim plot DIR`, and for checks and tests.
//!
//! CSV columns come back with inferred types (a group named `1` reads as an
//! integer, a float column without decimals as an integer), so every column is
//! cast to the type the reader expects.

use std::fs::File;
use std::path::{Path, PathBuf};

use polars::prelude::{CsvReadOptions, DataFrame, DataType, ParquetReader, SerReader};

use crate::error::AnalysisError;
use crate::summary::SummaryRow;
use crate::write::Format;

/// Read a table written by [`crate::write_tables`]; the format follows the extension
/// (`.csv`, otherwise Parquet).
pub fn read_table(path: &Path) -> Result<DataFrame, AnalysisError> {
    let label = path.display().to_string();
    if path.extension().is_some_and(|e| e == "csv") {
        CsvReadOptions::default()
            .with_has_header(true)
            .try_into_reader_with_file_path(Some(path.to_path_buf()))
            .and_then(|r| r.finish())
            .map_err(|e| AnalysisError::table(label, e))
    } else {
        let file = File::open(path).map_err(|e| AnalysisError::io("cannot open", path, e))?;
        ParquetReader::new(file)
            .finish()
            .map_err(|e| AnalysisError::table(label, e))
    }
}

/// The table `name` in `dir`: `<name>.parquet` or `<name>.csv`, the more recently
/// modified if both exist; `None` if neither does.
pub fn find_table(dir: &Path, name: &str) -> Option<PathBuf> {
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [Format::Parquet, Format::Csv]
        .iter()
        .map(|f| dir.join(format!("{name}.{}", f.extension())))
        .filter(|p| p.is_file())
        .max_by_key(|p| mtime(p))
}

/// A column of `df` cast to `dtype` (CSV columns come back with inferred types).
fn column(
    df: &DataFrame,
    name: &str,
    dtype: &DataType,
) -> Result<polars::prelude::Column, AnalysisError> {
    df.column(name)
        .and_then(|c| c.cast(dtype))
        .map_err(|e| AnalysisError::table(name, e))
}

/// Column `name` as strings (nulls as empty strings).
pub(crate) fn strings(df: &DataFrame, name: &str) -> Result<Vec<String>, AnalysisError> {
    let c = column(df, name, &DataType::String)?;
    let ca = c.str().map_err(|e| AnalysisError::table(name, e))?;
    Ok(ca
        .iter()
        .map(|s| s.unwrap_or_default().to_string())
        .collect())
}

/// Column `name` as numbers (nulls as NaN).
pub(crate) fn floats(df: &DataFrame, name: &str) -> Result<Vec<f64>, AnalysisError> {
    let c = column(df, name, &DataType::Float64)?;
    let ca = c.f64().map_err(|e| AnalysisError::table(name, e))?;
    Ok(ca.iter().map(|x| x.unwrap_or(f64::NAN)).collect())
}

/// Summary rows back from a `summary` table (null sd or half-width become NaN).
pub fn rows_from_table(df: &DataFrame) -> Result<Vec<SummaryRow>, AnalysisError> {
    let scope = strings(df, "scope")?;
    let subject = strings(df, "subject")?;
    let metric = strings(df, "metric")?;
    let n = floats(df, "n")?;
    let mean = floats(df, "mean")?;
    let sd = floats(df, "sd")?;
    let half = floats(df, "ci95_half")?;
    Ok((0..df.height())
        .map(|i| SummaryRow {
            scope: scope[i].clone(),
            subject: subject[i].clone(),
            metric: metric[i].clone(),
            n: if n[i].is_finite() { n[i] as usize } else { 0 },
            mean: mean[i],
            sd: sd[i],
            ci95_half: half[i],
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metrics;
    use crate::summary::summary_rows;
    use crate::summary::tests::lookup;
    use crate::tables::tests::sample;
    use crate::write::write_tables;

    #[test]
    fn summary_rows_survive_a_parquet_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let set = sample();
        let m = Metrics::new(&set);
        write_tables(dir.path(), &m, Format::Parquet).unwrap();
        let back =
            rows_from_table(&read_table(&dir.path().join("summary.parquet")).unwrap()).unwrap();
        let rows = summary_rows(&m);
        assert_eq!(back.len(), rows.len());
        for (a, b) in back.iter().zip(&rows) {
            assert_eq!(
                (&a.scope, &a.subject, &a.metric, a.n),
                (&b.scope, &b.subject, &b.metric, b.n)
            );
            assert!(a.mean == b.mean || (a.mean.is_nan() && b.mean.is_nan()));
        }
    }

    #[test]
    fn csv_columns_of_numeric_looking_names_read_back_as_text() {
        let dir = tempfile::tempdir().unwrap();
        let mut set = sample();
        set.meta.group_names = vec!["1".into(), "2".into()];
        write_tables(dir.path(), &Metrics::new(&set), crate::Format::Csv).unwrap();
        let back = rows_from_table(&read_table(&dir.path().join("summary.csv")).unwrap()).unwrap();
        let g = lookup(&back, "group", "1", "goodput_bps").unwrap();
        assert_eq!((g.n, g.mean), (2, 2.5e6));
        let one = lookup(&back, "group", "1", "flows").unwrap();
        assert_eq!(one.ci95_half, 0.0);
    }
}
