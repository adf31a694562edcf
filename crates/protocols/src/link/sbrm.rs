//! SBRM (Single Bit Resource Marking): each packet leaving the queue is ECN
//! marked with probability `1 - exp(-gamma [b - b0]^+)`, and the "SBRM +
//! PCk" links of Table 5.4.2 that mark `1 - exp(-lambda)` with lambda from
//! REM's PC1 or PC3. Built as a REM link ([`super::rem::Rem`]) with base e
//! and ECN feedback: the price laws are [`super::price_law`]'s.
//!
//! Provenance: Zimmermann (2005), the seed-000 thesis, Sec. 5.4.2 eq. 5.4.1
//! and Sec. 6.4 eq. 6.4.7 (spec `seed-000-zimmermann.md` §2.6, §2.8, §7.3):
//! - \[PAPER\] `m = 1 - exp(-gamma [b - b0]^+)` on the instantaneous queue b in
//!   packets (no average), for each packet *leaving* the queue ("to
//!   decrease feedback time"), independently per packet.
//! - \[PAPER\] gamma by default makes m = 0.99 at the maximum queue:
//!   `gamma = ln(100) / (q_max - b0)`; q_max is the buffer in packets.
//! - [PAPER, E3/E4 Sec. 5.6.4] b0 = 30 packets (with q_max = 300, gamma =
//!   0.017056): the only SBRM experiment that states b0; the default here.
//! - [SPEC §2.8, INFERRED there] "SBRM + PCk" (Table 5.4.2 rows 24-26):
//!   base-e marking `1 - exp(-lambda)` with lambda from PCk; `price_rule =
//!   "pc2"` (the default) is eq. 5.4.1 itself. For PC1 and PC3 gamma is a
//!   step per packet per interval, so its default is REM's 0.001 (E1, Sec.
//!   5.2.2), not the queue rule's; alpha, delta, interval and mean_pkt_size
//!   default as for `rem` (\[Ham01\]'s values are not in the thesis).
//! - INFERRED: b does not count the leaving packet: it is the queue behind
//!   it, without the packet in transmission (`LinkView::backlog_pkts` at
//!   departure), so a packet that leaves b0 packets behind is never marked.
//!   This is the queue an arriving packet would find at that instant, the
//!   same b that REM's PC3 reads.
//! - INFERRED: a packet that is not ECN-capable is left unmarked (a
//!   departing packet cannot be dropped; the thesis's SBRM traffic is all
//!   ECN-capable). `mark_at = "arrival"` marks arriving packets instead, the
//!   engine then dropping those that are not ECN-capable.
//! - INFERRED: with a byte buffer and no `q_max`, q_max is the buffer over
//!   `mean_pkt_size`.

use serde::{Deserialize, Serialize};
use sim_core::{BufferLimit, Bytes, ParamError, SimDuration};

use super::price_law::{PriceLaw, PriceLawParams, PriceRule};
use super::rem::{default_delta, default_interval, default_mean_pkt_size, MarkAt, Rem, Signal};
use super::LinkBuildCtx;

fn default_rule() -> PriceRule {
    PriceRule::Pc2
}
fn default_b0() -> f64 {
    30.0
}
fn default_alpha() -> f64 {
    0.1
}
fn default_mark_at() -> MarkAt {
    MarkAt::Departure
}

/// The periodic rules' default step size (REM's, thesis Sec. 5.2.2).
const PERIODIC_GAMMA: f64 = 0.001;

/// Parameters of an SBRM link as written in a scenario (`kind = "sbrm"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SbrmConfig {
    /// Threshold (target) queue b0, packets (default 30).
    #[serde(default = "default_b0")]
    pub b0: f64,
    /// Scaling factor gamma (default: `ln(100) / (q_max - b0)` under PC2,
    /// 0.001 under PC1 and PC3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gamma: Option<f64>,
    /// The queue at which PC2 marks with probability 0.99, packets (default:
    /// the link's buffer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q_max: Option<f64>,
    /// The price rule: `"pc2"` (default, eq. 5.4.1), `"pc1"` or `"pc3"`.
    #[serde(default = "default_rule")]
    pub price_rule: PriceRule,
    /// PC3's queue weight alpha (default 0.1).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// EWMA weight of the newest input-rate sample, PC1 and PC3 (default 0.9).
    #[serde(default = "default_delta")]
    pub delta: f64,
    /// Price update interval of PC1 and PC3 (default 1 ms).
    #[serde(default = "default_interval")]
    pub interval: SimDuration,
    /// The packet size rates are counted in (default 1000 B).
    #[serde(default = "default_mean_pkt_size")]
    pub mean_pkt_size: Bytes,
    /// When packets are marked (default `"departure"`, the thesis's).
    #[serde(default = "default_mark_at")]
    pub mark_at: MarkAt,
}

impl Default for SbrmConfig {
    fn default() -> Self {
        SbrmConfig {
            b0: default_b0(),
            gamma: None,
            q_max: None,
            price_rule: default_rule(),
            alpha: default_alpha(),
            delta: default_delta(),
            interval: default_interval(),
            mean_pkt_size: default_mean_pkt_size(),
            mark_at: default_mark_at(),
        }
    }
}

/// The default gamma of the queue rule: `ln(100) / (q_max - b0)`, so that
/// `1 - exp(-gamma (q_max - b0)) = 0.99`.
pub fn sbrm_default_gamma(q_max: f64, b0: f64) -> f64 {
    100f64.ln() / (q_max - b0)
}

impl SbrmConfig {
    /// The gamma in force: the key, or its default.
    pub fn resolved_gamma(&self, ctx: &LinkBuildCtx) -> Result<f64, ParamError> {
        if let Some(g) = self.gamma {
            return Ok(g);
        }
        if self.price_rule != PriceRule::Pc2 {
            return Ok(PERIODIC_GAMMA);
        }
        let q_max = match (self.q_max, ctx.limit) {
            (Some(q), _) => q,
            (None, BufferLimit::Packets(n)) => f64::from(n),
            (None, BufferLimit::Bytes(b)) => b as f64 / self.mean_pkt_size.get().max(1) as f64,
            (None, BufferLimit::Unlimited) => {
                return Err(ParamError::new(
                    "q_max",
                    "missing; the link's buffer is unlimited, so give q_max (packets) or gamma",
                ))
            }
        };
        if !(q_max.is_finite() && q_max > self.b0) {
            return Err(ParamError::new(
                "q_max",
                format!(
                    "{q_max} packets must be > b0 ({}) to set the default gamma = ln(100)/(q_max - b0)",
                    self.b0
                ),
            ));
        }
        Ok(sbrm_default_gamma(q_max, self.b0))
    }

    /// Validate and build the link.
    pub fn build(&self, ctx: &LinkBuildCtx) -> Result<Rem, ParamError> {
        let law = PriceLaw::new(
            &PriceLawParams {
                rule: self.price_rule,
                gamma: self.resolved_gamma(ctx)?,
                alpha: self.alpha,
                b0: self.b0,
                delta: self.delta,
                interval: self.interval,
                mean_pkt_size: self.mean_pkt_size,
            },
            ctx.capacity,
        )?;
        // Base e: ln(e) = 1.
        let signal = Signal::Ecn { ln_phi: 1.0 };
        Ok(Rem::with(law, signal, self.mark_at, "sbrm_price"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::LinkAlgoConfig;
    use super::*;
    use sim_core::{
        Ecn, FlowId, LazyRng, LinkAlgorithm, LinkControl, LinkView, Packet, PacketKind, Rate,
        Reason, RouteId, SimTime, StreamKind, Verdict,
    };

    fn ctx(limit: BufferLimit) -> LinkBuildCtx {
        LinkBuildCtx {
            capacity: Rate::from_bps(10_000_000),
            delay: SimDuration::ZERO,
            limit,
        }
    }

    fn cfg(s: &str) -> SbrmConfig {
        match toml::from_str::<LinkAlgoConfig>(s).unwrap() {
            LinkAlgoConfig::Sbrm(c) => c,
            other => panic!("{other:?}"),
        }
    }

    fn view(b: u32) -> LinkView {
        LinkView {
            backlog_pkts: b,
            ..LinkView::idle(SimTime::ZERO, Rate::from_bps(10_000_000))
        }
    }

    fn ect() -> Packet {
        let mut p = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1000, SimTime::ZERO);
        p.ecn = Ecn::Ect;
        p
    }

    #[test]
    fn sbrm_default_gamma_marks_99_percent_at_the_buffer() {
        // E3: capacity 300 packets, b0 = 30: gamma = ln(100)/270 = 0.017056.
        let c = cfg("kind = \"sbrm\"");
        assert_eq!(c, SbrmConfig::default());
        let g = c.resolved_gamma(&ctx(BufferLimit::Packets(300))).unwrap();
        assert!((g - 0.017056).abs() < 1e-6, "{g}");
        let r = c.build(&ctx(BufferLimit::Packets(300))).unwrap();
        assert!((r.mark_prob(0, r.law().price(300)) - 0.99).abs() < 1e-12);
        assert_eq!(r.law().price(30), 0.0);
        assert!(r.stamps_departures());
        assert_eq!(r.header_family(), None);
        // From a byte buffer: 450 000 B / 1000 B = 450 packets.
        let g = c.resolved_gamma(&ctx(BufferLimit::Bytes(450_000))).unwrap();
        assert!((g - 100f64.ln() / 420.0).abs() < 1e-15);
        // q_max overrides the buffer; gamma overrides both.
        let g = cfg("kind = \"sbrm\"\nq_max = 130\nb0 = 30")
            .resolved_gamma(&ctx(BufferLimit::Packets(300)))
            .unwrap();
        assert!((g - 100f64.ln() / 100.0).abs() < 1e-15);
        let g = cfg("kind = \"sbrm\"\ngamma = 0.01")
            .resolved_gamma(&ctx(BufferLimit::Unlimited))
            .unwrap();
        assert_eq!(g, 0.01);
    }

    #[test]
    fn sbrm_marks_leaving_packets_by_the_queue_behind_them() {
        let mut r = cfg("kind = \"sbrm\"\nb0 = 2\ngamma = 1e6")
            .build(&ctx(BufferLimit::Packets(50)))
            .unwrap();
        let mut g = LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0);
        let mut c = LinkControl {
            next_timer: None,
            limit: BufferLimit::Packets(50),
        };
        r.on_start(&view(0), &mut c);
        assert_eq!(c.next_timer, None, "the queue rule needs no timer");
        assert_eq!(
            r.on_arrival(&mut ect(), &view(40), &mut g),
            Verdict::Enqueue
        );
        // b = 2 behind the leaving packet: m = 0.
        let mut p = ect();
        assert_eq!(r.on_departure(&mut p, &view(2), &mut g), None);
        assert_eq!(p.ecn, Ecn::Ect);
        // b = 3: m = 1 - exp(-1e6) = 1.
        assert_eq!(
            r.on_departure(&mut p, &view(3), &mut g),
            Some(Reason::Early)
        );
        assert_eq!(p.ecn, Ecn::Ce);
        assert_eq!(r.probe(), Some(("sbrm_price", 1e6)));
        let mut n = ect();
        n.ecn = Ecn::NotEct;
        assert_eq!(r.on_departure(&mut n, &view(3), &mut g), None);
        assert_eq!(n.ecn, Ecn::NotEct);
    }

    #[test]
    fn sbrm_with_pc1_or_pc3_runs_the_periodic_law_in_base_e() {
        let c = cfg("kind = \"sbrm\"\nprice_rule = \"pc3\"");
        let r = c.build(&ctx(BufferLimit::Unlimited)).unwrap();
        assert!(r.law().is_periodic());
        assert_eq!(
            c.resolved_gamma(&ctx(BufferLimit::Unlimited)).unwrap(),
            0.001
        );
        assert!((r.mark_prob(0, 2.0) - (1.0 - (-2.0f64).exp())).abs() < 1e-15);
    }

    #[test]
    fn sbrm_names_each_bad_parameter() {
        for (src, limit, key) in [
            ("kind = \"sbrm\"", BufferLimit::Unlimited, "q_max"),
            ("kind = \"sbrm\"", BufferLimit::Packets(30), "q_max"),
            (
                "kind = \"sbrm\"\nq_max = 20",
                BufferLimit::Packets(300),
                "q_max",
            ),
            (
                "kind = \"sbrm\"\ngamma = 0",
                BufferLimit::Packets(300),
                "gamma",
            ),
            (
                "kind = \"sbrm\"\nb0 = -3\ngamma = 1",
                BufferLimit::Packets(300),
                "b0",
            ),
            (
                "kind = \"sbrm\"\nprice_rule = \"pc3\"\nalpha = 0",
                BufferLimit::Packets(300),
                "alpha",
            ),
        ] {
            let c: LinkAlgoConfig = toml::from_str(src).unwrap();
            let e = c
                .build(&ctx(limit))
                .err()
                .unwrap_or_else(|| panic!("{src}"));
            assert_eq!(e.key, key, "{src}: {e}");
        }
        for bad in [
            "kind = \"sbrm\"\nphi = 2",
            "kind = \"sbrm\"\nprice_rule = \"red\"",
            "kind = \"sbrm\"\nmark_at = \"later\"",
        ] {
            assert!(toml::from_str::<LinkAlgoConfig>(bad).is_err(), "{bad}");
        }
    }
}
