//! TCP/RM (TCP Resource Marking): SBRM made compatible with standard
//! RFC 3168 receivers. NewReno, except that congestion avoidance with ECN
//! grows by `kappa RTT w / cwnd` per ACK without ECN-Echo and shrinks by
//! `kappa cwnd` on the first ECN-Echo of a round trip.
//!
//! Provenance (Zimmermann 2005, Sec. 5.6.3, spec 2.7):
//! - "TCP/RM only modifies TCP's congestion avoidance algorithm when ECN is
//!   used. Otherwise it is identical to TCP NewReno. Also, TCP's normal
//!   reaction to packet loss is unchanged."
//! - Eq. 5.6.1: "for every received non-marked acknowledgment (no ECE flag
//!   set)" `cwnd += kappa RTT w / cwnd`; eq. 5.6.2: "for the first marked
//!   acknowledgment (ECE flag set) per round-trip time" `cwnd -= kappa cwnd`;
//!   then "the sender must ignore ECE flags for one round-trip time after it
//!   has reduced its congestion window" (the receiver repeats ECE until CWR).
//! - Sec. 5.6.4: kappa = 0.1, w = 20 (the defaults).
//! - RTT estimation: the smoothed RTT with Karn's rule, and "discard RTT
//!   measurements of retransmitted segments and all following segments that
//!   were sent before the lost packet was detected" (`discard_rtt_after_loss`,
//!   default true).
//!
//! How the ECN-Echo reaches this controller: the receiver echoes as RFC 3168
//! (`EcnFeedback::Classic`: ECE on every ACK until CWR). The transport hands
//! every ACK's ECE to `on_ack` (`AckInfo::ece`), which gates the increase,
//! and signals `Congestion::Ecn` on the first ECE ACK outside loss recovery
//! once an ACK covers data sent after the last reduction (RFC 3168 section
//! 6.1.2; the same point at which it sets CWR): exactly "the first marked
//! ACK per round trip, then ignore ECE for one round trip", so the decrease
//! is taken there, and the CWR the receiver needs goes with it.
//!
//! INFERRED: an ACK carrying ECE never grows the window, whether or not it
//!   triggered the decrease ("non-marked acknowledgment (no ECE flag set)"
//!   only; RFC 3168 section 6.1.2).
//! INFERRED: an ECN-Echo in slow start gets NewReno's reaction (halve,
//!   ssthresh = max(FlightSize/2, 2 SMSS)): TCP/RM changes only congestion
//!   avoidance. The decrease (5.6.2) lowers ssthresh with the window, so the
//!   window stays in congestion avoidance.
//! INFERRED: an ACK of `n` segments (delayed ACKs, n <= 2) applies the
//!   increase n times' worth; duplicate ACKs and ACKs in recovery do not.
//! INFERRED (RTT rule): the controller keeps its own RFC 6298 SRTT (gain
//!   1/8) of the samples it accepts, and rejects the sample of any ACK that
//!   does not reach past the highest byte sent when the last loss was
//!   detected (fast retransmit or timeout): such an ACK acknowledges the
//!   retransmission or segments sent between the loss and its detection. The
//!   window transport here timestamps every transmission (RFC 7323) and the
//!   receiver echoes the timestamp of the segment that triggered the ACK, so
//!   these samples are not inflated by the recovery as the thesis's timer
//!   samples were (it recommends timestamps for that reason); the rule then
//!   only drops about one window of valid samples per loss. With
//!   `discard_rtt_after_loss = false` the transport's SRTT is used.
//! Units: `w` packets/s, `kappa` dimensionless, the window in segments,
//!   RTT seconds.

use serde::{Deserialize, Serialize};
use sim_core::{AckInfo, Congestion, Controller, ParamError, SimTime};

use super::pricing_window::{
    check_window_keys, positive, PricingWindow, DEFAULT_INITIAL_SSTHRESH, DEFAULT_INITIAL_WINDOW,
};

/// RFC 6298's SRTT gain.
const SRTT_GAIN: f64 = 0.125;

/// Parameters of TCP/RM (`cc = { kind = "tcp_rm", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpRmConfig {
    /// Gain (dimensionless, in (0, 1)). Default 0.1 (Sec. 5.6.4).
    pub kappa: f64,
    /// Willingness to pay, packets/s (> 0). Default 20 (Sec. 5.6.4).
    pub w: f64,
    /// Discard RTT samples from ACKs of data sent before a loss was
    /// detected (the thesis's proposal). Default true.
    pub discard_rtt_after_loss: bool,
    /// Initial window, segments (>= 1). Default 1 (spec 2.1).
    pub initial_window: u32,
    /// Initial slow-start threshold, segments (>= 1). Default 32 (spec 2.1).
    pub initial_ssthresh: u32,
    /// Smallest window, segments (>= 1). Default 1.
    pub min_window: f64,
}

impl Default for TcpRmConfig {
    fn default() -> Self {
        TcpRmConfig {
            kappa: 0.1,
            w: 20.0,
            discard_rtt_after_loss: true,
            initial_window: DEFAULT_INITIAL_WINDOW,
            initial_ssthresh: DEFAULT_INITIAL_SSTHRESH,
            min_window: 1.0,
        }
    }
}

impl TcpRmConfig {
    /// Check parameter ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.kappa > 0.0 && self.kappa < 1.0) {
            return Err(ParamError::new(
                "kappa",
                format!(
                    "{} must be in (0, 1): the decrease keeps 1 - kappa of the window",
                    self.kappa
                ),
            ));
        }
        positive("w", self.w)?;
        check_window_keys(self.initial_window, self.initial_ssthresh, self.min_window)
    }
}

/// TCP/RM's state.
#[derive(Clone, Debug)]
pub struct TcpRm {
    cfg: TcpRmConfig,
    win: PricingWindow,
    /// Bytes cumulatively acknowledged (the transport's `snd_una`).
    una: u64,
    /// Highest byte known sent (`snd_max`), from the ACKs' flight sizes.
    snd_max: u64,
    /// `snd_max` when the last loss was detected: samples of ACKs at or
    /// below it are discarded.
    discard_until: u64,
    /// SRTT of the accepted samples, seconds.
    srtt: Option<f64>,
    /// Decreases taken (eq. 5.6.2 or, in slow start, NewReno's halving).
    ecn_reductions: u64,
}

impl TcpRm {
    /// Validate `cfg` and build a controller for segments of `mss` bytes.
    pub fn new(cfg: &TcpRmConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(TcpRm {
            win: PricingWindow::new(
                cfg.initial_window,
                cfg.initial_ssthresh,
                cfg.min_window,
                true,
                mss,
            )?,
            cfg: cfg.clone(),
            una: 0,
            snd_max: 0,
            discard_until: 0,
            srtt: None,
            ecn_reductions: 0,
        })
    }

    /// The window, segments.
    pub fn cwnd_pkts(&self) -> f64 {
        self.win.segments()
    }

    /// The SRTT of the samples the RTT rule accepted, seconds.
    pub fn filtered_srtt(&self) -> Option<f64> {
        self.srtt
    }

    /// ECN-Echo reductions taken.
    pub fn ecn_reductions(&self) -> u64 {
        self.ecn_reductions
    }

    /// True while in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.win.in_slow_start()
    }

    /// The RTT for eq. 5.6.1, seconds.
    fn rtt(&self, ack: &AckInfo) -> Option<f64> {
        let transport = ack.srtt.map(|s| s.as_secs_f64());
        if self.cfg.discard_rtt_after_loss {
            self.srtt.or(transport)
        } else {
            transport
        }
    }

    /// Snapshot `snd_max` at a loss's detection (`in_flight` is the flight
    /// the transport reports with it).
    fn loss_detected(&mut self, in_flight: u64) {
        self.snd_max = self.snd_max.max(self.una + in_flight);
        self.discard_until = self.snd_max;
    }
}

impl Controller for TcpRm {
    fn on_ack(&mut self, ack: &AckInfo) {
        self.snd_max = self.snd_max.max(self.una + ack.in_flight);
        self.una += ack.acked;
        if let Some(r) = ack.rtt {
            if self.una > self.discard_until && ack.acked > 0 {
                let r = r.as_secs_f64();
                self.srtt = Some(match self.srtt {
                    None => r,
                    Some(s) => s + SRTT_GAIN * (r - s),
                });
            }
        }
        let Some(n) = self.win.counted(ack) else {
            return;
        };
        if ack.ece {
            return;
        }
        if self.win.in_slow_start() {
            self.win.grow_slow_start(n);
            return;
        }
        let Some(rtt) = self.rtt(ack) else {
            return;
        };
        let c = &self.cfg;
        self.win.add(c.kappa * n * rtt * c.w / self.win.segments());
    }

    fn on_congestion(&mut self, _now: SimTime, ev: Congestion) {
        match ev {
            Congestion::Ecn { .. } => {
                self.ecn_reductions += 1;
                if self.win.in_slow_start() {
                    self.win.reno_cut(ev);
                } else {
                    let cut = self.cfg.kappa * self.win.segments();
                    self.win.add(-cut);
                }
            }
            Congestion::Loss { in_flight } | Congestion::Timeout { in_flight } => {
                self.loss_detected(in_flight);
                self.win.reno_cut(ev);
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.win.recovery_exit();
    }

    #[inline]
    fn window(&self) -> u64 {
        self.win.bytes()
    }

    fn ssthresh(&self) -> Option<u64> {
        Some(self.win.ssthresh())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcConfig;
    use sim_core::{EcnFeedback, SimDuration};

    const MSS: u32 = 1000;

    fn rm(toml_text: &str) -> TcpRm {
        let cfg: TcpRmConfig = toml::from_str(toml_text).unwrap();
        TcpRm::new(&cfg, MSS).unwrap()
    }

    /// An ACK of one segment, RTT sample and SRTT `rtt_ms`, `flight`
    /// segments in flight before it.
    fn ack(rtt_ms: u64, flight: u64, ece: bool) -> AckInfo {
        AckInfo {
            ece,
            in_flight: flight * u64::from(MSS),
            ..AckInfo::segment(MSS, SimDuration::from_millis(rtt_ms))
        }
    }

    #[test]
    fn an_ack_without_ece_adds_kappa_rtt_w_over_cwnd() {
        let mut c = rm("initial_window = 40");
        assert!(!c.in_slow_start());
        c.on_ack(&ack(100, 40, false)); // + 0.1 * 0.1 * 20 / 40 = 0.005
        assert!((c.cwnd_pkts() - 40.005).abs() < 1e-12, "{}", c.cwnd_pkts());
        // ECE ACKs never grow the window.
        c.on_ack(&ack(100, 40, true));
        assert!((c.cwnd_pkts() - 40.005).abs() < 1e-12);
    }

    #[test]
    fn the_ecn_signal_removes_kappa_of_the_window_in_congestion_avoidance() {
        let mut c = rm("initial_window = 40");
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 40_000 });
        assert!((c.cwnd_pkts() - 36.0).abs() < 1e-12);
        assert!(!c.in_slow_start());
        assert_eq!(c.ecn_reductions(), 1);
        // Growth resumes from there in congestion avoidance.
        c.on_ack(&ack(100, 36, false));
        assert!((c.cwnd_pkts() - (36.0 + 0.2 / 36.0)).abs() < 1e-12);
    }

    #[test]
    fn an_ecn_signal_in_slow_start_halves_as_new_reno() {
        let mut c = rm("initial_window = 10");
        assert!(c.in_slow_start());
        c.on_congestion(SimTime::ZERO, Congestion::Ecn { in_flight: 10_000 });
        assert_eq!(c.window(), 5000);
        assert!(!c.in_slow_start());
    }

    #[test]
    fn losses_and_timeouts_are_new_renos() {
        let mut c = rm("initial_window = 40");
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 40_000 });
        assert_eq!(c.window(), 20_000);
        c.on_recovery_exit(SimTime::ZERO);
        assert_eq!(c.window(), 20_000);
        c.on_congestion(SimTime::ZERO, Congestion::Timeout { in_flight: 20_000 });
        assert_eq!(c.window(), 1000);
        assert!(c.in_slow_start());
        assert_eq!(c.ecn_feedback(), EcnFeedback::Classic);
    }

    #[test]
    fn rtt_samples_of_data_sent_before_a_loss_was_detected_are_discarded() {
        let mut c = rm("initial_window = 10");
        // Ten ACKs of 100 ms: SRTT 0.1; the sender has sent 20 segments.
        for _ in 0..10 {
            c.on_ack(&ack(100, 10, false));
        }
        assert!((c.filtered_srtt().unwrap() - 0.1).abs() < 1e-12);
        // A fast retransmit with 10 segments in flight: snd_max = 20 000.
        c.on_congestion(SimTime::ZERO, Congestion::Loss { in_flight: 10_000 });
        // Recovery and its exit: ACKs up to byte 20 000 with 900 ms samples
        // (timer-style samples of segments held behind the hole): discarded.
        for _ in 0..10 {
            c.on_ack(&AckInfo {
                in_recovery: true,
                ..ack(900, 10, false)
            });
        }
        assert!((c.filtered_srtt().unwrap() - 0.1).abs() < 1e-12);
        // Data sent after the detection: accepted again.
        c.on_ack(&ack(200, 5, false));
        assert!((c.filtered_srtt().unwrap() - 0.1125).abs() < 1e-12);
        // Without the rule the transport's SRTT is the one used.
        let mut c = rm("initial_window = 40\ndiscard_rtt_after_loss = false");
        c.on_ack(&AckInfo {
            srtt: Some(SimDuration::from_millis(500)),
            ..ack(100, 40, false)
        });
        assert!((c.cwnd_pkts() - (40.0 + 0.1 * 0.5 * 20.0 / 40.0)).abs() < 1e-12);
    }

    #[test]
    fn parses_from_toml_and_rejects_bad_keys() {
        let c: CcConfig = toml::from_str("kind = \"tcp_rm\"").unwrap();
        assert_eq!(c, CcConfig::TcpRm(TcpRmConfig::default()));
        assert_eq!(c.name(), "tcp_rm");
        assert_eq!(c.build(1000).unwrap().window(), 1000);
        let key = |t: &str| {
            toml::from_str::<CcConfig>(t)
                .unwrap()
                .validate()
                .unwrap_err()
                .key
        };
        assert_eq!(key("kind = \"tcp_rm\"\nkappa = 1.0"), "kappa");
        assert_eq!(key("kind = \"tcp_rm\"\nw = 0.0"), "w");
        assert_eq!(key("kind = \"tcp_rm\"\nmin_window = 0.0"), "min_window");
        assert!(toml::from_str::<CcConfig>("kind = \"tcp_rm\"\nslow_start = false").is_err());
    }
}
