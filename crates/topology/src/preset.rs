//! Topology presets that expand into the generic graph.

use crate::error::ScenarioError;
use crate::graph::{apply_override, Graph};
use crate::limits::check_population;
use crate::scenario::{DumbbellConfig, LinkParams, ParkingLotConfig, Preset};
use sim_core::units::MAX_DURATION;
use sim_core::SimDuration;

/// Expand `p` into nodes and links of `g`.
pub fn expand_preset(p: &Preset, g: &mut Graph) -> Result<(), ScenarioError> {
    match p {
        Preset::Dumbbell(d) => dumbbell(d, g),
        Preset::ParkingLot(pl) => parking_lot(pl, g),
    }
}

fn dumbbell(d: &DumbbellConfig, g: &mut Graph) -> Result<(), ScenarioError> {
    check_population(d.pairs, "topology.pairs")?;
    for i in 0..d.pairs {
        g.add_node(&format!("s{i}"));
    }
    g.add_node("r1");
    g.add_node("r2");
    for i in 0..d.pairs {
        g.add_node(&format!("d{i}"));
    }
    let (r1, r2) = (d.pairs as usize, d.pairs as usize + 1);
    g.add_link(r1, r2, &d.bottleneck, true, "topology.bottleneck");
    let egress = d.egress.as_ref().unwrap_or(&d.access);
    let egress_at = if d.egress.is_some() {
        "topology.egress"
    } else {
        "topology.access"
    };
    if d.access_delay_step.is_some() && !d.access_delays.is_empty() {
        return Err(ScenarioError::new(
            "topology.access_delay_step",
            "give either access_delays (a list) or access_delay_step, not both",
        ));
    }
    for i in 0..d.pairs as usize {
        let mut access = d.access.clone();
        if !d.access_delays.is_empty() {
            access.delay = d.access_delays[i % d.access_delays.len()];
        }
        if let Some(step) = d.access_delay_step {
            access.delay = step
                .as_ps()
                .checked_mul(i as u64)
                .and_then(|ps| access.delay.as_ps().checked_add(ps))
                .map(SimDuration::from_ps)
                .filter(|d| *d <= MAX_DURATION)
                .ok_or_else(|| {
                    ScenarioError::new(
                        "topology.access_delay_step",
                        format!(
                            "pair {i}'s access delay (access.delay + {i} x {step}) is longer than {MAX_DURATION}, the longest scenario duration"
                        ),
                    )
                })?;
        }
        g.add_link(i, r1, &access, true, "topology.access");
        g.add_link(r2, d.pairs as usize + 2 + i, egress, true, egress_at);
    }
    Ok(())
}

fn parking_lot(p: &ParkingLotConfig, g: &mut Graph) -> Result<(), ScenarioError> {
    check_population(p.hops, "topology.hops")?;
    if p.per_hop.len() > p.hops as usize {
        return Err(ScenarioError::new(
            "topology.per_hop",
            format!("{} overrides for {} hops", p.per_hop.len(), p.hops),
        ));
    }
    let k = p.hops as usize;
    for j in 0..=k {
        g.add_node(&format!("r{j}"));
    }
    for n in ["src", "dst"] {
        g.add_node(n);
    }
    for j in 1..=k {
        g.add_node(&format!("cs{j}"));
        g.add_node(&format!("cd{j}"));
    }
    for j in 1..=k {
        let params: LinkParams = match p.per_hop.get(j - 1) {
            Some(o) => apply_override(&p.link, o),
            None => p.link.clone(),
        };
        let origin = if p.per_hop.len() >= j {
            format!("topology.per_hop[{}]", j - 1)
        } else {
            "topology.link".to_string()
        };
        g.add_link(j - 1, j, &params, true, &origin);
    }
    let node = |g: &Graph, n: &str| g.node(n).expect("preset node");
    let (src, dst) = (node(g, "src"), node(g, "dst"));
    g.add_link(src, 0, &p.access, true, "topology.access");
    g.add_link(k, dst, &p.access, true, "topology.access");
    for j in 1..=k {
        let (cs, cd) = (node(g, &format!("cs{j}")), node(g, &format!("cd{j}")));
        g.add_link(cs, j - 1, &p.access, true, "topology.access");
        g.add_link(j, cd, &p.access, true, "topology.access");
    }
    Ok(())
}
