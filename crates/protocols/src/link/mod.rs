//! Link algorithms: queue disciplines, markers, price and rate computers.
//!
//! Registration is this config enum: a new algorithm is one file plus one arm.

use serde::{Deserialize, Serialize};
use sim_core::{BufferLimit, LinkAlgorithm, ParamError, Rate, SimDuration};

pub mod droptail;
pub mod threshold;

pub use droptail::DropTail;
pub use threshold::{ThresholdMarker, ThresholdMarkerConfig};

/// What an algorithm may know about its link when it is built.
#[derive(Copy, Clone, Debug)]
pub struct LinkBuildCtx {
    /// Link capacity.
    pub capacity: Rate,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Buffer limit.
    pub limit: BufferLimit,
}

/// The link algorithm of a link, as written in a scenario (`kind = "..."`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LinkAlgoConfig {
    /// Tail drop at the buffer limit (the default).
    DropTail {},
    /// Mark ECN-capable packets (drop the others) while the queue exceeds K.
    Threshold(ThresholdMarkerConfig),
}

// A struct variant (`DropTail {}`), not a unit variant, so that serde rejects
// unknown keys next to `kind` (it ignores them beside a unit variant).
impl Default for LinkAlgoConfig {
    fn default() -> Self {
        LinkAlgoConfig::DropTail {}
    }
}

impl LinkAlgoConfig {
    /// The scenario name of this algorithm.
    pub fn name(&self) -> &'static str {
        match self {
            LinkAlgoConfig::DropTail {} => "drop_tail",
            LinkAlgoConfig::Threshold(_) => "threshold",
        }
    }

    /// Check parameters and build the algorithm for a link.
    pub fn build(&self, ctx: &LinkBuildCtx) -> Result<Box<dyn LinkAlgorithm>, ParamError> {
        Ok(match self {
            LinkAlgoConfig::DropTail {} => Box::new(DropTail),
            LinkAlgoConfig::Threshold(c) => Box::new(ThresholdMarker::new(c, ctx)?),
        })
    }
}
