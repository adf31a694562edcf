//! Parameter sweeps: a `[sweep]` table varies scenario values by key path, and
//! a [`Campaign`] is the list of fully resolved scenarios (points) it produces.
//!
//! ```toml
//! [sweep]
//! combine = "product"        # or "zip"
//! replications = 10          # per point (default: run.replications)
//! constraint = "buf >= 2 * n" # optional filter over the parameters' values
//! seeds = "common"           # or "independent"
//!
//! [[sweep.param]]
//! key = "topology.pairs"     # key path into the scenario
//! name = "n"                 # used by the constraint and as table column
//! values = [2, 4, 8]
//!
//! [[sweep.param]]
//! key = "topology.bottleneck.buffer"
//! name = "buf"
//! from = "10pkt"
//! to = "100pkt"
//! points = 4
//! scale = "log"
//! ```
//!
//! **Tied parameters.** Under `product`, a parameter with `with = "n"` is no
//! axis of its own: its i-th value goes with the i-th value of the earlier
//! parameter `n` (equal lengths), as under `zip`, while the other parameters
//! still multiply. Scaling a bottleneck's capacity and buffer with the
//! number of flows, across every value of a protocol setting, is one sweep.
//!
//! A key path walks tables by key; an array of tables is entered by index
//! (`links[0].capacity`) or by the `name` of an element (`flows.high.cc.weight`).
//! Keys the file leaves out are created (so a default can be swept), and every
//! point is checked as a whole scenario, so a misspelt key is an error naming the
//! parameter.
//!
//! **Seeds.** With `seeds = "common"` (the default) replication r uses the same
//! random streams at every point (common random numbers: differences between
//! points are not drowned in replication noise). `"independent"` derives each
//! point's master seed from the scenario seed and the point's values.
//!
//! **Identity.** Each point has a content hash of its resolved scenario with the
//! name, description, expectations and replication count left out: what changes
//! results changes the hash, nothing else does. Result parts are named by it.

pub mod curve;
pub mod expr;
mod path;
mod swept;
pub mod values;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use toml::{Table, Value};

use crate::build::{parse_scenario, Resolved};
use crate::error::ScenarioError;
use crate::scenario::Scenario;
use expr::Val;
use values::{classify, expand_range, Family, RangeSpec, Scale, SweepValue};

pub use path::set_path;

/// How parameters are combined into points.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CombineMode {
    /// Every combination (the first parameter varies slowest).
    #[default]
    Product,
    /// The i-th values of all parameters together (equal lengths).
    Zip,
}

/// How replications are seeded across points.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeedMode {
    /// Replication r uses the same seed at every point.
    #[default]
    Common,
    /// Each point's seed is derived from the scenario seed and its values.
    Independent,
}

/// The `[sweep]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepConfig {
    /// Product or zip. Default product.
    #[serde(default)]
    pub combine: CombineMode,
    /// Replications per point. Default: `run.replications`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replications: Option<u32>,
    /// A boolean expression over the parameter names; points where it is false
    /// are left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<String>,
    /// Common or independent seeds. Default common.
    #[serde(default)]
    pub seeds: SeedMode,
    /// The swept parameters (`[[sweep.param]]`).
    pub param: Vec<ParamConfig>,
    /// Expectations about the curves (`[[sweep.expect]]`, see [`curve`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<curve::CurveExpect>,
    /// Per-run tables kept beside each run's metrics and collected into
    /// the store's own `flows` and `series` tables with the point's
    /// parameters (`keep = ["flows"]`). Default: none (the metrics only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keep: Vec<KeptTable>,
}

/// A per-run table a campaign can keep (`[sweep] keep`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeptTable {
    /// The `flows` table: a row per flow.
    Flows,
    /// The `series` table: the sampled time series.
    Series,
}

impl KeptTable {
    /// The table's name.
    pub fn name(self) -> &'static str {
        match self {
            KeptTable::Flows => "flows",
            KeptTable::Series => "series",
        }
    }
}

/// One swept parameter (`[[sweep.param]]`): `values`, or a range `from`/`to` with
/// `step` or `points`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamConfig {
    /// Key path into the scenario.
    pub key: String,
    /// Short name for constraints and tables. Default: the key's last segment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Explicit values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Value>>,
    /// Range start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Value>,
    /// Range end (included when a step lands on it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Value>,
    /// Linear step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<Value>,
    /// Number of points, both ends included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
    /// Linear or log spacing of a range, and the plots' x axis (a list's
    /// too: `values` with `scale = "log"` are drawn on a log axis). Default
    /// linear.
    #[serde(default)]
    pub scale: Scale,
    /// Under `combine = "product"`: the name of an earlier parameter whose
    /// values this one moves with, value for value (no axis of its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with: Option<String>,
}

/// A swept parameter after expansion.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Its key path.
    pub key: String,
    /// The unit family of its values (`Label` if they are not all one quantity).
    pub family: Family,
    /// Its values in order.
    pub values: Vec<SweepValue>,
    /// `Log` for a log range or a list written with `scale = "log"` (plots
    /// use a log axis), else `Linear`.
    pub scale: Scale,
    /// The index of the earlier parameter this one is tied to (`with`).
    pub with: Option<usize>,
}

/// One point of a campaign: a complete scenario.
#[derive(Clone, Debug)]
pub struct Point {
    /// Position in the campaign (after the constraint).
    pub index: usize,
    /// The value of each parameter, in parameter order.
    pub values: Vec<SweepValue>,
    /// The resolved scenario.
    pub resolved: Resolved,
    /// Content hash (hex) of what determines its results.
    pub hash: String,
    /// Its master seed.
    pub seed: u64,
    /// Relative cost estimate (simulated seconds times total link capacity).
    pub cost: f64,
}

impl Point {
    /// `n=4, buf=20pkt`.
    pub fn describe(&self, params: &[Param]) -> String {
        params
            .iter()
            .zip(&self.values)
            .map(|(p, v)| format!("{}={}", p.name, v.label()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A scenario expanded into its sweep points.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// Scenario name.
    pub name: String,
    /// The scenario file's text.
    pub source: String,
    /// SHA-256 (hex) of the file's text.
    pub source_hash: String,
    /// The swept parameters (none: a single point).
    pub params: Vec<Param>,
    /// The points, in order.
    pub points: Vec<Point>,
    /// Replications per point.
    pub replications: u32,
    /// How points are seeded.
    pub seeds: SeedMode,
    /// The validated `[[sweep.expect]]` entries.
    pub curves: Vec<curve::CurveCheck>,
    /// The per-run tables kept (`[sweep] keep`), sorted, each once.
    pub keep: Vec<KeptTable>,
}

fn err(path: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(path, msg)
}

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Campaign {
    /// Parse a scenario file and expand its `[sweep]` (a file without one is a
    /// single-point campaign). Errors name the key path and line.
    pub fn parse(src: &str, default_name: &str) -> Result<Campaign, ScenarioError> {
        let base = parse_scenario(src)?;
        // The file's own values must form a valid scenario too.
        Resolved::from_scenario(base.clone(), default_name).map_err(|e| e.locate(src))?;
        let name = base
            .name
            .clone()
            .unwrap_or_else(|| default_name.to_string());
        let mut doc: Table = toml::from_str(src).map_err(|e| err("", e.to_string()))?;
        doc.remove("sweep");
        let cfg = base.sweep.clone();
        let params = match &cfg {
            Some(c) => expand_params(c, &doc).map_err(|e| e.locate(src))?,
            None => Vec::new(),
        };
        let combos = combine(cfg.as_ref(), &params).map_err(|e| e.locate(src))?;
        let combos = filter(cfg.as_ref(), &params, combos).map_err(|e| e.locate(src))?;
        let seeds = cfg.as_ref().map(|c| c.seeds).unwrap_or_default();
        let replications = cfg
            .as_ref()
            .and_then(|c| c.replications)
            .unwrap_or(base.run.replications);
        if replications == 0 {
            return Err(err("sweep.replications", "must be >= 1").locate(src));
        }
        let mut points = Vec::with_capacity(combos.len());
        for (index, combo) in combos.into_iter().enumerate() {
            let values: Vec<SweepValue> = combo
                .iter()
                .enumerate()
                .map(|(i, &j)| params[i].values[j].clone())
                .collect();
            let point = make_point(&doc, &params, values, index, seeds, &base, default_name)
                .map_err(|e| swept::at_swept_value(e, &doc, &params, &combo).locate(src))?;
            points.push(point);
        }
        let curves = curve::resolve(
            cfg.as_ref().map_or(&[][..], |c| &c.expect),
            &params,
            &points,
        )
        .map_err(|e| e.locate(src))?;
        let mut keep = cfg.as_ref().map_or_else(Vec::new, |c| c.keep.clone());
        keep.sort();
        keep.dedup();
        Ok(Campaign {
            curves,
            keep,
            name,
            source: src.to_string(),
            source_hash: sha256_hex(src.as_bytes()),
            params,
            points,
            replications,
            seeds,
        })
    }

    /// Total number of runs (points times replications).
    pub fn runs(&self) -> usize {
        self.points.len() * self.replications as usize
    }
}

/// Column names of the campaign tables, which parameter names may not take.
pub const RESERVED_NAMES: [&str; 16] = [
    "point",
    "replication",
    "hash",
    "seed",
    "status",
    "error",
    "events",
    "wall_s",
    "scope",
    "subject",
    "metric",
    "value",
    "n",
    "mean",
    "sd",
    "ci95_half",
];

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

fn expand_params(cfg: &SweepConfig, doc: &Table) -> Result<Vec<Param>, ScenarioError> {
    if cfg.param.is_empty() {
        return Err(err(
            "sweep.param",
            "a sweep needs at least one [[sweep.param]]",
        ));
    }
    let mut out: Vec<Param> = Vec::new();
    for (i, p) in cfg.param.iter().enumerate() {
        let at = format!("sweep.param[{i}]");
        let name = p.name.clone().unwrap_or_else(|| {
            let last = p.key.rsplit('.').next().unwrap_or(&p.key);
            last.split('[').next().unwrap_or(last).to_string()
        });
        if !is_identifier(&name) {
            return Err(err(
                format!("{at}.name"),
                format!(
                    "`{name}` is not a name (letters, digits and `_`, not starting with a digit)"
                ),
            ));
        }
        if RESERVED_NAMES.contains(&name.as_str()) || name.ends_with("_value") {
            return Err(err(
                format!("{at}.name"),
                format!(
                    "`{name}` is a column of the result tables; choose another `name` \
                     (reserved: {}, and names ending in `_value`)",
                    RESERVED_NAMES.join(", ")
                ),
            ));
        }
        if let Some(other) = out.iter().find(|q| q.name == name) {
            return Err(err(
                format!("{at}.name"),
                format!(
                    "the name `{name}` is already used by `{}`; give one of them a `name`",
                    other.key
                ),
            ));
        }
        if out.iter().any(|q| q.key == p.key) {
            return Err(err(
                format!("{at}.key"),
                format!("`{}` is swept twice", p.key),
            ));
        }
        let ranged = p.from.is_some() || p.to.is_some() || p.step.is_some() || p.points.is_some();
        let values = match (&p.values, ranged) {
            (Some(_), true) => {
                return Err(err(
                    format!("{at}.values"),
                    "give either `values` or a range (`from`, `to`, `step`/`points`), not both",
                ))
            }
            (Some(v), false) if v.is_empty() => {
                return Err(err(format!("{at}.values"), "the list of values is empty"))
            }
            (Some(v), false) => v.iter().map(classify).collect(),
            (None, true) => {
                let (Some(from), Some(to)) = (&p.from, &p.to) else {
                    let missing = if p.from.is_none() { "from" } else { "to" };
                    return Err(err(
                        format!("{at}.{missing}"),
                        "a range needs `from` and `to`",
                    ));
                };
                expand_range(&RangeSpec {
                    from,
                    to,
                    step: p.step.as_ref(),
                    points: p.points,
                    scale: p.scale,
                })
                .map_err(|e| err(format!("{at}.{}", e.key), e.message))?
            }
            (None, false) => {
                return Err(err(
                    at.to_string(),
                    "a parameter needs `values` or a range (`from`, `to`, `step`/`points`)",
                ))
            }
        };
        // Try the first value: a key path that is not a scenario setting fails here.
        let mut trial = doc.clone();
        let v0: &SweepValue = &values[0];
        set_path(&mut trial, &p.key, v0.value.clone()).map_err(|m| err(format!("{at}.key"), m))?;
        let text = toml::to_string(&trial).map_err(|e| err(format!("{at}.key"), e.to_string()))?;
        if let Err(e) = parse_scenario(&text) {
            return Err(err(
                format!("{at}.key"),
                format!(
                    "setting `{}` = {} does not give a valid scenario: {}{}",
                    p.key,
                    v0.value,
                    if e.path.is_empty() {
                        String::new()
                    } else {
                        format!("{}: ", e.path)
                    },
                    e.message
                ),
            ));
        }
        let family = match values.first().map(|v| v.family) {
            Some(f) if values.iter().all(|v| v.family == f) => f,
            _ => Family::Label,
        };
        let scale = p.scale;
        let with = match &p.with {
            None => None,
            Some(_) if cfg.combine == CombineMode::Zip => {
                return Err(err(
                    format!("{at}.with"),
                    "`with` ties a parameter to another inside `combine = \"product\"`; \
                     under `zip` every parameter already moves with the others",
                ))
            }
            Some(lead) => Some(tied_to(&out, lead, values.len(), &at)?),
        };
        out.push(Param {
            name,
            key: p.key.clone(),
            family,
            values,
            scale,
            with,
        });
    }
    Ok(out)
}

/// The index of the earlier parameter `lead` that a parameter with `len`
/// values declared `with` (its own values at `at`).
fn tied_to(earlier: &[Param], lead: &str, len: usize, at: &str) -> Result<usize, ScenarioError> {
    let Some(k) = earlier.iter().position(|q| q.name == lead) else {
        let names: Vec<&str> = earlier.iter().map(|q| q.name.as_str()).collect();
        return Err(err(
            format!("{at}.with"),
            format!(
                "`{lead}` is not an earlier parameter's name (earlier: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        ));
    };
    let q = &earlier[k];
    if let Some(j) = q.with {
        return Err(err(
            format!("{at}.with"),
            format!(
                "`{lead}` is itself tied to `{}`; tie to that parameter instead",
                earlier[j].name
            ),
        ));
    }
    if q.values.len() != len {
        return Err(err(
            format!("{at}.with"),
            format!(
                "a tied parameter needs as many values as `{lead}`: {len} against {}",
                q.values.len()
            ),
        ));
    }
    Ok(k)
}

/// The most points a sweep may have.
pub const MAX_POINTS: usize = 1_000_000;

/// The points as index tuples into each parameter's values.
fn combine(cfg: Option<&SweepConfig>, params: &[Param]) -> Result<Vec<Vec<usize>>, ScenarioError> {
    let Some(cfg) = cfg else {
        return Ok(vec![Vec::new()]);
    };
    match cfg.combine {
        CombineMode::Product => {
            let mut out: Vec<Vec<usize>> = vec![Vec::new()];
            let mut points = 1usize;
            for p in params {
                if let Some(k) = p.with {
                    for c in &mut out {
                        c.push(c[k]);
                    }
                    continue;
                }
                // Count before building: two 10 000-value ranges would build 10^8
                // combinations (gigabytes) before a check on the result.
                points = points.saturating_mul(p.values.len());
                if points > MAX_POINTS {
                    return Err(err(
                        "sweep.param",
                        format!(
                            "the product of the parameters' values has at least {points} \
                             points; at most {MAX_POINTS}"
                        ),
                    ));
                }
                out = out
                    .into_iter()
                    .flat_map(|c| {
                        (0..p.values.len()).map(move |j| {
                            let mut c = c.clone();
                            c.push(j);
                            c
                        })
                    })
                    .collect();
            }
            Ok(out)
        }
        CombineMode::Zip => {
            let n = params[0].values.len();
            if let Some((i, p)) = params.iter().enumerate().find(|(_, p)| p.values.len() != n) {
                return Err(err(
                    format!("sweep.param[{i}]"),
                    format!(
                        "combine = \"zip\" needs equal lengths: `{}` has {} values, `{}` has {}",
                        params[0].name,
                        n,
                        p.name,
                        p.values.len()
                    ),
                ));
            }
            Ok((0..n).map(|j| vec![j; params.len()]).collect())
        }
    }
}

fn filter(
    cfg: Option<&SweepConfig>,
    params: &[Param],
    combos: Vec<Vec<usize>>,
) -> Result<Vec<Vec<usize>>, ScenarioError> {
    let Some(src) = cfg.and_then(|c| c.constraint.as_deref()) else {
        return Ok(combos);
    };
    let at = "sweep.constraint";
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let e = curve::condition(src, &names).map_err(|m| err(at, m))?;
    let total = combos.len();
    let mut kept = Vec::new();
    for c in combos {
        let values: Vec<&SweepValue> = c
            .iter()
            .enumerate()
            .map(|(i, &j)| &params[i].values[j])
            .collect();
        let lookup = |n: &str| lookup_value(params, &values, n);
        match e.eval(&lookup) {
            Ok(Val::Bool(true)) => kept.push(c),
            Ok(Val::Bool(false)) => {}
            Ok(v) => return Err(err(at, format!("`{src}` gives {v}, not true or false"))),
            Err(m) => return Err(err(at, m)),
        }
    }
    if kept.is_empty() {
        return Err(err(
            at,
            format!("`{src}` excludes all {total} points; nothing would run"),
        ));
    }
    Ok(kept)
}

/// The parameter a (possibly dotted) name in a condition refers to.
pub(crate) fn base_name(n: &str) -> &str {
    n.split('.').next().unwrap_or(n)
}

/// The value of `name` (`param` or `param.key.key` into a table value) among a
/// point's parameter values, as the condition language sees it.
pub(crate) fn lookup_value(params: &[Param], values: &[&SweepValue], name: &str) -> Option<Val> {
    let mut parts = name.split('.');
    let base = parts.next()?;
    let i = params.iter().position(|p| p.name == base)?;
    let v = values[i];
    let mut sub = &v.value;
    let mut nested = false;
    for key in parts {
        sub = sub.as_table()?.get(key)?;
        nested = true;
    }
    Some(match (nested, v.num, sub) {
        (false, Some(x), _) => Val::Num(x),
        (_, _, Value::Boolean(b)) => Val::Bool(*b),
        (true, _, Value::Integer(x)) => Val::Num(*x as f64),
        (true, _, Value::Float(x)) => Val::Num(*x),
        (true, _, Value::String(s)) => Val::Str(s.clone()),
        (false, _, _) => Val::Str(v.label()),
        (true, _, other) => Val::Str(other.to_string()),
    })
}

/// The seed of a point under `mode`.
fn point_seed(base: u64, mode: SeedMode, values: &[SweepValue]) -> u64 {
    match mode {
        SeedMode::Common => base,
        SeedMode::Independent => {
            let mut key = base.to_string();
            for v in values {
                key.push('|');
                key.push_str(&v.value.to_string());
            }
            let d = Sha256::digest(key.as_bytes());
            u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
        }
    }
}

/// The hash of what determines a point's results.
fn content_hash(sc: &Scenario) -> String {
    let mut s = sc.clone();
    s.name = None;
    s.description = None;
    s.expect.clear();
    s.sweep = None;
    s.run.replications = 1;
    let text = toml::to_string(&s).unwrap_or_else(|e| format!("unserialisable: {e}"));
    sha256_hex(text.as_bytes())[..32].to_string()
}

fn make_point(
    doc: &Table,
    params: &[Param],
    values: Vec<SweepValue>,
    index: usize,
    seeds: SeedMode,
    base: &Scenario,
    default_name: &str,
) -> Result<Point, ScenarioError> {
    let mut d = doc.clone();
    for (p, v) in params.iter().zip(&values) {
        set_path(&mut d, &p.key, v.value.clone()).map_err(|m| err("sweep.param", m))?;
    }
    let describe = || {
        params
            .iter()
            .zip(&values)
            .map(|(p, v)| format!("{}={}", p.name, v.label()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = toml::to_string(&d).map_err(|e| err("sweep", e.to_string()))?;
    let mut sc = parse_scenario(&text).map_err(|e| ScenarioError {
        position: None,
        message: format!("at sweep point {index} ({}): {}", describe(), e.message),
        ..e
    })?;
    let seed = point_seed(sc.run.seed, seeds, &values);
    sc.run.seed = seed;
    if sc.name.is_none() {
        sc.name = Some(
            base.name
                .clone()
                .unwrap_or_else(|| default_name.to_string()),
        );
    }
    let resolved = Resolved::from_scenario(sc, default_name).map_err(|e| ScenarioError {
        message: format!("at sweep point {index} ({}): {}", describe(), e.message),
        ..e
    })?;
    let run = &resolved.scenario.run;
    let capacity: f64 = resolved
        .graph
        .links
        .iter()
        .map(|l| l.capacity.bps_f64())
        .sum();
    let cost = run.duration.as_secs_f64() * capacity.max(1.0);
    Ok(Point {
        index,
        hash: content_hash(&resolved.scenario),
        values,
        resolved,
        seed,
        cost,
    })
}

#[cfg(test)]
mod tests;
