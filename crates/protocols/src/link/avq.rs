//! EMKC-AVQ's router (seed 002, ch. VI §3.3, eq. 130): the EMKC price with
//! an adaptive virtual capacity `C~` in place of `C`, driven by an integral
//! controller towards the target utilisation gamma, once per interval.
//!
//! Provenance (spec `seed-002-zhang.md` §2.5):
//! - \[PAPER\] `C~(n) = C~(n - Delta) + tau Delta (gamma C - y(n)) / D_max`,
//!   clamped to `(-inf, gamma C]`, and `p = (y - C~)/y` (eq. 129 with `C~`);
//!   tau = 0.2 throughout ch. VI; the per-interval form, not ns-2's
//!   per-packet AVQ ("too noisy").
//! - \[PAPER\] D_max is the largest RTT of the flows, estimated from a carried
//!   field (the senders' smoothed RTT; the EMKC sender smooths with XCP's
//!   EWMA weight 0.4, `crate::cc::emkc`). \[INFERRED\] `d_max = "window"`
//!   (default): each interval's largest carried RTT r stays in D_max while
//!   the interval ended at most r ago, so a flow counts as present for one
//!   of its own RTTs after its last packet. That is the largest RTT of the
//!   flows that are sending: a flow sends at least once per RTT unless it
//!   has stopped, however sparse its packets are against Delta (T2's x100,
//!   RTT 2 s, is 53-160 ms between packets, so most 100-ms intervals carry
//!   none of its RTTs), and one that has left is forgotten one RTT later.
//!   It is the same maximum as "the last ceil(D_max / Delta) intervals"
//!   (a sample older than its own RTT but younger than D_max is smaller than
//!   D_max and cannot be the maximum) without the circular window length,
//!   and unlike a maximum that decays after a quiet spell it needs no decay
//!   constant. With no sample in force (no sender, or none yet) D_max keeps
//!   its last value (`d_max_init`, default 200 ms, before any).
//!   `d_max = "interval"`: the largest RTT carried in the interval just
//!   ended, kept through intervals without one (netsim's rule before issue
//!   55: in T2 it dropped D_max from ~2 s to ~0.22 s in every interval x100
//!   missed, a 9x jump in the integrator's gain).
//! - [INFERRED, UNSPECIFIED] the initial `C~` is gamma C (the spec's
//!   suggestion).

use serde::{Deserialize, Serialize};
use sim_core::{check_range, ParamError, SimDuration};

use super::emkc::{Emkc, PathPrice};
use super::LinkBuildCtx;

fn default_interval() -> SimDuration {
    SimDuration::from_millis(100)
}
fn default_tau() -> f64 {
    0.2
}
fn default_gamma() -> f64 {
    1.0
}
fn default_d_max_init() -> SimDuration {
    SimDuration::from_millis(200)
}

/// Which carried RTTs D_max is the largest of.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DMaxRule {
    /// Every interval's largest RTT, for that RTT after the interval (default).
    #[default]
    Window,
    /// The last interval's only (kept through intervals without any).
    Interval,
}

/// Parameters of the EMKC-AVQ router (`algo = { kind = "emkc_avq" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AvqConfig {
    /// The averaging interval Delta (default 100 ms).
    #[serde(default = "default_interval")]
    pub interval: SimDuration,
    /// Integrator gain tau, in (0, 2] (default 0.2).
    #[serde(default = "default_tau")]
    pub tau: f64,
    /// Target utilisation gamma, in (0, 1] (default 1).
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// D_max before any packet carries an RTT (default 200 ms).
    #[serde(default = "default_d_max_init")]
    pub d_max_init: SimDuration,
    /// How long a carried RTT stays in D_max (default `"window"`).
    #[serde(default)]
    pub d_max: DMaxRule,
}

impl Default for AvqConfig {
    fn default() -> Self {
        AvqConfig {
            interval: default_interval(),
            tau: default_tau(),
            gamma: default_gamma(),
            d_max_init: default_d_max_init(),
            d_max: DMaxRule::Window,
        }
    }
}

impl AvqConfig {
    /// Validate and build the router (an [`Emkc`] with a virtual capacity).
    pub fn build(&self, ctx: &LinkBuildCtx) -> Result<Emkc, ParamError> {
        check_range("tau", self.tau, f64::MIN_POSITIVE, 2.0)?;
        check_range("gamma", self.gamma, f64::MIN_POSITIVE, 1.0)?;
        if self.d_max_init == SimDuration::ZERO {
            return Err(ParamError::new("d_max_init", "must be > 0"));
        }
        let c = ctx.capacity.bps_f64() / 8.0;
        let avq = Avq::new(
            self.gamma * c,
            self.tau,
            self.d_max_init.as_secs_f64(),
            self.d_max,
        );
        Emkc::with(self.interval, ctx, PathPrice::Max, Some(avq))
    }
}

/// The virtual-capacity integrator of one link.
#[derive(Clone, Debug)]
pub struct Avq {
    /// gamma C, bytes/s.
    target: f64,
    tau: f64,
    /// D_max, s.
    d_max: f64,
    /// C~, bytes/s.
    cv: f64,
    rule: DMaxRule,
    /// Time since the start, s (the sum of the intervals).
    clock: f64,
    /// `"window"`: (end of the interval, its largest carried RTT) in s, for
    /// the intervals whose RTT is still in force.
    recent: Vec<(f64, f64)>,
}

impl Avq {
    /// An integrator on target `target` bytes/s with gain `tau`, D_max `d_max` s to start.
    fn new(target: f64, tau: f64, d_max: f64, rule: DMaxRule) -> Self {
        Avq {
            target,
            tau,
            d_max,
            cv: target,
            rule,
            clock: 0.0,
            recent: Vec::new(),
        }
    }

    /// The virtual capacity C~, bytes/s.
    pub fn capacity(&self) -> f64 {
        self.cv
    }

    /// The current D_max, s.
    pub fn d_max(&self) -> f64 {
        self.d_max
    }

    /// End an interval of `t` s with arrival rate `y` bytes/s, in which the
    /// largest carried RTT was `rtt_max` s (0: none).
    pub fn update(&mut self, t: f64, y: f64, rtt_max: f64) {
        self.clock += t;
        match self.rule {
            DMaxRule::Interval => {
                if rtt_max > 0.0 {
                    self.d_max = rtt_max;
                }
            }
            DMaxRule::Window => {
                let now = self.clock;
                if rtt_max > 0.0 {
                    self.recent.push((now, rtt_max));
                }
                self.recent.retain(|&(end, r)| now - end <= r);
                if let Some(m) = self.recent.iter().map(|&(_, r)| r).reduce(f64::max) {
                    self.d_max = m;
                }
            }
        }
        self.cv = (self.cv + self.tau * t * (self.target - y) / self.d_max).min(self.target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::interval::test_ctx;

    #[test]
    fn the_virtual_capacity_integrates_the_spare_rate_and_is_capped_at_gamma_c() {
        // eq. 130 with tau 0.2, Delta 0.1 s, D_max 0.5 s on gamma C = 1000.
        let mut a = Avq::new(1000.0, 0.2, 0.2, DMaxRule::Interval);
        a.update(0.1, 1500.0, 0.5);
        assert!((a.capacity() - (1000.0 + 0.2 * 0.1 * (-500.0) / 0.5)).abs() < 1e-9);
        assert_eq!(a.d_max(), 0.5);
        // Spare capacity raises C~ but never above gamma C; no RTT keeps D_max.
        a.update(0.1, 0.0, 0.0);
        assert_eq!(a.capacity(), 1000.0);
        assert_eq!(a.d_max(), 0.5);
        // It may go negative (range (-inf, gamma C]).
        for _ in 0..200 {
            a.update(0.1, 5000.0, 0.0);
        }
        assert!(a.capacity() < 0.0);
    }

    #[test]
    fn d_max_holds_a_sparse_flows_rtt_and_forgets_it_one_rtt_after_it_left() {
        // T2: a 2-s flow whose packets miss some 100-ms intervals, among
        // 0.22-s flows that fill every interval.
        let mut a = Avq::new(1000.0, 0.2, 0.2, DMaxRule::Window);
        a.update(0.1, 1000.0, 2.0);
        for _ in 0..5 {
            a.update(0.1, 1000.0, 0.22);
            assert_eq!(a.d_max(), 2.0);
        }
        // Its last packet: 1.9 s later it still counts ...
        a.update(0.1, 1000.0, 2.0);
        for _ in 0..19 {
            a.update(0.1, 1000.0, 0.22);
            assert_eq!(a.d_max(), 2.0);
        }
        // ... 2.1 s later it is gone and the short flows' RTT is D_max.
        a.update(0.1, 1000.0, 0.22);
        a.update(0.1, 1000.0, 0.22);
        assert_eq!(a.d_max(), 0.22);
        // With no flow at all D_max keeps its value.
        for _ in 0..10 {
            a.update(0.1, 0.0, 0.0);
        }
        assert_eq!(a.d_max(), 0.22);
        // The per-interval rule forgets it at the first interval without it.
        let mut b = Avq::new(1000.0, 0.2, 0.2, DMaxRule::Interval);
        b.update(0.1, 1000.0, 2.0);
        b.update(0.1, 1000.0, 0.22);
        assert_eq!(b.d_max(), 0.22);
    }

    #[test]
    fn parameters_outside_their_range_are_rejected_by_key() {
        let bad = AvqConfig {
            tau: 0.0,
            ..AvqConfig::default()
        };
        assert_eq!(bad.build(&test_ctx(1_000_000)).unwrap_err().key, "tau");
        let bad = AvqConfig {
            gamma: 1.5,
            ..AvqConfig::default()
        };
        assert_eq!(bad.build(&test_ctx(1_000_000)).unwrap_err().key, "gamma");
        let ok = AvqConfig::default().build(&test_ctx(8_000)).unwrap();
        assert_eq!(ok.target(), 1000.0);
    }
}
