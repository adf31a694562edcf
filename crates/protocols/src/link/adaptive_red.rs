//! Adaptive RED: RED ([`super::red`]) whose `max_p` an AIMD law moves every
//! `interval` to hold the average queue in the middle of the thresholds.
//!
//! Provenance: Floyd, Gummadi & Shenker, "Adaptive RED: An Algorithm for
//! Increasing the Robustness of RED's Active Queue Management" (FGS01,
//! 2001), the algorithm of its Fig. 6 and its automatic settings, used with
//! the parameters of the seed-000 thesis (Zimmermann 2005, Sec. 6.7, Table
//! 6.7.1; spec `seed-000-zimmermann.md` §2.2):
//! - \[FGS01\] every `interval` (0.5 s): if `avg > target` and `max_p <= top`,
//!   `max_p += min(alpha, max_p / 4)`; else if `avg < target` and `max_p >=
//!   bottom`, `max_p *= beta`; `target = [min_th + 0.4 (max_th - min_th),
//!   min_th + 0.6 (max_th - min_th)]`; top 0.5, bottom 0.01, alpha 0.01,
//!   beta 0.9 (the thesis's Table 6.7.1 values too, with th_min 25 and
//!   th_max 75 packets, which a scenario gives as `min_th`, `max_th`).
//! - \[FGS01\] automatic settings for the keys a scenario omits, with C the
//!   capacity in mean-size packets per second: `w_q = 1 - exp(-1/C)`,
//!   `min_th = max(5, target_delay C / 2)` with `target_delay` 5 ms,
//!   `max_th = 3 min_th`, gentle RED.
//! - INFERRED: `max_p` is clamped to [bottom, top]. FGS01 keeps `max_p` "in
//!   the range [0.01, 0.5]", but its pseudocode's checks let one step cross
//!   a bound (0.5 -> 0.51, 0.01 -> 0.009; ns-2 `red.cc` and Linux do the
//!   same); the clamp keeps the stated range, a difference of at most one
//!   step at the edges. `bounds = "pseudocode"` keeps the literal checks
//!   (one step may cross a bound), `"clamp"` (default) the stated range.
//! - INFERRED: the law runs on a periodic timer and reads the average as of
//!   the last arrival (FGS01: "every interval seconds"); ns-2 `red.cc`
//!   instead checks on each arrival whether `interval` has passed since the
//!   last change of `max_p`.
//! - [EXTERNAL ns-2] the initial `max_p` is 0.1 (`linterm_` 10), and the
//!   mean packet size behind C is ns-2's `mean_pktsize_` 500 B, as for `red`.
//! - INFERRED: the gentle region above `max_th` runs from the current
//!   `max_p` to 1, so the probability stays continuous as `max_p` moves.
//! - Thresholds are in packets (no byte mode); everything else (EWMA on
//!   arrivals, idle decay, `count`, `mode`, `limit`) is `red`'s.

use serde::{Deserialize, Serialize};
use sim_core::{
    Bytes, LazyRng, LinkAlgorithm, LinkControl, LinkView, Packet, ParamError, SimDuration, Verdict,
};

use super::red::{Red, RedConfig, RedCount, RedMode};
use super::{LinkBuildCtx, QueueSize};

fn default_max_p() -> f64 {
    0.1
}
fn default_top() -> f64 {
    0.5
}
fn default_bottom() -> f64 {
    0.01
}
fn default_alpha() -> f64 {
    0.01
}
fn default_beta() -> f64 {
    0.9
}
fn default_interval() -> SimDuration {
    SimDuration::from_millis(500)
}
fn default_target_delay() -> SimDuration {
    SimDuration::from_millis(5)
}
fn default_true() -> bool {
    true
}
fn default_mean_pkt_size() -> Bytes {
    Bytes::new(500)
}

/// Parameters of adaptive RED as written in a scenario (`kind = "adaptive_red"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveRedConfig {
    /// Minimum threshold, packets (default `max(5, target_delay C / 2)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th: Option<f64>,
    /// Maximum threshold, packets (default `3 min_th`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th: Option<f64>,
    /// EWMA weight of the average queue (default `1 - exp(-1/C)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_q: Option<f64>,
    /// The initial `max_p`, in [bottom, top] (default 0.1).
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    /// Largest `max_p` (default 0.5).
    #[serde(default = "default_top")]
    pub top: f64,
    /// Smallest `max_p` (default 0.01).
    #[serde(default = "default_bottom")]
    pub bottom: f64,
    /// Largest additive step of `max_p` (default 0.01; the step is
    /// `min(alpha, max_p / 4)`).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Multiplicative decrease of `max_p` (default 0.9).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// How often `max_p` adapts (default 0.5 s).
    #[serde(default = "default_interval")]
    pub interval: SimDuration,
    /// The queueing delay the automatic `min_th` aims at (default 5 ms).
    #[serde(default = "default_target_delay")]
    pub target_delay: SimDuration,
    /// Gentle variant (default true).
    #[serde(default = "default_true")]
    pub gentle: bool,
    /// Mark (default) or drop the selected packets.
    #[serde(default)]
    pub mode: RedMode,
    /// Select every packet that finds at least this instantaneous queue (none if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueSize>,
    /// Mean packet size behind C and the idle decay (default 500 B).
    #[serde(default = "default_mean_pkt_size")]
    pub mean_pkt_size: Bytes,
    /// Count-based modification of the probability (default `"wait"`).
    #[serde(default)]
    pub count: RedCount,
    /// How `top` and `bottom` bound `max_p` (default `"clamp"`).
    #[serde(default)]
    pub bounds: MaxPBounds,
}

impl Default for AdaptiveRedConfig {
    fn default() -> Self {
        AdaptiveRedConfig {
            min_th: None,
            max_th: None,
            w_q: None,
            max_p: default_max_p(),
            top: default_top(),
            bottom: default_bottom(),
            alpha: default_alpha(),
            beta: default_beta(),
            interval: default_interval(),
            target_delay: default_target_delay(),
            gentle: true,
            mode: RedMode::Mark,
            limit: None,
            mean_pkt_size: default_mean_pkt_size(),
            count: RedCount::Wait,
            bounds: MaxPBounds::Clamp,
        }
    }
}

/// How adaptive RED's `top` and `bottom` bound `max_p`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxPBounds {
    /// `max_p` stays in [bottom, top] (FGS01's stated range).
    #[default]
    Clamp,
    /// FGS01's pseudocode: increase while `max_p <= top`, decrease while
    /// `max_p >= bottom`, so one step may end past a bound (as ns-2's
    /// `red.cc` and Linux).
    Pseudocode,
}

/// Adaptive RED: RED plus the AIMD law on `max_p`.
#[derive(Clone, Debug)]
pub struct AdaptiveRed {
    red: Red,
    top: f64,
    bottom: f64,
    alpha: f64,
    beta: f64,
    interval: SimDuration,
    /// The target range of the average queue, packets.
    target: (f64, f64),
    bounds: MaxPBounds,
}

fn in_range(key: &str, x: f64, lo_open: f64, hi: f64) -> Result<(), ParamError> {
    if x.is_finite() && x > lo_open && x <= hi {
        Ok(())
    } else {
        Err(ParamError::new(
            key,
            format!("{x} must be in ({lo_open}, {hi}]"),
        ))
    }
}

impl AdaptiveRed {
    /// Validate, fill in FGS01's automatic settings, and build.
    pub fn new(cfg: &AdaptiveRedConfig, ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        let mean = cfg.mean_pkt_size.get();
        if mean == 0 {
            return Err(ParamError::new("mean_pkt_size", "must be >= 1 byte"));
        }
        if cfg.target_delay == SimDuration::ZERO {
            return Err(ParamError::new("target_delay", "must be > 0"));
        }
        if cfg.interval == SimDuration::ZERO {
            return Err(ParamError::new("interval", "must be > 0"));
        }
        in_range("top", cfg.top, 0.0, 1.0)?;
        in_range("bottom", cfg.bottom, 0.0, cfg.top)?;
        in_range("alpha", cfg.alpha, 0.0, 1.0)?;
        if !(cfg.beta.is_finite() && cfg.beta > 0.0 && cfg.beta < 1.0) {
            return Err(ParamError::new(
                "beta",
                format!("{} must be in (0, 1)", cfg.beta),
            ));
        }
        if !(cfg.max_p.is_finite() && cfg.max_p >= cfg.bottom && cfg.max_p <= cfg.top) {
            return Err(ParamError::new(
                "max_p",
                format!(
                    "{} must be in [bottom, top] = [{}, {}]",
                    cfg.max_p, cfg.bottom, cfg.top
                ),
            ));
        }
        // C, mean-size packets per second.
        let c = ctx.capacity.bps_f64() / (8.0 * mean as f64);
        let min_th = cfg
            .min_th
            .unwrap_or_else(|| (cfg.target_delay.as_secs_f64() * c / 2.0).max(5.0));
        let max_th = cfg.max_th.unwrap_or(3.0 * min_th);
        let w_q = cfg.w_q.unwrap_or_else(|| -(-1.0 / c).exp_m1());
        let red = Red::new(
            &RedConfig {
                preset: None,
                min_th: Some(min_th),
                max_th: Some(max_th),
                max_p: Some(cfg.max_p),
                w_q: Some(w_q),
                gentle: cfg.gentle,
                mode: cfg.mode,
                mark_p: None,
                limit: cfg.limit,
                bytes: false,
                mean_pkt_size: cfg.mean_pkt_size,
                count: cfg.count,
            },
            ctx,
        )?;
        let span = max_th - min_th;
        Ok(AdaptiveRed {
            red,
            top: cfg.top,
            bottom: cfg.bottom,
            alpha: cfg.alpha,
            beta: cfg.beta,
            interval: cfg.interval,
            target: (min_th + 0.4 * span, min_th + 0.6 * span),
            bounds: cfg.bounds,
        })
    }

    /// The RED underneath (thresholds, weight, average queue).
    pub fn red(&self) -> &Red {
        &self.red
    }

    /// The `max_p` in force.
    pub fn max_p(&self) -> f64 {
        self.red.max_p()
    }

    /// The target range of the average queue, packets.
    pub fn target(&self) -> (f64, f64) {
        self.target
    }

    /// Set the `max_p` in force (tests and tools), clamped to [bottom, top].
    pub fn set_max_p(&mut self, max_p: f64) {
        self.red.set_max_p(max_p.clamp(self.bottom, self.top));
    }

    /// One step of FGS01's law with average queue `avg` (packets).
    pub fn adapt(&mut self, avg: f64) {
        let p = self.red.max_p();
        let (lo, hi) = self.target;
        let clamp = self.bounds == MaxPBounds::Clamp;
        if avg > hi && p <= self.top {
            let up = p + self.alpha.min(p / 4.0);
            self.red
                .set_max_p(if clamp { up.min(self.top) } else { up });
        } else if avg < lo && p >= self.bottom {
            let down = p * self.beta;
            self.red
                .set_max_p(if clamp { down.max(self.bottom) } else { down });
        }
    }
}

impl LinkAlgorithm for AdaptiveRed {
    /// Derived constants from the capacity at build (issue 59: a capacity
    /// change on its link is rejected when the scenario is built).
    fn follows_capacity(&self) -> bool {
        false
    }

    #[inline]
    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, rng: &mut LazyRng) -> Verdict {
        self.red.on_arrival(pkt, view, rng)
    }

    fn on_start(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        ctl.next_timer = Some(view.now + self.interval);
    }

    fn on_timer(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.adapt(self.red.avg());
        ctl.next_timer = Some(view.now + self.interval);
    }

    /// The `max_p` in force.
    fn probe(&self) -> Option<(&'static str, f64)> {
        Some(("ared_max_p", self.red.max_p()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::LinkAlgoConfig;
    use super::*;
    use sim_core::{BufferLimit, Rate, SimTime};

    fn ctx(bps: u64) -> LinkBuildCtx {
        LinkBuildCtx {
            capacity: Rate::from_bps(bps),
            delay: SimDuration::ZERO,
            limit: BufferLimit::Packets(300),
        }
    }

    /// The thesis's Table 6.7.1 link.
    fn thesis() -> AdaptiveRed {
        let c: LinkAlgoConfig =
            toml::from_str("kind = \"adaptive_red\"\nmin_th = 25\nmax_th = 75").unwrap();
        let LinkAlgoConfig::AdaptiveRed(cfg) = c else {
            panic!()
        };
        AdaptiveRed::new(&cfg, &ctx(10_000_000)).unwrap()
    }

    #[test]
    fn ared_target_is_the_middle_fifth_of_the_thresholds() {
        let a = thesis();
        assert_eq!(a.target(), (25.0 + 0.4 * 50.0, 25.0 + 0.6 * 50.0));
        assert_eq!(a.max_p(), 0.1);
        assert_eq!(a.red().thresholds(), (25.0, 75.0));
    }

    #[test]
    fn ared_increases_additively_and_decreases_multiplicatively() {
        let mut a = thesis();
        // Inside the target: no change.
        a.adapt(50.0);
        assert_eq!(a.max_p(), 0.1);
        // Above: + min(0.01, 0.1/4) = 0.01.
        a.adapt(60.0);
        assert!((a.max_p() - 0.11).abs() < 1e-15);
        // Below: * 0.9.
        a.adapt(10.0);
        assert!((a.max_p() - 0.099).abs() < 1e-15);
        // A small max_p steps by a quarter of itself.
        a.set_max_p(0.02);
        a.adapt(70.0);
        assert!((a.max_p() - 0.025).abs() < 1e-15);
    }

    #[test]
    fn ared_keeps_max_p_within_bottom_and_top() {
        let mut a = thesis();
        a.set_max_p(0.499);
        a.adapt(80.0);
        assert_eq!(a.max_p(), 0.5);
        a.adapt(80.0);
        assert_eq!(a.max_p(), 0.5);
        a.set_max_p(0.0105);
        a.adapt(0.0);
        assert_eq!(a.max_p(), 0.01);
        a.adapt(0.0);
        assert_eq!(a.max_p(), 0.01);
    }

    #[test]
    fn ared_adapts_on_its_timer_and_probes_max_p() {
        let mut a = thesis();
        let mut ctl = LinkControl {
            next_timer: None,
            limit: BufferLimit::Packets(300),
        };
        let v = LinkView::idle(SimTime::ZERO, Rate::from_bps(10_000_000));
        a.on_start(&v, &mut ctl);
        assert_eq!(ctl.next_timer, Some(SimTime::from_secs_f64(0.5)));
        // The average is 0 < 45: max_p falls to 0.09.
        a.on_timer(
            &LinkView::idle(SimTime::from_secs_f64(0.5), v.capacity),
            &mut ctl,
        );
        assert_eq!(ctl.next_timer, Some(SimTime::from_secs_f64(1.0)));
        assert!((a.max_p() - 0.09).abs() < 1e-15);
        assert_eq!(a.probe(), Some(("ared_max_p", a.max_p())));
    }

    #[test]
    fn ared_fills_in_fgs01_automatic_settings() {
        // 100 Mb/s with 500-B packets: C = 25 000 pkt/s; min_th = 0.005 C / 2
        // = 62.5, max_th = 187.5, w_q = 1 - exp(-1/25 000).
        let a = AdaptiveRed::new(&AdaptiveRedConfig::default(), &ctx(100_000_000)).unwrap();
        let c: f64 = 100e6 / (8.0 * 500.0);
        assert_eq!(a.red().thresholds(), (62.5, 187.5));
        let w_q = 1.0 - (-1.0 / c).exp(); // about 4e-5
        assert!((a.red().w_q() - w_q).abs() < 1e-9 * w_q);
        // A slow link: min_th is at least 5 packets.
        let a = AdaptiveRed::new(&AdaptiveRedConfig::default(), &ctx(1_000_000)).unwrap();
        assert_eq!(a.red().thresholds(), (5.0, 15.0));
        // A given min_th sets max_th = 3 min_th.
        let cfg = AdaptiveRedConfig {
            min_th: Some(20.0),
            ..AdaptiveRedConfig::default()
        };
        let a = AdaptiveRed::new(&cfg, &ctx(1_000_000)).unwrap();
        assert_eq!(a.red().thresholds(), (20.0, 60.0));
    }

    #[test]
    fn the_pseudocode_bounds_let_one_step_cross_top_and_bottom() {
        // FGS01's checks: increase while max_p <= top (0.49 -> 0.50 -> 0.51,
        // then no more), decrease while max_p >= bottom (0.0105 -> 0.00945).
        let cfg = AdaptiveRedConfig {
            min_th: Some(20.0),
            max_p: 0.49,
            bounds: MaxPBounds::Pseudocode,
            ..AdaptiveRedConfig::default()
        };
        let mut a = AdaptiveRed::new(&cfg, &ctx(10_000_000)).unwrap();
        for _ in 0..3 {
            a.adapt(1000.0);
        }
        assert!((a.max_p() - 0.51).abs() < 1e-12, "{}", a.max_p());
        let mut clamped = AdaptiveRed::new(
            &AdaptiveRedConfig {
                bounds: MaxPBounds::Clamp,
                ..cfg.clone()
            },
            &ctx(10_000_000),
        )
        .unwrap();
        for _ in 0..3 {
            clamped.adapt(1000.0);
        }
        assert_eq!(clamped.max_p(), 0.5);
        let mut low = AdaptiveRed::new(
            &AdaptiveRedConfig {
                max_p: 0.0105,
                ..cfg
            },
            &ctx(10_000_000),
        )
        .unwrap();
        for _ in 0..3 {
            low.adapt(0.0);
        }
        assert!(
            (low.max_p() - 0.0105 * 0.9).abs() < 1e-12,
            "{}",
            low.max_p()
        );
    }

    #[test]
    fn ared_names_each_bad_parameter() {
        for (src, key) in [
            ("top = 0", "top"),
            ("top = 1.5", "top"),
            ("bottom = 0", "bottom"),
            ("bottom = 0.6", "bottom"),
            ("alpha = 0", "alpha"),
            ("beta = 1", "beta"),
            ("beta = 0", "beta"),
            ("max_p = 0.6", "max_p"),
            ("max_p = 0.001", "max_p"),
            ("interval = \"0s\"", "interval"),
            ("target_delay = \"0s\"", "target_delay"),
            ("mean_pkt_size = \"0B\"", "mean_pkt_size"),
            ("min_th = 50\nmax_th = 40", "max_th"),
            ("w_q = 2", "w_q"),
        ] {
            let c: LinkAlgoConfig =
                toml::from_str(&format!("kind = \"adaptive_red\"\n{src}")).unwrap();
            let e = c
                .build(&ctx(10_000_000))
                .err()
                .unwrap_or_else(|| panic!("{src}"));
            assert_eq!(e.key, key, "{src}: {e}");
        }
        for bad in [
            "kind = \"adaptive_red\"\nmaxp = 0.1",
            "kind = \"adaptive_red\"\npreset = \"A\"",
            "kind = \"adaptive_red\"\nbytes = true",
        ] {
            assert!(toml::from_str::<LinkAlgoConfig>(bad).is_err(), "{bad}");
        }
    }
}
