//! Traffic models: how much a flow has to send and when flows arrive, and the
//! non-adaptive packet sources (CBR, Poisson) that ignore congestion.

use serde::{Deserialize, Serialize};
use sim_core::{check_range, Bytes, ParamError, Rate, SimDuration, SimRng};

pub mod udp;
pub mod web;

pub use udp::{PacketProcess, UdpSink, UdpSource};
pub use web::{
    Connection, CountDist, PageDone, PageTiming, SessionApp, SessionStarts, WebConfig, WebObject,
    WebSchedule,
};

/// A size distribution: the flow sizes of an arrival process (`traffic.size`),
/// or the packet sizes of a non-adaptive packet source (the group's
/// `packet_size = { dist = ... }`, drawn per packet). Draws are whole bytes,
/// at least 1.
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
    /// Bounded (truncated) Pareto sizes on `[min, max]` with shape alpha > 0:
    /// density proportional to x^-(alpha + 1) between the bounds, the
    /// truncated power tail of web object sizes (Barford and Crovella 1998;
    /// Zimmermann (2005) E4: min 100 B, max 10 MB, mean 10 kB).
    BoundedPareto {
        /// Smallest size.
        min: Bytes,
        /// Largest size (> min).
        max: Bytes,
        /// Shape alpha (> 0).
        shape: f64,
    },
    /// Sizes drawn uniformly from the whole bytes in `[min, max]`.
    Uniform {
        /// Smallest size.
        min: Bytes,
        /// Largest size (>= min).
        max: Bytes,
    },
    /// A discrete mix: `values[i]` with probability `weights[i] / sum(weights)`
    /// (equal weights when `weights` is left out), e.g. the two-point packet
    /// mix `{ dist = "choice", values = ["500B", "1500B"], weights = [0.5, 0.5] }`.
    Choice {
        /// The sizes (at least one).
        values: Vec<Bytes>,
        /// Their relative weights (finite, >= 0, not all 0; as many as `values`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        weights: Option<Vec<f64>>,
    },
}

/// The mean of the Pareto law of shape `a` truncated to `[l, h]`.
fn bounded_pareto_mean(l: f64, h: f64, a: f64) -> f64 {
    let norm = 1.0 - (l / h).powf(a);
    if (a - 1.0).abs() < 1e-12 {
        l * (h / l).ln() / norm
    } else {
        a * l.powf(a) * (l.powf(1.0 - a) - h.powf(1.0 - a)) / ((a - 1.0) * norm)
    }
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
            SizeDist::BoundedPareto { min, .. } if min.get() == 0 => {
                Err(ParamError::new("min", "must be > 0 bytes"))
            }
            SizeDist::BoundedPareto { min, max, .. } if max <= min => Err(ParamError::new(
                "max",
                format!("{max} must be above min ({min})"),
            )),
            SizeDist::BoundedPareto { shape, .. } if !(shape.is_finite() && *shape > 0.0) => {
                Err(ParamError::new("shape", format!("{shape} must be > 0")))
            }
            SizeDist::Uniform { min, max } if min > max => Err(ParamError::new(
                "max",
                format!("{max} is below min ({min}); allowed: min <= max"),
            )),
            SizeDist::Uniform { max, .. } if max.get() == 0 => {
                Err(ParamError::new("max", "must be > 0 bytes"))
            }
            SizeDist::Choice { values, weights } => {
                if values.is_empty() {
                    return Err(ParamError::new("values", "give at least one size"));
                }
                if let Some(i) = values.iter().position(|v| v.get() == 0) {
                    return Err(ParamError::new(format!("values[{i}]"), "must be > 0 bytes"));
                }
                let Some(w) = weights else {
                    return Ok(());
                };
                if w.len() != values.len() {
                    return Err(ParamError::new(
                        "weights",
                        format!(
                            "{} weights for {} values; give one weight per value (or none: \
                             equal weights)",
                            w.len(),
                            values.len()
                        ),
                    ));
                }
                if let Some(i) = w.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
                    return Err(ParamError::new(
                        format!("weights[{i}]"),
                        format!("{} is out of range; allowed: a finite weight >= 0", w[i]),
                    ));
                }
                if w.iter().sum::<f64>() > 0.0 {
                    Ok(())
                } else {
                    Err(ParamError::new(
                        "weights",
                        "at least one weight must be > 0",
                    ))
                }
            }
            _ => Ok(()),
        }
    }

    /// The distribution's mean, bytes (before the rounding of each draw to
    /// whole bytes, at least 1).
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed { size } => size.get() as f64,
            SizeDist::Exponential { mean } | SizeDist::Pareto { mean, .. } => mean.get() as f64,
            SizeDist::Uniform { min, max } => (min.get() as f64 + max.get() as f64) / 2.0,
            SizeDist::BoundedPareto { min, max, shape } => {
                bounded_pareto_mean(min.get() as f64, max.get() as f64, *shape)
            }
            SizeDist::Choice { values, weights } => {
                let w = |i: usize| weights.as_ref().map_or(1.0, |w| w[i]);
                let total: f64 = (0..values.len()).map(w).sum();
                values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| w(i) * v.get() as f64)
                    .sum::<f64>()
                    / total
            }
        }
    }

    /// The smallest and the largest size a draw can have, bytes (the
    /// smallest at least 1; no largest for the unbounded exponential and
    /// Pareto tails).
    pub fn bounds(&self) -> (u64, Option<u64>) {
        let (lo, hi) = match self {
            SizeDist::Fixed { size } => (size.get(), Some(size.get())),
            SizeDist::Exponential { .. } => (1, None),
            SizeDist::Pareto { mean, shape } => (
                (mean.get() as f64 * (shape - 1.0) / shape).round() as u64,
                None,
            ),
            SizeDist::Uniform { min, max } | SizeDist::BoundedPareto { min, max, .. } => {
                (min.get(), Some(max.get()))
            }
            SizeDist::Choice { values, .. } => (
                values.iter().map(|v| v.get()).min().unwrap_or(1),
                values.iter().map(|v| v.get()).max(),
            ),
        };
        (lo.max(1), hi.map(|h| h.max(1)))
    }

    /// Draw one size in bytes (at least 1).
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
            SizeDist::BoundedPareto { min, max, shape } => {
                // Inverse transform of the truncated CDF.
                let (l, h) = (min.get() as f64, max.get() as f64);
                let u: f64 = rng.random();
                let x = l / (1.0 - u * (1.0 - (l / h).powf(*shape))).powf(1.0 / shape);
                return (x.round() as u64).clamp(min.get(), max.get());
            }
            SizeDist::Uniform { min, max } => {
                return rng.random_range(min.get()..=max.get()).max(1);
            }
            SizeDist::Choice { values, weights } => {
                // One uniform draw per sample, whichever value it picks.
                let u: f64 = rng.random();
                let Some(w) = weights else {
                    let i = ((u * values.len() as f64) as usize).min(values.len() - 1);
                    return values[i].get();
                };
                let mut left = u * w.iter().sum::<f64>();
                for (v, x) in values.iter().zip(w) {
                    if left < *x {
                        return v.get();
                    }
                    left -= x;
                }
                // Rounding at the top end: the last value of positive weight.
                let last = w.iter().rposition(|x| *x > 0.0).unwrap_or(values.len() - 1);
                return values[last].get();
            }
        };
        (x.round() as u64).max(1)
    }
}

/// A flow-lifetime distribution (for flow arrival processes whose flows send
/// for a drawn time rather than a drawn number of bytes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum DurationDist {
    /// Every flow lives this long.
    Fixed {
        /// Lifetime.
        duration: SimDuration,
    },
    /// Exponentially distributed lifetimes with this mean.
    Exponential {
        /// Mean lifetime.
        mean: SimDuration,
    },
    /// Log-normal lifetimes with this mean: `ln X ~ N(mu, sigma^2)` with
    /// `mu = ln(mean) - sigma^2 / 2` (so `E[X] = mean`; median
    /// `mean e^(-sigma^2/2)`). Seed 002 E6.1 gives only the mean (10 s, after
    /// Paxson's connection-duration models); `sigma` is the spread of `ln X`.
    Lognormal {
        /// Mean lifetime.
        mean: SimDuration,
        /// Standard deviation of `ln X` (> 0; at most 5).
        sigma: f64,
    },
    /// Uniform lifetimes in `[min, max]`.
    Uniform {
        /// Shortest lifetime.
        min: SimDuration,
        /// Longest lifetime (>= min).
        max: SimDuration,
    },
}

impl DurationDist {
    /// Check parameters.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            DurationDist::Fixed { duration } if *duration == SimDuration::ZERO => {
                Err(ParamError::new("duration", "must be > 0"))
            }
            DurationDist::Exponential { mean } | DurationDist::Lognormal { mean, .. }
                if *mean == SimDuration::ZERO =>
            {
                Err(ParamError::new("mean", "must be > 0"))
            }
            DurationDist::Lognormal { sigma, .. } => {
                check_range("sigma", *sigma, f64::MIN_POSITIVE, 5.0)
            }
            DurationDist::Uniform { min, max } if min > max => Err(ParamError::new(
                "max",
                format!("{max} is below min ({min}); allowed: min <= max"),
            )),
            DurationDist::Uniform { max, .. } if *max == SimDuration::ZERO => {
                Err(ParamError::new("max", "must be > 0"))
            }
            _ => Ok(()),
        }
    }

    /// The distribution's mean.
    pub fn mean(&self) -> SimDuration {
        match self {
            DurationDist::Fixed { duration } => *duration,
            DurationDist::Exponential { mean } | DurationDist::Lognormal { mean, .. } => *mean,
            DurationDist::Uniform { min, max } => {
                SimDuration::from_ps(min.as_ps() / 2 + max.as_ps() / 2)
            }
        }
    }

    /// Draw one lifetime (picosecond resolution, at least 1 ps).
    pub fn sample(&self, rng: &mut SimRng) -> SimDuration {
        use rand::Rng;
        let secs = match self {
            DurationDist::Fixed { duration } => return *duration,
            DurationDist::Exponential { mean } => {
                let u: f64 = rng.random();
                -(1.0 - u).ln() * mean.as_secs_f64()
            }
            DurationDist::Lognormal { mean, sigma } => {
                let mu = mean.as_secs_f64().ln() - sigma * sigma / 2.0;
                (mu + sigma * standard_normal(rng)).exp()
            }
            DurationDist::Uniform { min, max } => {
                let span = max.as_ps() - min.as_ps();
                return SimDuration::from_ps(min.as_ps() + rng.random_range(0..=span))
                    .max(SimDuration::from_ps(1));
            }
        };
        SimDuration::from_secs_f64(secs).max(SimDuration::from_ps(1))
    }
}

/// One standard normal draw (Box-Muller, the cosine branch; two uniforms per
/// draw, so the stream's position does not depend on earlier draws' values).
pub fn standard_normal(rng: &mut SimRng) -> f64 {
    use rand::Rng;
    let u1: f64 = rng.random();
    let u2: f64 = rng.random();
    // 1 - u1 is in (0, 1]: the logarithm is finite.
    (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
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
    /// Flows arrive as a Poisson process (`rate` flows per second), from the
    /// group's `start` until its `stop` or `count` arrivals; each either sends
    /// a drawn number of bytes (`size`) and completes, or sends without end
    /// (bulk, paced by its controller) for a drawn lifetime (`duration`) and
    /// stops: exactly one of the two. The group's own `count` is ignored.
    PoissonArrivals {
        /// Mean arrival rate, flows per second (mean inter-arrival 1 / rate).
        rate: f64,
        /// Flow-size distribution.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<SizeDist>,
        /// Flow-lifetime distribution.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration: Option<DurationDist>,
        /// At most this many arrivals, up to 1 000 000 (default: no limit; the
        /// scenario check then bounds `rate` x the group's active time at
        /// 1 000 000 flows on average).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u32>,
    },
    /// Web sessions of pages of objects ([`WebConfig`]), each object its
    /// own transfer (a flow of the group) from `from` to `to`.
    Web(WebConfig),
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
            TrafficConfig::Web(_) => "web",
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
            TrafficConfig::PoissonArrivals {
                rate,
                size,
                duration,
                count,
            } => {
                check_range("rate", *rate, f64::MIN_POSITIVE, 1e9)?;
                if *count == Some(0) {
                    return Err(ParamError::new(
                        "count",
                        "must be >= 1 (or left out: no limit)",
                    ));
                }
                match (size, duration) {
                    (Some(s), None) => s.validate().map_err(|e| e.prefixed("size")),
                    (None, Some(d)) => d.validate().map_err(|e| e.prefixed("duration")),
                    (Some(_), Some(_)) => Err(ParamError::new(
                        "duration",
                        "give `size` (flows of a drawn size) or `duration` (flows that send \
                         for a drawn time), not both",
                    )),
                    (None, None) => Err(ParamError::new(
                        "size",
                        "missing: give `size = { dist = ... }` (flows of a drawn size) or \
                         `duration = { dist = ... }` (flows that send for a drawn time)",
                    )),
                }
            }
            TrafficConfig::Web(w) => w.validate(),
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
    fn bounded_pareto_sizes_stay_in_bounds_with_the_closed_form_mean() {
        // Zimmermann (2005) E4's object sizes: 100 B .. 10 MB, shape 1.1.
        let (l, h, a) = (100.0f64, 1e7f64, 1.1f64);
        let d = SizeDist::BoundedPareto {
            min: Bytes::new(100),
            max: Bytes::new(10_000_000),
            shape: a,
        };
        // The closed form against a numerical integral of x f(x) (midpoint
        // rule on a log grid), an independent reading of the density.
        let norm = 1.0 - (l / h).powf(a);
        let steps = 200_000;
        let (ll, lh) = (l.ln(), h.ln());
        let mut integral = 0.0;
        for i in 0..steps {
            let t = ll + (lh - ll) * (i as f64 + 0.5) / steps as f64;
            let x = t.exp();
            // x f(x) dx with dx = x dt, f(x) = a l^a x^-(a+1) / norm.
            integral += x * a * l.powf(a) * x.powf(-a - 1.0) / norm * x * (lh - ll) / steps as f64;
        }
        assert!(
            (d.mean() - integral).abs() < 1e-6 * integral,
            "{} vs {integral}",
            d.mean()
        );
        let mut rng = stream(7, 0, StreamKind::Group, 3);
        let n = 400_000;
        let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut rng) as f64).collect();
        assert!(xs.iter().all(|&x| (100.0..=1e7).contains(&x)));
        // The median of the truncated law: l (1 - norm / 2)^(-1/a).
        let median = l * (1.0 - norm / 2.0).powf(-1.0 / a);
        let below = xs.iter().filter(|&&x| x <= median).count() as f64 / n as f64;
        // Binomial SE at 0.5 with 4e5 draws: 7.9e-4; 5 SE (and rounding).
        assert!((below - 0.5).abs() < 5.0 * 7.9e-4 + 1e-3, "{below}");
        // The sample mean within 6 standard errors from the sample variance.
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let se = (var / n as f64).sqrt();
        assert!(
            (mean - d.mean()).abs() < 6.0 * se,
            "{mean} vs {} (se {se})",
            d.mean()
        );
        assert!(SizeDist::BoundedPareto {
            min: Bytes::new(10),
            max: Bytes::new(10),
            shape: 1.0
        }
        .validate()
        .is_err());
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
    fn choice_sizes_follow_their_weights_and_uniform_sizes_their_range() {
        let b = Bytes::new;
        let d = SizeDist::Choice {
            values: vec![b(500), b(1500), b(9000)],
            weights: Some(vec![1.0, 3.0, 0.0]),
        };
        assert_eq!(d.validate(), Ok(()));
        assert_eq!(d.mean(), 1250.0);
        assert_eq!(d.bounds(), (500, Some(9000)));
        let mut rng = stream(7, 0, StreamKind::Group, 4);
        let n = 100_000;
        let xs: Vec<u64> = (0..n).map(|_| d.sample(&mut rng)).collect();
        assert!(
            xs.iter().all(|&x| x == 500 || x == 1500),
            "a zero weight is never drawn"
        );
        // P(1500) = 0.75; SE over 1e5 draws 0.00137.
        let big = xs.iter().filter(|&&x| x == 1500).count() as f64 / n as f64;
        assert!((big - 0.75).abs() < 5.0 * 0.00137, "{big}");
        let even = SizeDist::Choice {
            values: vec![b(100), b(300)],
            weights: None,
        };
        assert_eq!(even.mean(), 200.0);
        let m = (0..n).map(|_| even.sample(&mut rng) as f64).sum::<f64>() / n as f64;
        // sd 100 B, SE 0.32 B.
        assert!((m - 200.0).abs() < 5.0 * 0.32, "{m}");
        let u = SizeDist::Uniform {
            min: b(40),
            max: b(1500),
        };
        assert_eq!(u.mean(), 770.0);
        let xs: Vec<u64> = (0..n).map(|_| u.sample(&mut rng)).collect();
        assert!(xs.iter().all(|x| (40..=1500).contains(x)));
        assert_eq!((xs.iter().min(), xs.iter().max()), (Some(&40), Some(&1500)));
        assert_eq!(SizeDist::Exponential { mean: b(1000) }.bounds(), (1, None));
    }

    #[test]
    fn bad_choice_and_uniform_sizes_are_rejected_with_their_key() {
        let b = Bytes::new;
        let key = |d: SizeDist| d.validate().unwrap_err().key;
        let choice =
            |values: Vec<Bytes>, weights: Option<Vec<f64>>| SizeDist::Choice { values, weights };
        assert_eq!(key(choice(vec![], None)), "values");
        assert_eq!(key(choice(vec![b(5), b(0)], None)), "values[1]");
        assert_eq!(key(choice(vec![b(5)], Some(vec![1.0, 1.0]))), "weights");
        assert_eq!(
            key(choice(vec![b(5), b(6)], Some(vec![1.0, -1.0]))),
            "weights[1]"
        );
        assert_eq!(
            key(choice(vec![b(5), b(6)], Some(vec![1.0, f64::NAN]))),
            "weights[1]"
        );
        assert_eq!(key(choice(vec![b(5)], Some(vec![0.0]))), "weights");
        let uniform = |min, max| SizeDist::Uniform { min, max };
        assert_eq!(key(uniform(b(10), b(9))), "max");
        assert_eq!(key(uniform(b(0), b(0))), "max");
        assert_eq!(uniform(b(0), b(1)).validate(), Ok(()));
    }

    #[test]
    fn invalid_traffic_parameters_are_rejected_with_their_key() {
        let e = TrafficConfig::Finite { size: Bytes::ZERO }
            .validate()
            .unwrap_err();
        assert_eq!(e.key, "size");
        let e = TrafficConfig::PoissonArrivals {
            rate: 1.0,
            size: Some(SizeDist::Pareto {
                mean: Bytes::new(1000),
                shape: 1.0,
            }),
            duration: None,
            count: None,
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

    fn arrivals(
        size: Option<SizeDist>,
        duration: Option<DurationDist>,
        count: Option<u32>,
    ) -> TrafficConfig {
        TrafficConfig::PoissonArrivals {
            rate: 5.0,
            size,
            duration,
            count,
        }
    }

    #[test]
    fn arrivals_need_exactly_one_of_size_and_duration_and_a_positive_count() {
        let size = Some(SizeDist::Fixed {
            size: Bytes::new(1000),
        });
        let life = Some(DurationDist::Fixed {
            duration: SimDuration::from_secs(1),
        });
        assert!(arrivals(size.clone(), None, Some(500)).validate().is_ok());
        assert!(arrivals(None, life.clone(), None).validate().is_ok());
        assert_eq!(
            arrivals(None, None, None).validate().unwrap_err().key,
            "size"
        );
        let e = arrivals(size, life.clone(), None).validate().unwrap_err();
        assert_eq!(e.key, "duration");
        assert!(e.message.contains("not both"), "{e}");
        assert_eq!(
            arrivals(None, life, Some(0)).validate().unwrap_err().key,
            "count"
        );
        let bad = Some(DurationDist::Lognormal {
            mean: SimDuration::from_secs(10),
            sigma: 0.0,
        });
        assert_eq!(
            arrivals(None, bad, None).validate().unwrap_err().key,
            "duration.sigma"
        );
        let bad = Some(DurationDist::Uniform {
            min: SimDuration::from_secs(2),
            max: SimDuration::from_secs(1),
        });
        assert_eq!(
            arrivals(None, bad, None).validate().unwrap_err().key,
            "duration.max"
        );
        let bad = Some(DurationDist::Exponential {
            mean: SimDuration::ZERO,
        });
        assert_eq!(
            arrivals(None, bad, None).validate().unwrap_err().key,
            "duration.mean"
        );
    }

    #[test]
    fn lognormal_lifetimes_have_the_requested_mean_and_median() {
        // mean 10 s, sigma 1: mu = ln 10 - 1/2, median e^mu = 6.065 s;
        // Var = mean^2 (e^(sigma^2) - 1) = 171.8 s^2, SE over 2e5 draws = 0.0293 s.
        let d = DurationDist::Lognormal {
            mean: SimDuration::from_secs(10),
            sigma: 1.0,
        };
        assert_eq!(d.mean(), SimDuration::from_secs(10));
        let mut rng = stream(7, 0, StreamKind::Group, 2);
        let n = 200_000;
        let mut xs: Vec<f64> = (0..n).map(|_| d.sample(&mut rng).as_secs_f64()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        assert!((mean - 10.0).abs() < 5.0 * 0.0293, "{mean}");
        xs.sort_by(f64::total_cmp);
        let median = xs[n / 2];
        let want = (10f64.ln() - 0.5).exp();
        // The sample median's SE: sqrt(pi/2) * sigma * median / sqrt(n) = 0.017 s.
        assert!((median - want).abs() < 5.0 * 0.017, "{median} vs {want}");
        // ln X has standard deviation sigma.
        let logs: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
        let m = logs.iter().sum::<f64>() / n as f64;
        let sd = (logs.iter().map(|l| (l - m) * (l - m)).sum::<f64>() / (n as f64 - 1.0)).sqrt();
        assert!((sd - 1.0).abs() < 0.01, "{sd}");
    }

    #[test]
    fn exponential_and_uniform_lifetimes_respect_their_parameters() {
        let mut rng = stream(7, 0, StreamKind::Group, 3);
        let e = DurationDist::Exponential {
            mean: SimDuration::from_millis(200),
        };
        let n = 200_000;
        let mean = (0..n)
            .map(|_| e.sample(&mut rng).as_secs_f64())
            .sum::<f64>()
            / n as f64;
        // SE = 0.2 / sqrt(2e5) = 0.000447 s.
        assert!((mean - 0.2).abs() < 5.0 * 0.000447, "{mean}");
        let (lo, hi) = (SimDuration::from_secs(1), SimDuration::from_secs(15));
        let u = DurationDist::Uniform { min: lo, max: hi };
        assert_eq!(u.mean(), SimDuration::from_secs(8));
        let xs: Vec<SimDuration> = (0..n).map(|_| u.sample(&mut rng)).collect();
        assert!(xs.iter().all(|x| *x >= lo && *x <= hi));
        let mean = xs.iter().map(|x| x.as_secs_f64()).sum::<f64>() / n as f64;
        // SE = 14 / sqrt(12 * 2e5) = 0.00904 s.
        assert!((mean - 8.0).abs() < 5.0 * 0.00904, "{mean}");
        let f = DurationDist::Fixed {
            duration: SimDuration::from_secs(3),
        };
        assert_eq!(f.sample(&mut rng), SimDuration::from_secs(3));
    }
}
