//! From scenario text to a validated [`Resolved`] scenario, and from that to a
//! ready-to-run [`Simulator`] per replication.
//!
//! Every check happens in [`Resolved::parse`]; building a replication afterwards
//! only instantiates algorithms whose parameters were already validated.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::Rng;
use sim_core::{
    stream, Endpoint, FlowSpec, GroupId, LinkId, LinkSpec, NodeId, RouteId, SeriesSelect,
    SimConfig, SimDuration, SimTime, Simulator, StreamKind,
};

use crate::factories::{ArrivalFactory, WebFactory};
use protocols::link::LinkBuildCtx;
use protocols::pcc::{PccReceiver, PccSender};
use protocols::traffic::{PacketProcess, TrafficConfig, UdpSink, UdpSource};

use crate::error::ScenarioError;
use crate::graph::Graph;
use crate::per_flow::PacketSize;
use crate::preset::expand_preset;
use crate::routing::Router;
use crate::scenario::{FlowGroupConfig, Scenario, SeriesName, Transport};

/// Largest packet size accepted, bytes (IPv4 total-length limit).
pub const MAX_PACKET_SIZE: u64 = 65_535;

/// A flow group with its routes resolved.
#[derive(Clone, Debug)]
pub struct ResolvedGroup {
    /// The group as written.
    pub cfg: FlowGroupConfig,
    /// Per flow: (forward links, reverse links). Arrival processes have one entry,
    /// shared by every flow they create.
    pub routes: Vec<(Vec<usize>, Vec<usize>)>,
}

/// A scenario that passed every check.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The scenario with defaults filled in.
    pub scenario: Scenario,
    /// Its name.
    pub name: String,
    /// The expanded network.
    pub graph: Graph,
    /// Flow groups with routes.
    pub groups: Vec<ResolvedGroup>,
    /// The expanded `[[link_change]]` schedule, in time order.
    pub changes: Vec<crate::link_change::ScheduledChange>,
}

pub(crate) fn err(path: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(path, msg)
}

/// Parse a scenario's text. `default_name` names it when it has no `name`.
pub fn parse_scenario(src: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::de::Deserializer::parse(src).map_err(|e| toml_error(src, "", &e))?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        toml_error(src, &path, e.inner())
    })
}

fn toml_error(src: &str, path: &str, e: &toml::de::Error) -> ScenarioError {
    let position = e.span().map(|s| crate::error::line_col(src, s.start));
    let e = ScenarioError {
        path: path.to_string(),
        position,
        message: e.message().trim().to_string(),
    };
    e.narrow(src).locate(src)
}

impl Resolved {
    /// Parse and validate scenario text.
    pub fn parse(src: &str, default_name: &str) -> Result<Resolved, ScenarioError> {
        let sc = parse_scenario(src)?;
        Self::from_scenario(sc, default_name).map_err(|e| e.locate(src))
    }

    /// Validate an already-parsed scenario.
    pub fn from_scenario(sc: Scenario, default_name: &str) -> Result<Resolved, ScenarioError> {
        validate_run(&sc)?;
        let mut graph = Graph::default();
        if let Some(p) = &sc.topology {
            expand_preset(p, &mut graph)?;
        }
        for (i, n) in sc.nodes.iter().enumerate() {
            if n.name.is_empty() || !graph.add_node(&n.name) {
                return Err(err(
                    format!("nodes[{i}].name"),
                    format!("node name `{}` is empty or already used", n.name),
                ));
            }
        }
        for (i, l) in sc.links.iter().enumerate() {
            let at = format!("links[{i}]");
            let a = graph
                .node(&l.from)
                .ok_or_else(|| err(format!("{at}.from"), graph.unknown_node(&l.from)))?;
            let b = graph
                .node(&l.to)
                .ok_or_else(|| err(format!("{at}.to"), graph.unknown_node(&l.to)))?;
            if a == b {
                return Err(err(
                    format!("{at}.to"),
                    "a link cannot connect a node to itself",
                ));
            }
            graph.add_link(a, b, &l.params(), l.duplex, &at);
        }
        graph.shrink_to_fit();
        let families = graph
            .links
            .iter()
            .map(validate_link)
            .collect::<Result<Vec<_>, _>>()?;
        let changes = crate::link_change::expand(&sc.link_changes, &graph, sc.run.duration)?;
        let mut router = Router::new(&graph);
        let mut names = BTreeSet::new();
        let mut groups = Vec::new();
        for (i, g) in sc.flows.iter().enumerate() {
            let at = format!("flows[{i}]");
            if !names.insert(g.name.clone()) {
                return Err(err(
                    format!("{at}.name"),
                    format!("group name `{}` is used twice", g.name),
                ));
            }
            groups.push(resolve_group(&sc, g, &at, &mut router, &families)?);
        }
        if groups.is_empty() {
            return Err(err(
                "flows",
                "a scenario needs at least one [[flows]] group",
            ));
        }
        crate::expect_check::validate_expects(&sc, &names, &graph)?;
        if let Some(t) = &sc.trace {
            t.plan(&graph, sc.run.duration, &|k| format!("trace.{k}"))?;
        }
        crate::limits::check_series_volume(&sc, &graph, &groups)?;
        let name = sc.name.clone().unwrap_or_else(|| default_name.to_string());
        Ok(Resolved {
            scenario: sc,
            name,
            graph,
            groups,
            changes,
        })
    }

    /// The resolved scenario as TOML (defaults filled in).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(&self.scenario)
            .unwrap_or_else(|e| format!("# could not serialise: {e}\n"))
    }

    /// Names of the flow groups, by `GroupId`.
    pub fn group_names(&self) -> Vec<String> {
        self.groups.iter().map(|g| g.cfg.name.clone()).collect()
    }

    /// Names of the links, by `LinkId`.
    pub fn link_names(&self) -> Vec<String> {
        self.graph.links.iter().map(|l| l.name.clone()).collect()
    }

    /// Build the simulator for replication `rep` with master seed `seed`.
    pub fn build(&self, seed: u64, rep: u32) -> Result<Simulator, ScenarioError> {
        let run = &self.scenario.run;
        let mut series = SeriesSelect::default();
        for s in &run.series {
            match s {
                SeriesName::FlowWindow => series.flow_window = true,
                SeriesName::FlowRate => series.flow_rate = true,
                SeriesName::FlowRtt => series.flow_rtt = true,
                SeriesName::FlowControl => series.flow_control = true,
                SeriesName::LinkQueue => series.link_queue = true,
                SeriesName::LinkRate => series.link_rate = true,
            }
        }
        let mut sim = Simulator::new(SimConfig {
            seed,
            replication: rep,
            warmup: run.warmup,
            end: run.duration,
            sample_interval: run.sample_interval,
            series,
        });
        // Fixed groups add a flow and (at most) two routes per entry; an
        // arrival process adds its flows as they come.
        let fixed: usize = self
            .groups
            .iter()
            .filter(|g| {
                !matches!(
                    g.cfg.traffic,
                    TrafficConfig::PoissonArrivals { .. } | TrafficConfig::Web(_)
                )
            })
            .map(|g| g.routes.len())
            .sum();
        sim.reserve(self.graph.links.len(), 2 * fixed, fixed);
        for l in &self.graph.links {
            let ctx = LinkBuildCtx {
                capacity: l.capacity,
                delay: l.delay,
                limit: l.buffer,
            };
            let algo = l
                .algo
                .build(&ctx)
                .map_err(|e| err(format!("{}.algo.{}", l.origin, e.key), e.message))?;
            sim.add_link(
                LinkSpec {
                    name: l.name.clone(),
                    from: NodeId::from_index(l.from),
                    to: NodeId::from_index(l.to),
                    capacity: l.capacity,
                    delay: l.delay,
                    limit: l.buffer,
                    loss: l.loss,
                },
                algo,
            );
        }
        crate::link_change::schedule(&self.changes, &mut sim); // before any flow
        let mut routes: BTreeMap<Vec<usize>, RouteId> = BTreeMap::new();
        let mut route_of = |sim: &mut Simulator, links: &[usize]| {
            *routes.entry(links.to_vec()).or_insert_with(|| {
                sim.add_route(links.iter().map(|&l| LinkId::from_index(l)).collect())
            })
        };
        for (gi, g) in self.groups.iter().enumerate() {
            let gid = GroupId::from_index(gi);
            let cfg = &g.cfg;
            let stop = cfg.stop.map(|d| SimTime::ZERO + d);
            if let TrafficConfig::PoissonArrivals {
                rate,
                size,
                duration,
                count,
            } = &cfg.traffic
            {
                let (f, r) = &g.routes[0];
                let factory = ArrivalFactory {
                    group: gid,
                    cfg: cfg.clone(),
                    rate: *rate,
                    size: size.clone(),
                    duration: duration.clone(),
                    left: count.unwrap_or(u32::MAX),
                    fwd: route_of(&mut sim, f),
                    rev: route_of(&mut sim, r),
                    start: SimTime::ZERO + cfg.start,
                    stop,
                    started: false,
                };
                sim.add_group(gid, Box::new(factory));
                continue;
            }
            if let TrafficConfig::Web(web) = &cfg.traffic {
                let routes = g
                    .routes
                    .iter()
                    .map(|(f, r)| (route_of(&mut sim, f), route_of(&mut sim, r)))
                    .collect();
                let factory = WebFactory {
                    group: gid,
                    cfg: cfg.clone(),
                    web: Arc::new(web.clone()),
                    routes,
                    start: SimTime::ZERO + cfg.start,
                    stop,
                    schedule: None,
                    sessions: None,
                    carrying: Default::default(),
                    pages: Vec::new(),
                };
                sim.add_group(gid, Box::new(factory));
                continue;
            }
            let mut rng = stream(seed, rep, StreamKind::Group, gid.0);
            for (i, (f, r)) in g.routes.iter().enumerate() {
                let mut start =
                    SimTime::ZERO + cfg.start + cfg.start_spacing.saturating_mul(i as u64);
                if cfg.start_jitter > SimDuration::ZERO {
                    let j: f64 = rng.random();
                    start += SimDuration::from_ps((j * cfg.start_jitter.as_ps() as f64) as u64);
                }
                let size = match &cfg.traffic {
                    TrafficConfig::Finite { size } => Some(size.get()),
                    _ => None,
                };
                // Per-flow draws after the start jitter, each only for a range.
                let mss = cfg.packet_size.draw(&mut rng).map(|b| b.get() as u32);
                let host_delay = cfg.extra_delay.draw(&mut rng);
                let (sender, receiver) = make_endpoints(cfg, mss, size);
                let spec = FlowSpec {
                    group: gid,
                    sender,
                    receiver,
                    fwd: route_of(&mut sim, f),
                    rev: route_of(&mut sim, r),
                    start,
                    stop,
                    host_delay,
                };
                sim.add_flow(spec);
            }
        }
        Ok(sim)
    }
}

/// The sender and receiver endpoints of one flow of group `cfg` with
/// `mss`-byte packets (`None`: each packet draws its size from the group's
/// `packet_size` distribution).
pub(crate) fn make_endpoints(
    cfg: &FlowGroupConfig,
    mss: Option<u32>,
    size: Option<u64>,
) -> (Box<dyn Endpoint>, Box<dyn Endpoint>) {
    let udp = |rate, process| -> Box<dyn Endpoint> {
        match (&cfg.packet_size, mss) {
            (_, Some(mss)) => Box::new(UdpSource::new(rate, mss, process)),
            (PacketSize::PerPacket(d), None) => Box::new(UdpSource::with_size_dist(
                rate,
                d.clone(),
                MAX_PACKET_SIZE as u32,
                process,
            )),
            (PacketSize::PerFlow(_), None) => unreachable!("a per-flow size is always drawn"),
        }
    };
    if cfg.transport == Transport::Pcc {
        let pcc = cfg.pcc.clone().unwrap_or_default();
        let mss = mss.expect("a PCC flow has one packet size");
        return (
            Box::new(PccSender::new(&pcc, mss)),
            Box::new(PccReceiver::new(&pcc)),
        );
    }
    match &cfg.traffic {
        TrafficConfig::Cbr { rate } => (udp(*rate, PacketProcess::Constant), Box::new(UdpSink)),
        TrafficConfig::PoissonPackets { rate } => {
            (udp(*rate, PacketProcess::Poisson), Box::new(UdpSink))
        }
        _ => {
            // `resolve_group` rejects a per-packet distribution for transports.
            let mss = mss.expect("a transport flow has one packet size");
            match cfg.transport {
                Transport::Tcp => crate::transports::tcp_endpoints(cfg, mss, size),
                Transport::Tfrc => crate::transports::tfrc_endpoints(cfg, mss, size),
                Transport::Pcc => unreachable!("PCC endpoints are built above"),
            }
        }
    }
}

fn validate_run(sc: &Scenario) -> Result<(), ScenarioError> {
    let r = &sc.run;
    if r.duration == SimDuration::ZERO {
        return Err(err("run.duration", "must be > 0"));
    }
    if r.warmup >= r.duration {
        return Err(err(
            "run.warmup",
            format!(
                "warm-up ({}) must be shorter than the run (duration = {})",
                r.warmup, r.duration
            ),
        ));
    }
    if r.replications == 0 {
        return Err(err("run.replications", "must be >= 1"));
    }
    if let Some(o) = &sc.oracle {
        // Bounded above so that the utilities' marginals x^-alpha stay
        // finite in f64 for rates between 1 b/s and 1 Tb/s.
        if !(o.alpha > 0.0 && o.alpha <= 20.0) {
            return Err(err(
                "oracle.alpha",
                format!(
                    "{} is not in (0, 20]: 1 is proportional fairness, 2 minimum \
                     potential delay, larger values approach max-min",
                    o.alpha
                ),
            ));
        }
    }
    if let Some(f) = &r.fairness {
        if !(f.epsilon > 0.0 && f.epsilon < 1.0) {
            return Err(err(
                "run.fairness.epsilon",
                format!(
                    "{} is not in (0, 1): fair means smallest / largest rate >= 1 - epsilon",
                    f.epsilon
                ),
            ));
        }
        if !r.series.contains(&SeriesName::FlowRate) {
            return Err(err(
                "run.fairness",
                "the time to fairness is read from the rates: add \"flow_rate\" to run.series",
            ));
        }
    }
    if let Some(i) = (0..r.fct_bins.len())
        .find(|&i| r.fct_bins[i].get() == 0 || (i > 0 && r.fct_bins[i] <= r.fct_bins[i - 1]))
    {
        return Err(err(
            format!("run.fct_bins[{i}]"),
            format!(
                "{} does not follow: the bin edges must be positive and increasing",
                r.fct_bins[i]
            ),
        ));
    }
    match (r.sample_interval, r.series.is_empty()) {
        (Some(d), _) if d == SimDuration::ZERO => Err(err("run.sample_interval", "must be > 0")),
        (None, false) => Err(err("run.series", "series need a run.sample_interval")),
        _ => Ok(()),
    }
}

/// Check a link's parameters; returns the congestion-header family its
/// algorithm reads or writes, if any.
fn validate_link(
    l: &crate::graph::GraphLink,
) -> Result<Option<sim_core::HeaderFamily>, ScenarioError> {
    if l.capacity.bps() == 0 {
        return Err(err(
            format!("{}.capacity", l.origin),
            "must be > 0 (e.g. \"10Mbps\")",
        ));
    }
    if !(l.loss.is_finite() && (0.0..1.0).contains(&l.loss)) {
        return Err(err(
            format!("{}.loss", l.origin),
            format!("{} is out of range; allowed: 0 <= loss < 1", l.loss),
        ));
    }
    let ctx = LinkBuildCtx {
        capacity: l.capacity,
        delay: l.delay,
        limit: l.buffer,
    };
    l.algo
        .build(&ctx)
        .map(|a| a.header_family())
        .map_err(|e| err(format!("{}.algo.{}", l.origin, e.key), e.message))
}

fn resolve_path(
    names: &[String],
    i: u32,
    at: &str,
    graph: &Graph,
) -> Result<Vec<usize>, ScenarioError> {
    if names.len() < 2 {
        return Err(err(at, "a path needs at least two nodes"));
    }
    let nodes = names
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let n = crate::scenario::expand(n, i);
            graph
                .node(&n)
                .ok_or_else(|| err(format!("{at}[{k}]"), graph.unknown_node(&n)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    graph.path_links(&nodes).map_err(|k| {
        err(
            format!("{at}[{}]", k + 1),
            format!(
                "no link from `{}` to `{}` (path through a missing link)",
                graph.nodes[nodes[k]],
                graph.nodes[nodes[k + 1]]
            ),
        )
    })
}

/// Validate group `g` and route its flows (`families`: each link's
/// header family, from [`validate_link`]).
fn resolve_group(
    sc: &Scenario,
    g: &FlowGroupConfig,
    at: &str,
    router: &mut Router,
    families: &[Option<sim_core::HeaderFamily>],
) -> Result<ResolvedGroup, ScenarioError> {
    let graph = router.graph();
    if g.name.is_empty() {
        return Err(err(format!("{at}.name"), "must not be empty"));
    }
    crate::limits::check_count(g, at)?;
    if matches!(g.packet_size, PacketSize::PerPacket(_)) && !g.traffic.is_packet_source() {
        return Err(err(
            format!("{at}.packet_size"),
            format!(
                "a size distribution draws each packet's size, which only the packet sources \
                 (traffic `poisson_packets` and `cbr`) do; traffic `{}` sends one packet \
                 size per flow: give one size (\"1000B\") or a per-flow range \
                 ([\"800B\", \"1300B\"])",
                g.traffic.name()
            ),
        ));
    }
    g.packet_size.check().map_err(|e| {
        let e = e.prefixed(&format!("{at}.packet_size"));
        err(e.key, e.message)
    })?;
    g.extra_delay
        .check_order()
        .map_err(|m| err(format!("{at}.extra_delay"), m))?;
    g.traffic
        .validate()
        .map_err(|e| err(format!("{at}.traffic.{}", e.key), e.message))?;
    if g.transport != Transport::Tfrc && g.tfrc.is_some() {
        return Err(err(
            format!("{at}.tfrc"),
            "tfrc settings need `transport = \"tfrc\"`",
        ));
    }
    if g.transport != Transport::Pcc && g.pcc.is_some() {
        return Err(err(
            format!("{at}.pcc"),
            format!(
                "PCC parameters need `transport = \"pcc\"` (this group's transport is `{}`)",
                g.transport.name()
            ),
        ));
    }
    if g.transport == Transport::Tfrc {
        for (key, set) in [("cc", g.cc.is_some()), ("tcp", g.tcp.is_some())] {
            if set {
                return Err(err(
                    format!("{at}.{key}"),
                    format!(
                        "transport `tfrc` takes no `{key}` table; its parameters are in `tfrc = {{ ... }}`"
                    ),
                ));
            }
        }
        if !matches!(
            g.traffic,
            TrafficConfig::Bulk {}
                | TrafficConfig::Finite { .. }
                | TrafficConfig::PoissonArrivals { .. }
        ) {
            return Err(err(
                format!("{at}.traffic"),
                format!(
                    "transport `tfrc` carries traffic `bulk`, `finite` or `poisson_arrivals`, not `{}`",
                    g.traffic.name()
                ),
            ));
        }
        crate::transports::validate_tfrc(g)
            .map_err(|e| err(format!("{at}.{}", e.key), e.message))?;
    } else if g.transport == Transport::Pcc {
        crate::transports::validate_pcc(g)
            .map_err(|e| err(format!("{at}.{}", e.key), e.message))?;
    } else if g.traffic.is_packet_source() {
        if g.cc.is_some() {
            return Err(err(
                format!("{at}.cc"),
                format!(
                    "traffic `{}` is a non-adaptive source; it takes no congestion controller",
                    g.traffic.name()
                ),
            ));
        }
        if g.tcp.is_some() {
            return Err(err(
                format!("{at}.tcp"),
                format!(
                    "traffic `{}` is a non-adaptive source; it takes no tcp settings",
                    g.traffic.name()
                ),
            ));
        }
    } else {
        crate::transports::validate_tcp(g)
            .map_err(|e| err(format!("{at}.{}", e.key), e.message))?;
    }
    let run_end = sc.run.duration;
    if let Some(stop) = g.stop {
        if stop <= g.start {
            return Err(err(
                format!("{at}.stop"),
                format!("stop ({stop}) must be after start ({})", g.start),
            ));
        }
    }
    if g.start >= run_end {
        return Err(err(
            format!("{at}.start"),
            format!(
                "start ({}) is not before the end of the run ({run_end})",
                g.start
            ),
        ));
    }
    crate::limits::check_arrivals(sc, g, at)?;
    if let (NodeSel::Many(v), _) | (_, NodeSel::Many(v)) = (&g.from, &g.to) {
        if v.is_empty() {
            return Err(err(format!("{at}.from"), "node lists must not be empty"));
        }
    }
    let n = if matches!(g.traffic, TrafficConfig::PoissonArrivals { .. }) {
        1
    } else {
        g.count
    };
    // Built at the first flow, after its routes, as a per-flow check would.
    let mut carried: Option<(sim_core::HeaderFamily, String)> = None;
    let mut routes = Vec::with_capacity(n as usize);
    for i in 0..n {
        let src_name = g.from.for_flow(i);
        let dst_name = g.to.for_flow(i);
        let src = graph
            .node(&src_name)
            .ok_or_else(|| err(format!("{at}.from"), graph.unknown_node(&src_name)))?;
        let dst = graph
            .node(&dst_name)
            .ok_or_else(|| err(format!("{at}.to"), graph.unknown_node(&dst_name)))?;
        if src == dst {
            return Err(err(
                format!("{at}.to"),
                format!("flow {i} starts and ends at `{src_name}`"),
            ));
        }
        let fwd = match &g.path {
            Some(p) => {
                let links = resolve_path(p, i, &format!("{at}.path"), graph)?;
                let (s, d) = (
                    graph.links[links[0]].from,
                    graph.links[*links.last().expect("non-empty")].to,
                );
                if s != src || d != dst {
                    return Err(err(
                        format!("{at}.path"),
                        format!("path must run from `{src_name}` to `{dst_name}`"),
                    ));
                }
                links
            }
            None => router.route(src, dst, g.routing).ok_or_else(|| {
                err(
                    format!("{at}.to"),
                    format!(
                        "no route from `{src_name}` to `{dst_name}`: the nodes are not connected"
                    ),
                )
            })?,
        };
        let rev = match &g.reverse_path {
            Some(p) => {
                let links = resolve_path(p, i, &format!("{at}.reverse_path"), graph)?;
                let (s, d) = (graph.links[links[0]].from, graph.links[*links.last().expect("non-empty")].to);
                if s != dst || d != src {
                    return Err(err(format!("{at}.reverse_path"), format!("reverse path must run from `{dst_name}` to `{src_name}`")));
                }
                links
            }
            None => router.route(dst, src, g.routing).ok_or_else(|| {
                err(format!("{at}.from"), format!("no route back from `{dst_name}` to `{src_name}` for ACKs: add a reverse link or a reverse_path"))
            })?,
        };
        if carried.is_none() {
            carried = Some(group_family(g, at)?);
        }
        let (family, who) = carried.as_ref().expect("set above");
        check_header_family((*family, who), &fwd, at, graph, families)?;
        routes.push((fwd, rev));
    }
    Ok(ResolvedGroup {
        cfg: g.clone(),
        routes,
    })
}

use crate::scenario::NodeSel;

/// The congestion-header family group `g`'s flows carry, and the name of
/// what carries it (the controller, or the traffic kind of a packet source).
fn group_family(
    g: &FlowGroupConfig,
    at: &str,
) -> Result<(sim_core::HeaderFamily, String), ScenarioError> {
    if g.traffic.is_packet_source() {
        return Ok((sim_core::HeaderFamily::None, g.traffic.name().to_string()));
    }
    let cc = g.cc.clone().unwrap_or_default();
    let ctl = cc
        .build(g.packet_size.bounds().0.get() as u32)
        .map_err(|e| err(format!("{at}.cc.{}", e.key), e.message))?;
    Ok((ctl.header_family(), cc.name().to_string()))
}

/// Reject a flow whose congestion header family (`family`, carried by `who`)
/// differs from what a link algorithm on its data path reads or writes
/// (`families`, per link).
fn check_header_family(
    (family, who): (sim_core::HeaderFamily, &str),
    fwd: &[usize],
    at: &str,
    graph: &Graph,
    families: &[Option<sim_core::HeaderFamily>],
) -> Result<(), ScenarioError> {
    // A controller that reads network feedback needs a link that writes it.
    let mut served = family == sim_core::HeaderFamily::None;
    for &l in fwd {
        let link = &graph.links[l];
        if families[l] == Some(family) {
            served = true;
        }
        if let Some(need) = families[l] {
            if need != family {
                return Err(err(
                    format!("{at}.cc"),
                    format!(
                        "`{who}` carries {family:?} headers but link `{}` runs `{}`, which needs {need:?} headers",
                        link.name,
                        link.algo.name()
                    ),
                ));
            }
        }
    }
    if !served {
        return Err(err(
            format!("{at}.cc"),
            format!(
                "`{who}` follows {family:?} feedback from the network, but no link on its data path computes it (give the bottleneck a matching `algo`, e.g. kind = \"{who}\")"
            ),
        ));
    }
    Ok(())
}
