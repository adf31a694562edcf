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
//!                           # (or share_with = "n12": the share x / (x + y))
//! against = "wtp_ratio"     # the swept parameter on the x axis
//! shape = "slope"           # slope | increasing | decreasing | non_decreasing
//!                           # | non_increasing | above | below | close | all
//!                           # | linear | convex | approaching
//! value = 0.6667            # the slope (shape = "slope")
//! tolerance = 0.05          # relative; or abs_tolerance
//! where = "marker == \"red\""  # optional: the points of one curve
//! source = "Fig. 5(a): r13/r12 = (2/3) w13/w12"
//! ```
//!
//! The curve is the per-point mean of the metric (or of the per-replication
//! ratio) against the parameter's value in base units, or against another
//! metric's per-point mean (`against = { scope, subject, metric }`, e.g. the
//! utilisation a load sweep produced); `x_min` / `x_max` keep part of the x
//! range. A slope is the least-squares slope through those means, with a
//! Student-t interval from the residuals (n - 2 degrees of freedom), compared
//! with `op` (approx within the tolerance, at_least, at_most). `increasing` /
//! `decreasing` ask that each point's mean be above / below the previous one's
//! (in x order); `non_decreasing` / `non_increasing` allow ties (and steps
//! the wrong way of at most `abs_tolerance`), for a curve that saturates. `above` / `below` / `close` compare with a second curve of the
//! same sweep (`than`, a condition like `where`): at every x of this curve
//! inside the x range both cover, this curve's mean is above / below / within
//! the tolerance of the other's, read off the other by linear interpolation.
//! `change` compares the last point's mean minus the first's (in x order,
//! inside the x range) with `value` by `op`, its interval from the two
//! points' half-widths ("10 points lower at 600 s than at 2 s"); with
//! `than`, minus the other curve's change over the same range.
//! `all` compares every point's mean with `value` by `op` ("utilisation at
//! least 0.99 at every capacity"). `linear` asks that no mean lie further
//! from the least-squares line than `tolerance` x the curve's span in y ("the
//! marking probability depends linearly on the utilisation"); `convex`, that
//! the least-squares quadratic's x^2 coefficient be positive with its
//! Student-t interval (n - 3 degrees of freedom, `level`) above zero ("steeper
//! as the utilisation increases"); `approaching`, that |mean - value| shrink
//! from each point to the next ("as the weights increase the difference is
//! smaller", with the curve a per-run ratio and `value = 1`).
//!
//! Two shapes check a published law. `power_law` is the slope of ln(mean)
//! against ln(x) (both positive), with the same Student-t interval (n - 2
//! degrees of freedom), compared with `value`, the exponent, by `op`: a
//! response function w ~ p^-0.5 is `shape = "power_law"`, `value = -0.5`,
//! `abs_tolerance = 0.05`. `law` compares each point's mean with a closed
//! form of x: `law` is an expression in the language of the constraints
//! ([`super::expr`], with `^`, `sqrt`, `ln`, `exp`, `min`, `max`, ...) that
//! names the x parameter (or `x`) in base units, and every mean must be
//! within `tolerance` (relative) of the law's value there:
//!
//! ```toml
//! [[sweep.expect]]
//! scope = "group"
//! subject = "tcp"
//! metric = "goodput_bps"
//! against = "p"
//! shape = "law"
//! law = "sqrt(3 / (2 * p)) * 1500 * 8 / 0.1"   # Mathis et al. (1997) in bit/s
//! tolerance = 0.1
//! ```

use serde::{Deserialize, Serialize};

use super::expr::{Expr, Val};
use super::{Param, Point};
use crate::error::ScenarioError;
use crate::scenario::ExpectOp;

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
    /// Non-decreasing: no point's mean below the previous one's by more than
    /// `abs_tolerance` (default 0: ties pass), for a curve that saturates
    /// (a utilisation that reaches 1 and stays there).
    NonDecreasing,
    /// Non-increasing: no point's mean above the previous one's by more than
    /// `abs_tolerance` (default 0: ties pass).
    NonIncreasing,
    /// Above the curve `than` wherever both have points.
    Above,
    /// Below the curve `than` wherever both have points.
    Below,
    /// Within `abs_tolerance` (or `tolerance` x the other's value) of the curve
    /// `than` wherever both have points.
    Close,
    /// Every point compared with `value` by `op` (at_least, at_most, or approx
    /// within the tolerance).
    All,
    /// Close to a straight line: no point's mean is further from the
    /// least-squares line than `tolerance` x the curve's span in y.
    Linear,
    /// Convex (steeper as x grows): the least-squares quadratic's x^2
    /// coefficient is positive with its Student-t interval above zero. The
    /// interval takes the points' means as independent; with `seeds =
    /// "common"` (the default) the points' errors are correlated and a line
    /// plus noise can look convex (`seeds = "independent"` avoids it).
    Convex,
    /// Approaching `value`: each point's distance |y - value| is smaller than
    /// the previous point's (in x order), "the gap shrinks".
    Approaching,
    /// A power of x: the least-squares slope of ln(mean) on ln(x), the
    /// exponent, compared with `value` by `op`.
    PowerLaw,
    /// Every point's mean within `tolerance` (relative) of the closed form
    /// `law` evaluated at its x.
    Law,
    /// The change from the first point's mean to the last's (in x order,
    /// inside `x_min`..`x_max`), `mean(last) - mean(first)`, compared with
    /// `value` by `op`: "the share is about 10 points lower at 600 s than
    /// at 2 s" is `value = -0.1`. With `than`, the change minus the other
    /// curve's change over the same x range ("RED holds the rise lower than
    /// DropTail" is `op = "at_most"`, `value = 0`).
    Change,
    /// The change relative to the first point's mean, `(mean(last) -
    /// mean(first)) / mean(first)`, compared with `value` by `op`: "the
    /// share is about 10 % lower at 600 s than at 2 s", read as a relative
    /// change, is `value = -0.1` (the other reading of `change`'s example).
    RelativeChange,
}

/// Whether a shape takes a tolerance.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Tol {
    /// Never.
    Never,
    /// `tolerance` or `abs_tolerance`, needed with op = "approx".
    IfApprox,
    /// `tolerance` or `abs_tolerance`, always needed.
    Always,
    /// A relative `tolerance` only, always needed.
    Relative,
    /// An `abs_tolerance` only, optional.
    AbsOptional,
}

/// What a shape needs from its entry.
pub(super) struct ShapeRule {
    /// Needs a finite `value` (and takes none otherwise).
    pub value: bool,
    /// Its tolerance.
    pub tolerance: Tol,
    /// Compares with another curve (`than`).
    pub than: bool,
    /// The fewest points its curve may have.
    pub min_points: usize,
}

impl Shape {
    /// The shape's name, as written in the scenario.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Slope => "slope",
            Shape::Increasing => "increasing",
            Shape::Decreasing => "decreasing",
            Shape::NonDecreasing => "non_decreasing",
            Shape::NonIncreasing => "non_increasing",
            Shape::Above => "above",
            Shape::Below => "below",
            Shape::Close => "close",
            Shape::All => "all",
            Shape::Linear => "linear",
            Shape::Convex => "convex",
            Shape::Approaching => "approaching",
            Shape::PowerLaw => "power_law",
            Shape::Law => "law",
            Shape::Change => "change",
            Shape::RelativeChange => "relative_change",
        }
    }

    /// The fewest points a curve of this shape can be judged on (a curve
    /// cut shorter by `x_min` / `x_max` misses).
    pub fn min_points(self) -> usize {
        self.rule().min_points
    }

    pub(super) fn rule(self) -> ShapeRule {
        let r = |value, tolerance, than, min_points| ShapeRule {
            value,
            tolerance,
            than,
            min_points,
        };
        match self {
            Shape::Slope => r(true, Tol::IfApprox, false, 3),
            Shape::All => r(true, Tol::IfApprox, false, 1),
            Shape::Increasing | Shape::Decreasing => r(false, Tol::Never, false, 2),
            Shape::NonDecreasing | Shape::NonIncreasing => r(false, Tol::AbsOptional, false, 2),
            Shape::Above | Shape::Below => r(false, Tol::Never, true, 2),
            Shape::Close => r(false, Tol::Always, true, 2),
            // A line through two points fits them exactly.
            Shape::Linear => r(false, Tol::Relative, false, 3),
            // A quadratic's coefficient has a standard error from n >= 4 points.
            Shape::Convex => r(false, Tol::Never, false, 4),
            Shape::Approaching => r(true, Tol::Never, false, 2),
            Shape::PowerLaw => r(true, Tol::IfApprox, false, 3),
            Shape::Law => r(false, Tol::Relative, false, 1),
            Shape::Change | Shape::RelativeChange => r(true, Tol::IfApprox, false, 2),
        }
    }
}

/// The x axis: a swept parameter, or a measured metric's per-point mean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Against {
    /// A swept parameter's name.
    Param(String),
    /// A metric, as in `[[expect]]`.
    Metric(MetricRef),
}

/// A metric of one subject.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricRef {
    /// "group", "link" or "run".
    pub scope: String,
    /// Group or link name, or "all".
    pub subject: String,
    /// Metric name.
    pub metric: String,
}

impl Against {
    /// How the axis reads in a table.
    pub fn label(&self) -> String {
        match self {
            Against::Param(p) => p.clone(),
            Against::Metric(m) => format!("{} {}", m.subject, m.metric),
        }
    }
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
    /// Use the per-replication share `metric(subject) / (metric(subject) +
    /// metric(share_with))`, as `share_with` in `[[expect]]` (with
    /// `goodput_bps` between two groups, Damm (2001)'s share of bandwidth,
    /// eq. 6.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share_with: Option<String>,
    /// The x axis: a swept parameter's name (numeric values), or a metric
    /// `{ scope, subject, metric }` whose per-point mean is x.
    pub against: Against,
    /// Keep the points with x >= this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_min: Option<f64>,
    /// Keep the points with x <= this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_max: Option<f64>,
    /// What is expected.
    pub shape: Shape,
    /// How the slope (`slope`) or each point (`all`) is compared with
    /// `value` (default approx).
    #[serde(default)]
    pub op: ExpectOp,
    /// The closed form of `shape = "law"`: an expression of the x parameter
    /// (by its name or as `x`, in base units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub law: Option<String>,
    /// The other curve of `above` / `below`: a condition over the parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub than: Option<String>,
    /// The expected slope (`slope`), bound (`all`) or limit (`approaching`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Relative tolerance: a fraction of `value` (`slope`, `all`), of the other
    /// curve's value (`close`), or of the curve's span in y (`linear`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Absolute tolerance (`slope`, `all`, `close`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abs_tolerance: Option<f64>,
    /// Confidence level of the slope's (`slope`) or the x^2 coefficient's
    /// (`convex`) interval (default 0.95).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// A condition over the parameters (the constraint language) choosing the
    /// points of this curve; default all points.
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// Where the claim comes from.
    pub source: String,
    /// What the claim checks (as in `[[expect]]`): `"paper"` (default),
    /// `"derived"` or `"setup"`.
    #[serde(default)]
    pub kind: crate::scenario::ExpectKind,
    /// A known, investigated deviation (as in `[[expect]]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deviation: Option<String>,
    /// An independent reference that gives netsim's value where it misses
    /// the paper's (as in `[[expect]]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_check: Option<String>,
}

/// A validated curve expectation with the points it looks at.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveCheck {
    /// The entry as written.
    pub expect: CurveExpect,
    /// (point index, x in base units if x is a parameter), in parameter x order.
    pub points: Vec<(usize, Option<f64>)>,
    /// The points of the `than` curve, likewise.
    pub other: Vec<(usize, Option<f64>)>,
}

/// A parsed condition over the parameters (`where`, `than`), checked for names.
pub(super) fn condition(src: &str, names: &[&str]) -> Result<Expr, String> {
    let x = Expr::parse(src).map_err(|m| format!("cannot parse `{src}`: {m}"))?;
    if let Some(n) = x
        .names()
        .iter()
        .find(|n| !names.contains(&super::base_name(n)))
    {
        return Err(format!(
            "unknown name `{n}`; the parameters are: {}",
            names.join(", ")
        ));
    }
    Ok(x)
}

/// The parsed `law` of a `shape = "law"` entry: it may name only `x` and,
/// when the x axis is a parameter, that parameter.
pub fn law_expr(src: &str, against: &Against) -> Result<Expr, String> {
    let x = Expr::parse(src).map_err(|m| format!("cannot parse `{src}`: {m}"))?;
    let axis = match against {
        Against::Param(p) => Some(p.as_str()),
        Against::Metric(_) => None,
    };
    if let Some(n) = x
        .names()
        .iter()
        .find(|n| n.as_str() != "x" && Some(n.as_str()) != axis)
    {
        let allowed = match axis {
            Some(a) => format!("`{a}` (the x parameter) or `x`"),
            None => "`x`".to_string(),
        };
        return Err(format!("unknown name `{n}`; the law may name {allowed}"));
    }
    Ok(x)
}

/// The law's value at `x` (NaN where it is not a number).
pub fn law_at(law: &Expr, x: f64) -> f64 {
    match law.eval(&|_| Some(Val::Num(x))) {
        Ok(Val::Num(y)) => y,
        _ => f64::NAN,
    }
}

/// The points a condition keeps (all of them without one).
fn select(cond: Option<&Expr>, params: &[Param], points: &[Point]) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for p in points {
        if let Some(x) = cond {
            let values: Vec<&super::SweepValue> = p.values.iter().collect();
            let lookup = |n: &str| super::lookup_value(params, &values, n);
            match x.eval(&lookup)? {
                Val::Bool(true) => {}
                Val::Bool(false) => continue,
                v => return Err(format!("gives {v}, not true or false")),
            }
        }
        out.push(p.index);
    }
    Ok(out)
}

/// Attach x (for a parameter axis) and sort; a parameter axis must be numeric
/// and give each point its own x.
fn with_x(
    idx: Vec<usize>,
    against: &Against,
    names: &[&str],
    points: &[Point],
) -> Result<Vec<(usize, Option<f64>)>, String> {
    let Against::Param(name) = against else {
        return Ok(idx.into_iter().map(|i| (i, None)).collect());
    };
    let Some(xi) = names.iter().position(|n| n == name) else {
        return Err(format!(
            "unknown parameter `{name}`; the parameters are: {}",
            names.join(", ")
        ));
    };
    let mut out = Vec::new();
    for i in idx {
        let v = &points[i].values[xi];
        let Some(x) = v.num else {
            return Err(format!(
                "parameter `{name}` has a non-numeric value `{}`",
                v.label()
            ));
        };
        out.push((i, Some(x)));
    }
    out.sort_by(|a, b| a.1.unwrap_or(0.0).total_cmp(&b.1.unwrap_or(0.0)));
    if out.windows(2).any(|w| w[0].1 == w[1].1) {
        return Err(format!(
            "several points share a value of `{name}`: choose one curve with `where`"
        ));
    }
    Ok(out)
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
        let err = |key: &str, m: String| ScenarioError::new(format!("sweep.expect[{k}].{key}"), m);
        let rule = e.shape.rule();
        let name = e.shape.name();
        if let Some(c) = &e.cross_check {
            crate::expect_check::cross_check_form(c, e.kind).map_err(|m| err("cross_check", m))?;
        }
        if e.ratio_to.is_some() && e.share_with.is_some() {
            return Err(err(
                "share_with",
                "use one of share_with and ratio_to".into(),
            ));
        }
        if rule.value && e.value.is_none_or(|v| !v.is_finite()) {
            return Err(err(
                "value",
                format!("shape = \"{name}\" needs a finite `value`"),
            ));
        }
        if !rule.value && e.value.is_some() {
            return Err(err("value", format!("shape = \"{name}\" takes no `value`")));
        }
        let tolerant = e.tolerance.is_some() || e.abs_tolerance.is_some();
        let needs_tolerance = match rule.tolerance {
            Tol::Never => {
                if tolerant {
                    return Err(err(
                        "tolerance",
                        format!("shape = \"{name}\" takes no tolerance"),
                    ));
                }
                false
            }
            Tol::IfApprox => e.op == ExpectOp::Approx,
            Tol::Always => true,
            Tol::Relative => {
                if e.abs_tolerance.is_some() {
                    return Err(err(
                        "abs_tolerance",
                        format!(
                            "shape = \"{name}\" takes a relative `tolerance` (a fraction of the curve's span), not `abs_tolerance`"
                        ),
                    ));
                }
                true
            }
            Tol::AbsOptional => {
                if e.tolerance.is_some() {
                    return Err(err(
                        "tolerance",
                        format!(
                            "shape = \"{name}\" takes an `abs_tolerance` (the largest step the wrong way that counts as a tie), not `tolerance`"
                        ),
                    ));
                }
                false
            }
        };
        if needs_tolerance && !tolerant {
            let what = if rule.tolerance == Tol::Relative {
                "`tolerance`"
            } else {
                "`tolerance` or `abs_tolerance`"
            };
            let when = if rule.tolerance == Tol::IfApprox {
                " with op = \"approx\""
            } else {
                ""
            };
            return Err(err(
                "tolerance",
                format!("shape = \"{name}\"{when} needs {what}"),
            ));
        }
        if let Some(t) = e.tolerance.filter(|t| !(t.is_finite() && *t >= 0.0)) {
            return Err(err("tolerance", format!("{t} is not a finite number >= 0")));
        }
        if let Some(t) = e.abs_tolerance.filter(|t| !(t.is_finite() && *t >= 0.0)) {
            return Err(err(
                "abs_tolerance",
                format!("{t} is not a finite number >= 0"),
            ));
        }
        // `change` takes `than` optionally: its change minus the other's.
        let optional = e.shape == Shape::Change;
        let compares = rule.than || (optional && e.than.is_some());
        if compares != e.than.is_some() {
            return Err(err(
                "than",
                "`than` (the other curve) goes with shape = \"above\", \"below\" or \"close\", and they need it (\"change\" takes it optionally, \"relative_change\" not)"
                    .into(),
            ));
        }
        if e.op != ExpectOp::Approx
            && !matches!(
                e.shape,
                Shape::Slope | Shape::All | Shape::PowerLaw | Shape::Change | Shape::RelativeChange
            )
        {
            return Err(err(
                "op",
                format!(
                    "shape = \"{name}\" takes no `op` (it goes with \"slope\", \"power_law\", \"all\", \"change\" and \"relative_change\")"
                ),
            ));
        }
        if e.level.is_some() && !matches!(e.shape, Shape::Slope | Shape::Convex | Shape::PowerLaw) {
            return Err(err(
                "level",
                format!(
                    "shape = \"{name}\" takes no `level` (it goes with \"slope\", \"power_law\" and \"convex\")"
                ),
            ));
        }
        match (e.shape, &e.law) {
            (Shape::Law, None) => {
                return Err(err(
                    "law",
                    "shape = \"law\" needs `law`, a closed form of the x parameter".into(),
                ))
            }
            (Shape::Law, Some(src)) => {
                law_expr(src, &e.against).map_err(|m| err("law", m))?;
            }
            (_, Some(_)) => {
                return Err(err(
                    "law",
                    format!("shape = \"{name}\" takes no `law` (it goes with \"law\")"),
                ))
            }
            (_, None) => {}
        }
        if let Some(l) = e.level.filter(|l| !(*l > 0.0 && *l < 1.0)) {
            return Err(err("level", format!("{l} is not in (0, 1)")));
        }
        if let (Some(a), Some(b)) = (e.x_min, e.x_max) {
            if a >= b {
                return Err(err("x_max", format!("x_max {b} must be above x_min {a}")));
            }
        }
        let cond = |key: &str, src: &Option<String>| -> Result<Option<Expr>, ScenarioError> {
            src.as_deref()
                .map(|s| condition(s, &names).map_err(|m| err(key, m)))
                .transpose()
        };
        let mine = select(cond("where", &e.filter)?.as_ref(), params, points)
            .map_err(|m| err("where", m))?;
        let mine = with_x(mine, &e.against, &names, points).map_err(|m| err("against", m))?;
        let other = match &e.than {
            None => Vec::new(),
            Some(_) => {
                let o = select(cond("than", &e.than)?.as_ref(), params, points)
                    .map_err(|m| err("than", m))?;
                with_x(o, &e.against, &names, points).map_err(|m| err("than", m))?
            }
        };
        let min = rule.min_points;
        for (key, set) in [("where", &mine), ("than", &other)] {
            if (key == "where" || compares) && set.len() < min {
                return Err(err(
                    key,
                    format!(
                        "the curve has {} point(s); this shape needs at least {min}",
                        set.len()
                    ),
                ));
            }
        }
        out.push(CurveCheck {
            expect: e.clone(),
            points: mine,
            other,
        });
    }
    Ok(out)
}
