//! The single-link JetMax scenario of seed 002's packet-level tests
//! (tests/zhang_props.rs, tests/jetmax_gap_tiling.rs): a dumbbell of flows
//! with given round trips over one JetMax bottleneck, warmed up until the
//! model has converged at the given gain.

/// The JetMax scenarios' packet size, bytes.
pub const JETMAX_PACKET_BYTES: u64 = 1000;
/// The JetMax router's control interval Delta in these scenarios, ms (its
/// default).
pub const JETMAX_INTERVAL_MS: u64 = 100;
/// The JetMax scenarios' sampling interval of the rate series, ms.
pub const JETMAX_SAMPLE_MS: u64 = 100;

/// The options of [`jetmax_scenario`] beyond the link and the flows.
#[derive(Clone, Copy, Default)]
pub struct JetMaxOpts {
    /// The sources' proposed rates (§6.4).
    pub proposals: bool,
    /// The router's `count_self`.
    pub count_self: bool,
    /// The sources' rate floor, bits/s (`None`: the default, 10 kb/s).
    pub min_rate_bps: Option<u64>,
    /// The bottleneck's buffer, packets (`None`: 1000).
    pub buffer_pkts: Option<u32>,
    /// The sources' `tcp.pacing` (`None`: the default, `"restart"`).
    pub pacing: Option<&'static str>,
}

/// JetMax on a dumbbell of `mbps` with one flow per RTT in `rtts_ms`, all
/// starting at 0. The window is the 10 s after a warm-up of
/// [`jetmax_warmup_s`]. Pacing is exact (`pacing_jitter = 0.0`), as in seed
/// 002's scenario files (ns-2's rate agents' timers), not netsim's 0.01
/// default.
pub fn jetmax_scenario(mbps: u32, rtts_ms: &[u32], tau: f64, opts: JetMaxOpts) -> String {
    let JetMaxOpts {
        proposals,
        count_self,
        min_rate_bps,
        buffer_pkts,
        pacing,
    } = opts;
    let buffer = buffer_pkts.unwrap_or(1000);
    let warmup = jetmax_warmup_s(tau);
    let duration = warmup + 10;
    let n = rtts_ms.len();
    let algo = format!(
        "{{ kind = \"jetmax\", interval = \"{JETMAX_INTERVAL_MS}ms\", count_self = {count_self} }}"
    );
    let topology = dumbbell_by_rtt(mbps, rtts_ms, buffer, &algo);
    let floor = min_rate_bps.map_or(String::new(), |b| format!(", min_rate = \"{b}bps\""));
    let pacing = pacing.map_or(String::new(), |m| format!(", pacing = \"{m}\""));
    format!(
        r#"
name = "jetmax-random"
[run]
duration = "{duration}s"
warmup = "{warmup}s"
replications = 1
seed = 11
sample_interval = "{JETMAX_SAMPLE_MS}ms"
series = ["flow_rate", "link_rate"]
{topology}[[flows]]
name = "u"
count = {n}
from = "s{{i}}"
to = "d{{i}}"
packet_size = "{JETMAX_PACKET_BYTES}B"
cc = {{ kind = "jetmax", tau = {tau}, proposals = {proposals}{floor} }}
tcp = {{ reliable = false, pacing_jitter = 0.0{pacing} }}
traffic = {{ kind = "bulk" }}
"#,
    )
}

/// The `[topology]` table of seed 002's single-link test scenarios (JetMax
/// here, EMKC in tests/zhang_props.rs): a dumbbell of `mbps` with the
/// bottleneck `algo` (an inline TOML table) and `buffer_pkts`, and one pair
/// per round trip in `rtts_ms`. The 5-ms bottleneck carries the same
/// one-way delay for all; each access link makes up the rest of its
/// flow's half round trip, so a flow's propagation RTT is its entry.
pub fn dumbbell_by_rtt(mbps: u32, rtts_ms: &[u32], buffer_pkts: u32, algo: &str) -> String {
    let access: Vec<String> = rtts_ms
        .iter()
        .map(|r| format!("\"{}us\"", (r * 1000 / 2).saturating_sub(5000)))
        .collect();
    format!(
        r#"[topology]
kind = "dumbbell"
pairs = {n}
access = {{ capacity = "10Gbps", delay = "1ms", buffer = "100000pkt" }}
access_delays = [{access}]
egress = {{ capacity = "10Gbps", delay = "0ms", buffer = "100000pkt" }}
bottleneck = {{ capacity = "{mbps}Mbps", delay = "5ms", buffer = "{buffer_pkts}pkt", algo = {algo} }}
"#,
        n = rtts_ms.len(),
        access = access.join(", "),
    )
}

/// The warm-up for gain `tau`: enough control steps to cut the distance to
/// the fair share to 1 % in the model (Theorem 16: `|1 - tau|` per step,
/// `ln 0.01 / ln |1 - tau|` steps), each step an RTT plus up to two
/// intervals (§6.3: `RTT + (1 + k) Delta`, <= 0.4 + 0.2 s in these tests),
/// and at least 30 s (the start-up transients of `tau > 1`).
pub fn jetmax_warmup_s(tau: f64) -> u32 {
    let steps = 0.01f64.ln() / (1.0 - tau).abs().ln();
    ((steps * 0.6).ceil() as u32).max(30)
}
