//! Discrete-time model runs (no packets) of seed 002 (Zhang, PhD dissertation,
//! Texas A&M 2008), chapter V and VI: the numerical experiments the
//! dissertation runs on its control laws, so that the model and the
//! packet-level simulation can be compared.
//!
//! One model per file:
//! - [`kelly`]: classic Kelly control of one flow with the "negative loss"
//!   price (eq. 53-54, Fig. 14, experiment E5.1), and its delay bound
//!   `2 sin(pi / (2 (2D - 1)))` (eq. 3).
//! - [`emkc`]: EMKC on one link with per-flow delays (eq. 63-64 with price
//!   eq. 85), rate-based AIMD(alpha, beta) (eq. 114), steps to eps-fairness
//!   (eq. 107) and the closed forms theta_M (eq. 108) and theta_A (eq. 115)
//!   (Fig. 16-17, experiment E5.3).
//! - [`jetmax`]: the JetMax fluid model on one link (eq. 133-134) and its
//!   steps to (1-eps)-efficiency and (1-eps)-fairness (Def. 7, Theorem 17).
//!
//! This file holds what the models share: the error type, the eps-fairness
//! index of eq. 107, the stable/unstable verdict from a deviation envelope, and
//! the delay line that gives each flow its rate `D_i` steps ago.
//!
//! Time is an integer step `n`; a delay `D` of one step means the most recent
//! feedback (the Kelly/Johari convention of the dissertation, §2.0 of the
//! spec). Before step 0 every quantity equals its value at step 0 (a
//! constant history) [INFERRED: the dissertation does not say what the
//! history is; a constant one is the usual choice and makes a flow with delay
//! `D` run `D` identical interleaved copies of its one-RTT recursion, which
//! is the time scaling the proof of Theorem 11 uses].

pub mod aimd;
pub mod emkc;
pub mod jetmax;
pub mod kelly;

/// A bad model parameter, or a state in which the model is undefined.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A parameter is outside the range the model is defined on.
    #[error("{name} must be {expected} (got {value})")]
    OutOfRange {
        /// Parameter name as the user knows it (`"kappa"`, `"delay D"`, ...).
        name: &'static str,
        /// The range, in words (`"> 0"`, `"in (0, 1)"`, ...).
        expected: &'static str,
        /// The value given.
        value: f64,
    },
    /// The initial rate vector does not have one rate per flow.
    #[error("initial rates: {got} given for {flows} flow(s)")]
    InitialRates {
        /// Rates given.
        got: usize,
        /// Flows in the model.
        flows: usize,
    },
    /// The aggregate rate is zero, so the price `(X - C) / X` is undefined.
    #[error("the aggregate rate is 0 at step {step}: the price (X - C)/X is undefined (start at least one flow above 0)")]
    ZeroAggregate {
        /// The step whose aggregate is zero.
        step: usize,
    },
}

/// `Ok(())` if `ok`, else [`ModelError::OutOfRange`] naming the parameter.
pub(crate) fn require(
    ok: bool,
    name: &'static str,
    expected: &'static str,
    value: f64,
) -> Result<(), ModelError> {
    if ok {
        Ok(())
    } else {
        Err(ModelError::OutOfRange {
            name,
            expected,
            value,
        })
    }
}

/// Checks `eps` for the eps-fairness and (1-eps) metrics: `0 < eps < 1`.
pub(crate) fn require_eps(eps: f64) -> Result<(), ModelError> {
    require(eps > 0.0 && eps < 1.0, "eps", "in (0, 1)", eps)
}

/// Checks a list of per-flow delays: at least one flow, every delay >= 1 step.
pub(crate) fn require_delays(delays: &[usize]) -> Result<(), ModelError> {
    require(!delays.is_empty(), "flows N", ">= 1", 0.0)?;
    for &d in delays {
        require(d >= 1, "delay D", ">= 1 step", d as f64)?;
    }
    Ok(())
}

/// The fairness index of eq. 107, `f = min_i x_i / max_j x_j`; an allocation
/// is eps-fair when `f >= 1 - eps`. Equal rates (including all zero) give 1.
pub fn fairness_index(rates: &[f64]) -> f64 {
    let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
    let max = rates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if min == max {
        1.0
    } else {
        min / max
    }
}

/// `ceil(v)` that forgives floating-point noise just above an integer (a
/// closed form such as `log_{0.5} 0.25` can come out as `2.0000000000000004`).
pub(crate) fn ceil_steps(v: f64) -> usize {
    (v - 1e-9).ceil().max(0.0) as usize
}

/// The verdict of [`Envelope::verdict`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The deviation from the fixed point shrinks (or is at rounding level).
    Converging,
    /// The deviation grows (or overflowed).
    Diverging,
    /// Neither: the envelope is flat (a marginal gain) within the run.
    Undecided,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Converging => "converging",
            Verdict::Diverging => "diverging",
            Verdict::Undecided => "undecided",
        })
    }
}

/// Relative deviations at or below this are rounding noise: the run has
/// converged as far as `f64` can tell.
pub const ROUNDING_FLOOR: f64 = 1e-12;

/// The deviation envelope of a run: the largest relative deviation from the
/// fixed point in the third quarter (`earlier`) and in the last quarter
/// (`later`) of the run, each `window` steps long.
///
/// A linear recursion's deviation is a sum of geometric modes, so once the
/// dominant mode takes over the envelope shrinks (|root| < 1) or grows
/// (|root| > 1) from one window to the next. The window must span a few
/// oscillation periods of the slowest mode (for Kelly with delay `D` about
/// `4D` steps), so runs should be at least `~40 D` steps long [INFERRED: the
/// dissertation judges Fig. 14 by eye].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Envelope {
    /// Largest deviation in the third quarter of the run.
    pub earlier: f64,
    /// Largest deviation in the last quarter of the run.
    pub later: f64,
    /// Length of each window, in steps.
    pub window: usize,
}

impl Envelope {
    /// The envelope of `deviation` (one relative deviation `|x(n) - x*| / x*`
    /// per step), or `None` for fewer than 8 steps.
    pub fn of(deviation: &[f64]) -> Option<Envelope> {
        let len = deviation.len();
        if len < 8 {
            return None;
        }
        let window = len / 4;
        let worst = |s: &[f64]| {
            s.iter().fold(0.0_f64, |m, &v| {
                if v.is_finite() {
                    m.max(v.abs())
                } else {
                    f64::INFINITY
                }
            })
        };
        Some(Envelope {
            earlier: worst(&deviation[len - 2 * window..len - window]),
            later: worst(&deviation[len - window..]),
            window,
        })
    }

    /// Converging if the later envelope is below the earlier one or at
    /// rounding level ([`ROUNDING_FLOOR`]); diverging if it is above (or not
    /// finite); undecided if the two agree to 1e-9 relative.
    pub fn verdict(&self) -> Verdict {
        if !self.later.is_finite() {
            Verdict::Diverging
        } else if self.later <= ROUNDING_FLOOR || self.later < self.earlier * (1.0 - 1e-9) {
            Verdict::Converging
        } else if self.later > self.earlier * (1.0 + 1e-9) {
            Verdict::Diverging
        } else {
            Verdict::Undecided
        }
    }

    /// The envelope's mean growth factor per step, `(later / earlier)^(1 / window)`:
    /// an estimate of the dominant root's modulus (below 1 converges).
    pub fn growth_per_step(&self) -> f64 {
        (self.later / self.earlier).powf(1.0 / self.window as f64)
    }
}

/// Flows on one link, stepped one step at a time.
pub trait SingleLink {
    /// Number of flows `N`.
    fn flows(&self) -> usize;

    /// Runs steps `1..=steps` from `x(0) = x0`, calling `visit(n, x(n))` for
    /// `n = 0..=steps`. Fails on an initial vector of the wrong length or a
    /// state where the model is undefined.
    fn simulate(
        &self,
        x0: &[f64],
        steps: usize,
        visit: &mut dyn FnMut(usize, &[f64]),
    ) -> Result<(), ModelError>;

    /// `x(0), ..., x(steps)`, one rate vector per step.
    fn trajectory(&self, x0: &[f64], steps: usize) -> Result<Vec<Vec<f64>>, ModelError> {
        let mut out = Vec::with_capacity(steps + 1);
        self.simulate(x0, steps, &mut |_, x| out.push(x.to_vec()))?;
        Ok(out)
    }
}

/// [`ModelError::InitialRates`] unless there is one initial rate per flow.
pub(crate) fn require_initial(x0: &[f64], flows: usize) -> Result<(), ModelError> {
    if x0.len() == flows {
        Ok(())
    } else {
        Err(ModelError::InitialRates {
            got: x0.len(),
            flows,
        })
    }
}

/// The past of a single-link system with per-flow delays: the rate vectors
/// and their sums at the last `max_delay + 1` steps, with a constant history
/// before step 0.
pub(crate) struct DelayLine {
    slots: Vec<Vec<f64>>,
    sums: Vec<f64>,
}

impl DelayLine {
    /// The line at step 0: every slot (steps `-max_delay ..= 0`) holds `x0`.
    pub(crate) fn new(x0: &[f64], max_delay: usize) -> DelayLine {
        let len = max_delay + 1;
        DelayLine {
            slots: vec![x0.to_vec(); len],
            sums: vec![x0.iter().sum(); len],
        }
    }

    /// The rates and their sum at step `n - d` (the step-0 values if
    /// `n - d < 0`), for `1 <= d <= max_delay`, while the line holds step
    /// `n - 1`. Slot `(n - d) mod L` was last written at step `n - d` (later
    /// steps with that slot are `>= n - d + L > n - 1`), or never if
    /// `n - d < 0`, in which case it still holds `x0`.
    pub(crate) fn past(&self, n: usize, d: usize) -> (&[f64], f64) {
        let len = self.slots.len();
        let slot = (n + len - d) % len;
        (&self.slots[slot], self.sums[slot])
    }

    /// Records the rates of step `n` (overwriting step `n - L`, which no flow
    /// reads at step `n` since every delay is at most `L - 1`).
    pub(crate) fn push(&mut self, n: usize, rates: &[f64]) {
        let len = self.slots.len();
        let slot = n % len;
        self.slots[slot].copy_from_slice(rates);
        self.sums[slot] = rates.iter().sum();
    }
}

/// Run `steps` steps of a single-link model whose flow `i` sees the rates
/// of step `n - delays[i]`: `update(n, d, x_i, X)` gives flow `i`'s rate at
/// step `n` from its own rate `x_i` and the aggregate `X` of step `n - d`.
/// `visit` sees every step from 0 (`x0`).
pub(crate) fn run_delayed(
    x0: &[f64],
    delays: &[usize],
    steps: usize,
    visit: &mut dyn FnMut(usize, &[f64]),
    mut update: impl FnMut(usize, usize, f64, f64) -> Result<f64, ModelError>,
) -> Result<(), ModelError> {
    require_initial(x0, delays.len())?;
    let max_delay = delays.iter().copied().max().unwrap_or(1);
    let mut line = DelayLine::new(x0, max_delay);
    let mut next = vec![0.0; x0.len()];
    visit(0, x0);
    for n in 1..=steps {
        for (i, &d) in delays.iter().enumerate() {
            let (past, sum) = line.past(n, d);
            next[i] = update(n, d, past[i], sum)?;
        }
        line.push(n, &next);
        visit(n, &next);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fairness_index_is_min_over_max() {
        // eq. 107: f = min x / max x.
        assert_eq!(fairness_index(&[2.0, 8.0, 4.0]), 0.25);
        assert_eq!(fairness_index(&[0.0, 0.0]), 1.0);
        assert_eq!(fairness_index(&[0.0, 5.0]), 0.0);
    }

    #[test]
    fn envelope_reads_the_geometric_rate() {
        // A pure mode r^n: the envelope ratio over one window is r^window.
        for r in [0.9_f64, -0.95, 1.05, -1.1] {
            let dev: Vec<f64> = (0..400).map(|n| r.powi(n).abs()).collect();
            let e = Envelope::of(&dev).unwrap();
            assert!((e.growth_per_step() - r.abs()).abs() < 1e-9, "{r}: {e:?}");
            let want = if r.abs() < 1.0 {
                Verdict::Converging
            } else {
                Verdict::Diverging
            };
            assert_eq!(e.verdict(), want);
        }
        let flat = vec![1.0; 100];
        assert_eq!(Envelope::of(&flat).unwrap().verdict(), Verdict::Undecided);
        let overflow: Vec<f64> = (0..100)
            .map(|n| if n > 90 { f64::NAN } else { 1.0 })
            .collect();
        assert_eq!(
            Envelope::of(&overflow).unwrap().verdict(),
            Verdict::Diverging
        );
        assert!(Envelope::of(&[1.0; 7]).is_none());
    }

    #[test]
    fn delay_line_returns_the_rates_d_steps_back() {
        // Store step n as [n, 10 n]; with a constant history, step n - d < 0 reads step 0.
        let mut line = DelayLine::new(&[0.0, 0.0], 3);
        for n in 1..20_usize {
            for d in 1..=3 {
                let want = n.saturating_sub(d) as f64;
                let (x, sum) = line.past(n, d);
                assert_eq!(x, &[want, 10.0 * want][..], "n={n} d={d}");
                assert_eq!(sum, 11.0 * want);
            }
            line.push(n, &[n as f64, 10.0 * n as f64]);
        }
    }

    #[test]
    fn ceil_steps_forgives_rounding_only() {
        assert_eq!(ceil_steps(2.0 + 4e-16), 2);
        assert_eq!(ceil_steps(2.001), 3);
        assert_eq!(ceil_steps(-0.5), 0);
    }
}
