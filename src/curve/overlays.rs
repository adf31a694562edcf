//! What a campaign's `[[sweep.expect]]` entries add to its charts: the laws
//! they check, drawn beside the measured curves, and the shares and ratios
//! they check, which the summary table does not hold, as curves of their own
//! (`netsim plot`, `netsim report`).

use std::collections::HashSet;
use std::path::Path;

use topology::sweep::curve::{law_at, law_expr, Against, CurveExpect, Shape};
use topology::sweep::Campaign;

use super::{curve_of, Parts};

/// The published laws of `c`'s `shape = "law"` entries over a parameter, as
/// curves for the sweep's charts: each sampled at 64 points over the x range
/// its own points cover (log-spaced when that range spans a decade), in
/// base units.
fn law_references(c: &Campaign) -> Vec<analysis::plot_sweep::Reference> {
    const SAMPLES: usize = 64;
    let mut out = Vec::new();
    for check in &c.curves {
        let e = &check.expect;
        let (Shape::Law, Some(src), Against::Param(name)) = (e.shape, &e.law, &e.against) else {
            continue;
        };
        let Ok(law) = law_expr(src, &e.against) else {
            continue;
        };
        // A law of a share or ratio belongs on that quantity's chart.
        let metric = derived_name(e).unwrap_or_else(|| e.metric.clone());
        let xs: Vec<f64> = check.points.iter().filter_map(|p| p.1).collect();
        let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = (
            e.x_min.map_or(lo, |a| lo.max(a)),
            e.x_max.map_or(hi, |b| hi.min(b)),
        );
        if !(lo.is_finite() && hi.is_finite() && hi > lo) {
            continue;
        }
        let log = lo > 0.0 && hi >= 10.0 * lo;
        let points = (0..SAMPLES)
            .map(|k| {
                let f = k as f64 / (SAMPLES - 1) as f64;
                let x = if log {
                    (lo.ln() + f * (hi.ln() - lo.ln())).exp()
                } else {
                    lo + f * (hi - lo)
                };
                (x, law_at(&law, x))
            })
            .filter(|p| p.1.is_finite())
            .collect();
        let mut label: String = e.source.chars().take(60).collect();
        if label.len() < e.source.len() {
            label.push_str("...");
        }
        out.push(analysis::plot_sweep::Reference {
            scope: e.scope.clone(),
            metric,
            against: name.clone(),
            label,
            points,
        });
    }
    out
}

/// What the `[[sweep.expect]]` entries of the campaign store `dir` add to
/// its charts: the laws they check ([`law_references`]) and the shares and
/// ratios they check ([`derived_curves`], read from the runs the store's
/// manifest lists, whichever build made them); none when the store's
/// scenario no longer parses, no derived curve when its points no longer
/// match the manifest's.
pub fn overlays(
    dir: &Path,
) -> (
    Vec<analysis::plot_sweep::Reference>,
    Vec<analysis::plot_sweep::Derived>,
) {
    let Ok(mut c) = crate::sweep::load_campaign(&dir.join("scenario.toml"), None, None) else {
        return Default::default();
    };
    let refs = law_references(&c);
    let derived = match analysis::campaign::Manifest::read(dir) {
        Ok(m) if m.points.len() == c.points.len() => {
            for (p, mp) in c.points.iter_mut().zip(&m.points) {
                p.hash = mp.hash.clone();
            }
            derived_curves(&c, dir)
        }
        _ => Vec::new(),
    };
    (refs, derived)
}

/// The name of the quantity a `ratio_to` / `share_with` entry checks
/// (`<metric>_share_with_<other>`, `<metric>_ratio_to_<other>`); `None` for
/// a plain metric.
fn derived_name(e: &CurveExpect) -> Option<String> {
    match (&e.share_with, &e.ratio_to) {
        (Some(o), _) => Some(format!("{}_share_with_{o}", e.metric)),
        (None, Some(o)) => Some(format!("{}_ratio_to_{o}", e.metric)),
        (None, None) => None,
    }
}

/// The curves of `c`'s entries over a parameter that check a share or a
/// ratio of two subjects (`share_with`, `ratio_to`), measured on the
/// finished store `dir` at every point of the entry (its x range aside):
/// the summary table holds each subject's metric, not the combination, so
/// `netsim plot` draws these on charts of their own. Entries that check the
/// same curve (same subjects, metric and points) give it once. A store
/// whose parts cannot be read gives none.
fn derived_curves(c: &Campaign, dir: &Path) -> Vec<analysis::plot_sweep::Derived> {
    let mut parts = Parts::new(c, dir);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for check in &c.curves {
        let e = &check.expect;
        let (Some(name), Against::Param(against)) = (derived_name(e), &e.against) else {
            continue;
        };
        let pts: Vec<usize> = check.points.iter().map(|p| p.0).collect();
        if !seen.insert((e.scope.clone(), e.subject.clone(), name.clone(), pts)) {
            continue;
        }
        let Ok(Ok(points)) = curve_of(&mut parts, check, &check.points, false) else {
            continue;
        };
        let other = e.share_with.as_ref().or(e.ratio_to.as_ref());
        let other = other.map(String::as_str).unwrap_or_default();
        let what = e.metric.replace('_', " ");
        let ydesc = if e.share_with.is_some() {
            format!("share of {what} with {other}")
        } else {
            format!("{what}, ratio to {other}")
        };
        let mut label = e.subject.clone();
        if let Some(f) = &e.filter {
            label.push_str(&format!(" ({f})"));
        }
        out.push(analysis::plot_sweep::Derived {
            scope: e.scope.clone(),
            name,
            ydesc,
            fraction: e.share_with.is_some(),
            against: against.clone(),
            label,
            points,
        });
    }
    out
}
