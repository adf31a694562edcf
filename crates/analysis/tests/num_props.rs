//! Property tests of the NUM oracle (`analysis::num`): on random networks its
//! answer satisfies the KKT conditions, checked here from the rates and
//! prices alone (an optimality certificate independent of the solver's own
//! residual), no random feasible allocation has a larger total utility, and
//! for large alpha the allocation approaches the max-min fair one computed
//! by water-filling (Mo and Walrand 2000, the alpha -> infinity limit).

use analysis::maxmin::{max_min, Demand};
use analysis::num::{alpha_fair, utility, NumFlow};
use proptest::prelude::*;

/// A random network: capacities, and flows as (links, weight).
fn network() -> impl Strategy<Value = (Vec<f64>, Vec<NumFlow>)> {
    (1usize..7).prop_flat_map(|nl| {
        (
            proptest::collection::vec(1.0f64..100.0, nl),
            proptest::collection::vec(
                (
                    proptest::collection::btree_set(0..nl, 1..=nl.min(4)),
                    0.1f64..10.0,
                ),
                1..16,
            ),
        )
            .prop_map(|(caps, fl)| {
                let flows = fl
                    .into_iter()
                    .map(|(links, weight)| NumFlow {
                        links: links.into_iter().collect(),
                        weight,
                        demand: f64::INFINITY,
                    })
                    .collect();
                (caps, flows)
            })
    })
}

fn loads(caps: &[f64], flows: &[NumFlow], x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; caps.len()];
    for (f, r) in flows.iter().zip(x) {
        for &l in &f.links {
            y[l] += r;
        }
    }
    y
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_answer_satisfies_the_kkt_conditions(
        (caps, flows) in network(),
        alpha in prop_oneof![Just(0.5), Just(1.0), Just(2.0), Just(4.0)],
    ) {
        let s = alpha_fair(&caps, &flows, alpha);
        prop_assert!(s.kkt_residual <= 1e-9, "residual {} after {} sweeps", s.kkt_residual, s.sweeps);
        let y = loads(&caps, &flows, &s.rates);
        for l in 0..caps.len() {
            // Dual feasibility, primal feasibility, complementary slackness.
            prop_assert!(s.prices[l] >= 0.0);
            prop_assert!(y[l] <= caps[l] * (1.0 + 1e-8), "link {l}: {} > {}", y[l], caps[l]);
            if s.prices[l] > 0.0 {
                prop_assert!((y[l] - caps[l]).abs() <= 1e-8 * caps[l]);
            }
        }
        // Stationarity: U'(x_n) = w_n x_n^-alpha equals the path price.
        for (f, x) in flows.iter().zip(&s.rates) {
            let p: f64 = f.links.iter().map(|&l| s.prices[l]).sum();
            let marginal = f.weight * x.powf(-alpha);
            prop_assert!((marginal - p).abs() <= 1e-7 * p, "{marginal} vs {p}");
        }
    }

    #[test]
    fn no_random_feasible_allocation_does_better(
        (caps, flows) in network(),
        alpha in prop_oneof![Just(1.0), Just(2.0)],
        dirs in proptest::collection::vec(proptest::collection::vec(-1.0f64..1.0, 16), 8),
        step in 1e-3f64..0.3,
    ) {
        let s = alpha_fair(&caps, &flows, alpha);
        let best = utility(&flows, &s.rates, alpha);
        for d in &dirs {
            // Move each rate by a random fraction, then scale into the
            // feasible set.
            let mut x: Vec<f64> = s.rates.iter().zip(d).map(|(r, u)| r * (1.0 + step * u)).collect();
            let y = loads(&caps, &flows, &x);
            let over = y.iter().zip(&caps).map(|(y, c)| y / c).fold(0.0, f64::max);
            if over > 1.0 {
                x.iter_mut().for_each(|r| *r /= over);
            }
            let u = utility(&flows, &x, alpha);
            prop_assert!(u <= best + 1e-9 * best.abs().max(1.0), "{u} > {best}");
        }
    }

    #[test]
    fn large_alpha_approaches_max_min(
        (caps, flows) in network(),
    ) {
        // Equal weights; as alpha -> infinity the alpha-fair rates tend to the
        // max-min ones. The tolerance is the factor n^(1/alpha) - 1 (n flows):
        // a flow's marginal utility x^-alpha equals a sum of at most n link
        // prices, so rates that max-min fairness equalises differ by at most
        // that factor at finite alpha (7.2 % for 16 flows at alpha = 40;
        // measured deviations are about 1 %).
        let eq: Vec<NumFlow> = flows.iter().map(|f| NumFlow { weight: 1.0, ..f.clone() }).collect();
        // Normalise capacities near 1 so that prices x^-alpha stay finite.
        let cmax = caps.iter().cloned().fold(0.0, f64::max);
        let norm: Vec<f64> = caps.iter().map(|c| c / cmax).collect();
        let s = alpha_fair(&norm, &eq, 40.0);
        let demands: Vec<Demand> = eq.iter().map(|f| Demand::greedy(f.links.clone())).collect();
        let mm = max_min(&norm, &demands);
        let tol = (eq.len() as f64).powf(1.0 / 40.0) - 1.0 + 1e-9;
        for (a, b) in s.rates.iter().zip(&mm) {
            prop_assert!((a - b).abs() <= tol * b, "alpha-fair {a} vs max-min {b}");
        }
    }
}
