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
//! INFERRED: a fast retransmit and an ECN reduction each count one
//! `FlowCounters::reductions`; a timeout counts in `timeouts` only.
//! Left out: limited transmit (RFC 3042), SACK, RFC 6582's optional heuristics
//! (section 4.1/4.2), pacing, window validation (RFC 7661).

use sim_core::{
    AckInfo, Congestion, Controller, Ecn, Endpoint, EndpointCtx, Flags, HeaderFamily, Packet,
    PacketKind, ParamError, Probe, RouteId, SimDuration, SimTime,
};

use super::{RttEstimator, TcpConfig};

/// The sending half of a reliable window flow (TCP-like, byte sequence numbers).
pub struct WindowSender {
    cc: Box<dyn Controller>,
    /// Segment size, bytes.
    mss: u64,
    /// One past the last byte of a finite flow; `u64::MAX` for infinite backlog.
    end: u64,
    dupthresh: u32,
    ecn: bool,
    /// Receiver's window, bytes (`u64::MAX`: unlimited).
    rwnd: u64,

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
    /// Fast-recovery window inflation, bytes (added to the controller's window).
    inflation: i64,
    /// `snd_max` at the last window reduction: no new ECN reaction until passed.
    ecn_recover: u64,
    /// Set CWR on the next new data packet.
    cwr_pending: bool,

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
        cc: Box<dyn Controller>,
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
        Ok(WindowSender {
            cc,
            mss,
            end: size.unwrap_or(u64::MAX),
            dupthresh: cfg.dupack_threshold,
            ecn: cfg.ecn,
            rwnd: cfg.rwnd_pkts.map_or(u64::MAX, |w| u64::from(w) * mss),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            recover: 0,
            dupacks: 0,
            in_recovery: false,
            partial_seen: false,
            inflation: 0,
            ecn_recover: 0,
            cwr_pending: false,
            rtt: RttEstimator::new(cfg),
            rto_deadline: None,
            stopped: false,
            done: false,
        })
    }

    /// Congestion window in bytes: the controller's window plus fast-recovery
    /// inflation, at least 1 MSS.
    pub fn cwnd(&self) -> u64 {
        let w = self.cc.window();
        let w = if self.inflation >= 0 {
            w.saturating_add(self.inflation.unsigned_abs())
        } else {
            w.saturating_sub(self.inflation.unsigned_abs())
        };
        w.max(self.mss)
    }
    /// Slow-start threshold in bytes, if the controller has one.
    pub fn ssthresh(&self) -> Option<u64> {
        self.cc.ssthresh()
    }
    /// Oldest unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Next byte to send.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    /// The RFC 6298 estimator (SRTT, RTTVAR, the RTO in force).
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// True during NewReno fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// The controller.
    pub fn controller(&self) -> &dyn Controller {
        self.cc.as_ref()
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
        let at = ctx.now().saturating_add(self.rtt.rto());
        self.rto_deadline = Some(at);
        ctx.set_deadline(Some(at));
    }

    fn stop_timer(&mut self, ctx: &mut EndpointCtx) {
        self.rto_deadline = None;
        ctx.set_deadline(None);
    }

    /// Emit the segment at `seq`. Bytes below `snd_max` are retransmissions.
    fn transmit(&mut self, seq: u64, ctx: &mut EndpointCtx) -> u64 {
        let len = self.seg_len(seq);
        let mut p = Packet::new(
            ctx.flow(),
            RouteId::default(),
            PacketKind::Data,
            len as u32,
            ctx.now(),
        );
        p.seq = seq;
        if seq < self.snd_max {
            p.flags.insert(Flags::RETX);
        } else if self.ecn {
            p.ecn = Ecn::Ect;
            if self.cwr_pending {
                p.flags.insert(Flags::CWR);
                self.cwr_pending = false;
            }
        }
        if seq + len == self.end {
            p.flags.insert(Flags::FIN);
        }
        self.cc.stamp(&mut p.cc);
        ctx.send(p);
        len
    }

    /// Send whatever the window allows, from `snd_nxt`.
    fn send_allowed(&mut self, ctx: &mut EndpointCtx) {
        let wnd = self.cwnd().min(self.rwnd);
        let mut sent = false;
        loop {
            let seq = self.snd_nxt;
            if seq >= self.end || (self.stopped && seq >= self.snd_max) {
                break;
            }
            if seq - self.snd_una + self.seg_len(seq) > wnd {
                break;
            }
            self.snd_nxt += self.transmit(seq, ctx);
            self.snd_max = self.snd_max.max(self.snd_nxt);
            sent = true;
        }
        if sent && self.rto_deadline.is_none() {
            self.restart_timer(ctx);
        }
    }

    /// A window reduction happened: ECN must not react again within this window.
    fn reduced(&mut self) {
        if self.ecn {
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
            cc: pkt.cc,
        }
    }

    /// An ACK that acknowledges new data.
    fn on_new_ack(&mut self, pkt: &Packet, in_flight: u64, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        let acked = pkt.ack - self.snd_una;
        let rtt = now.saturating_since(pkt.echo);
        self.rtt.on_sample(rtt);
        self.snd_una = pkt.ack;
        self.snd_nxt = self.snd_nxt.max(pkt.ack);
        let info = self.ack_info(now, acked, Some(rtt), pkt, in_flight);
        self.cc.on_ack(&info);
        if !self.in_recovery {
            self.dupacks = 0;
            self.restart_timer(ctx);
        } else if pkt.ack >= self.recover {
            // RFC 6582 step 3: full acknowledgment.
            self.in_recovery = false;
            self.inflation = 0;
            self.dupacks = 0;
            self.cc.on_recovery_exit(now);
            self.restart_timer(ctx);
        } else {
            // RFC 6582 step 4/5: partial acknowledgment.
            self.transmit(self.snd_una, ctx);
            self.inflation -= acked as i64;
            if acked >= self.mss {
                self.inflation += self.mss as i64;
            }
            if !self.partial_seen {
                self.partial_seen = true;
                self.restart_timer(ctx);
            }
        }
        if self.snd_una >= self.snd_max {
            self.stop_timer(ctx);
        }
    }

    /// A duplicate ACK (`ack == snd_una` with data outstanding).
    fn on_dupack(&mut self, pkt: &Packet, in_flight: u64, ctx: &mut EndpointCtx) {
        self.dupacks += 1;
        let info = self.ack_info(ctx.now(), 0, None, pkt, in_flight);
        self.cc.on_ack(&info);
        if self.in_recovery {
            self.inflation += self.mss as i64;
        } else if self.dupacks == self.dupthresh && pkt.ack >= self.recover {
            // RFC 6582 step 2: fast retransmit, enter fast recovery.
            self.cc
                .on_congestion(ctx.now(), Congestion::Loss { in_flight });
            ctx.counters().reductions += 1;
            self.recover = self.snd_max;
            self.in_recovery = true;
            self.partial_seen = false;
            self.inflation = i64::from(self.dupthresh) * self.mss as i64;
            self.reduced();
            self.transmit(self.snd_una, ctx);
        }
    }

    /// The retransmission timer expired (RFC 6298 section 5.4-5.6).
    fn on_timeout(&mut self, ctx: &mut EndpointCtx) {
        if self.snd_una >= self.snd_max {
            self.stop_timer(ctx);
            return;
        }
        ctx.counters().timeouts += 1;
        let in_flight = self.flight();
        self.cc
            .on_congestion(ctx.now(), Congestion::Timeout { in_flight });
        self.in_recovery = false;
        self.inflation = 0;
        self.dupacks = 0;
        self.recover = self.snd_max;
        self.snd_nxt = self.snd_una;
        self.reduced();
        self.rtt.back_off();
        self.rto_deadline = None;
        self.send_allowed(ctx);
        self.restart_timer(ctx);
    }
}

impl Endpoint for WindowSender {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        self.send_allowed(ctx);
    }

    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx) {
        if pkt.kind != PacketKind::Ack || self.done || pkt.ack > self.snd_max {
            return;
        }
        let in_flight = self.flight();
        if pkt.ack > self.snd_una {
            self.on_new_ack(&pkt, in_flight, ctx);
            if self.snd_una >= self.end {
                self.done = true;
                self.stop_timer(ctx);
                ctx.finish();
                return;
            }
        } else if pkt.ack == self.snd_una && self.snd_una < self.snd_max {
            self.on_dupack(&pkt, in_flight, ctx);
        } else {
            return;
        }
        if self.ecn
            && pkt.flags.contains(Flags::ECE)
            && !self.in_recovery
            && self.snd_una > self.ecn_recover
        {
            self.cc
                .on_congestion(ctx.now(), Congestion::Ecn { in_flight });
            ctx.counters().reductions += 1;
            self.reduced();
        }
        self.send_allowed(ctx);
    }

    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        match self.rto_deadline {
            Some(at) if at <= ctx.now() => self.on_timeout(ctx),
            other => ctx.set_deadline(other),
        }
    }

    fn on_stop(&mut self, _ctx: &mut EndpointCtx) {
        self.stopped = true;
    }

    fn header_family(&self) -> HeaderFamily {
        self.cc.header_family()
    }

    fn probe(&self) -> Probe {
        Probe {
            window: Some(self.cwnd() as f64),
            rate: None,
            srtt: self.rtt.srtt().map(|s| s.as_secs_f64()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{NewReno, NewRenoConfig};
    use sim_core::{stream, Harness, StreamKind};

    const MSS: u64 = 1000;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(x)
    }

    /// A sender driven through a [`Harness`].
    struct Rig {
        s: WindowSender,
        h: Harness,
    }

    impl Rig {
        fn new(cfg: TcpConfig, iw: u32, ssthresh: Option<u32>, size: Option<u64>) -> Self {
            let cc = NewReno::new(
                &NewRenoConfig {
                    initial_window: Some(iw),
                    initial_ssthresh: ssthresh,
                },
                MSS as u32,
            )
            .unwrap();
            Rig {
                s: WindowSender::new(&cfg, Box::new(cc), MSS as u32, size).unwrap(),
                h: Harness::new(stream(1, 0, StreamKind::Endpoint, 0)),
            }
        }
        fn call(&mut self, f: impl FnOnce(&mut WindowSender, &mut EndpointCtx)) -> Vec<Packet> {
            let s = &mut self.s;
            self.h.call(|ctx| f(s, ctx))
        }
        fn start(&mut self) -> Vec<Packet> {
            self.call(|s, c| s.on_start(c))
        }
        /// An ACK for `ack` echoing `echo`, arriving at `self.h.now`.
        fn ack_with(&mut self, ack: u64, echo: SimTime, flags: Flags) -> Vec<Packet> {
            let mut p = Packet::new(Default::default(), RouteId(1), PacketKind::Ack, 40, echo);
            p.ack = ack;
            p.echo = echo;
            p.flags = flags;
            self.call(|s, c| s.on_packet(p, c))
        }
        fn ack(&mut self, ack: u64) -> Vec<Packet> {
            self.ack_with(ack, SimTime::ZERO, Flags::NONE)
        }
        /// Jump to the timer deadline and fire it.
        fn fire(&mut self) -> Vec<Packet> {
            self.h.fire(&mut self.s)
        }
    }

    fn seqs(ps: &[Packet]) -> Vec<u64> {
        ps.iter().map(|p| p.seq).collect()
    }

    fn retx_cfg() -> TcpConfig {
        TcpConfig {
            min_rto: SimDuration::from_millis(200),
            ..TcpConfig::default()
        }
    }

    #[test]
    fn start_sends_the_initial_window_and_arms_the_initial_rto() {
        let mut r = Rig::new(TcpConfig::default(), 4, None, None);
        let out = r.start();
        assert_eq!(seqs(&out), [0, 1000, 2000, 3000]);
        assert!(out
            .iter()
            .all(|p| p.size == 1000 && p.kind == PacketKind::Data));
        assert!(out
            .iter()
            .all(|p| p.ecn == Ecn::NotEct && p.flags == Flags::NONE));
        assert_eq!(r.h.deadline, Some(ms(1000)));
    }

    #[test]
    fn slow_start_doubles_cwnd_per_round_trip() {
        let mut r = Rig::new(TcpConfig::default(), 4, None, None);
        r.start();
        r.h.now = ms(100);
        let mut sent = Vec::new();
        for a in 1..=4 {
            sent.extend(r.ack(a * MSS));
        }
        assert_eq!(r.s.cwnd(), 8000);
        assert_eq!(seqs(&sent), (4..12).map(|k| k * MSS).collect::<Vec<_>>());
        r.h.now = ms(200);
        for a in 5..=12 {
            r.ack(a * MSS);
        }
        assert_eq!(r.s.cwnd(), 16_000);
    }

    #[test]
    fn congestion_avoidance_adds_about_one_mss_per_round_trip() {
        let mut r = Rig::new(TcpConfig::default(), 10, Some(10), None);
        r.start();
        r.h.now = ms(100);
        let mut expect = 10_000.0f64;
        for a in 1..=10 {
            r.ack(a * MSS);
            expect += 1000.0 * 1000.0 / expect;
        }
        assert_eq!(r.s.cwnd(), expect as u64);
        assert!((10_900..11_000).contains(&r.s.cwnd()), "{}", r.s.cwnd());
    }

    #[test]
    fn triple_duplicate_ack_halves_the_window_and_retransmits_once() {
        let mut r = Rig::new(TcpConfig::default(), 10, None, None);
        r.start();
        r.h.now = ms(100);
        // Segment 0 is lost; segments 1..9 each produce a duplicate ACK of 0.
        let mut sent = Vec::new();
        for k in 1..=9 {
            let out = r.ack(0);
            if k < 3 {
                assert!(out.is_empty());
            }
            if k == 3 {
                assert_eq!(seqs(&out), [0]);
                assert!(out[0].flags.contains(Flags::RETX));
                assert_eq!(r.s.ssthresh(), Some(5000));
                assert_eq!(r.s.cwnd(), 8000);
                assert!(r.s.in_recovery());
            }
            sent.extend(out);
        }
        // Inflation: 5000 + 3*1000 + 6*1000 = 14000 -> new data up to byte 14000.
        assert_eq!(r.s.cwnd(), 14_000);
        assert_eq!(seqs(&sent), [0, 10_000, 11_000, 12_000, 13_000]);
        assert_eq!(
            sent.iter()
                .filter(|p| p.flags.contains(Flags::RETX))
                .count(),
            1
        );
        assert_eq!(r.h.counters.reductions, 1);
        assert_eq!(r.h.counters.timeouts, 0);
    }

    #[test]
    fn partial_ack_retransmits_the_next_hole_and_full_ack_exits_recovery() {
        let mut r = Rig::new(TcpConfig::default(), 10, None, None);
        r.start();
        r.h.now = ms(100);
        // Segments 0 and 5 lost: eight duplicate ACKs of 0.
        for _ in 0..8 {
            r.ack(0);
        }
        assert_eq!(r.s.cwnd(), 13_000);
        assert_eq!(r.s.snd_nxt(), 13_000);
        let before = r.h.deadline;
        r.h.now = ms(150);
        // The retransmitted 0 fills the first hole: partial ACK of 5000 (< recover 10000).
        let out = r.ack(5000);
        assert!(r.s.in_recovery());
        assert_eq!(seqs(&out), [5000, 13_000]);
        assert!(out[0].flags.contains(Flags::RETX) && !out[1].flags.contains(Flags::RETX));
        // Deflate by 5000, add back one MSS: 5000 + (8000 - 5000 + 1000) = 9000.
        assert_eq!(r.s.cwnd(), 9000);
        // The first partial ACK resets the timer.
        assert_ne!(r.h.deadline, before);
        // Everything up to 13000 arrived: a full ACK (>= recover).
        r.h.now = ms(200);
        let out = r.ack(13_000);
        assert!(!r.s.in_recovery());
        assert_eq!(r.s.cwnd(), 5000);
        // Flight 14000 - 13000 = 1000: four more segments fit in 5000.
        assert_eq!(seqs(&out), [14_000, 15_000, 16_000, 17_000]);
        assert_eq!(r.h.counters.reductions, 1);
    }

    #[test]
    fn duplicate_acks_below_recover_do_not_start_a_second_recovery() {
        let mut r = Rig::new(TcpConfig::default(), 10, None, None);
        r.start();
        r.h.now = ms(100);
        for _ in 0..3 {
            r.ack(0);
        }
        r.ack(10_000); // full ACK, exits
        let ss = r.s.ssthresh();
        let una = r.s.snd_una();
        for _ in 0..3 {
            r.ack(una);
        }
        // recover = 10000 <= snd_una: a new loss episode is allowed.
        assert!(r.s.in_recovery());
        assert_eq!(r.h.counters.reductions, 2);
        assert!(r.s.ssthresh() < ss);
    }

    #[test]
    fn ece_reduces_once_per_window_and_sets_cwr_on_the_next_new_packet() {
        let cfg = TcpConfig {
            ecn: true,
            ..TcpConfig::default()
        };
        let mut r = Rig::new(cfg, 10, None, None);
        let out = r.start();
        assert!(out.iter().all(|p| p.ecn == Ecn::Ect));
        r.h.now = ms(100);
        let mut sent = Vec::new();
        for a in 1..=10 {
            sent.extend(r.ack_with(a * MSS, SimTime::ZERO, Flags::ECE));
            if a == 1 {
                assert_eq!(r.s.ssthresh(), Some(5000));
                assert_eq!(r.s.cwnd(), 5000);
            }
        }
        assert_eq!(r.h.counters.reductions, 1);
        // New data resumes once the flight falls below cwnd; only the first has CWR.
        assert!(!sent.is_empty());
        assert_eq!(sent[0].seq, 10_000);
        assert!(sent[0].flags.contains(Flags::CWR));
        assert!(sent[1..].iter().all(|p| !p.flags.contains(Flags::CWR)));
        // An ECE acknowledging data sent after the reduction is a new signal.
        r.h.now = ms(200);
        r.ack_with(11_000, SimTime::ZERO, Flags::ECE);
        assert_eq!(r.h.counters.reductions, 2);
    }

    #[test]
    fn ece_is_ignored_during_loss_recovery() {
        let cfg = TcpConfig {
            ecn: true,
            ..TcpConfig::default()
        };
        let mut r = Rig::new(cfg, 10, None, None);
        r.start();
        for _ in 0..3 {
            r.ack(0);
        }
        for _ in 0..3 {
            r.ack_with(0, SimTime::ZERO, Flags::ECE);
        }
        r.ack_with(5000, SimTime::ZERO, Flags::ECE);
        assert!(r.s.in_recovery());
        assert_eq!(r.h.counters.reductions, 1);
        assert_eq!(r.s.ssthresh(), Some(5000));
    }

    #[test]
    fn rto_fires_backs_off_to_max_rto_and_goes_back_n() {
        let cfg = TcpConfig {
            ecn: true,
            max_rto: SimDuration::from_secs(3),
            ..retx_cfg()
        };
        let mut r = Rig::new(cfg, 4, None, None);
        r.start();
        assert_eq!(r.h.deadline, Some(ms(1000)));
        let out = r.fire();
        assert_eq!(r.h.now, ms(1000));
        assert_eq!(seqs(&out), [0]);
        assert!(out[0].flags.contains(Flags::RETX) && out[0].ecn == Ecn::NotEct);
        assert_eq!(r.s.cwnd(), 1000);
        assert_eq!(r.s.ssthresh(), Some(2000));
        assert_eq!(r.h.counters.timeouts, 1);
        assert_eq!(r.h.counters.reductions, 0);
        // Backoff: 2 x 1 s, then 4 s capped at max_rto = 3 s.
        assert_eq!(r.h.deadline, Some(ms(3000)));
        let out = r.fire();
        assert_eq!(seqs(&out), [0]);
        assert_eq!(r.h.deadline, Some(ms(6000)));
        assert_eq!(r.s.rtt().rto(), SimDuration::from_secs(3));
        // ssthresh is held on a repeated timeout of the same data.
        assert_eq!(r.s.ssthresh(), Some(2000));
        r.fire();
        assert_eq!(r.h.deadline, Some(ms(9000)));
        assert_eq!(r.h.counters.timeouts, 3);
        // The retransmission sent at 6 s is acked at 6.1 s: R = 100 ms resets the backoff.
        r.h.now = ms(6100);
        let out = r.ack_with(1000, ms(6000), Flags::NONE);
        assert_eq!(r.s.rtt().rto(), SimDuration::from_millis(300));
        assert_eq!(r.h.deadline, Some(ms(6400)));
        // Go-back-N: slow start from 1 MSS resends 1000 and 2000 (below snd_max).
        assert_eq!(r.s.cwnd(), 2000);
        assert_eq!(seqs(&out), [1000, 2000]);
        assert!(out
            .iter()
            .all(|p| p.flags.contains(Flags::RETX) && p.ecn == Ecn::NotEct));
        // The receiver had 3000..4000: its ACK jumps to 4000; new data follows with CWR.
        let out = r.ack_with(4000, ms(6000), Flags::NONE);
        assert_eq!(seqs(&out), [4000, 5000, 6000]);
        assert!(out[0].flags.contains(Flags::CWR) && out[0].ecn == Ecn::Ect);
        assert!(!out[0].flags.contains(Flags::RETX));
    }

    #[test]
    fn finite_flow_finishes_exactly_when_the_last_byte_is_acked() {
        let mut r = Rig::new(TcpConfig::default(), 4, None, Some(3500));
        let out = r.start();
        assert_eq!(seqs(&out), [0, 1000, 2000, 3000]);
        assert_eq!(out[3].size, 500);
        assert!(out[3].flags.contains(Flags::FIN));
        assert!(out[..3].iter().all(|p| !p.flags.contains(Flags::FIN)));
        r.h.now = ms(100);
        for a in [1000, 2000, 3000] {
            assert!(r.ack(a).is_empty());
            assert_eq!(r.h.finished, None);
        }
        r.h.now = ms(101);
        r.ack(3500);
        assert_eq!(r.h.finished, Some(ms(101)));
        assert_eq!(r.h.deadline, None);
        assert!(r.ack(3500).is_empty());
        assert!(r.call(|s, c| s.on_timer(c)).is_empty());
    }

    #[test]
    fn stop_ends_new_data_but_not_retransmissions() {
        let mut r = Rig::new(retx_cfg(), 4, None, None);
        r.start();
        r.call(|s, c| s.on_stop(c));
        r.h.now = ms(100);
        assert!(r.ack(1000).is_empty());
        let out = r.fire();
        assert_eq!(seqs(&out), [1000]);
        r.h.now += SimDuration::from_millis(100);
        assert_eq!(seqs(&r.ack(3000)), [3000]);
        r.ack(4000);
        assert_eq!(r.h.deadline, None);
        assert_eq!(r.h.finished, None);
    }

    #[test]
    fn receive_window_caps_the_flight() {
        let cfg = TcpConfig {
            rwnd_pkts: Some(2),
            ..TcpConfig::default()
        };
        let mut r = Rig::new(cfg, 4, None, None);
        assert_eq!(r.start().len(), 2);
        let p = r.s.probe();
        assert_eq!(p.window, Some(4000.0));
        assert_eq!(p.srtt, None);
    }

    #[test]
    fn bad_transport_parameters_are_rejected_with_their_key() {
        let cc = || -> Box<dyn Controller> {
            Box::new(NewReno::new(&NewRenoConfig::default(), 1000).unwrap())
        };
        let e = WindowSender::new(&TcpConfig::default(), cc(), 0, None)
            .err()
            .unwrap();
        assert_eq!(e.key, "mss");
        let e = WindowSender::new(&TcpConfig::default(), cc(), 1000, Some(0))
            .err()
            .unwrap();
        assert_eq!(e.key, "size");
        let bad = TcpConfig {
            dupack_threshold: 0,
            ..TcpConfig::default()
        };
        let e = WindowSender::new(&bad, cc(), 1000, None).err().unwrap();
        assert_eq!(e.key, "dupack_threshold");
    }
}
