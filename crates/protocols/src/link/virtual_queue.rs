//! Virtual-queue marking (Gibbens-Kelly style), busy-period variant.
//!
//! Provenance:
//! - \[PAPER\] seed 001 (WTP/MulTCP), Sec. 4.2; spec `seed-001-wtp-multcp.md` §2.8 and
//!   §7.5: a virtual buffer of size theta*B served at rate theta*C, where C is the
//!   link capacity and B the link's buffer or a value for a target delay. Every
//!   packet arriving from a virtual overflow (the overflowing packet included)
//!   until the virtual queue first becomes empty is marked; overflowing packets
//!   are not added to the virtual queue. theta = 0.95 in every stated experiment.
//! - [PAPER, footnote 2] The variant of the paper's Ref. \[12\], marking only the
//!   packet that overflows the virtual queue (`variant = "overflow"`).
//! - INFERRED (spec §2.8 pseudocode): a fluid virtual queue in bytes, drained
//!   continuously between arrivals and updated at the arrival instants of the
//!   real queue; "first becomes empty" is tested at the next arrival as
//!   `drained >= vq`, so an arrival at the exact emptying instant is not marked.
//! - \[PAPER\] seed 000 (Zimmermann 2005), Sec. 5.1.1 (VQM, after Gibbens &
//!   Kelly 1999); spec `seed-000-zimmermann.md` §2.5: "if this virtual queue
//!   exceeds its capacity, all packets in the real queue are marked until the
//!   virtual queue becomes empty", with f_scale = virtual/actual service rate
//!   = virtual/actual queue capacity (theta here; 0.9 with q_max = 300
//!   packets, the link's buffer, in the thesis). `variant = "real_queue"`:
//!   from an overflow until the virtual queue empties, every packet that is
//!   in the real queue at some instant of that period (those waiting at the
//!   overflow, and every arrival until the period ends) is marked as it
//!   leaves the queue. INFERRED: on departure, since a packet already queued
//!   at the overflow can only be marked then (the thesis does not say; the
//!   spec flags it unspecified); the packet in transmission at the overflow
//!   has left the queue and is not marked; a departing packet that is not
//!   ECN-capable cannot be dropped and is left unmarked. Which packets to mark
//!   is kept as a byte position in the FIFO (cumulative bytes enqueued up to
//!   the last packet of the period), so no per-packet state is stored; an
//!   arrival the buffer will tail-drop is not counted in it.
//! - \[PAPER\] seed 000, Table 5.4.2 row 23, "Direct Window Update, VQM, n
//!   Bit", which the thesis does not explain. INFERRED (this file's
//!   reading, `feedback = "explicit"`): Sec. 5.1.1 says VQM's single bit
//!   makes the path price the *maximum* of the links' 0/1 prices (eq.
//!   5.1.1) instead of their sum (the additive path price, eq. 3.2.15);
//!   with n bits the header can carry the sum, so a link adds its price,
//!   1 for a packet it would mark and 0 otherwise, to the EPF price header
//!   (the count of marking links on the path, which n bits carry for up to
//!   2^n - 1 links). No ECN mark is set then and none is counted, as for
//!   REM's `feedback = "explicit"`.
//! - INFERRED: B given in packets converts to bytes with `pkt_size` (default
//!   1000 B, the spec's recommended packet size), so B = 30 pkt, theta = 0.95 gives
//!   28 500 B: 28 whole 1000-B packets fit, as with the spec's packet units.
//!   Without `buffer`, B is the link's buffer limit.

use serde::{Deserialize, Serialize};
use sim_core::{
    BufferLimit, Bytes, CcHeader, Ecn, HeaderFamily, LazyRng, LinkAlgorithm, LinkView, Packet,
    PacketKind, ParamError, Reason, SimTime, Verdict, PS_PER_SEC,
};

use super::{LinkBuildCtx, QueueSize};

/// Which packets a virtual-queue overflow marks.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VqVariant {
    /// Every packet from a virtual overflow until the virtual queue empties (the paper's).
    #[default]
    BusyPeriod,
    /// Only packets that overflow the virtual queue (the paper's Ref. \[12\]).
    Overflow,
    /// Every packet in the real queue from a virtual overflow until the
    /// virtual queue empties, marked as it leaves (seed 000's VQM).
    RealQueue,
}

/// How a virtual-queue mark reaches the source.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VqFeedback {
    /// The ECN CE codepoint (one bit; the path's marks OR-combine).
    #[default]
    Ecn,
    /// Add the link's price, 1 for a marked packet, to the price header
    /// (the path's marks add up: Table 5.4.2's "VQM n Bit").
    Explicit,
}

fn default_theta() -> f64 {
    // Seed 001, Figs. 3-9 and Table 2 [PAPER].
    0.95
}

fn default_pkt_size() -> Bytes {
    // Spec §7.13: 1000 B recommended packet size.
    Bytes::new(1000)
}

/// Parameters of the virtual-queue marker as written in a scenario (`kind = "virtual_queue"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VirtualQueueConfig {
    /// Fraction of capacity and buffer given to the virtual queue, in (0, 1] (default 0.95).
    #[serde(default = "default_theta")]
    pub theta: f64,
    /// B, the buffer the virtual one is scaled from (default: the link's buffer limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<QueueSize>,
    /// Which packets are marked (default `"busy_period"`).
    #[serde(default)]
    pub variant: VqVariant,
    /// Bytes per packet when B is in packets (default 1000 B).
    #[serde(default = "default_pkt_size")]
    pub pkt_size: Bytes,
    /// `"ecn"` (default: CE marks) or `"explicit"` (add 1 per mark to the
    /// price header).
    #[serde(default)]
    pub feedback: VqFeedback,
}

impl Default for VirtualQueueConfig {
    fn default() -> Self {
        VirtualQueueConfig {
            theta: default_theta(),
            buffer: None,
            variant: VqVariant::BusyPeriod,
            pkt_size: default_pkt_size(),
            feedback: VqFeedback::Ecn,
        }
    }
}

/// The virtual-queue marker: a fluid queue of `limit` bytes drained at theta*C.
#[derive(Clone, Debug)]
pub struct VirtualQueue {
    /// Virtual capacity theta*C, bits per second.
    vrate_bps: f64,
    /// Virtual buffer theta*B, bytes.
    limit: f64,
    variant: VqVariant,
    feedback: VqFeedback,
    /// Virtual backlog at `t_last`, bytes.
    vq: f64,
    t_last: SimTime,
    /// In a marking (busy) period.
    marking: bool,
    /// `RealQueue`: a departing packet is marked if the FIFO's cumulative
    /// enqueued bytes up to and including it are at most this.
    mark_through: u64,
}

impl VirtualQueue {
    /// Validate and build.
    pub fn new(cfg: &VirtualQueueConfig, ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        let theta = cfg.theta;
        if !(theta.is_finite() && theta > 0.0 && theta <= 1.0) {
            return Err(ParamError::new(
                "theta",
                format!("{theta} must be in (0, 1]"),
            ));
        }
        let pkt_size = cfg.pkt_size.get();
        if pkt_size == 0 {
            return Err(ParamError::new("pkt_size", "must be >= 1 byte"));
        }
        let b =
            match (cfg.buffer, ctx.limit) {
                (Some(q), _) => q.as_bytes(pkt_size),
                (None, BufferLimit::Packets(n)) => QueueSize::Packets(n).as_bytes(pkt_size),
                (None, BufferLimit::Bytes(n)) => n as f64,
                (None, BufferLimit::Unlimited) => return Err(ParamError::new(
                    "buffer",
                    "missing; the link's buffer is unlimited, so give B (e.g. buffer = \"30pkt\")",
                )),
            };
        Ok(VirtualQueue {
            vrate_bps: theta * ctx.capacity.bps_f64(),
            limit: theta * b,
            variant: cfg.variant,
            feedback: cfg.feedback,
            vq: 0.0,
            t_last: SimTime::ZERO,
            marking: false,
            mark_through: 0,
        })
    }

    /// The virtual buffer theta*B, bytes.
    pub fn limit_bytes(&self) -> f64 {
        self.limit
    }

    /// Bytes the virtual queue serves in `ps` picoseconds at theta*C.
    #[inline]
    fn drained(&self, ps: u64) -> f64 {
        ps as f64 * self.vrate_bps / (8.0 * PS_PER_SEC as f64)
    }

    /// Whether the virtual queue has emptied between the last arrival and `now`
    /// (an empty queue counts as emptied).
    #[inline]
    fn emptied_by(&self, now: SimTime) -> bool {
        self.drained(now.as_ps().saturating_sub(self.t_last.as_ps())) >= self.vq
    }

    /// The virtual backlog at `now` (not before the last arrival), bytes; never negative.
    pub fn backlog_at(&self, now: SimTime) -> f64 {
        if self.emptied_by(now) {
            0.0
        } else {
            self.vq - self.drained(now.as_ps() - self.t_last.as_ps())
        }
    }

    /// Whether an arrival at `now` would fall in a marking period begun earlier
    /// (a period ends when the virtual queue first becomes empty).
    pub fn in_marking_period_at(&self, now: SimTime) -> bool {
        self.marking && !self.emptied_by(now)
    }
}

/// `feedback = "explicit"`: add the link's price of a marked packet, 1, to
/// a data packet's price header.
#[inline]
fn add_unit_price(pkt: &mut Packet) {
    if let (PacketKind::Data, CcHeader::Price(h)) = (pkt.kind, &mut pkt.cc) {
        h.price += 1.0;
    }
}

impl LinkAlgorithm for VirtualQueue {
    /// Derived constants from the capacity at build (issue 59: a capacity
    /// change on its link is rejected when the scenario is built).
    fn follows_capacity(&self) -> bool {
        false
    }

    #[inline]
    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, _rng: &mut LazyRng) -> Verdict {
        let now = view.now;
        if self.emptied_by(now) {
            self.vq = 0.0;
            self.marking = false;
        } else {
            self.vq -= self.drained(now.as_ps() - self.t_last.as_ps());
        }
        self.t_last = now;
        let s = f64::from(pkt.size);
        let overflow = self.vq + s > self.limit;
        if overflow {
            // Virtual loss: the packet is not added to the virtual queue.
            self.marking = true;
        } else {
            self.vq += s;
        }
        let mark = match self.variant {
            VqVariant::BusyPeriod => self.marking,
            VqVariant::Overflow => overflow,
            VqVariant::RealQueue => {
                if self.marking {
                    // Everything queued, and this packet unless the buffer
                    // drops it, is to be marked as it leaves.
                    let tail = view.departed_bytes + view.backlog_bytes;
                    let dropped =
                        view.limit
                            .would_overflow(view.backlog_pkts, view.backlog_bytes, pkt.size);
                    self.mark_through = if dropped {
                        tail
                    } else {
                        tail + u64::from(pkt.size)
                    };
                }
                false
            }
        };
        match (mark, self.feedback) {
            (false, _) => Verdict::Enqueue,
            (true, VqFeedback::Ecn) => Verdict::Mark(Reason::Virtual),
            (true, VqFeedback::Explicit) => {
                add_unit_price(pkt);
                Verdict::Enqueue
            }
        }
    }

    /// `RealQueue`: mark the leaving packet if it was in the real queue
    /// during a marking period (`departed_bytes` counts it by now).
    #[inline]
    fn on_departure(
        &mut self,
        pkt: &mut Packet,
        view: &LinkView,
        _rng: &mut LazyRng,
    ) -> Option<Reason> {
        if view.departed_bytes > self.mark_through {
            return None;
        }
        match self.feedback {
            VqFeedback::Ecn if pkt.ecn.is_capable() => {
                pkt.ecn = Ecn::Ce;
                Some(Reason::Virtual)
            }
            VqFeedback::Ecn => None,
            VqFeedback::Explicit => {
                add_unit_price(pkt);
                None
            }
        }
    }

    fn stamps_departures(&self) -> bool {
        self.variant == VqVariant::RealQueue
    }

    fn header_family(&self) -> Option<HeaderFamily> {
        (self.feedback == VqFeedback::Explicit).then_some(HeaderFamily::Price)
    }

    /// The virtual backlog as of the last arrival, bytes.
    fn probe(&self) -> Option<(&'static str, f64)> {
        Some(("vq_backlog_bytes", self.vq))
    }
}

#[cfg(test)]
mod tests {
    use super::super::LinkAlgoConfig;
    use super::*;
    use sim_core::*;

    /// theta = 0.5 of 16 Mb/s drains exactly 1000 B per ms; B = 10 pkt of 1000 B
    /// gives a 5000-B virtual buffer.
    fn ctx(bps: u64, limit: BufferLimit) -> LinkBuildCtx {
        LinkBuildCtx {
            capacity: Rate::from_bps(bps),
            delay: SimDuration::ZERO,
            limit,
        }
    }

    fn small(variant: VqVariant) -> VirtualQueue {
        small_with(variant, VqFeedback::Ecn)
    }

    fn small_with(variant: VqVariant, feedback: VqFeedback) -> VirtualQueue {
        let cfg = VirtualQueueConfig {
            theta: 0.5,
            buffer: Some(QueueSize::Packets(10)),
            variant,
            pkt_size: Bytes::new(1000),
            feedback,
        };
        VirtualQueue::new(&cfg, &ctx(16_000_000, BufferLimit::Unlimited)).unwrap()
    }

    fn arrive(vq: &mut VirtualQueue, now: SimTime, size: u32) -> Verdict {
        let view = LinkView::idle(now, Rate::from_bps(16_000_000));
        let mut pkt = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, size, SimTime::ZERO);
        vq.on_arrival(
            &mut pkt,
            &view,
            &mut LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0),
        )
    }

    const MARK: Verdict = Verdict::Mark(Reason::Virtual);

    fn ms(x: u64) -> SimTime {
        SimTime::from_ps(x * 1_000_000_000)
    }

    #[test]
    fn vq_drains_at_theta_times_capacity() {
        // theta C = 0.5 * 16e6 b/s = 1e6 B/s: 1000 B per ms.
        let mut q = small(VqVariant::BusyPeriod);
        assert_eq!(q.limit_bytes(), 0.5 * 10.0 * 1000.0);
        for _ in 0..3 {
            arrive(&mut q, SimTime::ZERO, 1000);
        }
        assert_eq!(q.backlog_at(SimTime::ZERO), 3000.0);
        assert_eq!(q.backlog_at(ms(1)), 3000.0 - 1000.0);
        assert_eq!(
            q.backlog_at(SimTime::from_ps(2_500_000_000)),
            3000.0 - 2500.0
        );
        assert_eq!(q.backlog_at(ms(3)), 0.0);
        assert_eq!(q.backlog_at(ms(10)), 0.0);
        assert_eq!(q.probe(), Some(("vq_backlog_bytes", 3000.0)));
    }

    #[test]
    fn vq_marks_from_the_overflow_until_the_virtual_queue_first_empties() {
        let mut q = small(VqVariant::BusyPeriod);
        // Five 1000-B packets fill the 5000-B virtual buffer; the sixth overflows.
        for _ in 0..5 {
            assert_eq!(arrive(&mut q, SimTime::ZERO, 1000), Verdict::Enqueue);
        }
        assert_eq!(arrive(&mut q, SimTime::ZERO, 1000), MARK);
        assert_eq!(q.vq, 5000.0, "the overflowing packet is not added");
        // 1 ms later 4000 B remain: marked though it fits (busy period), vq = 5000.
        assert_eq!(arrive(&mut q, ms(1), 1000), MARK);
        assert_eq!(q.vq, 5000.0);
        // At 5 ms: 5000 - 4000 = 1000 B left, still marking; vq = 2000.
        assert_eq!(arrive(&mut q, ms(5), 1000), MARK);
        assert_eq!(q.vq, 2000.0);
        // 1 ps before 7 ms, 1e-6 B remain: still marking; vq = 1e-6 + 1 B, which
        // drains in about 1 us.
        let t = SimTime::from_ps(ms(7).as_ps() - 1);
        assert!(q.in_marking_period_at(t));
        assert_eq!(arrive(&mut q, t, 1), MARK);
        assert!(q.in_marking_period_at(SimTime::from_ps(ms(7).as_ps() + 900_000)));
        // Once the virtual queue has emptied the period is over.
        let later = SimTime::from_ps(ms(7).as_ps() + 2_000_000);
        assert!(!q.in_marking_period_at(later));
        assert_eq!(arrive(&mut q, later, 1000), Verdict::Enqueue);
        assert_eq!(q.vq, 1000.0);
    }

    #[test]
    fn vq_arrival_at_the_exact_emptying_instant_is_not_marked() {
        let mut q = small(VqVariant::BusyPeriod);
        for _ in 0..6 {
            arrive(&mut q, SimTime::ZERO, 1000);
        }
        assert!(q.in_marking_period_at(SimTime::from_ps(ms(5).as_ps() - 1)));
        // 5000 B drain in exactly 5 ms: drained >= vq ends the period.
        assert_eq!(arrive(&mut q, ms(5), 1000), Verdict::Enqueue);
        assert_eq!(q.vq, 1000.0);
    }

    #[test]
    fn vq_overflow_variant_marks_only_overflowing_packets() {
        let mut q = small(VqVariant::Overflow);
        for _ in 0..5 {
            assert_eq!(arrive(&mut q, SimTime::ZERO, 1000), Verdict::Enqueue);
        }
        assert_eq!(arrive(&mut q, SimTime::ZERO, 1000), MARK);
        // 1 ms later 4000 + 1000 <= 5000: fits, not marked.
        assert_eq!(arrive(&mut q, ms(1), 1000), Verdict::Enqueue);
        assert_eq!(arrive(&mut q, ms(1), 1), MARK);
        assert_eq!(q.vq, 5000.0);
    }

    /// An arrival of a 1000-B packet at `t` that finds `queued` bytes
    /// waiting after `departed` bytes have left the queue.
    fn arrive_real(
        vq: &mut VirtualQueue,
        t: SimTime,
        departed: u64,
        queued: u64,
        limit: BufferLimit,
    ) -> Verdict {
        let view = LinkView {
            departed_bytes: departed,
            backlog_bytes: queued,
            backlog_pkts: (queued / 1000) as u32,
            limit,
            ..LinkView::idle(t, Rate::from_bps(16_000_000))
        };
        let mut pkt = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1000, SimTime::ZERO);
        vq.on_arrival(
            &mut pkt,
            &view,
            &mut LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0),
        )
    }

    /// The mark a 1000-B packet gets as it leaves, `departed` bytes having
    /// left by then (itself included).
    fn depart(vq: &mut VirtualQueue, departed: u64, ecn: Ecn) -> Option<Reason> {
        let view = LinkView {
            departed_bytes: departed,
            ..LinkView::idle(SimTime::ZERO, Rate::from_bps(16_000_000))
        };
        let mut pkt = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1000, SimTime::ZERO);
        pkt.ecn = ecn;
        let r = vq.on_departure(
            &mut pkt,
            &view,
            &mut LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0),
        );
        assert_eq!(pkt.ecn == Ecn::Ce, r.is_some());
        r
    }

    #[test]
    fn vq_real_queue_marks_every_packet_queued_during_a_marking_period_as_it_leaves() {
        let mut q = small(VqVariant::RealQueue);
        assert!(q.stamps_departures());
        assert!(!small(VqVariant::BusyPeriod).stamps_departures());
        let lim = BufferLimit::Unlimited;
        // Five packets fill the 5000-B virtual buffer; none is marked.
        for k in 0..5 {
            assert_eq!(
                arrive_real(&mut q, SimTime::ZERO, 0, k * 1000, lim),
                Verdict::Enqueue
            );
        }
        assert_eq!(depart(&mut q, 1000, Ecn::Ect), None);
        // The sixth overflows: the five queued and itself (bytes up to
        // 6000) are marked as they leave; the verdict stays Enqueue.
        assert_eq!(
            arrive_real(&mut q, SimTime::ZERO, 1000, 4000, lim),
            Verdict::Enqueue
        );
        assert_eq!(q.mark_through, 6000);
        for d in [2000, 5000, 6000] {
            assert_eq!(depart(&mut q, d, Ecn::Ect), Some(Reason::Virtual), "{d}");
        }
        assert_eq!(depart(&mut q, 6000, Ecn::NotEct), None, "not ECN-capable");
        assert_eq!(depart(&mut q, 7000, Ecn::Ect), None);
        // An arrival 1 ms later, still in the period (4000 B virtual), is
        // covered too.
        assert_eq!(
            arrive_real(&mut q, ms(1), 2000, 4000, lim),
            Verdict::Enqueue
        );
        assert_eq!(q.mark_through, 7000);
        assert_eq!(depart(&mut q, 7000, Ecn::Ect), Some(Reason::Virtual));
        // Once the virtual queue has emptied, arrivals are not covered.
        assert_eq!(arrive_real(&mut q, ms(20), 7000, 0, lim), Verdict::Enqueue);
        assert_eq!(q.mark_through, 7000);
        assert_eq!(depart(&mut q, 8000, Ecn::Ect), None);
    }

    /// A data packet carrying a zeroed price header, as a `cp_tcp` source
    /// with `feedback = "explicit"` stamps it.
    fn priced(size: u32) -> Packet {
        let mut pkt = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, size, SimTime::ZERO);
        pkt.cc = CcHeader::Price(PriceHeader::default());
        pkt.ecn = Ecn::Ect;
        pkt
    }

    fn price_of(pkt: &Packet) -> f64 {
        match pkt.cc {
            CcHeader::Price(h) => h.price,
            _ => panic!("{:?}", pkt.cc),
        }
    }

    #[test]
    fn vq_explicit_feedback_adds_one_per_marking_link_to_the_price_header() {
        let mut rng = LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0);
        assert_eq!(small(VqVariant::BusyPeriod).header_family(), None);
        // Two busy-period links, the first overflowing, the second not yet.
        let mut a = small_with(VqVariant::BusyPeriod, VqFeedback::Explicit);
        let mut b = small_with(VqVariant::BusyPeriod, VqFeedback::Explicit);
        assert_eq!(a.header_family(), Some(HeaderFamily::Price));
        let view = LinkView::idle(SimTime::ZERO, Rate::from_bps(16_000_000));
        for _ in 0..5 {
            a.on_arrival(&mut priced(1000), &view, &mut rng);
        }
        let mut pkt = priced(1000);
        // The overflow is a price of 1, not an ECN mark or a drop.
        assert_eq!(a.on_arrival(&mut pkt, &view, &mut rng), Verdict::Enqueue);
        assert_eq!((price_of(&pkt), pkt.ecn), (1.0, Ecn::Ect));
        assert_eq!(b.on_arrival(&mut pkt, &view, &mut rng), Verdict::Enqueue);
        assert_eq!(price_of(&pkt), 1.0, "b is not marking: adds 0");
        for _ in 0..5 {
            b.on_arrival(&mut priced(1000), &view, &mut rng);
        }
        // Both links marking: the header sums their prices (the n-bit
        // path price), where one ECN bit would carry their maximum.
        let mut pkt = priced(1000);
        a.on_arrival(&mut pkt, &view, &mut rng);
        b.on_arrival(&mut pkt, &view, &mut rng);
        assert_eq!((price_of(&pkt), pkt.ecn), (2.0, Ecn::Ect));
        // A pure ACK is not priced.
        let mut ack = priced(40);
        ack.kind = PacketKind::Ack;
        a.on_arrival(&mut ack, &view, &mut rng);
        assert_eq!(price_of(&ack), 0.0);
        // Real-queue variant: the packets queued in the period are priced
        // as they leave.
        let mut q = small_with(VqVariant::RealQueue, VqFeedback::Explicit);
        let lim = BufferLimit::Unlimited;
        for k in 0..6 {
            arrive_real(&mut q, SimTime::ZERO, 0, k * 1000, lim);
        }
        assert_eq!(q.mark_through, 6000);
        for (departed, price) in [(6000, 1.0), (7000, 0.0)] {
            let view = LinkView {
                departed_bytes: departed,
                ..LinkView::idle(SimTime::ZERO, Rate::from_bps(16_000_000))
            };
            let mut pkt = priced(1000);
            assert_eq!(q.on_departure(&mut pkt, &view, &mut rng), None);
            assert_eq!((price_of(&pkt), pkt.ecn), (price, Ecn::Ect), "{departed}");
        }
    }

    #[test]
    fn vq_real_queue_does_not_count_an_arrival_the_buffer_drops() {
        let mut q = small(VqVariant::RealQueue);
        let lim = BufferLimit::Packets(5);
        for k in 0..5 {
            arrive_real(&mut q, SimTime::ZERO, 0, k * 1000, lim);
        }
        // The overflowing arrival finds the real buffer full too: only the
        // 5000 B queued are to be marked.
        arrive_real(&mut q, SimTime::ZERO, 0, 5000, lim);
        assert_eq!(q.mark_through, 5000);
    }

    #[test]
    fn vq_with_the_paper_parameters_holds_28_packets_of_1000_bytes() {
        // C = 10 Mb/s, B = 30 pkt (the link's buffer), theta = 0.95: 28 500 B.
        let cfg = VirtualQueueConfig::default();
        let mut q = VirtualQueue::new(&cfg, &ctx(10_000_000, BufferLimit::Packets(30))).unwrap();
        assert_eq!(q.limit_bytes(), 0.95 * 30.0 * 1000.0);
        for _ in 0..28 {
            assert_eq!(arrive(&mut q, SimTime::ZERO, 1000), Verdict::Enqueue);
        }
        assert_eq!(arrive(&mut q, SimTime::ZERO, 1000), MARK);
    }

    #[test]
    fn vq_takes_b_from_a_byte_buffer_and_requires_one_when_unlimited() {
        let cfg = VirtualQueueConfig::default();
        let q = VirtualQueue::new(&cfg, &ctx(10_000_000, BufferLimit::Bytes(45_000))).unwrap();
        assert_eq!(q.limit_bytes(), 0.95 * 45_000.0);
        let e = VirtualQueue::new(&cfg, &ctx(10_000_000, BufferLimit::Unlimited)).unwrap_err();
        assert_eq!(e.key, "buffer");
    }

    #[test]
    fn vq_scenario_syntax_parses_and_bad_values_are_rejected() {
        let c: LinkAlgoConfig = toml::from_str(
            r#"kind = "virtual_queue"
theta = 0.9
buffer = "20pkt"
variant = "overflow"
pkt_size = "1500B"
feedback = "explicit""#,
        )
        .unwrap();
        assert_eq!(c.name(), "virtual_queue");
        let LinkAlgoConfig::VirtualQueue(cfg) = &c else {
            panic!("{c:?}")
        };
        assert_eq!(cfg.variant, VqVariant::Overflow);
        assert_eq!(cfg.feedback, VqFeedback::Explicit);
        let q = VirtualQueue::new(cfg, &ctx(10_000_000, BufferLimit::Unlimited)).unwrap();
        assert!((q.limit_bytes() - 0.9 * 20.0 * 1500.0).abs() < 1e-9);
        // Defaults.
        let c: LinkAlgoConfig = toml::from_str("kind = \"virtual_queue\"").unwrap();
        assert_eq!(
            c,
            LinkAlgoConfig::VirtualQueue(VirtualQueueConfig::default())
        );
        for bad in [
            "kind = \"virtual_queue\"\ntheta = 0.9\nbufer = \"30pkt\"",
            "kind = \"virtual_queue\"\nvariant = \"sometimes\"",
            "kind = \"virtual_queue\"\nvariant = \"realqueue\"",
            "kind = \"virtual_queue\"\nfeedback = \"four_bit\"",
            "kind = \"virtual_queue\"\nbuffer = \"unlimited\"",
            "kind = \"virtual_queue\"\nbuffer = 30",
        ] {
            assert!(toml::from_str::<LinkAlgoConfig>(bad).is_err(), "{bad}");
        }
        for (src, key) in [
            ("kind = \"virtual_queue\"\ntheta = 0", "theta"),
            ("kind = \"virtual_queue\"\ntheta = 1.5", "theta"),
            ("kind = \"virtual_queue\"\npkt_size = \"0B\"", "pkt_size"),
        ] {
            let c: LinkAlgoConfig = toml::from_str(src).unwrap();
            let e = c
                .build(&ctx(10_000_000, BufferLimit::Packets(30)))
                .err()
                .unwrap();
            assert_eq!(e.key, key, "{src}");
        }
    }
}
