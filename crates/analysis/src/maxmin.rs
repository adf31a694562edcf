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
//! flow gets more than it does. `tests` and `tests/maxmin_props.rs` check both,
//! and that the heap-driven rounds give, bit for bit, what a plain scan of every
//! link and flow per round gives.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
/// Cost: O((flows x path length + links) log links): a heap holds each
/// link's share and each link's crossing flows are listed once, so a round
/// does not scan every link and flow (10^5 flows water-fill in milliseconds).
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
    // Remaining capacity, unfrozen flows and the flows crossing, per link.
    let mut left = capacities.to_vec();
    let mut count = vec![0usize; capacities.len()];
    let mut crossing: Vec<Vec<usize>> = vec![Vec::new(); capacities.len()];
    for (i, f) in flows.iter().enumerate() {
        if !frozen[i] {
            for &l in &f.links {
                count[l] += 1;
                crossing[l].push(i);
            }
        }
    }
    // Each link's fair share, in a heap of (share, link) whose stale entries
    // (the link's share changed since) are skipped; ties go to the lowest
    // link index, as a scan in index order would pick.
    let share = |left: &[f64], count: &[usize], l: usize| left[l] / count[l] as f64;
    let mut heap: BinaryHeap<Reverse<(Level, usize)>> = (0..capacities.len())
        .filter(|&l| count[l] > 0)
        .map(|l| Reverse((Level(share(&left, &count, l)), l)))
        .collect();
    // The unfrozen demands, smallest first (ties: the lowest flow index).
    let mut by_demand: Vec<usize> = (0..flows.len()).filter(|&i| !frozen[i]).collect();
    by_demand.sort_by(|&a, &b| flows[a].demand.total_cmp(&flows[b].demand).then(a.cmp(&b)));
    let mut next_demand = 0;
    let mut touched: Vec<usize> = Vec::new();
    let freeze = |i: usize,
                  r: f64,
                  rate: &mut [f64],
                  frozen: &mut [bool],
                  left: &mut [f64],
                  count: &mut [usize],
                  touched: &mut Vec<usize>| {
        rate[i] = r;
        frozen[i] = true;
        for &l in &flows[i].links {
            left[l] = (left[l] - r).max(0.0);
            count[l] -= 1;
            touched.push(l);
        }
    };
    loop {
        while next_demand < by_demand.len() && frozen[by_demand[next_demand]] {
            next_demand += 1;
        }
        // The tightest link and its fair share.
        let link = loop {
            match heap.peek() {
                Some(&Reverse((Level(s), l)))
                    if count[l] == 0 || share(&left, &count, l).total_cmp(&s).is_ne() =>
                {
                    heap.pop();
                }
                Some(&Reverse((Level(s), l))) => break Some((s, l)),
                None => break None,
            }
        };
        let want = by_demand.get(next_demand).map(|&i| (flows[i].demand, i));
        match (link, want) {
            (_, None) if link.is_none() => break,
            (Some((s, _)), Some((d, i))) if d <= s => {
                freeze(
                    i,
                    d,
                    &mut rate,
                    &mut frozen,
                    &mut left,
                    &mut count,
                    &mut touched,
                );
            }
            (Some((s, l)), _) => {
                for &i in &crossing[l] {
                    if !frozen[i] {
                        freeze(
                            i,
                            s,
                            &mut rate,
                            &mut frozen,
                            &mut left,
                            &mut count,
                            &mut touched,
                        );
                    }
                }
            }
            // Unfrozen flows always cross a link (empty paths were frozen above).
            (None, _) => unreachable!("an unfrozen flow crosses no link"),
        }
        touched.sort_unstable();
        touched.dedup();
        for &l in &touched {
            if count[l] > 0 {
                heap.push(Reverse((Level(share(&left, &count, l)), l)));
            }
        }
        touched.clear();
    }
    rate
}

/// A fair share, ordered by `f64::total_cmp` (a heap key).
#[derive(Copy, Clone, Debug, PartialEq)]
struct Level(f64);

impl Eq for Level {}

impl PartialOrd for Level {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Level {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The plain water-filling: every round scans every link and flow.
    fn max_min_scan(capacities: &[f64], flows: &[Demand]) -> Vec<f64> {
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

    proptest! {
        /// The heap-driven rounds give the plain scan's rates, bit for bit,
        /// with ties between links and between demands.
        #[test]
        fn the_heap_gives_the_scans_rates(
            caps in proptest::collection::vec(prop_oneof![Just(10.0), Just(20.0), 0.0f64..50.0], 1..8),
            flows in proptest::collection::vec(
                (proptest::collection::vec(0usize..8, 0..4), prop_oneof![Just(f64::INFINITY), Just(3.0), 0.0f64..30.0]),
                0..20,
            ),
        ) {
            let n = caps.len();
            let flows: Vec<Demand> = flows
                .into_iter()
                .map(|(mut links, demand)| {
                    links.iter_mut().for_each(|l| *l %= n);
                    links.sort_unstable();
                    links.dedup();
                    Demand { links, demand }
                })
                .collect();
            let a = max_min(&caps, &flows);
            let b = max_min_scan(&caps, &flows);
            prop_assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                prop_assert_eq!(x.to_bits(), y.to_bits(), "{:?} vs {:?}", a, b);
            }
        }
    }

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
