//! Checking a run's summary against the `[[expect]]` reference values of its scenario.

use analysis::SummaryRow;
use topology::scenario::{Expect, ExpectOp};

/// The outcome of one expectation.
pub struct Verdict {
    /// The expectation.
    pub expect: Expect,
    /// netsim's mean and CI half-width, if the metric exists.
    pub got: Option<(f64, f64, usize)>,
    /// Whether it passed.
    pub pass: bool,
    /// How the comparison was made.
    pub rule: String,
}

/// Evaluate every expectation against the summary rows.
pub fn evaluate(expects: &[Expect], rows: &[SummaryRow]) -> Vec<Verdict> {
    expects
        .iter()
        .map(|e| {
            let row = analysis::lookup(rows, &e.scope, &e.subject, &e.metric);
            let got = row.map(|r| (r.mean, r.ci95_half, r.n));
            let (pass, rule) = match got {
                None => (
                    false,
                    format!("no metric `{}` for {} `{}`", e.metric, e.scope, e.subject),
                ),
                Some((mean, half, _)) => judge(e, mean, half),
            };
            Verdict {
                expect: e.clone(),
                got,
                pass,
                rule,
            }
        })
        .collect()
}

fn judge(e: &Expect, mean: f64, half: f64) -> (bool, String) {
    if !mean.is_finite() {
        return (false, "netsim value is not finite".into());
    }
    match e.op {
        ExpectOp::AtLeast => (mean >= e.value, format!(">= {}", e.value)),
        ExpectOp::AtMost => (mean <= e.value, format!("<= {}", e.value)),
        ExpectOp::Approx => {
            let mut allowed = 0.0f64;
            let mut parts = Vec::new();
            if let Some(t) = e.tolerance {
                allowed = allowed.max(t * e.value.abs());
                parts.push(format!("±{}%", t * 100.0));
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

/// Render verdicts as a table.
pub fn render(scenario: &str, verdicts: &[Verdict]) -> String {
    let mut rows = vec![[
        "scenario".to_string(),
        "quantity".to_string(),
        "source".to_string(),
        "reference".to_string(),
        "netsim".to_string(),
        "rule".to_string(),
        "verdict".to_string(),
    ]];
    for v in verdicts {
        let e = &v.expect;
        let got = match v.got {
            Some((m, h, n)) if n > 1 && h.is_finite() => format!("{} ± {}", g(m), g(h)),
            Some((m, _, _)) => format!("{} (n=1)", g(m)),
            None => "-".into(),
        };
        rows.push([
            scenario.to_string(),
            format!("{} {} {}", e.scope, e.subject, e.metric),
            e.source.clone(),
            g(e.value),
            got,
            v.rule.clone(),
            if v.pass { "PASS".into() } else { "MISS".into() },
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(s, w)| format!("{s:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn g(x: f64) -> String {
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

    fn exp(op: ExpectOp, value: f64, tol: Option<f64>, ref_ci: Option<f64>) -> Expect {
        Expect {
            scope: "group".into(),
            subject: "a".into(),
            metric: "goodput_bps".into(),
            value,
            op,
            tolerance: tol,
            abs_tolerance: None,
            ref_ci,
            source: "test".into(),
        }
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
}
