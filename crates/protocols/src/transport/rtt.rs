//! The retransmission-timeout estimator of RFC 6298, in integer picoseconds.
//!
//! Provenance: RFC 6298 section 2.1 (initial RTO, 1 s by default), 2.2 (first
//! sample: `SRTT = R`, `RTTVAR = R/2`), 2.3 (later samples, alpha = 1/8,
//! beta = 1/4, RTTVAR updated with the old SRTT: `RTTVAR = 3/4 RTTVAR + 1/4
//! |SRTT - R|`, then `SRTT = 7/8 SRTT + 1/8 R`; `RTO = SRTT + max(G, K*RTTVAR)`
//! with K = 4), 2.4 (RTO rounded up to `min_rto`), 2.5 (capped at `max_rto`),
//! 5.5 (each expiry doubles the RTO, "back off the timer") and 5.7 (a new sample
//! after backing off recomputes the RTO from SRTT/RTTVAR, removing the backoff).
//!
//! INFERRED: the backoff doubles the RTO in force, capped at `max_rto`;
//! truncating integer division keeps every step within 1 ps of the real-valued
//! formulas.
//!
//! [`RttSampler`] picks the samples: every ACK of new data (the echoed
//! timestamp) or, with `"once_per_rtt"`, RFC 6298 section 3 with Karn's
//! algorithm: a new segment is timed when none is, the ACK that covers it
//! gives the sample, and any retransmission at or before it abandons the
//! timing. ns-2's `Agent/TCP` without timestamps times one segment per RTT
//! too but abandons the timing only when its timer is reset (a timeout, a
//! fast retransmit), not at a partial ACK's retransmission, so a segment
//! sent in fast recovery is timed across the recovery's later
//! retransmissions; with `rto_estimator = "ns2"` the sampler does that.
//!
//! [`RttEwma`] is the other smoothed RTT in netsim: the one explicit-rate
//! senders carry in their congestion header for the routers (seed 002 ch. VI
//! §3.3: "XCP's smoothed EWMA estimator with the default weight 0.4"; Katabi's
//! ns-2 XCP agent: `srtt = 0.6 srtt + 0.4 rtt`). It smooths every RTT sample
//! with one weight, in `f64` seconds, and has no RTO.

use sim_core::{AckInfo, ParamError, RtoStats, SimDuration, SimTime};

use super::rtt_ns2::Ns2Rto;
use super::{RtoEstimator, RttSampling, TcpConfig};

/// Which ACKs feed the RTO estimator ([`TcpConfig::rtt_samples`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RttSampler {
    once_per_rtt: bool,
    /// Karn's rule: a retransmission at or before the timed segment
    /// abandons the timing (off for ns-2's agent, which abandons only when
    /// its timer is reset: [`RttSampler::abandon`]).
    karn: bool,
    /// With `once_per_rtt`: the timed segment's end and its send time.
    timed: Option<(u64, SimTime)>,
}

impl RttSampler {
    /// A sampler of the given kind, nothing timed; `karn` as the field.
    pub fn new(kind: RttSampling, karn: bool) -> Self {
        RttSampler {
            once_per_rtt: kind == RttSampling::OncePerRtt,
            karn,
            timed: None,
        }
    }

    /// The segment `[seq, seq + len)` leaves at `now`; below `snd_max` it
    /// is a retransmission.
    #[inline]
    pub fn on_transmit(&mut self, seq: u64, len: u64, snd_max: u64, now: SimTime) {
        if !self.once_per_rtt {
            return;
        }
        match self.timed {
            // Karn: a retransmission at or before the timed segment makes
            // its ACK ambiguous.
            Some((end, _)) if self.karn && seq < end && seq < snd_max => self.timed = None,
            None if seq >= snd_max => self.timed = Some((seq + len, now)),
            _ => {}
        }
    }

    /// Stop timing the segment being timed, if any (ns-2 does at every
    /// retransmission-timer reset, a fast retransmit's included).
    pub fn abandon(&mut self) {
        self.timed = None;
    }

    /// An ACK of new data up to `ack` arrives at `now`, its echoed
    /// timestamp giving `echo_rtt`: the RTT sample it makes, if any.
    #[inline]
    pub fn on_new_ack(
        &mut self,
        ack: u64,
        echo_rtt: SimDuration,
        now: SimTime,
    ) -> Option<SimDuration> {
        if !self.once_per_rtt {
            return Some(echo_rtt);
        }
        let (_, sent) = self.timed.filter(|&(end, _)| ack >= end)?;
        self.timed = None;
        Some(now.saturating_since(sent))
    }
}

/// SRTT, RTTVAR and the RTO with its exponential backoff.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    /// RTO computed from the estimates, before backoff.
    rto: SimDuration,
    /// Timer expiries since the last sample: the RTO in force is `rto * 2^backoff`.
    backoff: u32,
    min_rto: SimDuration,
    max_rto: SimDuration,
    granularity: SimDuration,
    /// ns-2's estimator in place of RFC 6298's (`tcp.rto_estimator = "ns2"`).
    ns2: Option<Ns2Rto>,
    /// Floor of the RTO in force after the backoff: ns-2's two ticks, 0 for
    /// RFC 6298 (whose floor `min_rto` applies before the backoff).
    floor: SimDuration,
    /// Every RTO in force after a sample or a backoff (the flows table's
    /// `rto_min_s`, `rto_mean_s`, `rto_max_s`).
    stats: RtoTally,
}

/// Every RTO set so far, in integer picoseconds: on the ACK path the tally
/// is two compares and two adds, no float conversion; [`RtoStats`] is made
/// from it once, when the flow's report asks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct RtoTally {
    min: u64,
    max: u64,
    sum: u128,
    count: u64,
}

impl Default for RtoTally {
    fn default() -> Self {
        RtoTally {
            min: u64::MAX,
            max: 0,
            sum: 0,
            count: 0,
        }
    }
}

impl RtoTally {
    #[inline]
    fn record(&mut self, rto: SimDuration) {
        let ps = rto.as_ps();
        self.min = self.min.min(ps);
        self.max = self.max.max(ps);
        self.sum += u128::from(ps);
        self.count += 1;
    }
}

impl RttEstimator {
    /// An estimator with no sample yet, using the RTO bounds of `cfg`.
    pub fn new(cfg: &TcpConfig) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: SimDuration::ZERO,
            rto: cfg.initial_rto,
            backoff: 0,
            min_rto: cfg.min_rto,
            max_rto: cfg.max_rto,
            granularity: cfg.clock_granularity,
            ns2: (cfg.rto_estimator == RtoEstimator::Ns2)
                .then(|| Ns2Rto::new(cfg.clock_granularity.as_ps())),
            floor: if cfg.rto_estimator == RtoEstimator::Ns2 {
                cfg.clock_granularity.saturating_mul(2)
            } else {
                SimDuration::ZERO
            },
            stats: RtoTally::default(),
        }
    }

    /// ns-2's tick, if this is ns-2's estimator (its clock phase is drawn
    /// per flow: [`RttEstimator::set_clock_phase`]).
    pub fn ns2_tick(&self) -> Option<SimDuration> {
        self.ns2.map(|n| SimDuration::from_ps(n.tick()))
    }

    /// Set ns-2's per-agent clock phase (`boot_time_`); no effect with
    /// RFC 6298's estimator.
    pub fn set_clock_phase(&mut self, phase: SimDuration) {
        if let Some(n) = &mut self.ns2 {
            n.set_boot(phase.as_ps());
        }
    }

    /// The RTOs in force after each sample and each backoff so far (`None`
    /// before the first).
    pub fn rto_stats(&self) -> Option<RtoStats> {
        let t = &self.stats;
        let secs = |ps: u64| SimDuration::from_ps(ps).as_secs_f64();
        (t.count > 0).then(|| RtoStats {
            min_s: secs(t.min),
            max_s: secs(t.max),
            sum_s: t.sum as f64 / sim_core::PS_PER_SEC as f64,
            count: t.count,
        })
    }

    /// Fold in one RTT sample `r`, taken by an ACK arriving at `now` (RFC
    /// 6298 sections 2.2-2.5, or ns-2's rules), and clear the backoff.
    #[inline]
    pub fn on_sample(&mut self, r: SimDuration, now: SimTime) {
        if let Some(n) = &mut self.ns2 {
            let rtxcur = n.on_sample(r.as_ps(), now.as_ps());
            self.srtt = n.srtt().map(SimDuration::from_ps);
            self.rttvar = SimDuration::from_ps(n.rttvar());
            self.rto = SimDuration::from_ps(rtxcur).max(self.min_rto);
            self.backoff = 0;
            self.stats.record(self.rto());
            return;
        }
        let r = r.as_ps();
        let (srtt, rttvar) = match self.srtt {
            None => (r, r / 2),
            Some(s) => {
                let s = s.as_ps();
                let var = (self.rttvar.as_ps().saturating_mul(3) + s.abs_diff(r)) / 4;
                ((s.saturating_mul(7).saturating_add(r)) / 8, var)
            }
        };
        self.srtt = Some(SimDuration::from_ps(srtt));
        self.rttvar = SimDuration::from_ps(rttvar);
        let var = SimDuration::from_ps(rttvar.saturating_mul(4)).max(self.granularity);
        self.rto = SimDuration::from_ps(srtt)
            .saturating_add(var)
            .clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
        self.stats.record(self.rto);
    }

    /// The timer expired: double the RTO in force (RFC 6298 section 5.5), up to `max_rto`.
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
        if let Some(n) = &mut self.ns2 {
            n.on_backoff(1u64.checked_shl(self.backoff).unwrap_or(u64::MAX));
            self.srtt = n.srtt().map(SimDuration::from_ps);
        }
        self.stats.record(self.rto());
    }

    /// The RTO in force: `rto * 2^backoff`, at most `max_rto`.
    #[inline]
    pub fn rto(&self) -> SimDuration {
        let k = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        SimDuration::from_ps(self.rto.as_ps().saturating_mul(k))
            .min(self.max_rto)
            .max(self.floor)
    }

    /// Smoothed RTT, once a sample has arrived.
    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt
    }

    /// RTT variation.
    pub fn rttvar(&self) -> SimDuration {
        self.rttvar
    }

    /// Expiries since the last sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

/// The weight of XCP's carried-RTT EWMA (Katabi's ns-2 agent; seed 002 ch. VI §3.3).
pub const XCP_RTT_WEIGHT: f64 = 0.4;

/// An exponentially weighted moving average of RTT samples, s: the first
/// sample is taken as it is, each later one as `srtt = (1 - w) srtt + w r`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RttEwma {
    /// Weight w of a new sample, in (0, 1].
    weight: f64,
    /// Smoothed RTT, s (0: no sample yet).
    srtt: f64,
}

impl RttEwma {
    /// An average with weight `weight` (in (0, 1]) and no sample yet.
    pub fn new(weight: f64) -> Self {
        RttEwma { weight, srtt: 0.0 }
    }

    /// Fold in one RTT sample.
    #[inline]
    pub fn on_sample(&mut self, r: SimDuration) {
        let r = r.as_secs_f64();
        self.srtt = if self.srtt > 0.0 {
            (1.0 - self.weight) * self.srtt + self.weight * r
        } else {
            r
        };
    }

    /// The smoothed RTT, s (0 before the first non-zero sample).
    pub fn secs(&self) -> f64 {
        self.srtt
    }
}

/// The RTT an XCP or RCP sender carries in its header (key `rtt_ewma`):
/// the transport's RFC 6298 SRTT (no weight, gain 1/8 on Karn-valid
/// samples) or an [`RttEwma`] of every ACK's RTT sample with the given weight.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CarriedRtt {
    ewma: Option<RttEwma>,
    /// The transport's SRTT, s (0: none yet).
    srtt: f64,
}

impl CarriedRtt {
    /// Check a `rtt_ewma` key: in (0, 1] when given.
    pub fn validate(weight: Option<f64>) -> Result<(), ParamError> {
        match weight {
            Some(w) if !(w > 0.0 && w <= 1.0) => {
                Err(ParamError::new("rtt_ewma", "must be in (0, 1]"))
            }
            _ => Ok(()),
        }
    }

    /// The transport's SRTT (`None`) or an EWMA of weight `w`.
    pub fn new(weight: Option<f64>) -> Self {
        CarriedRtt {
            ewma: weight.map(RttEwma::new),
            srtt: 0.0,
        }
    }

    /// Take the ACK's RTT sample and the transport's SRTT.
    #[inline]
    pub fn on_ack(&mut self, ack: &AckInfo) {
        if let Some(s) = ack.srtt {
            self.srtt = s.as_secs_f64();
        }
        if let (Some(e), Some(r)) = (&mut self.ewma, ack.rtt) {
            e.on_sample(r);
        }
    }

    /// The RTT to carry, s (0 before the first sample).
    pub fn secs(&self) -> f64 {
        self.ewma.map_or(self.srtt, |e| e.secs())
    }

    /// The transport's RFC 6298 SRTT, s (0 before the first sample).
    pub fn transport_srtt(&self) -> f64 {
        self.srtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ewma_takes_the_first_sample_then_weighs_each_new_one() {
        let mut e = RttEwma::new(XCP_RTT_WEIGHT);
        assert_eq!(e.secs(), 0.0);
        e.on_sample(SimDuration::from_millis(200));
        assert_eq!(e.secs(), 0.2);
        e.on_sample(SimDuration::from_millis(1200));
        assert!((e.secs() - (0.6 * 0.2 + 0.4 * 1.2)).abs() < 1e-12);
    }

    fn secs(x: f64) -> SimDuration {
        SimDuration::from_secs_f64(x)
    }

    #[test]
    fn estimates_follow_the_rfc_6298_formulas() {
        let g = 0.1;
        let mut e = RttEstimator::new(&TcpConfig {
            min_rto: secs(0.15),
            clock_granularity: secs(g),
            ..TcpConfig::default()
        });
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        let mut samples = vec![0.1, 0.15, 0.08, 0.3];
        samples.extend([0.1; 10]);
        let (mut srtt, mut var) = (0.0f64, 0.0f64);
        // Integer-picosecond arithmetic truncates each step: allow 100 ps.
        let close = |a: SimDuration, b: f64| (a.as_secs_f64() - b).abs() < 1e-10;
        for (i, &x) in samples.iter().enumerate() {
            e.on_sample(secs(x), SimTime::ZERO);
            if i == 0 {
                srtt = x;
                var = x / 2.0;
            } else {
                var = 0.75 * var + 0.25 * (srtt - x).abs();
                srtt = 0.875 * srtt + 0.125 * x;
            }
            let rto = (srtt + (4.0 * var).max(g)).clamp(0.15, 60.0);
            assert!(close(e.srtt().unwrap(), srtt), "srtt after {i}");
            assert!(close(e.rttvar(), var), "rttvar after {i}");
            assert!(close(e.rto(), rto), "rto after {i}: {:?} vs {rto}", e.rto());
        }
        // By the end 4*RTTVAR has decayed below G: RTO = SRTT + G.
        assert!(4.0 * var < g);
    }

    #[test]
    fn first_sample_gives_srtt_plus_two_samples_clamped_to_min_rto() {
        let mut e = RttEstimator::new(&TcpConfig {
            min_rto: SimDuration::from_millis(200),
            ..TcpConfig::default()
        });
        e.on_sample(SimDuration::from_millis(100), SimTime::ZERO);
        assert_eq!(e.rttvar(), SimDuration::from_millis(50));
        assert_eq!(e.rto(), SimDuration::from_millis(300));
        let mut e = RttEstimator::new(&TcpConfig::default());
        e.on_sample(SimDuration::from_millis(100), SimTime::ZERO);
        assert_eq!(e.rto(), SimDuration::from_secs(1));
    }

    #[test]
    fn rto_stats_record_each_rto_set_by_a_sample_or_a_backoff() {
        let mut e = RttEstimator::new(&TcpConfig {
            min_rto: SimDuration::from_millis(200),
            ..TcpConfig::default()
        });
        assert_eq!(e.rto_stats(), None);
        // First sample 100 ms: 100 + 4 * 50 = 300 ms; a backoff doubles it.
        e.on_sample(SimDuration::from_millis(100), SimTime::ZERO);
        e.back_off();
        let s = e.rto_stats().unwrap();
        assert_eq!((s.count, s.min_s, s.max_s), (2, 0.3, 0.6));
        assert!((s.mean_s().unwrap() - 0.45).abs() < 1e-12);
    }

    #[test]
    fn the_ns2_estimator_counts_ticks_and_floors_at_two() {
        // ns-2 before 2002: 100-ms ticks, no minimum but two ticks.
        let cfg = TcpConfig {
            rto_estimator: RtoEstimator::Ns2,
            clock_granularity: SimDuration::from_millis(100),
            min_rto: SimDuration::ZERO,
            initial_rto: SimDuration::from_secs(6),
            max_rto: SimDuration::from_secs(64),
            ..TcpConfig::default()
        };
        cfg.validate().unwrap();
        let mut e = RttEstimator::new(&cfg);
        assert_eq!(e.ns2_tick(), Some(SimDuration::from_millis(100)));
        assert_eq!(e.rto(), SimDuration::from_secs(6));
        // A 100.06-ms round trip sent at a tick boundary crosses one: srtt 1
        // tick, rttvar 1/2, RTO (2 << 3 + 8) >> 3 = 3 ticks.
        let at = |ms: f64| SimTime::ZERO + SimDuration::from_secs_f64(ms / 1000.0);
        e.on_sample(SimDuration::from_secs_f64(0.10006), at(1100.06));
        assert_eq!(e.srtt(), Some(SimDuration::from_millis(100)));
        assert_eq!(e.rto(), SimDuration::from_millis(300));
        e.back_off();
        assert_eq!(e.rto(), SimDuration::from_millis(600));
        // Three backoffs more (multiplier 16) discard the estimate: the next
        // sample starts afresh.
        for _ in 0..3 {
            e.back_off();
        }
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rto(), SimDuration::from_millis(4800));
        e.on_sample(SimDuration::from_millis(250), at(5000.0));
        assert_eq!(e.backoff(), 0);
        // 250 ms from 4750 ms crosses the boundaries at 4800, 4900 and
        // 5000: 3 ticks; RTO (6 << 3 + 24) >> 3 = 9 ticks.
        assert_eq!(e.rto(), SimDuration::from_millis(900));
        // With a 10-ms tick and min_rto 200 ms (ns-2.35) a 100-ms round trip
        // gives 100 + 4 x 50 = 300 ms, and 60 ms gives 60 + 120 -> 200 ms.
        let ns235 = TcpConfig {
            rto_estimator: RtoEstimator::Ns2,
            clock_granularity: SimDuration::from_millis(10),
            min_rto: SimDuration::from_millis(200),
            ..TcpConfig::default()
        };
        for (r_ms, rto_ms) in [(100, 300), (60, 200)] {
            let mut f = RttEstimator::new(&ns235);
            f.on_sample(SimDuration::from_millis(r_ms), at(r_ms as f64));
            assert_eq!(f.rto(), SimDuration::from_millis(rto_ms), "{r_ms} ms");
        }
    }

    #[test]
    fn backoff_doubles_up_to_max_rto_and_a_sample_clears_it() {
        let mut e = RttEstimator::new(&TcpConfig {
            max_rto: SimDuration::from_secs(5),
            ..TcpConfig::default()
        });
        let mut seen = Vec::new();
        for _ in 0..5 {
            e.back_off();
            seen.push(e.rto().as_secs_f64());
        }
        assert_eq!(seen, [2.0, 4.0, 5.0, 5.0, 5.0]);
        assert_eq!(e.backoff(), 3);
        e.on_sample(SimDuration::from_millis(400), SimTime::ZERO);
        assert_eq!(e.backoff(), 0);
        assert_eq!(e.rto(), SimDuration::from_millis(1200));
    }

    #[test]
    fn huge_backoff_saturates_instead_of_overflowing() {
        let mut e = RttEstimator::new(&TcpConfig {
            max_rto: SimDuration::MAX,
            ..TcpConfig::default()
        });
        for _ in 0..100 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimDuration::MAX);
    }
}
