//! Link algorithms: queue disciplines, markers, price and rate computers.
//!
//! Registration is this config enum: a new algorithm is one file plus one arm.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sim_core::{BufferLimit, LinkAlgorithm, ParamError, Rate, SimDuration};

pub mod adaptive_red;
pub mod avq;
pub mod droptail;
pub mod emkc;
pub mod interval;
pub mod jetmax;
pub mod jetmax_stamp;
pub mod kelly;
pub mod load_based;
pub mod persistent_queue;
pub mod price_law;
pub mod qlb;
pub mod rcp;
pub mod red;
pub mod rem;
pub mod sbrm;
pub mod threshold;
pub mod virtual_queue;
pub mod xcp;

pub use adaptive_red::{AdaptiveRed, AdaptiveRedConfig, MaxPBounds};
pub use avq::{Avq, AvqConfig};
pub use droptail::DropTail;
pub use emkc::{Emkc, EmkcConfig, PathPrice};
pub use jetmax::{JetMax, JetMaxConfig};
pub use kelly::KellyLinkConfig;
pub use load_based::{lbm_prob, LoadBased, LoadBasedConfig, LoadBasedPreset, LoadEstimator};
pub use price_law::{exp_mark_prob, PriceLaw, PriceLawParams, PriceRule};
pub use qlb::{Qlb, QlbConfig};
pub use rcp::{Rcp, RcpConfig};
pub use red::{Red, RedConfig, RedCount, RedMode, RedPreset};
pub use rem::{MarkAt, Rem, RemConfig, RemFeedback, MAX_CODE_BITS};
pub use sbrm::{sbrm_default_gamma, SbrmConfig};
pub use threshold::{ThresholdMarker, ThresholdMarkerConfig};
pub use virtual_queue::{VirtualQueue, VirtualQueueConfig, VqFeedback, VqVariant};
pub use xcp::{Xcp, XcpConfig, XcpRttWeight};

/// What an algorithm may know about its link when it is built.
#[derive(Copy, Clone, Debug)]
pub struct LinkBuildCtx {
    /// Link capacity.
    pub capacity: Rate,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Buffer limit.
    pub limit: BufferLimit,
}

/// Which RTT sets an explicit-feedback router's control interval (XCP, RCP).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RouterRtt {
    /// The average RTT the interval's packets carry (the standard routers).
    #[default]
    Average,
    /// The largest RTT seen in the interval (seed 002's D_max variant).
    Max,
}

/// The link algorithm of a link, as written in a scenario (`kind = "..."`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LinkAlgoConfig {
    /// Tail drop at the buffer limit (the default).
    DropTail {},
    /// Mark ECN-capable packets (drop the others) while the queue exceeds K.
    Threshold(ThresholdMarkerConfig),
    /// RED on the EWMA average queue (ns-2 `REDQueue` semantics, gentle by default).
    Red(RedConfig),
    /// Adaptive RED (Floyd, Gummadi, Shenker 2001): RED whose max_p adapts.
    AdaptiveRed(AdaptiveRedConfig),
    /// Virtual queue of size theta*B served at theta*C; marks its busy period.
    VirtualQueue(VirtualQueueConfig),
    /// REM: a PC1/PC2/PC3 price fed back by exponential marking or explicitly.
    Rem(RemConfig),
    /// SBRM: marks leaving packets with probability 1 - exp(-gamma [b - b0]^+).
    Sbrm(SbrmConfig),
    /// Load-based marking: probability piecewise linear in the measured utilisation.
    LoadBased(LoadBasedConfig),
    /// Seed 003's queue-length-based explicit-rate controller (stamps a rate header).
    Qlb(QlbConfig),
    /// XCP's router: efficiency and fairness controllers, per-packet window feedback.
    Xcp(XcpConfig),
    /// RCP's router: one rate per link, updated every min(d, 10 ms), min-combined.
    Rcp(RcpConfig),
    /// Classic Kelly control's router: a price per interval, summed along the path.
    Kelly(KellyLinkConfig),
    /// The MKC/EMKC router: price (X - C)/X per interval, max along the path.
    Emkc(EmkcConfig),
    /// EMKC-AVQ's router: the EMKC price against an adaptive virtual capacity.
    EmkcAvq(AvqConfig),
    /// JetMax's router: fair share (gamma C - u)/N per interval, hop-count membership.
    Jetmax(JetMaxConfig),
}

// A struct variant (`DropTail {}`), not a unit variant, so that serde rejects
// unknown keys next to `kind` (it ignores them beside a unit variant).
impl Default for LinkAlgoConfig {
    fn default() -> Self {
        LinkAlgoConfig::DropTail {}
    }
}

impl LinkAlgoConfig {
    /// The scenario name of this algorithm.
    pub fn name(&self) -> &'static str {
        match self {
            LinkAlgoConfig::DropTail {} => "drop_tail",
            LinkAlgoConfig::Threshold(_) => "threshold",
            LinkAlgoConfig::Red(_) => "red",
            LinkAlgoConfig::AdaptiveRed(_) => "adaptive_red",
            LinkAlgoConfig::VirtualQueue(_) => "virtual_queue",
            LinkAlgoConfig::Rem(_) => "rem",
            LinkAlgoConfig::Sbrm(_) => "sbrm",
            LinkAlgoConfig::LoadBased(_) => "load_based",
            LinkAlgoConfig::Qlb(_) => "qlb",
            LinkAlgoConfig::Xcp(_) => "xcp",
            LinkAlgoConfig::Rcp(_) => "rcp",
            LinkAlgoConfig::Kelly(_) => "kelly",
            LinkAlgoConfig::Emkc(_) => "emkc",
            LinkAlgoConfig::EmkcAvq(_) => "emkc_avq",
            LinkAlgoConfig::Jetmax(_) => "jetmax",
        }
    }

    /// Check parameters and build the algorithm for a link.
    pub fn build(&self, ctx: &LinkBuildCtx) -> Result<Box<dyn LinkAlgorithm>, ParamError> {
        Ok(match self {
            LinkAlgoConfig::DropTail {} => Box::new(DropTail),
            LinkAlgoConfig::Threshold(c) => Box::new(ThresholdMarker::new(c, ctx)?),
            LinkAlgoConfig::Red(c) => Box::new(Red::new(c, ctx)?),
            LinkAlgoConfig::AdaptiveRed(c) => Box::new(AdaptiveRed::new(c, ctx)?),
            LinkAlgoConfig::VirtualQueue(c) => Box::new(VirtualQueue::new(c, ctx)?),
            LinkAlgoConfig::Rem(c) => Box::new(Rem::new(c, ctx)?),
            LinkAlgoConfig::Sbrm(c) => Box::new(c.build(ctx)?),
            LinkAlgoConfig::LoadBased(c) => Box::new(LoadBased::new(c, ctx)?),
            LinkAlgoConfig::Qlb(c) => Box::new(Qlb::new(c, ctx)?),
            LinkAlgoConfig::Xcp(c) => Box::new(Xcp::new(c, ctx)?),
            LinkAlgoConfig::Rcp(c) => Box::new(Rcp::new(c, ctx)?),
            LinkAlgoConfig::Kelly(c) => Box::new(c.build(ctx)?),
            LinkAlgoConfig::Emkc(c) => Box::new(Emkc::new(c, ctx)?),
            LinkAlgoConfig::EmkcAvq(c) => Box::new(c.build(ctx)?),
            LinkAlgoConfig::Jetmax(c) => Box::new(JetMax::new(c, ctx)?),
        })
    }
}

/// A queue size inside a link algorithm's parameters, written like a link
/// buffer: `"30pkt"` (packets) or a byte size such as `"30KB"` or `"1500B"`.
/// Unlike a link buffer it is never `"unlimited"` (omit the key instead).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueSize {
    /// This many packets (>= 1).
    Packets(u32),
    /// This many bytes (>= 1).
    Bytes(u64),
}

impl QueueSize {
    /// Parse `"30pkt"`, `"30pkts"`, `"64KB"`, `"1500B"`.
    pub fn parse(s: &str) -> Result<QueueSize, String> {
        let t = s.trim();
        let allowed = "expected \"<n>pkt\" (packets) or a byte size such as \"64KB\"";
        if t == "unlimited" {
            return Err(format!(
                "`{s}` is not allowed here; omit the key for no limit ({allowed})"
            ));
        }
        if let Some(n) = t.strip_suffix("pkts").or_else(|| t.strip_suffix("pkt")) {
            let n: u32 = n
                .trim()
                .parse()
                .map_err(|_| format!("`{s}` is not a queue size; {allowed}"))?;
            if n == 0 {
                return Err(format!("queue size `{s}` is zero; must be >= 1 packet"));
            }
            return Ok(QueueSize::Packets(n));
        }
        let b = sim_core::parse_bytes(t).map_err(|e| format!("{e}; {allowed}"))?;
        if b.get() == 0 {
            return Err(format!("queue size `{s}` is zero; must be >= 1 byte"));
        }
        Ok(QueueSize::Bytes(b.get()))
    }

    /// The size in bytes, counting `pkt_size` bytes per packet for a size in packets.
    pub fn as_bytes(self, pkt_size: u64) -> f64 {
        match self {
            QueueSize::Packets(n) => f64::from(n) * pkt_size as f64,
            QueueSize::Bytes(b) => b as f64,
        }
    }

    /// Whether a queue holding `pkts` packets and `bytes` bytes is at or above
    /// this size (packets compared with packets, bytes with bytes).
    #[inline]
    pub fn reached_by(self, pkts: u32, bytes: u64) -> bool {
        match self {
            QueueSize::Packets(n) => pkts >= n,
            QueueSize::Bytes(b) => bytes >= b,
        }
    }
}

impl fmt::Display for QueueSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueSize::Packets(n) => write!(f, "{n}pkt"),
            QueueSize::Bytes(b) => write!(f, "{b}B"),
        }
    }
}

impl Serialize for QueueSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for QueueSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = QueueSize;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a queue size string such as \"30pkt\" or \"30KB\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<QueueSize, E> {
                QueueSize::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_sizes_parse_packets_and_bytes_and_reject_zero_and_unlimited() {
        assert_eq!(QueueSize::parse("30pkt"), Ok(QueueSize::Packets(30)));
        assert_eq!(QueueSize::parse(" 7 pkts"), Ok(QueueSize::Packets(7)));
        assert_eq!(QueueSize::parse("30KB"), Ok(QueueSize::Bytes(30_000)));
        assert_eq!(QueueSize::parse("1500B"), Ok(QueueSize::Bytes(1500)));
        for bad in ["0pkt", "0B", "unlimited", "30", "x pkt", "-3pkt"] {
            assert!(QueueSize::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn queue_sizes_round_trip_through_their_string_form() {
        for q in [QueueSize::Packets(30), QueueSize::Bytes(45_000)] {
            assert_eq!(QueueSize::parse(&q.to_string()), Ok(q));
        }
    }

    #[test]
    fn every_marker_kind_round_trips_through_toml() {
        let src = [
            r#"kind = "red"
preset = "A"
limit = "30pkt""#,
            r#"kind = "virtual_queue"
theta = 0.95
buffer = "30pkt""#,
            r#"kind = "load_based"
preset = "B""#,
            r#"kind = "virtual_queue"
theta = 0.9
variant = "real_queue""#,
            r#"kind = "rem"
price_rule = "pc2"
feedback = "explicit""#,
            r#"kind = "sbrm"
b0 = 10
q_max = 100"#,
            r#"kind = "adaptive_red"
min_th = 25
max_th = 75"#,
        ];
        for s in src {
            let c: LinkAlgoConfig = toml::from_str(s).unwrap();
            let back: LinkAlgoConfig = toml::from_str(&toml::to_string(&c).unwrap()).unwrap();
            assert_eq!(c, back, "{s}");
        }
    }
}
