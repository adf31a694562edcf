//! Traffic models: how much a flow has to send and when flows arrive, and the
//! non-adaptive packet sources (CBR, Poisson) that ignore congestion.

use serde::{Deserialize, Serialize};
use sim_core::{check_range, Bytes, ParamError, Rate, SimRng};

pub mod udp;

pub use udp::{PacketProcess, UdpSink, UdpSource};

/// A flow-size distribution (for flow arrival processes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    /// Every flow has this size.
    Fixed {
        /// Flow size.
        size: Bytes,
    },
    /// Exponentially distributed sizes with this mean.
    Exponential {
        /// Mean flow size.
        mean: Bytes,
    },
    /// Pareto (type I) sizes with this mean and shape alpha > 1
    /// (scale x_m = mean (alpha - 1) / alpha).
    Pareto {
        /// Mean flow size.
        mean: Bytes,
        /// Shape alpha (> 1 so the mean exists; web-traffic studies use 1.1-1.5).
        shape: f64,
    },
}

impl SizeDist {
    /// Check parameters.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            SizeDist::Fixed { size } if size.get() == 0 => {
                Err(ParamError::new("size", "must be > 0 bytes"))
            }
            SizeDist::Exponential { mean } | SizeDist::Pareto { mean, .. } if mean.get() == 0 => {
                Err(ParamError::new("mean", "must be > 0 bytes"))
            }
            SizeDist::Pareto { shape, .. } => {
                if shape.is_finite() && *shape > 1.0 {
                    Ok(())
                } else {
                    Err(ParamError::new(
                        "shape",
                        format!(
                            "{shape} is out of range; the Pareto shape must be > 1 (finite mean)"
                        ),
                    ))
                }
            }
            _ => Ok(()),
        }
    }

    /// Draw one flow size in bytes (at least 1).
    pub fn sample(&self, rng: &mut SimRng) -> u64 {
        use rand::Rng;
        let x = match self {
            SizeDist::Fixed { size } => return size.get(),
            SizeDist::Exponential { mean } => {
                let u: f64 = rng.random();
                -(1.0 - u).ln() * mean.get() as f64
            }
            SizeDist::Pareto { mean, shape } => {
                let xm = mean.get() as f64 * (shape - 1.0) / shape;
                let u: f64 = rng.random();
                xm / (1.0 - u).powf(1.0 / shape)
            }
        };
        (x.round() as u64).max(1)
    }
}

/// What a flow group sends, as written in a scenario (`traffic = { kind = ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TrafficConfig {
    /// Long-lived flows with an infinite backlog.
    Bulk {},
    /// Each flow sends `size` bytes and completes.
    Finite {
        /// Flow size.
        size: Bytes,
    },
    /// Flows arrive as a Poisson process (`rate` flows per second) with sizes drawn
    /// from `size`; `count` in the group is ignored (the process creates flows).
    PoissonArrivals {
        /// Mean arrival rate, flows per second.
        rate: f64,
        /// Flow-size distribution.
        size: SizeDist,
    },
    /// Constant-bit-rate packets that ignore congestion (UDP-like).
    Cbr {
        /// Sending rate.
        rate: Rate,
    },
    /// Poisson packet arrivals with this mean rate, ignoring congestion.
    PoissonPackets {
        /// Mean sending rate.
        rate: Rate,
    },
}

// A struct variant (`Bulk {}`), not a unit variant, so that serde rejects
// unknown keys next to `kind` (it ignores them beside a unit variant).
impl Default for TrafficConfig {
    fn default() -> Self {
        TrafficConfig::Bulk {}
    }
}

impl TrafficConfig {
    /// The scenario name of this model.
    pub fn name(&self) -> &'static str {
        match self {
            TrafficConfig::Bulk {} => "bulk",
            TrafficConfig::Finite { .. } => "finite",
            TrafficConfig::PoissonArrivals { .. } => "poisson_arrivals",
            TrafficConfig::Cbr { .. } => "cbr",
            TrafficConfig::PoissonPackets { .. } => "poisson_packets",
        }
    }

    /// True for the non-adaptive packet sources (which need the `udp` transport).
    pub fn is_packet_source(&self) -> bool {
        matches!(
            self,
            TrafficConfig::Cbr { .. } | TrafficConfig::PoissonPackets { .. }
        )
    }

    /// Check parameters.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            TrafficConfig::Bulk {} => Ok(()),
            TrafficConfig::Finite { size } => {
                if size.get() == 0 {
                    Err(ParamError::new("size", "must be > 0 bytes"))
                } else {
                    Ok(())
                }
            }
            TrafficConfig::PoissonArrivals { rate, size } => {
                check_range("rate", *rate, f64::MIN_POSITIVE, 1e9)?;
                size.validate().map_err(|e| e.prefixed("size"))
            }
            TrafficConfig::Cbr { rate } | TrafficConfig::PoissonPackets { rate } => {
                if rate.bps() == 0 {
                    Err(ParamError::new("rate", "must be > 0 bps"))
                } else {
                    Ok(())
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stream, StreamKind};

    #[test]
    fn exponential_sizes_have_the_requested_mean() {
        let d = SizeDist::Exponential {
            mean: Bytes::new(10_000),
        };
        let mut rng = stream(7, 0, StreamKind::Group, 0);
        let n = 200_000;
        let mean = (0..n).map(|_| d.sample(&mut rng) as f64).sum::<f64>() / n as f64;
        // Standard error of the mean = 10000/sqrt(2e5) = 22.4 bytes; allow 5 SE.
        assert!((mean - 10_000.0).abs() < 5.0 * 22.4, "{mean}");
    }

    #[test]
    fn pareto_sizes_respect_the_scale_and_mean() {
        let d = SizeDist::Pareto {
            mean: Bytes::new(12_000),
            shape: 3.0,
        };
        let mut rng = stream(7, 0, StreamKind::Group, 1);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut rng) as f64).collect();
        // x_m = mean (a-1)/a = 8000: no sample below it (rounding aside).
        assert!(xs.iter().all(|&x| x >= 7999.5));
        // Var = x_m^2 a / ((a-1)^2 (a-2)) = 4.8e7, SE = sqrt(4.8e7/2e5) = 15.5; 6 SE.
        let mean = xs.iter().sum::<f64>() / n as f64;
        assert!((mean - 12_000.0).abs() < 6.0 * 15.5, "{mean}");
    }

    #[test]
    fn invalid_traffic_parameters_are_rejected_with_their_key() {
        let e = TrafficConfig::Finite { size: Bytes::ZERO }
            .validate()
            .unwrap_err();
        assert_eq!(e.key, "size");
        let e = TrafficConfig::PoissonArrivals {
            rate: 1.0,
            size: SizeDist::Pareto {
                mean: Bytes::new(1000),
                shape: 1.0,
            },
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.key, "size.shape");
        let e = TrafficConfig::Cbr {
            rate: Rate::from_bps(0),
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.key, "rate");
    }
}
