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
//! - [`metrics`]: every metric of every replication ([`Metrics`]), computed
//!   once and looked up by index: what the tables, summary, report, plots and
//!   reference-value checks all read.
//! - [`tables`]: tidy long-format polars tables (`runs`, `flows`, `links`,
//!   `series`) built from a [`RunSet`], in batches.
//! - [`summary`]: per-replication metrics summarised across replications: the
//!   `summary` table, in batches, and [`SummaryRow`], a row read back.
//! - [`mod@write`]: Parquet or CSV files, and [`write_atomic`] for any other file. Every
//!   file is written to a temporary name in the same directory, fsynced, then
//!   renamed: a crash never leaves a half file under the final name.
//! - [`read`]: tables back from a results directory (`netsim plot DIR`).
//! - [`dynamics`]: a group's settling time and overshoot after it joined,
//!   from the sampled flow throughput.
//! - [`report`]: the plain-text report (per group, per link; "mean ± ci").
//! - [`campaign`]: the store of a sweep (manifest, one result part per run,
//!   failure and in-progress markers) and `collect`, which merges the parts into
//!   `summary`, `metrics` and `runs` tables with per-point confidence intervals.
//! - [`plot`]: time-series and summary charts (PNG and SVG, embedded DejaVu font).
//! - [`models`]: discrete-time model runs without packets (seed 002, Zhang):
//!   Kelly control under delay, EMKC and AIMD convergence to fairness
//!   (theta_M, theta_A) and JetMax's steps to efficiency and fairness, to set
//!   beside the packet-level runs.
//! - [`mod@trace`]: the per-packet trace of a replication (`netsim run
//!   --trace`), streamed to a table in batches while the run goes on, and
//!   [`pcap`]: the packets of chosen links as a libpcap capture with
//!   synthetic IPv4 and TCP headers.
//! - [`plot_sweep`]: a campaign's charts (`netsim plot DIR` on a sweep): each
//!   metric's mean with 95 % CI error bars against a swept parameter, one line
//!   per subject and combination of the other parameters.
//!
//! ## The life of one figure
//! A metric is first computed *per replication* (e.g. the mean goodput of a group's
//! flows in replication 3), then summarised *across* replications: the confidence
//! interval says how well the replications pin the metric down, not how much flows
//! differ from one another. [`Metrics`] holds the per-replication values once; the
//! report, the plots, the reference checks and the `summary` table all summarise
//! the same values, so they never disagree.
//!
//! ## Cost
//! Everything here is linear in the network's size: subjects and metrics are
//! found by index, never by scanning rows, and the tables that grow with the
//! network are written in batches as they are built ([`write::write_table`]),
//! never held whole or as rows of strings.
//!
//! ## Ordering and determinism
//! Rows follow replication order, then arena (id) order; `series` keeps the
//! engine's sampling order (time, then subject); `summary` lists groups, then
//! links, then the run. No hash-map order reaches a file, so the same seed gives
//! byte-identical `flows`, `links` and `series` files. Only the `runs` table and
//! the `run` rows of `summary` (`wall_s`, `events_per_wall_s`) hold wall-clock
//! measurements and differ between otherwise identical runs.
//!
//! ## Where files go
//! `write_tables` writes `runs`, `flows`, `links`, `summary` and `series` into
//! the output directory; `plot::plot_all` (or `plot::plot_dir`, from the written
//! tables) adds `series_<kind>_<metric>.{png,svg}` and `summary_*.{png,svg}` next
//! to them.
#![forbid(unsafe_code)]

pub mod campaign;
pub mod dynamics;
pub mod error;
pub mod fairness;
pub mod fct_bins;
pub mod link_changes;
pub mod maxmin;
pub mod metrics;
pub mod models;
mod notable;
pub mod num;
pub mod pcap;
pub mod plot;
pub mod plot_sweep;
pub mod read;
pub mod report;
pub mod stats;
pub mod summary;
pub mod tables;
pub mod trace;
pub mod write;

pub use error::AnalysisError;
pub use fairness::FairnessSpec;
pub use metrics::{Metrics, Scope, WALL_CLOCK_METRICS};
pub use plot::PlotFormat;
pub use read::{find_table, read_table};
pub use stats::{jain, Summary};
pub use summary::{summary_rows, SummaryRow};
pub use tables::{RunMeta, RunSet};
pub use write::{write_atomic, write_table, write_tables, Format};
