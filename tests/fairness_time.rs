//! The link metric `fair_s` (time to epsilon-fairness, eq. 107 of seed 002)
//! against the discrete model of EMKC (eq. 105 with per-flow delays), in
//! seed 002's topology T1: one 10 Mb/s link, alpha = 0.2 Mb/s, beta = 0.5,
//! Delta = 100 ms; x1 (RTT 220 ms) from 0 s, x2 (RTT 2020 ms) from 5 s at
//! 100 kb/s. With the full 100-packet buffer's 80 ms the delays are D = 3
//! and 21 intervals.
//!
//! The same reading as the packet level: each rate a trailing 10-s (100-step)
//! mean, fair when min / max >= 0.99, the time after x2's join of the last
//! unfair step. The model value is the reference of t1-emkc.toml's
//! `[[expect]]` on fair_s (199.9 s); its tolerance (7 %) is the spread of the
//! model over D within one interval, computed here too. The last test gives
//! the bounds of E5.3 at packet level (e5-3-fairness-packets.toml).

use std::collections::BTreeMap;

use analysis::fairness::{fair_time, FairnessSpec};
use sim_core::FlowId;

const C: f64 = 10.0;
const ALPHA: f64 = 0.2;
const BETA: f64 = 0.5;
/// x2 joins at 5 s = 50 intervals.
const JOIN: usize = 50;
const STEPS: usize = 6000;

/// The model's time to fairness after x2's join, seconds. Eq. 105 per flow,
/// x_i(n) = x_i(n - D_i) + alpha - beta p(n - D_i) x_i(n - D_i), with the
/// price p(k) = (S(k) - C) / S(k) of the summed rates S(k) (eq. 85); x1
/// starts at step 0 and x2 at step `JOIN`, each at 100 kb/s, and a flow
/// keeps its start rate until its first feedback (from its own start) comes
/// back D_i steps later, as a packet source does. Read with the same
/// `fair_time` as the packet level, on the 0.1-s steps.
fn model_fair_s(d1: usize, d2: usize) -> f64 {
    let delays = [d1, d2];
    let starts = [0, JOIN];
    let mut x = [vec![0.0; STEPS], vec![0.0; STEPS]];
    let mut sum = vec![0.0; STEPS];
    for n in 0..STEPS {
        for i in 0..2 {
            x[i][n] = if n < starts[i] {
                0.0
            } else if n < starts[i] + delays[i] {
                0.1
            } else {
                let k = n - delays[i];
                let p = (sum[k] - C) / sum[k];
                x[i][k] + ALPHA - BETA * p * x[i][k]
            };
        }
        sum[n] = x[0][n] + x[1][n];
    }
    // Both end within 0.1 % of x* = C/N + alpha/beta (Theorem 9).
    for xi in &x {
        assert!((xi[STEPS - 1] / (C / 2.0 + ALPHA / BETA) - 1.0).abs() < 1e-3);
    }
    let mut rates = BTreeMap::new();
    for (i, xi) in x.iter().enumerate() {
        let s: Vec<(f64, f64)> = (starts[i]..STEPS)
            .map(|n| (n as f64 * 0.1, xi[n]))
            .collect();
        rates.insert(FlowId(i as u32), s);
    }
    let spec = FairnessSpec {
        epsilon: 0.01,
        average_s: 10.0,
    };
    let flows = [(FlowId(0), 0.0), (FlowId(1), JOIN as f64 * 0.1)];
    fair_time(&rates, &flows, spec).unwrap()
}

/// The `value` of the `[[expect]]` on link fair_s with `op` (absent =
/// approx) in the zhang scenario `file`, and its relative tolerance.
fn fair_s_expect(file: &str, op: Option<&str>) -> (f64, Option<f64>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/papers/zhang")
        .join(file);
    let doc: toml::Value = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let e = doc["expect"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["metric"].as_str() == Some("fair_s") && e.get("op").and_then(|o| o.as_str()) == op
        })
        .unwrap_or_else(|| panic!("{file}: no fair_s expectation with op {op:?}"));
    let num = |v: &toml::Value| v.as_float().or(v.as_integer().map(|i| i as f64));
    (num(&e["value"]).unwrap(), e.get("tolerance").and_then(num))
}

#[test]
fn t1_emkc_model_time_to_fairness_is_the_scenarios_reference() {
    let t = model_fair_s(3, 21);
    // The scenario states the model's value to 0.1 s.
    let (reference, tolerance) = fair_s_expect("t1-emkc.toml", None);
    assert!((t - reference).abs() < 0.05, "{t} vs {reference}");
    let tolerance = tolerance.unwrap();
    let spread: Vec<f64> = [(2, 20), (2, 22), (4, 20), (4, 22)]
        .iter()
        .map(|&(a, b)| (model_fair_s(a, b) - t) / t)
        .collect();
    // The scenario's tolerance covers D one interval either way, and no more
    // than a percent beyond it.
    assert!(spread.iter().all(|r| r.abs() < tolerance), "{spread:?}");
    assert!(
        spread.iter().any(|r| r.abs() > tolerance - 0.01),
        "{spread:?}"
    );
}

#[test]
fn the_papers_250_s_needs_a_longer_delay_in_the_model() {
    // "over 250 seconds" (§3.3): the model gets there only with x2's delay
    // near 27 intervals (a 2.7-s RTT) instead of 21.
    assert!(model_fair_s(3, 26) < 250.0);
    assert!(model_fair_s(3, 27) > 250.0);
}

/// E5.3 at packet level (scenarios/papers/zhang/e5-3-fairness-packets.toml)
/// is bounded by the discrete model with one and two steps of feedback
/// delay: 152 and 303 steps to 10 %-fairness from (0, C), C = 1000 kb/s,
/// alpha = 10 kb/s, beta = 0.5.
#[test]
fn e5_3_bounds_are_the_model_with_one_and_two_steps_of_delay() {
    use analysis::models::emkc::{fairness_steps, maximally_unfair, Emkc};
    let steps = |d: usize| {
        let m = Emkc::uniform(1000.0, 10.0, 0.5, 2, d).unwrap();
        fairness_steps(&m, &maximally_unfair(2, 1000.0), &[0.1], 2000).unwrap()[0]
    };
    assert_eq!(steps(1), Some(152));
    assert_eq!(steps(2), Some(303));
    // The scenario's bounds are those step counts at Delta = 100 ms.
    let file = "e5-3-fairness-packets.toml";
    for (op, d) in [("at_least", 1), ("at_most", 2)] {
        let seconds = steps(d).unwrap() as f64 * 0.1;
        let (v, _) = fair_s_expect(file, Some(op));
        assert!((v - seconds).abs() < 1e-9, "{op}: {v} vs {seconds}");
    }
}
