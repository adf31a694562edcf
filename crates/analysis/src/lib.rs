//! # analysis: from replications to tables, intervals, reports and plots
//!
//! The engine (`sim-core`) hands back one [`sim_core::RunOutput`] per replication.
//! This crate turns a scenario's set of them, a [`RunSet`], into what a researcher
//! reads and loads elsewhere. It never runs a simulation and never touches the
//! engine's state.
//!
//! ## Layers
//! - [`stats`]: [`Summary`] (mean, sample standard deviation and a Student-t
//!   confidence half-width with n-1 degrees of freedom) and Jain's fairness index.
//! - [`tables`]: tidy long-format polars tables (`runs`, `flows`, `links`,
//!   `summary`, `series`) built from a [`RunSet`].
//! - [`summary`]: per-replication metrics summarised across replications, as
//!   [`SummaryRow`]s, the plain-Rust form of the summary table that the CLI checks
//!   reference values against with [`lookup`].
//! - [`write`]: Parquet or CSV files, and [`write_atomic`] for any other file. Every
//!   file is written to a temporary name in the same directory, fsynced, then
//!   renamed: a crash never leaves a half file under the final name.
//! - [`report`]: the plain-text report (per group, per link; "mean ± ci").
//! - [`plot`]: time-series and summary charts (PNG and SVG, embedded DejaVu font).
//!
//! ## The life of one figure
//! A metric is first computed *per replication* (e.g. the mean goodput of a group's
//! flows in replication 3), then summarised *across* replications: the confidence
//! interval says how well the replications pin the metric down, not how much flows
//! differ from one another. `summary_rows` does this once; the report, the plots and
//! the `summary` table all read the same rows, so they never disagree.
//!
//! ## Ordering
//! Every table is sorted by replication, then by id (flow, link, group) in arena
//! order, then by time: the same runs give byte-identical files.
#![forbid(unsafe_code)]

pub mod error;
pub mod plot;
pub mod report;
pub mod stats;
pub mod summary;
pub mod tables;
pub mod write;

pub use error::AnalysisError;
pub use plot::PlotFormat;
pub use stats::{jain, Summary};
pub use tables::{build_tables, lookup, summary_rows, RunMeta, RunSet, SummaryRow, Tables};
pub use write::{write_atomic, write_tables, Format};
