//! Transports: endpoints that carry a flow's data and acknowledgements.
//!
//! - [`window`]: [`WindowSender`], the reliable window transport (byte sequence
//!   numbers, ACK clocking, RFC 6298 RTO, duplicate-ACK fast retransmit and
//!   NewReno fast recovery, ECN per RFC 3168), holding a `Box<dyn Controller>`
//!   for the congestion-control arithmetic.
//!   With a controller that is [`sim_core::Controller::paced`], the same
//!   transport paces its packets at the controller's rate through a [`Pacer`]
//!   (rate-based senders: RCP, seed 002's sources).
//! - [`pacer`]: [`Pacer`], the spacing of a rate-paced sender's packets.
//! - [`rtt`]: [`RttEstimator`], the RFC 6298 RTO estimator (shared by transports).
//! - [`sink`]: [`TcpSink`], its receiver (cumulative ACKs, out-of-order ranges,
//!   optional delayed ACKs, ECN-Echo, optional random ACK delay).
//! - [`ack_delay`]: [`AckDelayQueue`], the receiver's random ACK delay queue
//!   (seed 002's time-varying feedback delay, [`AckDelayConfig`]).
//!
//! Both take their parameters from one [`TcpConfig`] (`tcp = { ... }` in a flow
//! group). Like ns-2, a data packet's payload is its whole wire size (headers are
//! not modelled): segment size = MSS = the flow's packet size.

use serde::{Deserialize, Serialize};
use sim_core::{Bytes, ParamError, SimDuration};

pub mod ack_delay;
pub mod pacer;
pub mod rtt;
pub mod rtt_ns2;
pub mod sack;
pub mod sink;
pub mod window;

pub use ack_delay::{AckDelayConfig, AckDelayQueue};
pub use pacer::{Pacer, PacingMode};
pub use rtt::RttEstimator;
pub use sack::Scoreboard;
pub use sink::TcpSink;
pub use window::{AppSource, WindowSender};

/// Parameters of the reliable window transport and its receiver.
///
/// Every field has a default (given with its source), so `tcp = {}` is valid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpConfig {
    /// ECN-capable transport (RFC 3168): data sent as ECT, the receiver echoes CE
    /// as ECE, the sender halves its window at most once per window. Default false.
    pub ecn: bool,
    /// RFC 3168 section 6.1.2's rule for a window of one segment: an ECN-Echo
    /// that the sender reacts to while its congestion window is at most one
    /// segment also restarts the retransmission timer, and no new segment
    /// leaves until one RTO has passed (counted in `ecn_waits`). As ns-2's
    /// agents, whose window then falls below one segment and waits for the
    /// timer; the same wait follows any reduction that leaves the
    /// controller's window below one segment (NewReno's `rules = "ns2"`
    /// from under two segments), which ends with
    /// [`sim_core::Controller::on_ecn_wait_end`]. Default false (the
    /// reaction alone: a window-based controller keeps sending at its
    /// floor).
    pub ecn_rto_wait: bool,
    /// Receiver delays ACKs: one ACK per two in-order segments or after
    /// `delack_timeout` (RFC 5681 section 4.2). Default false (ACK every segment).
    pub delayed_ack: bool,
    /// Longest an in-order segment waits for its ACK, in (0, 500 ms) as RFC 5681
    /// section 4.2 requires. Default 200 ms (the common implementation value).
    pub delack_timeout: SimDuration,
    /// ACK packet size on the wire. Default 40 B (ns-2's TCP ACK: 20 B IP + 20 B TCP).
    pub ack_size: Bytes,
    /// Duplicate ACKs that trigger fast retransmit (>= 1). Default 3 (RFC 5681 section 3.2).
    pub dupack_threshold: u32,
    /// Selective acknowledgements: the receiver reports up to three blocks of
    /// data held above the cumulative ACK (RFC 2018) and the sender recovers
    /// losses with RFC 6675's scoreboard and pipe estimate, repairing every
    /// hole of a window in about one round trip. Default false: NewReno
    /// recovery (RFC 6582), one hole per round trip, as ns-2's `Agent/TCP/Newreno`.
    /// With a controller whose packets carry a congestion header (QLB, XCP)
    /// the header's echo fills the option space and each ACK carries one
    /// block; not for rate-paced controllers.
    pub sack: bool,
    /// Limited transmit (RFC 3042): the first and second duplicate ACKs each
    /// send one new segment if the data outstanding stays within cwnd + 2
    /// segments (with `sack`, RFC 6675 section 5 step 3's pipe rule instead);
    /// those segments are left out of the FlightSize the reduction halves.
    /// Default false.
    pub limited_transmit: bool,
    /// With `limited_transmit`, ns-2's rule (`singledup_`, `send_one`) in
    /// place of RFC 3042's: each of the first two duplicate ACKs sends the
    /// next segment in sequence, which after a timeout's go-back-N is a
    /// retransmission, while the data outstanding stays within cwnd plus
    /// the duplicates counted so far. Default false. No effect with `sack`.
    pub limited_transmit_ns2: bool,
    /// Retransmission timeout before any RTT sample. Default 1 s (RFC 6298 section 2.1).
    pub initial_rto: SimDuration,
    /// Lower bound on the RTO (> 0). Default 1 s (RFC 6298 section 2.4);
    /// many simulation studies use 200 ms.
    pub min_rto: SimDuration,
    /// Upper bound on the RTO, also capping the exponential backoff.
    /// Default 60 s (RFC 6298 section 2.5: at least 60 s).
    pub max_rto: SimDuration,
    /// Which ACKs give the RTO estimator an RTT sample: `"every_ack"`
    /// (default; every ACK of new data, from the timestamp its segment
    /// carried, as with RFC 7323 timestamps but without scaling the gains)
    /// or `"once_per_rtt"` (RFC 6298 section 3 with Karn's algorithm: one
    /// segment timed at a time, its sample taken when an ACK covers it, the
    /// timing abandoned when a segment at or before it is retransmitted; ns-2's
    /// `Agent/TCP` without timestamps, which with `rto_estimator = "ns2"`
    /// abandons it only at a timeout or a fast retransmit, as ns-2 does).
    /// Congestion controllers see every ACK's RTT either way.
    pub rtt_samples: RttSampling,
    /// Clock granularity G in `RTO = SRTT + max(G, 4 RTTVAR)`. Default 0
    /// (a simulator's clock is exact; RFC 6298 section 2.2). With
    /// `rto_estimator = "ns2"`, ns-2's timer tick `tcpTick_` (> 0).
    pub clock_granularity: SimDuration,
    /// The RTO estimator: `"rfc6298"` (default) or `"ns2"`, ns-2's
    /// `Agent/TCP` timer (integer ticks of `clock_granularity`, samples
    /// counted in tick boundaries from a per-flow clock phase, a floor of
    /// two ticks; `min_rto` is `minrto_` and may then be 0, `initial_rto`
    /// `rtxcur_init_`, `max_rto` `maxrto_`): for reproducing studies run on
    /// ns-2 ([`rtt_ns2`] lists the defaults of each ns-2 era).
    pub rto_estimator: RtoEstimator,
    /// NewReno's partial ACK (RFC 6582 section 3.2 step 5) deflates the
    /// window by the data it acknowledged and adds back one segment.
    /// Default true. `false`: the fast-recovery inflation is dropped at
    /// once, so the window returns to the reduced cwnd (ns-2's
    /// `Agent/TCP/Newreno` before 2003/05/05: `partial_window_deflation_ 0`).
    /// No effect with `sack`.
    pub partial_window_deflation: bool,
    /// Which partial ACKs restart the retransmission timer: `"first"`
    /// (default; RFC 6582's "Impatient" variant, the first of each fast
    /// recovery) or `"every"` ("Slow-but-Steady", RFC 6582 section 4; ns-2's
    /// `Agent/TCP/Newreno` before 2003/05/05: `newreno_changes1_ 0`). No
    /// effect with `sack`.
    pub partial_ack_timer: PartialAckTimer,
    /// NewReno's guard against a second fast retransmit for one loss
    /// (RFC 6582 section 3.2 step 2, `recover` the highest byte sent at the
    /// last fast retransmit or timeout): `false` (default; RFC 3782's "Less
    /// Careful" variant) allows a fast retransmit once the duplicate ACKs'
    /// cumulative acknowledgment covers `recover`; `true` ("Careful", ns-2's
    /// `Agent/TCP/Newreno`) only once it covers more than `recover`, so a
    /// loss of the first segment sent after `recover` waits for the timer.
    /// No effect with `sack`.
    pub careful_recover: bool,
    /// A loss found by duplicate ACKs (or, with `sack`, by the SACK
    /// scoreboard) within the window of data after an ECN-Echo reduction
    /// (the cumulative ACK at most the highest byte sent at that
    /// reduction, and no loss reaction since): `true` (default) retransmits
    /// and enters fast recovery up to that byte without a second reduction
    /// (RFC 3168 section 6.1.2: the window is "reduced only once in
    /// response to a series of dropped and/or CE packets from a single
    /// window of data"; ns-2's `Agent/TCP/Newreno` and `Sack1`,
    /// `dupack_action`; Linux enters recovery from CWR without lowering
    /// ssthresh again); `false` reduces again, as any fast retransmit.
    pub ecn_loss_no_second_reduction: bool,
    /// A new ACK restarts the retransmission timer with the RTO in force
    /// before its RTT sample (and before the sample ends the backoff), as
    /// ns-2's `Agent/TCP` did before 2001/05/11 (`timerfix_ false`).
    /// Default false: with the RTO the sample gives (RFC 6298 section 5.3).
    pub timer_before_sample: bool,
    /// Receiver's advertised window, segments (>= 1); the sender never has more
    /// than this outstanding. Default: unlimited (like ns-2 with a large `window_`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rwnd_pkts: Option<u32>,
    /// Repair losses. Default true. `false` makes the receiver loss-tolerant,
    /// as a rate-paced source over UDP (the explicit-rate sources of seed 002,
    /// whose equilibrium has persistent loss): a gap before an arriving
    /// segment is given up, the cumulative ACK moves past it; the sender never
    /// retransmits and has no fast recovery: a timeout (no ACK for an RTO)
    /// gives the outstanding bytes up and tells the controller, and an ACK of
    /// given-up data is still feedback; goodput counts what arrived.
    pub reliable: bool,
    /// Receiver-side random ACK delay (seed 002's time-varying feedback delay,
    /// E5.8 and T3): every m ACKs one is held d, the others `gap`, in a FIFO
    /// queue. `ack_delay = { every = [5000, 10000], hold = ["500ms", "1s"] }`
    /// (`gap` defaults to 10 µs); see [`AckDelayConfig`]. Default: none (ACKs
    /// leave when generated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack_delay: Option<AckDelayConfig>,
    /// Random displacement of a rate-paced sender's departures: each packet
    /// leaves up to `j` of its gap (`s / x`) before or after its exact-pacing
    /// time, uniformly (from the sender's own random stream). The exact
    /// schedule goes on from the undisplaced times, so the jitter does not
    /// accumulate: over any interval the flow sends its rate's bits to within
    /// one packet plus `2 j` packets.
    /// Default 0.01 ([`DEFAULT_PACING_JITTER`]); `0` is exact pacing (the
    /// default until 2026-11, which seed 002's files pin). Perfectly periodic
    /// senders behind a full
    /// drop-tail queue phase-lock: a flow whose gap is a whole number of the
    /// always-busy bottleneck's transmission times (20 EMKC flows starting
    /// at 100 kb/s, 1000-B packets, any capacity that is a multiple of
    /// 0.1 Mb/s) meets the full buffer with every packet and never gets
    /// feedback (Floyd and Jacobson, "On traffic phase effects in
    /// packet-switched gateways", 1992; ns-2's `overhead_` serves the same
    /// purpose). 0.01 spreads a 100-kb/s flow's departures over +-0.8 ms,
    /// six 1000-B transmission times at 61.3 Mb/s. Window senders ignore it.
    pub pacing_jitter: f64,
    /// How a rate-paced sender's pending gap follows a rate change:
    /// `"restart"` (default; ns-2's rate-based agents) re-derives it from the
    /// last departure at the new rate, `"integrate"` sends when the rate's
    /// integral since the last departure reaches the packet's size (exact
    /// fluid pacing), `"announced"` is `"restart"` except that a fall never
    /// delays the departure the last packet's gap announced (for JetMax,
    /// whose packets carry that gap to the routers' flow count), `"hold"`
    /// never moves a pending departure, on a fall or a rise. They differ
    /// when a flow's rate changes faster than its packet gap: see
    /// [`PacingMode`]. Window senders ignore it.
    pub pacing: PacingMode,
}

/// The retransmission-timeout estimator ([`TcpConfig::rto_estimator`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimator {
    /// RFC 6298 ([`rtt::RttEstimator`]).
    #[default]
    Rfc6298,
    /// ns-2's `Agent/TCP` timer ([`rtt_ns2::Ns2Rto`]).
    Ns2,
}

/// Which partial ACKs restart the timer ([`TcpConfig::partial_ack_timer`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimer {
    /// The first of each fast recovery (RFC 6582's Impatient variant).
    #[default]
    First,
    /// Every one (Slow-but-Steady).
    Every,
}

/// Which ACKs feed the RTO estimator ([`TcpConfig::rtt_samples`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// Every ACK of new data (timestamps).
    #[default]
    EveryAck,
    /// One timed segment per round trip, Karn's algorithm (RFC 6298 section 3).
    OncePerRtt,
}

/// `tcp.pacing_jitter` when a scenario does not set it.
pub const DEFAULT_PACING_JITTER: f64 = 0.01;

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            ecn: false,
            ecn_rto_wait: false,
            delayed_ack: false,
            delack_timeout: SimDuration::from_millis(200),
            ack_size: Bytes::new(40),
            dupack_threshold: 3,
            sack: false,
            limited_transmit: false,
            limited_transmit_ns2: false,
            initial_rto: SimDuration::from_secs(1),
            min_rto: SimDuration::from_secs(1),
            max_rto: SimDuration::from_secs(60),
            clock_granularity: SimDuration::ZERO,
            rto_estimator: RtoEstimator::Rfc6298,
            rtt_samples: RttSampling::EveryAck,
            partial_window_deflation: true,
            partial_ack_timer: PartialAckTimer::First,
            careful_recover: false,
            ecn_loss_no_second_reduction: true,
            timer_before_sample: false,
            rwnd_pkts: None,
            reliable: true,
            pacing_jitter: DEFAULT_PACING_JITTER,
            pacing: PacingMode::Restart,
            ack_delay: None,
        }
    }
}

impl TcpConfig {
    /// Check parameter ranges (keys are relative to the `tcp` table).
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(0.0..1.0).contains(&self.pacing_jitter) {
            return Err(ParamError::new(
                "pacing_jitter",
                format!(
                    "{} is out of range; allowed: 0 <= pacing_jitter < 1",
                    self.pacing_jitter
                ),
            ));
        }
        let half_second = SimDuration::from_millis(500);
        if self.delack_timeout == SimDuration::ZERO || self.delack_timeout >= half_second {
            return Err(ParamError::new(
                "delack_timeout",
                format!(
                    "{} is out of range; RFC 5681 requires 0 < delack_timeout < 500ms",
                    self.delack_timeout
                ),
            ));
        }
        if self.ack_size.get() == 0 || self.ack_size.get() > u64::from(u32::MAX) {
            return Err(ParamError::new(
                "ack_size",
                format!(
                    "{} is out of range; allowed: 1B <= ack_size <= 4294967295B",
                    self.ack_size
                ),
            ));
        }
        if self.dupack_threshold == 0 {
            return Err(ParamError::new(
                "dupack_threshold",
                "must be >= 1 duplicate ACK",
            ));
        }
        let ns2 = self.rto_estimator == RtoEstimator::Ns2;
        if self.min_rto == SimDuration::ZERO && !ns2 {
            return Err(ParamError::new(
                "min_rto",
                "must be > 0 (0 only with rto_estimator = \"ns2\", whose floor is two ticks)",
            ));
        }
        if ns2 && self.clock_granularity == SimDuration::ZERO {
            return Err(ParamError::new(
                "clock_granularity",
                "must be > 0 with rto_estimator = \"ns2\": it is ns-2's tcpTick_ (0.1 s before 2002, 0.01 s since)",
            ));
        }
        if self.min_rto > self.max_rto {
            return Err(ParamError::new(
                "min_rto",
                format!("{} must be <= max_rto ({})", self.min_rto, self.max_rto),
            ));
        }
        if self.initial_rto == SimDuration::ZERO || self.initial_rto > self.max_rto {
            return Err(ParamError::new(
                "initial_rto",
                format!(
                    "{} is out of range; allowed: 0 < initial_rto <= max_rto ({})",
                    self.initial_rto, self.max_rto
                ),
            ));
        }
        if self.rwnd_pkts == Some(0) {
            return Err(ParamError::new("rwnd_pkts", "must be >= 1 segment"));
        }
        if let Some(a) = &self.ack_delay {
            a.validate().map_err(|e| e.prefixed("ack_delay"))?;
        }
        Ok(())
    }

    /// The ACK size in bytes (valid after [`TcpConfig::validate`]).
    pub(crate) fn ack_bytes(&self) -> u32 {
        u32::try_from(self.ack_size.get()).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_table_gives_the_documented_defaults() {
        let c: TcpConfig = toml::from_str("").unwrap();
        assert_eq!(c, TcpConfig::default());
        assert!(c.validate().is_ok());
        assert_eq!(c.ack_bytes(), 40);
        assert_eq!(c.min_rto, SimDuration::from_secs(1));
    }

    #[test]
    fn unit_strings_parse_and_unknown_keys_are_rejected() {
        let c: TcpConfig =
            toml::from_str("ecn = true\nmin_rto = \"200ms\"\nack_size = \"52B\"").unwrap();
        assert!(c.ecn);
        assert_eq!(c.min_rto, SimDuration::from_millis(200));
        assert_eq!(c.ack_size, Bytes::new(52));
        assert!(toml::from_str::<TcpConfig>("min_rtt = \"200ms\"").is_err());
    }

    #[test]
    fn an_ack_delay_table_parses_and_is_checked() {
        let c: TcpConfig = toml::from_str(
            "ack_delay = { every = [5000, 10000], hold = [\"500ms\", \"1s\"], gap = \"20us\" }",
        )
        .unwrap();
        let a = c.ack_delay.clone().unwrap();
        assert_eq!(a.every, [5000, 10000]);
        assert_eq!(
            a.hold,
            [SimDuration::from_millis(500), SimDuration::from_secs(1)]
        );
        assert_eq!(a.gap, SimDuration::from_micros(20));
        assert!(c.validate().is_ok());
        let round = toml::to_string(&c).unwrap();
        assert_eq!(toml::from_str::<TcpConfig>(&round).unwrap(), c, "{round}");
        // `gap` has the paper's default; the other keys are required.
        let c: TcpConfig =
            toml::from_str("ack_delay = { every = [500000, 1000000], hold = [\"0.5s\", \"1s\"] }")
                .unwrap();
        assert_eq!(c.ack_delay.unwrap().gap, SimDuration::from_micros(10));
        for bad in [
            "ack_delay = { every = [5000, 10000] }",
            "ack_delay = { hold = [\"500ms\", \"1s\"] }",
            "ack_delay = { every = [5000, 10000], hold = [\"500ms\", \"1s\"], m = 3 }",
            "ack_delay = { every = 5000, hold = [\"500ms\", \"1s\"] }",
            "ack_delay = { every = [5000, 10000], hold = [\"500ms\", \"1s\"], gap = \"-1us\" }",
        ] {
            assert!(toml::from_str::<TcpConfig>(bad).is_err(), "{bad}");
        }
        // Without the table nothing is serialised, so existing outputs are unchanged.
        let s = toml::to_string(&TcpConfig::default()).unwrap();
        assert!(!s.contains("ack_delay"), "{s}");
    }

    #[test]
    fn each_bad_parameter_is_rejected_with_its_key() {
        let d = TcpConfig::default();
        let cases: Vec<(TcpConfig, &str)> = vec![
            (
                TcpConfig {
                    delack_timeout: SimDuration::ZERO,
                    ..d.clone()
                },
                "delack_timeout",
            ),
            (
                TcpConfig {
                    delack_timeout: SimDuration::from_millis(500),
                    ..d.clone()
                },
                "delack_timeout",
            ),
            (
                TcpConfig {
                    ack_size: Bytes::ZERO,
                    ..d.clone()
                },
                "ack_size",
            ),
            (
                TcpConfig {
                    ack_size: Bytes::new(1 << 32),
                    ..d.clone()
                },
                "ack_size",
            ),
            (
                TcpConfig {
                    dupack_threshold: 0,
                    ..d.clone()
                },
                "dupack_threshold",
            ),
            (
                TcpConfig {
                    min_rto: SimDuration::ZERO,
                    ..d.clone()
                },
                "min_rto",
            ),
            (
                TcpConfig {
                    min_rto: SimDuration::from_secs(61),
                    ..d.clone()
                },
                "min_rto",
            ),
            (
                TcpConfig {
                    rto_estimator: RtoEstimator::Ns2,
                    ..d.clone()
                },
                "clock_granularity",
            ),
            (
                TcpConfig {
                    initial_rto: SimDuration::ZERO,
                    ..d.clone()
                },
                "initial_rto",
            ),
            (
                TcpConfig {
                    initial_rto: SimDuration::from_secs(61),
                    ..d.clone()
                },
                "initial_rto",
            ),
            (
                TcpConfig {
                    rwnd_pkts: Some(0),
                    ..d.clone()
                },
                "rwnd_pkts",
            ),
        ];
        let delay = |every: [u64; 2], hold_ms: [u64; 2]| TcpConfig {
            ack_delay: Some(AckDelayConfig {
                every,
                hold: hold_ms.map(SimDuration::from_millis),
                gap: SimDuration::from_micros(10),
            }),
            ..d.clone()
        };
        let cases = cases.into_iter().chain([
            (delay([0, 10], [500, 1000]), "ack_delay.every"),
            (delay([11, 10], [500, 1000]), "ack_delay.every"),
            (delay([1, 10], [1000, 500]), "ack_delay.hold"),
        ]);
        for (c, key) in cases {
            assert_eq!(c.validate().unwrap_err().key, key, "{c:?}");
        }
    }
}
