//! Zimmermann (2005)'s E1 NewReno + drop-tail baseline against ns-2 itself:
//! `scenarios/papers/pricing/e1-rate-allocation-newreno-droptail.toml` (60
//! s, 36 flows) and `e1-dynamics-newreno-droptail.toml` (100 s, the
//! 12 / 24 / 18 / 24 / 12 flows per path schedule) against ns-2.35's
//! outputs (Debian's `ns2` 2.35+dfsg-5) of
//! `scenarios/papers/pricing/ns2/e1-newreno.tcl DropTail 20` and
//! `... DropTail 20 0 dynamics`, run on 2026-11-28 and recorded below (ns-2
//! is not installed in CI).
//!
//! Both runs are loss-free and window-limited (ns-2's 20-packet `window_`),
//! with no random draw on either side, so each simulator runs once: both core
//! links' utilisation must agree within 0.1 points and each path's mean
//! per-flow throughput (the 12 flows that run from 0 s to the end) within 1
//! % (measured: 0.01-0.02 points and 0.0-0.2 %). The thesis's Table 4.3.3
//! (96.5 % and 87.5 %) is out of reach of this set-up in either simulator:
//! the files' checks carry that as deviations. A receiver window of 21
//! packets moves link 2 by 3.6 (rate allocation) and 1.4 points (dynamics)
//! and fails this test.

use topology::Resolved;

const RATE: &str =
    include_str!("../scenarios/papers/pricing/e1-rate-allocation-newreno-droptail.toml");
const DYNAMICS: &str =
    include_str!("../scenarios/papers/pricing/e1-dynamics-newreno-droptail.toml");

/// ns-2's link 1 and link 2 utilisation and paths I, II, III's mean
/// per-flow throughput (Mb/s, packets of 1000 B acknowledged).
struct Ns2 {
    utilisation: [f64; 2],
    path_mbps: [f64; 3],
}

const NS2_RATE: Ns2 = Ns2 {
    utilisation: [0.999_697, 0.915_819],
    path_mbps: [5.343_211, 4.670_100, 2.652_322],
};

const NS2_DYNAMICS: Ns2 = Ns2 {
    utilisation: [0.999_818, 0.965_750],
    path_mbps: [3.899_380, 3.625_593, 1.972_847],
};

fn compare(what: &str, file: &str, ns2: &Ns2) {
    let r = Resolved::parse(file, "e1").expect("scenario");
    let names = r.group_names();
    let out = r.build(r.scenario.run.seed, 0).expect("build").run();
    for (link, want) in ["r1->r2", "r2->r3"].iter().zip(ns2.utilisation) {
        let l = out.links.iter().find(|l| l.name == *link).unwrap();
        let got = l.utilisation();
        assert!(
            (got - want).abs() <= 0.001,
            "{what}: {link} utilisation {got:.5} against ns-2's {want:.5}"
        );
    }
    for (path, want) in ["I", "II", "III"].iter().zip(ns2.path_mbps) {
        let rates: Vec<f64> = out
            .flows
            .iter()
            .filter(|f| {
                // The path's flows ("I-w100", "I-w100-base", ...) that run
                // from 0 s (the dynamics file's others start at 20 or 60 s).
                names[f.group.index()].split('-').next() == Some(*path)
                    && f.start == sim_core::SimTime::ZERO
            })
            .map(|f| f.goodput_bps().unwrap() / 1e6)
            .collect();
        assert_eq!(
            rates.len(),
            12,
            "{what}: path {path}'s flows running throughout"
        );
        let got = rates.iter().sum::<f64>() / 12.0;
        assert!(
            (got / want - 1.0).abs() <= 0.01,
            "{what}: path {path} {got:.4} Mb/s per flow against ns-2's {want:.4}"
        );
    }
}

#[test]
fn e1_newreno_droptail_rate_allocation_matches_ns2() {
    compare("rate allocation", RATE, &NS2_RATE);
}

#[test]
fn e1_newreno_droptail_dynamics_matches_ns2() {
    compare("dynamics", DYNAMICS, &NS2_DYNAMICS);
}
