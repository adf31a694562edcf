//! Limits that keep a scenario inside what one machine can hold: how many
//! flows a group may have, how far the simulated clock may run, and how many
//! time-series values a run may record. Each is far past the seed papers'
//! experiments and stops a typo (an exponent, a unit) with an error that
//! names the key, instead of an out-of-memory abort or a clock overflow.

use sim_core::units::MAX_DURATION;
use sim_core::{SimDuration, PS_PER_SEC};

use crate::build::{Resolved, ResolvedGroup};
use crate::error::ScenarioError;
use crate::graph::Graph;
use crate::scenario::{FlowGroupConfig, Scenario, SeriesName};
use protocols::traffic::TrafficConfig;

/// The largest `topology.pairs`, `topology.hops` and `[[flows]] count` a
/// scenario may give: one million, a thousand times the largest population
/// the seed papers simulate (E6.5's 1024 flows). A larger value is almost
/// surely a typo or a runaway sweep value; it gets an error naming the key,
/// not an out-of-memory abort while the network is built.
pub const MAX_COUNT: u32 = 1_000_000;

fn err(path: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(path, msg)
}

/// `n` as a population (`pairs`, `hops`, a `count`): 1 ..= [`MAX_COUNT`], else
/// an error at `key`.
pub(crate) fn check_population(n: u32, key: impl Into<String>) -> Result<(), ScenarioError> {
    if n == 0 || n > MAX_COUNT {
        return Err(err(
            key,
            format!("{n} is out of range; allowed: 1 ..= {MAX_COUNT}"),
        ));
    }
    Ok(())
}

/// The most time-series values a run may hold in memory: 2.5 x 10^8, about
/// 10 GB at 40 B a value. It stops a unit typo ("1ns" for "1ms" is a million
/// times the samples; it once grew a run by 0.8 GB a second until memory ran
/// out), not heavy but real sampling (1000 flows' rates every 10 ms for 300 s
/// is 9 x 10^7 values).
pub const MAX_SERIES_VALUES: f64 = 2.5e8;

/// Up to how many time-series values one replication records: per sample, 3
/// per flow for `flow_rate`, 4 for `flow_control`, 1 for `flow_window` and
/// `flow_rtt`, and up to 3
/// per directed link for `link_queue` and `link_rate` (an arrival process
/// counts as one flow).
fn series_values(sc: &Scenario, graph: &Graph, groups: &[ResolvedGroup]) -> (f64, f64) {
    let Some(iv) = sc.run.sample_interval else {
        return (0.0, 0.0);
    };
    let flows: f64 = groups.iter().map(|g| g.routes.len() as f64).sum();
    let links = graph.links.len() as f64;
    let per_sample: f64 = sc
        .run
        .series
        .iter()
        .map(|s| match s {
            SeriesName::FlowWindow | SeriesName::FlowRtt => flows,
            SeriesName::FlowRate => 3.0 * flows,
            SeriesName::FlowControl => 4.0 * flows,
            SeriesName::LinkQueue | SeriesName::LinkRate => 3.0 * links,
        })
        .sum();
    let samples = (sc.run.duration.as_ps() / iv.as_ps()) as f64 + 1.0;
    (samples, per_sample)
}

impl Resolved {
    /// Up to how many time-series values one replication records.
    pub fn series_values(&self) -> f64 {
        let (samples, per_sample) = series_values(&self.scenario, &self.graph, &self.groups);
        samples * per_sample
    }
}

/// Reject a sampling interval that would fill memory within one replication.
pub(crate) fn check_series_volume(
    sc: &Scenario,
    graph: &Graph,
    groups: &[ResolvedGroup],
) -> Result<(), ScenarioError> {
    let (samples, per_sample) = series_values(sc, graph, groups);
    let values = samples * per_sample;
    if values > MAX_SERIES_VALUES {
        return Err(err(
            "run.sample_interval",
            format!(
                "sampling every {} over {} is {} samples of up to {} series values, {} \
                 values per replication (about {} GB); at most {}: sample less often or \
                 select fewer series",
                sc.run.sample_interval.unwrap_or(SimDuration::ZERO),
                sc.run.duration,
                sim_core::fmt_num(samples),
                sim_core::fmt_num(per_sample),
                sim_core::fmt_num(values),
                sim_core::fmt_num((values * 40e-9).round()),
                sim_core::fmt_num(MAX_SERIES_VALUES),
            ),
        ));
    }
    Ok(())
}

/// A fixed group's `count` (1 ..= [`MAX_COUNT`]), and its last flow's start,
/// with its jitter, on the clock.
pub(crate) fn check_count(g: &FlowGroupConfig, at: &str) -> Result<(), ScenarioError> {
    check_population(g.count, format!("{at}.count"))?;
    // The last flow's start, with its jitter, must stay on the clock.
    let last_start = g.start.as_ps() as u128
        + g.start_spacing.as_ps() as u128 * u128::from(g.count - 1)
        + g.start_jitter.as_ps() as u128;
    if last_start > MAX_DURATION.as_ps() as u128 {
        return Err(err(
            format!("{at}.start_spacing"),
            format!(
                "flow {} would start at {} s (start + {} x start_spacing + start_jitter), \
                 past {MAX_DURATION}, the longest scenario time",
                g.count - 1,
                sim_core::fmt_num(last_start as f64 / PS_PER_SEC as f64),
                g.count - 1
            ),
        ));
    }
    Ok(())
}

/// An arrival process's population, bounded as a fixed group's `count` is.
pub(crate) fn check_arrivals(
    sc: &Scenario,
    g: &FlowGroupConfig,
    at: &str,
) -> Result<(), ScenarioError> {
    let run_end = sc.run.duration;
    if let TrafficConfig::Web(web) = &g.traffic {
        let end = g.stop.map_or(run_end, |s| s.min(run_end));
        let secs = end.as_secs_f64() - g.start.as_secs_f64();
        let expected = web.expected_objects(secs);
        check_population(web.sessions, format!("{at}.traffic.sessions"))?;
        if expected > f64::from(MAX_COUNT) {
            return Err(err(
                format!("{at}.traffic.sessions"),
                format!(
                    "{} sessions request {} objects on average over the group's {} s, each \
                     a flow or a row of the objects table; at most {MAX_COUNT}: fewer \
                     sessions, fewer or longer-spaced pages, or a shorter run",
                    web.sessions,
                    sim_core::fmt_num(expected.round()),
                    sim_core::fmt_num(secs),
                ),
            ));
        }
    }
    if let TrafficConfig::PoissonArrivals { rate, count, .. } = &g.traffic {
        // Each arrival is a flow with its own state: bound the population the
        // way `count` is bounded for a fixed group.
        let end = g.stop.map_or(run_end, |s| s.min(run_end));
        let secs = end.as_secs_f64() - g.start.as_secs_f64();
        let expected = rate * secs;
        if let Some(c) = *count {
            check_population(c, format!("{at}.traffic.count"))?;
        }
        if count.is_none() && expected > f64::from(MAX_COUNT) {
            return Err(err(
                format!("{at}.traffic.rate"),
                format!(
                    "{} arrivals/s over the group's {} s is {} flows on average; at most \
                     {MAX_COUNT}: lower the rate, or cap the arrivals with `count`",
                    sim_core::fmt_num(*rate),
                    sim_core::fmt_num(secs),
                    sim_core::fmt_num(expected.round()),
                ),
            ));
        }
    }
    Ok(())
}
