//! The reliable window transport's sender: byte sequence numbers, ACK clocking,
//! RTO estimation, duplicate-ACK and timeout loss recovery, and the ECN sender
//! side. The congestion-control arithmetic is a `Box<dyn Controller>`.
//!
//! Provenance:
//! - RFC 6298 (RTO): section 2 (first sample `SRTT = R, RTTVAR = R/2`; then
//!   `RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|`, `SRTT = 7/8 SRTT + 1/8 R`;
//!   `RTO = SRTT + max(G, 4 RTTVAR)`, clamped to [min_rto, max_rto]); section 3
//!   (Karn: here every transmission carries a fresh timestamp, RFC 7323 style, so
//!   every ACK of new data gives a valid sample); section 5 (timer started on send
//!   when off, restarted when new data is acked, stopped when all data is acked;
//!   on expiry retransmit the earliest segment, double the RTO up to max_rto; a new
//!   sample after new data is acked removes the backoff).
//! - RFC 5681 section 3.2 and RFC 6582 section 3.2 (NewReno): the third duplicate
//!   ACK (threshold configurable) retransmits `snd_una` when the ACK covers more
//!   than `recover` (step 2), sets `recover = highest sequence sent`, and inflates
//!   `cwnd = ssthresh + 3*SMSS`; each further duplicate inflates by SMSS; a partial
//!   ACK retransmits the next hole, deflates by the bytes acked and adds back SMSS
//!   if it acked at least SMSS, and resets the timer if it is the first partial
//!   ACK (step 5, "impatient" variant); a full ACK exits with `cwnd = ssthresh`
//!   (step 3, option 2: the controller's `on_recovery_exit`).
//! - RFC 6582 section 4 / RFC 5681 section 3.1: after a timeout, go-back-N from
//!   `snd_una` with `cwnd = 1 SMSS`, `recover = highest sequence sent`, so that
//!   duplicate ACKs of the retransmitted window cannot start fast recovery.
//! - RFC 3168 section 6.1: data sent ECT, retransmissions not-ECT (6.1.5); on ECE
//!   the window is reduced at most once per window of data and not during loss
//!   recovery; CWR is set on the first new data packet after the reduction (6.1.2).
//!   Every ACK still reaches the controller with `AckInfo::ece`; the RFC 3168
//!   controllers (NewReno, MulTCP) do not grow their window on one (6.1.2).
//!
//! INFERRED: the window is split as `controller.window() + inflation`; the
//! transport owns the fast-recovery inflation (may go negative on deflation), the
//! controller the arithmetic. The effective window is never below 1 SMSS.
//! INFERRED: FlightSize = `snd_max - snd_una` (data sent and not yet acked). On a
//! repeated timeout of the same data this is unchanged, so ssthresh is held, as
//! RFC 5681 section 3.1 requires for a segment retransmitted by the timer twice.
//! INFERRED: a segment is sent only if it fits entirely in the window
//! (`snd_nxt - snd_una + len <= wnd`); segments are MSS-sized except a finite
//! flow's last, which carries `Flags::FIN`.
//! INFERRED: an ECE reaction, a fast retransmit and a timeout all set
//! `ecn_recover = snd_max` and queue CWR (as Linux does); a new ECE is honoured
//! once `snd_una > ecn_recover`, i.e. once an ACK covers data sent after the
//! reduction (whose first packet carried CWR).
//! With a controller asking for [`EcnFeedback::PerPacket`] (WTP), the transport
//! takes no ECN action of its own: no once-per-window reduction, no CWR; the
//! controller sees every echoed mark as `AckInfo::ece` on the ACK that carries it.
//! INFERRED: a fast retransmit and an ECN reduction each count one
//! `FlowCounters::reductions`; a timeout counts in `timeouts` only.
//! With a [`Controller::paced`] controller (rate-based: RCP), new data leaves
//! only when the [`Pacer`] allows it, at the controller's rate; the window
//! still caps the data outstanding and the loss recovery above is unchanged
//! (INFERRED: the "Reno-like" recovery seed 002 and seed 003 suggest for
//! explicit-rate senders). Retransmissions (fast, partial-ACK and the first
//! one after a timeout) go at once and count towards the pacing gap. The endpoint's one timer carries the earlier of the RTO and the
//! next paced departure.
//! - SACK ([`TcpConfig::sack`]; RFC 6675 with the scoreboard of
//!   [`super::sack`]): every ACK's blocks update the scoreboard; a duplicate
//!   ACK counts only if it SACKs new data (section 2); recovery starts on the
//!   `DupThresh`-th one or as soon as `IsLost(HighACK)` (section 5 steps 2-4),
//!   not before `HighACK` passes the last `RecoveryPoint`; on entry the
//!   controller reduces (`cwnd = ssthresh`, no inflation), the first unacked
//!   segment is retransmitted (`HighRxt = RescueRxt =` its end); then on every
//!   ACK in recovery, while `cwnd - pipe >= 1 SMSS`, `NextSeg()` picks, in
//!   order: the first lost unSACKed segment above `HighRxt`; new data; the
//!   first unSACKed segment above `HighRxt` below the highest SACKed byte; once
//!   per recovery (`HighACK > RescueRxt`), a rescue retransmission of the
//!   highest unSACKed segment. A cumulative ACK past `RecoveryPoint` ends it.
//!   Every ACK of new data restarts the timer (RFC 6298 section 5.3).
//!   After a timeout (section 5.1), recovery ends with `RecoveryPoint =
//!   HighData` and the go-back-N resend skips SACKed segments (INFERRED: the
//!   scoreboard is kept, as receivers here never renege; RFC 6675 allows it).
//! - Limited transmit ([`TcpConfig::limited_transmit`], RFC 3042): the first
//!   two duplicate ACKs each send one new segment while the data outstanding
//!   stays within cwnd + 2 SMSS (with SACK, section 5 step 3: while
//!   `cwnd - pipe >= 1 SMSS`); RFC 5681 section 3.2 step 2: those segments
//!   are not part of the FlightSize the reduction halves.
//! - RTT samples for the RTO ([`TcpConfig::rtt_samples`]): chosen by
//!   [`super::rtt::RttSampler`].
//!
//! - An application source ([`AppSource`], [`WindowSender::with_app`]: a
//!   persistent connection carrying objects written over time): each write
//!   extends the data to send; an object is complete when its last byte is
//!   acknowledged ([`EndpointCtx::object_done`]); the flow finishes when the
//!   source has no more writes and everything is acknowledged. Segments never
//!   wait to be filled (no Nagle, RFC 896: a write's last segment may be
//!   short) and the window is kept across idle periods (INFERRED: as ns-2's
//!   agents, without RFC 5681 section 4.1's restart after idle).
//!
//! Left out: RFC 6582's optional heuristics (section 4.1/4.2), D-SACK, pacing
//! of window-based controllers, window validation (RFC 7661).

use rand::Rng;
use sim_core::{
    AckInfo, CcHeader, Congestion, Controller, Ecn, EcnFeedback, Endpoint, EndpointCtx, Flags,
    HeaderFamily, Packet, PacketKind, ParamError, Probe, RouteId, SackBlocks, SimDuration, SimTime,
};

use std::collections::VecDeque;

use super::rtt::RttSampler;
use super::{Pacer, RttEstimator, Scoreboard, TcpConfig};

/// The sending half of a reliable window flow (TCP-like, byte sequence numbers).
pub struct WindowSender {
    cc: Box<dyn Controller>,
    /// Segment size, bytes.
    mss: u64,
    /// One past the last byte of a finite flow; `u64::MAX` for infinite backlog.
    end: u64,
    dupthresh: u32,
    /// Repair losses ([`TcpConfig::reliable`]); false: never retransmit.
    reliable: bool,
    /// `TcpConfig::pacing_jitter`.
    pacing_jitter: f64,
    ecn: bool,
    /// How ECN marks reach the controller (asked of it once, at build time).
    feedback: EcnFeedback,
    /// Receiver's window, bytes (`u64::MAX`: unlimited).
    rwnd: u64,
    /// Spacing of new data for a rate-based controller (`None`: ACK-clocked).
    pacer: Option<Pacer>,
    /// A paced sender's rate integral, bits, up to `rate_at` (the controller's
    /// rate moves only inside this sender's hooks, so it is brought up to date
    /// on entry to each: see [`Probe::rate_bits`]).
    rate_bits: f64,
    rate_at: SimTime,

    /// Oldest unacknowledged byte.
    snd_una: u64,
    /// Next byte to send (rewound to `snd_una` by go-back-N after a timeout).
    snd_nxt: u64,
    /// One past the highest byte ever sent.
    snd_max: u64,
    /// NewReno's `recover`, stored as one past the highest byte sent at the time.
    recover: u64,
    dupacks: u32,
    in_recovery: bool,
    /// A partial ACK already reset the timer in this recovery episode.
    partial_seen: bool,
    /// [`TcpConfig::partial_window_deflation`].
    partial_deflation: bool,
    /// [`TcpConfig::partial_ack_timer`] is `"every"`.
    partial_timer_every: bool,
    /// [`TcpConfig::careful_recover`].
    careful: bool,
    /// [`TcpConfig::ecn_loss_no_second_reduction`].
    ecn_loss_once: bool,
    /// [`TcpConfig::timer_before_sample`].
    timer_before_sample: bool,
    /// Fast-recovery window inflation, bytes (added to the controller's window).
    inflation: i64,
    /// `snd_max` at the last window reduction: no new ECN reaction until passed.
    ecn_recover: u64,
    /// Set CWR on the next new data packet.
    cwr_pending: bool,
    /// [`TcpConfig::ecn_rto_wait`].
    ecn_rto_wait: bool,
    /// No new data before then (RFC 3168 section 6.1.2's wait at a
    /// one-segment window).
    ecn_hold: Option<SimTime>,

    /// SACK loss recovery ([`TcpConfig::sack`]).
    sack: bool,
    /// Limited transmit ([`TcpConfig::limited_transmit`]).
    limited_transmit: bool,
    /// ns-2's limited transmit in place of RFC 3042's
    /// ([`TcpConfig::limited_transmit`] and
    /// [`TcpConfig::limited_transmit_ns2`]).
    limited_transmit_ns2: bool,
    /// Which ACKs give the RTO estimator a sample ([`TcpConfig::rtt_samples`]).
    sampler: RttSampler,
    /// Bytes sent by limited transmit since the last new cumulative ACK.
    limited_bytes: u64,
    /// What the receiver reported holding above `snd_una`.
    scoreboard: Scoreboard,
    /// RFC 6675's `HighRxt`, exclusive: retransmitted up to here in recovery.
    high_rxt: u64,
    /// RFC 6675's `RescueRxt`, exclusive (`None`: undefined).
    rescue_rxt: Option<u64>,
    /// Bytes the ACK being processed newly SACKed.
    newly_sacked: u64,

    /// The application writing the data, if any (`end` is then what it has
    /// written so far).
    app: Option<Box<dyn AppSource>>,
    /// The application's next write, when it has one.
    next_write: Option<(SimTime, u64)>,
    /// Objects written and not yet acknowledged: `(end, requested, bytes)`.
    objects: VecDeque<(u64, SimTime, u64)>,

    /// RFC 6298 estimator: SRTT, RTTVAR, RTO and its backoff.
    rtt: RttEstimator,
    /// When the retransmission timer expires, if it runs.
    rto_deadline: Option<SimTime>,

    stopped: bool,
    done: bool,
}

impl WindowSender {
    /// A sender of `size` bytes (`None`: infinite backlog) in `mss`-byte segments,
    /// with transport parameters `cfg` and controller `cc`.
    pub fn new(
        cfg: &TcpConfig,
        mut cc: Box<dyn Controller>,
        mss: u32,
        size: Option<u64>,
    ) -> Result<Self, ParamError> {
        cfg.validate()?;
        if mss == 0 {
            return Err(ParamError::new("mss", "must be >= 1 byte"));
        }
        if size == Some(0) {
            return Err(ParamError::new("size", "must be > 0 bytes"));
        }
        let mss = u64::from(mss);
        if let Some(w) = cfg.rwnd_pkts {
            cc.set_receiver_window(u64::from(w) * mss);
        }
        let feedback = cc.ecn_feedback();
        let pacer = cc.paced().then(|| Pacer::new(cfg.pacing));
        if cfg.sack && cc.paced() {
            return Err(ParamError::new(
                "sack",
                "is for ACK-clocked senders; this controller paces its packets at a rate \
                 (SACK recovery would send past the pacer)",
            ));
        }
        Ok(WindowSender {
            feedback,
            cc,
            mss,
            end: size.unwrap_or(u64::MAX),
            dupthresh: cfg.dupack_threshold,
            reliable: cfg.reliable,
            pacing_jitter: cfg.pacing_jitter,
            ecn: cfg.ecn,
            rwnd: cfg.rwnd_pkts.map_or(u64::MAX, |w| u64::from(w) * mss),
            pacer,
            rate_bits: 0.0,
            rate_at: SimTime::ZERO,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            recover: 0,
            dupacks: 0,
            in_recovery: false,
            partial_seen: false,
            partial_deflation: cfg.partial_window_deflation,
            partial_timer_every: cfg.partial_ack_timer == super::PartialAckTimer::Every,
            careful: cfg.careful_recover,
            ecn_loss_once: cfg.ecn_loss_no_second_reduction,
            timer_before_sample: cfg.timer_before_sample,
            inflation: 0,
            ecn_recover: 0,
            cwr_pending: false,
            ecn_rto_wait: cfg.ecn_rto_wait,
            ecn_hold: None,
            sack: cfg.sack,
            limited_transmit: cfg.limited_transmit,
            limited_transmit_ns2: cfg.limited_transmit && cfg.limited_transmit_ns2,
            sampler: RttSampler::new(
                cfg.rtt_samples,
                cfg.rto_estimator != super::RtoEstimator::Ns2,
            ),
            limited_bytes: 0,
            scoreboard: Scoreboard::default(),
            high_rxt: 0,
            rescue_rxt: None,
            newly_sacked: 0,
            app: None,
            next_write: None,
            objects: VecDeque::new(),
            rtt: RttEstimator::new(cfg),
            rto_deadline: None,
            stopped: false,
            done: false,
        })
    }

    /// Bytes sent and not yet acknowledged (FlightSize).
    #[inline]
    fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    #[inline]
    fn seg_len(&self, seq: u64) -> u64 {
        self.mss.min(self.end - seq)
    }

    fn restart_timer(&mut self, ctx: &mut EndpointCtx) {
        self.restart_timer_for(self.rtt.rto(), ctx);
    }

    /// Restart the retransmission timer to expire `rto` from now.
    fn restart_timer_for(&mut self, rto: SimDuration, ctx: &mut EndpointCtx) {
        self.rto_deadline = Some(ctx.now().saturating_add(rto));
        self.arm(ctx);
    }

    fn stop_timer(&mut self, ctx: &mut EndpointCtx) {
        self.rto_deadline = None;
        self.arm(ctx);
    }

    /// Is there new data a window of `wnd` bytes would let out now (pacing aside)?
    #[inline]
    fn sendable(&self, wnd: u64) -> bool {
        let seq = self.snd_nxt;
        if seq >= self.end || (self.stopped && seq >= self.snd_max) {
            return false;
        }
        seq - self.snd_una + self.seg_len(seq) <= wnd
    }

    /// Set the endpoint's timer to the earliest of the RTO, the end of an
    /// ECN wait and, for a paced sender with data to send, the next paced
    /// departure.
    ///
    /// Called on every ACK (`restart_timer`): plain branches, not an array of
    /// the candidates reduced by an iterator, whose `Option`s were
    /// written as two 8-byte halves and read back as 16 bytes (a
    /// store-forwarding stall; this function took 5% of B1's samples).
    fn arm(&self, ctx: &mut EndpointCtx) {
        let mut at = self.rto_deadline;
        if let Some(p) = &self.pacer {
            if !self.done && self.sendable(self.cwnd().min(self.rwnd)) {
                at = earliest(at, p.next_departure().map(|t| t.max(ctx.now())));
            }
        }
        if let Some((t, _)) = self.next_write {
            if !self.done && !self.stopped {
                at = earliest(at, Some(t.max(ctx.now())));
            }
        }
        if self.ecn_hold.is_some() {
            at = earliest(at, self.ecn_hold);
        }
        ctx.set_deadline(at);
    }

    /// Emit the segment at `seq`. Bytes below `snd_max` are retransmissions.
    fn transmit(&mut self, seq: u64, ctx: &mut EndpointCtx) -> u64 {
        let len = self.seg_len(seq);
        let now = ctx.now();
        let p = ctx.send_in_place(Packet::new(
            ctx.flow(),
            RouteId::default(),
            PacketKind::Data,
            len as u32,
            now,
        ));
        p.seq = seq;
        self.sampler.on_transmit(seq, len, self.snd_max, now);
        if seq < self.snd_max {
            p.flags.insert(Flags::RETX);
        } else if self.ecn {
            p.ecn = Ecn::Ect;
            if self.cwr_pending {
                p.flags.insert(Flags::CWR);
                self.cwr_pending = false;
            }
        }
        if seq + len == self.end && self.next_write.is_none() {
            p.flags.insert(Flags::FIN);
        }
        self.cc.stamp(now, len as u32, &mut p.cc);
        if let Some(pacer) = &mut self.pacer {
            let stretch = if self.pacing_jitter > 0.0 {
                self.pacing_jitter * ctx.rng().random_range(-1.0..=1.0)
            } else {
                0.0
            };
            pacer.sent(ctx.now(), len, self.cc.rate().unwrap_or(0.0), stretch);
        }
        len
    }

    /// A paced sender: add the rate held since the last hook to the rate
    /// integral (called on entry to every hook, before the controller can
    /// move the rate). Nothing accrues once the flow is stopped or done: it
    /// no longer sends at its controller's rate.
    #[inline]
    fn accrue(&mut self, now: SimTime) {
        if self.pacer.is_some() {
            let r = self.cc.rate().unwrap_or(0.0);
            if r.is_finite() && now > self.rate_at && !self.stopped && !self.done {
                self.rate_bits += r * (now - self.rate_at).as_secs_f64();
            }
            self.rate_at = now;
        }
    }

    /// Send whatever the window (and, for a paced sender, the pacer) allows,
    /// from `snd_nxt`.
    fn send_allowed(&mut self, ctx: &mut EndpointCtx) {
        if let Some(until) = self.ecn_hold {
            if ctx.now() < until {
                return;
            }
            self.ecn_hold = None;
            self.cc.on_ecn_wait_end(ctx.now());
        }
        let wnd = self.cwnd().min(self.rwnd);
        if let Some(p) = &mut self.pacer {
            p.set_rate(ctx.now(), self.cc.rate().unwrap_or(0.0));
        }
        let mut sent = false;
        loop {
            if self.sack && self.snd_nxt < self.snd_max {
                // Go-back-N after a timeout skips what the receiver holds.
                self.snd_nxt = self.scoreboard.next_unsacked(self.snd_nxt);
            }
            if !self.sendable(wnd) {
                break;
            }
            if self.pacer.as_ref().is_some_and(|p| !p.ready(ctx.now())) {
                break;
            }
            self.send_next(ctx);
            sent = true;
        }
        if sent && self.rto_deadline.is_none() {
            self.restart_timer(ctx);
        } else if self.pacer.is_some() {
            self.arm(ctx);
        }
    }

    /// A window reduction happened: ECN must not react again within this window.
    fn reduced(&mut self) {
        if self.ecn && self.feedback == EcnFeedback::Classic {
            self.ecn_recover = self.snd_max;
            self.cwr_pending = true;
        }
    }

    fn ack_info(
        &self,
        now: SimTime,
        acked: u64,
        rtt: Option<SimDuration>,
        pkt: &Packet,
        in_flight: u64,
    ) -> AckInfo {
        AckInfo {
            now,
            acked,
            rtt,
            srtt: self.rtt.srtt(),
            in_flight,
            mss: self.mss as u32,
            ece: pkt.flags.contains(Flags::ECE),
            in_recovery: self.in_recovery,
            cc: match pkt.cc {
                CcHeader::Sack(_) => CcHeader::None,
                cc => cc,
            },
            owd: Some(pkt.sent.saturating_since(pkt.echo)),
            sacked: self.newly_sacked,
        }
    }

    /// May a new segment go at `snd_max`, the congestion window aside (data
    /// left, not stopped, within the receiver's window)?
    fn new_data_allowed(&self) -> bool {
        let seq = self.snd_max;
        seq < self.end && !self.stopped && seq - self.snd_una + self.seg_len(seq) <= self.rwnd
    }

    /// Send the segment at `snd_nxt` (new data, or a go-back-N
    /// retransmission below `snd_max`) and move `snd_nxt` past it; its length.
    fn send_next(&mut self, ctx: &mut EndpointCtx) -> u64 {
        let len = self.transmit(self.snd_nxt, ctx);
        self.snd_nxt += len;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        len
    }

    /// Send a new segment at `snd_max`.
    fn send_new(&mut self, ctx: &mut EndpointCtx) -> u64 {
        let len = self.transmit(self.snd_max, ctx);
        self.snd_max += len;
        self.snd_nxt = self.snd_max;
        len
    }
}

/// The earlier of two optional instants.
#[inline]
fn earliest(a: Option<SimTime>, b: Option<SimTime>) -> Option<SimTime> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

impl Endpoint for WindowSender {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        self.rate_at = ctx.now();
        if let Some(tick) = self.rtt.ns2_tick() {
            // ns-2's per-agent clock phase (boot_time_), uniform in a tick.
            let phase = ctx.rng().random_range(0..tick.as_ps());
            self.rtt.set_clock_phase(SimDuration::from_ps(phase));
        }
        if let Some(app) = &mut self.app {
            self.next_write = app.next_write(ctx.rng());
            self.apply_writes(ctx);
        }
        self.send_allowed(ctx);
        if self.app.is_some() {
            self.arm(ctx);
        }
    }

    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx) {
        self.accrue(ctx.now());
        if pkt.kind != PacketKind::Ack || self.done || pkt.ack > self.snd_max {
            return;
        }
        let in_flight = self.flight();
        if self.sack {
            let una = pkt.ack.max(self.snd_una);
            let blocks = match pkt.cc {
                CcHeader::Sack(b) => b,
                _ => SackBlocks::from_word(pkt.seq),
            };
            self.newly_sacked = self
                .scoreboard
                .update(una, self.snd_max, blocks.ranges(pkt.ack));
        }
        if pkt.ack > self.snd_una {
            self.on_new_ack(&pkt, in_flight, ctx);
            if self.snd_una >= self.end && self.next_write.is_none() {
                self.done = true;
                self.stop_timer(ctx);
                ctx.finish();
                return;
            }
        } else if !self.reliable {
            // Loss-tolerant: an ACK at or below `snd_una` (of data given up by
            // a timeout, or a duplicate) is feedback only; no fast recovery.
            let rtt = ctx.now().saturating_since(pkt.echo);
            self.rtt.on_sample(rtt, ctx.now());
            let info = self.ack_info(ctx.now(), 0, Some(rtt), &pkt, in_flight);
            self.cc.on_ack(&info);
        } else if pkt.ack == self.snd_una && self.snd_una < self.snd_max {
            if self.sack {
                self.on_sack_dupack(&pkt, in_flight, ctx);
            } else {
                self.on_dupack(&pkt, in_flight, ctx);
            }
        } else {
            return;
        }
        if self.ecn
            && self.feedback == EcnFeedback::Classic
            && pkt.flags.contains(Flags::ECE)
            && !self.in_recovery
            && self.snd_una > self.ecn_recover
        {
            let at_one = self.cwnd() <= self.mss;
            self.cc
                .on_congestion(ctx.now(), Congestion::Ecn { in_flight });
            ctx.counters().reductions += 1;
            self.reduced();
            // Also below one segment after the reduction (ns-2's arithmetic
            // halves a window under two segments to less than one): the
            // same wait.
            if self.ecn_rto_wait && (at_one || self.cc.window() < self.mss) {
                // RFC 3168 section 6.1.2: "reset the retransmit timer" and
                // send a new packet "only when the retransmit timer expires".
                ctx.counters().ecn_waits += 1;
                self.ecn_hold = Some(ctx.now().saturating_add(self.rtt.rto()));
                if self.snd_una < self.snd_max {
                    self.restart_timer(ctx);
                } else {
                    self.arm(ctx);
                }
            }
        }
        if self.sack && self.in_recovery {
            self.sack_send(ctx);
        } else {
            self.send_allowed(ctx);
        }
    }

    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        self.accrue(ctx.now());
        if self.app.is_some() && !self.done {
            self.apply_writes(ctx);
        }
        match self.rto_deadline {
            Some(at) if at <= ctx.now() => self.on_timeout(ctx),
            _ if self.ecn_hold.is_some_and(|t| t <= ctx.now()) && !self.done => {
                self.send_allowed(ctx);
                self.arm(ctx);
            }
            _ if (self.pacer.is_some() || self.app.is_some()) && !self.done => {
                self.send_allowed(ctx);
                self.arm(ctx);
            }
            _ => self.arm(ctx),
        }
    }

    fn on_stop(&mut self, ctx: &mut EndpointCtx) {
        self.accrue(ctx.now());
        self.stopped = true;
    }

    fn header_family(&self) -> HeaderFamily {
        self.cc.header_family()
    }

    fn flow_size(&self) -> Option<u64> {
        (self.end != u64::MAX && self.app.is_none()).then_some(self.end)
    }

    fn packet_size(&self) -> Option<u32> {
        u32::try_from(self.mss).ok()
    }

    fn rto_stats(&self) -> Option<sim_core::RtoStats> {
        self.rtt.rto_stats()
    }

    fn probe(&self) -> Probe {
        Probe {
            window: (self.cwnd() < u64::MAX).then_some(self.cwnd() as f64),
            rate: self.pacer.as_ref().and(self.cc.rate()),
            rate_bits: self.pacer.as_ref().map(|_| (self.rate_bits, self.rate_at)),
            srtt: self.rtt.srtt().map(|s| s.as_secs_f64()),
            loss_event_rate: None,
        }
    }
}

mod app;
mod inspect;
mod recovery;
mod sack;
#[cfg(test)]
mod tests;

pub use app::AppSource;
