//! Classic Kelly control as a packet-level source (seed 002, ch. II eq. 1 in
//! the Johari-Tan discrete form, and ch. V eq. 53-54): every control step
//! the rate moves by `kappa (omega - x(n-D) sum_j mu_j)`, with the path's
//! summed price (links `kelly`).
//!
//! Provenance (spec `seed-002-zhang.md` §2.2, E5.2):
//! - \[PAPER\] `x(n) = x(n-1) + kappa (omega - x(n-D) mu)`: the reference of
//!   the increment is the previous rate, the price is multiplied by the rate
//!   that produced it; with the "negative loss" price `(x - C)/x` and one
//!   flow this is eq. 54, `x(n) = x(n-1) + kappa omega - kappa (x(n-D) - C)`,
//!   stable iff `kappa < 2 sin(pi / (2 (2D - 1)))` (D <= 3 steps for
//!   kappa = 1/2).
//! - [INFERRED, UNSPECIFIED in ns-2] the control step is a fixed period
//!   `step` (default 30 ms: the spec's inference from the stability limit of
//!   E5.2, D < 4 steps at 90 ms but not at 120 ms); the price is the latest
//!   one echoed. Steps run when ACKs arrive (several at once if ACKs were
//!   sparse), from the first price on.
//! - [PAPER eq. 1, INFERRED mechanism] `reference = "measured"` (default):
//!   `x(n-D)` is the rate that produced the price, the flow's own bytes
//!   between the packets that carried two successive prices over the
//!   router's interval (EMKC's eq. 124-125 applied to Kelly: `usr` carries
//!   the packet's byte position; with several `kelly` links the first one's
//!   interval and sequence number are carried). `reference = "echoed"`: the
//!   rate the price-carrying packet was sent at (echoed in `usr`). The two
//!   differ after every rate change: a packet sent at the new rate carries
//!   the price of the old one, and `new x (X_old - C)/X_old` is not
//!   `X_old - C`; measured: with the echoed reference, 1000-B packets, a
//!   5-ms interval and a 30-ms step the single-flow loop of E5.2 diverges at
//!   RTT 90 ms (48 -> 317 Mb/s in one step), where eq. 54 is stable.
//! - \[INFERRED\] initial rate `init_rate` (default 100 kb/s, as EMKC's in
//!   Fig. 21) and a floor `min_rate` (default 10 kb/s); losses do not change
//!   the rate (the price is the loss).

use serde::{Deserialize, Serialize};
use sim_core::{
    check_range, AckInfo, CcHeader, Congestion, Controller, HeaderFamily, MkcHeader, ParamError,
    Rate, SimDuration, SimTime,
};

fn default_kappa() -> f64 {
    0.5
}
fn default_omega() -> Rate {
    Rate::from_bps(20_000)
}
fn default_step() -> SimDuration {
    SimDuration::from_millis(30)
}

/// Most steps taken on one ACK (a longer silence restarts the step clock).
const MAX_CATCH_UP: u32 = 1000;

/// Parameters of the Kelly source (`cc = { kind = "kelly" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KellyCcConfig {
    /// Gain kappa > 0 (default 0.5).
    #[serde(default = "default_kappa")]
    pub kappa: f64,
    /// Willingness to pay omega, a rate (default 20 kb/s, E5.2).
    #[serde(default = "default_omega")]
    pub omega: Rate,
    /// Control step (default 30 ms).
    #[serde(default = "default_step")]
    pub step: SimDuration,
    /// Rate before the first step (default 100 kb/s).
    #[serde(default = "super::default_init_rate")]
    pub init_rate: Rate,
    /// Floor of the rate (default 10 kb/s).
    #[serde(default = "super::default_min_rate")]
    pub min_rate: Rate,
    /// What the price multiplies: `"measured"` (default) or `"echoed"`.
    #[serde(default)]
    pub reference: KellyReference,
}

/// The rate `x(n-D)` that the Kelly source multiplies the price by.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KellyReference {
    /// The flow's own bytes over the router's interval that produced the price.
    #[default]
    Measured,
    /// The rate the price-carrying packet was sent at.
    Echoed,
}

impl Default for KellyCcConfig {
    fn default() -> Self {
        KellyCcConfig {
            kappa: default_kappa(),
            omega: default_omega(),
            step: default_step(),
            init_rate: super::default_init_rate(),
            min_rate: super::default_min_rate(),
            reference: KellyReference::Measured,
        }
    }
}

impl KellyCcConfig {
    /// Check parameter ranges (keys relative to the `cc` table).
    pub fn validate(&self) -> Result<(), ParamError> {
        check_range("kappa", self.kappa, f64::MIN_POSITIVE, 10.0)?;
        if self.step == SimDuration::ZERO {
            return Err(ParamError::new("step", "must be > 0"));
        }
        super::check_rate_floor(self.init_rate, self.min_rate)?;
        Ok(())
    }
}

/// The Kelly source's rate controller.
#[derive(Clone, Debug)]
pub struct KellyCc {
    kappa: f64,
    omega: f64,
    step: SimDuration,
    min_rate: f64,
    /// Sending rate, bits/s.
    rate: f64,
    reference: KellyReference,
    /// Bytes sent so far (the measured reference's packet positions).
    sent: f64,
    /// The first `(router seq, usr)` seen of the latest price interval.
    last: Option<(u32, f64)>,
    /// Latest `(price sum, reference rate)`.
    feedback: Option<(f64, f64)>,
    /// When the next step is due (`None`: no price yet).
    next_step: Option<SimTime>,
}

impl KellyCc {
    /// Validate and build.
    pub fn new(cfg: &KellyCcConfig) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(KellyCc {
            kappa: cfg.kappa,
            omega: cfg.omega.bps_f64(),
            step: cfg.step,
            min_rate: cfg.min_rate.bps_f64(),
            rate: cfg.init_rate.bps_f64(),
            reference: cfg.reference,
            sent: 0.0,
            last: None,
            feedback: None,
            next_step: None,
        })
    }

    /// Take the price of `h` with the flow's own rate over the interval
    /// that produced it (first ACK of each router interval; the rest of the
    /// interval's ACKs repeat it).
    fn measured(&mut self, h: &MkcHeader) {
        let fresh = self.last.is_none_or(|(seq, _)| h.seq != seq);
        if !fresh {
            return;
        }
        let delta = f64::from(h.delta);
        let r = self
            .last
            .and_then(|(seq, u0)| super::interval_rate(h.usr, u0, h.seq.wrapping_sub(seq), delta))
            .unwrap_or(self.rate);
        self.last = Some((h.seq, h.usr));
        self.feedback = Some((h.p, r));
    }

    /// One control step from rate `x` with feedback `mu` on reference `r`.
    pub fn law(&self, x: f64, mu: f64, r: f64) -> f64 {
        (x + self.kappa * (self.omega - r * mu)).max(self.min_rate)
    }
}

impl Controller for KellyCc {
    fn on_ack(&mut self, ack: &AckInfo) {
        if let CcHeader::Mkc(h) = ack.cc {
            if h.id != 0 && h.p.is_finite() {
                match self.reference {
                    KellyReference::Echoed => self.feedback = Some((h.p, h.usr)),
                    KellyReference::Measured => self.measured(&h),
                }
            }
        }
        let Some((mu, r)) = self.feedback else { return };
        let mut due = *self.next_step.get_or_insert(ack.now);
        let mut n = 0;
        while due <= ack.now && n < MAX_CATCH_UP {
            self.rate = self.law(self.rate, mu, r);
            due = due.saturating_add(self.step);
            n += 1;
        }
        if due <= ack.now {
            due = ack.now.saturating_add(self.step);
        }
        self.next_step = Some(due);
    }

    fn on_congestion(&mut self, _now: SimTime, _ev: Congestion) {}

    fn window(&self) -> u64 {
        u64::MAX
    }

    fn rate(&self) -> Option<f64> {
        Some(self.rate)
    }

    fn paced(&self) -> bool {
        true
    }

    fn stamp(&mut self, _now: SimTime, len: u32, hdr: &mut CcHeader) {
        let usr = match self.reference {
            KellyReference::Echoed => self.rate,
            KellyReference::Measured => self.sent,
        };
        self.sent += f64::from(len);
        *hdr = CcHeader::Mkc(MkcHeader {
            p: 0.0,
            usr,
            id: 0,
            seq: 0,
            delta: 0.0,
            rtt: 0.0,
        });
    }

    fn header_family(&self) -> HeaderFamily {
        HeaderFamily::Mkc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now: f64, p: f64, usr: f64) -> AckInfo {
        ack_seq(now, p, usr, 1)
    }

    fn ack_seq(now: f64, p: f64, usr: f64, seq: u32) -> AckInfo {
        AckInfo {
            now: SimTime::from_secs_f64(now),
            cc: CcHeader::Mkc(MkcHeader {
                p,
                usr,
                id: 1,
                seq,
                delta: 0.01,
                rtt: 0.0,
            }),
            ..AckInfo::segment(1000, SimDuration::from_millis(100))
        }
    }

    #[test]
    fn one_step_is_eq_54_and_steps_follow_the_clock() {
        // eq. 54 with the negative-loss price: x + kappa omega - kappa (r - C),
        // since r p = r (r - C)/r. C = 50 Mb/s, r = 60 Mb/s, x = 55 Mb/s.
        let mut k = KellyCc::new(&KellyCcConfig {
            reference: KellyReference::Echoed,
            ..KellyCcConfig::default()
        })
        .unwrap();
        k.rate = 55e6;
        let (c, r) = (50e6, 60e6);
        k.on_ack(&ack(1.0, (r - c) / r, r));
        let want = 55e6 + 0.5 * 20e3 - 0.5 * (r - c);
        assert!((k.rate - want).abs() < 1e-3, "{}", k.rate);
        // Within the same 30 ms step nothing moves; 61 ms later two steps run.
        k.on_ack(&ack(1.01, (r - c) / r, r));
        assert!((k.rate - want).abs() < 1e-3);
        k.on_ack(&ack(1.061, (r - c) / r, r));
        let want = want + 2.0 * (0.5 * 20e3 - 0.5 * (r - c));
        assert!((k.rate - want).abs() < 1e-3, "{}", k.rate);
    }

    #[test]
    fn the_measured_reference_is_the_flows_bytes_over_the_priced_interval() {
        // Packets carry byte positions; the router's interval is 10 ms.
        let mut k = KellyCc::new(&KellyCcConfig::default()).unwrap();
        let mut h = CcHeader::None;
        k.stamp(SimTime::ZERO, 1000, &mut h);
        k.stamp(SimTime::ZERO, 1000, &mut h);
        let CcHeader::Mkc(m) = h else { panic!() };
        assert_eq!(m.usr, 1000.0);
        // First price (seq 4): no earlier interval, the reference is the
        // current rate (100 kb/s); one step.
        let (c, x0) = (50e6, 100e3);
        k.on_ack(&ack_seq(1.0, (60e6 - c) / 60e6, 0.0, 4));
        let x1 = x0 + 0.5 * (20e3 - x0 * (60e6 - c) / 60e6);
        assert!((k.rate - x1).abs() < 1e-6, "{}", k.rate);
        // seq 5 at byte 75,000: 75 kB in 10 ms = 60 Mb/s produced p(5), so
        // r mu = 60 - 50 Mb/s (eq. 54), whatever the sender's rate is now.
        k.rate = 55e6;
        k.on_ack(&ack_seq(1.03, (60e6 - c) / 60e6, 75_000.0, 5));
        let x2 = 55e6 + 0.5 * (20e3 - (60e6 - c));
        // (Delta travels as f32: relative 1e-7.)
        assert!((k.rate / x2 - 1.0).abs() < 1e-6, "{}", k.rate);
        // Two intervals at once (seq 7): the bytes are spread over both.
        k.rate = 40e6;
        k.on_ack(&ack_seq(1.06, (30e6 - c) / 30e6, 150_000.0, 7));
        let x3 = 40e6 + 0.5 * (20e3 - (30e6 - c));
        assert!((k.rate / x3 - 1.0).abs() < 1e-6, "{}", k.rate);
    }

    #[test]
    fn a_bad_kappa_or_step_names_its_key() {
        let c = KellyCcConfig {
            kappa: -1.0,
            ..KellyCcConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().key, "kappa");
        let c = KellyCcConfig {
            step: SimDuration::ZERO,
            ..KellyCcConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().key, "step");
    }
}
