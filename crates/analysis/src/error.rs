//! The one error type of this crate. Every IO, table or drawing failure becomes an
//! [`AnalysisError`] that names the file or table concerned; nothing here panics on
//! bad input or a failing disk.

use std::path::PathBuf;

use polars::prelude::PolarsError;

/// What went wrong while building, writing, reading or plotting results.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// A file-system operation failed.
    #[error("{op} {}: {source}", path.display())]
    Io {
        /// What was being done ("cannot write", "cannot rename", ...).
        op: &'static str,
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Building, encoding or decoding a table failed.
    #[error("table `{table}`: {source}")]
    Table {
        /// Table name (`"flows"`, `"series.csv"`, ...).
        table: String,
        /// The underlying error.
        #[source]
        source: PolarsError,
    },
    /// Drawing a chart failed.
    #[error("plot {}: {msg}", path.display())]
    Plot {
        /// The chart file.
        path: PathBuf,
        /// The drawing backend's message.
        msg: String,
    },
    /// A results directory lacks a table or a table lacks a column.
    #[error("{}: {msg}", path.display())]
    Input {
        /// The file or directory concerned.
        path: PathBuf,
        /// What is missing or malformed.
        msg: String,
    },
}

impl AnalysisError {
    /// An [`AnalysisError::Io`] for `path`.
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        AnalysisError::Io {
            op,
            path: path.into(),
            source,
        }
    }

    /// An [`AnalysisError::Table`] for `table`.
    pub fn table(table: impl Into<String>, source: PolarsError) -> Self {
        AnalysisError::Table {
            table: table.into(),
            source,
        }
    }
}
