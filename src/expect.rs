//! Checking a run against the `[[expect]]` reference values of its scenario.
//!
//! Each expectation is evaluated from the per-replication values of its metric
//! (or, with `ratio_to`, of the ratio of two subjects' metrics, formed in each
//! replication), summarised with a Student-t interval at the expectation's
//! `level` (default 95 %).

use analysis::{Metrics, Summary};
use topology::scenario::{Expect, ExpectKind, ExpectOp, Reference};

mod render;
pub use render::{render, render_csv, render_markdown};

/// The outcome of one expectation.
pub struct Verdict {
    /// The expectation.
    pub expect: Expect,
    /// netsim's mean, CI half-width (at the expectation's level) and n, if the
    /// metric exists in at least one replication.
    pub got: Option<(f64, f64, usize)>,
    /// Whether it passed.
    pub pass: bool,
    /// How the comparison was made.
    pub rule: String,
    /// Text for the reference and netsim columns when the numbers alone do not
    /// say it (a curve's shape); `None` prints `value` and `got`.
    pub text: Option<(String, String)>,
}

/// The metrics of the scenarios expectations compare with
/// (`ratio_to_scenario`), by the name the expectation gives.
pub type Compared<'a> = [(String, Metrics<'a>)];

/// The per-replication values an expectation is judged on (looked up by
/// index in `m`).
fn samples(
    e: &Expect,
    m: &Metrics<'_>,
    reference: &References<'_>,
    compared: &Compared<'_>,
) -> Vec<f64> {
    if let Some(name) = &e.ratio_to_scenario {
        let Some((_, o)) = compared.iter().find(|(n, _)| n == name) else {
            return Vec::new();
        };
        return (0..m.replications().min(o.replications()))
            .filter_map(|rep| {
                let x = m.find_value(rep, &e.scope, &e.subject, &e.metric)?;
                let y = o.find_value(rep, &e.scope, &e.subject, &e.metric)?;
                Some(x / y).filter(|r| r.is_finite())
            })
            .collect();
    }
    // `relative_to`: the subject group's reference rate, the same in every
    // replication (none: no samples, and the verdict says why).
    let per_flow = match e.relative_to {
        Some(r) => match reference(r, &e.subject) {
            Some(v) if v > 0.0 => Some(v),
            _ => return Vec::new(),
        },
        None => None,
    };
    if let Some([from, to]) = e.window {
        let Some(scope) = analysis::metrics::Scope::parse(&e.scope) else {
            return Vec::new();
        };
        let span = (from.as_secs_f64(), to.as_secs_f64());
        return (0..m.replications())
            .filter_map(|rep| m.window_mean(rep, scope, &e.subject, &e.metric, span))
            .collect();
    }
    (0..m.replications())
        .filter_map(|rep| {
            let x = m.find_value(rep, &e.scope, &e.subject, &e.metric)?;
            if let Some(v) = per_flow {
                return Some(x / v);
            }
            combine(x, e.ratio_to.as_deref(), e.share_with.as_deref(), |other| {
                m.find_value(rep, &e.scope, other, &e.metric)
            })
        })
        .collect()
}

/// One replication's `x` combined with another subject's value `y` of the
/// same metric (looked up by `other`): `x / y` with `ratio_to`, `x / (x + y)`
/// with `share_with` (the two exclude each other), `x` alone with neither;
/// `None` when `y` is missing or the result is not finite. `[[expect]]` and
/// `[[sweep.expect]]` curves both form their values here.
pub fn combine(
    x: f64,
    ratio_to: Option<&str>,
    share_with: Option<&str>,
    other: impl Fn(&str) -> Option<f64>,
) -> Option<f64> {
    let v = match (ratio_to, share_with) {
        (Some(d), _) => x / other(d)?,
        (None, Some(d)) => x / (x + other(d)?),
        (None, None) => return Some(x),
    };
    Some(v).filter(|r| r.is_finite())
}

/// A group's per-flow reference rate (`[[expect]] relative_to`), bits/s, by
/// group name.
pub type References<'a> = dyn Fn(Reference, &str) -> Option<f64> + 'a;

/// Evaluate every expectation against the per-replication metrics of `m`;
/// `reference` answers `relative_to`, `compared` `ratio_to_scenario`.
pub fn evaluate(
    expects: &[Expect],
    m: &Metrics<'_>,
    reference: &References<'_>,
    compared: &Compared<'_>,
) -> Vec<Verdict> {
    expects
        .iter()
        .map(|e| {
            let xs = samples(e, m, reference, compared);
            let s = Summary::with_level(&xs, e.level.unwrap_or(analysis::stats::DEFAULT_LEVEL));
            let got = (s.n > 0).then_some((s.mean, s.half_width, s.n));
            let (pass, rule) = match got {
                None if e.window.is_some() => (
                    false,
                    format!(
                        "no `{}` samples of {} `{}` in the window",
                        e.metric, e.scope, e.subject
                    ),
                ),
                None if e.ratio_to_scenario.is_some() => (
                    false,
                    format!(
                        "no metric `{}` for {} `{}` in both this run and `{}`",
                        e.metric,
                        e.scope,
                        e.subject,
                        e.ratio_to_scenario.as_deref().unwrap_or_default()
                    ),
                ),
                None if e.relative_to.is_some() => (
                    false,
                    format!(
                        "no {} for group `{}` (a long-lived flow group on the oracle's paths) \
                         or no `{}` in the runs",
                        e.relative_to.map_or("", reference_word),
                        e.subject,
                        e.metric
                    ),
                ),
                None => (
                    false,
                    format!(
                        "no metric `{}` for {} `{}`{}",
                        e.metric,
                        e.scope,
                        e.subject,
                        e.ratio_to
                            .as_ref()
                            .map_or(String::new(), |d| format!(" and `{d}`"))
                    ),
                ),
                Some((mean, half, _)) => judge(e, mean, half),
            };
            Verdict {
                expect: e.clone(),
                got,
                pass,
                rule,
                text: None,
            }
        })
        .collect()
}

/// How a reference allocation is named in verdicts.
pub fn reference_word(r: Reference) -> &'static str {
    match r {
        Reference::NumOptimum => "NUM optimum",
        Reference::MaxMinShare => "max-min share",
    }
}

/// The reference value in its display unit (`95%` for a utilisation of 0.95).
fn shown(e: &Expect) -> String {
    let (k, unit) = display_unit(&e.metric);
    format!("{}{unit}", g(e.value * k))
}

fn judge(e: &Expect, mean: f64, half: f64) -> (bool, String) {
    if !mean.is_finite() {
        return (false, "netsim value is not finite".into());
    }
    match e.op {
        ExpectOp::AtLeast => (mean >= e.value, format!(">= {}", shown(e))),
        ExpectOp::AtMost => (mean <= e.value, format!("<= {}", shown(e))),
        ExpectOp::Approx => {
            let mut allowed = 0.0f64;
            let mut parts = Vec::new();
            if let Some(t) = e.tolerance {
                allowed = allowed.max(t * e.value.abs());
                parts.push(format!("±{}%", g(t * 100.0)));
            }
            if let Some(a) = e.abs_tolerance {
                allowed = allowed.max(a);
                parts.push(format!("±{a}"));
            }
            if let Some(r) = e.ref_ci {
                // Overlap of the reference CI and netsim's CI.
                let h = if half.is_finite() { half } else { 0.0 };
                allowed = allowed.max(r + h);
                parts.push("CIs overlap".to_string());
            }
            if parts.is_empty() {
                parts.push("exact".into());
            }
            ((mean - e.value).abs() <= allowed, parts.join(", "))
        }
    }
}

impl Verdict {
    /// A miss that no `deviation` note explains: what fails `--check` and
    /// `netsim reproduce`.
    pub fn failed(&self) -> bool {
        !self.pass && self.expect.deviation.is_none()
    }
}

/// `PASS`, `MISS`, `DEVIATES` (a miss explained by the expectation's
/// `deviation` note) or `PASS*` (a pass although a deviation is noted: the
/// note needs re-examining).
pub fn verdict_word(v: &Verdict) -> &'static str {
    match (v.pass, v.expect.deviation.is_some()) {
        (true, false) => "PASS",
        (true, true) => "PASS*",
        (false, true) => "DEVIATES",
        (false, false) => "MISS",
    }
}

/// The counts of a set of verdicts, as one sentence: paper values, derived
/// values and set-up checks apart (`[[expect]]`'s `kind`), each kind present
/// with its passes, misses and known deviations.
pub fn tally(verdicts: &[&Verdict]) -> String {
    let kinds = [ExpectKind::Paper, ExpectKind::Derived, ExpectKind::Setup];
    let mut parts = Vec::new();
    for kind in kinds {
        let of_kind: Vec<&&Verdict> = verdicts.iter().filter(|v| v.expect.kind == kind).collect();
        if of_kind.is_empty() && !(kind == ExpectKind::Paper && verdicts.is_empty()) {
            continue;
        }
        let n = |w: &str| of_kind.iter().filter(|v| verdict_word(v) == w).count();
        let (pass, stale, dev, miss) = (n("PASS"), n("PASS*"), n("DEVIATES"), n("MISS"));
        let crossed = of_kind
            .iter()
            .filter(|v| v.failed() && v.expect.cross_check.is_some())
            .count();
        let label = match kind {
            ExpectKind::Paper => "paper values reproduced",
            ExpectKind::Derived => "derived values reproduced",
            ExpectKind::Setup => "set-up checks hold",
        };
        let missed = if crossed > 0 {
            format!("{miss} missed ({crossed} of them cross-checked)")
        } else {
            format!("{miss} missed")
        };
        let mut s = format!(
            "{} of {} {label}, {missed}, {dev} known deviation(s)",
            pass + stale,
            of_kind.len()
        );
        if stale > 0 {
            s.push_str(&format!(
                ", {stale} noted as deviating but now passing (PASS*)"
            ));
        }
        parts.push(s);
    }
    parts.join("; ")
}

/// The scale and unit suffix a metric is printed in: utilisation as a
/// percentage (as in the report and the charts; the tables and the
/// scenario's `value` keep the fraction), everything else as is.
pub(crate) fn display_unit(metric: &str) -> (f64, &'static str) {
    if metric == "utilisation" {
        (100.0, "%")
    } else {
        (1.0, "")
    }
}

/// A mean and its half-width with the same number of decimals: those that
/// give the mean four significant digits (at most six), never scientific
/// notation for a half-width far smaller than its mean (`100.0 ± 0.0`, not
/// `1 ± 2.6654e-5`).
pub(crate) fn pm(m: f64, h: f64) -> (String, String) {
    let a = m.abs();
    if a != 0.0 && !(1e-3..1e6).contains(&a) {
        return (g(m), g(h));
    }
    let d = if a == 0.0 {
        3
    } else {
        (3 - a.log10().floor() as i32).clamp(0, 6) as usize
    };
    (format!("{m:.d$}"), format!("{h:.d$}"))
}

/// A number with four decimals, trailing zeros dropped; scientific notation
/// outside 1e-3 .. 1e6.
pub(crate) fn g(x: f64) -> String {
    if x != 0.0 && (x.abs() >= 1e6 || x.abs() < 1e-3) {
        format!("{x:.4e}")
    } else {
        format!("{:.4}", x)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mean_and_its_half_width_share_their_decimals_and_utilisation_is_a_percentage() {
        assert_eq!(display_unit("utilisation"), (100.0, "%"));
        assert_eq!(display_unit("goodput_bps"), (1.0, ""));
        assert_eq!(pm(100.0, 2.6654e-3), ("100.0".into(), "0.0".into()));
        assert_eq!(pm(0.25, 0.0123), ("0.2500".into(), "0.0123".into()));
        assert_eq!(pm(1234.4, 12.0), ("1234".into(), "12".into()));
    }

    fn exp(op: ExpectOp, value: f64, tol: Option<f64>, ref_ci: Option<f64>) -> Expect {
        Expect {
            scope: "group".into(),
            subject: "a".into(),
            metric: "goodput_bps".into(),
            ratio_to: None,
            share_with: None,
            ratio_to_scenario: None,
            relative_to: None,
            window: None,
            level: None,
            value,
            op,
            tolerance: tol,
            abs_tolerance: None,
            ref_ci,
            source: "test".into(),
            kind: ExpectKind::Paper,
            deviation: None,
            cross_check: None,
        }
    }

    #[test]
    fn the_tally_counts_paper_values_derived_values_and_set_up_checks_apart() {
        let verdict = |kind, pass, deviation: Option<&str>| Verdict {
            expect: Expect {
                kind,
                deviation: deviation.map(String::from),
                ..exp(ExpectOp::AtMost, 0.0, None, None)
            },
            got: Some((0.0, 0.0, 3)),
            pass,
            rule: String::new(),
            text: None,
        };
        let vs = [
            verdict(ExpectKind::Paper, true, None),
            verdict(ExpectKind::Paper, false, Some("why")),
            verdict(ExpectKind::Paper, false, None),
            verdict(ExpectKind::Setup, true, None),
            verdict(ExpectKind::Setup, true, None),
        ];
        let refs: Vec<&Verdict> = vs.iter().collect();
        assert_eq!(
            tally(&refs),
            "1 of 3 paper values reproduced, 1 missed, 1 known deviation(s); \
             2 of 2 set-up checks hold, 0 missed, 0 known deviation(s)"
        );
        let derived = [verdict(ExpectKind::Derived, true, Some("stale"))];
        assert_eq!(
            tally(&derived.iter().collect::<Vec<_>>()),
            "1 of 1 derived values reproduced, 0 missed, 0 known deviation(s), \
             1 noted as deviating but now passing (PASS*)"
        );
        assert_eq!(
            tally(&[]),
            "0 of 0 paper values reproduced, 0 missed, 0 known deviation(s)"
        );
    }

    #[test]
    fn a_cross_checked_miss_stays_a_miss_and_is_listed_with_its_reference() {
        let verdict = |pass, deviation: Option<&str>, cross: Option<&str>| Verdict {
            expect: Expect {
                deviation: deviation.map(String::from),
                cross_check: cross.map(String::from),
                ..exp(ExpectOp::AtMost, 0.0, None, None)
            },
            got: Some((1.0, 0.0, 3)),
            pass,
            rule: String::new(),
            text: None,
        };
        let vs = [
            verdict(false, None, Some("tests/m.rs::a")),
            verdict(false, None, None),
            verdict(false, Some("why"), Some("tests/m.rs::b")),
            verdict(true, None, Some("tests/m.rs::c")),
        ];
        assert!(vs[0].failed());
        assert_eq!(verdict_word(&vs[0]), "MISS");
        let refs: Vec<&Verdict> = vs.iter().collect();
        assert_eq!(
            tally(&refs),
            "1 of 4 paper values reproduced, 2 missed (1 of them cross-checked), \
             1 known deviation(s)"
        );
        let sets = [("f.toml".to_string(), &vs[..])];
        let text = render(&sets);
        let listed: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("Misses an independent reference"))
            .skip(1)
            .collect();
        assert_eq!(listed, ["  MISS f.toml a goodput_bps: tests/m.rs::a"]);
        let csv = render_csv(&sets);
        assert!(csv
            .lines()
            .next()
            .unwrap()
            .ends_with(",deviation,cross_check"));
        assert!(csv
            .lines()
            .nth(1)
            .unwrap()
            .ends_with(",MISS,,tests/m.rs::a"));
        assert!(render_markdown(&sets).contains("- MISS f.toml a goodput_bps: tests/m.rs::a\n"));
    }

    #[test]
    fn relative_tolerance_bounds_the_difference() {
        assert!(judge(&exp(ExpectOp::Approx, 100.0, Some(0.05), None), 104.9, 1.0).0);
        assert!(!judge(&exp(ExpectOp::Approx, 100.0, Some(0.05), None), 105.1, 1.0).0);
    }

    #[test]
    fn reference_ci_passes_when_intervals_overlap() {
        assert!(judge(&exp(ExpectOp::Approx, 100.0, None, Some(2.0)), 103.0, 1.5).0);
        assert!(!judge(&exp(ExpectOp::Approx, 100.0, None, Some(2.0)), 104.0, 1.5).0);
    }

    #[test]
    fn one_sided_bounds_compare_the_mean() {
        assert!(judge(&exp(ExpectOp::AtLeast, 0.99, None, None), 0.995, 0.0).0);
        assert!(!judge(&exp(ExpectOp::AtMost, 0.99, None, None), 0.995, 0.0).0);
    }

    /// One replication in which group `a`'s one flow has a goodput of `a`
    /// bytes/s and group `b`'s of `b` (bits/s: 8 times that).
    fn run(a: u64, b: u64) -> sim_core::RunOutput {
        let flow = |id: u32, group: u32, bytes: u64| sim_core::FlowReport {
            flow: sim_core::FlowId(id),
            group: sim_core::GroupId(group),
            active_secs: 1.0,
            counters: sim_core::FlowCounters {
                goodput_bytes: bytes,
                ..Default::default()
            },
            ..Default::default()
        };
        sim_core::RunOutput {
            replication: 0,
            seed: 1,
            events: 1,
            end_secs: 1.0,
            window_secs: 1.0,
            flows: vec![flow(0, 0, a), flow(1, 1, b)],
            links: Vec::new(),
            routes: Vec::new(),
            series: Vec::new(),
            objects: Vec::new(),
            pages: Vec::new(),
            overload: None,
            closed_flows: 0,
            link_changes: Vec::new(),
        }
    }

    fn set(runs: Vec<sim_core::RunOutput>) -> analysis::RunSet {
        analysis::RunSet {
            meta: analysis::RunMeta {
                group_names: vec!["a".into(), "b".into()],
                ..Default::default()
            },
            runs,
            wall_secs: Vec::new(),
        }
    }

    #[test]
    fn ratios_are_formed_per_replication_and_summarised_at_the_level_asked() {
        // Replications: a/b = 2/1, 3/1, 4/1 -> ratios 2, 3, 4 (the ratio of the
        // means, 3/1, happens to agree; the interval comes from the ratios).
        let runs = set(vec![run(2, 1), run(3, 1), run(4, 1)]);
        let mut e = exp(ExpectOp::Approx, 3.0, Some(0.01), None);
        e.ratio_to = Some("b".into());
        e.level = Some(0.90);
        let v = &evaluate(&[e], &Metrics::new(&runs), &|_, _| None, &[])[0];
        let (mean, half, n) = v.got.unwrap();
        assert_eq!((mean, n), (3.0, 3));
        // sd = 1, t_{0.95, 2} = 2.919986 (Student-t table), half = t * 1 / sqrt(3).
        assert!((half - 2.919986 / 3f64.sqrt()).abs() < 1e-5, "{half}");
        assert!(v.pass);
    }

    #[test]
    fn a_share_is_formed_per_replication() {
        // a = 1, 3 and b = 1, 1: shares 1/2 and 3/4, mean 0.625 (the share
        // of the means, 2/3, would be another number).
        let runs = set(vec![run(1, 1), run(3, 1)]);
        let mut e = exp(ExpectOp::Approx, 0.625, Some(1e-12), None);
        e.share_with = Some("b".into());
        let v = &evaluate(&[e], &Metrics::new(&runs), &|_, _| None, &[])[0];
        assert_eq!(v.got.map(|g| (g.0, g.2)), Some((0.625, 2)));
        assert!(v.pass);
        let rows = render(&[("s".into(), std::slice::from_ref(v))]);
        assert!(rows.contains("group a goodput_bps share with b"), "{rows}");
    }

    #[test]
    fn a_ratio_with_a_missing_denominator_is_reported_not_guessed() {
        let runs = set(vec![run(2, 1)]);
        let mut e = exp(ExpectOp::Approx, 2.0, Some(0.01), None);
        e.ratio_to = Some("nobody".into());
        let v = &evaluate(&[e], &Metrics::new(&runs), &|_, _| None, &[])[0];
        assert!(v.got.is_none() && !v.pass);
        assert!(v.rule.contains("`nobody`"), "{}", v.rule);
    }
}
