//! Validation of a scenario's `[[expect]]` entries (reference values), with
//! errors that name the entry's key (`expect[3].window`).

use std::collections::{BTreeSet, HashSet};

use crate::build::err;
use crate::error::ScenarioError;
use crate::graph::Graph;
use crate::scenario::{ExpectKind, Scenario, SeriesName};

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
        if let Some(c) = &e.cross_check {
            cross_check_form(c, e.kind).map_err(|m| err(format!("{at}.cross_check"), m))?;
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

/// Check the form of a `cross_check` (of `[[expect]]` or `[[sweep.expect]]`):
/// one or more references separated by commas, each `path::function` or
/// `path`, the path relative to the repository root, on a paper or derived
/// value (a set-up check that misses is a fault to mend, not a value a
/// reference can share).
pub(crate) fn cross_check_form(c: &str, kind: ExpectKind) -> Result<(), String> {
    if kind == ExpectKind::Setup {
        return Err(
            "a set-up check takes no cross-check: one that misses is a fault to mend".into(),
        );
    }
    let well_formed = |item: &str| {
        let (path, function) = match item.split_once("::") {
            Some((p, f)) => (p, Some(f)),
            None => (item, None),
        };
        let path_ok = !path.is_empty()
            && !path.starts_with('/')
            && !path.chars().any(char::is_whitespace)
            && !path.split('/').any(|part| part == ".." || part.is_empty());
        path_ok
            && function.is_none_or(|f| {
                !f.is_empty() && f.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
            })
    };
    match c.split(',').map(str::trim).find(|item| !well_formed(item)) {
        None => Ok(()),
        Some(bad) => Err(format!(
            "`{bad}` is not `path::function` or `path` (a file under the repository root, \
             e.g. tests/pricing_reference_model.rs::e1_sbrm_utilisation_is_the_models; \
             several separated by commas)"
        )),
    }
}
