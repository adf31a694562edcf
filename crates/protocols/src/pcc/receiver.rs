//! PCC's receiver: measures RTT and loss events, estimates r_TCP, runs the
//! decision machine ([`super::decision`]) and tells the sender on or off.
//!
//! Provenance (spec `seed-004-damm-pcc.md` §2.1, §2.4, §2.11, §2.12, §2.14;
//! thesis §4.6, §5.3, §5.4):
//! - [DOC] RTT sample per data packet `t_rcv - echo - offset`, smoothed by an
//!   EWMA with weight `rtt_weight` (0.2) on the new sample; the first sample
//!   initialises it (INFERRED, spec 2.12.1). The EWMA is kept across off
//!   periods (unspecified; spec 2.4 requires only that the sample count
//!   restarts).
//! - INFERRED (spec appendix: per-packet vs per-RTT): an RTT sample counts
//!   towards N_RTT only when its echo is new (one per control packet, so
//!   about one per RTT), which is Table A.2's `T_RTT = N_RTT · RTT`; every
//!   data packet still updates the EWMA, as the thesis says.
//! - [DOC] loss events and the loss event rate come from TFRC's receiver
//!   machinery ([`crate::tfrc`]): one event per RTT, Average Loss Interval
//!   over `n_samples` (24) intervals with history discounting; the history
//!   is reset at the start of every protected time (INFERRED, spec 2.4).
//!   r_TCP is Eq. 5.4 (Padhye, RTO = 4 RTT, `b`) with the data packet size;
//!   no loss event yet gives `r_TCP = ∞` ([`TcpRate::Unbounded`]). Before
//!   any RTT sample (only possible if protected time ends at `T_PROT,MAX`
//!   with no echo back) the equation uses `initial_rtt`.
//! - [DOC §6.5.1] with `adjust_rate`, r_TCP is recomputed once from the
//!   Ramesh/Rhee loss event rate ([`super::adjust`]), the packet loss rate
//!   measured since the history's reset.
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

use rand::Rng;
use sim_core::{
    Endpoint, EndpointCtx, HeaderFamily, Packet, PacketKind, Probe, SimDuration, SimTime,
};

use super::adjust::{adjusted_rate, LossRateMeter};
use super::config::PccConfig;
use super::decision::{
    rand_unit_open_closed, Action, Experiment, Inputs, Outcome, PccDecision, TcpRate,
};
use super::wire::{self, Control};
use crate::tfrc::{tcp_rate, LossHistory};

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
    loss_rate: LossRateMeter,
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
}

impl PccReceiver {
    /// A receiver with the flow's parameters (validated).
    pub fn new(cfg: &PccConfig) -> Self {
        PccReceiver {
            decision: PccDecision::new(cfg.decision())
                .expect("PCC parameters were validated when the scenario was parsed"),
            losses: LossHistory::new(cfg.n_samples as usize, cfg.discount),
            loss_rate: LossRateMeter::default(),
            srtt: None,
            counted_echo: SimTime::ZERO,
            r_na: cfg.rate.bps_f64() / 8.0,
            size: 0,
            control_at: None,
            data_since_control: false,
            last_control: None,
            last_repeat: None,
            last: LastExperiment::default(),
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

    /// The current r_TCP and the loss event rate it comes from.
    fn r_tcp(&self) -> (TcpRate, f64) {
        let Some(p) = self.losses.loss_event_rate().filter(|&p| p > 0.0) else {
            return (TcpRate::Unbounded, 0.0);
        };
        let rtt = self.rtt_or_initial();
        let s = f64::from(self.size);
        let mut r = tcp_rate(s, rtt, p, self.cfg.b);
        if self.cfg.adjust_rate {
            r = adjusted_rate(r, self.loss_rate.loss_rate(), rtt, s, |p, rtt| {
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
        let p = ctx.send_in_place(Packet::new(
            ctx.flow(),
            Default::default(),
            PacketKind::Ack,
            self.cfg.control_size.get() as u32,
            now,
        ));
        p.cc = wire::control_header(Control {
            allowed,
            srtt: self.srtt.unwrap_or(0.0),
        });
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
            let Some(action) = self.decision.on_timer(now, inputs, &mut draw) else {
                break;
            };
            match action {
                Action::Experiment(e) => self.on_experiment(ctx, e, p),
                Action::TurnOn => {
                    self.send_control(ctx, f64::INFINITY);
                    self.control_at = Some(now + self.control_interval());
                }
                Action::ProtectionStarted | Action::RepeatOff => {}
            }
        }
    }

    fn on_experiment(&mut self, ctx: &mut EndpointCtx, e: Experiment, p: f64) {
        ctx.counters().pcc_experiments += 1;
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
        let (r_na, offset) = wire::data(pkt).unwrap_or((self.r_na, 0.0));
        if r_na > 0.0 {
            self.r_na = r_na;
        }
        match self.decision.on_data(now) {
            Some(Action::ProtectionStarted) => {
                self.losses.reset();
                self.loss_rate.reset();
            }
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
        if pkt.echo > SimTime::ZERO {
            let sample = (now.saturating_since(pkt.echo).as_secs_f64() - offset).max(0.0);
            let w = self.cfg.rtt_weight;
            self.srtt = Some(self.srtt.map_or(sample, |s| (1.0 - w) * s + w * sample));
            if pkt.echo != self.counted_echo {
                self.counted_echo = pkt.echo;
                self.decision.on_rtt_sample(now);
            }
        }
        let rtt = self.rtt_or_initial();
        let seen = self.losses.on_packet(pkt.seq, pkt.sent, rtt);
        self.loss_rate.on_lost(seen.lost);
        self.loss_rate.on_received();
        for _ in 0..seen.new_events {
            self.decision.on_loss_event(now);
        }
        let first = self.last_control.is_none();
        self.data_since_control = true;
        if first {
            self.send_control(ctx, f64::INFINITY);
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
                self.send_control(ctx, f64::INFINITY);
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
}
