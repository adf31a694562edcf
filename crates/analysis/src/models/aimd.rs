//! Rate-based AIMD(alpha, beta) on one link, the comparison point of EMKC's
//! convergence to fairness (seed 002, Ch. V §3.2, eq. 114-115, Fig. 17).
//!
//! - \[PAPER\] eq. 114: `x(t) = x(t - RTT) + alpha` per RTT without loss,
//!   `(1 - beta) x(t - RTT)` on loss, `0 < beta < 1`.
//! - \[INFERRED\] losses are synchronised: flow `i` backs off at step `n` iff
//!   the aggregate it sees, `X(n - D_i)`, exceeds `C` (the loss model of the
//!   paper's eq. 115 derivation; see `super::emkc` for the counts).

use super::emkc::check_link;
use super::{require, require_delays, run_delayed, ModelError, SingleLink};

/// Rate-based AIMD(alpha, beta) flows on one link (eq. 114) with synchronised
/// losses whenever the aggregate exceeds the capacity (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Aimd {
    /// Link capacity `C > 0`.
    pub capacity: f64,
    /// Additive increase per RTT, `alpha > 0`.
    pub alpha: f64,
    /// Multiplicative decrease, `0 < beta < 1` (the rate becomes `(1 - beta) x`).
    pub beta: f64,
    /// Per-flow RTT `D_i >= 1` in steps; one entry per flow.
    pub delays: Vec<usize>,
}

impl Aimd {
    /// A checked model: `C > 0`, `alpha > 0`, `0 < beta < 1`, delays `>= 1`.
    pub fn new(
        capacity: f64,
        alpha: f64,
        beta: f64,
        delays: Vec<usize>,
    ) -> Result<Aimd, ModelError> {
        check_link(capacity, alpha)?;
        require(beta > 0.0 && beta < 1.0, "beta", "in (0, 1) for AIMD", beta)?;
        require_delays(&delays)?;
        Ok(Aimd {
            capacity,
            alpha,
            beta,
            delays,
        })
    }

    /// `n` flows with the same RTT `d`.
    pub fn uniform(
        capacity: f64,
        alpha: f64,
        beta: f64,
        n: usize,
        d: usize,
    ) -> Result<Aimd, ModelError> {
        Aimd::new(capacity, alpha, beta, vec![d; n])
    }
}

impl SingleLink for Aimd {
    fn flows(&self) -> usize {
        self.delays.len()
    }

    /// Eq. 114; flow `i` backs off at step `n` iff `X(n - D_i) > C`.
    fn simulate(
        &self,
        x0: &[f64],
        steps: usize,
        visit: &mut dyn FnMut(usize, &[f64]),
    ) -> Result<(), ModelError> {
        run_delayed(x0, &self.delays, steps, visit, |_, _, x, sum| {
            Ok(if sum > self.capacity {
                (1.0 - self.beta) * x
            } else {
                x + self.alpha
            })
        })
    }
}
