//! The max-min fair allocation of flows over links, by water-filling: the
//! reference the explicit-rate protocols (QLB, XCP, RCP, MKC, JetMax) are
//! judged against.
//!
//! Water-filling (progressive filling; Bertsekas and Gallager, *Data
//! Networks*, 2nd ed., section 6.5.2): raise every unfrozen flow's rate
//! together; when a link fills, freeze the flows crossing it at the link's
//! share, and when a flow reaches its demand, freeze it there. Here each round
//! jumps straight to the next event: the smallest of the links' fair shares
//! `(capacity - frozen rates) / unfrozen flows` and the flows' demands.
//!
//! The result is characterised by (Bertsekas and Gallager, Prop. 6.5.1): it is
//! feasible (no link carries more than its capacity), and every flow either
//! gets its demand or has a bottleneck link, one that is full and on which no
//! flow gets more than it does. `tests` and `tests/maxmin_props.rs` check both.

/// One flow: the links it crosses (indices into the capacities) and its demand
/// (`f64::INFINITY` for a long-lived flow that takes whatever it can get).
#[derive(Clone, Debug, PartialEq)]
pub struct Demand {
    /// Links on the flow's path (data direction).
    pub links: Vec<usize>,
    /// The most the flow would send, in the capacities' unit.
    pub demand: f64,
}

impl Demand {
    /// A long-lived flow over `links`.
    pub fn greedy(links: Vec<usize>) -> Self {
        Demand {
            links,
            demand: f64::INFINITY,
        }
    }
}

/// The max-min fair rates of `flows` over links with `capacities`, in flow
/// order. A flow that crosses no link gets its demand (which may be infinite).
///
/// # Panics
/// If a flow names a link index outside `capacities`, or a capacity or demand
/// is negative or NaN (caller errors, not input from a scenario file).
pub fn max_min(capacities: &[f64], flows: &[Demand]) -> Vec<f64> {
    assert!(
        capacities.iter().all(|c| *c >= 0.0),
        "capacities must be >= 0"
    );
    assert!(
        flows.iter().all(|f| f.demand >= 0.0),
        "demands must be >= 0"
    );
    let mut rate = vec![0.0; flows.len()];
    let mut frozen: Vec<bool> = flows.iter().map(|f| f.links.is_empty()).collect();
    for (i, f) in flows.iter().enumerate() {
        if f.links.is_empty() {
            rate[i] = f.demand;
        }
    }
    // Remaining capacity and unfrozen flows per link.
    let mut left = capacities.to_vec();
    let mut count = vec![0usize; capacities.len()];
    for (i, f) in flows.iter().enumerate() {
        if !frozen[i] {
            for &l in &f.links {
                count[l] += 1;
            }
        }
    }
    let freeze = |i: usize,
                  r: f64,
                  rate: &mut [f64],
                  frozen: &mut [bool],
                  left: &mut [f64],
                  count: &mut [usize]| {
        rate[i] = r;
        frozen[i] = true;
        for &l in &flows[i].links {
            left[l] = (left[l] - r).max(0.0);
            count[l] -= 1;
        }
    };
    while frozen.iter().any(|f| !f) {
        // The tightest link and its fair share.
        let link = (0..capacities.len())
            .filter(|&l| count[l] > 0)
            .map(|l| (left[l] / count[l] as f64, l))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        // The smallest unfrozen demand.
        let want = (0..flows.len())
            .filter(|&i| !frozen[i])
            .map(|i| (flows[i].demand, i))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        match (link, want) {
            (Some((share, _)), Some((d, i))) if d <= share => {
                freeze(i, d, &mut rate, &mut frozen, &mut left, &mut count);
            }
            (Some((share, l)), _) => {
                let on_l: Vec<usize> = (0..flows.len())
                    .filter(|&i| !frozen[i] && flows[i].links.contains(&l))
                    .collect();
                for i in on_l {
                    freeze(i, share, &mut rate, &mut frozen, &mut left, &mut count);
                }
            }
            // Unfrozen flows always cross a link (empty paths were frozen above).
            (None, _) => unreachable!("an unfrozen flow crosses no link"),
        }
    }
    rate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).abs() < 1e-9 * y.abs().max(1.0))
    }

    #[test]
    fn one_link_is_shared_equally() {
        let r = max_min(&[10.0], &[Demand::greedy(vec![0]), Demand::greedy(vec![0])]);
        assert!(close(&r, &[5.0, 5.0]), "{r:?}");
    }

    #[test]
    fn a_small_demand_leaves_the_rest_to_the_others() {
        let flows = [
            Demand {
                links: vec![0],
                demand: 1.0,
            },
            Demand::greedy(vec![0]),
            Demand::greedy(vec![0]),
        ];
        let r = max_min(&[10.0], &flows);
        assert!(close(&r, &[1.0, 4.5, 4.5]), "{r:?}");
    }

    #[test]
    fn seed_003_parking_lot() {
        // Spec seed-003 section 3.2 [DERIVED]: 8 links, link 4 at 80 Mb/s, the
        // others 155 Mb/s; 20 long flows over all 8 and 20 local flows per link.
        // Link 4: 40 flows share 80 -> 2 Mb/s; elsewhere the local flows get
        // (155 - 20 * 2) / 20 = 5.75 Mb/s.
        let caps: Vec<f64> = (0..8).map(|j| if j == 3 { 80e6 } else { 155e6 }).collect();
        let mut flows: Vec<Demand> = (0..20).map(|_| Demand::greedy((0..8).collect())).collect();
        for j in 0..8 {
            flows.extend((0..20).map(|_| Demand::greedy(vec![j])));
        }
        let r = max_min(&caps, &flows);
        for (i, x) in r.iter().enumerate() {
            let want = if i < 20 || (i - 20) / 20 == 3 {
                2e6
            } else {
                5.75e6
            };
            assert!((x - want).abs() < 1e-3, "flow {i}: {x} vs {want}");
        }
    }

    #[test]
    fn a_flow_without_links_gets_its_demand() {
        let flows = [
            Demand {
                links: vec![],
                demand: 3.0,
            },
            Demand::greedy(vec![0]),
        ];
        assert!(close(&max_min(&[4.0], &flows), &[3.0, 4.0]));
    }
}
