//! The network utility maximisation (NUM) oracle: the weighted alpha-fair
//! allocation of long-lived flows over links, the reference congestion-pricing
//! protocols are judged against.
//!
//! Problem (Kelly, Maulloo and Tan 1998; Mo and Walrand 2000 for the alpha
//! family; Zimmermann 2005, section 3.2.1): maximise `sum_n U_n(x_n)` subject
//! to `A x <= c` and `0 <= x_n <= d_n`, with `U_n(x) = w_n ln x` for
//! alpha = 1 (weighted proportional fairness, the thesis's target) and
//! `U_n(x) = w_n x^(1 - alpha) / (1 - alpha)` otherwise, `A` the 0/1 routing
//! matrix, `c` the capacities, `d_n` an optional demand cap.
//!
//! Solver: the Lagrange dual (Low and Lapsley 1999),
//! `min_{lambda >= 0} sum_n max_{0 <= x <= d_n} [U_n(x) - p_n x] + sum_l lambda_l c_l`
//! with `p_n` the sum of the prices on flow n's path. A flow's best response
//! to its path price is `x_n(p) = min(d_n, (w_n / p)^(1 / alpha))`, and the
//! dual's gradient in `lambda_l` is `c_l - y_l`, `y_l` the load of link l.
//! The dual is minimised by exact coordinate descent (Gauss-Seidel over the
//! links): each link's price is set, with the others held, to the root of
//! `y_l(lambda_l) = c_l` (or to 0 when the link is not full at price 0),
//! found by Newton's method safeguarded by bisection; `y_l` is continuous and
//! non-increasing in `lambda_l`, so the root is unique where the link carries
//! an uncapped flow. Sweeps repeat until the KKT residual is below
//! [`TOLERANCE`] or [`MAX_SWEEPS`] have run.
//!
//! Optimality certificate (reported, and checked by the tests): the rates are
//! each flow's best response to its path price (stationarity), prices are
//! non-negative (dual feasibility), so the allocation is optimal when every
//! link is feasible (`y_l <= c_l`) and every priced link is full
//! (complementary slackness). [`NumSolution::kkt_residual`] is the largest
//! relative violation of the last two, `max_l |y_l - c_l| / c_l` over priced
//! links and `max_l (y_l - c_l)^+ / c_l` over the others.
//!
//! Cost per sweep: O(sum over links of the flows crossing them x the root
//! finder's steps); path prices are kept per flow and updated as each link
//! price moves.

/// One flow: its path, weight and demand.
#[derive(Clone, Debug, PartialEq)]
pub struct NumFlow {
    /// Links on the flow's path (indices into the capacities).
    pub links: Vec<usize>,
    /// Weight w_n > 0 of its utility (the willingness to pay, for alpha = 1),
    /// in the capacities' unit times the price's.
    pub weight: f64,
    /// The most the flow would send (`f64::INFINITY`: long-lived, greedy).
    pub demand: f64,
}

/// The solver's result.
#[derive(Clone, Debug, PartialEq)]
pub struct NumSolution {
    /// Optimal rate of each flow, in flow order and the capacities' unit.
    pub rates: Vec<f64>,
    /// Each link's price (Lagrange multiplier); `f64::INFINITY` for a link of
    /// capacity 0 that a flow crosses.
    pub prices: Vec<f64>,
    /// Largest relative KKT violation (see the module documentation).
    pub kkt_residual: f64,
    /// Gauss-Seidel sweeps run.
    pub sweeps: usize,
}

/// KKT residual at which the sweeps stop.
pub const TOLERANCE: f64 = 1e-10;
/// Most sweeps run.
pub const MAX_SWEEPS: usize = 20_000;

/// The weighted alpha-fair optimum of `flows` over links of `capacities`.
///
/// A flow with no links, or with weight 0, gets its demand (a flow with no
/// links and infinite demand gets infinity), resp. 0; flows crossing a link
/// of capacity 0 get 0.
///
/// # Panics
/// If alpha is not positive and finite, a capacity, weight or demand is
/// negative or NaN, or a flow names a link outside `capacities` (caller
/// errors, not scenario input).
pub fn alpha_fair(capacities: &[f64], flows: &[NumFlow], alpha: f64) -> NumSolution {
    assert!(alpha.is_finite() && alpha > 0.0, "alpha must be > 0");
    assert!(
        capacities.iter().all(|c| *c >= 0.0),
        "capacities must be >= 0"
    );
    assert!(
        flows.iter().all(|f| f.weight >= 0.0 && f.demand >= 0.0),
        "weights and demands must be >= 0"
    );
    let nl = capacities.len();
    let mut rates = vec![0.0; flows.len()];
    let mut prices = vec![0.0; nl];
    // Flows that take part: some link, all capacities positive, weight > 0.
    let mut active = vec![false; flows.len()];
    for (i, f) in flows.iter().enumerate() {
        if f.links.is_empty() {
            rates[i] = f.demand;
        } else if let Some(&l) = f.links.iter().find(|&&l| capacities[l] == 0.0) {
            prices[l] = f64::INFINITY;
        } else if f.weight > 0.0 && f.demand > 0.0 {
            active[i] = true;
        }
    }
    let mut crossing: Vec<Vec<usize>> = vec![Vec::new(); nl];
    for (i, f) in flows.iter().enumerate() {
        if active[i] {
            for &l in &f.links {
                crossing[l].push(i);
            }
        }
    }
    let inv_alpha = 1.0 / alpha;
    let best = |i: usize, p: f64| -> f64 {
        let f = &flows[i];
        if p <= 0.0 {
            f.demand
        } else {
            (f.weight / p).powf(inv_alpha).min(f.demand)
        }
    };
    // Path price of each flow (sum of its links' finite prices).
    let mut path = vec![0.0; flows.len()];
    let mut sweeps = 0;
    let mut residual = f64::INFINITY;
    let links: Vec<usize> = (0..nl).filter(|&l| !crossing[l].is_empty()).collect();
    while sweeps < MAX_SWEEPS {
        sweeps += 1;
        for &l in &links {
            let c = capacities[l];
            let old = prices[l];
            // The other links' price on each crossing flow.
            let load = |lam: f64| -> (f64, f64) {
                // (y_l(lam), dy/dlam over the uncapped flows)
                let mut y = 0.0;
                let mut dy = 0.0;
                for &i in &crossing[l] {
                    let p = path[i] - old + lam;
                    let x = best(i, p);
                    y += x;
                    if p > 0.0 && x < flows[i].demand {
                        dy -= x * inv_alpha / p;
                    }
                }
                (y, dy)
            };
            let new = if load(0.0).0 <= c {
                0.0
            } else {
                // Upper bracket: at lam0 every flow gets at most
                // (w / lam0)^(1/alpha), and these sum to c.
                let s: f64 = crossing[l]
                    .iter()
                    .map(|&i| flows[i].weight.powf(inv_alpha))
                    .sum();
                let lam0 = (s / c).powf(alpha);
                root(&load, c, lam0)
            };
            if new != old {
                for &i in &crossing[l] {
                    path[i] += new - old;
                }
                prices[l] = new;
            }
        }
        for (i, r) in rates.iter_mut().enumerate() {
            if active[i] {
                *r = best(i, path[i]);
            }
        }
        residual = kkt(capacities, flows, &rates, &prices, &active);
        if residual <= TOLERANCE {
            break;
        }
    }
    NumSolution {
        rates,
        prices,
        kkt_residual: residual,
        sweeps,
    }
}

/// The root in [0, hi] of `y(lam) = c`, with `y(0) > c >= y(hi)`, y
/// continuous and non-increasing: Newton's method inside a shrinking
/// bisection bracket.
fn root(load: &dyn Fn(f64) -> (f64, f64), c: f64, hi: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, hi);
    let mut lam = hi;
    for _ in 0..200 {
        let (y, dy) = load(lam);
        let f = y - c;
        if f.abs() <= 1e-14 * c {
            return lam;
        }
        if f > 0.0 {
            lo = lam;
        } else {
            hi = lam;
        }
        let newton = if dy < 0.0 { lam - f / dy } else { f64::NAN };
        lam = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if hi - lo <= 1e-15 * hi {
            break;
        }
    }
    lam
}

/// Largest relative violation of feasibility and complementary slackness.
fn kkt(
    capacities: &[f64],
    flows: &[NumFlow],
    rates: &[f64],
    prices: &[f64],
    active: &[bool],
) -> f64 {
    let mut load = vec![0.0; capacities.len()];
    for (i, f) in flows.iter().enumerate() {
        if active[i] {
            for &l in &f.links {
                load[l] += rates[i];
            }
        }
    }
    load.iter()
        .zip(capacities)
        .zip(prices)
        .filter(|((_, c), _)| **c > 0.0)
        .map(|((y, c), p)| {
            if *p > 0.0 {
                (y - c).abs() / c
            } else {
                (y - c).max(0.0) / c
            }
        })
        .fold(0.0, f64::max)
}

/// `sum_n U_n(x_n)` for the alpha-fair utilities (flows with rate 0 and
/// weight > 0 give minus infinity for alpha >= 1).
pub fn utility(flows: &[NumFlow], rates: &[f64], alpha: f64) -> f64 {
    flows
        .iter()
        .zip(rates)
        .filter(|(f, _)| f.weight > 0.0 && !f.links.is_empty())
        .map(|(f, &x)| {
            if (alpha - 1.0).abs() < 1e-12 {
                f.weight * x.ln()
            } else {
                f.weight * x.powf(1.0 - alpha) / (1.0 - alpha)
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(links: &[usize], weight: f64) -> NumFlow {
        NumFlow {
            links: links.to_vec(),
            weight,
            demand: f64::INFINITY,
        }
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn one_link_shares_in_proportion_to_the_weights() {
        // Zimmermann (2005) eq. 5.5.2: x_n = w_n / sum(w) c, price sum(w) / c.
        let flows = [flow(&[0], 1.0), flow(&[0], 2.0), flow(&[0], 5.0)];
        let s = alpha_fair(&[80.0], &flows, 1.0);
        for (x, w) in s.rates.iter().zip([1.0, 2.0, 5.0]) {
            assert!(close(*x, w * 10.0, 1e-9), "{x}");
        }
        assert!(close(s.prices[0], 8.0 / 80.0, 1e-9));
        assert!(s.kkt_residual <= TOLERANCE);
    }

    #[test]
    fn double_bottleneck_gives_two_thirds_to_the_one_link_paths() {
        // Zimmermann (2005) section 3.2.6: alpha = 2/3.
        let flows = [flow(&[0], 1.0), flow(&[1], 1.0), flow(&[0, 1], 1.0)];
        let s = alpha_fair(&[96.0, 96.0], &flows, 1.0);
        assert!(close(s.rates[0], 64.0, 1e-9), "{:?}", s.rates);
        assert!(close(s.rates[1], 64.0, 1e-9));
        assert!(close(s.rates[2], 32.0, 1e-9));
    }

    #[test]
    fn thesis_double_bottleneck_per_flow_rates() {
        // Spec 3.4: 12 flows per path, w = 100/200/400 (4 each), c = 12000
        // pkts/s: price 0.35 per link; path I w=100 gets 285.7, path III 142.9.
        let mut flows = Vec::new();
        for path in [vec![0], vec![1], vec![0, 1]] {
            for w in [100.0, 200.0, 400.0] {
                for _ in 0..4 {
                    flows.push(flow(&path, w));
                }
            }
        }
        let s = alpha_fair(&[12000.0, 12000.0], &flows, 1.0);
        assert!(close(s.prices[0], 0.35, 1e-9), "{:?}", s.prices);
        assert!(close(s.rates[0], 100.0 / 0.35, 1e-9));
        assert!(close(s.rates[24], 100.0 / 0.7, 1e-9));
        assert!(close(s.rates[35], 400.0 / 0.7, 1e-9));
    }

    #[test]
    fn thesis_parking_lot_rates() {
        // Spec 3.4, n = 2 flows per connection, c = 6000 pkts/s, equal w:
        // per-flow rates 1875, 1875, 1250, 1250, 750, 750, 625, 375 pkts/s.
        let conns: [(&[usize], f64); 8] = [
            (&[0], 1875.0),
            (&[3], 1875.0),
            (&[1], 1250.0),
            (&[2], 1250.0),
            (&[0, 1], 750.0),
            (&[2, 3], 750.0),
            (&[1, 2], 625.0),
            (&[0, 1, 2, 3], 375.0),
        ];
        let mut flows = Vec::new();
        for (links, _) in &conns {
            flows.push(flow(links, 20.0));
            flows.push(flow(links, 20.0));
        }
        let s = alpha_fair(&[6000.0; 4], &flows, 1.0);
        for (k, (_, want)) in conns.iter().enumerate() {
            assert!(
                close(s.rates[2 * k], *want, 1e-8),
                "connection {k}: {} vs {want}",
                s.rates[2 * k]
            );
        }
        assert!(s.kkt_residual <= TOLERANCE, "{}", s.kkt_residual);
    }

    #[test]
    fn a_capped_flow_gets_its_demand_and_the_rest_is_shared() {
        let mut flows = vec![flow(&[0], 1.0), flow(&[0], 1.0), flow(&[0], 1.0)];
        flows[0].demand = 10.0;
        let s = alpha_fair(&[100.0], &flows, 1.0);
        assert!(close(s.rates[0], 10.0, 1e-12));
        assert!(close(s.rates[1], 45.0, 1e-9));
        assert!(close(s.rates[2], 45.0, 1e-9));
        // Demands that fit leave the link unpriced.
        let mut small = flows.clone();
        for f in &mut small {
            f.demand = 20.0;
        }
        let s = alpha_fair(&[100.0], &small, 1.0);
        assert_eq!(s.prices[0], 0.0);
        assert_eq!(s.rates, vec![20.0; 3]);
    }

    #[test]
    fn alpha_two_is_minimum_potential_delay_fairness() {
        // alpha = 2, one flow over two links and one over each: the long
        // flow's rate solves w/x^2 = 2 w/(c - x)^2, x = c / (1 + sqrt 2).
        let flows = [flow(&[0], 1.0), flow(&[1], 1.0), flow(&[0, 1], 1.0)];
        let s = alpha_fair(&[1.0, 1.0], &flows, 2.0);
        let x = 1.0 / (1.0 + 2f64.sqrt());
        assert!(close(s.rates[2], x, 1e-9), "{:?}", s.rates);
        assert!(close(s.rates[0], 1.0 - x, 1e-9));
    }

    #[test]
    fn degenerate_flows() {
        let flows = [
            NumFlow {
                links: vec![],
                weight: 1.0,
                demand: 7.0,
            },
            flow(&[1], 1.0),
            flow(&[0], 0.0),
            flow(&[0], 1.0),
        ];
        let s = alpha_fair(&[10.0, 0.0], &flows, 1.0);
        assert_eq!(s.rates[0], 7.0);
        assert_eq!(s.rates[1], 0.0);
        assert_eq!(s.prices[1], f64::INFINITY);
        assert_eq!(s.rates[2], 0.0);
        assert!(close(s.rates[3], 10.0, 1e-12));
    }
}
