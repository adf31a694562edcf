//! # topology: scenario files, topologies, presets and routing
//!
//! ## Layers
//! - [`scenario`]: the typed TOML schema (`deny_unknown_fields`, unit strings).
//! - [`error`]: errors that name the key path and the line and column.
//! - [`preset`]: dumbbell and parking lot, expanded into the generic [`graph`].
//! - [`graph`]: nodes, unidirectional links, shortest-path routing.
//! - [`routing`]: the same routes for many flows at once, in linear time.
//! - [`per_flow`]: per-flow values of a group, fixed or drawn from a range.
//! - [`trace`]: `[trace]`, the per-packet trace's filters and pcap links.
//! - [`sweep`]: `[sweep]` tables expanded into a [`sweep::Campaign`] of points.
//! - [`build`]: validation into a [`Resolved`] scenario, then one
//!   `sim_core::Simulator` per replication.
//!
//! A scenario is checked completely by [`Resolved::parse`]; building a replication
//! cannot then fail on user input.
#![forbid(unsafe_code)]

pub mod build;
pub mod error;
mod expect_check;
mod factories;
pub mod graph;
pub mod limits;
pub mod link_change;
pub mod per_flow;
pub mod preset;
pub mod routing;
pub mod scenario;
pub mod sweep;
pub mod trace;
pub mod transports;

pub use build::{parse_scenario, Resolved, ResolvedGroup};
pub use error::ScenarioError;
pub use scenario::Scenario;
