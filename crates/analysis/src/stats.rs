//! Summary statistics across replications, and Jain's fairness index.
//!
//! Confidence intervals are two-sided Student-t intervals with n-1 degrees of
//! freedom (DESIGN.md section 5: never the normal approximation on 5-10
//! replications): `mean ± t_{(1+level)/2, n-1} * sd / sqrt(n)`, where `sd` is the
//! sample standard deviation (divisor n-1). The replications are independent (each
//! has its own random streams), which is what the interval assumes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The default confidence level: 95 % two-sided.
pub const DEFAULT_LEVEL: f64 = 0.95;

/// Mean, spread and confidence half-width of a metric over replications.
///
/// The caller passes only defined values (no NaN, no "metric absent in this
/// replication" placeholder); `n` is the number of values given.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Summary {
    /// Number of values (replications that define the metric).
    pub n: usize,
    /// Sample mean (NaN when `n == 0`).
    pub mean: f64,
    /// Sample standard deviation, divisor n-1 (NaN when `n < 2`).
    pub sd: f64,
    /// Half-width of the confidence interval for the mean (NaN when `n < 2`).
    pub half_width: f64,
}

impl Summary {
    /// Mean, standard deviation and 95 % Student-t half-width of `values`.
    pub fn new(values: &[f64]) -> Self {
        Summary::with_level(values, DEFAULT_LEVEL)
    }

    /// As [`Summary::new`] at confidence `level` in (0, 1) (e.g. 0.90 for the 90 %
    /// intervals some seed papers report).
    pub fn with_level(values: &[f64], level: f64) -> Self {
        let n = values.len();
        if n == 0 {
            return Summary {
                n,
                mean: f64::NAN,
                sd: f64::NAN,
                half_width: f64::NAN,
            };
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Summary {
                n,
                mean,
                sd: f64::NAN,
                half_width: f64::NAN,
            };
        }
        // Two-pass variance: exact enough for the magnitudes here (bits/s ~ 1e10).
        let ss: f64 = values.iter().map(|x| (x - mean) * (x - mean)).sum();
        let sd = (ss / (n - 1) as f64).sqrt();
        let half_width = t_quantile(level, n - 1) * sd / (n as f64).sqrt();
        Summary {
            n,
            mean,
            sd,
            half_width,
        }
    }

    /// True when a confidence interval exists (`n >= 2` and a finite half-width).
    pub fn has_ci(&self) -> bool {
        self.n >= 2 && self.half_width.is_finite()
    }

    /// Lower end of the interval (the mean itself when there is no interval).
    pub fn lo(&self) -> f64 {
        if self.has_ci() {
            self.mean - self.half_width
        } else {
            self.mean
        }
    }

    /// Upper end of the interval (the mean itself when there is no interval).
    pub fn hi(&self) -> f64 {
        if self.has_ci() {
            self.mean + self.half_width
        } else {
            self.mean
        }
    }
}

impl fmt::Display for Summary {
    /// `"mean ± half"`, `"mean (n=1, no CI)"` or `"n=0"`; a precision such as
    /// `{:.3}` applies to both numbers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = f.precision().unwrap_or(4);
        match self.n {
            0 => write!(f, "n=0"),
            _ if self.has_ci() => write!(f, "{:.p$} ± {:.p$}", self.mean, self.half_width),
            _ => write!(f, "{:.p$} (n={}, no CI)", self.mean, self.n),
        }
    }
}

/// The two-sided Student-t critical value `t_{(1+level)/2, df}`, e.g.
/// `t_quantile(0.95, 4) = 2.776445`. NaN for `df == 0` or a level outside (0, 1).
///
/// The inverse CDF is an iterative search (microseconds); a summary of 10^7
/// rows asks for the same few values over and over, so each thread keeps the
/// values it has computed.
pub fn t_quantile(level: f64, df: usize) -> f64 {
    if df == 0 || !(level > 0.0 && level < 1.0) {
        return f64::NAN;
    }
    thread_local! {
        static KNOWN: RefCell<HashMap<(u64, usize), f64>> = RefCell::new(HashMap::new());
    }
    let key = (level.to_bits(), df);
    if let Some(t) = KNOWN.with(|k| k.borrow().get(&key).copied()) {
        return t;
    }
    let t = match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) => t.inverse_cdf(0.5 + level / 2.0),
        Err(_) => f64::NAN,
    };
    KNOWN.with(|k| k.borrow_mut().insert(key, t));
    t
}

/// The `q`-quantile (`q` in [0, 1]) of `xs` by linear interpolation between
/// order statistics (Hyndman and Fan's type 7, R's and NumPy's default):
/// position `q (n - 1)` in the sorted sample. `None` for an empty sample.
pub fn quantile(xs: &[f64], q: f64) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (i, frac) = (pos.floor() as usize, pos.fract());
    let next = v[(i + 1).min(v.len() - 1)];
    Some(v[i] + frac * (next - v[i]))
}

/// Jain's fairness index `(sum x)^2 / (n * sum x^2)`: 1 when all shares are equal,
/// 1/n when one share takes everything (Jain, Chiu, Hawe, DEC-TR-301, 1984).
///
/// NaN for an empty slice or when every share is zero (the index is undefined).
pub fn jain(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || sum_sq == 0.0 {
        return f64::NAN;
    }
    sum * sum / (n * sum_sq)
}

#[cfg(test)]
mod tests {
    #[test]
    fn quantiles_interpolate_between_order_statistics() {
        let xs = [4.0, 1.0, 3.0, 2.0, 5.0];
        assert_eq!(super::quantile(&xs, 0.5), Some(3.0));
        assert_eq!(super::quantile(&xs, 0.0), Some(1.0));
        assert_eq!(super::quantile(&xs, 1.0), Some(5.0));
        // Position 0.9 x 4 = 3.6: 4 + 0.6 (5 - 4); NumPy gives 4.6.
        assert!((super::quantile(&xs, 0.9).unwrap() - 4.6).abs() < 1e-12);
        assert_eq!(super::quantile(&[], 0.5), None);
        assert_eq!(super::quantile(&[7.0], 0.99), Some(7.0));
    }

    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    // Critical values from the NIST/SEMATECH e-Handbook of Statistical Methods,
    // section 1.3.6.7.2 "Critical values of the Student's t distribution"
    // (https://www.itl.nist.gov/div898/handbook/eda/section3/eda3672.htm), with the
    // extra digits from R's `qt(0.975, 4)` = 2.776445105.
    #[test]
    fn t_quantiles_match_the_tables() {
        assert!(close(t_quantile(0.95, 4), 2.776445, 1e-6));
        assert!(close(t_quantile(0.95, 1), 12.706205, 1e-5));
        assert!(close(t_quantile(0.95, 9), 2.262157, 1e-6));
        assert!(close(t_quantile(0.90, 4), 2.131847, 1e-6));
        assert!(close(t_quantile(0.99, 29), 2.756386, 1e-6));
        assert!(t_quantile(0.95, 0).is_nan());
    }

    #[test]
    fn five_values_give_the_hand_computed_interval() {
        // mean 3, sd = sqrt(10 / 4) = 1.5811388, half = 2.7764451 * sd / sqrt(5).
        let s = Summary::new(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(s.n, 5);
        assert_eq!(s.mean, 3.0);
        assert!(close(s.sd, 1.581_138_830, 1e-9));
        assert!(close(s.half_width, 1.963_243_2, 1e-6));
        assert!(close(s.lo(), 3.0 - 1.963_243_2, 1e-6));
        assert_eq!(format!("{s:.2}"), "3.00 ± 1.96");
    }

    #[test]
    fn ninety_percent_interval_uses_the_0_95_quantile() {
        // half = 2.1318468 * 1.5811388 / sqrt(5) = 1.5074443.
        let s = Summary::with_level(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.90);
        assert!(close(s.half_width, 1.507_444_3, 1e-6));
    }

    #[test]
    fn one_replication_has_no_interval() {
        let s = Summary::new(&[7.5]);
        assert_eq!((s.n, s.mean), (1, 7.5));
        assert!(s.sd.is_nan() && s.half_width.is_nan() && !s.has_ci());
        assert_eq!((s.lo(), s.hi()), (7.5, 7.5));
        assert_eq!(format!("{s:.1}"), "7.5 (n=1, no CI)");
    }

    #[test]
    fn no_values_give_nan_and_say_so() {
        let s = Summary::new(&[]);
        assert_eq!(s.n, 0);
        assert!(s.mean.is_nan());
        assert_eq!(s.to_string(), "n=0");
    }

    #[test]
    fn identical_values_give_a_zero_width_interval() {
        let s = Summary::new(&[2.0, 2.0, 2.0]);
        assert_eq!((s.mean, s.sd, s.half_width), (2.0, 0.0, 0.0));
        assert!(s.has_ci());
    }

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_a_hog() {
        assert_eq!(jain(&[5.0, 5.0, 5.0, 5.0]), 1.0);
        assert_eq!(jain(&[1.0, 0.0, 0.0, 0.0]), 0.25);
        // (1 + 2 + 3)^2 / (3 * (1 + 4 + 9)) = 36 / 42.
        assert!(close(jain(&[1.0, 2.0, 3.0]), 36.0 / 42.0, 1e-15));
        assert_eq!(jain(&[3.0]), 1.0);
        assert!(jain(&[]).is_nan());
        assert!(jain(&[0.0, 0.0]).is_nan());
    }
}
