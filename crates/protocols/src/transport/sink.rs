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
//! - RFC 2018 section 4 (with `TcpConfig::sack`): every ACK sent while data is
//!   held above the cumulative ACK carries SACK blocks, at most three (the
//!   timestamp option is in use); the first is the block holding the segment
//!   that triggered the ACK, unless that segment advanced the cumulative ACK;
//!   the others repeat the most recently reported blocks still held, most
//!   recent first. The blocks ride in the ACK's header field
//!   ([`CcHeader::Sack`]); when that field echoes a congestion header
//!   (explicit-rate controllers), only the first block goes, in the ACK's
//!   `seq` ([`SackBlocks::first_word`]), and only it counts as reported.
//!   INFERRED: a receiver never reneges on SACKed data.
//!
//! Random ACK delay ([`TcpConfig::ack_delay`], seed 002 E5.8 / T3; provenance in
//! [`super::ack_delay`]): every ACK the rules above would send is generated as
//! usual (same content, same moment) and enters an [`AckDelayQueue`] instead,
//! leaving at its release time. The sink's one timer deadline is then the earlier
//! of the delayed-ACK deadline and the queue head's release; `on_timer` releases
//! the due ACKs first, then generates a due delayed ACK (which joins the tail).
//! Without the option the ACK path is the plain one plus one branch.

use sim_core::{
    CcHeader, Ecn, EcnFeedback, Endpoint, EndpointCtx, Flags, Packet, PacketKind, ParamError,
    RouteId, SackBlocks, SimDuration, SimTime,
};

use super::{AckDelayQueue, TcpConfig};

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
    /// The random ACK delay queue ([`TcpConfig::ack_delay`]), if configured.
    delay: Option<Box<AckDelayQueue>>,
    /// Send SACK blocks ([`TcpConfig::sack`]).
    sack: bool,
    /// First byte of the out-of-order segment the next ACK answers.
    trigger: Option<u64>,
    /// The blocks the last ACK reported (starts are what identify them).
    reported: SackBlocks,
    /// The cumulative ACK the last ACK carried (`reported` is relative to it).
    reported_ack: u64,
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
            delay: cfg
                .ack_delay
                .as_ref()
                .map(|a| AckDelayQueue::new(a).map(Box::new))
                .transpose()
                .map_err(|e| e.prefixed("ack_delay"))?,
            sack: cfg.sack,
            trigger: None,
            reported: SackBlocks::default(),
            reported_ack: 0,
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

    /// The random ACK delay queue, if [`TcpConfig::ack_delay`] is set.
    pub fn ack_delay(&self) -> Option<&AckDelayQueue> {
        self.delay.as_deref()
    }

    /// The timer deadline the sink needs: the earlier of the delayed ACK's and
    /// the ACK queue head's release.
    #[inline]
    fn next_deadline(&self) -> Option<SimTime> {
        let release = self.delay.as_ref().and_then(|q| q.next_release());
        match (self.delack_deadline, release) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Record `[start, end)` (entirely above `rcv_nxt`) among the held ranges.
    fn hold(&mut self, start: u64, end: u64) {
        super::sack::merge_range(&mut self.ooo, start, end);
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

    /// The held range containing byte `seq`, if any.
    fn held_range(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ooo.partition_point(|r| r.1 <= seq);
        self.ooo.get(i).copied().filter(|r| r.0 <= seq)
    }

    /// RFC 2018's blocks for the next ACK: the triggering segment's block,
    /// then the blocks reported last time that are still held (each now as
    /// the range containing it), no block twice; at most `room`.
    fn sack_blocks(&mut self, room: usize) -> SackBlocks {
        let mut b = SackBlocks::default();
        let mut firsts = [0u64; SackBlocks::MAX];
        let mut add = |b: &mut SackBlocks, r: (u64, u64)| {
            if b.len() < room && !firsts[..b.len()].contains(&r.0) {
                firsts[b.len()] = r.0;
                b.push(self.rcv_nxt, r.0, r.1);
            }
        };
        if let Some(r) = self.trigger.take().and_then(|t| self.held_range(t)) {
            add(&mut b, r);
        }
        for (s, _) in self.reported.ranges(self.reported_ack) {
            if let Some(r) = self.held_range(s) {
                add(&mut b, r);
            }
        }
        self.reported = b;
        self.reported_ack = self.rcv_nxt;
        b
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
        if self.sack && !self.ooo.is_empty() {
            if a.cc == CcHeader::None {
                a.cc = CcHeader::Sack(self.sack_blocks(SackBlocks::MAX));
            } else {
                a.seq = self.sack_blocks(1).first_word();
            }
        }
        if self.ece {
            a.flags.insert(Flags::ECE);
        }
        self.pending = 0;
        if let Some(q) = self.delay.as_deref_mut() {
            // Through the ACK queue; the delayed ACK (if any) is covered by this one.
            self.delack_deadline = None;
            let now = ctx.now();
            q.push(a, now, ctx.rng());
            while let Some(p) = q.pop_due(now) {
                ctx.send(p);
            }
            ctx.set_deadline(q.next_release());
            return;
        }
        ctx.send(a);
        if self.delack_deadline.take().is_some() {
            ctx.set_deadline(None);
        }
    }

    /// `on_timer` with an ACK queue: release the due ACKs, then generate a due
    /// delayed ACK (it joins the tail), then re-arm for whichever comes first.
    fn on_timer_queued(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        if let Some(q) = self.delay.as_deref_mut() {
            while let Some(p) = q.pop_due(now) {
                ctx.send(p);
            }
        }
        if let Some(at) = self.delack_deadline {
            if at <= now {
                if self.pending > 0 {
                    self.ack_now(self.pending_echo, ctx);
                } else {
                    self.delack_deadline = None;
                }
            }
        }
        ctx.set_deadline(self.next_deadline());
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
                    ctx.set_deadline(self.next_deadline());
                } else {
                    self.ack_now(self.pending_echo, ctx);
                }
            }
        } else {
            self.hold(start, end);
            self.trigger = Some(start);
            self.ack_now(self.echo_for(&pkt), ctx);
        }
    }

    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        if self.delay.is_some() {
            return self.on_timer_queued(ctx);
        }
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
    use crate::transport::AckDelayConfig;
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

    fn blocks(p: &Packet) -> Vec<(u64, u64)> {
        match p.cc {
            CcHeader::Sack(b) => b.ranges(p.ack).collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn sack_blocks_put_the_triggering_block_first_then_the_recent_ones() {
        let mut r = Rig::new(TcpConfig {
            sack: true,
            ..TcpConfig::default()
        });
        let ack = |r: &mut Rig, seq| {
            let out = r.data(seq, ms(0));
            assert_eq!(out.len(), 1);
            (out[0].ack, blocks(&out[0]))
        };
        assert_eq!(ack(&mut r, 0), (1000, vec![]));
        assert_eq!(ack(&mut r, 2000), (1000, vec![(2000, 3000)]));
        assert_eq!(ack(&mut r, 4000).1, [(4000, 5000), (2000, 3000)]);
        assert_eq!(
            ack(&mut r, 6000).1,
            [(6000, 7000), (4000, 5000), (2000, 3000)]
        );
        // Three blocks at most (RFC 2018 with timestamps): the oldest goes.
        assert_eq!(
            ack(&mut r, 8000).1,
            [(8000, 9000), (6000, 7000), (4000, 5000)]
        );
        // A segment joining two blocks reports the merged block first, and
        // the merged block only once.
        assert_eq!(
            ack(&mut r, 3000).1,
            [(2000, 5000), (8000, 9000), (6000, 7000)]
        );
        // Filling the first hole moves the ACK; an in-order segment triggers
        // no block, the remembered ones still held follow.
        assert_eq!(ack(&mut r, 1000), (5000, vec![(8000, 9000), (6000, 7000)]));
        assert_eq!(ack(&mut r, 5000), (7000, vec![(8000, 9000)]));
        assert_eq!(ack(&mut r, 7000), (9000, vec![]));
        // A flow whose data carries a congestion header: its echo keeps the
        // header field, one block rides in `seq`.
        let mut r = Rig::new(TcpConfig {
            sack: true,
            ..TcpConfig::default()
        });
        let hdr = CcHeader::Rate(sim_core::RateHeader {
            desired: 1.0,
            allowed: 2.0,
            rtt: 0.1,
            hops: 1,
            congested: false,
        });
        let ack = |r: &mut Rig, seq| {
            let mut p = Packet::new(
                Default::default(),
                RouteId(0),
                PacketKind::Data,
                1000,
                ms(0),
            );
            (p.seq, p.cc) = (seq, hdr);
            let out = r.call(|k, c| k.on_packet(p, c));
            assert_eq!(out[0].cc, hdr);
            (
                out[0].ack,
                SackBlocks::from_word(out[0].seq)
                    .ranges(out[0].ack)
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(ack(&mut r, 0), (1000, vec![]));
        assert_eq!(ack(&mut r, 2000), (1000, vec![(2000, 3000)]));
        assert_eq!(ack(&mut r, 4000), (1000, vec![(4000, 5000)]));
        assert_eq!(ack(&mut r, 1000), (3000, vec![(4000, 5000)]));
        // Without the option, no blocks.
        let mut plain = Rig::new(TcpConfig::default());
        plain.data(0, ms(0));
        assert!(blocks(&plain.data(2000, ms(0))[0]).is_empty());
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

    fn queued(every: u64, hold: SimDuration, delayed_ack: bool) -> Rig {
        Rig::new(TcpConfig {
            delayed_ack,
            ack_delay: Some(AckDelayConfig {
                every: [every, every],
                hold: [hold, hold],
                gap: SimDuration::from_micros(10),
            }),
            ..TcpConfig::default()
        })
    }

    fn us(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_micros(x)
    }

    #[test]
    fn acks_leave_through_the_queue_the_mth_held_and_its_followers_behind_it() {
        let (m, d, gap) = (
            3u64,
            SimDuration::from_millis(100),
            SimDuration::from_micros(10),
        );
        let mut r = queued(m, d, false);
        // ACK 1: generated at 0, leaves `gap` later with its original content.
        assert!(r.data(0, ms(0)).is_empty());
        assert_eq!(r.h.deadline, Some(SimTime::ZERO + gap));
        let out = r.h.fire(&mut r.k);
        assert_eq!(acks(&out), [1000]);
        assert_eq!((out[0].echo, out[0].sent), (ms(0), SimTime::ZERO + gap));
        assert_eq!(r.h.deadline, None);
        // ACK 2 likewise; ACK 3 (the m-th) is held d.
        r.h.now = ms(1);
        r.data(1000, ms(1));
        assert_eq!(acks(&r.h.fire(&mut r.k)), [2000]);
        r.h.now = ms(2);
        assert!(r.data(2000, ms(2)).is_empty());
        let held_until = ms(2) + d;
        assert_eq!(r.h.deadline, Some(held_until));
        // ACKs generated meanwhile wait behind it, whatever they acknowledge.
        r.h.now = ms(3);
        assert!(r.data(3000, ms(3)).is_empty());
        r.h.now = ms(4);
        assert!(r.data(5000, ms(4)).is_empty()); // out of order: a duplicate ACK
        assert_eq!(r.k.ack_delay().unwrap().len(), 3);
        assert_eq!(r.h.deadline, Some(held_until));
        // Calling on_timer early sends nothing and keeps the deadline.
        r.h.now = ms(50);
        assert!(r.call(|k, c| k.on_timer(c)).is_empty());
        assert_eq!(r.h.deadline, Some(held_until));
        let mut left = Vec::new();
        while r.h.deadline.is_some() {
            for p in r.h.fire(&mut r.k) {
                left.push((r.h.now, p.ack, p.echo));
            }
        }
        assert_eq!(
            left,
            [
                (held_until, 3000, ms(2)),
                (held_until + gap, 4000, ms(3)),
                (held_until + gap.saturating_mul(2), 4000, ms(4)),
            ]
        );
        // The count restarted after the held ACK (3rd): the 6th is held ...
        r.h.now = ms(200);
        assert!(r.data(4000, ms(200)).is_empty()); // fills the hole
        assert_eq!(r.h.deadline, Some(ms(200) + d));
        assert_eq!(r.k.ack_delay().unwrap().held(), 2);
        assert_eq!(acks(&r.h.fire(&mut r.k)), [6000]);
        // ... and the 7th starts a new cycle.
        r.h.now = ms(400);
        r.data(6000, ms(400));
        assert_eq!(r.h.deadline, Some(ms(400) + gap));
        assert_eq!(r.k.ack_delay().unwrap().until_hold(), m - 1);
    }

    #[test]
    fn with_zero_gap_and_hold_acks_leave_at_once() {
        let mut r = Rig::new(TcpConfig {
            ack_delay: Some(AckDelayConfig {
                every: [2, 2],
                hold: [SimDuration::ZERO, SimDuration::ZERO],
                gap: SimDuration::ZERO,
            }),
            ..TcpConfig::default()
        });
        for i in 0..6 {
            assert_eq!(acks(&r.data(i * 1000, ms(0))), [(i + 1) * 1000]);
            assert_eq!(r.h.deadline, None);
        }
    }

    #[test]
    fn delayed_acks_and_the_queue_share_the_timer() {
        // m = 2: the 2nd, 4th, ... ACK is held 300 ms (longer than delack_timeout).
        let d = SimDuration::from_millis(300);
        let gap = SimDuration::from_micros(10);
        let mut r = queued(2, d, true);
        assert!(r.data(0, ms(0)).is_empty());
        assert_eq!(r.h.deadline, Some(ms(200)), "delayed-ACK deadline");
        r.h.now = ms(1);
        assert!(r.data(1000, ms(1)).is_empty());
        // ACK 1 (covering two segments) entered the queue; the delayed ACK is gone.
        assert_eq!(r.h.deadline, Some(ms(1) + gap));
        let out = r.h.fire(&mut r.k);
        assert_eq!((acks(&out), out[0].echo), (vec![2000], ms(0)));
        assert_eq!(r.h.deadline, None);
        r.h.now = ms(2);
        assert!(r.data(2000, ms(2)).is_empty());
        assert_eq!(r.h.deadline, Some(ms(202)));
        r.h.now = ms(3);
        assert!(r.data(3000, ms(3)).is_empty());
        // ACK 2 is held until 303 ms.
        assert_eq!(r.h.deadline, Some(ms(3) + d));
        r.h.now = ms(4);
        assert!(r.data(4000, ms(4)).is_empty());
        // A lone segment: its delayed ACK is due first.
        assert_eq!(r.h.deadline, Some(ms(204)));
        assert!(r.h.fire(&mut r.k).is_empty(), "generated, but queued");
        assert_eq!(r.k.ack_delay().unwrap().len(), 2);
        assert_eq!(r.h.deadline, Some(ms(3) + d));
        let out = r.h.fire(&mut r.k);
        assert_eq!((acks(&out), out[0].echo), (vec![4000], ms(2)));
        assert_eq!(r.h.deadline, Some(ms(3) + d + gap));
        let out = r.h.fire(&mut r.k);
        assert_eq!((acks(&out), out[0].echo), (vec![5000], ms(4)));
        assert_eq!(r.h.deadline, None);
        assert_eq!(r.h.counters.goodput_bytes, 5000);
    }

    #[test]
    fn a_per_packet_echo_flush_queues_both_acks_in_order() {
        let mut r = queued(100, SimDuration::from_secs(1), true);
        r.k.feedback = EcnFeedback::PerPacket;
        assert!(r.data(0, ms(0)).is_empty());
        assert!(r
            .data_with(1000, 1000, ms(1), Ecn::Ce, Flags::NONE)
            .is_empty());
        let mut out = r.h.fire(&mut r.k);
        out.extend(r.h.fire(&mut r.k));
        assert_eq!(acks(&out), [1000, 2000]);
        let ece: Vec<bool> = out.iter().map(|p| p.flags.contains(Flags::ECE)).collect();
        assert_eq!(ece, [false, true]);
        assert_eq!((out[0].sent, out[1].sent), (us(10), us(20)));
    }

    #[test]
    fn queue_draws_come_from_the_endpoint_stream_and_repeat_per_seed() {
        let cfg = TcpConfig {
            ack_delay: Some(AckDelayConfig {
                every: [2, 5],
                hold: [SimDuration::from_millis(500), SimDuration::from_secs(1)],
                gap: SimDuration::from_micros(10),
            }),
            ..TcpConfig::default()
        };
        let run = |seed| {
            let mut k = TcpSink::new(&cfg, EcnFeedback::Classic).unwrap();
            let mut h = Harness::new(stream(seed, 0, StreamKind::Endpoint, 1));
            let mut times = Vec::new();
            for i in 0..200u64 {
                h.now = ms(10 * i);
                let mut p = Packet::new(
                    Default::default(),
                    RouteId(0),
                    PacketKind::Data,
                    1000,
                    h.now,
                );
                p.seq = i * 1000;
                times.extend(h.call(|c| k.on_packet(p, c)).iter().map(|p| p.sent));
                while h.deadline.is_some_and(|t| t <= ms(10 * i + 9)) {
                    times.extend(h.fire(&mut k).iter().map(|p| p.sent));
                }
            }
            while h.deadline.is_some() {
                times.extend(h.fire(&mut k).iter().map(|p| p.sent));
            }
            assert_eq!(times.len(), 200);
            (times, k.ack_delay().unwrap().held())
        };
        let (a, held) = run(1);
        assert_eq!(run(1), (a.clone(), held));
        assert_ne!(run(2).0, a);
        // 200 ACKs, one held per 2..5: between 40 and 100 held.
        assert!((40..=100).contains(&held), "{held}");
    }

    #[test]
    fn a_bad_ack_delay_is_rejected_with_its_key() {
        let bad = TcpConfig {
            ack_delay: Some(AckDelayConfig {
                every: [10, 5],
                hold: [SimDuration::ZERO, SimDuration::ZERO],
                gap: SimDuration::ZERO,
            }),
            ..TcpConfig::default()
        };
        let e = TcpSink::new(&bad, EcnFeedback::Classic).unwrap_err();
        assert_eq!(e.key, "ack_delay.every");
    }
}
