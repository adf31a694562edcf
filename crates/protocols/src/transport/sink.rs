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
        let now = ctx.now();
        let template = Packet::new(
            ctx.flow(),
            RouteId::default(),
            PacketKind::Ack,
            self.ack_size,
            now,
        );
        self.pending = 0;
        if self.delay.is_none() {
            // Built in its place in the outbox (`EndpointCtx::send_in_place`).
            self.fill_ack(ctx.send_in_place(template), echo);
            if self.delack_deadline.take().is_some() {
                ctx.set_deadline(None);
            }
            return;
        }
        // Through the ACK queue; the delayed ACK (if any) is covered by this one.
        let mut a = template;
        self.fill_ack(&mut a, echo);
        self.delack_deadline = None;
        let q = self.delay.as_deref_mut().expect("checked above");
        q.push(a, now, ctx.rng());
        while let Some(p) = q.pop_due(now) {
            ctx.send(p);
        }
        ctx.set_deadline(q.next_release());
    }

    /// Write the acknowledgement, echoes and SACK option into ACK `a`.
    #[inline]
    fn fill_ack(&mut self, a: &mut Packet, echo: SimTime) {
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
mod tests;
