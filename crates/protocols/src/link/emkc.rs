//! The MKC / EMKC router of seed 002 (Zhang, ch. V §4, eqs. 121-122 and
//! 129): a byte counter per output queue, a price computed once per
//! averaging interval Delta from the interval's arrival rate, and the price
//! of the most congested router written into every passing packet. The same
//! router, with a virtual capacity in place of `C`, is EMKC-AVQ's (ch. VI
//! §3.3, [`super::avq`]), and with the prices summed along the path it is the
//! packet-level router of classic Kelly control ([`super::kelly`]).
//!
//! Provenance (spec `seed-002-zhang.md` §2.4.2, §2.5, §7 item 3):
//! - \[PAPER\] per arriving packet `S += s`, dropped packets included; at the
//!   end of each interval `X = S / Delta`, `p = (X - C)/X` (negative allowed,
//!   range (-inf, 1)), `seq += 1`, `S = 0`.
//! - \[PAPER\] the price computed in interval k is stamped on packets during
//!   interval k+1; a router overwrites the header's `(id, p, seq, Delta)`
//!   only if its own `p` is larger (max along the path: the header ends up
//!   with the most congested link's feedback).
//! - [PAPER, EMKC-AVQ, eq. 130] `C~ <- min(C~ + tau Delta (gamma C - X) / D_max,
//!   gamma C)` at the end of each interval, and `p = (X - C~)/X`.
//! - [INFERRED, UNSPECIFIED S = 0] an interval in which nothing arrived
//!   gives no price: until an interval with traffic ends, the router stamps
//!   nothing (neither `p` nor `id`, `seq`, `Delta`; its `seq` does not
//!   advance, since it computed no new `p`) and leaves the header to the
//!   other routers (a price of `-inf`, the spec's suggestion, would be the
//!   same under the max rule, but a sender that saw it alone would have no
//!   finite price to apply). Until issue 55 the router went on stamping
//!   the price and `seq` of its last interval with traffic, a price of
//!   traffic long gone, which a sender took for fresh if it had not seen
//!   that `seq`. \[INFERRED\] Kelly's summing router ([`super::kelly`]) keeps
//!   that rule: its sender needs a price on every packet, and with its 10-ms
//!   interval against packets 80 ms apart at the 100-kb/s start most
//!   intervals are empty (stamping nothing, E5.2's flow stayed at 100 kb/s
//!   for the whole run, measured in issue 55).
//! - \[INFERRED\] the router's identity is its link id + 1 (0 means "no
//!   router yet" in the header); every arriving packet's bytes count in S
//!   (the router cannot tell an ACK from data: reverse-direction ACKs that
//!   share the queue are load, as they are for XCP and RCP; T4's crossing
//!   ACK paths measured 8,400 drops in 150 s when they were left out), but
//!   only data packets are stamped and carry a carried RTT; an ACK carries
//!   its data packet's echoed header untouched.
//! - [PAPER §4.2] a packet is stamped as it arrives ("for each packet
//!   arriving within the current interval Delta, the router inserts ... the
//!   feedback computed during the previous interval"), where its bytes
//!   count in S, so the first packet stamped with a new price is the first
//!   of the new interval and the proper reference's byte span (eq. 124) is
//!   exactly the interval's arrivals. Until issue 6's session 17 it was
//!   stamped on departure, which shifted that span by the queueing delay
//!   and made one flow oscillate at beta = 1.6 (zhang README, suspected
//!   issue 15).
//! - The rate is in bytes/s inside the router; the header's `p` is
//!   unitless and `delta` is in seconds.

use serde::{Deserialize, Serialize};
use sim_core::{
    CcHeader, HeaderFamily, LazyRng, LinkAlgorithm, LinkControl, LinkView, Packet, PacketKind,
    ParamError, SimDuration, Verdict,
};

use super::avq::Avq;
use super::interval::IntervalClock;
use super::LinkBuildCtx;

fn default_interval() -> SimDuration {
    SimDuration::from_millis(100)
}

/// Parameters of the EMKC router (`algo = { kind = "emkc" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmkcConfig {
    /// The averaging interval Delta (default 100 ms, the dissertation's
    /// value in ch. V §5 and ch. VI).
    #[serde(default = "default_interval")]
    pub interval: SimDuration,
}

impl Default for EmkcConfig {
    fn default() -> Self {
        EmkcConfig {
            interval: default_interval(),
        }
    }
}

/// How a router combines its price with the header's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PathPrice {
    /// Keep the largest price (MKC/EMKC: the most congested router).
    Max,
    /// Add the prices (classic Kelly control, eq. 1).
    Sum,
}

/// The per-interval price router of the Kelly / MKC family.
#[derive(Clone, Debug)]
pub struct Emkc {
    /// Capacity C (or gamma C under AVQ), bytes/s.
    c: f64,
    /// Interval Delta, s.
    interval: f64,
    combine: PathPrice,
    avq: Option<Avq>,
    /// Bytes that arrived in the current interval (S).
    bytes: f64,
    /// Largest RTT carried in the current interval, s (AVQ's D_max).
    rtt_max: f64,
    /// Price of the last interval (`None`: none yet, or, under the max
    /// rule, the last interval had no traffic).
    price: Option<f64>,
    /// Arrival rate of the last interval, bytes/s.
    x: f64,
    seq: u32,
    clock: IntervalClock,
}

impl Emkc {
    /// Validate and build the EMKC router.
    pub fn new(cfg: &EmkcConfig, ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        Self::with(cfg.interval, ctx, PathPrice::Max, None)
    }

    /// The router with interval `interval`, path combination `combine` and
    /// an optional AVQ virtual capacity.
    pub(crate) fn with(
        interval: SimDuration,
        ctx: &LinkBuildCtx,
        combine: PathPrice,
        avq: Option<Avq>,
    ) -> Result<Self, ParamError> {
        if interval == SimDuration::ZERO {
            return Err(ParamError::new("interval", "must be > 0"));
        }
        let c = ctx.capacity.bps_f64() / 8.0;
        if c <= 0.0 {
            return Err(ParamError::new("", "the link's capacity must be > 0"));
        }
        Ok(Emkc {
            c,
            interval: interval.as_secs_f64(),
            combine,
            avq,
            bytes: 0.0,
            rtt_max: 0.0,
            price: None,
            x: 0.0,
            seq: 0,
            clock: IntervalClock::default(),
        })
    }

    /// The price in force (`None` before the first interval with traffic
    /// and, under the max rule, after an interval without).
    pub fn price(&self) -> Option<f64> {
        self.price
    }

    /// The arrival rate X of the last interval, bytes/s.
    pub fn arrival_rate(&self) -> f64 {
        self.x
    }

    /// The capacity the price compares against: C, or AVQ's virtual C~, bytes/s.
    pub fn target(&self) -> f64 {
        self.avq.as_ref().map_or(self.c, Avq::capacity)
    }

    /// The feedback sequence number (intervals with a price so far).
    pub fn seq(&self) -> u32 {
        self.seq
    }

    /// End the interval that ran `t` seconds.
    fn tick(&mut self, t: f64) {
        if t <= 0.0 {
            return;
        }
        let x = self.bytes / t;
        if let Some(avq) = &mut self.avq {
            avq.update(t, x, self.rtt_max);
        }
        self.x = x;
        if self.bytes > 0.0 {
            let c = self.target();
            self.price = Some((x - c) / x);
            self.seq = self.seq.wrapping_add(1);
        } else if self.combine == PathPrice::Max {
            self.price = None;
        }
        self.bytes = 0.0;
        self.rtt_max = 0.0;
    }

    /// Write this router's price into data packet `pkt` if it is the
    /// path's largest so far (or add it, for Kelly).
    fn stamp(&self, pkt: &mut Packet, view: &LinkView) {
        let (PacketKind::Data, CcHeader::Mkc(h), Some(p)) = (pkt.kind, &mut pkt.cc, self.price)
        else {
            return;
        };
        let id = view.id.0 + 1;
        match self.combine {
            PathPrice::Max => {
                if p > h.p {
                    h.p = p;
                    h.id = id;
                    h.seq = self.seq;
                    h.delta = self.interval as f32;
                }
            }
            PathPrice::Sum => {
                h.p += p;
                // The sum has no single source: the header names the last
                // router and the interval count of the first that stamped.
                if h.id == 0 {
                    h.seq = self.seq;
                    h.delta = self.interval as f32;
                }
                h.id = id;
            }
        }
    }
}

impl LinkAlgorithm for Emkc {
    /// Derived constants from the capacity at build (issue 59: a capacity
    /// change on its link is rejected when the scenario is built).
    fn follows_capacity(&self) -> bool {
        false
    }

    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, _rng: &mut LazyRng) -> Verdict {
        self.bytes += f64::from(pkt.size);
        if pkt.kind == PacketKind::Data {
            if let CcHeader::Mkc(h) = &pkt.cc {
                self.rtt_max = self.rtt_max.max(f64::from(h.rtt));
            }
            self.stamp(pkt, view);
        }
        Verdict::Enqueue
    }

    fn on_start(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.clock.begin(view.now, self.interval, ctl);
    }

    fn on_timer(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.tick(self.clock.elapsed(view.now));
        self.clock.begin(view.now, self.interval, ctl);
    }

    fn header_family(&self) -> Option<HeaderFamily> {
        Some(HeaderFamily::Mkc)
    }

    fn probe(&self) -> Option<(&'static str, f64)> {
        Some(("mkc_price", self.price.unwrap_or(f64::NAN)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::interval::test_ctx;
    use sim_core::{BufferLimit, FlowId, LinkId, MkcHeader, Rate, RouteId, SimTime};

    const C_BPS: u64 = 10_000_000;

    pub(crate) fn mkc_data(size: u32, p: f64) -> Packet {
        let mut pkt = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, size, SimTime::ZERO);
        pkt.cc = CcHeader::Mkc(MkcHeader {
            p,
            usr: 0.0,
            id: 0,
            seq: 0,
            delta: 0.0,
            rtt: 0.0,
        });
        pkt
    }

    fn view(at: f64, link: u32) -> LinkView {
        LinkView {
            id: LinkId(link),
            ..LinkView::idle(SimTime::from_secs_f64(at), Rate::from_bps(C_BPS))
        }
    }

    fn run_interval(r: &mut Emkc, bytes: u32, end: f64) {
        let mut rng = LazyRng::new(1, 0, sim_core::StreamKind::LinkAlgorithm, 0);
        for _ in 0..bytes / 1000 {
            r.on_arrival(
                &mut mkc_data(1000, f64::NEG_INFINITY),
                &view(end, 0),
                &mut rng,
            );
        }
        let mut ctl = LinkControl {
            next_timer: None,
            limit: BufferLimit::Unlimited,
        };
        r.on_timer(&view(end, 0), &mut ctl);
        assert!(ctl.next_timer.is_some());
    }

    #[test]
    fn the_price_is_excess_arrival_over_arrival_and_may_be_negative() {
        // eq. 121-122: X = S/Delta, p = (X - C)/X. 1.5 MB in 1 s on 1.25 MB/s: p = 1/6.
        let mut r = Emkc::new(
            &EmkcConfig {
                interval: SimDuration::from_secs(1),
            },
            &test_ctx(C_BPS),
        )
        .unwrap();
        assert_eq!(r.price(), None);
        run_interval(&mut r, 1_500_000, 1.0);
        let c = C_BPS as f64 / 8.0;
        assert!((r.price().unwrap() - (1.5e6 - c) / 1.5e6).abs() < 1e-12);
        assert_eq!(r.seq(), 1);
        // Under-used: 0.5 MB/s gives p = (0.5 - 1.25)/0.5 = -1.5.
        run_interval(&mut r, 500_000, 2.0);
        assert!((r.price().unwrap() - (5e5 - c) / 5e5).abs() < 1e-12);
        assert_eq!(r.seq(), 2);
    }

    #[test]
    fn after_an_interval_without_arrivals_nothing_is_stamped_and_seq_waits() {
        // §2.4.2: seq counts the prices computed; S = 0 computes none, and
        // the old price is not stamped as if it were new.
        let mut r = Emkc::new(&EmkcConfig::default(), &test_ctx(C_BPS)).unwrap();
        run_interval(&mut r, 250_000, 0.1); // p = 0.5, seq 1
        run_interval(&mut r, 0, 0.2);
        assert_eq!((r.price(), r.seq()), (None, 1));
        let mut rng = LazyRng::new(1, 0, sim_core::StreamKind::LinkAlgorithm, 0);
        let mut p = mkc_data(1000, f64::NEG_INFINITY);
        r.on_arrival(&mut p, &view(0.25, 2), &mut rng);
        assert_eq!(p, mkc_data(1000, f64::NEG_INFINITY));
        // The interval that packet opened has traffic: the next price is seq 2.
        run_interval(&mut r, 249_000, 0.3);
        assert_eq!(r.seq(), 2);
        assert!((r.price().unwrap() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_router_overwrites_the_header_only_with_a_larger_price() {
        let mut r = Emkc::new(&EmkcConfig::default(), &test_ctx(C_BPS)).unwrap();
        // No price yet: the header is untouched.
        let mut p = mkc_data(1000, f64::NEG_INFINITY);
        r.stamp(&mut p, &view(0.0, 4));
        assert_eq!(p, mkc_data(1000, f64::NEG_INFINITY));
        run_interval(&mut r, 250_000, 0.1); // 2.5 MB/s on 1.25: p = 0.5
        let mut p = mkc_data(1000, f64::NEG_INFINITY);
        r.stamp(&mut p, &view(0.1, 4));
        let CcHeader::Mkc(h) = p.cc else { panic!() };
        assert_eq!((h.p, h.id, h.seq), (0.5, 5, 1));
        assert!((f64::from(h.delta) - 0.1).abs() < 1e-7);
        // A more congested upstream router keeps its stamp.
        let mut p = mkc_data(1000, 0.7);
        r.stamp(&mut p, &view(0.1, 4));
        let CcHeader::Mkc(h) = p.cc else { panic!() };
        assert_eq!((h.p, h.id), (0.7, 0));
    }

    #[test]
    fn an_arriving_data_packet_is_stamped_with_the_last_interval_price() {
        // §4.2: the price computed in the last interval goes into packets
        // as they arrive (the proper reference's byte span depends on it).
        let mut r = Emkc::new(&EmkcConfig::default(), &test_ctx(C_BPS)).unwrap();
        run_interval(&mut r, 250_000, 0.1); // p = 0.5
        let mut rng = LazyRng::new(1, 0, sim_core::StreamKind::LinkAlgorithm, 0);
        let mut p = mkc_data(1000, f64::NEG_INFINITY);
        assert_eq!(
            r.on_arrival(&mut p, &view(0.15, 2), &mut rng),
            Verdict::Enqueue
        );
        let CcHeader::Mkc(h) = p.cc else { panic!() };
        assert_eq!((h.p, h.id, h.seq), (0.5, 3, 1));
        // An ACK is load but carries its data packet's echo untouched.
        let mut ack = mkc_data(40, f64::NEG_INFINITY);
        ack.kind = PacketKind::Ack;
        r.on_arrival(&mut ack, &view(0.15, 2), &mut rng);
        let CcHeader::Mkc(h) = ack.cc else { panic!() };
        assert_eq!(h.id, 0);
    }

    #[test]
    fn kelly_routers_add_their_prices() {
        let mut r = Emkc::with(
            SimDuration::from_millis(100),
            &test_ctx(C_BPS),
            PathPrice::Sum,
            None,
        )
        .unwrap();
        run_interval(&mut r, 250_000, 0.1);
        let mut p = mkc_data(1000, 0.25);
        r.stamp(&mut p, &view(0.1, 0));
        let CcHeader::Mkc(h) = p.cc else { panic!() };
        assert_eq!(h.p, 0.75);
        // An empty interval keeps the last price for the sum.
        run_interval(&mut r, 0, 0.2);
        assert_eq!((r.price(), r.seq()), (Some(0.5), 1));
    }
}
