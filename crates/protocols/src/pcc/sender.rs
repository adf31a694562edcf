//! PCC's sender: the non-adaptable application at r_NA, on or off as the
//! receiver's control packets say.
//!
//! Provenance (spec `seed-004-damm-pcc.md` §2.1, §2.11; thesis §5.2-5.3):
//! - \[DOC\] constant bit rate at r_NA from the start, no slow start; every
//!   data packet carries r_NA, the echo of the last control packet's
//!   timestamp and the offset (time from that control packet's arrival to
//!   this data packet's departure), and a sequence number.
//! - [DOC §5.3.2, EXT ns-2 tfrc.cc] the inter-packet gap is
//!   `s / r_NA · (2·overhead·U - overhead + 1)`, U uniform in [0, 1): uniform
//!   in `[(1 - overhead), (1 + overhead)] × s / r_NA`, mean `s / r_NA`.
//! - \[DOC\] a control packet with rate 0 stops the sender, one with rate ∞
//!   (any non-zero rate) lets it send; the no-feedback timer,
//!   `no_feedback_rtts` (24) × the srtt the last control packet carried,
//!   stops it when it expires. INFERRED (spec 2.11): the sender resumes on
//!   the next control packet with rate ∞; before any control packet the
//!   no-feedback time is `no_feedback_initial` (see [`super::config`]).
//! - Probes: `rate_bps` is r_NA while on and 0 while off (the on/off state),
//!   `srtt_s` and `loss_event_rate` are the receiver's, from its last
//!   control packet.
//! - Time on (`pcc_on_ps`) is the time the sender is allowed to send,
//!   accounted at each of its events (data sent, control packet, timer), so
//!   a measurement window's edge cuts it within one inter-packet gap.

use rand::Rng;
use sim_core::{
    Endpoint, EndpointCtx, HeaderFamily, Packet, PacketKind, Probe, SimDuration, SimTime,
};

use super::config::PccConfig;
use super::wire;

/// Why the sender is not sending.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SenderState {
    /// Sending at r_NA.
    On,
    /// The receiver sent rate 0.
    Off,
    /// The no-feedback timer expired.
    NoFeedback,
    /// The flow's stop time passed.
    Stopped,
}

/// The PCC sender endpoint.
#[derive(Clone, Debug)]
pub struct PccSender {
    /// r_NA, bytes/s.
    r_na: f64,
    /// Data packet size, bytes.
    size: u32,
    overhead: f64,
    no_feedback_rtts: f64,
    no_feedback_initial: SimDuration,
    state: SenderState,
    /// Next data packet (when on).
    next_send: SimTime,
    /// No-feedback deadline (None once stopped for good).
    no_feedback_at: Option<SimTime>,
    /// Timestamp of the last control packet (the receiver's send time).
    echo: SimTime,
    /// Arrival of the last control packet (for the offset).
    echo_arrived: SimTime,
    /// Packets sent (the next sequence number).
    seq: u64,
    /// The srtt the last control packet carried, seconds (0: none).
    srtt: f64,
    /// The loss event rate the last control packet carried (0: none).
    p: f64,
    /// Last time on-time was accounted.
    accounted: SimTime,
    /// Times the sender stopped (rate 0 or no feedback).
    stops: u64,
}

impl PccSender {
    /// A sender of `size`-byte packets with the flow's parameters (validated).
    pub fn new(cfg: &PccConfig, size: u32) -> Self {
        PccSender {
            r_na: cfg.rate.bps_f64() / 8.0,
            size,
            overhead: cfg.overhead,
            no_feedback_rtts: cfg.no_feedback_rtts,
            no_feedback_initial: cfg.no_feedback_initial,
            state: SenderState::On,
            next_send: SimTime::ZERO,
            no_feedback_at: None,
            echo: SimTime::ZERO,
            echo_arrived: SimTime::ZERO,
            seq: 0,
            srtt: 0.0,
            p: 0.0,
            accounted: SimTime::ZERO,
            stops: 0,
        }
    }

    /// Current state.
    pub fn state(&self) -> SenderState {
        self.state
    }

    /// Times the sender stopped (control packet with rate 0, or no feedback).
    pub fn stops(&self) -> u64 {
        self.stops
    }

    /// Add the time on since the last event to the flow's counter.
    fn account(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        if self.state == SenderState::On {
            ctx.counters().pcc_on_ps += now.saturating_since(self.accounted).as_ps();
        }
        self.accounted = now;
    }

    fn gap(&self, ctx: &mut EndpointCtx) -> SimDuration {
        let nominal = f64::from(self.size) / self.r_na;
        let u: f64 = if self.overhead > 0.0 {
            ctx.rng().random()
        } else {
            0.0
        };
        SimDuration::from_secs_f64(nominal * (2.0 * self.overhead * u - self.overhead + 1.0))
    }

    fn send_one(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        let offset = if self.echo == SimTime::ZERO {
            SimDuration::ZERO
        } else {
            now.saturating_since(self.echo_arrived)
        };
        let p = ctx.send_in_place(Packet::new(
            ctx.flow(),
            Default::default(),
            PacketKind::Data,
            self.size,
            now,
        ));
        p.seq = self.seq;
        p.cc = wire::data_header(self.r_na, self.echo, offset, self.srtt);
        self.seq += 1;
        self.next_send = now + self.gap(ctx);
    }

    fn arm(&mut self, ctx: &mut EndpointCtx) {
        let send = (self.state == SenderState::On).then_some(self.next_send);
        let at = [send, self.no_feedback_at].into_iter().flatten().min();
        ctx.set_deadline(at.map(|t| t.max(ctx.now())));
    }

    fn stop(&mut self, why: SenderState, ctx: &mut EndpointCtx) {
        if self.state == SenderState::On {
            self.stops += 1;
            ctx.counters().pcc_off_periods += 1;
        }
        self.state = why;
    }
}

impl Endpoint for PccSender {
    fn on_start(&mut self, ctx: &mut EndpointCtx) {
        self.accounted = ctx.now();
        self.no_feedback_at = Some(ctx.now() + self.no_feedback_initial);
        self.send_one(ctx);
        self.arm(ctx);
    }

    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx) {
        let Some(ctl) = wire::control(&pkt) else {
            return;
        };
        if self.state == SenderState::Stopped {
            return;
        }
        self.account(ctx);
        let now = ctx.now();
        self.echo = pkt.sent;
        self.echo_arrived = now;
        if ctl.srtt > 0.0 {
            self.srtt = ctl.srtt;
        }
        self.p = ctl.p;
        let wait = if self.srtt > 0.0 {
            SimDuration::from_secs_f64(self.no_feedback_rtts * self.srtt)
        } else {
            self.no_feedback_initial
        };
        self.no_feedback_at = Some(now + wait);
        if ctl.allowed <= 0.0 {
            self.stop(SenderState::Off, ctx);
        } else if self.state != SenderState::On {
            self.state = SenderState::On;
            self.send_one(ctx);
        }
        self.arm(ctx);
    }

    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        if self.state == SenderState::Stopped {
            return;
        }
        self.account(ctx);
        let now = ctx.now();
        if self.no_feedback_at.is_some_and(|t| t <= now) {
            self.no_feedback_at = None;
            self.stop(SenderState::NoFeedback, ctx);
        }
        if self.state == SenderState::On && self.next_send <= now {
            self.send_one(ctx);
        }
        self.arm(ctx);
    }

    fn on_stop(&mut self, ctx: &mut EndpointCtx) {
        self.account(ctx);
        self.state = SenderState::Stopped;
        self.no_feedback_at = None;
        ctx.set_deadline(None);
    }

    fn header_family(&self) -> HeaderFamily {
        wire::FAMILY
    }

    fn probe(&self) -> Probe {
        let on = self.state == SenderState::On;
        Probe {
            rate: Some(if on { self.r_na * 8.0 } else { 0.0 }),
            srtt: (self.srtt > 0.0).then_some(self.srtt),
            loss_event_rate: Some(self.p),
            ..Probe::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stream, FlowId, Harness, StreamKind};

    fn ctl(sent: f64, allowed: f64, srtt: f64) -> Packet {
        let mut p = Packet::new(
            FlowId(0),
            Default::default(),
            PacketKind::Ack,
            40,
            SimTime::from_secs_f64(sent),
        );
        p.cc = wire::control_header(
            wire::Control {
                allowed,
                srtt,
                p: 0.0,
            },
            SimDuration::ZERO,
        );
        p
    }

    fn harness() -> Harness {
        Harness::new(stream(4, 0, StreamKind::Endpoint, 0))
    }

    /// Fire timers until `until`, delivering `controls` (arrival time, packet)
    /// on the way; returns the data packets sent.
    fn run(
        s: &mut PccSender,
        h: &mut Harness,
        until: f64,
        controls: &[(f64, Packet)],
    ) -> Vec<Packet> {
        let mut out = Vec::new();
        let mut pending: Vec<(SimTime, Packet)> = controls
            .iter()
            .map(|&(t, p)| (SimTime::from_secs_f64(t), p))
            .collect();
        pending.reverse();
        let end = SimTime::from_secs_f64(until);
        loop {
            let timer = h.deadline.filter(|&t| t <= end);
            let ctl = pending.last().map(|&(t, _)| t).filter(|&t| t <= end);
            match (timer, ctl) {
                (Some(t), c) if c.is_none_or(|c| t < c) => out.extend(h.fire(s)),
                (_, Some(c)) => {
                    let (_, p) = pending.pop().unwrap();
                    h.now = c;
                    out.extend(h.call(|ctx| s.on_packet(p, ctx)));
                }
                _ => break,
            }
        }
        out
    }

    fn cfg() -> PccConfig {
        PccConfig::default()
    }

    /// Spec 2.11: CBR at r_NA from the start (no slow start), each gap
    /// uniform in [0.5, 1.5] x s / r_NA, mean s / r_NA; r_NA in every header.
    #[test]
    fn sends_at_r_na_from_the_start_with_dithered_gaps() {
        let mut s = PccSender::new(&cfg(), 1000);
        let mut h = harness();
        let mut pkts = h.call(|ctx| s.on_start(ctx));
        // Feedback every 100 ms keeps it on.
        let controls: Vec<(f64, Packet)> = (1..600)
            .map(|k| (k as f64 * 0.1, ctl(k as f64 * 0.1 - 0.05, wire::ON, 0.1)))
            .collect();
        pkts.extend(run(&mut s, &mut h, 60.0, &controls));
        let nominal = 1000.0 / 32_000.0;
        let times: Vec<f64> = pkts.iter().map(|p| p.sent.as_secs_f64()).collect();
        assert_eq!(times[0], 0.0);
        for w in times.windows(2) {
            let g = w[1] - w[0];
            assert!(
                (0.5 * nominal - 1e-9..=1.5 * nominal + 1e-9).contains(&g),
                "gap {g}"
            );
        }
        // 60 s at 32 pkt/s: 1920 packets; the mean of n uniform gaps has sd
        // nominal / sqrt(12 n), so n = 1920 packets end within 4 sd of 60 s.
        let n = pkts.len() as f64;
        let mean_gap = times.last().unwrap() / (n - 1.0);
        let sd = nominal / (12.0 * (n - 1.0)).sqrt();
        assert!(
            (mean_gap - nominal).abs() < 4.0 * sd,
            "{mean_gap} vs {nominal}"
        );
        for (k, p) in pkts.iter().enumerate() {
            assert_eq!(p.seq, k as u64);
            assert_eq!(wire::data(p).unwrap().rate, 32_000.0);
        }
        assert!(h.counters.pcc_on_ps > 0);
    }

    /// Spec 2.11: rate 0 stops the sender at once, rate ∞ resumes it; the
    /// data carries the last control packet's timestamp and the offset.
    #[test]
    fn obeys_off_and_on_and_stamps_echo_and_offset() {
        let mut s = PccSender::new(&cfg(), 1000);
        let mut h = harness();
        h.call(|ctx| s.on_start(ctx));
        let controls = [
            (0.5, ctl(0.45, wire::ON, 0.1)),
            (1.0, ctl(0.95, 0.0, 0.1)),
            (1.5, ctl(1.45, wire::ON, 0.1)),
        ];
        let pkts = run(&mut s, &mut h, 1.6, &controls);
        assert!(pkts.iter().all(
            |p| p.sent <= SimTime::from_secs_f64(1.0) || p.sent >= SimTime::from_secs_f64(1.5)
        ));
        let resumed = pkts
            .iter()
            .find(|p| p.sent >= SimTime::from_secs_f64(1.5))
            .unwrap();
        assert_eq!(resumed.sent, SimTime::from_secs_f64(1.5));
        assert_eq!(
            wire::data(resumed).unwrap().echo,
            SimTime::from_secs_f64(1.45)
        );
        let later = pkts
            .iter()
            .rfind(|p| p.sent < SimTime::from_secs_f64(1.0))
            .unwrap();
        let hd = wire::data(later).unwrap();
        assert_eq!(hd.echo, SimTime::from_secs_f64(0.45));
        assert_eq!(
            hd.offset,
            later.sent.saturating_since(SimTime::from_secs_f64(0.5))
        );
        assert!((hd.rtt.as_secs_f64() - 0.1).abs() < 1e-6);
        assert_eq!(s.stops(), 1);
        assert_eq!(h.counters.pcc_off_periods, 1);
        assert_eq!(s.state(), SenderState::On);
        // On 1.5 s of the 1.6 s: 0-1 s and 1.5-1.6 s (accounted at the last event).
        let on = h.counters.pcc_on_ps as f64 / 1e12;
        assert!(on > 1.05 && on <= 1.1 + 1e-9, "{on}");
    }

    /// Spec 2.11: no control packet for 24 srtt stops the sender; the next
    /// rate-∞ control packet resumes it.
    #[test]
    fn no_feedback_timer_stops_after_24_srtt_and_next_on_resumes() {
        let mut s = PccSender::new(&cfg(), 1000);
        let mut h = harness();
        h.call(|ctx| s.on_start(ctx));
        let controls = [
            (0.2, ctl(0.15, wire::ON, 0.05)),
            (5.0, ctl(4.95, wire::ON, 0.05)),
        ];
        let pkts = run(&mut s, &mut h, 5.5, &controls);
        // Stopped at 0.2 + 24 * 0.05 = 1.4 s.
        let last_before = pkts
            .iter()
            .rfind(|p| p.sent < SimTime::from_secs_f64(5.0))
            .unwrap();
        assert!(last_before.sent <= SimTime::from_secs_f64(1.4));
        assert!(last_before.sent > SimTime::from_secs_f64(1.4 - 1.5 / 32.0));
        assert!(pkts.iter().any(|p| p.sent == SimTime::from_secs_f64(5.0)));
        assert_eq!(s.stops(), 1);
    }

    /// Before any feedback the no-feedback time is `no_feedback_initial`.
    #[test]
    fn without_any_feedback_it_stops_after_the_initial_time() {
        let mut s = PccSender::new(&cfg(), 1000);
        let mut h = harness();
        h.call(|ctx| s.on_start(ctx));
        let pkts = run(&mut s, &mut h, 10.0, &[]);
        assert!(pkts.iter().all(|p| p.sent <= SimTime::from_secs_f64(2.0)));
        assert_eq!(s.state(), SenderState::NoFeedback);
        assert_eq!(h.deadline, None);
    }
}
