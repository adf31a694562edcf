//! Classic Kelly control of one flow with the "negative loss" price
//! (seed 002, Ch. V §1.1, Fig. 14, experiment E5.1).
//!
//! From the dissertation:
//! - price eq. 53, `p(n) = (x(n) - C) / x(n)`, allowed to be negative;
//! - the end-flow law it yields from the Johari-Tan form of Kelly control
//!   (eq. 1), eq. 54: `x(n) = x(n-1) + kappa omega - kappa (x(n-D) - C)`,
//!   with `D = 1` meaning immediate feedback (Ch. II convention);
//! - the fixed point `x* = C + omega`;
//! - the delay condition eq. 3 with `p + p' x = 1`:
//!   `kappa < 2 sin(pi / (2 (2D - 1)))`;
//! - E5.1: `kappa = 1/2`, `omega = 10`, `C = 1000` (mb/s): `D = 1` converges
//!   monotonically; `D = 2, 3` show "progressively increasing oscillations
//!   before entering the steady state" (larger for `D = 3`); `D = 4`
//!   diverges.
//!
//! \[INFERRED\]:
//! - the history before step 0 is `x(0)` (see [`super`]); Fig. 14's `x(0)` is
//!   not stated, so it is a parameter;
//! - rates are not clamped at 0: the model is the linear eq. 54 whose
//!   stability Fig. 14 illustrates (a diverging run goes negative);
//! - eq. 3 is, for this scalar law, also *necessary*: eq. 54's deviation
//!   obeys `e(n) = e(n-1) - kappa e(n-D)`, whose roots lie inside the unit
//!   circle iff `0 < kappa < 2 cos((D-1) pi / (2D - 1))` (Levin and May,
//!   1976) `= 2 sin(pi / (2 (2D - 1)))`; the tests check the simulated verdict
//!   on both sides of the bound;
//! - stable/unstable is read from the run by the envelope test of
//!   [`super::Envelope`].

use super::{require, Envelope, ModelError, Verdict};

/// One Kelly flow on one link, eq. 54.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kelly {
    /// Gain `kappa > 0`.
    pub kappa: f64,
    /// Willingness to pay `omega >= 0` (rate units).
    pub omega: f64,
    /// Link capacity `C > 0` (rate units).
    pub capacity: f64,
    /// Feedback delay `D >= 1` in steps (`1` = immediate feedback).
    pub delay: usize,
}

impl Kelly {
    /// A checked model: `kappa > 0`, `omega >= 0`, `C > 0`, `D >= 1` (so
    /// `x* = C + omega > 0`).
    pub fn new(kappa: f64, omega: f64, capacity: f64, delay: usize) -> Result<Kelly, ModelError> {
        require(kappa > 0.0 && kappa.is_finite(), "kappa", "> 0", kappa)?;
        require(omega >= 0.0 && omega.is_finite(), "omega", ">= 0", omega)?;
        require(
            capacity > 0.0 && capacity.is_finite(),
            "capacity C",
            "> 0",
            capacity,
        )?;
        require(delay >= 1, "delay D", ">= 1 step", delay as f64)?;
        Ok(Kelly {
            kappa,
            omega,
            capacity,
            delay,
        })
    }

    /// The fixed point of eq. 54, `x* = C + omega`.
    pub fn equilibrium(&self) -> f64 {
        self.capacity + self.omega
    }

    /// The gain bound of eq. 3 for this delay, [`gain_bound`]`(D)`.
    pub fn gain_bound(&self) -> f64 {
        gain_bound(self.delay)
    }

    /// Whether eq. 3 says the flow is stable: `kappa < 2 sin(pi / (2 (2D - 1)))`.
    pub fn stable_by_eq3(&self) -> bool {
        self.kappa < self.gain_bound()
    }

    /// `x(0), x(1), ..., x(steps)` of eq. 54 from `x(0) = x0` (and
    /// `x(n) = x0` for `n < 0`).
    pub fn trajectory(&self, x0: f64, steps: usize) -> Vec<f64> {
        let mut x = Vec::with_capacity(steps + 1);
        x.push(x0);
        for n in 1..=steps {
            let delayed = n.checked_sub(self.delay).map_or(x0, |k| x[k]);
            let next = x[n - 1] + self.kappa * self.omega - self.kappa * (delayed - self.capacity);
            x.push(next);
        }
        x
    }

    /// `|x(n) - x*| / x*` along a trajectory.
    pub fn relative_deviation(&self, trajectory: &[f64]) -> Vec<f64> {
        let star = self.equilibrium();
        trajectory
            .iter()
            .map(|x| (x - star).abs() / star.abs())
            .collect()
    }

    /// The deviation envelope of a trajectory (`None` below 8 steps).
    pub fn envelope(&self, trajectory: &[f64]) -> Option<Envelope> {
        Envelope::of(&self.relative_deviation(trajectory))
    }

    /// Stable/unstable as read from a trajectory's envelope.
    pub fn verdict(&self, trajectory: &[f64]) -> Option<Verdict> {
        self.envelope(trajectory).map(|e| e.verdict())
    }
}

/// Eq. 3's bound on the gain for the "negative loss" price (`p + p' x = 1`):
/// `2 sin(pi / (2 (2D - 1)))`; 2, 1, 0.618, 0.445 for `D = 1, 2, 3, 4`.
pub fn gain_bound(delay: usize) -> f64 {
    let d = delay.max(1) as f64;
    2.0 * (std::f64::consts::PI / (2.0 * (2.0 * d - 1.0))).sin()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// E5.1 / Fig. 14: kappa = 1/2, omega = 10, C = 1000.
    fn e5_1(delay: usize) -> Kelly {
        Kelly::new(0.5, 10.0, 1000.0, delay).unwrap()
    }

    #[test]
    fn fixed_point_is_capacity_plus_omega() {
        // Fixed point of eq. 54: x = x + kappa omega - kappa (x - C) => x* = C + omega.
        let k = e5_1(1);
        assert_eq!(k.equilibrium(), 1000.0 + 10.0);
        // Started at x*, eq. 54 stays there for every delay.
        for d in 1..=6 {
            let k = e5_1(d);
            let x = k.trajectory(k.equilibrium(), 50);
            assert!(x.iter().all(|&v| v == k.equilibrium()), "D={d}");
        }
    }

    #[test]
    fn e5_1_delays_one_to_three_converge_and_four_diverges() {
        // Eq. 3 with p + p'x = 1: stable iff 1/2 < 2 sin(pi / (2(2D - 1))).
        for d in 1..=4 {
            let k = e5_1(d);
            let bound = 2.0 * (std::f64::consts::PI / (2.0 * (2.0 * d as f64 - 1.0))).sin();
            assert!((k.gain_bound() - bound).abs() < 1e-15);
            let x = k.trajectory(0.0, 400);
            let want = if 0.5 < bound {
                Verdict::Converging
            } else {
                Verdict::Diverging
            };
            assert_eq!(k.verdict(&x), Some(want), "D={d}: {:?}", k.envelope(&x));
            assert_eq!(k.stable_by_eq3(), want == Verdict::Converging);
        }
        // The bound puts the threshold between D = 3 and D = 4 for kappa = 1/2.
        assert!(gain_bound(3) > 0.5 && gain_bound(4) < 0.5);
        // The converging runs end at x* = C + omega.
        for d in 1..=3 {
            let k = e5_1(d);
            let last = *k.trajectory(0.0, 2000).last().unwrap();
            assert!((last - 1010.0).abs() < 1e-6, "D={d}: {last}");
        }
    }

    #[test]
    fn immediate_feedback_converges_monotonically() {
        // D = 1: eq. 54 is x(n) = (1 - kappa) x(n-1) + kappa (C + omega), so
        // x(n) - x* = (1 - kappa)^n (x(0) - x*): monotone for 0 < kappa <= 1.
        let k = e5_1(1);
        let x = k.trajectory(0.0, 80);
        for (n, w) in x.windows(2).enumerate() {
            assert!(w[1] >= w[0] && w[1] <= 1010.0, "step {n}: {w:?}");
            let closed = 1010.0 + 0.5_f64.powi(n as i32 + 1) * (0.0 - 1010.0);
            assert!((w[1] - closed).abs() < 1e-9, "step {}", n + 1);
        }
    }

    #[test]
    fn oscillation_grows_with_delay_before_settling() {
        // Fig. 14(b)-(c): D = 2, 3 overshoot x*, D = 3 more than D = 2; D = 1 never does.
        let overshoot = |d| {
            let k = e5_1(d);
            k.trajectory(0.0, 400)
                .iter()
                .fold(f64::NEG_INFINITY, |m, &v| m.max(v - k.equilibrium()))
        };
        let (o1, o2, o3) = (overshoot(1), overshoot(2), overshoot(3));
        assert!(o1 <= 0.0, "{o1}");
        assert!(o2 > 0.0 && o3 > o2, "{o2} {o3}");
    }

    #[test]
    fn simulated_verdict_matches_eq3_on_both_sides_of_the_bound() {
        // Eq. 3 (exact for this scalar law, Levin-May): converge at 0.8 x bound,
        // diverge at 1.2 x bound, for D = 1..8.
        for d in 1..=8 {
            let bound = gain_bound(d);
            for (factor, want) in [(0.8, Verdict::Converging), (1.2, Verdict::Diverging)] {
                let k = Kelly::new(factor * bound, 10.0, 1000.0, d).unwrap();
                let x = k.trajectory(0.0, 200 * d);
                assert_eq!(k.verdict(&x), Some(want), "D={d} kappa={}", k.kappa);
            }
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(matches!(
            Kelly::new(0.0, 10.0, 1000.0, 1),
            Err(ModelError::OutOfRange { name: "kappa", .. })
        ));
        assert!(matches!(
            Kelly::new(0.5, 10.0, 1000.0, 0),
            Err(ModelError::OutOfRange {
                name: "delay D",
                ..
            })
        ));
        assert!(Kelly::new(0.5, 10.0, -1.0, 1).is_err());
        assert!(Kelly::new(0.5, f64::NAN, 1000.0, 1).is_err());
        assert!(Kelly::new(0.5, -1.0, 1000.0, 1).is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Issue 6's Kelly invariant: with kappa = 1/2 and the negative-loss
        /// price, eq. 54 converges to x* = C + omega for D <= 3 steps and
        /// diverges for D = 4 (eq. 3: 2 sin(pi/10) = 0.618 > 1/2 >
        /// 2 sin(pi/14) = 0.445), from any start and for any C and omega.
        #[test]
        fn kappa_half_is_stable_up_to_three_steps_and_not_at_four(
            capacity in 1.0f64..1e4,
            omega_frac in 0.001f64..1.0,
            x0_frac in 0.0f64..3.0,
        ) {
            let omega = omega_frac * capacity;
            let x0 = x0_frac * capacity;
            for d in 1..=4 {
                let k = Kelly::new(0.5, omega, capacity, d).unwrap();
                let x = k.trajectory(x0, 600);
                let star = capacity + omega;
                if d <= 3 {
                    let last = *x.last().unwrap();
                    proptest::prop_assert!((last - star).abs() <= 1e-6 * star, "D={}: {}", d, last);
                } else if (x0 - star).abs() > 1e-9 * star {
                    proptest::prop_assert_eq!(k.verdict(&x), Some(Verdict::Diverging));
                }
            }
        }
    }
}
