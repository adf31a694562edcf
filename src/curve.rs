//! Checking a finished campaign against its `[[sweep.expect]]` entries (see
//! `topology::sweep::curve`): each entry's curve is read from the campaign's
//! parts, one mean per point over its replications, and judged as a slope or a
//! monotone shape. The verdicts render in the same table as `[[expect]]`.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use analysis::campaign::{read_part, RunFiles};
use analysis::stats::{t_quantile, DEFAULT_LEVEL};
use topology::scenario::{Expect, ExpectOp};
use topology::sweep::curve::{law_at, law_expr, Against, CurveCheck, Shape};
use topology::sweep::Campaign;

use crate::expect::{combine, g, Verdict};

mod overlays;
pub use overlays::overlays;

/// A metric of a subject: (scope, subject, metric).
type Key = (String, String, String);

/// The values the campaign's curve expectations need, read from each part
/// once: every check draws on the same parts, and a part holds every metric
/// of every subject of its run (a large network's part is large).
struct Parts<'a> {
    c: &'a Campaign,
    dir: &'a Path,
    /// The metrics any check reads.
    wanted: HashSet<Key>,
    /// Per (point, replication): the wanted values its part holds.
    read: HashMap<(usize, u32), HashMap<Key, f64>>,
}

impl<'a> Parts<'a> {
    fn new(c: &'a Campaign, dir: &'a Path) -> Self {
        let mut wanted = HashSet::new();
        for check in &c.curves {
            let e = &check.expect;
            let key = |subject: &str| (e.scope.clone(), subject.to_string(), e.metric.clone());
            wanted.insert(key(&e.subject));
            if let Some(d) = e.ratio_to.as_ref().or(e.share_with.as_ref()) {
                wanted.insert(key(d));
            }
            if let Against::Metric(m) = &e.against {
                wanted.insert((m.scope.clone(), m.subject.clone(), m.metric.clone()));
            }
        }
        Parts {
            c,
            dir,
            wanted,
            read: HashMap::new(),
        }
    }

    /// The wanted values of run (`p`, `r`), reading its part the first time.
    fn run(&mut self, p: usize, r: u32) -> Result<&HashMap<Key, f64>, String> {
        if !self.read.contains_key(&(p, r)) {
            let f = RunFiles::new(self.dir, &self.c.points[p].hash, r);
            let rows = read_part(&f.part).map_err(|e| e.to_string())?;
            let mut got = HashMap::new();
            for (scope, subject, metric, v) in rows {
                let key = (scope, subject, metric);
                if self.wanted.contains(&key) {
                    got.entry(key).or_insert(v);
                }
            }
            self.read.insert((p, r), got);
        }
        Ok(&self.read[&(p, r)])
    }
}

/// `metric(subject)` in one run, combined with another subject's by
/// [`combine`] (`ratio_to` / `share_with`); `None` when undefined.
fn value(
    run: &HashMap<Key, f64>,
    scope: &str,
    subject: &str,
    metric: &str,
    ratio_to: Option<&str>,
    share_with: Option<&str>,
) -> Option<f64> {
    let get = |subject: &str| {
        run.get(&(scope.to_string(), subject.to_string(), metric.to_string()))
            .copied()
    };
    combine(get(subject)?, ratio_to, share_with, get)
}

/// Least-squares line `a + b x` through the points: (a, b).
fn line(xs: &[f64], ys: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let b = sxy / sxx;
    (my - b * mx, b)
}

/// Least-squares slope of `ys` on `xs` and its standard error (NaN for n < 3).
pub fn slope(xs: &[f64], ys: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let (a, b) = line(xs, ys);
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

/// The largest distance of a point from the least-squares line, as a fraction
/// of the points' span in y (0 for a straight line; NaN for a flat curve).
pub fn line_deviation(xs: &[f64], ys: &[f64]) -> f64 {
    let (a, b) = line(xs, ys);
    let worst = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - a - b * x).abs())
        .fold(0.0, f64::max);
    let (lo, hi) = ys
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), y| {
            (l.min(*y), h.max(*y))
        });
    if hi > lo {
        worst / (hi - lo)
    } else {
        0.0
    }
}

/// The x^2 coefficient of the least-squares quadratic through the points and
/// its standard error (NaN for n < 4). Fitted in u = x - mean(x), which leaves
/// the x^2 coefficient unchanged: with S_k = sum u^k (S_1 = 0) the normal
/// equations' matrix is [[n, 0, S2], [0, S2, S3], [S2, S3, S4]], and
/// Var(c) = s^2 (M^-1)_22 = s^2 n S2 / det M, s^2 = RSS / (n - 3).
pub fn quadratic(xs: &[f64], ys: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let u: Vec<f64> = xs.iter().map(|x| x - mx).collect();
    let sum = |f: &dyn Fn(usize) -> f64| (0..u.len()).map(f).sum::<f64>();
    let (s2, s3, s4) = (
        sum(&|i| u[i].powi(2)),
        sum(&|i| u[i].powi(3)),
        sum(&|i| u[i].powi(4)),
    );
    let (t0, t1, t2) = (
        sum(&|i| ys[i]),
        sum(&|i| u[i] * ys[i]),
        sum(&|i| u[i].powi(2) * ys[i]),
    );
    // Cramer's rule on M (a, b, c) = (t0, t1, t2).
    let det = n * (s2 * s4 - s3 * s3) - s2 * s2 * s2;
    let a = (t0 * (s2 * s4 - s3 * s3) + s2 * (t1 * s3 - s2 * t2)) / det;
    let b = (n * (t1 * s4 - s3 * t2) + s2 * (s3 * t0 - s2 * t1)) / det;
    let c = (n * (s2 * t2 - s3 * t1) - s2 * s2 * t0) / det;
    let rss: f64 = (0..u.len())
        .map(|i| (ys[i] - a - b * u[i] - c * u[i] * u[i]).powi(2))
        .sum();
    let se = if xs.len() > 3 {
        (rss / (n - 3.0) * n * s2 / det).sqrt()
    } else {
        f64::NAN
    };
    (c, se)
}

/// `y` at `x` on the polyline through `curve` (sorted by x), if x is inside it.
pub fn interpolate(curve: &[(f64, f64)], x: f64) -> Option<f64> {
    let first = curve.first()?;
    let last = curve.last()?;
    if x < first.0 || x > last.0 {
        return None;
    }
    let k = curve.partition_point(|p| p.0 < x);
    if k < curve.len() && curve[k].0 == x {
        return Some(curve[k].1);
    }
    let (a, b) = (curve[k - 1], curve[k]);
    Some(a.1 + (b.1 - a.1) * (x - a.0) / (b.0 - a.0))
}

/// (x, mean y, half-width of y's Student-t interval at 95 %).
type MeanPoint = (f64, f64, f64);

/// The (x, mean y, half-width of y's Student-t interval at 95 %) curve of
/// `points`, in x order, inside the entry's x range when `ranged` (the
/// half-width is NaN with one replication); `Err` names a point where the
/// metric is missing in every replication.
fn curve_of(
    parts: &mut Parts<'_>,
    check: &CurveCheck,
    points: &[(usize, Option<f64>)],
    ranged: bool,
) -> Result<Result<Vec<MeanPoint>, String>, String> {
    let c = parts.c;
    let e = &check.expect;
    let mut out = Vec::new();
    for &(p, px) in points {
        let (mut sy, mut syy, mut ny, mut sx, mut nx) = (0.0, 0.0, 0usize, 0.0, 0usize);
        for r in 0..c.replications {
            let rows = parts.run(p, r)?;
            if let Some(v) = value(
                rows,
                &e.scope,
                &e.subject,
                &e.metric,
                e.ratio_to.as_deref(),
                e.share_with.as_deref(),
            ) {
                sy += v;
                syy += v * v;
                ny += 1;
            }
            if let Against::Metric(m) = &e.against {
                if let Some(v) = value(rows, &m.scope, &m.subject, &m.metric, None, None) {
                    sx += v;
                    nx += 1;
                }
            }
        }
        let x = match px {
            Some(x) => Some(x),
            None => (nx > 0).then(|| sx / nx as f64),
        };
        let (Some(x), true) = (x, ny > 0) else {
            return Ok(Err(format!(
                "no value at point {}",
                c.points[p].describe(&c.params)
            )));
        };
        if !ranged || (e.x_min.is_none_or(|a| x >= a) && e.x_max.is_none_or(|b| x <= b)) {
            let n = ny as f64;
            let mean = sy / n;
            let var = ((syy - n * mean * mean) / (n - 1.0)).max(0.0);
            let half = t_quantile(DEFAULT_LEVEL, ny - 1) * (var / n).sqrt();
            out.push((x, mean, half));
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(Ok(out))
}

/// Evaluate every curve expectation of `c` on the finished store `dir`.
pub fn evaluate(c: &Campaign, dir: &Path) -> Result<Vec<Verdict>, String> {
    let mut parts = Parts::new(c, dir);
    let mut out = Vec::new();
    for check in &c.curves {
        let mine = curve_of(&mut parts, check, &check.points, true)?;
        let other = if check.other.is_empty() {
            Ok(Vec::new())
        } else {
            curve_of(&mut parts, check, &check.other, true)?
        };
        let means = |c: &[(f64, f64, f64)]| c.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>();
        out.push(match (mine, other) {
            (Ok(m), Ok(o)) => {
                let halves: Vec<f64> = m.iter().map(|p| p.2).collect();
                judge(check, &means(&m), &means(&o), &halves)
            }
            (Err(why), _) | (_, Err(why)) => missing(check, why),
        });
    }
    Ok(out)
}

fn shape_word(s: Shape) -> &'static str {
    match s {
        Shape::Slope => "slope",
        Shape::Increasing => "increasing",
        Shape::Decreasing => "decreasing",
        Shape::NonDecreasing => "non-decreasing",
        Shape::NonIncreasing => "non-increasing",
        Shape::Above => "above",
        Shape::Below => "below",
        Shape::Close => "close to",
        Shape::All => "at every point",
        Shape::Linear => "linear",
        Shape::Convex => "convex",
        Shape::Approaching => "approaching",
        Shape::PowerLaw => "power law",
        Shape::Law => "law",
        Shape::Change => "change",
        Shape::RelativeChange => "relative change",
    }
}

fn as_expect(check: &CurveCheck) -> Expect {
    let e = &check.expect;
    let range = match (e.x_min, e.x_max) {
        (None, None) => String::new(),
        (a, b) => format!(
            " [{}, {}]",
            a.map_or("-inf".into(), g),
            b.map_or("inf".into(), g)
        ),
    };
    Expect {
        scope: e.scope.clone(),
        subject: e.subject.clone(),
        metric: format!(
            "{} {} in {}{range}",
            e.metric,
            shape_word(e.shape),
            e.against.label()
        ),
        ratio_to: e.ratio_to.clone(),
        share_with: e.share_with.clone(),
        ratio_to_scenario: None,
        relative_to: None,
        window: None,
        level: e.level,
        value: e.value.unwrap_or(f64::NAN),
        op: e.op,
        tolerance: e.tolerance,
        abs_tolerance: e.abs_tolerance,
        ref_ci: None,
        source: e.source.clone(),
        kind: e.kind,
        deviation: e.deviation.clone(),
        cross_check: e.cross_check.clone(),
    }
}

fn missing(check: &CurveCheck, why: String) -> Verdict {
    Verdict {
        expect: as_expect(check),
        got: None,
        pass: false,
        rule: why,
        text: Some((shape_word(check.expect.shape).into(), "-".into())),
    }
}

fn summary(curve: &[(f64, f64)]) -> String {
    match (curve.first(), curve.last()) {
        (Some(a), Some(b)) => format!(
            "({}, {}) -> ({}, {}), {} points",
            g(a.0),
            g(a.1),
            g(b.0),
            g(b.1),
            curve.len()
        ),
        _ => "no points".into(),
    }
}

/// `got` compared with `value` by `op` (approx: within the larger of
/// `tolerance` x |value| and `abs_tolerance`): (pass, rule).
fn compare(
    op: ExpectOp,
    tolerance: Option<f64>,
    abs_tolerance: Option<f64>,
    got: f64,
    value: f64,
) -> (bool, String) {
    match op {
        ExpectOp::AtLeast => (got >= value, format!(">= {}", g(value))),
        ExpectOp::AtMost => (got <= value, format!("<= {}", g(value))),
        ExpectOp::Approx => {
            let allowed = tolerance
                .map_or(0.0, |t| t * value.abs())
                .max(abs_tolerance.unwrap_or(0.0));
            let mut parts = Vec::new();
            if let Some(t) = tolerance {
                parts.push(format!("±{}%", g(t * 100.0)));
            }
            if let Some(a) = abs_tolerance {
                parts.push(format!("±{a}"));
            }
            ((got - value).abs() <= allowed, parts.join(", "))
        }
    }
}

/// The verdict on `curve` (x, mean), with `other` the `than` curve and
/// `halves` the means' 95 % half-widths (used by `law` and `change`;
/// missing or NaN is 0 for `law`).
fn judge(
    check: &CurveCheck,
    curve: &[(f64, f64)],
    other: &[(f64, f64)],
    halves: &[f64],
) -> Verdict {
    let e = &check.expect;
    let expect = as_expect(check);
    let verdict = |pass: bool, rule: String, reference: String, got: String| Verdict {
        expect: expect.clone(),
        got: None,
        pass,
        rule,
        text: Some((reference, got)),
    };
    let word = shape_word(e.shape);
    let need = e.shape.min_points();
    if curve.len() < need {
        return verdict(
            false,
            format!(
                "{} point(s) in the x range; \"{}\" needs {need}",
                curve.len(),
                e.shape.name()
            ),
            word.into(),
            summary(curve),
        );
    }
    match e.shape {
        Shape::Slope | Shape::PowerLaw => {
            let log = e.shape == Shape::PowerLaw;
            if log && curve.iter().any(|p| !(p.0 > 0.0 && p.1 > 0.0)) {
                return verdict(
                    false,
                    "a power law needs x > 0 and a positive mean at every point".into(),
                    format!("exponent {}", g(e.value.unwrap_or(f64::NAN))),
                    summary(curve),
                );
            }
            let (xs, ys): (Vec<f64>, Vec<f64>) = if log {
                curve.iter().map(|p| (p.0.ln(), p.1.ln())).unzip()
            } else {
                curve.iter().copied().unzip()
            };
            let what = if log { "exponent" } else { "slope" };
            let level = e.level.unwrap_or(DEFAULT_LEVEL);
            let (b, se) = slope(&xs, &ys);
            let half = t_quantile(level, xs.len() - 2) * se;
            let v = e.value.unwrap_or(f64::NAN);
            let (pass, rule) = compare(e.op, e.tolerance, e.abs_tolerance, b, v);
            let fit = if log { "log-log slope" } else { "slope" };
            let mut v = verdict(
                pass && b.is_finite(),
                format!("{rule} ({fit} over {} points)", xs.len()),
                format!("{what} {}", g(v)),
                format!(
                    "{what} {} ± {} ({}%), {}",
                    g(b),
                    g(half),
                    g(level * 100.0),
                    summary(curve)
                ),
            );
            v.got = Some((b, half, xs.len()));
            v
        }
        Shape::Law => {
            let src = e.law.as_deref().unwrap_or("");
            let law = match law_expr(src, &e.against) {
                Ok(l) => l,
                Err(m) => return verdict(false, m, src.into(), summary(curve)),
            };
            let t = e.tolerance.unwrap_or(f64::NAN);
            // (x, mean / law, half-width / law): the mean's interval must
            // reach the band law x (1 +- t).
            let ratios: Vec<(f64, f64, f64)> = curve
                .iter()
                .enumerate()
                .map(|(i, &(x, y))| {
                    let l = law_at(&law, x);
                    let h = halves.get(i).copied().filter(|h| h.is_finite());
                    (x, y / l, h.unwrap_or(0.0) / l.abs())
                })
                .collect();
            let bad = ratios
                .iter()
                .find(|r| !(r.1.is_finite() && (r.1 - 1.0).abs() <= t + r.2));
            let (lo, hi) = ratios
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), r| {
                    (a.min(r.1), b.max(r.1))
                });
            let rule = format!("mean / law (± its 95% CI) reaches 1 ± {}", g(t));
            verdict(
                bad.is_none(),
                match bad {
                    None => format!("{rule} at all {} points", curve.len()),
                    Some(r) => format!(
                        "{rule}: fails at x = {} (ratio {} ± {})",
                        g(r.0),
                        g(r.1),
                        g(r.2)
                    ),
                },
                format!("`{src}` ± {}%", g(t * 100.0)),
                format!(
                    "mean / law {} .. {} over {} points",
                    g(lo),
                    g(hi),
                    curve.len()
                ),
            )
        }
        Shape::Change | Shape::RelativeChange => {
            let relative = e.shape == Shape::RelativeChange;
            let (first, last) = (curve[0], curve[curve.len() - 1]);
            let mut d = last.1 - first.1;
            if e.than.is_some() {
                match (other.first(), other.last()) {
                    (Some(a), Some(b)) if other.len() >= 2 => d -= b.1 - a.1,
                    _ => {
                        return verdict(
                            false,
                            "the other curve has fewer than 2 points in the x range".into(),
                            word.into(),
                            summary(curve),
                        )
                    }
                }
            }
            let h = |i: usize| halves.get(i).copied().filter(|h| h.is_finite());
            // Independent points: the difference's half-width from both
            // (not given against another curve, whose half-widths `judge`
            // does not see); a relative change's to first order.
            let half = match (h(0), h(curve.len() - 1)) {
                (Some(a), Some(b)) if e.than.is_none() && relative => {
                    ((b / first.1).powi(2) + (last.1 * a / (first.1 * first.1)).powi(2)).sqrt()
                }
                (Some(a), Some(b)) if e.than.is_none() => (a * a + b * b).sqrt(),
                _ => f64::NAN,
            };
            if relative {
                d /= first.1;
            }
            let what = if relative {
                "relative change"
            } else {
                "change"
            };
            let v = e.value.unwrap_or(f64::NAN);
            let (pass, rule) = compare(e.op, e.tolerance, e.abs_tolerance, d, v);
            let mut out = verdict(
                pass && d.is_finite(),
                format!("{rule} (from x = {} to x = {})", g(first.0), g(last.0)),
                format!("{what} {}", g(v)),
                format!(
                    "{what} {} ± {} ({} -> {})",
                    g(d),
                    g(half),
                    g(first.1),
                    g(last.1)
                ),
            );
            out.got = Some((d, half, 2));
            out
        }
        Shape::All => {
            let v = e.value.unwrap_or(f64::NAN);
            let allowed = e
                .tolerance
                .map_or(0.0, |t| t * v.abs())
                .max(e.abs_tolerance.unwrap_or(0.0));
            let ok = |y: f64| match e.op {
                ExpectOp::AtLeast => y >= v,
                ExpectOp::AtMost => y <= v,
                ExpectOp::Approx => (y - v).abs() <= allowed,
            };
            let rule = match e.op {
                ExpectOp::AtLeast => format!(">= {}", g(v)),
                ExpectOp::AtMost => format!("<= {}", g(v)),
                ExpectOp::Approx => format!("{} ± {}", g(v), g(allowed)),
            };
            let bad = curve.iter().find(|p| !(p.1.is_finite() && ok(p.1)));
            let (lo, hi) = curve
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                    (a.min(p.1), b.max(p.1))
                });
            verdict(
                bad.is_none(),
                match bad {
                    None => format!("{rule} at all {} points", curve.len()),
                    Some(p) => format!("{rule}: fails at x = {} ({})", g(p.0), g(p.1)),
                },
                rule.clone(),
                format!("{} .. {} over {} points", g(lo), g(hi), curve.len()),
            )
        }
        Shape::Linear => {
            let (xs, ys): (Vec<f64>, Vec<f64>) = curve.iter().copied().unzip();
            let t = e.tolerance.unwrap_or(f64::NAN);
            let dev = line_deviation(&xs, &ys);
            let (_, b) = line(&xs, &ys);
            verdict(
                dev <= t,
                format!(
                    "largest distance from the line <= {}% of the span ({} points)",
                    g(t * 100.0),
                    curve.len()
                ),
                format!("within {}% of a line", g(t * 100.0)),
                format!(
                    "largest distance {}% of the span, slope {}; {}",
                    g(dev * 100.0),
                    g(b),
                    summary(curve)
                ),
            )
        }
        Shape::Convex => {
            let (xs, ys): (Vec<f64>, Vec<f64>) = curve.iter().copied().unzip();
            let level = e.level.unwrap_or(DEFAULT_LEVEL);
            let (c, se) = quadratic(&xs, &ys);
            let half = t_quantile(level, xs.len() - 3) * se;
            verdict(
                c - half > 0.0,
                format!(
                    "x^2 coefficient > 0 at {}% confidence ({} points)",
                    g(level * 100.0),
                    curve.len()
                ),
                "x^2 coefficient > 0".into(),
                format!("x^2 coefficient {} ± {}; {}", g(c), g(half), summary(curve)),
            )
        }
        Shape::Approaching => {
            let v = e.value.unwrap_or(f64::NAN);
            let gap = |p: &(f64, f64)| (p.1 - v).abs();
            let bad = curve
                .windows(2)
                .find(|w| gap(&w[1]).partial_cmp(&gap(&w[0])) != Some(std::cmp::Ordering::Less));
            let rule = match bad {
                None => "the distance shrinks at every step".to_string(),
                Some(w) => format!(
                    "fails from x = {} (|y - {}| = {}) to x = {} ({})",
                    g(w[0].0),
                    g(v),
                    g(gap(&w[0])),
                    g(w[1].0),
                    g(gap(&w[1]))
                ),
            };
            verdict(
                bad.is_none(),
                rule,
                format!("approaching {}", g(v)),
                summary(curve),
            )
        }
        Shape::Increasing | Shape::Decreasing => {
            let up = e.shape == Shape::Increasing;
            let bad = curve.windows(2).find(|w| {
                if up {
                    w[1].1 <= w[0].1
                } else {
                    w[1].1 >= w[0].1
                }
            });
            let rule = match bad {
                None => "every step".to_string(),
                Some(w) => format!(
                    "fails from x = {} ({}) to x = {} ({})",
                    g(w[0].0),
                    g(w[0].1),
                    g(w[1].0),
                    g(w[1].1)
                ),
            };
            let pass = bad.is_none() && curve.iter().all(|p| p.1.is_finite());
            verdict(pass, rule, word.into(), summary(curve))
        }
        Shape::NonDecreasing | Shape::NonIncreasing => {
            let up = e.shape == Shape::NonDecreasing;
            let tie = e.abs_tolerance.unwrap_or(0.0);
            let bad = curve.windows(2).find(|w| {
                if up {
                    w[1].1 < w[0].1 - tie
                } else {
                    w[1].1 > w[0].1 + tie
                }
            });
            let rule = match bad {
                None => "every step".to_string(),
                Some(w) => format!(
                    "fails from x = {} ({}) to x = {} ({})",
                    g(w[0].0),
                    g(w[0].1),
                    g(w[1].0),
                    g(w[1].1)
                ),
            };
            let word = if tie > 0.0 {
                format!("{word} (ties within ±{})", g(tie))
            } else {
                word.to_string()
            };
            let pass = bad.is_none() && curve.iter().all(|p| p.1.is_finite());
            verdict(pass, rule, word, summary(curve))
        }
        Shape::Above | Shape::Below | Shape::Close => {
            // (x, this - other, other)
            let diffs: Vec<(f64, f64, f64)> = curve
                .iter()
                .filter_map(|&(x, y)| interpolate(other, x).map(|o| (x, y - o, o)))
                .collect();
            let allowed = |o: f64| {
                e.tolerance
                    .map_or(0.0, |t| t * o.abs())
                    .max(e.abs_tolerance.unwrap_or(0.0))
            };
            let bad = diffs.iter().find(|d| match e.shape {
                Shape::Above => d.1 <= 0.0,
                Shape::Below => d.1 >= 0.0,
                _ => d.1.abs() > allowed(d.2),
            });
            let than = e.than.as_deref().unwrap_or("");
            let rule = match (diffs.is_empty(), bad) {
                (true, _) => "the two curves share no x range".to_string(),
                (false, None) => format!("at all {} shared x", diffs.len()),
                (false, Some(d)) => format!("fails at x = {} (difference {})", g(d.0), g(d.1)),
            };
            let mean = diffs.iter().map(|d| d.1).sum::<f64>() / diffs.len().max(1) as f64;
            let word = match (e.shape, e.tolerance, e.abs_tolerance) {
                (Shape::Close, Some(t), _) => format!("within ±{}% of", g(t * 100.0)),
                (Shape::Close, None, Some(a)) => format!("within ±{} of", g(a)),
                _ => word.to_string(),
            };
            verdict(
                !diffs.is_empty() && bad.is_none(),
                rule,
                format!("{word} `{than}`"),
                format!(
                    "mean difference {} over {} shared x; {}",
                    g(mean),
                    diffs.len(),
                    summary(curve)
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests;
