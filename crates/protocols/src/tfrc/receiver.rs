//! The TFRC receiver (RFC 5348 section 6).
//!
//! Provenance: RFC 5348 sections 6 (receiver protocol), 6.1 (on a data
//! packet), 6.2 (feedback timer), 6.3 / 6.3.1 (first packet, first loss
//! event); loss events and p from [`super::loss_events`].
//!
//! - Every data packet goes into the loss history with the RTT the sender
//!   carries in its header (`R_m`, RFC 5348 section 6.1), which bounds one
//!   loss event. INFERRED: before the sender has an RTT (its header carries
//!   0) every loss starts its own event (RTT 0).
//! - Feedback: at the first data packet (RFC 6.3), then at every expiry of
//!   the feedback timer, every `R_m` (RFC 6.2, ns-2's `NumFeedback_ = 1`),
//!   and at once when a new loss event raises p (RFC 6.1 step 4). INFERRED:
//!   while the sender reports no RTT, every data packet is answered (at the
//!   initial 1 packet/s this is the timer's role), and a timer that expires
//!   with no data since the last feedback sends nothing and is re-armed by
//!   the next data packet (RFC 6.2 re-arms it at once; the difference is
//!   only idle timer events).
//! - X_recv: the bytes that arrived in the last `R_m` (RFC 5348 section 6.2
//!   "the rate at which data was received over the last RTT"; before `R_m` is
//!   known, since the first arrival; 0 over an empty window).
//! - The first loss event's interval (RFC 6.3.1): the loss interval whose
//!   equation rate `X(1/I)` equals the receive rate over the last RTT before
//!   the loss (here the larger of the last X_recv reported and the current
//!   window's), with the equation of [`super::equation`] at `R_m`.
//! - Feedback header: X_recv, p, the receiver's RTT (`R_m`), t_delay (time
//!   since the echoed data packet arrived) and the allowed rate `f64::INFINITY`
//!   (TFRC's receiver does not limit the sender); the echoed data timestamp
//!   rides in `Packet::echo`.

use std::collections::VecDeque;

use sim_core::{
    CcHeader, Endpoint, EndpointCtx, Packet, PacketKind, SimDuration, SimTime, TfrcFeedback,
};

use super::equation::{p_for_rate, RtoRule};
use super::loss_events::{Arrival, LossHistory};
use super::TfrcConfig;

/// The TFRC receiver endpoint.
#[derive(Clone, Debug)]
pub struct TfrcReceiver {
    history: LossHistory,
    feedback_size: u32,
    b: f64,
    rto: RtoRule,
    /// The sender's RTT from the latest data header (`R_m`; zero: none yet).
    r_m: SimDuration,
    /// Send time and arrival time of the latest data packet.
    last_data: Option<(SimTime, SimTime)>,
    /// First arrival (start of the X_recv window before `R_m` is known).
    first_arrival: Option<SimTime>,
    /// Arrivals in the last `R_m`: (arrival time, bytes).
    window: VecDeque<(SimTime, u32)>,
    /// Bytes in `window`.
    window_bytes: u64,
    /// Size of the latest data packet, bytes (the equation's s).
    s: u32,
    /// Data arrived since the last feedback.
    fresh: bool,
    /// The last X_recv reported, bytes/s.
    last_x_recv: f64,
    /// The p of the last feedback.
    last_p: f64,
    /// Feedback packets sent.
    feedbacks: u64,
}

impl TfrcReceiver {
    /// A receiver with the parameters of `cfg` (validated).
    pub fn new(cfg: &TfrcConfig) -> Self {
        TfrcReceiver {
            history: LossHistory::new(cfg.ali()),
            feedback_size: u32::try_from(cfg.feedback_size.get()).unwrap_or(u32::MAX),
            b: cfg.b,
            rto: cfg.rto_rule(),
            r_m: SimDuration::ZERO,
            last_data: None,
            first_arrival: None,
            window: VecDeque::new(),
            window_bytes: 0,
            s: 0,
            fresh: false,
            last_x_recv: 0.0,
            last_p: 0.0,
            feedbacks: 0,
        }
    }

    /// The loss history (p, loss events, intervals).
    pub fn history(&self) -> &LossHistory {
        &self.history
    }

    /// Feedback packets sent so far.
    pub fn feedbacks(&self) -> u64 {
        self.feedbacks
    }

    /// Drop arrivals older than `R_m` from the X_recv window.
    fn prune(&mut self, now: SimTime) {
        if self.r_m == SimDuration::ZERO {
            return;
        }
        while let Some(&(t, b)) = self.window.front() {
            if now.saturating_since(t) > self.r_m {
                self.window.pop_front();
                self.window_bytes -= u64::from(b);
            } else {
                break;
            }
        }
    }

    /// The receive rate over the last RTT, bytes/s.
    fn x_recv(&mut self, now: SimTime) -> f64 {
        self.prune(now);
        let span = if self.r_m > SimDuration::ZERO {
            self.r_m.as_secs_f64()
        } else {
            self.first_arrival
                .map_or(0.0, |t| now.saturating_since(t).as_secs_f64())
        };
        if span > 0.0 {
            self.window_bytes as f64 / span
        } else {
            0.0
        }
    }

    fn send_feedback(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        let Some((sent, arrived)) = self.last_data else {
            return;
        };
        let x_recv = self.x_recv(now);
        let p = self.history.p();
        let mut pkt = Packet::new(
            ctx.flow(),
            Default::default(),
            PacketKind::Ack,
            self.feedback_size,
            now,
        );
        pkt.echo = sent;
        pkt.cc = CcHeader::TfrcFeedback(TfrcFeedback {
            x_recv,
            allowed: f64::INFINITY,
            t_delay: now.saturating_since(arrived),
            p: p as f32,
            rtt: self.r_m.as_secs_f64() as f32,
        });
        ctx.send(pkt);
        self.feedbacks += 1;
        self.fresh = false;
        self.last_x_recv = x_recv;
        self.last_p = p;
        let next = (self.r_m > SimDuration::ZERO).then(|| now.saturating_add(self.r_m));
        ctx.set_deadline(next);
    }
}

impl Endpoint for TfrcReceiver {
    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        let now = ctx.now();
        ctx.counters().goodput_bytes += u64::from(pkt.size);
        if let CcHeader::TfrcData(d) = pkt.cc {
            if d.rtt > SimDuration::ZERO {
                self.r_m = d.rtt;
            }
        }
        self.s = pkt.size;
        let first = self.last_data.is_none();
        self.first_arrival.get_or_insert(now);
        self.last_data = Some((pkt.sent, now));
        self.window.push_back((now, pkt.size));
        self.window_bytes += u64::from(pkt.size);
        self.fresh = true;
        let events_before = self.history.events();
        let arrival = self.history.on_packet(pkt.seq, pkt.sent, self.r_m);
        if events_before == 0 && matches!(arrival, Arrival::NewEvents(_)) {
            // RFC 5348 section 6.3.1: the synthetic first interval.
            let x = self.last_x_recv.max(self.x_recv(now));
            let r = self.r_m.as_secs_f64();
            if x > 0.0 && r > 0.0 && self.history.events() == 1 {
                let p = p_for_rate(x, f64::from(self.s), r, self.b, self.rto.rto(r));
                self.history.set_first_interval(1.0 / p);
            }
        }
        let urgent = first
            || self.r_m == SimDuration::ZERO
            || (matches!(arrival, Arrival::NewEvents(_)) && self.history.p() > self.last_p);
        if urgent {
            self.send_feedback(ctx);
        } else if ctx.deadline().is_none() {
            ctx.set_deadline(Some(now.saturating_add(self.r_m)));
        }
    }

    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        if self.fresh {
            self.send_feedback(ctx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stream, Harness, StreamKind, TfrcData};

    fn data(seq: u64, sent_ms: u64, rtt_ms: u64) -> Packet {
        let mut p = Packet::new(
            Default::default(),
            Default::default(),
            PacketKind::Data,
            1000,
            SimTime::from_ps(sent_ms * 1_000_000_000),
        );
        p.seq = seq;
        p.cc = CcHeader::TfrcData(TfrcData {
            rate: 1e5,
            rtt: SimDuration::from_millis(rtt_ms),
            ..TfrcData::default()
        });
        p
    }

    #[test]
    fn the_first_packet_is_answered_and_then_feedback_comes_once_per_rtt() {
        let mut r = TfrcReceiver::new(&TfrcConfig::default());
        let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
        // 100 packets, one every 10 ms, sender RTT 100 ms, arrival 50 ms later.
        let mut fb = Vec::new();
        for k in 0..100u64 {
            let at = SimTime::from_ps((k * 10 + 50) * 1_000_000_000);
            while h.deadline.is_some_and(|d| d <= at) {
                fb.extend(h.fire(&mut r));
            }
            h.now = at;
            fb.extend(h.call(|ctx| r.on_packet(data(k, k * 10, 100), ctx)));
        }
        // First at 50 ms, then every 100 ms up to 1040 ms: 50, 150, ..., 950.
        assert_eq!(
            fb.len(),
            10,
            "{:?}",
            fb.iter().map(|p| p.sent).collect::<Vec<_>>()
        );
        let CcHeader::TfrcFeedback(f) = fb[5].cc else {
            panic!()
        };
        // 10 packets of 1000 B in the last 100 ms: 100 kB/s.
        assert!((f.x_recv - 1e5).abs() < 1e-6, "{}", f.x_recv);
        assert_eq!(f.p, 0.0);
        assert_eq!(f.allowed, f64::INFINITY);
        assert!((f.rtt - 0.1).abs() < 1e-7);
        // At 550 ms the latest data packet was sent at 490 ms and arrived at
        // 540 ms: it is echoed, with t_delay 10 ms.
        assert_eq!(fb[5].sent, SimTime::from_ps(550 * 1_000_000_000));
        assert_eq!(fb[5].echo, SimTime::from_ps(490 * 1_000_000_000));
        assert_eq!(f.t_delay, SimDuration::from_millis(10));
        assert_eq!(fb[0].size, 40);
    }

    #[test]
    fn a_new_loss_event_is_reported_at_once_with_a_synthetic_first_interval() {
        let mut r = TfrcReceiver::new(&TfrcConfig::default());
        let mut h = Harness::new(stream(1, 0, StreamKind::Endpoint, 0));
        let mut fb = Vec::new();
        for k in (0..60u64).filter(|&k| k != 40) {
            let at = SimTime::from_ps((k * 10 + 50) * 1_000_000_000);
            while h.deadline.is_some_and(|d| d <= at) {
                fb.extend(h.fire(&mut r));
            }
            h.now = at;
            let out = h.call(|ctx| r.on_packet(data(k, k * 10, 100), ctx));
            if k == 41 {
                assert_eq!(out.len(), 1, "feedback at once on the loss");
            }
            fb.extend(out);
        }
        assert_eq!(r.history().events(), 1);
        // X_recv 100 kB/s at R = 0.1 s, s = 1000 B: the interval whose
        // equation rate is 100 pkt/s.
        let want = 1.0 / p_for_rate(1e5, 1000.0, 0.1, 1.0, 0.4);
        let got = r.history().intervals().next().unwrap();
        assert!((got - want).abs() < 1e-9, "{got} {want}");
        assert!(r.history().p() > 0.0);
    }
}
