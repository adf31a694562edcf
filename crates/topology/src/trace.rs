//! `[trace]`: which packet events `netsim run` writes to its per-packet trace
//! table, and which links it captures as pcap files; validated against the
//! network so that a bad value is an error naming its key, never a panic.
//!
//! The same settings come from the command line (`--trace-links`, ...); they
//! are validated by the same code, with the flag's name in the error.

use serde::{Deserialize, Serialize};
use sim_core::SimDuration;

use crate::error::ScenarioError;
use crate::graph::Graph;

/// `[trace]` as written in a scenario. Every key is optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Trace when `netsim run` runs the scenario. Default true; `false` keeps
    /// the filters for when `--trace` is given.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Write the event table. Default true; `false` with `pcap` writes only
    /// the captures.
    #[serde(default = "yes")]
    pub table: bool,
    /// Trace only the events at these links (names such as `"r1->r2"`).
    /// Default: every link.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<String>,
    /// Trace only these flows (the `flow` ids of the flows table). Default: every flow.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<u32>,
    /// Trace only these kinds of event. Default: every kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<TraceEvent>,
    /// Trace only events at times in `[from, to)`. Default: the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<[SimDuration; 2]>,
    /// Links whose departures are also written as pcap files. Default: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcap: Vec<String>,
    /// Which replications are traced. Default: the first only.
    #[serde(default)]
    pub replications: TraceReplications,
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            enabled: true,
            table: true,
            links: Vec::new(),
            flows: Vec::new(),
            kinds: Vec::new(),
            window: None,
            pcap: Vec::new(),
            replications: TraceReplications::First,
        }
    }
}

fn yes() -> bool {
    true
}

/// A kind of traced event (`[trace] kinds`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceEvent {
    /// Accepted into a link's queue.
    Enqueue,
    /// Dropped (buffer overflow, AQM, wire loss).
    Drop,
    /// ECN-marked.
    Mark,
    /// Started transmission.
    Depart,
    /// Reached the far end of a link.
    Arrive,
    /// Handed to the receiving endpoint.
    Deliver,
}

impl TraceEvent {
    /// Every kind, in the order a packet meets them.
    pub const ALL: [TraceEvent; 6] = [
        TraceEvent::Enqueue,
        TraceEvent::Drop,
        TraceEvent::Mark,
        TraceEvent::Depart,
        TraceEvent::Arrive,
        TraceEvent::Deliver,
    ];

    /// The name used in the scenario and in the trace table.
    pub fn as_str(self) -> &'static str {
        match self {
            TraceEvent::Enqueue => "enqueue",
            TraceEvent::Drop => "drop",
            TraceEvent::Mark => "mark",
            TraceEvent::Depart => "depart",
            TraceEvent::Arrive => "arrive",
            TraceEvent::Deliver => "deliver",
        }
    }

    /// The kind named `s`, or an error listing the names.
    pub fn parse(s: &str) -> Result<TraceEvent, String> {
        TraceEvent::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<_> = TraceEvent::ALL.iter().map(|k| k.as_str()).collect();
                format!("unknown event kind `{s}`; allowed: {}", names.join(", "))
            })
    }
}

/// Which replications `[trace]` traces.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceReplications {
    /// Replication 0 only (one trace is usually what a researcher reads).
    #[default]
    First,
    /// Every replication, one file each.
    All,
}

/// A validated trace selection: names resolved to link indices.
#[derive(Clone, Debug, PartialEq)]
pub struct TracePlan {
    /// Write the event table (false: only the pcap files).
    pub table: bool,
    /// Link indices whose events are traced (`None`: every link).
    pub links: Option<Vec<usize>>,
    /// Flow ids traced, sorted and deduplicated (empty: every flow).
    pub flows: Vec<u32>,
    /// Kinds traced (`None`: every kind).
    pub kinds: Option<Vec<TraceEvent>>,
    /// Events at times in `[from, to)` are traced.
    pub window: (SimDuration, SimDuration),
    /// Link indices captured as pcap files.
    pub pcap: Vec<usize>,
    /// Trace every replication (false: replication 0 only).
    pub all_replications: bool,
}

impl TraceConfig {
    /// Validate against `graph` and a run of `duration`; `key` turns a field
    /// name (`"links"`, `"window"`) into the name an error shows (`trace.links`
    /// for the scenario, `--trace-links` for the command line).
    pub fn plan(
        &self,
        graph: &Graph,
        duration: SimDuration,
        key: &dyn Fn(&str) -> String,
    ) -> Result<TracePlan, ScenarioError> {
        let links = if self.links.is_empty() {
            None
        } else {
            Some(resolve_links(&self.links, graph, &key("links"))?)
        };
        let pcap = resolve_links(&self.pcap, graph, &key("pcap"))?;
        let window = match self.window {
            None => (SimDuration::ZERO, duration),
            Some([from, to]) => {
                if to <= from {
                    return Err(ScenarioError::new(
                        key("window"),
                        format!("the window's end ({to}) must be after its start ({from})"),
                    ));
                }
                if from >= duration {
                    return Err(ScenarioError::new(
                        key("window"),
                        format!(
                            "the window starts at {from}, at or after the run's end \
                             (run.duration = {duration}): it would trace nothing"
                        ),
                    ));
                }
                (from, to)
            }
        };
        let mut flows = self.flows.clone();
        flows.sort_unstable();
        flows.dedup();
        let kinds = (!self.kinds.is_empty()).then(|| self.kinds.clone());
        Ok(TracePlan {
            table: self.table,
            links,
            flows,
            kinds,
            window,
            pcap,
            all_replications: self.replications == TraceReplications::All,
        })
    }
}

/// The link indices of `names` (every link of a name, if several share it).
fn resolve_links(names: &[String], graph: &Graph, key: &str) -> Result<Vec<usize>, ScenarioError> {
    let mut out = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let before = out.len();
        out.extend(
            graph
                .links
                .iter()
                .enumerate()
                .filter(|(_, l)| &l.name == n)
                .map(|(k, _)| k),
        );
        if out.len() == before {
            let mut known: Vec<&str> = graph
                .links
                .iter()
                .map(|l| l.name.as_str())
                .take(12)
                .collect();
            if graph.links.len() > 12 {
                known.push("...");
            }
            // A command-line flag takes a list; the scenario's key names the entry.
            let at = if key.starts_with("--") {
                key.to_string()
            } else {
                format!("{key}[{i}]")
            };
            return Err(ScenarioError::new(
                at,
                format!("unknown link `{n}`; known links: {}", known.join(", ")),
            ));
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}
