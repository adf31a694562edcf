//! Checking a finished campaign against its `[[sweep.expect]]` entries (see
//! `topology::sweep::curve`): each entry's curve is read from the campaign's
//! parts, one mean per point over its replications, and judged as a slope or a
//! monotone shape. The verdicts render in the same table as `[[expect]]`.

use std::path::Path;

use analysis::campaign::{read_part, RunFiles};
use analysis::stats::{t_quantile, DEFAULT_LEVEL};
use topology::scenario::{Expect, ExpectOp};
use topology::sweep::curve::{CurveCheck, Shape};
use topology::sweep::Campaign;

use crate::expect::{g, Verdict};

/// The value an entry looks at in one run's rows (a ratio formed in the run).
fn value(rows: &[(String, String, String, f64)], c: &CurveCheck) -> Option<f64> {
    let e = &c.expect;
    let get = |subject: &str| {
        rows.iter()
            .find(|(sc, su, m, _)| *sc == e.scope && su == subject && *m == e.metric)
            .map(|r| r.3)
    };
    let x = get(&e.subject)?;
    match &e.ratio_to {
        None => Some(x),
        Some(d) => Some(x / get(d)?).filter(|r| r.is_finite()),
    }
}

/// Least-squares slope of `ys` on `xs` and its standard error (NaN for n < 3).
pub fn slope(xs: &[f64], ys: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let b = sxy / sxx;
    let a = my - b * mx;
    let rss: f64 = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - a - b * x).powi(2))
        .sum();
    let se = if xs.len() > 2 {
        (rss / (n - 2.0) / sxx).sqrt()
    } else {
        f64::NAN
    };
    (b, se)
}

/// Evaluate every curve expectation of `c` on the finished store `dir`.
pub fn evaluate(c: &Campaign, dir: &Path) -> Result<Vec<Verdict>, String> {
    let mut out = Vec::new();
    for check in &c.curves {
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        let mut missing = None;
        for &(p, x) in &check.points {
            let mut sum = 0.0;
            let mut n = 0usize;
            for r in 0..c.replications {
                let f = RunFiles::new(dir, &c.points[p].hash, r);
                let rows = read_part(&f.part).map_err(|e| e.to_string())?;
                if let Some(v) = value(&rows, check) {
                    sum += v;
                    n += 1;
                }
            }
            if n == 0 {
                missing = Some(c.points[p].describe(&c.params));
                break;
            }
            xs.push(x);
            ys.push(sum / n as f64);
        }
        out.push(judge(check, &xs, &ys, missing));
    }
    Ok(out)
}

fn judge(check: &CurveCheck, xs: &[f64], ys: &[f64], missing: Option<String>) -> Verdict {
    let e = &check.expect;
    let shape = match e.shape {
        Shape::Slope => "slope",
        Shape::Increasing => "increasing",
        Shape::Decreasing => "decreasing",
    };
    let expect = Expect {
        scope: e.scope.clone(),
        subject: e.subject.clone(),
        metric: format!("{} {shape} in {}", e.metric, e.against),
        ratio_to: e.ratio_to.clone(),
        level: e.level,
        value: e.value.unwrap_or(f64::NAN),
        op: ExpectOp::Approx,
        tolerance: e.tolerance,
        abs_tolerance: e.abs_tolerance,
        ref_ci: None,
        source: e.source.clone(),
        deviation: e.deviation.clone(),
    };
    let curve = || {
        let first = ys.first().copied().unwrap_or(f64::NAN);
        let last = ys.last().copied().unwrap_or(f64::NAN);
        format!("{} -> {} ({} points)", g(first), g(last), ys.len())
    };
    if let Some(p) = missing {
        return Verdict {
            expect,
            got: None,
            pass: false,
            rule: format!("no value at point {p}"),
            text: Some((shape.to_string(), "-".into())),
        };
    }
    match e.shape {
        Shape::Slope => {
            let level = e.level.unwrap_or(DEFAULT_LEVEL);
            let (b, se) = slope(xs, ys);
            let half = t_quantile(level, xs.len() - 2) * se;
            let v = e.value.unwrap_or(f64::NAN);
            let allowed = e
                .tolerance
                .map_or(0.0, |t| t * v.abs())
                .max(e.abs_tolerance.unwrap_or(0.0));
            let mut parts = Vec::new();
            if let Some(t) = e.tolerance {
                parts.push(format!("±{}%", t * 100.0));
            }
            if let Some(a) = e.abs_tolerance {
                parts.push(format!("±{a}"));
            }
            Verdict {
                expect,
                got: Some((b, half, xs.len())),
                pass: b.is_finite() && (b - v).abs() <= allowed,
                rule: format!("{} (slope over {} points)", parts.join(", "), xs.len()),
                text: Some((
                    format!("slope {}", g(v)),
                    format!(
                        "slope {} ± {} ({}%), {}",
                        g(b),
                        g(half),
                        g(level * 100.0),
                        curve()
                    ),
                )),
            }
        }
        Shape::Increasing | Shape::Decreasing => {
            let up = e.shape == Shape::Increasing;
            let bad =
                ys.windows(2)
                    .zip(xs.windows(2))
                    .find(|(w, _)| if up { w[1] <= w[0] } else { w[1] >= w[0] });
            let rule = match bad {
                None => "every step".to_string(),
                Some((w, x)) => format!(
                    "fails from {} = {} ({}) to {} ({})",
                    e.against,
                    g(x[0]),
                    g(w[0]),
                    g(x[1]),
                    g(w[1])
                ),
            };
            Verdict {
                expect,
                got: None,
                pass: bad.is_none() && ys.iter().all(|y| y.is_finite()),
                rule,
                text: Some((shape.to_string(), curve())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slope_of_a_line_is_exact_and_its_error_zero() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        let ys: Vec<f64> = xs.iter().map(|x| 2.0 / 3.0 * x + 0.1).collect();
        let (b, se) = slope(&xs, &ys);
        assert!((b - 2.0 / 3.0).abs() < 1e-12 && se < 1e-12, "{b} {se}");
    }

    #[test]
    fn the_slope_error_follows_the_textbook_formula() {
        // xs 1..5, ys 1, 3, 2, 5, 4: b = Sxy/Sxx = 8/10 = 0.8, a = 3 - 0.8*3 = 0.6,
        // residuals -0.4, 0.8, -1, 1.2, -0.6: RSS = 3.6, se = sqrt(3.6/3/10).
        let (b, se) = slope(&[1.0, 2.0, 3.0, 4.0, 5.0], &[1.0, 3.0, 2.0, 5.0, 4.0]);
        assert!((b - 0.8).abs() < 1e-12);
        assert!((se - (3.6f64 / 3.0 / 10.0).sqrt()).abs() < 1e-12, "{se}");
    }
}
