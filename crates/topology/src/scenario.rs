//! The scenario file schema: typed, `deny_unknown_fields` everywhere, unit strings
//! parsed into sim-core newtypes. Defaults are documented with their source.

use serde::{Deserialize, Serialize};
use sim_core::{Bytes, Rate, SimDuration};

use protocols::cc::CcConfig;
use protocols::link::LinkAlgoConfig;
use protocols::pcc::PccConfig;
use protocols::tfrc::TfrcConfig;
use protocols::traffic::TrafficConfig;
use protocols::transport::TcpConfig;

use crate::per_flow::{PacketSize, PerFlow};

/// A whole scenario file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name used in outputs (defaults to the file stem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Free text: what the scenario reproduces and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Run length, replications, seed and measurement.
    pub run: RunConfig,
    /// A preset that expands into nodes and links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<Preset>,
    /// Explicit nodes (in addition to a preset's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeConfig>,
    /// Explicit links (in addition to a preset's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkConfig>,
    /// Flow groups.
    pub flows: Vec<FlowGroupConfig>,
    /// Link changes at run time (`[[link_change]]`).
    #[serde(default, rename = "link_change", skip_serializing_if = "Vec::is_empty")]
    pub link_changes: Vec<crate::link_change::LinkChangeConfig>,
    /// Reference values to check the results against.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<Expect>,
    /// A parameter sweep (`netsim sweep`); `netsim run` runs the file's own values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<crate::sweep::SweepConfig>,
    /// The utility-maximisation oracle's settings (`[oracle]`); its presence
    /// also asks `netsim run` for the oracle's section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oracle: Option<OracleConfig>,
    /// The per-packet trace and pcap capture of `netsim run` (`[trace]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::trace::TraceConfig>,
}

/// `[oracle]`: the network utility maximisation reference (the weighted
/// alpha-fair allocation of the long-lived flows over the links).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OracleConfig {
    /// The fairness exponent alpha > 0 of the utilities `w x^(1 - alpha) /
    /// (1 - alpha)`: 1 is weighted proportional fairness (`w ln x`, the
    /// default), 2 minimum potential delay, large values approach max-min.
    #[serde(default = "one_f64")]
    pub alpha: f64,
}

impl Default for OracleConfig {
    fn default() -> Self {
        OracleConfig { alpha: 1.0 }
    }
}

fn one_f64() -> f64 {
    1.0
}

/// A reference allocation a group's per-flow rate can be divided by
/// (`[[expect]] relative_to`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reference {
    /// The weighted alpha-fair optimum per flow (`[oracle]`).
    NumOptimum,
    /// The max-min fair share per flow (water-filling).
    MaxMinShare,
}

/// Run settings (`[run]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Simulated length of each replication (absolute end time).
    pub duration: SimDuration,
    /// Measurement starts after this; must be shorter than `duration`. Default 0.
    #[serde(default)]
    pub warmup: SimDuration,
    /// Independent replications (each with its own random streams). Default 1.
    #[serde(default = "one")]
    pub replications: u32,
    /// Master seed. Default 1.
    #[serde(default = "one_u64")]
    pub seed: u64,
    /// Sampling interval of time series. Default: none sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_interval: Option<SimDuration>,
    /// Which time series to sample.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<SeriesName>,
    /// The parameters of the links' time to fairness (`fair_s`, computed
    /// with the `flow_rate` series). Default: 1 %-fairness of the samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness: Option<FairnessConfig>,
    /// The edges of the flow-size bins of the `fct_bins` table, increasing
    /// (`["10KB", "100KB", "1MB"]`: below 10 KB, 10-100 KB, 100 KB-1 MB, 1 MB
    /// and up). Default: decades from 10 KB to 10 MB.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fct_bins: Vec<sim_core::Bytes>,
}

/// `[run] fairness = { epsilon = 0.01, average = "10s" }`: the link metric
/// `fair_s` is the time after the last of a link's flows starts until their
/// rates, each a trailing moving average over `average`, are epsilon-fair
/// (smallest / largest >= 1 - epsilon, seed 002's eq. 107) for good.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FairnessConfig {
    /// In (0, 1). Default 0.01.
    #[serde(default = "default_epsilon")]
    pub epsilon: f64,
    /// Length of the moving average. Default 0 (each sample alone).
    #[serde(default)]
    pub average: SimDuration,
}

fn default_epsilon() -> f64 {
    0.01
}

fn one() -> u32 {
    1
}
fn one_u64() -> u64 {
    1
}

/// A time series that can be sampled.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeriesName {
    /// Per-flow congestion window.
    FlowWindow,
    /// Per-flow rate and received throughput.
    FlowRate,
    /// Per-flow smoothed RTT.
    FlowRtt,
    /// Per-flow control state held by the endpoints beyond window, rate
    /// and RTT (PCC's receiver: p_ON, r_TCP, r_EFF, on/off).
    FlowControl,
    /// Per-link queue length.
    LinkQueue,
    /// Per-link departure rate.
    LinkRate,
}

impl SeriesName {
    /// The series a windowed expectation's metric is read from (`None`: not
    /// a series metric of that scope).
    pub fn carrying(scope: &str, metric: &str) -> Option<SeriesName> {
        Some(match (scope, metric) {
            ("link", "queue_pkts" | "queue_bytes") => SeriesName::LinkQueue,
            ("link", "rate_bps" | "arrival_bps" | "loss_frac" | "utilisation") => {
                SeriesName::LinkRate
            }
            ("group", "cwnd_bytes") => SeriesName::FlowWindow,
            ("group", "rate_bps" | "rate_avg_bps" | "throughput_bps" | "loss_event_rate") => {
                SeriesName::FlowRate
            }
            ("group", "srtt_s") => SeriesName::FlowRtt,
            ("group", "p_on" | "r_tcp_bps" | "r_eff_bps" | "on") => SeriesName::FlowControl,
            _ => return None,
        })
    }
}

/// A node (`[[nodes]]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    /// Unique name.
    pub name: String,
}

/// A buffer limit as written: `"100pkt"`, `"64KB"`, or `"unlimited"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BufferSpec(pub sim_core::BufferLimit);

impl Serialize for BufferSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            sim_core::BufferLimit::Packets(n) => s.serialize_str(&format!("{n}pkt")),
            sim_core::BufferLimit::Bytes(b) => s.serialize_str(&format!("{b}B")),
            sim_core::BufferLimit::Unlimited => s.serialize_str("unlimited"),
        }
    }
}

impl<'de> Deserialize<'de> for BufferSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_buffer(&s).map_err(serde::de::Error::custom)
    }
}

/// Parse `"100pkt"`, `"64KB"`, `"unlimited"`.
pub fn parse_buffer(s: &str) -> Result<BufferSpec, String> {
    let t = s.trim();
    if t == "unlimited" {
        return Ok(BufferSpec(sim_core::BufferLimit::Unlimited));
    }
    let allowed = "expected \"<n>pkt\" (packets), a byte size such as \"64KB\", or \"unlimited\"";
    if let Some(n) = t.strip_suffix("pkts").or_else(|| t.strip_suffix("pkt")) {
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("`{s}` is not a buffer size; {allowed}"))?;
        if n == 0 {
            return Err(format!(
                "buffer `{s}` is zero; a buffer must hold at least 1 packet"
            ));
        }
        return Ok(BufferSpec(sim_core::BufferLimit::Packets(n)));
    }
    let b = sim_core::parse_bytes(t).map_err(|e| format!("{e}; {allowed}"))?;
    if b.get() == 0 {
        return Err(format!(
            "buffer `{s}` is zero; a buffer must hold at least 1 byte"
        ));
    }
    Ok(BufferSpec(sim_core::BufferLimit::Bytes(b.get())))
}

/// Per-link parameters shared by explicit links and presets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    /// Serialization rate (> 0).
    pub capacity: Rate,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Egress buffer.
    pub buffer: BufferSpec,
    /// Link algorithm. Default: drop_tail.
    #[serde(default)]
    pub algo: LinkAlgoConfig,
    /// Bernoulli loss probability per packet, in [0, 1). Default 0.
    #[serde(default)]
    pub loss: f64,
    /// Overrides for the reverse direction (duplex links only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<LinkOverride>,
}

/// Reverse-direction overrides of a duplex link; unset fields copy the forward ones.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOverride {
    /// Serialization rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Rate>,
    /// Propagation delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<SimDuration>,
    /// Egress buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferSpec>,
    /// Link algorithm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algo: Option<LinkAlgoConfig>,
    /// Loss probability.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
}

/// An explicit link (`[[links]]`). Duplex by default: the reverse link gets the
/// same parameters unless `reverse` overrides them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Upstream node.
    pub from: String,
    /// Downstream node.
    pub to: String,
    /// Serialization rate (> 0).
    pub capacity: Rate,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Egress buffer.
    pub buffer: BufferSpec,
    /// Link algorithm. Default: drop_tail.
    #[serde(default)]
    pub algo: LinkAlgoConfig,
    /// Bernoulli loss probability per packet, in [0, 1). Default 0.
    #[serde(default)]
    pub loss: f64,
    /// Also create the link `to -> from`. Default true.
    #[serde(default = "yes")]
    pub duplex: bool,
    /// Overrides for the reverse direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<LinkOverride>,
}

fn yes() -> bool {
    true
}

impl LinkConfig {
    /// The per-link parameters of this link.
    pub fn params(&self) -> LinkParams {
        LinkParams {
            capacity: self.capacity,
            delay: self.delay,
            buffer: self.buffer,
            algo: self.algo.clone(),
            loss: self.loss,
            reverse: self.reverse.clone(),
        }
    }
}

/// Topology presets (`[topology] kind = ...`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Preset {
    /// N sender hosts `s0..` on access links into router `r1`; `r1 -> r2` is the
    /// bottleneck; `r2` reaches receiver hosts `d0..` on egress links.
    Dumbbell(Box<DumbbellConfig>),
    /// A chain of routers `r0 -> r1 -> ... -> rK`; hosts `src`/`dst` for the long
    /// flows at both ends; cross-traffic hosts `cs{j}` (at `r{j-1}`) and `cd{j}`
    /// (at `r{j}`) for each link j = 1..K.
    ParkingLot(Box<ParkingLotConfig>),
}

/// The dumbbell preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellConfig {
    /// Number of sender/receiver host pairs (1 to [`MAX_COUNT`](crate::limits::MAX_COUNT)).
    pub pairs: u32,
    /// The `r1 -> r2` link (and, with its `reverse` overrides, `r2 -> r1`).
    pub bottleneck: LinkParams,
    /// Sender access links `s{i} <-> r1`.
    pub access: LinkParams,
    /// Receiver links `r2 <-> d{i}`. Default: the same as `access`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress: Option<LinkParams>,
    /// Per-pair access delays (overriding `access.delay`), for heterogeneous RTTs;
    /// cycled when shorter than `pairs`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub access_delays: Vec<SimDuration>,
    /// Pair i's access delay is `access.delay + i * access_delay_step` (seed
    /// 003's "increments of 0.5 msec"); not together with `access_delays`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_delay_step: Option<SimDuration>,
}

/// The parking-lot preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParkingLotConfig {
    /// Number of router-to-router links K (1 to [`MAX_COUNT`](crate::limits::MAX_COUNT)).
    pub hops: u32,
    /// Parameters of every router-to-router link.
    pub link: LinkParams,
    /// Per-hop overrides of `link`, by position (hop j = index j-1); optional.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_hop: Vec<LinkOverride>,
    /// Host access links.
    pub access: LinkParams,
}

/// How a group's path is chosen when no explicit `path` is given.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// Fewest hops (ties: lowest total delay, then first-declared links).
    #[default]
    Hops,
    /// Smallest total propagation delay (ties: fewest hops).
    Delay,
}

/// One or several node names. `{i}` in a name is replaced by the flow's index in
/// its group; a list is used round-robin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum NodeSel {
    /// One name (possibly with `{i}`).
    One(String),
    /// Several names, used round-robin.
    Many(Vec<String>),
}

impl NodeSel {
    /// The node for flow `i` of the group.
    pub fn for_flow(&self, i: u32) -> String {
        let s = match self {
            NodeSel::One(s) => s,
            NodeSel::Many(v) => &v[i as usize % v.len().max(1)],
        };
        expand(s, i)
    }
}

/// Replace `{i}` with `i` and `{i+K}` (K a non-negative integer) with `i + K`.
/// Anything else in braces is left alone (and then names no node).
pub fn expand(s: &str, i: u32) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find("{i") {
        out.push_str(&rest[..open]);
        let tail = &rest[open + 2..];
        let close = tail.find('}');
        let offset = match close {
            Some(0) => Some(0u64),
            Some(c) => tail[..c]
                .strip_prefix('+')
                .and_then(|k| k.trim().parse::<u64>().ok()),
            None => None,
        };
        match (offset, close) {
            (Some(k), Some(c)) => {
                out.push_str(&(u64::from(i) + k).to_string());
                rest = &tail[c + 1..];
            }
            _ => {
                out.push_str("{i");
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A flow group (`[[flows]]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowGroupConfig {
    /// Unique group name (tables report per group).
    pub name: String,
    /// Number of flows, at most [`MAX_COUNT`](crate::limits::MAX_COUNT) (ignored by arrival processes,
    /// which create their own). Default 1.
    #[serde(default = "one")]
    pub count: u32,
    /// Source node(s).
    pub from: NodeSel,
    /// Destination node(s).
    pub to: NodeSel,
    /// Explicit forward path as node names (overrides routing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// Explicit reverse (ACK) path as node names. Default: routed from `to` to `from`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_path: Option<Vec<String>>,
    /// Route choice when no explicit path is given. Default: hops.
    #[serde(default)]
    pub routing: Routing,
    /// Data packet size on the wire: one size (`"1000B"`) or a range each
    /// flow draws its own from, uniformly (`["800B", "1300B"]`, seed 002
    /// E6.1); for the packet sources `poisson_packets` and `cbr` also a
    /// distribution each packet draws from (`{ dist = "exponential", mean =
    /// "1000B" }`, see [`PacketSize`]). Default 1500 B (Ethernet MTU).
    #[serde(default = "default_packet_size")]
    pub packet_size: PacketSize,
    /// One-way delay each of a flow's hosts adds before its first link, for
    /// data and ACKs alike (the flow's RTT grows by twice it): one value or a
    /// range each flow draws from (`["0ms", "500ms"]`), for per-flow RTTs on
    /// shared links. Default 0.
    #[serde(default, skip_serializing_if = "PerFlow::is_default")]
    pub extra_delay: PerFlow<SimDuration>,
    /// Congestion controller (TCP-family transports). Default: new_reno.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<CcConfig>,
    /// Reliable-transport parameters (RTO, ECN, delayed ACKs, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpConfig>,
    /// Transport that carries the group's data: `"tcp"` (the window
    /// transport with `cc` and `tcp`, the default), `"tfrc"` (RFC 5348
    /// TCP-Friendly Rate Control with the `tfrc` table) or `"pcc"`
    /// (Probabilistic Congestion Control of a non-adaptable CBR application,
    /// parameters in `pcc`).
    #[serde(default, skip_serializing_if = "Transport::is_tcp")]
    pub transport: Transport,
    /// TFRC parameters (with `transport = "tfrc"`; every key optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tfrc: Option<TfrcConfig>,
    /// PCC parameters (`transport = "pcc"`; defaults: Table 6.1 of Damm 2001).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcc: Option<PccConfig>,
    /// Traffic model. Default: bulk.
    #[serde(default)]
    pub traffic: TrafficConfig,
    /// Start of the first flow. Default 0.
    #[serde(default)]
    pub start: SimDuration,
    /// Flow i starts at `start + i * start_spacing`. Default 0.
    #[serde(default)]
    pub start_spacing: SimDuration,
    /// Each start is delayed by a uniform draw from [0, start_jitter). Default 0.
    #[serde(default)]
    pub start_jitter: SimDuration,
    /// No new data (or, for arrival processes, no new flows) after this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<SimDuration>,
}

/// The transport of a flow group (`transport`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// The reliable window transport (`cc`, `tcp`).
    #[default]
    Tcp,
    /// TFRC (RFC 5348), unreliable and rate-paced (`tfrc`).
    Tfrc,
    /// Probabilistic Congestion Control (`protocols::pcc`): a CBR sender at
    /// `pcc.rate` switched on and off by its receiver.
    Pcc,
}

impl Transport {
    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Tcp => "tcp",
            Transport::Tfrc => "tfrc",
            Transport::Pcc => "pcc",
        }
    }

    /// True for the default, `tcp` (not written out).
    pub fn is_tcp(&self) -> bool {
        *self == Transport::Tcp
    }
}

fn is_paper(k: &ExpectKind) -> bool {
    *k == ExpectKind::Paper
}

fn default_packet_size() -> PacketSize {
    PacketSize::PerFlow(PerFlow::Fixed(Bytes::new(1500)))
}

/// How a reference value is compared.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpectOp {
    /// Within the tolerance of the value.
    #[default]
    Approx,
    /// At least the value.
    AtLeast,
    /// At most the value.
    AtMost,
}

/// What an expectation checks, for the totals of `netsim reproduce`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpectKind {
    /// A value or claim the paper states (a table entry, a figure's reading, a
    /// sentence of its text, one of its theorems).
    #[default]
    Paper,
    /// A value derived from the specified model (a closed-form fixed point, an
    /// equilibrium) that the paper does not print: it can fail, but it is not
    /// the paper's number.
    Derived,
    /// A precondition of the set-up the paper's results presume (no loss where
    /// the buffers are unlimited, a traffic premise, every short flow ended
    /// before the window): it says the experiment is the one specified, not
    /// that a result reproduces. Counted apart; a miss still fails.
    Setup,
}

impl ExpectKind {
    /// The word used in tables and totals.
    pub fn word(self) -> &'static str {
        match self {
            ExpectKind::Paper => "paper",
            ExpectKind::Derived => "derived",
            ExpectKind::Setup => "setup",
        }
    }
}

/// A reference value (`[[expect]]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Scope of the metric: "group", "link" or "run".
    pub scope: String,
    /// Group name, link name (`"r1->r2"`), or "all" for run metrics.
    pub subject: String,
    /// Metric name, as in the summary table.
    pub metric: String,
    /// Compare the ratio `metric(subject) / metric(ratio_to)` instead of the
    /// metric itself: another subject of the same scope. The ratio is formed in
    /// each replication, then summarised (the papers' "average ratio of
    /// throughput" with its confidence interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_to: Option<String>,
    /// Compare the share `metric(subject) / (metric(subject) +
    /// metric(share_with))` instead of the metric: another subject of the
    /// same scope, formed in each replication, then summarised. With
    /// `goodput_bps` (the mean per flow) between two groups it is Damm
    /// (2001)'s normalised share of bandwidth, eq. 6.1 (0.5: fair).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share_with: Option<String>,
    /// Compare the ratio of the metric to the same scope, subject and
    /// metric in another scenario's runs: a scenario file, by its path
    /// relative to this file's directory, run with this file's replication
    /// count (each with its own seed); the ratio is formed replication by
    /// replication (replication k over replication k), then summarised
    /// (Zimmermann (2005): "REM's backlog is on average 45 % larger than
    /// EPF's").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_to_scenario: Option<String>,
    /// Compare the metric divided by the subject group's per-flow reference
    /// rate (`"num_optimum"` or `"max_min_share"`, both bits/s) instead of the
    /// metric: `value = 1` asks for the optimum. Group scope, a rate metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_to: Option<Reference>,
    /// Judge the mean of a sampled time series over `[from, to]` (each
    /// replication's samples at times in `(from, to]`) instead of a window
    /// metric: the papers' "utilisation and backlog per 20-s interval". The
    /// metric is then a series the run samples: for a link `queue_pkts`,
    /// `queue_bytes` (series `link_queue`), `rate_bps`, `arrival_bps`,
    /// `loss_frac` or `utilisation` (the departure rate over the capacity;
    /// series `link_rate`); for a group, over all its flows' samples,
    /// `cwnd_bytes` (`flow_window`), `rate_bps`, `rate_avg_bps`,
    /// `throughput_bps` (`flow_rate`) or `srtt_s` (`flow_rtt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<[SimDuration; 2]>,
    /// Confidence level of netsim's interval, in (0, 1). Default 0.95; the seed
    /// papers often report 90 % intervals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// Reference value.
    pub value: f64,
    /// Comparison. Default: approx.
    #[serde(default)]
    pub op: ExpectOp,
    /// Relative tolerance (fraction of `value`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Absolute tolerance, in the metric's unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abs_tolerance: Option<f64>,
    /// The reference's own confidence half-width: passes when the intervals overlap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_ci: Option<f64>,
    /// Where the value comes from ("Table 1, seed 001").
    pub source: String,
    /// What the expectation checks: `"paper"` (default), `"derived"` or
    /// `"setup"` (see [`ExpectKind`]).
    #[serde(default, skip_serializing_if = "is_paper")]
    pub kind: ExpectKind,
    /// A known, investigated deviation: why netsim does not reproduce this
    /// value (the finding, or what was ruled out). A missed expectation with a
    /// deviation is reported as `DEVIATES` with this text, not as `MISS`, and
    /// does not fail `--check` or `netsim reproduce`; one that passes is
    /// flagged so that the note is re-examined. The reference value and its
    /// tolerance stay the paper's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deviation: Option<String>,
    /// An independent reference that gives netsim's value where netsim
    /// misses the paper's: a test that runs a model written from the paper
    /// (sharing no code with the engine) or another simulator on the same
    /// set-up and compares it with netsim, as `path::function` (a test
    /// function in a file under the repository root) or `path` (a script);
    /// several separated by commas.
    /// A miss stays a miss (it fails `--check`); the report lists it as
    /// cross-checked, so that a reader can tell a miss the reference shares
    /// from an unexplained one. `tests/cross_checks.rs` checks that every
    /// cited file and function exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_check: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn flow_index_placeholders_expand_with_an_optional_offset() {
        assert_eq!(expand("s{i}", 3), "s3");
        assert_eq!(expand("s{i+5}", 3), "s8");
        assert_eq!(expand("h{i}-{i+10}", 0), "h0-10");
        // Not a placeholder: left as written (and then names no node).
        assert_eq!(expand("s{i-1}", 3), "s{i-1}");
        assert_eq!(expand("s{i", 3), "s{i");
        assert_eq!(expand("plain", 3), "plain");
    }
}
