//! Endpoints (what runs on hosts) and the congestion-controller plug-in point.
//!
//! An [`Endpoint`] is one half of a flow: a sender (transport + controller +
//! traffic model) or a receiver (sink that acknowledges). The engine calls its
//! hooks with an [`EndpointCtx`] through which it sends packets, sets its single
//! timer deadline, draws random numbers from its own stream and reports
//! application-level progress.

use crate::ids::{FlowId, GroupId};
use crate::packet::{CcHeader, HeaderFamily, Packet};
use crate::report::ObjectReport;
use crate::rng::{LazyRng, SimRng};

/// Where an endpoint's random numbers come from.
pub(crate) enum RngRef<'a> {
    /// The engine's lazily created per-endpoint stream.
    Lazy(&'a mut LazyRng),
    /// A caller-owned generator (unit tests).
    Direct(&'a mut SimRng),
}
use crate::units::{SimDuration, SimTime};

/// Per-flow counters. The engine counts packets on the wire; endpoints report
/// application-level progress through [`EndpointCtx`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowCounters {
    /// Data packets the sender emitted (retransmissions included).
    pub sent_pkts: u64,
    /// Data bytes the sender emitted (retransmissions included).
    pub sent_bytes: u64,
    /// Retransmitted data packets.
    pub retx_pkts: u64,
    /// Retransmitted data bytes.
    pub retx_bytes: u64,
    /// Data packets that reached the receiver (duplicates included).
    pub rx_pkts: u64,
    /// Data bytes that reached the receiver: throughput.
    pub rx_bytes: u64,
    /// New in-order bytes delivered to the application: goodput.
    pub goodput_bytes: u64,
    /// Timeouts the sender took.
    pub timeouts: u64,
    /// Congestion-window reductions (loss or ECN).
    pub reductions: u64,
    /// Fast retransmits: loss recoveries entered on duplicate ACKs or SACK
    /// (each also counts as a reduction; timeouts do not count here).
    pub fast_retransmits: u64,
    /// Waits of one RTO for an ECN-Echo at a one-segment window (RFC 3168
    /// section 6.1.2, `tcp.ecn_rto_wait`).
    pub ecn_waits: u64,
    /// Data packets that reached the receiver carrying a CE mark.
    pub ce_pkts: u64,
    /// PCC: time the sender was allowed to send (on), picoseconds.
    pub pcc_on_ps: u64,
    /// PCC: random experiments the receiver ran.
    pub pcc_experiments: u64,
    /// PCC: experiments that turned the flow off.
    pub pcc_failed: u64,
    /// PCC: times the sender stopped (an off signal or its no-feedback timer).
    pub pcc_off_periods: u64,
    /// PCC: sum of the finite r_TCP estimates the receiver's experiments
    /// used, bits/s, each rounded to an integer (thesis Fig. 6.5).
    pub pcc_rtcp_sum_bps: u64,
    /// PCC: how many estimates `pcc_rtcp_sum_bps` adds up.
    pub pcc_rtcp_samples: u64,
    /// PCC: data packets the receiver found lost from gaps in the sequence
    /// numbers, over the whole flow (thesis Fig. 6.7).
    pub pcc_lost_pkts: u64,
    /// PCC: loss events (at most one per RTT) the receiver's loss history
    /// started, across its resets at every protected time (thesis Fig. 6.7).
    pub pcc_loss_events: u64,
    /// PCC: sum of the protected times that followed a restart after an off
    /// period (not the start-up one), picoseconds, each counted when it ends
    /// (thesis Fig. 6.26).
    pub pcc_prot_ps: u64,
    /// PCC: how many protected times `pcc_prot_ps` adds up.
    pub pcc_prot_periods: u64,
    /// PCC: the flow's start-up protected time, picoseconds, once it ended
    /// (0 before).
    pub pcc_startup_prot_ps: u64,
}

impl FlowCounters {
    /// Componentwise difference `self - earlier`.
    pub fn since(&self, e: &FlowCounters) -> FlowCounters {
        FlowCounters {
            sent_pkts: self.sent_pkts - e.sent_pkts,
            sent_bytes: self.sent_bytes - e.sent_bytes,
            retx_pkts: self.retx_pkts - e.retx_pkts,
            retx_bytes: self.retx_bytes - e.retx_bytes,
            rx_pkts: self.rx_pkts - e.rx_pkts,
            rx_bytes: self.rx_bytes - e.rx_bytes,
            goodput_bytes: self.goodput_bytes - e.goodput_bytes,
            timeouts: self.timeouts - e.timeouts,
            reductions: self.reductions - e.reductions,
            fast_retransmits: self.fast_retransmits - e.fast_retransmits,
            ecn_waits: self.ecn_waits - e.ecn_waits,
            ce_pkts: self.ce_pkts - e.ce_pkts,
            pcc_on_ps: self.pcc_on_ps - e.pcc_on_ps,
            pcc_experiments: self.pcc_experiments - e.pcc_experiments,
            pcc_failed: self.pcc_failed - e.pcc_failed,
            pcc_off_periods: self.pcc_off_periods - e.pcc_off_periods,
            pcc_rtcp_sum_bps: self.pcc_rtcp_sum_bps - e.pcc_rtcp_sum_bps,
            pcc_rtcp_samples: self.pcc_rtcp_samples - e.pcc_rtcp_samples,
            pcc_lost_pkts: self.pcc_lost_pkts - e.pcc_lost_pkts,
            pcc_loss_events: self.pcc_loss_events - e.pcc_loss_events,
            pcc_prot_ps: self.pcc_prot_ps - e.pcc_prot_ps,
            pcc_prot_periods: self.pcc_prot_periods - e.pcc_prot_periods,
            pcc_startup_prot_ps: self.pcc_startup_prot_ps - e.pcc_startup_prot_ps,
        }
    }
}

/// A snapshot of an endpoint's control state, for time series.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Probe {
    /// Congestion window, bytes.
    pub window: Option<f64>,
    /// Sending rate, bits/s.
    pub rate: Option<f64>,
    /// The integral of `rate` over time since the flow started, in bits, up
    /// to the instant given; `rate` has held since then (so the integral up
    /// to any later instant `t` of the same snapshot is
    /// `bits + rate * (t - at)`). A sampler takes the time average of a rate
    /// that moves between its samples from it (see `rate_avg_bps` in
    /// [`crate::SeriesPoint`]'s metrics). `None`: not tracked.
    pub rate_bits: Option<(f64, SimTime)>,
    /// Smoothed RTT, seconds.
    pub srtt: Option<f64>,
    /// Loss-event rate the sender works with (TFRC's p), sampled with the
    /// rate as `loss_event_rate`.
    pub loss_event_rate: Option<f64>,
}

/// What an endpoint hook may do.
pub struct EndpointCtx<'a> {
    pub(crate) now: SimTime,
    pub(crate) flow: FlowId,
    pub(crate) out: &'a mut Vec<Packet>,
    pub(crate) deadline: &'a mut Option<SimTime>,
    pub(crate) rng: RngRef<'a>,
    pub(crate) counters: &'a mut FlowCounters,
    pub(crate) finished: &'a mut Option<SimTime>,
    pub(crate) group: GroupId,
    pub(crate) objects: &'a mut Vec<ObjectReport>,
}

impl<'a> EndpointCtx<'a> {
    /// A context over caller-owned state (for unit tests of endpoints).
    pub fn detached(
        now: SimTime,
        out: &'a mut Vec<Packet>,
        deadline: &'a mut Option<SimTime>,
        rng: &'a mut SimRng,
        counters: &'a mut FlowCounters,
        finished: &'a mut Option<SimTime>,
        objects: &'a mut Vec<ObjectReport>,
    ) -> Self {
        EndpointCtx {
            now,
            flow: FlowId(0),
            out,
            deadline,
            rng: RngRef::Direct(rng),
            counters,
            finished,
            group: GroupId(0),
            objects,
        }
    }

    /// Current simulated time.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// The flow this endpoint belongs to.
    #[inline]
    pub fn flow(&self) -> FlowId {
        self.flow
    }
    /// Emit a packet. The engine sets its flow, route and hop and injects it into
    /// the first link of the endpoint's outgoing route.
    #[inline]
    pub fn send(&mut self, pkt: Packet) {
        self.out.push(pkt);
    }
    /// Emit `pkt` and return it, in its place in the outbox, to be filled in
    /// further ([`EndpointCtx::send`] otherwise). A packet built field by
    /// field and then copied whole is read back across its narrow stores (a
    /// store-forwarding stall, 40% of the window sender's `transmit` under
    /// perf); built in its place, it is copied only when the engine takes it.
    #[inline]
    pub fn send_in_place(&mut self, pkt: Packet) -> &mut Packet {
        self.out.push(pkt);
        let last = self.out.len() - 1;
        &mut self.out[last]
    }
    /// The endpoint's timer deadline (one per endpoint; multiplex inside).
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        *self.deadline
    }
    /// Set (or clear, with `None`) the endpoint's timer deadline.
    #[inline]
    pub fn set_deadline(&mut self, at: Option<SimTime>) {
        debug_assert!(at.is_none_or(|t| t >= self.now), "timer in the past");
        *self.deadline = at;
    }
    /// The endpoint's own random stream.
    #[inline]
    pub fn rng(&mut self) -> &mut SimRng {
        match &mut self.rng {
            RngRef::Lazy(l) => l.get(),
            RngRef::Direct(r) => r,
        }
    }
    /// The flow's counters (report goodput, timeouts, reductions here).
    #[inline]
    pub fn counters(&mut self) -> &mut FlowCounters {
        self.counters
    }
    /// An application object of `bytes` bytes written at `requested` is
    /// complete now (its last byte acknowledged): a row of the run's objects.
    pub fn object_done(&mut self, requested: SimTime, bytes: u64) {
        self.objects.push(ObjectReport {
            flow: self.flow,
            group: self.group,
            requested,
            completed: self.now,
            bytes,
        });
    }
    /// Declare the flow complete (all data acknowledged): records its finish time.
    pub fn finish(&mut self) {
        if self.finished.is_none() {
            *self.finished = Some(self.now);
        }
    }
}

/// Drives an endpoint without a simulator, for unit tests of transports and
/// sources: it owns what an [`EndpointCtx`] borrows and collects what the hook sent.
#[derive(Debug)]
pub struct Harness {
    /// The time the next hook call sees.
    pub now: SimTime,
    /// The endpoint's timer deadline, as the last hook left it.
    pub deadline: Option<SimTime>,
    /// The flow's counters.
    pub counters: FlowCounters,
    /// When the flow declared itself finished.
    pub finished: Option<SimTime>,
    /// The endpoint's random stream.
    pub rng: SimRng,
    /// The objects the endpoint reported complete.
    pub objects: Vec<ObjectReport>,
    out: Vec<Packet>,
}

impl Harness {
    /// A harness at time zero whose random stream is `rng`.
    pub fn new(rng: SimRng) -> Self {
        Harness {
            now: SimTime::ZERO,
            deadline: None,
            counters: FlowCounters::default(),
            finished: None,
            rng,
            objects: Vec::new(),
            out: Vec::new(),
        }
    }

    /// Call one hook through a context at `self.now`; return the packets it sent.
    pub fn call(&mut self, hook: impl FnOnce(&mut EndpointCtx)) -> Vec<Packet> {
        let mut ctx = EndpointCtx::detached(
            self.now,
            &mut self.out,
            &mut self.deadline,
            &mut self.rng,
            &mut self.counters,
            &mut self.finished,
            &mut self.objects,
        );
        hook(&mut ctx);
        std::mem::take(&mut self.out)
    }

    /// Jump to the deadline, clear it as the engine does, and call `on_timer`.
    ///
    /// # Panics
    /// If no deadline is set.
    pub fn fire(&mut self, ep: &mut dyn Endpoint) -> Vec<Packet> {
        self.now = self.deadline.take().expect("no timer deadline set");
        self.call(|ctx| ep.on_timer(ctx))
    }
}

/// One half of a flow, running on a host.
pub trait Endpoint: Send {
    /// The flow's start time has come.
    fn on_start(&mut self, _ctx: &mut EndpointCtx) {}
    /// A packet addressed to this endpoint arrived.
    fn on_packet(&mut self, pkt: Packet, ctx: &mut EndpointCtx);
    /// The deadline set with [`EndpointCtx::set_deadline`] has come.
    fn on_timer(&mut self, _ctx: &mut EndpointCtx) {}
    /// The flow's stop time has come: send no new data.
    fn on_stop(&mut self, _ctx: &mut EndpointCtx) {}
    /// The header family this endpoint's packets carry.
    fn header_family(&self) -> HeaderFamily {
        HeaderFamily::None
    }
    /// Control state for time series.
    fn probe(&self) -> Probe {
        Probe::default()
    }
    /// Further control state for the `flow_control` time series: each
    /// `(metric, value)` given to `emit` is one point of the flow at the
    /// sample (both endpoints of a flow are asked, sender first). Default:
    /// none.
    fn series(&self, _emit: &mut dyn FnMut(&'static str, f64)) {}
    /// The bytes a finite sender has to deliver, asked once when its flow
    /// is added (`None`: unbounded, or written over time by an application).
    fn flow_size(&self) -> Option<u64> {
        None
    }
    /// The size of its data packets on the wire, bytes, if they all have
    /// one, asked once when its flow is added (for the flows table).
    fn packet_size(&self) -> Option<u32> {
        None
    }
    /// The retransmission timeouts this sender has computed so far, asked
    /// once when its flow is closed or the run ends (for the flows table).
    fn rto_stats(&self) -> Option<crate::RtoStats> {
        None
    }
}

/// What stands in for the endpoints of a flow that is over for good
/// (`Simulator::try_close`): nothing can reach it, and a call is an engine bug.
pub(crate) struct Closed;

impl Endpoint for Closed {
    fn on_start(&mut self, _ctx: &mut EndpointCtx) {
        unreachable!("engine invariant broken: a closed flow was started")
    }
    fn on_packet(&mut self, pkt: Packet, _ctx: &mut EndpointCtx) {
        unreachable!(
            "engine invariant broken: a packet of flow {} reached its closed endpoint",
            pkt.flow
        )
    }
    fn on_timer(&mut self, _ctx: &mut EndpointCtx) {
        unreachable!("engine invariant broken: a closed flow's timer fired")
    }
    fn on_stop(&mut self, _ctx: &mut EndpointCtx) {
        unreachable!("engine invariant broken: a closed flow was stopped")
    }
}

/// What a sender's transport tells its controller about an acknowledgement.
#[derive(Copy, Clone, Debug)]
pub struct AckInfo {
    /// Arrival time of the ACK.
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK (0 for a duplicate).
    pub acked: u64,
    /// RTT sample from this ACK, if it carried a valid one.
    pub rtt: Option<SimDuration>,
    /// Smoothed RTT of the transport, if it has one.
    pub srtt: Option<SimDuration>,
    /// Bytes in flight before this ACK was processed.
    pub in_flight: u64,
    /// Maximum segment size, bytes.
    pub mss: u32,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    /// The transport is in loss recovery.
    pub in_recovery: bool,
    /// The congestion header the receiver echoed.
    pub cc: CcHeader,
    /// One-way delay sample of the data packet this ACK answers: the
    /// receiver's timestamp on the ACK (its emission time) minus the echoed
    /// sender's timestamp, as TCP-LP reads RFC 7323's TSval/TSecr pair (it
    /// includes any ACK delay at the receiver). `None` when the ACK carries
    /// no valid sample (a duplicate, or data given up).
    pub owd: Option<SimDuration>,
    /// Bytes this ACK newly reported as selectively acknowledged (SACK,
    /// RFC 2018) above the cumulative ACK; 0 without SACK.
    pub sacked: u64,
}

impl AckInfo {
    /// An ACK at time zero for one new `mss`-byte segment, with `rtt` as both
    /// the sample and the smoothed RTT, nothing in flight, no ECN-Echo, no
    /// recovery and no header: for driving a controller outside a transport
    /// (unit tests, tools). Set what a case needs with struct-update syntax:
    /// `AckInfo { ece: true, ..AckInfo::segment(1000, rtt) }`.
    pub fn segment(mss: u32, rtt: SimDuration) -> Self {
        AckInfo {
            now: SimTime::ZERO,
            acked: u64::from(mss),
            rtt: Some(rtt),
            srtt: Some(rtt),
            in_flight: 0,
            mss,
            ece: false,
            in_recovery: false,
            cc: CcHeader::None,
            owd: None,
            sacked: 0,
        }
    }
}

/// A congestion signal the transport detected.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Congestion {
    /// Packet loss detected by duplicate ACKs (fast retransmit).
    Loss {
        /// Bytes in flight when the loss was detected.
        in_flight: u64,
    },
    /// An ECN-Echo (at most once per window of data; never sent to a controller
    /// with [`EcnFeedback::PerPacket`], which sees every echo in its ACKs).
    Ecn {
        /// Bytes in flight when the echo arrived.
        in_flight: u64,
    },
    /// Retransmission timeout.
    Timeout {
        /// Bytes in flight when the timer fired.
        in_flight: u64,
    },
}

/// How a transport reports ECN marks to its controller.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum EcnFeedback {
    /// RFC 3168: the receiver sets ECE on every ACK from a CE packet until the
    /// sender's CWR; the sender reacts ([`Congestion::Ecn`]) at most once per
    /// window of data.
    #[default]
    Classic,
    /// One echo per marked packet: the receiver acknowledges a CE packet at once
    /// with ECE set and sets ECE on no other ACK; the transport never calls
    /// [`Congestion::Ecn`] and the controller reacts to [`AckInfo::ece`] on every
    /// ACK (WTP's per-mark rule, seed 001 section 2.3).
    PerPacket,
}

/// The congestion-control arithmetic of a sender, plugged into a transport.
/// Window-based controllers answer [`Controller::window`]; rate-based ones
/// answer [`Controller::rate`] and [`Controller::paced`], and the transport
/// spaces its packets at that rate (the window then only caps the data
/// outstanding).
pub trait Controller: Send {
    /// An acknowledgement arrived.
    fn on_ack(&mut self, ack: &AckInfo);
    /// The transport detected congestion.
    fn on_congestion(&mut self, now: SimTime, ev: Congestion);
    /// The transport left loss recovery (a full window was acknowledged).
    fn on_recovery_exit(&mut self, _now: SimTime) {}
    /// RFC 3168 section 6.1.2's wait after an ECN-Echo at a window below
    /// one segment ended: the retransmission timeout passed and the sender
    /// may send again (`tcp.ecn_rto_wait`). ns-2's agents, whose window fell
    /// below one segment, restart it at one segment here (`timeout` with
    /// no data outstanding).
    fn on_ecn_wait_end(&mut self, _now: SimTime) {}
    /// The receiver's advertised window in bytes, told once when the
    /// transport is built (not called without one). The transport applies
    /// it; ns-2's window arithmetic also halves `min(cwnd, rwnd)`.
    fn set_receiver_window(&mut self, _bytes: u64) {}
    /// Congestion window in bytes (window-based controllers).
    fn window(&self) -> u64;
    /// Slow-start threshold in bytes, if the controller has one.
    fn ssthresh(&self) -> Option<u64> {
        None
    }
    /// Sending rate in bits/s (rate-based controllers).
    fn rate(&self) -> Option<f64> {
        None
    }
    /// True if the transport must pace its packets at [`Controller::rate`]
    /// instead of clocking them by acknowledgements (asked once, at build time).
    fn paced(&self) -> bool {
        false
    }
    /// Write the controller's fields into the header of a data packet of
    /// `len` bytes that leaves at `now` (called once per transmission,
    /// retransmissions included).
    fn stamp(&mut self, _now: SimTime, _len: u32, _hdr: &mut CcHeader) {}
    /// The header family the controller uses.
    fn header_family(&self) -> HeaderFamily {
        HeaderFamily::None
    }
    /// How the controller wants ECN marks reported (asked once, at build time).
    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::Classic
    }
}
