//! The link side of classic Kelly control at packet level (seed 002, ch. II
//! eq. 1-2 and ch. V eq. 53-54): each resource computes its price from its
//! arrival rate once per interval, and the prices are *summed* along the
//! path (the Johari-Tan form), unlike MKC's maximum.
//!
//! Provenance (spec `seed-002-zhang.md` §2.2):
//! - \[PAPER\] the "negative loss" price `p = (x - C)/x` of eq. 53, allowed to
//!   go negative; `mu_j(n) = p_j(sum of the rates arriving at j)`.
//! - \[INFERRED\] the price is measured like EMKC's (a byte count over an
//!   interval, [`super::emkc`]) so that both controllers meet the same
//!   router; the interval (default 10 ms) adds up to one interval of
//!   feedback delay, which counts in the delay D of the stability condition.

use serde::{Deserialize, Serialize};
use sim_core::{ParamError, SimDuration};

use super::emkc::{Emkc, PathPrice};
use super::LinkBuildCtx;

fn default_interval() -> SimDuration {
    SimDuration::from_millis(10)
}

/// Parameters of the Kelly price router (`algo = { kind = "kelly" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KellyLinkConfig {
    /// The price measurement interval (default 10 ms).
    #[serde(default = "default_interval")]
    pub interval: SimDuration,
}

impl Default for KellyLinkConfig {
    fn default() -> Self {
        KellyLinkConfig {
            interval: default_interval(),
        }
    }
}

impl KellyLinkConfig {
    /// Validate and build the router.
    pub fn build(&self, ctx: &LinkBuildCtx) -> Result<Emkc, ParamError> {
        Emkc::with(self.interval, ctx, PathPrice::Sum, None)
    }
}
