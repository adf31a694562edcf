//! `netsim run --trace` / `--pcap`: the scenario's `[trace]` merged with the
//! command line's flags, validated (errors name the key or flag), and
//! attached to the replications it traces.
//!
//! Files: `trace-r<k>.<parquet|csv>` (the event table of replication k) and
//! `pcap-<link>-r<k>.pcap` (link names with `->` written `-`), in the run's
//! output directory. Only replication 0 is traced unless `[trace]
//! replications = "all"` or `--trace-all-replications`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use analysis::trace::{PcapNet, TraceFilter, TraceHandle, TraceSpec, KIND_NAMES};
use protocols::traffic::TrafficConfig;
use sim_core::{SimTime, Simulator};
use topology::trace::{TraceEvent, TracePlan};
use topology::Resolved;

/// The trace flags of `netsim run`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TraceArgs {
    /// Write the per-packet event trace (trace-r0.parquet), with the
    /// scenario's \[trace\] filters or, without them, every event.
    #[arg(long)]
    pub trace: bool,
    /// Trace nothing, whatever the scenario's \[trace\] says.
    #[arg(
        long,
        conflicts_with_all = [
            "trace", "trace_links", "trace_flows", "trace_kinds", "trace_window",
            "trace_all_replications", "pcap",
        ]
    )]
    pub no_trace: bool,
    /// Trace only these links (comma-separated names; implies --trace).
    #[arg(long, value_delimiter = ',', value_name = "LINK,...")]
    pub trace_links: Option<Vec<String>>,
    /// Trace only these flows (comma-separated flow ids; implies --trace).
    #[arg(long, value_delimiter = ',', value_name = "FLOW,...")]
    pub trace_flows: Option<Vec<u32>>,
    /// Trace only these event kinds: enqueue, drop, mark, depart, arrive,
    /// deliver (comma-separated; implies --trace).
    #[arg(long, value_delimiter = ',', value_name = "KIND,...")]
    pub trace_kinds: Option<Vec<String>>,
    /// Trace only events in [FROM, TO), e.g. 10s,12s (implies --trace).
    #[arg(long, value_name = "FROM,TO")]
    pub trace_window: Option<String>,
    /// Trace every replication, one file each (default: replication 0 only).
    #[arg(long)]
    pub trace_all_replications: bool,
    /// Capture the packets leaving this link as a pcap file (repeatable or
    /// comma-separated; replaces the scenario's \[trace\] pcap list).
    #[arg(long, value_delimiter = ',', value_name = "LINK")]
    pub pcap: Vec<String>,
}

/// A validated trace of a run: what to keep and where to write it.
pub struct TraceRun {
    plan: TracePlan,
    filter: TraceFilter,
    dir: PathBuf,
    format: analysis::Format,
    link_names: Arc<Vec<String>>,
    link_nodes: Vec<(u32, u32)>,
    udp_flows: Vec<u32>,
}

impl TraceRun {
    /// The trace `resolved` and `args` ask for, into `dir` (`None`: no
    /// tracing). The settings in force are written back into `resolved`'s
    /// `[trace]`, so that the resolved scenario says what was traced.
    pub fn new(
        resolved: &mut Resolved,
        args: &TraceArgs,
        dir: &Path,
        format: analysis::Format,
    ) -> Result<Option<TraceRun>, String> {
        if args.no_trace {
            if let Some(t) = &mut resolved.scenario.trace {
                t.enabled = false;
            }
            return Ok(None);
        }
        let scenario = resolved.scenario.trace.as_ref().filter(|t| t.enabled);
        let cli_filters = args.trace_links.is_some()
            || args.trace_flows.is_some()
            || args.trace_kinds.is_some()
            || args.trace_window.is_some()
            || args.trace_all_replications;
        let table = args.trace || cli_filters || scenario.is_some_and(|t| t.table);
        let pcap = !args.pcap.is_empty() || scenario.is_some_and(|t| !t.pcap.is_empty());
        if !table && !pcap {
            return Ok(None);
        }
        let mut cfg = resolved.scenario.trace.clone().unwrap_or_default();
        cfg.enabled = true;
        cfg.table = table;
        let mut from_cli: Vec<&str> = Vec::new();
        if let Some(l) = &args.trace_links {
            cfg.links = l.clone();
            from_cli.push("links");
        }
        if let Some(f) = &args.trace_flows {
            cfg.flows = f.clone();
            from_cli.push("flows");
        }
        if let Some(k) = &args.trace_kinds {
            cfg.kinds = k
                .iter()
                .map(|s| TraceEvent::parse(s.trim()))
                .collect::<Result<_, _>>()
                .map_err(|e| format!("--trace-kinds: {e}"))?;
            from_cli.push("kinds");
        }
        if let Some(w) = &args.trace_window {
            cfg.window = Some(parse_window(w).map_err(|e| format!("--trace-window: {e}"))?);
            from_cli.push("window");
        }
        if args.trace_all_replications {
            cfg.replications = topology::trace::TraceReplications::All;
        }
        if !args.pcap.is_empty() {
            cfg.pcap = args.pcap.clone();
            from_cli.push("pcap");
        }
        let key = |k: &str| match (from_cli.contains(&k), k) {
            (true, "pcap") => "--pcap".to_string(),
            (true, _) => format!("--trace-{k}"),
            (false, _) => format!("trace.{k}"),
        };
        let plan = cfg
            .plan(&resolved.graph, resolved.scenario.run.duration, &key)
            .map_err(|e| e.to_string())?;
        resolved.scenario.trace = Some(cfg);
        Ok(Some(TraceRun::from_plan(resolved, plan, dir, format)))
    }

    fn from_plan(
        resolved: &Resolved,
        plan: TracePlan,
        dir: &Path,
        format: analysis::Format,
    ) -> TraceRun {
        let links = &resolved.graph.links;
        let kinds = plan.kinds.as_ref().map_or(0x3f, |ks| {
            ks.iter().fold(0u8, |m, k| {
                let i = KIND_NAMES
                    .iter()
                    .position(|n| *n == k.as_str())
                    .expect("the two lists of kinds agree");
                m | (1 << i)
            })
        });
        let filter = TraceFilter {
            links: plan.links.as_ref().map(|ls| {
                let mut mask = vec![false; links.len()];
                for &l in ls {
                    mask[l] = true;
                }
                mask
            }),
            flows: plan.flows.clone(),
            kinds,
            from: SimTime::ZERO + plan.window.0,
            // The whole run includes the events at its last instant.
            to: match plan.window.1 {
                w if w >= resolved.scenario.run.duration => SimTime::MAX,
                w => SimTime::ZERO + w,
            },
        };
        TraceRun {
            filter,
            dir: dir.to_path_buf(),
            format,
            link_names: Arc::new(resolved.link_names()),
            link_nodes: links.iter().map(|l| (l.from as u32, l.to as u32)).collect(),
            udp_flows: udp_flows(resolved),
            plan,
        }
    }

    /// Start tracing replication `rep` of `sim`, if it is traced.
    pub fn attach(&self, rep: u32, sim: &mut Simulator) -> Result<Option<TraceHandle>, String> {
        if rep != 0 && !self.plan.all_replications {
            return Ok(None);
        }
        let links = sim.routes();
        let route_ends = links
            .iter()
            .map(|r| {
                let first = r.first().map_or(0, |l| self.link_nodes[l.index()].0);
                let last = r.last().map_or(0, |l| self.link_nodes[l.index()].1);
                (first, last)
            })
            .collect();
        let spec = TraceSpec {
            filter: self.filter.clone(),
            table: self.plan.table.then(|| {
                (
                    self.dir
                        .join(format!("trace-r{rep}.{}", self.format.extension())),
                    self.format,
                )
            }),
            link_names: self.link_names.clone(),
            pcaps: self
                .plan
                .pcap
                .iter()
                .map(|&l| {
                    let name = file_safe(&self.link_names[l]);
                    (l, self.dir.join(format!("pcap-{name}-r{rep}.pcap")))
                })
                .collect(),
            net: Arc::new(PcapNet {
                link_nodes: self.link_nodes.clone(),
                route_ends,
                udp_flows: self.udp_flows.clone(),
            }),
        };
        let (tracer, handle) = analysis::trace::start(spec).map_err(|e| e.to_string())?;
        sim.set_tracer(tracer);
        Ok(Some(handle))
    }
}

impl TraceRun {
    /// Write `pcap-hosts.txt` (each node's synthetic address and name, in
    /// `/etc/hosts` format) when links are captured; the file written.
    pub fn write_hosts(&self, resolved: &Resolved) -> Result<Option<PathBuf>, String> {
        if self.plan.pcap.is_empty() {
            return Ok(None);
        }
        let mut text = String::from("# netsim's synthetic addresses of the pcap captures\n");
        for (n, name) in resolved.graph.nodes.iter().enumerate() {
            let [a, b, c, d] = analysis::pcap::node_ip(n as u32);
            text.push_str(&format!("{a}.{b}.{c}.{d}\t{name}\n"));
        }
        let path = self.dir.join("pcap-hosts.txt");
        analysis::write_atomic(&path, text.as_bytes()).map_err(|e| e.to_string())?;
        Ok(Some(path))
    }
}

/// `FROM,TO` as two durations.
fn parse_window(s: &str) -> Result<[sim_core::SimDuration; 2], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [from, to] = parts.as_slice() else {
        return Err(format!("`{s}` is not FROM,TO (e.g. 10s,12s)"));
    };
    let d = |x: &str| sim_core::units::parse_duration(x).map_err(|e| e.to_string());
    Ok([d(from)?, d(to)?])
}

/// A link name as part of a file name: `r1->r2` becomes `r1-r2`, and any
/// character other than letters, digits, `.`, `_` and `-` becomes `_`.
pub fn file_safe(name: &str) -> String {
    name.replace("->", "-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The flow ids of datagram sources: the static flows (numbered first, in
/// group order, as the build adds them) of CBR and Poisson-packet groups.
fn udp_flows(resolved: &Resolved) -> Vec<u32> {
    let mut id = 0u32;
    let mut udp = Vec::new();
    for g in &resolved.groups {
        match g.cfg.traffic {
            TrafficConfig::PoissonArrivals { .. } | TrafficConfig::Web(_) => {}
            TrafficConfig::Cbr { .. } | TrafficConfig::PoissonPackets { .. } => {
                for _ in &g.routes {
                    udp.push(id);
                    id += 1;
                }
            }
            _ => id += g.routes.len() as u32,
        }
    }
    udp
}

/// Trace files an earlier run left in `dir` (`trace-r*.{parquet,csv}`,
/// `pcap-*.pcap`, `pcap-hosts.txt`), which a new run must not be paired with.
pub fn stale_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            (n.starts_with("trace-r") && (n.ends_with(".parquet") || n.ends_with(".csv")))
                || (n.starts_with("pcap-") && n.ends_with(".pcap"))
                || n == "pcap-hosts.txt"
        })
        .collect();
    out.sort();
    out
}
