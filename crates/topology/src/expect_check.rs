//! Validation of a scenario's `[[expect]]` entries (reference values), with
//! errors that name the entry's key (`expect[3].window`).

use std::collections::{BTreeSet, HashSet};

use crate::build::err;
use crate::error::ScenarioError;
use crate::graph::Graph;
use crate::scenario::{Scenario, SeriesName};

/// Check every `[[expect]]` of `sc`: its scope, the subjects it names (flow
/// groups `names`, the links of `graph`), a window against the run and
/// the sampled series, and the combinations of its keys.
pub(crate) fn validate_expects(
    sc: &Scenario,
    names: &BTreeSet<String>,
    graph: &Graph,
) -> Result<(), ScenarioError> {
    let link_names: HashSet<&str> = if sc.expect.iter().any(|e| e.scope == "link") {
        graph.links.iter().map(|l| l.name.as_str()).collect()
    } else {
        HashSet::new()
    };
    for (i, e) in sc.expect.iter().enumerate() {
        let at = format!("expect[{i}]");
        if !["group", "link", "run"].contains(&e.scope.as_str()) {
            return Err(err(
                format!("{at}.scope"),
                format!("unknown scope `{}`; allowed: group, link, run", e.scope),
            ));
        }
        let known = |s: &String| match e.scope.as_str() {
            "group" => names.contains(s),
            "link" => link_names.contains(s.as_str()),
            _ => true,
        };
        for (key, s) in [
            ("subject", Some(&e.subject)),
            ("ratio_to", e.ratio_to.as_ref()),
            ("share_with", e.share_with.as_ref()),
        ] {
            if let Some(s) = s.filter(|s| !known(s)) {
                return Err(err(
                    format!("{at}.{key}"),
                    format!("no {} named `{s}`", e.scope),
                ));
            }
        }
        if let Some([from, to]) = e.window {
            if from >= to || to > sc.run.duration {
                return Err(err(
                    format!("{at}.window"),
                    format!(
                        "[{from}, {to}] is not a window of the run: from < to <= \
                         run.duration ({})",
                        sc.run.duration
                    ),
                ));
            }
            match SeriesName::carrying(&e.scope, &e.metric) {
                None => {
                    return Err(err(
                        format!("{at}.metric"),
                        format!(
                            "`{}` is not a sampled series of scope `{}`; a window \
                             reads link queue_pkts, queue_bytes, rate_bps, arrival_bps, \
                             loss_frac, utilisation or group cwnd_bytes, rate_bps, \
                             rate_avg_bps, throughput_bps, loss_event_rate, srtt_s, \
                             p_on, r_tcp_bps, r_eff_bps, on",
                            e.metric, e.scope
                        ),
                    ))
                }
                Some(series) if !sc.run.series.contains(&series) => {
                    return Err(err(
                        format!("{at}.window"),
                        format!(
                            "`{}` is read from the series `{}`: add it to run.series",
                            e.metric,
                            toml::Value::try_from(series)
                                .ok()
                                .and_then(|v| v.as_str().map(str::to_string))
                                .unwrap_or_default()
                        ),
                    ))
                }
                Some(_) => {}
            }
            if e.ratio_to.is_some()
                || e.relative_to.is_some()
                || e.ratio_to_scenario.is_some()
                || e.share_with.is_some()
            {
                return Err(err(
                    format!("{at}.window"),
                    "a windowed series mean takes no ratio_to, relative_to or \
                     ratio_to_scenario",
                ));
            }
        }
        if e.share_with.is_some()
            && (e.ratio_to.is_some() || e.relative_to.is_some() || e.ratio_to_scenario.is_some())
        {
            return Err(err(
                format!("{at}.share_with"),
                "use one of share_with, ratio_to, relative_to and ratio_to_scenario",
            ));
        }
        if let Some(f) = &e.ratio_to_scenario {
            if e.ratio_to.is_some() || e.relative_to.is_some() {
                return Err(err(
                    format!("{at}.ratio_to_scenario"),
                    "use one of ratio_to, relative_to and ratio_to_scenario",
                ));
            }
            if f.trim().is_empty() {
                return Err(err(
                    format!("{at}.ratio_to_scenario"),
                    "must name a scenario file (a path relative to this file)",
                ));
            }
        }
        if e.relative_to.is_some() {
            if e.scope != "group" {
                return Err(err(
                    format!("{at}.relative_to"),
                    "a reference allocation is per flow group: needs scope = \"group\"",
                ));
            }
            if e.ratio_to.is_some() {
                return Err(err(
                    format!("{at}.relative_to"),
                    "use either ratio_to or relative_to, not both",
                ));
            }
            if !e.metric.ends_with("_bps") {
                return Err(err(
                    format!("{at}.metric"),
                    format!(
                        "`{}` is not a rate; relative_to divides a rate metric \
                         (throughput_bps, goodput_bps) by the reference rate",
                        e.metric
                    ),
                ));
            }
        }
        if e.level.is_some_and(|l| !(l > 0.0 && l < 1.0)) {
            return Err(err(format!("{at}.level"), "must be in (0, 1), e.g. 0.9"));
        }
        for (k, v) in [
            ("tolerance", e.tolerance),
            ("abs_tolerance", e.abs_tolerance),
            ("ref_ci", e.ref_ci),
        ] {
            if v.is_some_and(|x| !(x.is_finite() && x >= 0.0)) {
                return Err(err(format!("{at}.{k}"), "must be a finite number >= 0"));
            }
        }
    }
    Ok(())
}
