//! Expectations about a sweep's curve (`[[sweep.expect]]`): what a paper says
//! about a figure as a whole rather than about one point, e.g. "the throughput
//! ratio is (2/3) x the WTP ratio" (a slope) or "the marking probability rises
//! with the load" (a monotone curve).
//!
//! ```toml
//! [[sweep.expect]]
//! scope = "group"
//! subject = "n13"
//! metric = "throughput_bps"
//! ratio_to = "n12"          # optional: the per-replication ratio, as in [[expect]]
//! against = "wtp_ratio"     # the swept parameter on the x axis
//! shape = "slope"           # slope | increasing | decreasing
//! value = 0.6667            # the slope (shape = "slope")
//! tolerance = 0.05          # relative; or abs_tolerance
//! where = "marker == \"red\""  # optional: the points of one curve
//! source = "Fig. 5(a): r13/r12 = (2/3) w13/w12"
//! ```
//!
//! The curve is the per-point mean of the metric (or of the per-replication
//! ratio) against the parameter's value in base units. A slope is the
//! least-squares slope through those means, with a Student-t interval from the
//! residuals (n - 2 degrees of freedom). `increasing` / `decreasing` ask that
//! each point's mean be above / below the previous one's (in x order).

use serde::{Deserialize, Serialize};

use super::expr::{Expr, Val};
use super::{Param, Point};
use crate::error::ScenarioError;

/// What is expected of the curve.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// The least-squares slope equals `value` within the tolerance.
    Slope,
    /// Strictly increasing in the parameter.
    Increasing,
    /// Strictly decreasing in the parameter.
    Decreasing,
}

/// One `[[sweep.expect]]` entry, as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveExpect {
    /// Scope of the metric: "group", "link" or "run".
    pub scope: String,
    /// Group or link name, or "all".
    pub subject: String,
    /// Metric name, as in the summary table.
    pub metric: String,
    /// Use the per-replication ratio `metric(subject) / metric(ratio_to)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_to: Option<String>,
    /// The swept parameter (its `name`) on the x axis; its values must be numbers.
    pub against: String,
    /// What is expected.
    pub shape: Shape,
    /// The expected slope (required for `shape = "slope"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Relative tolerance on the slope (fraction of `value`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Absolute tolerance on the slope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abs_tolerance: Option<f64>,
    /// Confidence level of the slope's interval (default 0.95).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// A condition over the parameters (the constraint language) choosing the
    /// points of this curve; default all points.
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// Where the claim comes from.
    pub source: String,
    /// A known, investigated deviation (as in `[[expect]]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deviation: Option<String>,
}

/// A validated curve expectation with the points it looks at.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveCheck {
    /// The entry as written.
    pub expect: CurveExpect,
    /// (point index, x value in base units), in x order.
    pub points: Vec<(usize, f64)>,
}

/// Validate the entries against the campaign's parameters and points.
pub(super) fn resolve(
    entries: &[CurveExpect],
    params: &[Param],
    points: &[Point],
) -> Result<Vec<CurveCheck>, ScenarioError> {
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let mut out = Vec::new();
    for (k, e) in entries.iter().enumerate() {
        let at = |key: &str| format!("sweep.expect[{k}].{key}");
        let err = |key: &str, m: String| ScenarioError::new(at(key), m);
        let Some(xi) = names.iter().position(|n| *n == e.against) else {
            return Err(err(
                "against",
                format!(
                    "unknown parameter `{}`; the parameters are: {}",
                    e.against,
                    names.join(", ")
                ),
            ));
        };
        match e.shape {
            Shape::Slope => {
                if e.value.is_none_or(|v| !v.is_finite()) {
                    return Err(err(
                        "value",
                        "shape = \"slope\" needs a finite `value`".into(),
                    ));
                }
                if e.tolerance.is_none() && e.abs_tolerance.is_none() {
                    return Err(err(
                        "tolerance",
                        "shape = \"slope\" needs `tolerance` or `abs_tolerance`".into(),
                    ));
                }
            }
            Shape::Increasing | Shape::Decreasing => {
                if e.value.is_some() || e.tolerance.is_some() || e.abs_tolerance.is_some() {
                    return Err(err(
                        "value",
                        "`value` and tolerances go with shape = \"slope\" only".into(),
                    ));
                }
            }
        }
        if let Some(l) = e.level.filter(|l| !(*l > 0.0 && *l < 1.0)) {
            return Err(err("level", format!("{l} is not in (0, 1)")));
        }
        let expr = match &e.filter {
            None => None,
            Some(src) => {
                let x = Expr::parse(src)
                    .map_err(|m| err("where", format!("cannot parse `{src}`: {m}")))?;
                if let Some(n) = x.names().iter().find(|n| !names.contains(&n.as_str())) {
                    return Err(err(
                        "where",
                        format!(
                            "unknown name `{n}`; the parameters are: {}",
                            names.join(", ")
                        ),
                    ));
                }
                Some(x)
            }
        };
        let mut pts = Vec::new();
        for p in points {
            if let Some(x) = &expr {
                let lookup = |n: &str| {
                    let i = names.iter().position(|m| *m == n)?;
                    let v = &p.values[i];
                    Some(match (v.num, &v.value) {
                        (Some(x), _) => Val::Num(x),
                        (None, toml::Value::Boolean(b)) => Val::Bool(*b),
                        (None, _) => Val::Str(v.label()),
                    })
                };
                match x.eval(&lookup) {
                    Ok(Val::Bool(true)) => {}
                    Ok(Val::Bool(false)) => continue,
                    Ok(v) => {
                        return Err(err("where", format!("gives {v}, not true or false")));
                    }
                    Err(m) => return Err(err("where", m)),
                }
            }
            let Some(xv) = p.values[xi].num else {
                return Err(err(
                    "against",
                    format!(
                        "parameter `{}` has a non-numeric value `{}`",
                        e.against,
                        p.values[xi].label()
                    ),
                ));
            };
            pts.push((p.index, xv));
        }
        pts.sort_by(|a, b| a.1.total_cmp(&b.1));
        let min = if e.shape == Shape::Slope { 3 } else { 2 };
        if pts.len() < min {
            return Err(err(
                "where",
                format!(
                    "the curve has {} point(s); a {:?} needs at least {min}",
                    pts.len(),
                    e.shape
                ),
            ));
        }
        if pts.windows(2).any(|w| w[0].1 == w[1].1) {
            return Err(err(
                "where",
                format!(
                    "several points share a value of `{}`: choose one curve with `where`",
                    e.against
                ),
            ));
        }
        out.push(CurveCheck {
            expect: e.clone(),
            points: pts,
        });
    }
    Ok(out)
}
