//! The reliable window transport's receiver: cumulative ACKs, out-of-order data
//! held as sorted byte ranges, optional delayed ACKs and the ECN receiver side.
//!
//! Provenance:
//! - RFC 9293 section 3.10.7.4 / RFC 5681 section 4.2: the ACK carries the next
//!   byte expected; a delayed-ACK receiver acknowledges at least every second
//!   full-sized segment and within `delack_timeout` (< 500 ms) of the first
//!   unacknowledged one; out-of-order segments, duplicates and segments that fill
//!   all or part of a gap are acknowledged immediately.
//! - RFC 3168 section 6.1.3: after a CE data packet the receiver sets ECE on every
//!   ACK until a data packet with CWR arrives (CWR is applied before CE, so a
//!   packet carrying both keeps ECE set).
//! - Per-packet echo ([`EcnFeedback::PerPacket`], for controllers that react to
//!   every mark, e.g. WTP, seed 001 section 2.3 / spec section 7 item 1): a CE
//!   packet is acknowledged at once with ECE set, after flushing any pending
//!   delayed ACK without ECE (the DCTCP receiver's rule, RFC 8257 section 3.2), so
//!   every ECE ACK stands for exactly one marked packet; CWR is ignored.
//! - RFC 7323 section 4.3: the ACK echoes the timestamp (`Packet::sent`) of the
//!   data packet that triggered it; for a delayed ACK covering two segments, that
//!   of the earlier one (so RTT samples include the ACK delay).
//!
//! INFERRED: "every second full-sized segment" counts in-order segments whatever
//! their size; a segment with `Flags::FIN` (a finite flow's last) is ACKed at once.
//! INFERRED: the ACK echoes the congestion header of the last data packet seen.
//! Goodput (`FlowCounters::goodput_bytes`) counts bytes as they become in-order.

use sim_core::{
    CcHeader, Ecn, EcnFeedback, Endpoint, EndpointCtx, Flags, Packet, PacketKind, ParamError,
    RouteId, SimDuration, SimTime,
};

use super::TcpConfig;

/// Out-of-order ranges pre-allocated per receiver (the Vec grows if needed).
const OOO_CAPACITY: usize = 8;

/// The receiving half of a reliable window flow.
#[derive(Clone, Debug)]
pub struct TcpSink {
    ack_size: u32,
    delayed: bool,
    /// Repair losses (false: give gaps up, [`TcpConfig::reliable`]).
    reliable: bool,
    delack_timeout: SimDuration,
    /// Next byte expected (everything below has arrived).
    rcv_nxt: u64,
    /// Data received above `rcv_nxt`: sorted, disjoint, non-adjacent `[start, end)`.
    ooo: Vec<(u64, u64)>,
    /// How marks are echoed.
    feedback: EcnFeedback,
    /// Set ECE on the next ACK (classic: a CE mark was seen and no CWR since;
    /// per-packet: the packet being acknowledged carried CE).
    ece: bool,
    /// In-order segments received and not yet acknowledged (delayed ACKs).
    pending: u32,
    /// `sent` of the earliest unacknowledged in-order segment.
    pending_echo: SimTime,
    /// Congestion header of the last data packet, echoed in ACKs.
    last_cc: CcHeader,
    /// When the delayed ACK is due, if one is pending.
    delack_deadline: Option<SimTime>,
}

impl TcpSink {
    /// A receiver with the ACK parameters of `cfg`, echoing marks as `feedback`
    /// says (the sender's controller decides: `Controller::ecn_feedback`).
    pub fn new(cfg: &TcpConfig, feedback: EcnFeedback) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(TcpSink {
            feedback,
            ack_size: cfg.ack_bytes(),
            delayed: cfg.delayed_ack,
            reliable: cfg.reliable,
            delack_timeout: cfg.delack_timeout,
            rcv_nxt: 0,
            ooo: Vec::with_capacity(OOO_CAPACITY),
            ece: false,
            pending: 0,
            pending_echo: SimTime::ZERO,
            last_cc: CcHeader::None,
            delack_deadline: None,
        })
    }

    /// Next byte expected.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// The out-of-order ranges held, `[start, end)` byte offsets in order.
    pub fn out_of_order(&self) -> &[(u64, u64)] {
        &self.ooo
    }

    /// Record `[start, end)` (entirely above `rcv_nxt`) among the held ranges.
    fn hold(&mut self, start: u64, end: u64) {
        let i = self.ooo.partition_point(|r| r.1 < start);
        let (mut s, mut e) = (start, end);
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        if i == j {
            self.ooo.insert(i, (s, e));
        } else {
            self.ooo[i] = (s, e);
            self.ooo.drain(i + 1..j);
        }
    }

    /// Advance `rcv_nxt` to `end` and over every held range it now reaches.
    fn advance(&mut self, end: u64) {
        self.rcv_nxt = end;
        let mut k = 0;
        while k < self.ooo.len() && self.ooo[k].0 <= self.rcv_nxt {
            self.rcv_nxt = self.rcv_nxt.max(self.ooo[k].1);
            k += 1;
        }
        self.ooo.drain(..k);
    }

    /// The timestamp an immediate ACK triggered by `pkt` echoes: the earliest
    /// unacknowledged in-order segment's if one is pending, else `pkt`'s.
    #[inline]
    fn echo_for(&self, pkt: &Packet) -> SimTime {
        if self.pending > 0 {
            self.pending_echo
        } else {
            pkt.sent
        }
    }

    fn ack_now(&mut self, echo: SimTime, ctx: &mut EndpointCtx) {
        let mut a = Packet::new(
            ctx.flow(),
            RouteId::default(),
            PacketKind::Ack,
            self.ack_size,
            ctx.now(),
        );
        a.ack = self.rcv_nxt;
        a.echo = echo;
        a.cc = self.last_cc;
        if self.ece {
            a.flags.insert(Flags::ECE);
        }
        ctx.send(a);
        self.pending = 0;
        if self.delack_deadline.take().is_some() {
            ctx.set_deadline(None);
        }
    }
}

impl Endpoint for TcpSink {
    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        let ce = pkt.ecn == Ecn::Ce;
        match self.feedback {
            EcnFeedback::Classic => {
                if pkt.flags.contains(Flags::CWR) {
                    self.ece = false;
                }
                if ce {
                    self.ece = true;
                }
            }
            EcnFeedback::PerPacket => {
                if ce && self.pending > 0 {
                    self.ece = false;
                    self.ack_now(self.pending_echo, ctx);
                }
                self.ece = ce;
            }
        }
        // A per-packet echo is never delayed (one ECE ACK per marked packet).
        let ack_at_once = ce && self.feedback == EcnFeedback::PerPacket;
        self.last_cc = pkt.cc;
        let (start, end) = (pkt.seq, pkt.seq + u64::from(pkt.size));
        if !self.reliable && start > self.rcv_nxt {
            // Loss-tolerant: the bytes of the gap are given up.
            self.rcv_nxt = start;
        }
        if end <= self.rcv_nxt {
            // A duplicate: ACK at once so the sender learns what arrived.
            self.ack_now(self.echo_for(&pkt), ctx);
        } else if start <= self.rcv_nxt {
            let had_gap = !self.ooo.is_empty();
            let before = self.rcv_nxt;
            self.advance(end);
            ctx.counters().goodput_bytes += self.rcv_nxt - before;
            if !self.delayed || had_gap || ack_at_once || pkt.flags.contains(Flags::FIN) {
                self.ack_now(self.echo_for(&pkt), ctx);
            } else {
                self.pending += 1;
                if self.pending == 1 {
                    self.pending_echo = pkt.sent;
                    let at = ctx.now().saturating_add(self.delack_timeout);
                    self.delack_deadline = Some(at);
                    ctx.set_deadline(Some(at));
                } else {
                    self.ack_now(self.pending_echo, ctx);
                }
            }
        } else {
            self.hold(start, end);
            self.ack_now(self.echo_for(&pkt), ctx);
        }
    }

    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        match self.delack_deadline {
            Some(at) if at <= ctx.now() => {
                if self.pending > 0 {
                    self.ack_now(self.pending_echo, ctx);
                } else {
                    self.delack_deadline = None;
                }
            }
            other => ctx.set_deadline(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stream, Harness, StreamKind};

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(x)
    }

    struct Rig {
        k: TcpSink,
        h: Harness,
    }

    impl Rig {
        fn new(cfg: TcpConfig) -> Self {
            Rig {
                k: TcpSink::new(&cfg, EcnFeedback::Classic).unwrap(),
                h: Harness::new(stream(1, 0, StreamKind::Endpoint, 1)),
            }
        }
        fn delayed() -> Self {
            Rig::new(TcpConfig {
                delayed_ack: true,
                ..TcpConfig::default()
            })
        }
        fn call(&mut self, f: impl FnOnce(&mut TcpSink, &mut EndpointCtx)) -> Vec<Packet> {
            let k = &mut self.k;
            self.h.call(|ctx| f(k, ctx))
        }
        /// A data packet `[seq, seq + size)` sent at `sent`, arriving now.
        fn data_with(
            &mut self,
            seq: u64,
            size: u32,
            sent: SimTime,
            ecn: Ecn,
            flags: Flags,
        ) -> Vec<Packet> {
            let mut p = Packet::new(Default::default(), RouteId(0), PacketKind::Data, size, sent);
            p.seq = seq;
            p.ecn = ecn;
            p.flags = flags;
            self.call(|k, c| k.on_packet(p, c))
        }
        fn data(&mut self, seq: u64, sent: SimTime) -> Vec<Packet> {
            self.data_with(seq, 1000, sent, Ecn::Ect, Flags::NONE)
        }
    }

    fn acks(ps: &[Packet]) -> Vec<u64> {
        ps.iter().map(|p| p.ack).collect()
    }

    #[test]
    fn in_order_segments_are_acked_one_by_one_with_their_timestamp() {
        let mut r = Rig::new(TcpConfig::default());
        r.h.now = ms(10);
        let out = r.data(0, ms(3));
        assert_eq!(out.len(), 1);
        let a = out[0];
        assert_eq!(
            (a.kind, a.size, a.ack, a.echo),
            (PacketKind::Ack, 40, 1000, ms(3))
        );
        assert_eq!(a.ecn, Ecn::NotEct);
        assert_eq!(a.flags, Flags::NONE);
        assert_eq!(acks(&r.data(1000, ms(4))), [2000]);
        assert_eq!(r.h.counters.goodput_bytes, 2000);
        assert_eq!(r.h.deadline, None);
    }

    #[test]
    fn out_of_order_segments_get_immediate_duplicate_acks_and_a_filled_hole_jumps() {
        let mut r = Rig::delayed();
        assert!(r.data(0, ms(0)).is_empty()); // delayed
        let out = r.data(2000, ms(2));
        assert_eq!(acks(&out), [1000]);
        assert_eq!(
            out[0].echo,
            ms(0),
            "echo of the earliest unacked in-order segment"
        );
        assert_eq!(r.h.deadline, None);
        assert_eq!(acks(&r.data(4000, ms(4))), [1000]);
        assert_eq!(acks(&r.data(3000, ms(3))), [1000]);
        assert_eq!(r.k.out_of_order(), &[(2000, 5000)]);
        assert_eq!(r.h.counters.goodput_bytes, 1000);
        // The missing segment fills the hole: ACKed at once despite delayed ACKs.
        let out = r.data(1000, ms(5));
        assert_eq!(acks(&out), [5000]);
        assert_eq!(out[0].echo, ms(5));
        assert!(r.k.out_of_order().is_empty());
        assert_eq!(r.h.counters.goodput_bytes, 5000);
    }

    #[test]
    fn a_loss_tolerant_receiver_gives_a_gap_up_and_never_sends_a_duplicate_ack() {
        let mut r = Rig::new(TcpConfig {
            reliable: false,
            ..TcpConfig::default()
        });
        assert_eq!(acks(&r.data(0, ms(0))), [1000]);
        // Segment [1000, 2000) is lost: the next ACK moves past it.
        assert_eq!(acks(&r.data(2000, ms(2))), [3000]);
        assert_eq!(acks(&r.data(3000, ms(3))), [4000]);
        assert!(r.k.out_of_order().is_empty());
        // Goodput counts only what arrived.
        assert_eq!(r.h.counters.goodput_bytes, 3000);
    }

    #[test]
    fn partly_filling_a_hole_is_acked_at_once() {
        let mut r = Rig::delayed();
        r.data(0, ms(0));
        r.data(3000, ms(0));
        assert_eq!(acks(&r.data(1000, ms(0))), [2000]);
        assert_eq!(r.k.out_of_order(), &[(3000, 4000)]);
    }

    #[test]
    fn duplicate_segments_are_acked_at_once_and_count_no_goodput() {
        let mut r = Rig::delayed();
        r.data(0, ms(0));
        r.data(1000, ms(0));
        assert_eq!(acks(&r.data(0, ms(7))), [2000]);
        assert_eq!(r.h.counters.goodput_bytes, 2000);
    }

    #[test]
    fn held_ranges_merge_when_they_touch_or_overlap() {
        let mut k = TcpSink::new(&TcpConfig::default(), EcnFeedback::Classic).unwrap();
        k.rcv_nxt = 0;
        for (s, e) in [(50, 60), (10, 20), (30, 40), (20, 30), (55, 70), (80, 90)] {
            k.hold(s, e);
        }
        assert_eq!(k.out_of_order(), &[(10, 40), (50, 70), (80, 90)]);
        k.hold(35, 85);
        assert_eq!(k.out_of_order(), &[(10, 90)]);
        k.advance(10);
        assert_eq!(k.rcv_nxt(), 90);
        assert!(k.out_of_order().is_empty());
    }

    #[test]
    fn delayed_acks_cover_every_second_segment() {
        let mut r = Rig::delayed();
        r.h.now = ms(10);
        assert!(r.data(0, ms(1)).is_empty());
        assert_eq!(r.h.deadline, Some(ms(210)));
        let out = r.data(1000, ms(2));
        assert_eq!(acks(&out), [2000]);
        assert_eq!(out[0].echo, ms(1));
        assert_eq!(r.h.deadline, None);
        assert!(r.data(2000, ms(3)).is_empty());
        assert!(r.data(3000, ms(4)).len() == 1);
    }

    #[test]
    fn delayed_ack_timer_acknowledges_a_lone_segment() {
        let mut r = Rig::delayed();
        r.h.now = ms(10);
        assert!(r.data(0, ms(1)).is_empty());
        r.h.now = ms(100);
        assert!(r.call(|k, c| k.on_timer(c)).is_empty(), "not due yet");
        assert_eq!(r.h.deadline, Some(ms(210)));
        r.h.now = ms(210);
        let out = r.call(|k, c| k.on_timer(c));
        assert_eq!(acks(&out), [1000]);
        assert_eq!(out[0].echo, ms(1));
        assert_eq!(r.h.deadline, None);
    }

    #[test]
    fn a_fin_segment_is_acked_without_delay() {
        let mut r = Rig::delayed();
        assert_eq!(
            acks(&r.data_with(0, 300, ms(0), Ecn::Ect, Flags::FIN)),
            [300]
        );
    }

    #[test]
    fn per_packet_echo_sets_ece_only_on_the_ack_of_a_marked_packet() {
        let mut r = Rig::new(TcpConfig::default());
        r.k.feedback = EcnFeedback::PerPacket;
        let ece = |ps: &[Packet]| ps.iter().filter(|p| p.flags.contains(Flags::ECE)).count();
        assert_eq!(ece(&r.data(0, ms(0))), 0);
        assert_eq!(
            ece(&r.data_with(1000, 1000, ms(0), Ecn::Ce, Flags::NONE)),
            1
        );
        assert_eq!(ece(&r.data(2000, ms(0))), 0);
        // CWR means nothing here, and a new mark is echoed again.
        assert_eq!(ece(&r.data_with(3000, 1000, ms(0), Ecn::Ce, Flags::CWR)), 1);
        assert_eq!(
            ece(&r.data_with(4000, 1000, ms(0), Ecn::Ce, Flags::NONE)),
            1
        );
    }

    #[test]
    fn per_packet_echo_is_never_delayed_and_flushes_a_pending_ack() {
        let mut r = Rig::delayed();
        r.k.feedback = EcnFeedback::PerPacket;
        assert!(r.data(0, ms(0)).is_empty());
        // A marked segment: the pending ACK goes out without ECE, then the mark's.
        let out = r.data_with(1000, 1000, ms(1), Ecn::Ce, Flags::NONE);
        assert_eq!(out.len(), 2);
        assert_eq!(
            (out[0].ack, out[0].flags.contains(Flags::ECE)),
            (1000, false)
        );
        assert_eq!(
            (out[1].ack, out[1].flags.contains(Flags::ECE)),
            (2000, true)
        );
        // Unmarked segments pair up again, without ECE.
        assert!(r.data(2000, ms(2)).is_empty());
        let out = r.data(3000, ms(3));
        assert_eq!(out.len(), 1);
        assert!(!out[0].flags.contains(Flags::ECE));
    }

    #[test]
    fn ece_is_echoed_from_the_first_ce_until_cwr() {
        let mut r = Rig::new(TcpConfig::default());
        let ece = |ps: &[Packet]| ps[0].flags.contains(Flags::ECE);
        assert!(!ece(&r.data(0, ms(0))));
        assert!(ece(&r.data_with(1000, 1000, ms(0), Ecn::Ce, Flags::NONE)));
        assert!(ece(&r.data(2000, ms(0))));
        assert!(ece(&r.data(3000, ms(0))));
        assert!(!ece(&r.data_with(4000, 1000, ms(0), Ecn::Ect, Flags::CWR)));
        assert!(!ece(&r.data(5000, ms(0))));
        // CWR and CE on the same packet: the new mark wins.
        assert!(ece(&r.data_with(6000, 1000, ms(0), Ecn::Ce, Flags::CWR)));
    }

    #[test]
    fn acks_use_the_configured_size() {
        let mut r = Rig::new(TcpConfig {
            ack_size: sim_core::Bytes::new(52),
            ..TcpConfig::default()
        });
        assert_eq!(r.data(0, ms(0))[0].size, 52);
        assert!(TcpSink::new(
            &TcpConfig {
                ack_size: sim_core::Bytes::ZERO,
                ..TcpConfig::default()
            },
            EcnFeedback::Classic
        )
        .is_err());
    }
}
