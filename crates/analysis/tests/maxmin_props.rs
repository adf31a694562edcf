//! Property test of the max-min oracle against the characterisation of a
//! max-min fair allocation (Bertsekas and Gallager, *Data Networks*, 2nd ed.,
//! Prop. 6.5.1): the allocation is feasible, and every flow either receives
//! its demand or has a bottleneck link, a full link on which no flow gets more
//! than it does. Random networks of 1-6 links, 1-12 flows over random
//! non-empty sets of links, capacities 1-100, demands finite (0-50) or not.

use analysis::maxmin::{max_min, Demand};
use proptest::prelude::*;

fn flow(links: usize) -> impl Strategy<Value = Demand> {
    (
        prop::collection::btree_set(0..links, 1..=links),
        prop_oneof![Just(f64::INFINITY), 0.0f64..50.0],
    )
        .prop_map(|(ls, demand)| Demand {
            links: ls.into_iter().collect(),
            demand,
        })
}

fn network() -> impl Strategy<Value = (Vec<f64>, Vec<Demand>)> {
    (1usize..=6).prop_flat_map(|n| {
        (
            prop::collection::vec(1.0f64..100.0, n),
            prop::collection::vec(flow(n), 1..=12),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_allocation_is_feasible_and_every_flow_is_bottlenecked_or_satisfied(
        (caps, flows) in network()
    ) {
        let r = max_min(&caps, &flows);
        let eps = 1e-9;
        let load: Vec<f64> = (0..caps.len())
            .map(|l| flows.iter().zip(&r).filter(|(f, _)| f.links.contains(&l)).map(|(_, x)| x).sum())
            .collect();
        for (l, (&c, &x)) in caps.iter().zip(&load).enumerate() {
            prop_assert!(x <= c * (1.0 + eps), "link {l} carries {x} > {c}");
        }
        for (i, f) in flows.iter().enumerate() {
            prop_assert!(r[i] >= 0.0 && r[i] <= f.demand * (1.0 + eps), "flow {i}: {} vs demand {}", r[i], f.demand);
            if r[i] >= f.demand * (1.0 - eps) {
                continue;
            }
            let bottleneck = f.links.iter().any(|&l| {
                let full = load[l] >= caps[l] * (1.0 - eps);
                let top = flows
                    .iter()
                    .zip(&r)
                    .filter(|(g, _)| g.links.contains(&l))
                    .all(|(_, &y)| y <= r[i] * (1.0 + eps) + eps);
                full && top
            });
            prop_assert!(bottleneck, "flow {i} at {} has no bottleneck: {r:?}", r[i]);
        }
    }
}
