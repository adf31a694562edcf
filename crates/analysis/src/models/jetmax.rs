//! The JetMax fluid model on one link: stability and steps to
//! (1-eps)-efficiency and (1-eps)-fairness (seed 002, Ch. VI §5.4, Theorem 17,
//! experiment E6.5, Figs. 41-42).
//!
//! # From the dissertation
//! - Router fair share, eq. 133: `g = (gamma C - u) / N`, with `N` the flows
//!   bottlenecked here and `u` the rate of the flows that only pass through.
//! - Source law, eq. 134: `x_r(n) = (1 - tau) x_r(n - D_r) + tau g(n - D_r)`;
//!   stable for `0 < tau < 2`, monotone for `0 < tau < 1`; `tau = 0.6`.
//! - Stationary rate, Lemma 19: `x_r* = (gamma C - u) / N`.
//! - Definition 7: (1-eps)-efficiency from `y(0) = 0`, eq. 139
//!   `y(n) / (gamma C) >= 1 - eps` for all later `n`; (1-eps)-fairness from
//!   the maximally unfair state (one flow at `gamma C`, the rest at 0),
//!   eq. 140 `|x_r(n) - x_r*| / x_r* <= eps` for all `r` and later `n`.
//! - Theorem 17: both in `ceil(log_{|1-tau|} eps)` RTTs (eq. 141-144); 6 for
//!   `tau = 0.6`, `eps = 0.01`, "independent of C and N" (E6.5: C from
//!   16 mb/s to 16 gb/s, N from 1 to 1024).
//!
//! # \[INFERRED\]
//! - `N` and `u` are known exactly and constant (the router's flow count has
//!   converged and the unresponsive flows are stabilised, as in the proof of
//!   Theorem 17), so `g` is a constant and the flows are decoupled. The
//!   router's interval, the flow-count estimate and proposed rates (§6) are
//!   not modelled: this is the fluid model the theorem is about.
//! - Efficiency is judged on the responsive aggregate `w = sum x_r` against
//!   its target `gamma C - u` (eq. 139 when `u = 0`), and two-sided,
//!   `|w(n) - (gamma C - u)| <= eps (gamma C - u)`, as the proof's
//!   `|1 - tau|^n <= eps` is; for `0 < tau <= 1` the run approaches from below
//!   and this is eq. 139 exactly.
//! - The maximally unfair start gives flow 1 all of `gamma C - u`.
//!
//! # Disagreement with the paper
//! Theorem 17's fairness count holds for `N = 2, 3` only (`N = 1` starts
//! fair: 0 steps). From the maximally
//! unfair state the flow holding `gamma C` starts at relative distance
//! `|gamma C - x*| / x* = N - 1` from its share, so by eq. 144 it needs
//! `ceil(log_{|1-tau|}(eps / (N - 1)))` RTTs
//! ([`fairness_steps_closed_form`]): 6 for `N = 2, 3`, 7 for `N = 4`, 13 for
//! `N = 1024` (tau = 0.6, eps = 0.01). The proof applies the efficiency
//! argument ("following the technique we used to obtain (142)") as if every
//! flow started at distance 1. The count is still independent of `C`, and
//! the efficiency count is 6 for every `C` and `N`. Fig. 42's ns2 runs, which
//! show 6 steps for 1 to 1024 flows, must have used another start than
//! Definition 7's maximally unfair state, or measured the distance in another
//! unit (e.g. in units of `gamma C` rather than `x*`); the text does not
//! say.

use super::{
    ceil_steps, require, require_delays, require_eps, run_delayed, ModelError, SingleLink,
};

/// JetMax flows bottlenecked at one link (eq. 133-134).
#[derive(Clone, Debug, PartialEq)]
pub struct JetMax {
    /// Link capacity `C > 0`.
    pub capacity: f64,
    /// Target utilisation `0 < gamma <= 1`.
    pub gamma: f64,
    /// Gain `tau > 0` (stable iff `tau < 2`).
    pub tau: f64,
    /// Rate of unresponsive flows through the link, `0 <= u < gamma C`.
    pub unresponsive: f64,
    /// Per-flow round-trip delay `D_r >= 1` in steps; one entry per flow.
    pub delays: Vec<usize>,
}

impl JetMax {
    /// A checked model. `tau >= 2` is allowed, to show instability.
    pub fn new(
        capacity: f64,
        gamma: f64,
        tau: f64,
        unresponsive: f64,
        delays: Vec<usize>,
    ) -> Result<JetMax, ModelError> {
        require(
            capacity > 0.0 && capacity.is_finite(),
            "capacity C",
            "> 0",
            capacity,
        )?;
        require(gamma > 0.0 && gamma <= 1.0, "gamma", "in (0, 1]", gamma)?;
        require(tau > 0.0 && tau.is_finite(), "tau", "> 0", tau)?;
        require(
            unresponsive >= 0.0 && unresponsive < gamma * capacity,
            "unresponsive rate u",
            "in [0, gamma C)",
            unresponsive,
        )?;
        require_delays(&delays)?;
        Ok(JetMax {
            capacity,
            gamma,
            tau,
            unresponsive,
            delays,
        })
    }

    /// `n` flows with the same delay `d`, no unresponsive traffic.
    pub fn uniform(
        capacity: f64,
        gamma: f64,
        tau: f64,
        n: usize,
        d: usize,
    ) -> Result<JetMax, ModelError> {
        JetMax::new(capacity, gamma, tau, 0.0, vec![d; n])
    }

    /// The responsive flows' target aggregate, `gamma C - u`.
    pub fn target(&self) -> f64 {
        self.gamma * self.capacity - self.unresponsive
    }

    /// Fair share `g = x* = (gamma C - u) / N` (eq. 133, Lemma 19).
    pub fn fair_share(&self) -> f64 {
        self.target() / self.delays.len() as f64
    }

    /// Definition 7's maximally unfair start: flow 1 at `gamma C - u`, the rest at 0.
    pub fn maximally_unfair(&self) -> Vec<f64> {
        let mut x = vec![0.0; self.delays.len()];
        x[0] = self.target();
        x
    }

    /// Steps to (1-eps)-efficiency (eq. 139, two-sided; module doc) from all
    /// flows at 0; `None` if not reached and held by `horizon`.
    pub fn efficiency_steps(&self, eps: f64, horizon: usize) -> Result<Option<usize>, ModelError> {
        require_eps(eps)?;
        let target = self.target();
        self.steps_until(&vec![0.0; self.delays.len()], horizon, |x| {
            (x.iter().sum::<f64>() - target).abs() <= eps * target
        })
    }

    /// Steps to (1-eps)-fairness (eq. 140) from the maximally unfair start;
    /// `None` if not reached and held by `horizon`.
    pub fn fairness_steps(&self, eps: f64, horizon: usize) -> Result<Option<usize>, ModelError> {
        require_eps(eps)?;
        let share = self.fair_share();
        self.steps_until(&self.maximally_unfair(), horizon, |x| {
            x.iter().all(|v| (v - share).abs() <= eps * share)
        })
    }

    /// The smallest `n` with `ok(x(m))` for every `m` in `n..=horizon`.
    fn steps_until(
        &self,
        x0: &[f64],
        horizon: usize,
        ok: impl Fn(&[f64]) -> bool,
    ) -> Result<Option<usize>, ModelError> {
        let mut last_bad = None;
        let mut ok_at_end = false;
        self.simulate(x0, horizon, &mut |n, x| {
            ok_at_end = ok(x);
            if !ok_at_end {
                last_bad = Some(n);
            }
        })?;
        Ok(ok_at_end.then(|| last_bad.map_or(0, |n| n + 1)))
    }
}

impl SingleLink for JetMax {
    fn flows(&self) -> usize {
        self.delays.len()
    }

    /// Eq. 134 with the constant share `g` of eq. 133.
    fn simulate(
        &self,
        x0: &[f64],
        steps: usize,
        visit: &mut dyn FnMut(usize, &[f64]),
    ) -> Result<(), ModelError> {
        let g = self.fair_share();
        run_delayed(x0, &self.delays, steps, visit, |_, _, x, _| {
            Ok((1.0 - self.tau) * x + self.tau * g)
        })
    }
}

/// Theorem 17 / eq. 142: `ceil(log_{|1-tau|} eps)` RTTs, at least 1 (the
/// start `y(0) = 0` is not efficient); `None` unless `|1 - tau| < 1`.
pub fn theorem17_steps(tau: f64, eps: f64) -> Option<usize> {
    let rho = (1.0 - tau).abs();
    (rho < 1.0).then(|| ceil_steps(eps.ln() / rho.ln()).max(1))
}

/// \[INFERRED\] Steps to (1-eps)-fairness (eq. 140) from the maximally unfair
/// start by eq. 144: each flow's distance shrinks by `|1 - tau|` per RTT from
/// `|x_r(0) - x*| / x*`, which is 1 for the flows at 0 and `N - 1` for the
/// flow at `gamma C`, so `ceil(log_{|1-tau|}(eps / max(1, N - 1)))` RTTs
/// (0 for `N = 1`, which starts fair); `None` unless `|1 - tau| < 1`.
pub fn fairness_steps_closed_form(tau: f64, eps: f64, flows: usize) -> Option<usize> {
    let rho = (1.0 - tau).abs();
    if rho >= 1.0 {
        return None;
    }
    if flows <= 1 {
        return Some(0);
    }
    let spread = (flows - 1).max(1) as f64;
    Some(ceil_steps((eps / spread).ln() / rho.ln()).max(1))
}

#[cfg(test)]
mod tests {
    use super::super::{Envelope, Verdict};
    use super::*;

    /// E6.5: capacities 16 mb/s ... 16 gb/s (bit/s) and 1 ... 1024 flows.
    const CAPS: [f64; 4] = [16e6, 160e6, 1.6e9, 16e9];
    const FLOWS: [usize; 8] = [1, 2, 3, 4, 16, 64, 256, 1024];

    #[test]
    fn theorem_17_gives_six_steps_for_tau_0_6() {
        // Eq. 142: ceil(log_{|1 - tau|} eps) = ceil(ln 0.01 / ln 0.4) = ceil(5.03) = 6.
        let want = (0.01_f64.ln() / 0.4_f64.ln()).ceil() as usize;
        assert_eq!(want, 6);
        assert_eq!(theorem17_steps(0.6, 0.01), Some(want));
        // |1 - tau| is what matters: tau = 1.4 has the same rate as 0.6.
        assert_eq!(theorem17_steps(1.4, 0.01), Some(want));
        assert_eq!(theorem17_steps(1.0, 0.01), Some(1));
        assert_eq!(theorem17_steps(2.0, 0.01), None);
    }

    #[test]
    fn efficiency_takes_theorem_17_steps_for_every_capacity_and_flow_count() {
        // Eq. 141: y(n) = gamma C (1 - (1 - tau)^n) from y(0) = 0, whatever C and N.
        let want = theorem17_steps(0.6, 0.01).unwrap();
        for c in CAPS {
            for n in FLOWS {
                let j = JetMax::uniform(c, 1.0, 0.6, n, 1).unwrap();
                assert_eq!(
                    j.efficiency_steps(0.01, 100).unwrap(),
                    Some(want),
                    "C={c} N={n}"
                );
            }
        }
        // gamma < 1 and unresponsive traffic change the target, not the count.
        let j = JetMax::new(1e9, 0.9, 0.6, 2e8, vec![1; 10]).unwrap();
        assert_eq!(j.efficiency_steps(0.01, 100).unwrap(), Some(want));
    }

    #[test]
    fn fairness_takes_eq_144_steps_independent_of_capacity() {
        // Eq. 144 from eq. 140's maximally unfair start: the flow at gamma C is N - 1
        // shares away, so ceil(log_{|1 - tau|}(eps / (N - 1))) RTTs for N >= 2.
        for n in FLOWS {
            let want = fairness_steps_closed_form(0.6, 0.01, n).unwrap();
            if n >= 2 {
                let by_hand = ((0.01 / (n - 1) as f64).ln() / 0.4_f64.ln()).ceil() as usize;
                assert_eq!(want, by_hand.max(1), "N={n}");
            }
            for c in CAPS {
                let j = JetMax::uniform(c, 1.0, 0.6, n, 1).unwrap();
                assert_eq!(
                    j.fairness_steps(0.01, 100).unwrap(),
                    Some(want),
                    "C={c} N={n}"
                );
            }
        }
    }

    #[test]
    fn theorem_17_fairness_count_holds_only_up_to_three_flows() {
        // The disagreement with Theorem 17 / Fig. 42 (module doc): 6 steps for N <= 3,
        // more from N = 4 on (13 for N = 1024), growing like log(N - 1).
        let six = theorem17_steps(0.6, 0.01).unwrap();
        for n in [2, 3] {
            assert_eq!(fairness_steps_closed_form(0.6, 0.01, n), Some(six));
        }
        assert!(fairness_steps_closed_form(0.6, 0.01, 4).unwrap() > six);
        let j = JetMax::uniform(16e9, 1.0, 0.6, 1024, 1).unwrap();
        let got = j.fairness_steps(0.01, 100).unwrap().unwrap();
        assert_eq!(got, (ceil_steps((0.01_f64 / 1023.0).ln() / 0.4_f64.ln())));
        assert!(got > six);
        // A single flow starts at its share: fair at once.
        let j = JetMax::uniform(1e9, 1.0, 0.6, 1, 1).unwrap();
        assert_eq!(j.fairness_steps(0.01, 100).unwrap(), Some(0));
    }

    #[test]
    fn rates_follow_eq_144_under_heterogeneous_delays() {
        // Eq. 144 (with eq. 143's typo fixed): x_r(n) = (1 - tau)^(n/D_r) (x(0) - x*) + x*;
        // with the constant history, the exponent is ceil(n / D_r).
        let delays = vec![1, 2, 5, 7];
        for tau in [0.3, 0.6, 1.0, 1.5, 1.9] {
            let j = JetMax::new(100.0, 0.95, tau, 15.0, delays.clone()).unwrap();
            let share = (0.95 * 100.0 - 15.0) / 4.0;
            assert!((j.fair_share() - share).abs() < 1e-12);
            let x0 = j.maximally_unfair();
            j.simulate(&x0, 80, &mut |n, x| {
                for (r, &d) in delays.iter().enumerate() {
                    let k = n.div_ceil(d) as i32;
                    let want = (1.0 - tau).powi(k) * (x0[r] - share) + share;
                    assert!((x[r] - want).abs() < 1e-9, "tau={tau} n={n} r={r}");
                }
            })
            .unwrap();
        }
    }

    #[test]
    fn a_constant_delay_stretches_the_counts_by_d() {
        // A count of k RTTs is (k - 1) D + 1 steps with delay D (constant history).
        let k_e = theorem17_steps(0.6, 0.01).unwrap();
        let k_f = fairness_steps_closed_form(0.6, 0.01, 16).unwrap();
        for d in [2, 3, 10] {
            let j = JetMax::uniform(1e9, 1.0, 0.6, 16, d).unwrap();
            assert_eq!(
                j.efficiency_steps(0.01, 100 * d).unwrap(),
                Some((k_e - 1) * d + 1)
            );
            assert_eq!(
                j.fairness_steps(0.01, 100 * d).unwrap(),
                Some((k_f - 1) * d + 1)
            );
        }
    }

    #[test]
    fn stable_below_tau_two_unstable_above() {
        // |1 - tau| < 1 iff 0 < tau < 2 (eq. 141, 144).
        let delays = vec![1, 3, 4, 9];
        let run = |tau: f64| {
            let j = JetMax::new(1e9, 1.0, tau, 0.0, delays.clone()).unwrap();
            let share = j.fair_share();
            let mut dev = Vec::new();
            j.simulate(&j.maximally_unfair(), 900, &mut |_, x| {
                dev.push(
                    x.iter()
                        .map(|v| ((v - share) / share).abs())
                        // NaN (overflow) counts as infinitely far: f64::max would drop it.
                        .fold(
                            0.0,
                            |m: f64, d| if d.is_nan() { f64::INFINITY } else { m.max(d) },
                        ),
                )
            })
            .unwrap();
            Envelope::of(&dev).unwrap().verdict()
        };
        for tau in [0.1, 0.6, 1.0, 1.5, 1.95] {
            assert_eq!(run(tau), Verdict::Converging, "tau={tau}");
        }
        for tau in [2.05, 2.5, 3.0] {
            assert_eq!(run(tau), Verdict::Diverging, "tau={tau}");
        }
        assert_eq!(fairness_steps_closed_form(2.5, 0.01, 4), None);
        // tau > 2: never efficient.
        let j = JetMax::uniform(1e9, 1.0, 2.5, 4, 1).unwrap();
        assert_eq!(j.efficiency_steps(0.01, 200).unwrap(), None);
    }

    #[test]
    fn rejects_bad_parameters() {
        let name = |r: Result<JetMax, ModelError>| match r {
            Err(ModelError::OutOfRange { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        assert_eq!(name(JetMax::uniform(0.0, 1.0, 0.6, 2, 1)), "capacity C");
        assert_eq!(name(JetMax::uniform(1e9, 1.5, 0.6, 2, 1)), "gamma");
        assert_eq!(name(JetMax::uniform(1e9, 1.0, 0.0, 2, 1)), "tau");
        assert_eq!(name(JetMax::uniform(1e9, 1.0, 0.6, 0, 1)), "flows N");
        assert_eq!(name(JetMax::uniform(1e9, 1.0, 0.6, 2, 0)), "delay D");
        assert_eq!(
            name(JetMax::new(1e9, 1.0, 0.6, 1e9, vec![1])),
            "unresponsive rate u"
        );
        let j = JetMax::uniform(1e9, 1.0, 0.6, 2, 1).unwrap();
        assert!(j.efficiency_steps(1.0, 10).is_err());
        assert!(j.fairness_steps(0.0, 10).is_err());
    }
}
