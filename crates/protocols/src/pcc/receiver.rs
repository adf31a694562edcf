//! PCC's receiver: measures RTT and loss events, estimates r_TCP, runs the
//! decision machine ([`super::decision`]) and tells the sender on or off.
//!
//! Provenance (spec `seed-004-damm-pcc.md` §2.1, §2.4, §2.11, §2.12, §2.14;
//! thesis §4.6, §5.3, §5.4):
//! - \[DOC\] RTT sample per data packet `t_rcv - echo - offset`, smoothed by an
//!   EWMA with weight `rtt_weight` (0.2) on the new sample; the first sample
//!   initialises it (INFERRED, spec 2.12.1). The EWMA is kept across off
//!   periods (unspecified; spec 2.4 requires only that the sample count
//!   restarts).
//! - INFERRED (spec appendix: per-packet vs per-RTT): an RTT sample counts
//!   towards N_RTT only when its echo is new (one per control packet, so
//!   about one per RTT), which is Table A.2's `T_RTT = N_RTT · RTT`; every
//!   data packet still updates the EWMA, as the thesis says.
//! - \[DOC\] loss events and the loss event rate come from TFRC's receiver
//!   machinery ([`crate::tfrc`]): one event per RTT, Average Loss Interval
//!   over `n_samples` (24) intervals with history discounting; the history
//!   is reset at the start of every protected time (INFERRED, spec 2.4).
//!   r_TCP is Eq. 5.4 (Padhye, RTO = 4 RTT, `b`) with the data packet size;
//!   no loss event yet gives `r_TCP = ∞` ([`TcpRate::Unbounded`]). Before
//!   any RTT sample (only possible if protected time ends at `T_PROT,MAX`
//!   with no echo back) the equation uses `initial_rtt`.
//! - [DOC §6.5.1] with `adjust_rate`, r_TCP is recomputed once from the
//!   Ramesh/Rhee loss event rate ([`super::adjust`]); the packet loss rate is
//!   lost / (received + lost) sequence numbers since the history's reset
//!   (INFERRED, see [`super::adjust`]).
//! - [EXT ns-2 `p_to_b`, spec 2.12.3] r_TCP = the Padhye equation with
//!   `RTO = 4 RTT` and no rate cap: ns-2's cap (MAXRATE, 25e6 B/s) only
//!   matters as "stay on", which `p_ON >= 1` gives anyway.
//! - [DOC §5.3] control packets (`control_size`, 40 B) carry the allowed
//!   rate (0 or ∞) and the srtt; their timestamp is the packet's send time.
//!   The control timer runs every srtt (`initial_rtt` before a sample): at
//!   an expiry a control packet is sent if data arrived since the last one,
//!   or if `idle_control_rtts` srtt passed without one (INFERRED rate, see
//!   [`super::config`]). The first data packet of the flow gets a control
//!   packet at once (INFERRED: RTT samples need an echo). A failed
//!   experiment sends rate 0 at once and stops the control timer; the off
//!   timer's expiry sends rate ∞ and re-arms it.
//! - [DOC §4.6] data arriving while off repeats the off signal, at most
//!   once per srtt (INFERRED rate limit: one lost signal needs one repeat,
//!   and a sender in flight keeps sending for about an RTT after it).
//! - The random draws of the experiments come from the receiver's own
//!   stream, mapped onto (0, 1].
//!
//! Statistics for the thesis's figures (spec §6 "Metrics", §5.2), in the
//! flow's counters ([`sim_core::FlowCounters`]):
//! - Fig. 6.5, "the average of all single estimates of all flows"
//!   (`pcc_rtcp_sum_bps`, `pcc_rtcp_samples`):
//!   - [INFERRED, spec §6 "per experiment? per control packet?"] one
//!     estimate per experiment: the r_TCP the experiment used (after the
//!     §6.5.1 adjustment when that is on). An experiment is where an
//!     estimate is acted on, and the thesis's explanation of the figure's
//!     bias (flows with low estimates are turned off and so produce fewer
//!     estimates) holds for estimates taken there.
//!   - [INFERRED, unspecified] `r_TCP = ∞` (no loss event yet) is left
//!     out: an average cannot hold it. Each estimate is converted to bits/s
//!     and rounded to an integer (at most 0.5 b/s off per estimate).
//! - Fig. 6.7, "packet loss rate and loss event rate measured by PCC"
//!   (`pcc_lost_pkts`, `pcc_loss_events`):
//!   - [DOC §2.12.2] a loss is a gap in the data sequence numbers: the loss
//!     history's notion, which §6.5.1's `lossrate` also uses
//!     ([`super::adjust`]).
//!   - [INFERRED, the span is unspecified; the figure's is the run] lost
//!     packets are counted by the receiver's own highest-sequence-number
//!     tracker, never reset (the loss history is reset at every protected
//!     time), so a gap that straddles a restart (the last packets before
//!     an off period or the first ones after it lost) counts too. The
//!     sender numbers its packets 0, 1, 2, ... across off periods, and
//!     links never reorder a flow's packets, so every gap is a loss.
//!   - [DOC §2.12.2, INFERRED counting] loss events are those the loss
//!     history started ([`Arrival::NewEvents`]: one per RTT), added as each
//!     packet reveals them, so the history's reset at every protected time
//!     neither loses nor repeats one. A loss that straddles a restart starts
//!     no event (the reset history sees no gap there); only there do the
//!     counts differ from those of one history kept over the whole flow.
//!   - The rates are these counts over the data packets received (the
//!     engine's `rx_pkts`) plus lost ([`sim_core::FlowReport::pcc_loss_rate`],
//!     [`sim_core::FlowReport::pcc_loss_event_rate`]).
//! - Fig. 6.26, "average T_PROT" (`pcc_prot_ps`, `pcc_prot_periods`):
//!   - [DOC spec §6 "the mean `T_PROT` over restarts", 0 without one; §5.2:
//!     the figure shows 0 well below the fair rate, where the start-up
//!     protected time would end at `T_PROT,MAX`] only protected times after
//!     a restart from an off period count; the start-up one is kept apart
//!     in `pcc_startup_prot_ps`.
//!   - [DOC spec §7 item 3, "the *actual* elapsed protected time"] the time
//!     is the decision machine's `T_PROT` ([`Experiment::t_prot`]: from the
//!     on-period's first data packet to the instant the end condition held,
//!     the value Eq. 4.12 charges).
//!   - [INFERRED, unspecified] it is added when protected time ends,
//!     whole: one that straddles the end of the warm-up counts whole in the
//!     window, one still running when the run ends not at all.

use rand::Rng;
use sim_core::{
    Endpoint, EndpointCtx, HeaderFamily, Packet, PacketKind, Probe, SimDuration, SimTime,
};

use super::adjust::adjusted_rate;
use super::config::{LossSpan, PccConfig};
use super::decision::{
    rand_unit_open_closed, Action, Experiment, Inputs, Outcome, PccDecision, TcpRate,
};
use super::wire::{self, Control};
use crate::tfrc::{padhye, AliConfig, Arrival, LossHistory};

/// Eq. 5.4 in bytes/s for packet size `s` (bytes), RTT `rtt` (s), loss
/// event rate `p` > 0 and `b`, with RTO = 4 RTT; `INFINITY` for `p <= 0`.
fn tcp_rate(s: f64, rtt: f64, p: f64, b: f64) -> f64 {
    padhye(s, rtt, p, b, 4.0 * rtt, f64::INFINITY)
}

/// The last experiment's values, for probes.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct LastExperiment {
    /// `p_ON` as computed.
    pub p_on: f64,
    /// r_TCP, bytes/s (infinite before any loss event).
    pub r_tcp: f64,
    /// r_EFF after the experiment, bytes/s.
    pub r_eff: f64,
    /// The loss event rate used (0: none).
    pub p: f64,
}

/// The PCC receiver endpoint.
#[derive(Debug)]
pub struct PccReceiver {
    cfg: PccConfig,
    decision: PccDecision,
    losses: LossHistory,
    /// Send time and arrival of the last data packet (echoed in control packets).
    last_data: Option<(SimTime, SimTime)>,
    /// Smoothed RTT, seconds.
    srtt: Option<f64>,
    /// Echo of the last RTT sample counted towards N_RTT.
    counted_echo: SimTime,
    /// r_NA from the data headers, bytes/s.
    r_na: f64,
    /// Size of the last data packet, bytes.
    size: u32,
    /// Next control-timer expiry (None: stopped).
    control_at: Option<SimTime>,
    /// Data arrived since the last control packet.
    data_since_control: bool,
    /// When the last control packet left.
    last_control: Option<SimTime>,
    /// When the off signal was last repeated.
    last_repeat: Option<SimTime>,
    last: LastExperiment,
    /// Highest data sequence number seen over the whole flow (never reset,
    /// unlike the loss history): `pcc_lost_pkts`.
    highest_seq: Option<u64>,
    /// Data packets lost and received over the whole flow (the rate
    /// adjustment's counts with `adjust_loss_span = "flow"`).
    flow_lost: u64,
    flow_received: u64,
}

impl PccReceiver {
    /// A receiver with the flow's parameters (validated).
    pub fn new(cfg: &PccConfig) -> Self {
        PccReceiver {
            decision: PccDecision::new(cfg.decision())
                .expect("PCC parameters were validated when the scenario was parsed"),
            losses: LossHistory::new(AliConfig {
                n: cfg.n_samples as usize,
                discounting: cfg.discount,
            }),
            last_data: None,
            srtt: None,
            counted_echo: SimTime::ZERO,
            r_na: cfg.rate.bps_f64() / 8.0,
            size: 0,
            control_at: None,
            data_since_control: false,
            last_control: None,
            last_repeat: None,
            last: LastExperiment::default(),
            highest_seq: None,
            flow_lost: 0,
            flow_received: 0,
            cfg: cfg.clone(),
        }
    }

    /// The decision machine (state, counters).
    pub fn decision(&self) -> &PccDecision {
        &self.decision
    }

    /// The last experiment's values.
    pub fn last_experiment(&self) -> LastExperiment {
        self.last
    }

    /// The smoothed RTT, seconds.
    pub fn srtt(&self) -> Option<f64> {
        self.srtt
    }

    fn rtt_or_initial(&self) -> f64 {
        self.srtt
            .unwrap_or_else(|| self.cfg.initial_rtt.as_secs_f64())
    }

    /// The packets lost and received that the rate adjustment's packet
    /// loss rate is measured over (`adjust_loss_span`).
    fn adjust_counts(&self) -> (u64, u64) {
        match self.cfg.adjust_loss_span {
            LossSpan::History => (self.losses.lost(), self.losses.received()),
            LossSpan::Flow => (self.flow_lost, self.flow_received),
        }
    }

    /// The current r_TCP and the loss event rate it comes from.
    fn r_tcp(&self) -> (TcpRate, f64) {
        let p = self.losses.p();
        if self.losses.events() == 0 || p <= 0.0 {
            return (TcpRate::Unbounded, 0.0);
        }
        let rtt = self.rtt_or_initial();
        let s = f64::from(self.size);
        let mut r = tcp_rate(s, rtt, p, self.cfg.b);
        if self.cfg.adjust_rate {
            let (lost, rcvd) = self.adjust_counts();
            let loss_rate = lost as f64 / (lost + rcvd).max(1) as f64;
            r = adjusted_rate(r, loss_rate, rtt, s, |p, rtt| {
                if p > 0.0 {
                    tcp_rate(s, rtt, p, self.cfg.b)
                } else {
                    f64::INFINITY
                }
            });
        }
        if r.is_finite() {
            (TcpRate::Finite(r), p)
        } else {
            (TcpRate::Unbounded, p)
        }
    }

    fn send_control(&mut self, ctx: &mut EndpointCtx, allowed: f64) {
        let now = ctx.now();
        let (echo, held) = self
            .last_data
            .map_or((SimTime::ZERO, SimDuration::ZERO), |(sent, at)| {
                (sent, now.saturating_since(at))
            });
        let p_now = self.losses.p();
        let p = ctx.send_in_place(Packet::new(
            ctx.flow(),
            Default::default(),
            PacketKind::Ack,
            self.cfg.control_size.get() as u32,
            now,
        ));
        p.echo = echo;
        p.cc = wire::control_header(
            Control {
                allowed,
                srtt: self.srtt.unwrap_or(0.0),
                p: p_now,
            },
            held,
        );
        self.last_control = Some(now);
        self.data_since_control = false;
    }

    fn control_interval(&self) -> SimDuration {
        self.srtt
            .map_or(self.cfg.initial_rtt, SimDuration::from_secs_f64)
            .max(SimDuration::from_micros(1))
    }

    /// Run whatever the decision machine has due at `now`.
    fn run_decision(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        while self.decision.poll_at().is_some_and(|t| t <= now) {
            let (r_tcp, p) = self.r_tcp();
            let inputs = Inputs {
                r_tcp,
                r_na: self.r_na,
            };
            let mut draw = || rand_unit_open_closed(ctx.rng().random::<f64>());
            let protections = self.decision.stats().protections;
            let Some(action) = self.decision.on_timer(now, inputs, &mut draw) else {
                break;
            };
            match action {
                Action::Experiment(e) => {
                    if self.decision.stats().protections > protections {
                        // This experiment ended a protected time.
                        let c = ctx.counters();
                        if protections == 0 {
                            c.pcc_startup_prot_ps = e.t_prot.as_ps();
                        } else {
                            c.pcc_prot_ps += e.t_prot.as_ps();
                            c.pcc_prot_periods += 1;
                        }
                    }
                    self.on_experiment(ctx, e, p)
                }
                Action::TurnOn => {
                    self.send_control(ctx, wire::ON);
                    self.control_at = Some(now + self.control_interval());
                }
                Action::ProtectionStarted | Action::RepeatOff => {}
            }
        }
    }

    fn on_experiment(&mut self, ctx: &mut EndpointCtx, e: Experiment, p: f64) {
        let c = ctx.counters();
        c.pcc_experiments += 1;
        if let TcpRate::Finite(r) = e.r_tcp {
            c.pcc_rtcp_sum_bps += (r * 8.0).round() as u64;
            c.pcc_rtcp_samples += 1;
        }
        self.last = LastExperiment {
            p_on: e.p_on,
            r_tcp: e.r_tcp.bytes_per_sec(),
            r_eff: e.r_eff_after,
            p,
        };
        if let Outcome::TurnOff { .. } = e.outcome {
            ctx.counters().pcc_failed += 1;
            self.send_control(ctx, 0.0);
            self.control_at = None;
        }
    }

    fn arm(&mut self, ctx: &mut EndpointCtx) {
        let at = [self.control_at, self.decision.poll_at()]
            .into_iter()
            .flatten()
            .min();
        ctx.set_deadline(at.map(|t| t.max(ctx.now())));
    }

    fn on_data(&mut self, pkt: &Packet, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        ctx.counters().goodput_bytes += u64::from(pkt.size);
        self.size = pkt.size;
        let Some(h) = wire::data(pkt) else {
            return;
        };
        if h.rate > 0.0 {
            self.r_na = h.rate;
        }
        self.last_data = Some((pkt.sent, now));
        match self.decision.on_data(now) {
            Some(Action::ProtectionStarted) => self.losses.reset(),
            Some(Action::RepeatOff) => {
                let due = self
                    .last_repeat
                    .is_none_or(|t| now >= t + self.control_interval());
                if due {
                    self.last_repeat = Some(now);
                    self.send_control(ctx, 0.0);
                }
            }
            _ => {}
        }
        if h.echo > SimTime::ZERO {
            let sample = now
                .saturating_since(h.echo)
                .saturating_sub(h.offset)
                .as_secs_f64();
            let w = self.cfg.rtt_weight;
            self.srtt = Some(self.srtt.map_or(sample, |s| (1.0 - w) * s + w * sample));
            if h.echo != self.counted_echo {
                self.counted_echo = h.echo;
                self.decision.on_rtt_sample(now);
            }
        }
        if let Some(gap) = self.highest_seq.map(|hi| pkt.seq.saturating_sub(hi + 1)) {
            ctx.counters().pcc_lost_pkts += gap;
            self.flow_lost += gap;
        }
        self.flow_received += 1;
        self.highest_seq = self.highest_seq.max(Some(pkt.seq));
        let rtt = SimDuration::from_secs_f64(self.rtt_or_initial());
        if let Arrival::NewEvents(n) = self.losses.on_packet(pkt.seq, pkt.sent, rtt) {
            ctx.counters().pcc_loss_events += u64::from(n);
            for _ in 0..n {
                self.decision.on_loss_event(now);
            }
        }
        let first = self.last_control.is_none();
        self.data_since_control = true;
        if first {
            self.send_control(ctx, wire::ON);
            self.control_at = Some(now + self.control_interval());
        }
        self.run_decision(ctx);
    }
}

impl Endpoint for PccReceiver {
    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx) {
        if pkt.kind == PacketKind::Data {
            self.on_data(&pkt, ctx);
            self.arm(ctx);
        }
    }

    fn on_timer(&mut self, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        self.run_decision(ctx);
        if let Some(t) = self.control_at.filter(|&t| t <= now) {
            let idle_due = self.last_control.is_none_or(|l| {
                now.saturating_since(l).as_secs_f64()
                    >= self.cfg.idle_control_rtts * self.control_interval().as_secs_f64()
            });
            if self.decision.is_on() && (self.data_since_control || idle_due) {
                self.send_control(ctx, wire::ON);
            }
            self.control_at = self
                .decision
                .is_on()
                .then(|| t.max(now) + self.control_interval());
        }
        self.arm(ctx);
    }

    fn header_family(&self) -> HeaderFamily {
        wire::FAMILY
    }

    fn probe(&self) -> Probe {
        Probe {
            srtt: self.srtt,
            ..Probe::default()
        }
    }

    /// The `flow_control` series, the receiver-side state of the thesis's
    /// time plots (Damm 2001, e.g. Figs. 6.3-6.5): `on` (1 while the flow
    /// may send, 0 while it is off) from the start, and after the first
    /// experiment its outcome: `p_on` (clamped to [0, 1]: above 1 the flow
    /// stays on, at or below 0 it goes off), `r_tcp_bps` (eq. 2.1's TCP rate
    /// at the receiver's loss-event rate and RTT; none before the first loss
    /// event, where it is unbounded) and `r_eff_bps` (r_NA times the product
    /// of the set P after the experiment).
    fn series(&self, emit: &mut dyn FnMut(&'static str, f64)) {
        emit("on", if self.decision.is_on() { 1.0 } else { 0.0 });
        if self.decision.stats().experiments == 0 {
            return;
        }
        let e = self.last;
        emit("p_on", e.p_on.clamp(0.0, 1.0));
        if e.r_tcp.is_finite() {
            emit("r_tcp_bps", e.r_tcp * 8.0);
        }
        emit("r_eff_bps", e.r_eff * 8.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stream, FlowId, Harness, StreamKind};

    fn data(seq: u64, sent: f64, rate: f64, echo: f64) -> Packet {
        let mut p = Packet::new(
            FlowId(0),
            Default::default(),
            PacketKind::Data,
            1000,
            SimTime::from_secs_f64(sent),
        );
        p.seq = seq;
        p.cc = wire::data_header(rate, SimTime::from_secs_f64(echo), SimDuration::ZERO, 0.0);
        p
    }

    fn deliver(r: &mut PccReceiver, h: &mut Harness, at: f64, p: Packet) -> Vec<Control> {
        h.now = SimTime::from_secs_f64(at);
        h.call(|ctx| r.on_packet(p, ctx))
            .iter()
            .map(|p| {
                assert_eq!(p.kind, PacketKind::Ack);
                assert_eq!(p.size, 40);
                wire::control(p).unwrap()
            })
            .collect()
    }

    fn harness() -> Harness {
        Harness::new(stream(9, 0, StreamKind::Endpoint, 1))
    }

    /// Spec 2.11/2.12.1: the first data packet gets an "on" control packet at
    /// once; RTT samples are t_rcv - echo - offset, EWMA 0.2, and count
    /// towards N_RTT once per echoed control packet.
    #[test]
    fn first_data_gets_on_at_once_and_rtt_is_an_ewma_of_echo_samples() {
        let mut r = PccReceiver::new(&PccConfig::default());
        let mut h = harness();
        let out = deliver(&mut r, &mut h, 0.05, data(0, 0.0, 32_000.0, 0.0));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].allowed, wire::ON);
        assert_eq!(r.srtt(), None);
        // Echo of the control packet sent at 0.05 s: samples 0.1 s, then 0.2 s.
        deliver(&mut r, &mut h, 0.15, data(1, 0.1, 32_000.0, 0.05));
        assert!((r.srtt().unwrap() - 0.1).abs() < 1e-12);
        deliver(&mut r, &mut h, 0.25, data(2, 0.2, 32_000.0, 0.05));
        assert!((r.srtt().unwrap() - (0.8 * 0.1 + 0.2 * 0.2)).abs() < 1e-12);
        let crate::pcc::Phase::Protected { rtt_samples, .. } = r.decision().phase() else {
            panic!("not protected: {:?}", r.decision().phase())
        };
        assert_eq!(rtt_samples, 1);
    }

    /// Spec 2.11/2.14: a failed experiment sends rate 0 at once; data that
    /// still arrives repeats it at most once per srtt; the off timer sends
    /// rate ∞ again.
    #[test]
    fn failed_experiment_sends_off_at_once_repeats_it_and_turns_on_later() {
        let cfg = PccConfig {
            n_le: 1,
            n_rtt: 0,
            ..PccConfig::default()
        };
        let mut r = PccReceiver::new(&cfg);
        let mut h = harness();
        // r_NA = 1 MB/s; one loss (seq 3) after 3 packets: p = 1/3, r_TCP a
        // few kB/s, so Eq. 4.7 is negative: certain turn-off.
        for k in 0..3u64 {
            deliver(
                &mut r,
                &mut h,
                0.01 * k as f64,
                data(k, 0.01 * k as f64, 1e6, 0.0),
            );
        }
        let out = deliver(&mut r, &mut h, 0.04, data(4, 0.04, 1e6, 0.0));
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].allowed, 0.0);
        assert_eq!(h.counters.pcc_experiments, 1);
        assert_eq!(h.counters.pcc_failed, 1);
        assert!(!r.decision().is_on());
        let e = r.last_experiment();
        assert!(e.p_on < 0.0 && e.p > 0.0 && e.r_tcp.is_finite());
        // Data while off: the first repeats the off signal, the next within
        // the control interval (initial_rtt, no RTT sample) does not.
        let out = deliver(&mut r, &mut h, 0.05, data(5, 0.05, 1e6, 0.0));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].allowed, 0.0);
        assert!(deliver(&mut r, &mut h, 0.3, data(6, 0.3, 1e6, 0.0)).is_empty());
        assert_eq!(
            deliver(&mut r, &mut h, 0.6, data(7, 0.6, 1e6, 0.0)).len(),
            1
        );
        // Extended off time (Eq. 4.9), then the off timer turns the flow on.
        let off_until = h.deadline.unwrap();
        assert!(off_until > SimTime::from_secs_f64(60.0));
        let out = h.fire(&mut r);
        assert_eq!(out.len(), 1);
        assert_eq!(wire::control(&out[0]).unwrap().allowed, wire::ON);
        assert!(r.decision().is_on());
        assert_eq!(h.counters.pcc_failed, 1);
    }

    /// Fig. 6.7's counts on one protected time (no RTT sample: the loss
    /// history's RTT is `initial_rtt`, 0.5 s; packet `k` sent at `k` x 10
    /// ms). Losses 10, 11, 30 (0.10-0.30 s): one event; 70 (0.60 s after
    /// 10's start): a new one, with 75 and 100 in it; 121 (0.51 s after 70):
    /// a new one; one gap 180..=240 (1.80-2.40 s): two events, at 180 (0.59
    /// s after 121) and 231 (0.51 s after 180). 68 lost, 5 events, and the
    /// same as the loss history's own counts (no reset).
    #[test]
    fn lost_packets_and_loss_events_follow_the_gaps_one_event_per_rtt() {
        let mut r = PccReceiver::new(&PccConfig::default());
        let mut h = harness();
        let lost: Vec<u64> = [10, 11, 30, 70, 75, 100, 121]
            .into_iter()
            .chain(180..=240)
            .collect();
        for k in (0..300u64).filter(|k| !lost.contains(k)) {
            let t = 0.01 * k as f64;
            deliver(&mut r, &mut h, t + 0.02, data(k, t, 32_000.0, 0.0));
        }
        assert!(matches!(
            r.decision().phase(),
            crate::pcc::Phase::Protected { .. }
        ));
        assert_eq!(h.counters.pcc_lost_pkts, 68);
        assert_eq!(h.counters.pcc_loss_events, 5);
        assert_eq!(r.losses.lost(), 68);
        assert_eq!(r.losses.events(), 5);
        assert_eq!(h.counters.pcc_experiments, 0);
        assert_eq!(h.counters.pcc_rtcp_samples, 0);
    }

    /// Across a restart the counts go on: the history is reset at the new
    /// protected time, but no event is lost or counted twice, and a gap
    /// that straddles the restart counts its lost packets (and starts no
    /// event: the reset history does not see it). The restart's protected
    /// time is counted in `pcc_prot_ps`, the start-up one apart; every
    /// experiment's finite r_TCP goes into the Fig. 6.5 sum.
    #[test]
    fn counts_go_on_across_a_restart_and_only_restarts_count_as_protected_time() {
        let cfg = PccConfig {
            n_le: 1,
            n_rtt: 0,
            ..PccConfig::default()
        };
        let mut r = PccReceiver::new(&cfg);
        let mut h = harness();
        let mut r_tcp_bps = 0;
        // Start-up: packet 3 lost, the event ends protected time at 0.04 s;
        // the experiment (p = 1/3, r_NA = 1 MB/s) turns the flow off.
        for k in [0u64, 1, 2, 4] {
            let t = 0.01 * k as f64;
            deliver(&mut r, &mut h, t, data(k, t, 1e6, 0.0));
        }
        assert_eq!(h.counters.pcc_experiments, 1);
        assert!(!r.decision().is_on());
        r_tcp_bps += (r.last_experiment().r_tcp * 8.0).round() as u64;
        let startup = SimTime::from_secs_f64(0.04).saturating_since(SimTime::ZERO);
        assert_eq!(h.counters.pcc_startup_prot_ps, startup.as_ps());
        assert_eq!(
            (h.counters.pcc_prot_ps, h.counters.pcc_prot_periods),
            (0, 0)
        );
        // The off timer turns the flow on; packets 5..=9 were lost around
        // the restart; 13 is lost in the new protected time.
        h.fire(&mut r);
        assert!(r.decision().is_on());
        let t0 = h.now.as_secs_f64();
        let at = |k: u64| t0 + 0.01 * (k - 9) as f64;
        for k in [10u64, 11, 12, 14] {
            deliver(&mut r, &mut h, at(k), data(k, at(k), 1e6, 0.0));
        }
        assert_eq!(h.counters.pcc_experiments, 2);
        r_tcp_bps += (r.last_experiment().r_tcp * 8.0).round() as u64;
        assert_eq!(h.counters.pcc_lost_pkts, 1 + 5 + 1);
        assert_eq!(h.counters.pcc_loss_events, 2);
        assert_eq!((r.losses.lost(), r.losses.events()), (1, 1));
        // T_PROT: from packet 10's arrival to packet 14's.
        let t_prot =
            SimTime::from_secs_f64(at(14)).saturating_since(SimTime::from_secs_f64(at(10)));
        assert_eq!(h.counters.pcc_prot_periods, 1);
        assert_eq!(h.counters.pcc_prot_ps, t_prot.as_ps());
        assert_eq!(h.counters.pcc_startup_prot_ps, startup.as_ps());
        assert_eq!(h.counters.pcc_rtcp_samples, 2);
        assert_eq!(h.counters.pcc_rtcp_sum_bps, r_tcp_bps);
        // The rate adjustment's packet loss rate is measured over the loss
        // history's packets (1 lost, 4 received since the restart) or, with
        // `adjust_loss_span = "flow"`, the whole flow's (7 and 8); the span
        // matters only with the adjustment on (adjust.rs tests its formula).
        assert_eq!(r.adjust_counts(), (1, 4));
        let unadjusted = r.r_tcp();
        r.cfg.adjust_loss_span = LossSpan::Flow;
        assert_eq!(r.adjust_counts(), (7, 8));
        assert_eq!(r.r_tcp(), unadjusted);
    }

    /// Fig. 6.5's sum holds the r_TCP of every experiment that had a finite
    /// one, in bits/s, and leaves out r_TCP = ∞ (no loss event yet).
    #[test]
    fn the_rtcp_sum_adds_each_finite_estimate_an_experiment_used() {
        let cfg = PccConfig {
            t_prot_max: SimDuration::from_secs(1),
            ..PccConfig::default()
        };
        let mut r = PccReceiver::new(&cfg);
        let mut h = harness();
        // r_NA 10 kB/s in the headers (far below r_TCP), a packet every 10
        // ms for 12 s, losses at 1.2, 4.0 and 7.5 s.
        let (mut sum, mut finite, mut infinite) = (0u64, 0u64, 0u64);
        let mut seen = 0;
        for k in (0..1200u64).filter(|k| ![120, 400, 750].contains(k)) {
            let t = 0.01 * k as f64;
            while h.deadline.is_some_and(|d| d.as_secs_f64() <= t) {
                h.fire(&mut r);
                if h.counters.pcc_experiments > seen {
                    seen = h.counters.pcc_experiments;
                    let e = r.last_experiment().r_tcp;
                    if e.is_finite() {
                        sum += (e * 8.0).round() as u64;
                        finite += 1;
                    } else {
                        infinite += 1;
                    }
                }
            }
            deliver(&mut r, &mut h, t, data(k, t, 10_000.0, 0.0));
            assert_eq!(h.counters.pcc_experiments, seen, "experiment on data");
        }
        // Experiments at 1, 3, 5, 7, 9, 11 s: the first before any loss.
        assert_eq!(seen, 6);
        assert_eq!((infinite, finite), (1, 5));
        assert_eq!(h.counters.pcc_rtcp_samples, finite);
        assert_eq!(h.counters.pcc_rtcp_sum_bps, sum);
        assert_eq!(h.counters.pcc_failed, 0);
        // The mean is a TCP rate for p ~ 1/100-1/400 at RTT 0.5 s: tens of kB/s.
        let mean = sum as f64 / finite as f64 / 8.0;
        assert!((10e3..200e3).contains(&mean), "{mean}");
    }

    /// Spec 2.11: control packets every srtt while data arrives, every
    /// `idle_control_rtts` srtt without data, none while off.
    #[test]
    fn control_packets_follow_the_data_and_thin_out_without_it() {
        let mut r = PccReceiver::new(&PccConfig::default());
        let mut h = harness();
        deliver(&mut r, &mut h, 0.0, data(0, 0.0, 32_000.0, 0.0));
        // Data every 50 ms for 2 s: one control packet per 500 ms tick.
        let mut sent = 0;
        let mut t = 0.05;
        let mut seq = 1;
        while t < 2.0 {
            while h.deadline.is_some_and(|d| d.as_secs_f64() <= t) {
                sent += h.fire(&mut r).len();
            }
            deliver(&mut r, &mut h, t, data(seq, t, 32_000.0, 0.0));
            seq += 1;
            t += 0.05;
        }
        assert_eq!(sent, 3, "ticks at 0.5, 1.0, 1.5 s");
        // No data from 2 s on: ticks every 0.5 s, a control packet every 4 s.
        let mut times = Vec::new();
        while h.deadline.is_some_and(|d| d.as_secs_f64() <= 20.0) {
            let n = h.fire(&mut r).len();
            if n > 0 {
                times.push(h.now.as_secs_f64());
            }
        }
        assert_eq!(times.first().copied(), Some(2.0), "{times:?}");
        for w in times[1..].windows(2) {
            assert!((w[1] - w[0] - 4.0).abs() < 1e-9, "{times:?}");
        }
    }
}
