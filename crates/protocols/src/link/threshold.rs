//! Instantaneous-queue threshold marker (DCTCP-style step marking).
//!
//! While the instantaneous queue exceeds K, an arriving ECN-capable packet is
//! marked CE and a non-ECN-capable one is dropped (the engine turns a mark of a
//! non-ECT packet into a drop with the same reason). K counts packets or bytes.
//! INFERRED: "exceeds" compares the backlog found by the arriving packet,
//! excluding itself, with `> K`.

use serde::{Deserialize, Serialize};
use sim_core::{LazyRng, LinkAlgorithm, LinkView, Packet, ParamError, Reason, Verdict};

use super::LinkBuildCtx;

/// Parameters of the threshold marker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThresholdMarkerConfig {
    /// Threshold K in packets (exactly one of `k_pkts`, `k_bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k_pkts: Option<u32>,
    /// Threshold K in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k_bytes: Option<u64>,
}

#[derive(Copy, Clone, Debug)]
enum Threshold {
    Packets(u32),
    Bytes(u64),
}

/// The marker's state (none beyond its threshold).
#[derive(Copy, Clone, Debug)]
pub struct ThresholdMarker {
    k: Threshold,
}

impl ThresholdMarker {
    /// Validate and build.
    pub fn new(cfg: &ThresholdMarkerConfig, _ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        let k = match (cfg.k_pkts, cfg.k_bytes) {
            (Some(_), Some(_)) => {
                return Err(ParamError::new(
                    "k_pkts",
                    "give exactly one of k_pkts and k_bytes, not both",
                ))
            }
            (None, None) => {
                return Err(ParamError::new(
                    "k_pkts",
                    "missing threshold: give k_pkts (packets, >= 1) or k_bytes (bytes, >= 1)",
                ))
            }
            (Some(0), None) => return Err(ParamError::new("k_pkts", "must be >= 1 packet")),
            (None, Some(0)) => return Err(ParamError::new("k_bytes", "must be >= 1 byte")),
            (Some(k), None) => Threshold::Packets(k),
            (None, Some(k)) => Threshold::Bytes(k),
        };
        Ok(ThresholdMarker { k })
    }
}

impl LinkAlgorithm for ThresholdMarker {
    #[inline]
    fn on_arrival(&mut self, _pkt: &mut Packet, view: &LinkView, _rng: &mut LazyRng) -> Verdict {
        let over = match self.k {
            Threshold::Packets(k) => view.backlog_pkts > k,
            Threshold::Bytes(k) => view.backlog_bytes > k,
        };
        if over {
            Verdict::Mark(Reason::Threshold)
        } else {
            Verdict::Enqueue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::*;

    fn view(pkts: u32, bytes: u64) -> LinkView {
        LinkView {
            backlog_pkts: pkts,
            backlog_bytes: bytes,
            limit: BufferLimit::Packets(100),
            ..LinkView::idle(SimTime::ZERO, Rate::from_bps(1_000_000))
        }
    }

    fn ctx() -> LinkBuildCtx {
        LinkBuildCtx {
            capacity: Rate::from_bps(1_000_000),
            delay: SimDuration::ZERO,
            limit: BufferLimit::Packets(100),
        }
    }

    #[test]
    fn threshold_marks_only_above_k_packets() {
        let cfg = ThresholdMarkerConfig {
            k_pkts: Some(5),
            k_bytes: None,
        };
        let mut m = ThresholdMarker::new(&cfg, &ctx()).unwrap();
        let mut pkt = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1500, SimTime::ZERO);
        let mut rng = LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0);
        assert_eq!(
            m.on_arrival(&mut pkt, &view(5, 7500), &mut rng),
            Verdict::Enqueue
        );
        assert_eq!(
            m.on_arrival(&mut pkt, &view(6, 9000), &mut rng),
            Verdict::Mark(Reason::Threshold)
        );
    }

    #[test]
    fn threshold_in_bytes_compares_byte_backlog() {
        let cfg = ThresholdMarkerConfig {
            k_pkts: None,
            k_bytes: Some(3000),
        };
        let mut m = ThresholdMarker::new(&cfg, &ctx()).unwrap();
        let mut pkt = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1500, SimTime::ZERO);
        let mut rng = LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0);
        assert_eq!(
            m.on_arrival(&mut pkt, &view(2, 3000), &mut rng),
            Verdict::Enqueue
        );
        assert_eq!(
            m.on_arrival(&mut pkt, &view(3, 3001), &mut rng),
            Verdict::Mark(Reason::Threshold)
        );
    }

    #[test]
    fn threshold_rejects_zero_missing_or_double_k() {
        let bad = [
            (Some(0), None),
            (None, Some(0)),
            (None, None),
            (Some(3), Some(3000)),
        ];
        for (k_pkts, k_bytes) in bad {
            let cfg = ThresholdMarkerConfig { k_pkts, k_bytes };
            assert!(ThresholdMarker::new(&cfg, &ctx()).is_err(), "{cfg:?}");
        }
    }
}
