//! `netsim run`'s max-min section: for a scenario with explicit-rate
//! controllers, each such flow group's measured rate beside its max-min fair
//! share, computed by water-filling (`analysis::maxmin`) over the data paths
//! and link capacities of the resolved scenario.
//!
//! Demands: a long-lived (bulk) flow takes what it can get; a constant-bit-rate
//! or Poisson packet source asks for its rate; finite flows and flow-arrival
//! processes come and go and are left out (the section says so).

use analysis::maxmin::{max_min, Demand};
use analysis::Metrics;
use protocols::traffic::TrafficConfig;
use topology::Resolved;

/// The section's text, or `None` when no group runs an explicit-rate controller.
pub fn section(resolved: &Resolved, m: &Metrics<'_>) -> Option<String> {
    let explicit: Vec<usize> = resolved
        .groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.cfg.cc.as_ref().is_some_and(|c| c.explicit_rate()))
        .map(|(i, _)| i)
        .collect();
    if explicit.is_empty() {
        return None;
    }
    let caps: Vec<f64> = resolved
        .graph
        .links
        .iter()
        .map(|l| l.capacity.bps_f64())
        .collect();
    let mut demands = Vec::new();
    let mut owner = Vec::new();
    let mut left_out = Vec::new();
    for (gi, g) in resolved.groups.iter().enumerate() {
        let demand = match &g.cfg.traffic {
            TrafficConfig::Bulk {} => f64::INFINITY,
            TrafficConfig::Cbr { rate } | TrafficConfig::PoissonPackets { rate } => rate.bps_f64(),
            TrafficConfig::Finite { .. }
            | TrafficConfig::PoissonArrivals { .. }
            | TrafficConfig::Web(_) => {
                left_out.push(g.cfg.name.clone());
                continue;
            }
        };
        for (fwd, _) in &g.routes {
            demands.push(Demand {
                links: fwd.clone(),
                demand,
            });
            owner.push(gi);
        }
    }
    let rates = max_min(&caps, &demands);
    let measured = |name: &str| {
        let xs: Vec<f64> = (0..m.replications())
            .filter_map(|rep| m.find_value(rep, "group", name, "throughput_bps"))
            .collect();
        (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
    };
    let mut rows = vec![[
        "group".to_string(),
        "flows".to_string(),
        "throughput/flow (Mb/s)".to_string(),
        "max-min share/flow (Mb/s)".to_string(),
        "ratio".to_string(),
    ]];
    // Each group's flows' shares, in one pass.
    let mut shares: Vec<Vec<f64>> = vec![Vec::new(); resolved.groups.len()];
    for (o, r) in owner.iter().zip(&rates) {
        shares[*o].push(*r);
    }
    for gi in explicit {
        let g = &resolved.groups[gi];
        let shares = &shares[gi];
        if shares.is_empty() {
            continue;
        }
        let share = shares.iter().sum::<f64>() / shares.len() as f64;
        let got = measured(&g.cfg.name);
        rows.push([
            g.cfg.name.clone(),
            shares.len().to_string(),
            got.map_or("-".into(), |x| format!("{:.3}", x / 1e6)),
            format!("{:.3}", share / 1e6),
            got.map_or("-".into(), |x| format!("{:.4}", x / share)),
        ]);
    }
    let widths: Vec<usize> = (0..5)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::from(
        "\nMax-min fair shares (explicit-rate groups; water-filling over the data paths)\n",
    );
    for r in &rows {
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
    if !left_out.is_empty() {
        out.push_str(&format!(
            "(finite and arriving flows left out of the allocation: {})\n",
            left_out.join(", ")
        ));
    }
    Some(out)
}
