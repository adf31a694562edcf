//! `[[link_change]]`: link changes at run time, as written in a scenario, and
//! their expansion into the engine's schedule (`Simulator::schedule_link_change`).
//!
//! Issue 59 ("Link changes at run time"), for seed 004's E16: the
//! bottleneck's random loss switched from 1 % to 10 % for 10 s or 50 s,
//! several times. One entry sets one or more of a link's `loss`, `capacity`,
//! `delay` and `state` at `at`; `for` restores the values in force just
//! before it after that long; `every` repeats it (with `count` or `until`,
//! else to the end of the run). The engine's semantics of each quantity are
//! in `sim_core::sim::changes` and the README ("Link changes").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sim_core::{LinkSetting, Rate, SimDuration, SimTime};

use crate::error::ScenarioError;
use crate::graph::Graph;
use protocols::link::LinkBuildCtx;

/// Which directions of a duplex link an entry changes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The named link `from->to` only (the default).
    #[default]
    Forward,
    /// The named link and its reverse `to->from` (which must exist).
    Both,
}

/// A link's state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StateName {
    /// Carrying packets.
    Up,
    /// Dropping what it holds and what arrives.
    Down,
}

/// One `[[link_change]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkChangeConfig {
    /// The link, by its name in the outputs: `"from->to"`.
    pub link: String,
    /// `"forward"` (default): the named link; `"both"`: also its reverse.
    #[serde(default)]
    pub direction: Direction,
    /// When the (first) change takes effect; before `run.duration`.
    pub at: SimDuration,
    /// New loss probability, in [0, 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
    /// New capacity (> 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Rate>,
    /// New one-way propagation delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<SimDuration>,
    /// New state, `"up"` or `"down"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<StateName>,
    /// Restore the values in force just before each change this long after
    /// it (> 0). Default: the change stays.
    #[serde(default, rename = "for", skip_serializing_if = "Option::is_none")]
    pub hold: Option<SimDuration>,
    /// Repeat the change with this period (> 0, longer than `for`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<SimDuration>,
    /// With `every`: this many changes in all (>= 1). Default: until `until`
    /// or the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// With `every`: no change starts after this time. Default: the run's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<SimDuration>,
}

/// A change as the engine takes it: when, which link (graph index), what.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ScheduledChange {
    /// When it takes effect.
    pub at: SimTime,
    /// The link, by index into the graph's links.
    pub link: usize,
    /// What it sets.
    pub set: LinkSetting,
}

/// Schedule `changes` on `sim`. Called before any flow is added, so that a
/// change at `t` precedes the packet events at `t` (sim_core's `changes`).
pub fn schedule(changes: &[ScheduledChange], sim: &mut sim_core::Simulator) {
    for c in changes {
        sim.schedule_link_change(c.at, sim_core::LinkId::from_index(c.link), c.set);
    }
}

/// Most changes one scenario may expand into (a typo in `every` must not
/// build a schedule that fills memory).
pub const MAX_CHANGES: usize = 1_000_000;

fn err(path: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(path, msg)
}

/// The quantities an entry sets, in a fixed order (loss, capacity, delay, state).
fn settings(c: &LinkChangeConfig) -> Vec<(&'static str, LinkSetting)> {
    let mut v = Vec::new();
    if let Some(p) = c.loss {
        v.push(("loss", LinkSetting::Loss(p)));
    }
    if let Some(r) = c.capacity {
        v.push(("capacity", LinkSetting::Capacity(r)));
    }
    if let Some(d) = c.delay {
        v.push(("delay", LinkSetting::Delay(d)));
    }
    if let Some(s) = c.state {
        v.push(("state", LinkSetting::Up(s == StateName::Up)));
    }
    v
}

/// The quantity a setting changes (for conflict detection and restoring).
fn quantity(s: &LinkSetting) -> usize {
    match s {
        LinkSetting::Loss(_) => 0,
        LinkSetting::Capacity(_) => 1,
        LinkSetting::Delay(_) => 2,
        LinkSetting::Up(_) => 3,
    }
}

const KEYS: [&str; 4] = ["loss", "capacity", "delay", "state"];

/// The link named `name` (`"from->to"`).
fn find_link(g: &Graph, name: &str) -> Option<usize> {
    let (a, b) = name.split_once("->")?;
    g.link_between(g.node(a.trim())?, g.node(b.trim())?)
}

fn unknown_link(g: &Graph, name: &str) -> String {
    const SHOWN: usize = 12;
    let names: Vec<&str> = g
        .links
        .iter()
        .take(SHOWN)
        .map(|l| l.name.as_str())
        .collect();
    let more = if g.links.len() > SHOWN { ", ..." } else { "" };
    format!(
        "no link `{name}`; a link is named \"from->to\" as in the outputs (known: {}{more})",
        names.join(", ")
    )
}

/// Validate every entry and expand them into the schedule, ordered by time
/// (equal times in file order, a restore before the changes of later entries).
pub fn expand(
    entries: &[LinkChangeConfig],
    g: &Graph,
    duration: SimDuration,
) -> Result<Vec<ScheduledChange>, ScenarioError> {
    // (time, entry, occurrence, is restore, link, setting)
    let mut raw: Vec<(SimDuration, usize, u64, bool, usize, LinkSetting)> = Vec::new();
    for (i, c) in entries.iter().enumerate() {
        let at = format!("link_change[{i}]");
        let fwd = find_link(g, &c.link)
            .ok_or_else(|| err(format!("{at}.link"), unknown_link(g, &c.link)))?;
        let mut links = vec![fwd];
        if c.direction == Direction::Both {
            let l = &g.links[fwd];
            let rev = g.link_between(l.to, l.from).ok_or_else(|| {
                err(
                    format!("{at}.direction"),
                    format!(
                        "`both` needs the reverse link `{}->{}`, which does not exist",
                        g.nodes[l.to], g.nodes[l.from]
                    ),
                )
            })?;
            links.push(rev);
        }
        let sets = settings(c);
        if sets.is_empty() {
            return Err(err(
                at,
                "sets nothing: give at least one of loss, capacity, delay, state",
            ));
        }
        check_values(c, &at, g, &links)?;
        let times = occurrences(c, &at, duration)?;
        for (k, &t) in times.iter().enumerate() {
            for &l in &links {
                for &(_, s) in &sets {
                    raw.push((t, i, k as u64, false, l, s));
                    if let Some(h) = c.hold {
                        let back = t.saturating_add(h);
                        if back < duration {
                            // The value is filled in below, from the timeline.
                            raw.push((back, i, k as u64, true, l, s));
                        }
                    }
                }
            }
            if raw.len() > MAX_CHANGES {
                return Err(err(
                    at,
                    format!("expands into more than {MAX_CHANGES} changes; check `every`"),
                ));
            }
        }
    }
    raw.sort_by_key(|r| (r.0, r.1, r.2, !r.3));
    // Conflicts: two changes of one quantity of one link at one instant.
    let mut seen: BTreeMap<(SimDuration, usize, usize), usize> = BTreeMap::new();
    for r in &raw {
        if let Some(&j) = seen.get(&(r.0, r.4, quantity(&r.5))) {
            let key = KEYS[quantity(&r.5)];
            return Err(err(
                format!("link_change[{}].{key}", r.1),
                format!(
                    "sets the {key} of `{}` at {} when link_change[{j}] also does \
                     (a change or a `for` restore); one change per quantity and instant",
                    g.links[r.4].name, r.0
                ),
            ));
        }
        seen.insert((r.0, r.4, quantity(&r.5)), r.1);
    }
    // Walk the timeline: each restore takes the value in force just before
    // its change.
    let mut now: BTreeMap<(usize, usize), LinkSetting> = BTreeMap::new();
    let mut before: BTreeMap<(usize, u64, usize, usize), LinkSetting> = BTreeMap::new();
    let mut out = Vec::with_capacity(raw.len());
    for (t, i, k, restore, l, s) in raw {
        let q = quantity(&s);
        let set = if restore {
            before[&(i, k, l, q)]
        } else {
            let gl = &g.links[l];
            let cur = *now.entry((l, q)).or_insert(match q {
                0 => LinkSetting::Loss(gl.loss),
                1 => LinkSetting::Capacity(gl.capacity),
                2 => LinkSetting::Delay(gl.delay),
                _ => LinkSetting::Up(true),
            });
            before.insert((i, k, l, q), cur);
            s
        };
        now.insert((l, q), set);
        out.push(ScheduledChange {
            at: SimTime::ZERO + t,
            link: l,
            set,
        });
    }
    Ok(out)
}

/// The values an entry sets are allowed on its links.
fn check_values(
    c: &LinkChangeConfig,
    at: &str,
    g: &Graph,
    links: &[usize],
) -> Result<(), ScenarioError> {
    if let Some(p) = c.loss {
        if !(p.is_finite() && (0.0..1.0).contains(&p)) {
            return Err(err(
                format!("{at}.loss"),
                format!("{p} is out of range; allowed: 0 <= loss < 1"),
            ));
        }
    }
    if let Some(r) = c.capacity {
        if r.bps() == 0 {
            return Err(err(
                format!("{at}.capacity"),
                "must be > 0 (e.g. \"10Mbps\")",
            ));
        }
        for &l in links {
            let gl = &g.links[l];
            let ctx = LinkBuildCtx {
                capacity: gl.capacity,
                delay: gl.delay,
                limit: gl.buffer,
            };
            // Built (and so validated) already by the link checks.
            if let Ok(a) = gl.algo.build(&ctx) {
                if !a.follows_capacity() {
                    return Err(err(
                        format!("{at}.capacity"),
                        format!(
                            "link `{}` runs `{}`, which derives constants from the \
                             capacity when it is built and cannot follow a change of it",
                            gl.name,
                            gl.algo.name()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The times at which entry `c` changes its links.
fn occurrences(
    c: &LinkChangeConfig,
    at: &str,
    duration: SimDuration,
) -> Result<Vec<SimDuration>, ScenarioError> {
    if c.at >= duration {
        return Err(err(
            format!("{at}.at"),
            format!(
                "{} is not before the end of the run (run.duration = {duration})",
                c.at
            ),
        ));
    }
    if c.hold == Some(SimDuration::ZERO) {
        return Err(err(format!("{at}.for"), "must be > 0"));
    }
    let Some(every) = c.every else {
        for (key, set) in [("count", c.count.is_some()), ("until", c.until.is_some())] {
            if set {
                return Err(err(
                    format!("{at}.{key}"),
                    format!("`{key}` needs `every` (the repeat period)"),
                ));
            }
        }
        return Ok(vec![c.at]);
    };
    if every == SimDuration::ZERO {
        return Err(err(format!("{at}.every"), "must be > 0"));
    }
    if let Some(h) = c.hold {
        if h >= every {
            return Err(err(
                format!("{at}.for"),
                format!("({h}) must be shorter than `every` ({every}), or the bursts overlap"),
            ));
        }
    }
    if c.count == Some(0) {
        return Err(err(format!("{at}.count"), "must be >= 1"));
    }
    if let Some(u) = c.until {
        if u < c.at {
            return Err(err(
                format!("{at}.until"),
                format!("({u}) is before `at` ({})", c.at),
            ));
        }
        if u >= duration {
            return Err(err(
                format!("{at}.until"),
                format!("{u} is not before the end of the run (run.duration = {duration})"),
            ));
        }
    }
    let last = c.until.unwrap_or(duration);
    let mut v = Vec::new();
    let mut t = c.at;
    while t <= last && t < duration && c.count.is_none_or(|n| v.len() < n as usize) {
        v.push(t);
        if v.len() > MAX_CHANGES {
            return Err(err(
                format!("{at}.every"),
                format!("repeats more than {MAX_CHANGES} times"),
            ));
        }
        t = t.saturating_add(every);
    }
    if let Some(n) = c.count {
        if v.len() < n as usize {
            return Err(err(
                format!("{at}.count"),
                format!(
                    "{n} changes every {every} from {} do not fit before the end of the run \
                     (run.duration = {duration}{}): only {} do",
                    c.at,
                    c.until.map_or(String::new(), |u| format!(", until = {u}")),
                    v.len()
                ),
            ));
        }
    }
    Ok(v)
}
