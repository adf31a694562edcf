//! The TFRC sender (RFC 5348 section 4).
//!
//! Provenance: RFC 5348 sections 4.2 (initialisation), 4.3 (on feedback:
//! RTT, `X_recv_set`, `recv_limit`, the equation rate, slow start), 4.4
//! (no-feedback timer), 4.5 (oscillation prevention), 4.6 (packets spaced
//! at the rate; netsim's [`Pacer`]); the equation from [`super::equation`].
//!
//! - Before the first feedback X = 1 packet/s and the no-feedback timer is
//!   `initial_nofeedback` (2 s, RFC 4.2). The first packet leaves at the
//!   flow's start.
//! - On feedback: `R_sample = (now - t_recvdata) - t_delay`; `R` is an EWMA
//!   with weight `rtt_weight` (0.1) on the new sample, the first sample taken
//!   whole (RFC 4.3 step 2). At the first feedback, if p = 0, X = the initial
//!   rate (`W_init / R`, RFC 4.2) and `tld = now`. Otherwise (RFC 4.3 steps
//!   4-5, the sender never data-limited, INFERRED for a finite flow's tail):
//!   `X_recv` joins `X_recv_set`, entries older than 2 R leave it,
//!   `recv_limit = 2 max(X_recv_set)`; with p > 0, `X = max(min(X_calc,
//!   recv_limit), s / t_mbi)`; with p = 0, once per RTT (`now - tld >= R`),
//!   `X = max(min(2 X, recv_limit), initial_rate)` (slow start).
//! - No-feedback timer `max(4 R, 2 s / X)` (RFC 4.3 step 7; before any RTT,
//!   `max(initial_nofeedback, 2 s / X)`, INFERRED). At expiry (RFC 4.4): no
//!   feedback yet or p = 0: `X = max(X / 2, s / t_mbi)`; otherwise
//!   `Update_Limits(X_recv)` if `X_calc > 2 X_recv`, else
//!   `Update_Limits(X_calc / 2)`, which sets `X_recv_set = {max(limit, s /
//!   t_mbi) / 2}` and recomputes X as on feedback. (The idle-sender
//!   exceptions of RFC 4.4 do not arise: a TFRC flow here always has data
//!   until it ends.)
//! - Oscillation prevention (RFC 4.5, switchable): `R_sqmean` is an EWMA
//!   (weight 0.1 on the new value) of `sqrt(R_sample)`; packets are paced at
//!   `X_inst = X R_sqmean / sqrt(R_sample)`.
//! - Packets are numbered 0, 1, 2, ... in `Packet::seq` (the receiver's loss
//!   detection); each carries a [`TfrcData`] header: X, R, the echo of the
//!   latest feedback's send time and the offset since it arrived.
//! - A finite flow (INFERRED) ends when a feedback echoes its last packet,
//!   or at the first no-feedback expiry after that packet was sent (its
//!   receiver falls silent when data stops, and a lost last packet is never
//!   echoed); nothing is retransmitted.

use rand::Rng;
use sim_core::{
    CcHeader, Endpoint, EndpointCtx, Packet, PacketKind, Probe, SimDuration, SimTime, TfrcData,
};

use super::equation::{padhye, RtoRule};
use super::{InitialRate, TfrcConfig};
use crate::transport::{Pacer, PacingMode};

/// The TFRC sender endpoint.
#[derive(Clone, Debug)]
pub struct TfrcSender {
    /// Segment size s, bytes.
    s: u32,
    /// Bytes to send (`None`: unlimited).
    size: Option<u64>,
    rtt_weight: f64,
    b: f64,
    rto: RtoRule,
    oscillation_prevention: bool,
    initial_rate: InitialRate,
    t_mbi: f64,
    initial_nofeedback: SimDuration,
    pacing_jitter: f64,
    pacer: Pacer,
    /// Allowed rate X, bytes/s.
    x: f64,
    /// Last equation rate X_calc, bytes/s (0: none yet).
    x_calc: f64,
    /// Latest X_recv reported, bytes/s.
    x_recv: f64,
    /// X_recv_set: (time added, X_recv bytes/s).
    x_recv_set: Vec<(SimTime, f64)>,
    /// Latest loss-event rate reported.
    p: f64,
    /// Smoothed RTT R, seconds (`None`: no sample yet).
    r: Option<f64>,
    /// Latest RTT sample, seconds.
    r_sample: f64,
    /// EWMA of sqrt(R_sample) (oscillation prevention).
    r_sqmean: f64,
    /// Time of the last doubling in slow start.
    tld: SimTime,
    got_feedback: bool,
    /// Send time of the latest feedback and when it arrived.
    last_fb: Option<(SimTime, SimTime)>,
    /// No-feedback timer deadline.
    nofeedback: SimTime,
    /// Next packet number.
    seq: u64,
    /// Bytes sent.
    sent_bytes: u64,
    /// Send time of the last packet of a finite flow, once sent.
    last_sent: Option<SimTime>,
    stopped: bool,
    done: bool,
    /// Integral of the pacing rate, bits, up to `rate_at`.
    rate_bits: f64,
    rate_at: SimTime,
    /// The pacing rate in force, bits/s.
    pace_bps: f64,
}

impl TfrcSender {
    /// A sender of `s`-byte packets with the parameters of `cfg`
    /// (validated), sending `size` bytes (`None`: without end).
    pub fn new(cfg: &TfrcConfig, s: u32, size: Option<u64>) -> Self {
        TfrcSender {
            s,
            size,
            rtt_weight: cfg.rtt_weight,
            b: cfg.b,
            rto: cfg.rto_rule(),
            oscillation_prevention: cfg.oscillation_prevention,
            initial_rate: cfg.initial_rate,
            t_mbi: cfg.t_mbi.as_secs_f64(),
            initial_nofeedback: cfg.initial_nofeedback,
            pacing_jitter: cfg.pacing_jitter,
            pacer: Pacer::new(PacingMode::Restart),
            x: f64::from(s),
            x_calc: 0.0,
            x_recv: 0.0,
            x_recv_set: Vec::new(),
            p: 0.0,
            r: None,
            r_sample: 0.0,
            r_sqmean: 0.0,
            tld: SimTime::ZERO,
            got_feedback: false,
            last_fb: None,
            nofeedback: SimTime::MAX,
            seq: 0,
            sent_bytes: 0,
            last_sent: None,
            stopped: false,
            done: false,
            rate_bits: 0.0,
            rate_at: SimTime::ZERO,
            pace_bps: 0.0,
        }
    }

    /// The allowed rate X, bytes/s.
    pub fn allowed_rate(&self) -> f64 {
        self.x
    }

    /// The latest loss-event rate the receiver reported.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// The smoothed RTT R, seconds (`None` before the first feedback).
    pub fn rtt(&self) -> Option<f64> {
        self.r
    }

    /// The last equation rate X_calc, bytes/s (0 before a loss event).
    pub fn x_calc(&self) -> f64 {
        self.x_calc
    }

    /// The rate packets are paced at, bytes/s: X, or with oscillation
    /// prevention `X R_sqmean / sqrt(R_sample)`.
    pub fn send_rate(&self) -> f64 {
        if self.oscillation_prevention && self.r.is_some() && self.r_sample > 0.0 {
            self.x * self.r_sqmean / self.r_sample.sqrt()
        } else {
            self.x
        }
    }

    fn s(&self) -> f64 {
        f64::from(self.s)
    }

    /// RFC 5348 section 4.2's initial rate for RTT `r`, bytes/s.
    fn initial(&self, r: f64) -> f64 {
        let s = self.s();
        match self.initial_rate {
            InitialRate::Rfc5348 => (4.0 * s).min((2.0 * s).max(4380.0)) / r,
            InitialRate::OnePacket => s / r,
        }
    }

    fn min_rate(&self) -> f64 {
        self.s() / self.t_mbi
    }

    /// RFC 4.3 step 5 with `recv_limit`.
    fn recompute(&mut self, now: SimTime, recv_limit: f64) {
        let r = self.r.unwrap_or(1.0);
        if self.p > 0.0 {
            self.x_calc = padhye(self.s(), r, self.p, self.b, self.rto.rto(r), f64::INFINITY);
            self.x = self.x_calc.min(recv_limit).max(self.min_rate());
        } else if now.saturating_since(self.tld).as_secs_f64() >= r {
            self.x = (2.0 * self.x).min(recv_limit).max(self.initial(r));
            self.tld = now;
        }
    }

    fn recv_limit(&self) -> f64 {
        let m = self.x_recv_set.iter().map(|e| e.1).fold(f64::NAN, f64::max);
        if m.is_nan() {
            f64::INFINITY
        } else {
            2.0 * m
        }
    }

    fn arm_nofeedback(&mut self, now: SimTime) {
        let gap = 2.0 * self.s() / self.x;
        let t = match self.r {
            Some(r) => (4.0 * r).max(gap),
            None => self.initial_nofeedback.as_secs_f64().max(gap),
        };
        self.nofeedback = now.saturating_add(SimDuration::from_secs_f64(t));
    }

    /// Account the pacing rate's integral and apply a new rate.
    fn update_pacing(&mut self, now: SimTime) {
        self.rate_bits += self.pace_bps * now.saturating_since(self.rate_at).as_secs_f64();
        self.rate_at = now;
        self.pace_bps = 8.0 * self.send_rate();
        self.pacer.set_rate(now, self.pace_bps);
    }

    fn has_data(&self) -> bool {
        !self.stopped && self.size.is_none_or(|n| self.sent_bytes < n)
    }

    fn send_one(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        let len = match self.size {
            Some(n) => (n - self.sent_bytes).min(u64::from(self.s)) as u32,
            None => self.s,
        };
        let (echo, offset) = match self.last_fb {
            Some((sent, got)) => (sent, now.saturating_since(got)),
            None => (SimTime::ZERO, SimDuration::ZERO),
        };
        let mut p = Packet::new(ctx.flow(), Default::default(), PacketKind::Data, len, now);
        p.seq = self.seq;
        p.cc = CcHeader::TfrcData(TfrcData {
            rate: self.x,
            echo,
            offset,
            rtt: SimDuration::from_secs_f64(self.r.unwrap_or(0.0)),
        });
        ctx.send(p);
        self.seq += 1;
        self.sent_bytes += u64::from(len);
        if !self.has_data() && self.size.is_some() {
            self.last_sent = Some(now);
        }
        let stretch = if self.pacing_jitter > 0.0 {
            self.pacing_jitter * ctx.rng().random_range(-1.0..=1.0)
        } else {
            0.0
        };
        self.pacer.sent(now, u64::from(len), self.pace_bps, stretch);
    }

    fn reschedule(&mut self, ctx: &mut EndpointCtx) {
        if self.done || self.stopped {
            ctx.set_deadline(None);
            return;
        }
        let now = ctx.now();
        let send = if self.has_data() {
            self.pacer.next_departure()
        } else {
            None
        };
        let t = send.map_or(self.nofeedback, |s| s.min(self.nofeedback));
        ctx.set_deadline(Some(t.max(now)));
    }

    fn finish(&mut self, ctx: &mut EndpointCtx) {
        self.done = true;
        ctx.finish();
    }

    /// RFC 5348 section 4.4.
    fn on_nofeedback(&mut self, now: SimTime) {
        if !self.got_feedback || self.p == 0.0 {
            self.x = (self.x / 2.0).max(self.min_rate());
        } else {
            let limit = if self.x_calc > 2.0 * self.x_recv {
                self.x_recv
            } else {
                self.x_calc / 2.0
            };
            let limit = limit.max(self.min_rate());
            self.x_recv_set = vec![(now, limit / 2.0)];
            let recv_limit = self.recv_limit();
            self.recompute(now, recv_limit);
        }
        self.arm_nofeedback(now);
        self.update_pacing(now);
    }

    fn on_feedback(&mut self, pkt: &Packet, ctx: &mut EndpointCtx) {
        let CcHeader::TfrcFeedback(fb) = pkt.cc else {
            return;
        };
        let now = ctx.now();
        let sample = now.saturating_since(pkt.echo).saturating_sub(fb.t_delay);
        let sample = sample.as_secs_f64();
        if sample > 0.0 {
            self.r = Some(match self.r {
                None => sample,
                Some(r) => (1.0 - self.rtt_weight) * r + self.rtt_weight * sample,
            });
            self.r_sqmean = if self.r_sample > 0.0 {
                0.9 * self.r_sqmean + 0.1 * sample.sqrt()
            } else {
                sample.sqrt()
            };
            self.r_sample = sample;
        }
        self.last_fb = Some((pkt.sent, now));
        self.p = f64::from(fb.p);
        self.x_recv = fb.x_recv;
        let Some(r) = self.r else {
            return;
        };
        if !self.got_feedback && self.p == 0.0 {
            self.got_feedback = true;
            self.x = self.initial(r);
            self.tld = now;
        } else {
            self.got_feedback = true;
            let horizon = SimDuration::from_secs_f64(2.0 * r);
            self.x_recv_set
                .retain(|e| now.saturating_since(e.0) <= horizon);
            self.x_recv_set.push((now, self.x_recv));
            let recv_limit = self.recv_limit();
            self.recompute(now, recv_limit);
        }
        self.arm_nofeedback(now);
        self.update_pacing(now);
        if self.last_sent.is_some_and(|t| pkt.echo >= t) {
            self.finish(ctx);
        }
    }
}

impl Endpoint for TfrcSender {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        self.rate_at = now;
        self.tld = now;
        self.arm_nofeedback(now);
        self.update_pacing(now);
        if self.has_data() {
            self.send_one(ctx);
        }
        self.reschedule(ctx);
    }

    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx) {
        if self.done || pkt.kind != PacketKind::Ack {
            return;
        }
        self.on_feedback(&pkt, ctx);
        self.reschedule(ctx);
    }

    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        if self.done {
            return;
        }
        if now >= self.nofeedback {
            if self.last_sent.is_some() {
                self.finish(ctx);
                ctx.set_deadline(None);
                return;
            }
            self.on_nofeedback(now);
        }
        if self.has_data() && self.pacer.ready(now) {
            self.send_one(ctx);
        }
        self.reschedule(ctx);
    }

    fn on_stop(&mut self, ctx: &mut EndpointCtx) {
        self.stopped = true;
        ctx.set_deadline(None);
    }

    fn probe(&self) -> Probe {
        Probe {
            rate: Some(self.pace_bps),
            rate_bits: Some((self.rate_bits, self.rate_at)),
            srtt: self.r,
            loss_event_rate: Some(self.p),
            ..Probe::default()
        }
    }

    fn flow_size(&self) -> Option<u64> {
        self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stream, Harness, StreamKind, TfrcFeedback};

    fn feedback(sent: SimTime, echo: SimTime, x_recv: f64, p: f32) -> Packet {
        let mut f = Packet::new(
            Default::default(),
            Default::default(),
            PacketKind::Ack,
            40,
            sent,
        );
        f.echo = echo;
        f.cc = CcHeader::TfrcFeedback(TfrcFeedback {
            x_recv,
            allowed: f64::INFINITY,
            t_delay: SimDuration::ZERO,
            p,
            rtt: 0.1,
        });
        f
    }

    fn ms(t: u64) -> SimTime {
        SimTime::from_ps(t * 1_000_000_000)
    }

    fn cfg() -> TfrcConfig {
        TfrcConfig {
            pacing_jitter: 0.0,
            oscillation_prevention: false,
            ..TfrcConfig::default()
        }
    }

    #[test]
    fn it_starts_at_one_packet_per_second_then_takes_the_initial_rate() {
        let mut s = TfrcSender::new(&cfg(), 1000, None);
        let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
        let out = h.call(|ctx| s.on_start(ctx));
        assert_eq!(out.len(), 1);
        assert_eq!(s.allowed_rate(), 1000.0);
        assert_eq!(h.deadline, Some(ms(1000)));
        // Feedback at 100 ms echoing the first packet: R = 0.1 s, X = W_init / R
        // = min(4000, max(2000, 4380)) / 0.1 = 40 kB/s.
        h.now = ms(100);
        h.call(|ctx| s.on_packet(feedback(ms(50), ms(0), 0.0, 0.0), ctx));
        assert_eq!(s.rtt(), Some(0.1));
        assert!((s.allowed_rate() - 40_000.0).abs() < 1e-9);
        // Paced at 40 kB/s: the next packet 25 ms after the first (restart
        // from the last departure at 0 ms, already due).
        assert_eq!(h.deadline, Some(ms(100)));
        let data = h.fire(&mut s);
        let CcHeader::TfrcData(d) = data[0].cc else {
            panic!()
        };
        assert_eq!(
            (data[0].seq, d.echo, d.offset),
            (1, ms(50), SimDuration::ZERO)
        );
        assert_eq!(h.deadline, Some(ms(125)));
    }

    #[test]
    fn slow_start_doubles_once_per_rtt_up_to_twice_x_recv() {
        let mut s = TfrcSender::new(&cfg(), 1000, None);
        let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
        h.call(|ctx| s.on_start(ctx));
        h.now = ms(100);
        h.call(|ctx| s.on_packet(feedback(ms(50), ms(0), 0.0, 0.0), ctx));
        assert_eq!(s.allowed_rate(), 40_000.0);
        // 50 ms later: less than R since the last doubling: unchanged.
        h.now = ms(150);
        h.call(|ctx| s.on_packet(feedback(ms(100), ms(50), 40_000.0, 0.0), ctx));
        assert_eq!(s.allowed_rate(), 40_000.0);
        // At 200 ms: doubled, within 2 X_recv = 80 kB/s.
        h.now = ms(250);
        h.call(|ctx| s.on_packet(feedback(ms(200), ms(150), 40_000.0, 0.0), ctx));
        assert_eq!(s.allowed_rate(), 80_000.0);
        // Next: 2 X = 160 kB/s but X_recv_set's max is 40 kB/s: 80 kB/s.
        h.now = ms(400);
        h.call(|ctx| s.on_packet(feedback(ms(350), ms(300), 40_000.0, 0.0), ctx));
        assert_eq!(s.allowed_rate(), 80_000.0);
    }

    #[test]
    fn with_loss_the_rate_is_the_equation_limited_by_receive_rate() {
        let mut s = TfrcSender::new(&cfg(), 1000, None);
        let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
        h.call(|ctx| s.on_start(ctx));
        h.now = ms(100);
        h.call(|ctx| s.on_packet(feedback(ms(50), ms(0), 0.0, 0.0), ctx));
        h.now = ms(300);
        h.call(|ctx| s.on_packet(feedback(ms(250), ms(200), 1e6, 0.01), ctx));
        // R stays 0.1 (every sample is 0.1 s): X = X_calc(0.01) = 112.33 kB/s.
        assert!(
            (s.allowed_rate() - 112_330.0).abs() < 10.0,
            "{}",
            s.allowed_rate()
        );
        // X_recv low: limited to 2 X_recv (the 1e6 entry is 2 R old at 500 ms
        // and leaves at 501 ms).
        h.now = ms(501);
        h.call(|ctx| s.on_packet(feedback(ms(450), ms(401), 10_000.0, 0.01), ctx));
        assert_eq!(s.allowed_rate(), 20_000.0);
    }

    #[test]
    fn the_nofeedback_timer_halves_the_rate() {
        let mut s = TfrcSender::new(&cfg(), 1000, None);
        let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
        h.call(|ctx| s.on_start(ctx));
        h.now = ms(100);
        h.call(|ctx| s.on_packet(feedback(ms(50), ms(0), 0.0, 0.0), ctx));
        // Nofeedback timer max(4 R, 2 s / X) = max(400 ms, 50 ms) from 100 ms.
        while h.now < ms(500) {
            h.fire(&mut s);
        }
        assert_eq!(h.now, ms(500));
        assert_eq!(s.allowed_rate(), 20_000.0);
        // With p > 0: X_calc = 112 kB/s > 2 X_recv = 20 kB/s: limit X_recv,
        // X_recv_set = {5 kB/s}, X = min(X_calc, 10 kB/s).
        h.now = ms(600);
        h.call(|ctx| s.on_packet(feedback(ms(550), ms(500), 10_000.0, 0.01), ctx));
        let t = s.nofeedback;
        while h.now < t {
            h.fire(&mut s);
        }
        assert_eq!(s.allowed_rate(), 10_000.0);
    }

    #[test]
    fn oscillation_prevention_scales_by_sqrt_rtt_ratio() {
        let mut s = TfrcSender::new(
            &TfrcConfig {
                pacing_jitter: 0.0,
                ..TfrcConfig::default()
            },
            1000,
            None,
        );
        let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
        h.call(|ctx| s.on_start(ctx));
        h.now = ms(100);
        h.call(|ctx| s.on_packet(feedback(ms(50), ms(0), 0.0, 0.0), ctx));
        assert_eq!(s.send_rate(), s.allowed_rate());
        // A sample of 400 ms: R_sqmean = 0.9 sqrt(0.1) + 0.1 sqrt(0.4).
        h.now = ms(600);
        h.call(|ctx| s.on_packet(feedback(ms(550), ms(200), 0.0, 0.0), ctx));
        let sq = 0.9 * 0.1f64.sqrt() + 0.1 * 0.4f64.sqrt();
        assert!((s.send_rate() - s.allowed_rate() * sq / 0.4f64.sqrt()).abs() < 1e-6);
        assert!(s.send_rate() < s.allowed_rate());
    }

    #[test]
    fn a_finite_flow_ends_when_its_last_packet_is_echoed() {
        let mut s = TfrcSender::new(&cfg(), 1000, Some(2500));
        let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
        h.call(|ctx| s.on_start(ctx));
        h.now = ms(100);
        h.call(|ctx| s.on_packet(feedback(ms(50), ms(0), 0.0, 0.0), ctx));
        let mut sizes = vec![1000];
        let mut last = SimTime::ZERO;
        while sizes.len() < 3 {
            for p in h.fire(&mut s) {
                sizes.push(p.size);
                last = p.sent;
            }
        }
        assert_eq!(sizes, [1000, 1000, 500]);
        assert!(h.finished.is_none());
        h.now = last + SimDuration::from_millis(100);
        h.call(|ctx| {
            s.on_packet(
                feedback(last + SimDuration::from_millis(50), last, 0.0, 0.0),
                ctx,
            )
        });
        assert_eq!(h.finished, Some(h.now));
        assert_eq!(h.deadline, None);
    }
}
