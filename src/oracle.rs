//! `netsim run`'s reference allocations, computed from the resolved
//! scenario's data paths and link capacities and printed beside the measured
//! rates:
//!
//! - max-min fair shares (water-filling, `analysis::maxmin`) for scenarios
//!   with explicit-rate controllers (QLB, XCP, RCP, MKC, JetMax);
//! - the network utility maximisation (NUM) optimum (`analysis::num`), the
//!   weighted alpha-fair allocation, for scenarios with an `[oracle]` table or
//!   a controller that declares a willingness to pay (congestion pricing,
//!   Kelly control).
//!
//! `[[expect]] relative_to = "num_optimum" | "max_min_share"` divides a
//! group's measured per-flow rate by its reference rate from here.
//!
//! Demands: a long-lived (bulk) flow takes what it can get; a constant-bit-rate
//! or Poisson packet source asks for its rate (max-min: a capped flow; NUM: a
//! fixed load subtracted from the capacities it crosses, since it has no
//! utility to trade); finite flows and flow-arrival processes come and go and
//! are left out (the sections say so).
//!
//! NUM weights: a controller's own (`CcConfig::utility_weight`, in bits/s);
//! a long-lived group whose controller declares none is weighted with the
//! mean of the declared weights (equal to its peers), or 1 when no group
//! declares one: the allocation depends only on the weights' ratios.

use analysis::maxmin::{max_min, Demand};
use analysis::num::{alpha_fair, NumFlow, NumSolution};
use analysis::Metrics;
use protocols::traffic::TrafficConfig;
use topology::build::ResolvedGroup;
use topology::scenario::Reference;
use topology::Resolved;

/// What a group's flows ask of the network.
enum Want {
    /// Long-lived: as much as it gets.
    Greedy,
    /// A fixed rate, bits/s.
    Fixed(f64),
    /// Left out (finite flows, arrival processes).
    Out,
}

fn want(t: &TrafficConfig) -> Want {
    match t {
        TrafficConfig::Bulk {} => Want::Greedy,
        TrafficConfig::Cbr { rate } | TrafficConfig::PoissonPackets { rate } => {
            Want::Fixed(rate.bps_f64())
        }
        TrafficConfig::Finite { .. }
        | TrafficConfig::PoissonArrivals { .. }
        | TrafficConfig::Web(_) => Want::Out,
    }
}

/// The NUM oracle's answer, per group.
pub struct NumAnswer {
    /// Fairness exponent.
    pub alpha: f64,
    /// Mean per-flow optimum of each long-lived group, bits/s.
    pub per_group: Vec<Option<f64>>,
    /// The weight each long-lived group's flows got, and whether the
    /// controller declared it.
    pub weights: Vec<Option<(f64, bool)>>,
    /// The solver's result (rates normalised by the largest capacity).
    pub solution: NumSolution,
}

/// The reference allocations of one resolved scenario.
pub struct Oracles {
    /// Max-min fair share per flow of each group (bits/s), when computed.
    pub max_min: Option<Vec<Option<f64>>>,
    /// The NUM optimum, when computed.
    pub num: Option<NumAnswer>,
    /// Groups left out of both (finite flows and arrival processes).
    pub left_out: Vec<String>,
}

impl Oracles {
    /// Compute the allocations the scenario asks for (explicitly, through its
    /// controllers, or through `[[expect]] relative_to`).
    pub fn compute(resolved: &Resolved) -> Oracles {
        let sc = &resolved.scenario;
        let wants_ref = |r: Reference| sc.expect.iter().any(|e| e.relative_to == Some(r));
        let explicit = resolved
            .groups
            .iter()
            .any(|g| g.cfg.cc.as_ref().is_some_and(|c| c.explicit_rate()));
        let priced = resolved.groups.iter().any(|g| weight_of(g).is_some());
        let left_out = resolved
            .groups
            .iter()
            .filter(|g| matches!(want(&g.cfg.traffic), Want::Out))
            .map(|g| g.cfg.name.clone())
            .collect();
        Oracles {
            max_min: (explicit || wants_ref(Reference::MaxMinShare))
                .then(|| max_min_shares(resolved)),
            num: (sc.oracle.is_some() || priced || wants_ref(Reference::NumOptimum))
                .then(|| num_optimum(resolved)),
            left_out,
        }
    }

    /// Group `gi`'s per-flow reference rate, bits/s.
    pub fn share(&self, r: Reference, gi: usize) -> Option<f64> {
        match r {
            Reference::MaxMinShare => self.max_min.as_ref()?.get(gi).copied().flatten(),
            Reference::NumOptimum => self.num.as_ref()?.per_group.get(gi).copied().flatten(),
        }
    }

    /// The report's sections (empty when nothing was computed).
    pub fn sections(&self, resolved: &Resolved, m: &Metrics<'_>) -> String {
        let mut out = String::new();
        let measured = |name: &str| {
            let xs: Vec<f64> = (0..m.replications())
                .filter_map(|rep| m.find_value(rep, "group", name, "throughput_bps"))
                .collect();
            (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
        };
        if let Some(mm) = &self.max_min {
            let mut rows = vec![header("max-min share/flow (Mb/s)")];
            let is_explicit =
                |g: &ResolvedGroup| g.cfg.cc.as_ref().is_some_and(|c| c.explicit_rate());
            // The explicit-rate groups, or every group when none is (the
            // section was asked for by an expectation).
            let any_explicit = resolved.groups.iter().any(is_explicit);
            for (gi, g) in resolved.groups.iter().enumerate() {
                if let (true, Some(share)) = (is_explicit(g) || !any_explicit, mm[gi]) {
                    rows.push(row(
                        &g.cfg.name,
                        g.routes.len(),
                        measured(&g.cfg.name),
                        share,
                    ));
                }
            }
            out.push_str(&format!(
                "\nMax-min fair shares ({}; water-filling over the data paths)\n",
                if any_explicit {
                    "explicit-rate groups"
                } else {
                    "every group"
                }
            ));
            out.push_str(&table(&rows));
        }
        if let Some(n) = &self.num {
            let mut rows = vec![header("optimum/flow (Mb/s)")];
            let mut guessed = Vec::new();
            for (gi, g) in resolved.groups.iter().enumerate() {
                if let Some(share) = n.per_group[gi] {
                    rows.push(row(
                        &g.cfg.name,
                        g.routes.len(),
                        measured(&g.cfg.name),
                        share,
                    ));
                    if n.weights[gi].is_some_and(|(_, declared)| !declared) {
                        guessed.push(g.cfg.name.clone());
                    }
                }
            }
            out.push_str(&format!(
                "\nNUM optimum (weighted {}; KKT residual {:.1e} after {} sweeps)\n",
                if n.alpha == 1.0 {
                    "proportional fairness, alpha = 1".to_string()
                } else {
                    format!("alpha-fairness, alpha = {}", n.alpha)
                },
                n.solution.kkt_residual,
                n.solution.sweeps
            ));
            out.push_str(&table(&rows));
            if !guessed.is_empty() {
                out.push_str(&format!(
                    "(no willingness to pay declared, weighted as their peers: {})\n",
                    guessed.join(", ")
                ));
            }
        }
        if (self.max_min.is_some() || self.num.is_some()) && !self.left_out.is_empty() {
            out.push_str(&format!(
                "(finite and arriving flows left out of the allocation: {})\n",
                self.left_out.join(", ")
            ));
        }
        out
    }
}

/// `[[expect]] relative_to`'s lookup: a group's per-flow reference rate by name.
pub fn lookup<'a>(
    resolved: &'a Resolved,
    oracles: &'a Oracles,
) -> impl Fn(Reference, &str) -> Option<f64> + 'a {
    move |r, name| {
        let gi = resolved.groups.iter().position(|g| g.cfg.name == name)?;
        oracles.share(r, gi)
    }
}

/// A group's declared utility weight, bits/s (long-lived groups only).
fn weight_of(g: &ResolvedGroup) -> Option<f64> {
    if !matches!(want(&g.cfg.traffic), Want::Greedy) {
        return None;
    }
    let (lo, hi) = g.cfg.packet_size.bounds();
    let bytes = 0.5 * (lo.get() as f64 + hi.get() as f64);
    g.cfg.cc.as_ref()?.utility_weight(bytes)
}

fn capacities(resolved: &Resolved) -> Vec<f64> {
    resolved
        .graph
        .links
        .iter()
        .map(|l| l.capacity.bps_f64())
        .collect()
}

/// Mean of a group's flows' values (groups in order).
fn per_group(groups: usize, owner: &[usize], values: &[f64]) -> Vec<Option<f64>> {
    let mut sum = vec![0.0; groups];
    let mut n = vec![0usize; groups];
    for (o, v) in owner.iter().zip(values) {
        sum[*o] += v;
        n[*o] += 1;
    }
    sum.iter()
        .zip(&n)
        .map(|(s, &k)| (k > 0).then(|| s / k as f64))
        .collect()
}

fn max_min_shares(resolved: &Resolved) -> Vec<Option<f64>> {
    let mut demands = Vec::new();
    let mut owner = Vec::new();
    for (gi, g) in resolved.groups.iter().enumerate() {
        let demand = match want(&g.cfg.traffic) {
            Want::Greedy => f64::INFINITY,
            Want::Fixed(r) => r,
            Want::Out => continue,
        };
        for (fwd, _) in &g.routes {
            demands.push(Demand {
                links: fwd.clone(),
                demand,
            });
            owner.push(gi);
        }
    }
    let rates = max_min(&capacities(resolved), &demands);
    per_group(resolved.groups.len(), &owner, &rates)
}

fn num_optimum(resolved: &Resolved) -> NumAnswer {
    let alpha = resolved.scenario.oracle.map_or(1.0, |o| o.alpha);
    let mut caps = capacities(resolved);
    let declared: Vec<Option<f64>> = resolved.groups.iter().map(weight_of).collect();
    let known: Vec<f64> = declared.iter().flatten().copied().collect();
    let fallback = if known.is_empty() {
        1.0
    } else {
        known.iter().sum::<f64>() / known.len() as f64
    };
    let mut flows = Vec::new();
    let mut owner = Vec::new();
    let mut weights = vec![None; resolved.groups.len()];
    for (gi, g) in resolved.groups.iter().enumerate() {
        match want(&g.cfg.traffic) {
            Want::Greedy => {
                let w = declared[gi].map_or((fallback, false), |w| (w, true));
                weights[gi] = Some(w);
                for (fwd, _) in &g.routes {
                    flows.push(NumFlow {
                        links: fwd.clone(),
                        weight: w.0,
                        demand: f64::INFINITY,
                    });
                    owner.push(gi);
                }
            }
            Want::Fixed(r) => {
                for (fwd, _) in &g.routes {
                    for &l in fwd {
                        caps[l] = (caps[l] - r).max(0.0);
                    }
                }
            }
            Want::Out => {}
        }
    }
    // Rates in units of the largest capacity keep x^-alpha within f64's
    // range; the optimum scales back (a common factor of every utility).
    let scale = caps.iter().copied().fold(0.0, f64::max).max(1.0);
    let norm: Vec<f64> = caps.iter().map(|c| c / scale).collect();
    let solution = alpha_fair(&norm, &flows, alpha);
    let rates: Vec<f64> = solution.rates.iter().map(|x| x * scale).collect();
    NumAnswer {
        alpha,
        per_group: per_group(resolved.groups.len(), &owner, &rates),
        weights,
        solution,
    }
}

fn header(share: &str) -> [String; 5] {
    [
        "group".to_string(),
        "flows".to_string(),
        "throughput/flow (Mb/s)".to_string(),
        share.to_string(),
        "ratio".to_string(),
    ]
}

fn row(name: &str, flows: usize, got: Option<f64>, share: f64) -> [String; 5] {
    [
        name.to_string(),
        flows.to_string(),
        got.map_or("-".into(), |x| format!("{:.3}", x / 1e6)),
        format!("{:.3}", share / 1e6),
        got.map_or("-".into(), |x| format!("{:.4}", x / share)),
    ]
}

fn table(rows: &[[String; 5]]) -> String {
    let widths: Vec<usize> = (0..5)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (s, w))| {
                if c == 0 {
                    format!("{s:<w$}")
                } else {
                    format!("{s:>w$}")
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}
