//! Congestion controllers: the arithmetic of a window- or rate-based sender,
//! behind `sim_core::Controller`. Loss detection, recovery and retransmission are
//! the transport's (`crate::transport`); a controller only turns ACKs and
//! congestion signals into a window or a rate.
//!
//! Registration is the [`CcConfig`] enum: a new controller is one file plus one arm.

use serde::{Deserialize, Serialize};
use sim_core::{Controller, ParamError};

pub mod newreno;

pub use newreno::{NewReno, NewRenoConfig};

/// The congestion controller of a flow, as written in a scenario
/// (`cc = { kind = "new_reno", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CcConfig {
    /// TCP NewReno (RFC 5681, RFC 6582), ECN-reactive per RFC 3168 (the default).
    NewReno(NewRenoConfig),
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::NewReno(NewRenoConfig::default())
    }
}

impl CcConfig {
    /// The scenario name of this controller.
    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::NewReno(_) => "new_reno",
        }
    }

    /// Check parameter ranges (keys are relative to the `cc` table).
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            CcConfig::NewReno(c) => c.validate(),
        }
    }

    /// Check parameters and build the controller for segments of `mss` bytes.
    pub fn build(&self, mss: u32) -> Result<Box<dyn Controller>, ParamError> {
        Ok(match self {
            CcConfig::NewReno(c) => Box::new(NewReno::new(c, mss)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_reno_is_the_default_and_parses_from_its_kind() {
        let c: CcConfig = toml::from_str("kind = \"new_reno\"").unwrap();
        assert_eq!(c, CcConfig::default());
        assert_eq!(c.name(), "new_reno");
        let c: CcConfig = toml::from_str("kind = \"new_reno\"\ninitial_window = 10").unwrap();
        assert_eq!(
            c,
            CcConfig::NewReno(NewRenoConfig {
                initial_window: Some(10),
                initial_ssthresh: None
            })
        );
        assert_eq!(c.build(1500).unwrap().window(), 15_000);
    }

    #[test]
    fn unknown_controller_keys_and_kinds_are_rejected() {
        assert!(toml::from_str::<CcConfig>("kind = \"new_reno\"\nbogus = 1").is_err());
        assert!(toml::from_str::<CcConfig>("kind = \"vegas\"").is_err());
    }

    #[test]
    fn build_reports_bad_parameters_with_their_key() {
        let c = CcConfig::NewReno(NewRenoConfig {
            initial_window: Some(0),
            initial_ssthresh: None,
        });
        assert_eq!(c.validate().unwrap_err().key, "initial_window");
        assert_eq!(c.build(1500).err().unwrap().key, "initial_window");
    }
}
