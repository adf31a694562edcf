//! Load-based marking (LBM): marking probability piecewise linear in the
//! utilisation measured over an interval.
//!
//! Provenance:
//! - \[PAPER\] seed 001 (WTP/MulTCP), Sec. 4.3; spec `seed-001-wtp-multcp.md` §2.9:
//!   `p(rho) = 0` for `rho <= rho0`, `min(alpha (rho - rho0), 1)` above, with
//!   `rho` the average utilisation over an interval `t_avg`. Presets (spec §2.9
//!   table): LB-A = (0.5 s, 0.6, 0.71), LB-B = (0.5 s, 0.7, 2).
//! - INFERRED (spec §2.9, §7.11 recommended estimator): `rho` = bits *arriving* at
//!   the link during the last completed window of length `t_avg` divided by
//!   `C t_avg`; consecutive windows aligned at time 0; the `p` of a window applies
//!   to every packet arriving during the next one; initial `rho = 0`, so nothing is
//!   marked in the first window. Each packet is marked independently with
//!   probability `p` (the paper's "probabilistic marking").
//! - INFERRED: computed lazily at arrivals (no timer): when an arrival falls in a
//!   later window, the window just completed becomes current if it is the
//!   previous one; if whole windows passed without arrivals, the last completed
//!   window saw 0 bytes and `rho = 0`. The arriving packet counts in its own
//!   window, with every packet offered to the link (also those the engine then
//!   drops). No random number is drawn when `p` is 0 or 1.
//! - INFERRED (spec §2.9: "alternatives: a sliding window, or an EWMA with time
//!   constant t_avg ... record the choice and test sensitivity"): `estimator`
//!   selects how `rho` is measured. `"blocks"` (default) is the estimator
//!   above. `"sliding"`: the bytes of the arrivals before the arriving packet
//!   that are no older than `t_avg`, over `C t_avg`, recomputed at every
//!   arrival (the marker keeps one `(time, size)` record per arrival of the
//!   last `t_avg`).
//!   `"ewma"`: a rate estimate with time constant `t_avg`, decayed by
//!   `exp(-gap / t_avg)` at each arrival before the arriving packet adds
//!   `size / (C t_avg)`; a constant rate `r` reads `r / C`. In both, `p` is
//!   recomputed at every arrival from the `rho` the packet finds. The paper
//!   says only "the average utilization measured over some time interval".

use std::collections::VecDeque;

use rand::Rng;
use serde::{Deserialize, Serialize};
use sim_core::{
    LazyRng, LinkAlgorithm, LinkView, Packet, ParamError, Reason, SimDuration, Verdict, PS_PER_SEC,
};

use super::LinkBuildCtx;

/// The parameter sets of seed 001 (spec §2.9 table).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoadBasedPreset {
    /// LB-A: `t_avg` 0.5 s, `rho0` 0.6, `alpha` 0.71 (Figs. 3-8).
    #[serde(rename = "A", alias = "a")]
    A,
    /// LB-B ("tuned"): `t_avg` 0.5 s, `rho0` 0.7, `alpha` 2 (Fig. 9, Table 2).
    #[serde(rename = "B", alias = "b")]
    B,
}

impl LoadBasedPreset {
    /// `(t_avg, rho0, alpha)` of the preset.
    pub fn values(self) -> (SimDuration, f64, f64) {
        match self {
            LoadBasedPreset::A => (SimDuration::from_millis(500), 0.6, 0.71),
            LoadBasedPreset::B => (SimDuration::from_millis(500), 0.7, 2.0),
        }
    }
}

/// How the load-based marker measures the utilisation `rho` (spec §2.9).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadEstimator {
    /// Consecutive windows of `t_avg` from time 0; a window's `rho` sets `p`
    /// for the whole next window.
    #[default]
    Blocks,
    /// The bytes of the last `t_avg` before each arrival.
    Sliding,
    /// An exponentially weighted rate with time constant `t_avg`.
    Ewma,
}

/// Parameters of load-based marking as written in a scenario (`kind = "load_based"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadBasedConfig {
    /// Parameter set supplying `t_avg`, `rho0`, `alpha` (explicit keys override).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<LoadBasedPreset>,
    /// Averaging window (> 0), e.g. `"500ms"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_avg: Option<SimDuration>,
    /// Utilisation below which nothing is marked (finite, >= 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rho0: Option<f64>,
    /// Slope of the marking probability per unit of utilisation (finite, > 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// How `rho` is measured: `"blocks"` (default), `"sliding"` or `"ewma"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimator: Option<LoadEstimator>,
}

/// The LBM marking probability `p(rho) = 0` if `rho <= rho0`, else
/// `min(alpha (rho - rho0), 1)` (seed 001, Sec. 4.3).
#[inline]
pub fn lbm_prob(rho: f64, rho0: f64, alpha: f64) -> f64 {
    if rho <= rho0 {
        0.0
    } else {
        (alpha * (rho - rho0)).min(1.0)
    }
}

/// Load-based marker: windowed utilisation estimator plus Bernoulli marking.
#[derive(Clone, Debug)]
pub struct LoadBased {
    t_avg_ps: u64,
    /// Bytes the link can carry in one window, `C t_avg / 8`.
    window_capacity: f64,
    rho0: f64,
    alpha: f64,
    /// Index of the window the last arrival fell in (`now / t_avg`).
    window: u64,
    /// Bytes arrived so far in that window.
    window_bytes: u64,
    /// The utilisation the last arrival found (`"blocks"`: that of the last
    /// completed window).
    rho: f64,
    /// `p(rho)`, applied to the current window's arrivals.
    p: f64,
    estimator: LoadEstimator,
    /// `"sliding"`: arrival time (ps) and size of each arrival of the last
    /// `t_avg`, oldest first; `window_bytes` is their sum.
    recent: VecDeque<(u64, u32)>,
    /// `"ewma"`: time (ps) of the last arrival, and the estimate just after it.
    last_ps: u64,
    decayed: f64,
}

fn require<T>(v: Option<T>, preset: Option<T>, key: &str) -> Result<T, ParamError> {
    v.or(preset).ok_or_else(|| {
        ParamError::new(
            key,
            format!("missing; give {key} or a preset (\"A\" or \"B\")"),
        )
    })
}

impl LoadBased {
    /// Validate and build.
    pub fn new(cfg: &LoadBasedConfig, ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        let pre = cfg.preset.map(LoadBasedPreset::values);
        let t_avg = require(cfg.t_avg, pre.map(|v| v.0), "t_avg")?;
        let rho0 = require(cfg.rho0, pre.map(|v| v.1), "rho0")?;
        let alpha = require(cfg.alpha, pre.map(|v| v.2), "alpha")?;
        if t_avg.as_ps() == 0 {
            return Err(ParamError::new("t_avg", "must be > 0"));
        }
        if !(rho0.is_finite() && rho0 >= 0.0) {
            return Err(ParamError::new(
                "rho0",
                format!("{rho0} must be finite and >= 0"),
            ));
        }
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(ParamError::new(
                "alpha",
                format!("{alpha} must be finite and > 0"),
            ));
        }
        if ctx.capacity.bps() == 0 {
            return Err(ParamError::new(
                "capacity",
                "load_based needs a link capacity > 0",
            ));
        }
        let window_capacity =
            ctx.capacity.bps_f64() * t_avg.as_ps() as f64 / (8.0 * PS_PER_SEC as f64);
        Ok(LoadBased {
            t_avg_ps: t_avg.as_ps(),
            window_capacity,
            rho0,
            alpha,
            window: 0,
            window_bytes: 0,
            rho: 0.0,
            p: 0.0,
            estimator: cfg.estimator.unwrap_or_default(),
            recent: VecDeque::new(),
            last_ps: 0,
            decayed: 0.0,
        })
    }

    /// The measured utilisation the last arrival found (with `"blocks"`, that
    /// of the last completed window).
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// The marking probability now in force.
    pub fn prob(&self) -> f64 {
        self.p
    }

    /// This marker's probability at utilisation `rho`.
    pub fn prob_at(&self, rho: f64) -> f64 {
        lbm_prob(rho, self.rho0, self.alpha)
    }

    /// `"blocks"`: a new window takes the completed one's `rho`.
    #[inline]
    fn blocks(&mut self, now: u64, size: u32) {
        let w = now / self.t_avg_ps;
        if w != self.window {
            self.set_rho(if w == self.window + 1 {
                self.window_bytes as f64 / self.window_capacity
            } else {
                0.0
            });
            self.window = w;
            self.window_bytes = 0;
        }
        self.window_bytes += u64::from(size);
    }

    /// `"sliding"`: drop the records older than `t_avg`, read, then record.
    fn sliding(&mut self, now: u64, size: u32) {
        if let Some(horizon) = now.checked_sub(self.t_avg_ps) {
            while let Some(&(t, s)) = self.recent.front() {
                if t >= horizon {
                    break;
                }
                self.window_bytes -= u64::from(s);
                self.recent.pop_front();
            }
        }
        self.set_rho(self.window_bytes as f64 / self.window_capacity);
        self.recent.push_back((now, size));
        self.window_bytes += u64::from(size);
    }

    /// `"ewma"`: decay over the gap, read, then add the arrival.
    fn ewma(&mut self, now: u64, size: u32) {
        let gap = now.saturating_sub(self.last_ps) as f64 / self.t_avg_ps as f64;
        self.last_ps = now;
        self.decayed *= (-gap).exp();
        self.set_rho(self.decayed);
        self.decayed += f64::from(size) / self.window_capacity;
    }

    /// Take `rho` as the reading and `p(rho)` as the probability in force.
    #[inline]
    fn set_rho(&mut self, rho: f64) {
        self.rho = rho;
        self.p = lbm_prob(rho, self.rho0, self.alpha);
    }
}

impl LinkAlgorithm for LoadBased {
    /// Derived constants from the capacity at build (issue 59: a capacity
    /// change on its link is rejected when the scenario is built).
    fn follows_capacity(&self) -> bool {
        false
    }

    #[inline]
    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, rng: &mut LazyRng) -> Verdict {
        let now = view.now.as_ps();
        match self.estimator {
            LoadEstimator::Blocks => self.blocks(now, pkt.size),
            LoadEstimator::Sliding => self.sliding(now, pkt.size),
            LoadEstimator::Ewma => self.ewma(now, pkt.size),
        }
        let p = self.p;
        if p >= 1.0 || (p > 0.0 && rng.get().random::<f64>() < p) {
            Verdict::Mark(Reason::Load)
        } else {
            Verdict::Enqueue
        }
    }

    fn probe(&self) -> Option<(&'static str, f64)> {
        Some(("lbm_rho", self.rho))
    }
}

#[cfg(test)]
mod tests {
    use super::super::LinkAlgoConfig;
    use super::*;
    use sim_core::*;

    const C_BPS: u64 = 8_000_000;

    fn ctx() -> LinkBuildCtx {
        LinkBuildCtx {
            capacity: Rate::from_bps(C_BPS),
            delay: SimDuration::ZERO,
            limit: BufferLimit::Unlimited,
        }
    }

    fn cfg(t_avg_ms: u64, rho0: f64, alpha: f64) -> LoadBasedConfig {
        LoadBasedConfig {
            preset: None,
            t_avg: Some(SimDuration::from_millis(t_avg_ms)),
            rho0: Some(rho0),
            alpha: Some(alpha),
            estimator: None,
        }
    }

    fn arrive(m: &mut LoadBased, now: SimTime, size: u32, rng: &mut LazyRng) -> Verdict {
        let view = LinkView::idle(now, Rate::from_bps(C_BPS));
        let mut pkt = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, size, SimTime::ZERO);
        m.on_arrival(&mut pkt, &view, rng)
    }

    fn ms(x: u64) -> SimTime {
        SimTime::from_ps(x * 1_000_000_000)
    }

    fn rng() -> LazyRng {
        LazyRng::new(3, 0, StreamKind::LinkAlgorithm, 0)
    }

    #[test]
    fn lbm_reproduces_the_derived_reference_values_of_spec_2_9() {
        // LB-A: p = 0.71 (rho - 0.6); LB-B: p = 2 (rho - 0.7).
        let a = [(0.7, 0.071), (0.8, 0.142), (0.9, 0.213), (1.0, 0.284)];
        for (rho, want) in a {
            assert!((lbm_prob(rho, 0.6, 0.71) - want).abs() < 1e-12, "A {rho}");
        }
        let b = [(0.8, 0.2), (0.9, 0.4), (1.0, 0.6)];
        for (rho, want) in b {
            assert!((lbm_prob(rho, 0.7, 2.0) - want).abs() < 1e-12, "B {rho}");
        }
        assert_eq!(lbm_prob(0.6, 0.6, 0.71), 0.0);
        assert_eq!(lbm_prob(0.5, 0.6, 0.71), 0.0);
        assert_eq!(lbm_prob(1.3, 0.7, 2.0), 1.0);
    }

    #[test]
    fn lbm_marks_nothing_in_the_first_window() {
        // 100 ms at 8 Mb/s carries 100 000 B; offer twice that in window 0.
        let mut m = LoadBased::new(&cfg(100, 0.0, 10.0), &ctx()).unwrap();
        let mut g = rng();
        for i in 0..200 {
            let v = arrive(&mut m, SimTime::from_ps(i * 400_000_000), 1000, &mut g);
            assert_eq!(v, Verdict::Enqueue);
        }
        assert_eq!(m.rho(), 0.0);
        assert_eq!(m.window_bytes, 200_000);
    }

    #[test]
    fn lbm_uses_the_last_completed_window_and_counts_the_arriving_packet() {
        // Window 0: 90 packets of 1000 B -> rho = 90 000 / (8e6 * 0.1 / 8) = 0.9.
        let mut m = LoadBased::new(&cfg(100, 0.6, 0.71), &ctx()).unwrap();
        let mut g = rng();
        for i in 0..90 {
            arrive(&mut m, ms(i), 1000, &mut g);
        }
        arrive(&mut m, ms(100), 1000, &mut g);
        assert!((m.rho() - 90_000.0 / 100_000.0).abs() < 1e-12);
        assert!((m.prob() - 0.71 * (0.9 - 0.6)).abs() < 1e-12);
        assert_eq!(m.probe(), Some(("lbm_rho", m.rho())));
        // Window 1 holds that first packet plus 49 more: rho = 50 000 / 100 000.
        for i in 1..50 {
            arrive(&mut m, ms(100 + i), 1000, &mut g);
        }
        arrive(&mut m, ms(200), 1000, &mut g);
        assert_eq!(m.rho(), 0.5);
        assert_eq!(m.prob(), 0.0);
    }

    #[test]
    fn lbm_reads_zero_load_after_a_window_without_arrivals() {
        let mut m = LoadBased::new(&cfg(100, 0.0, 10.0), &ctx()).unwrap();
        let mut g = rng();
        for i in 0..90 {
            arrive(&mut m, ms(i), 1000, &mut g);
        }
        // Window 1 is empty; the arrival in window 2 sees rho = 0.
        assert_eq!(arrive(&mut m, ms(250), 1000, &mut g), Verdict::Enqueue);
        assert_eq!(m.rho(), 0.0);
    }

    #[test]
    fn lbm_marks_every_packet_when_p_is_one_and_about_p_of_them_otherwise() {
        // rho = 0.9, rho0 = 0, alpha = 10: p = 1.
        let mut m = LoadBased::new(&cfg(100, 0.0, 10.0), &ctx()).unwrap();
        let mut g = rng();
        for i in 0..90 {
            arrive(&mut m, ms(i), 1000, &mut g);
        }
        for i in 0..90 {
            assert_eq!(
                arrive(&mut m, ms(100 + i), 1000, &mut g),
                Verdict::Mark(Reason::Load)
            );
        }
        // LB-B with rho = 0.9: p = 0.4; 20 000 packets in window 1 (1-byte packets
        // keep the load near 0.9 in window 0).
        let mut m = LoadBased::new(&cfg(100, 0.7, 2.0), &ctx()).unwrap();
        for i in 0..90 {
            arrive(&mut m, ms(i), 1000, &mut g);
        }
        let n = 20_000;
        let marks = (0..n)
            .filter(|&i| {
                arrive(&mut m, SimTime::from_ps(ms(100).as_ps() + i), 1, &mut g)
                    == Verdict::Mark(Reason::Load)
            })
            .count();
        let frac = marks as f64 / n as f64;
        // Binomial sd = sqrt(0.4*0.6/20000) = 0.0035; allow 5 sd.
        assert!((frac - 0.4).abs() < 0.0175, "{frac}");
    }

    fn with(estimator: LoadEstimator) -> LoadBased {
        let c = LoadBasedConfig {
            estimator: Some(estimator),
            ..cfg(100, 0.6, 0.71)
        };
        LoadBased::new(&c, &ctx()).unwrap()
    }

    #[test]
    fn lbm_sliding_reads_the_bytes_of_the_last_t_avg_before_each_arrival() {
        // 1000 B every 1 ms at 8 Mb/s (t_avg 100 ms holds 100 000 B): the
        // k-th arrival (k < 100) finds k packets, from the 101st on always
        // the 100 of [now - 100 ms, now), at any instant, not per window.
        let mut m = with(LoadEstimator::Sliding);
        let mut g = rng();
        for i in 0..250 {
            arrive(&mut m, ms(i), 1000, &mut g);
            let want = (i.min(100) * 1000) as f64 / 100_000.0;
            assert!((m.rho() - want).abs() < 1e-12, "{i}: {}", m.rho());
            assert!((m.prob() - lbm_prob(want, 0.6, 0.71)).abs() < 1e-12);
        }
        // The records: those 100 and the last arrival's own.
        assert_eq!(m.recent.len(), 101);
        // After 150 ms of silence nothing is left: rho 0, the records gone.
        arrive(&mut m, ms(400), 1000, &mut g);
        assert_eq!((m.rho(), m.recent.len()), (0.0, 1));
        // A burst of 95 packets within 1 ms is seen by the 96th arrival.
        for i in 0..96 {
            arrive(&mut m, SimTime::from_ps(ms(401).as_ps() + i), 1000, &mut g);
        }
        assert!((m.rho() - 0.96).abs() < 1e-12);
    }

    #[test]
    fn lbm_ewma_reads_a_constant_rate_as_rate_over_capacity() {
        // Time constant 100 ms; 1000 B every 1.25 ms = 6.4 Mb/s of 8 Mb/s:
        // rho -> 0.8. The discrete sum after many arrivals is
        // (s / (C t_avg)) e^-g / (1 - e^-g) with g = 1.25 / 100, the value
        // an arrival finds before adding its own packet.
        let mut m = with(LoadEstimator::Ewma);
        let mut g = rng();
        let step = 1_250_000_000u64;
        for i in 0..4000 {
            arrive(&mut m, SimTime::from_ps(i * step), 1000, &mut g);
        }
        let gap = 0.0125f64;
        let want = 0.01 * (-gap).exp() / (1.0 - (-gap).exp());
        assert!((m.rho() - want).abs() < 1e-9, "{} vs {want}", m.rho());
        assert!((want - 0.8).abs() < 0.01);
        // One time constant of silence keeps e^-1 of it.
        let before = m.rho() + 0.01;
        arrive(
            &mut m,
            SimTime::from_ps(3999 * step + 100_000_000_000),
            1000,
            &mut g,
        );
        assert!((m.rho() - before * (-1f64).exp()).abs() < 1e-9);
    }

    #[test]
    fn lbm_scenario_syntax_parses_presets_and_overrides() {
        let c: LinkAlgoConfig = toml::from_str(
            r#"kind = "load_based"
preset = "A"
t_avg = "250ms"
alpha = 1.5"#,
        )
        .unwrap();
        assert_eq!(c.name(), "load_based");
        let LinkAlgoConfig::LoadBased(cfg) = &c else {
            panic!("{c:?}")
        };
        let m = LoadBased::new(cfg, &ctx()).unwrap();
        assert_eq!(m.t_avg_ps, SimDuration::from_millis(250).as_ps());
        assert_eq!((m.rho0, m.alpha), (0.6, 1.5));
        let c: LinkAlgoConfig = toml::from_str("kind = \"load_based\"\npreset = \"B\"").unwrap();
        let LinkAlgoConfig::LoadBased(cfg) = &c else {
            panic!("{c:?}")
        };
        let m = LoadBased::new(cfg, &ctx()).unwrap();
        assert_eq!((m.t_avg_ps, m.rho0, m.alpha), (500_000_000_000, 0.7, 2.0));
        assert_eq!(m.estimator, LoadEstimator::Blocks);
        for (name, want) in [
            ("blocks", LoadEstimator::Blocks),
            ("sliding", LoadEstimator::Sliding),
            ("ewma", LoadEstimator::Ewma),
        ] {
            let src = format!("kind = \"load_based\"\npreset = \"B\"\nestimator = \"{name}\"");
            let c: LinkAlgoConfig = toml::from_str(&src).unwrap();
            let LinkAlgoConfig::LoadBased(cfg) = &c else {
                panic!("{c:?}")
            };
            assert_eq!(LoadBased::new(cfg, &ctx()).unwrap().estimator, want);
        }
        assert!((m.prob_at(0.9) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn lbm_rejects_unknown_keys_bad_values_and_missing_parameters() {
        for bad in [
            "kind = \"load_based\"\npreset = \"A\"\nrho_0 = 0.5",
            "kind = \"load_based\"\npreset = \"C\"",
            "kind = \"load_based\"\npreset = \"A\"\nt_avg = 0.5",
            "kind = \"load_based\"\npreset = \"A\"\nt_avg = \"500\"",
            "kind = \"load_based\"\npreset = \"A\"\nestimator = \"window\"",
        ] {
            assert!(toml::from_str::<LinkAlgoConfig>(bad).is_err(), "{bad}");
        }
        for (src, key) in [
            ("kind = \"load_based\"\nrho0 = 0.6\nalpha = 0.71", "t_avg"),
            (
                "kind = \"load_based\"\nt_avg = \"500ms\"\nalpha = 0.71",
                "rho0",
            ),
            (
                "kind = \"load_based\"\nt_avg = \"500ms\"\nrho0 = 0.6",
                "alpha",
            ),
            (
                "kind = \"load_based\"\npreset = \"A\"\nt_avg = \"0s\"",
                "t_avg",
            ),
            ("kind = \"load_based\"\npreset = \"A\"\nrho0 = -0.1", "rho0"),
            ("kind = \"load_based\"\npreset = \"A\"\nalpha = 0", "alpha"),
        ] {
            let c: LinkAlgoConfig = toml::from_str(src).unwrap();
            let e = c.build(&ctx()).err().unwrap_or_else(|| panic!("{src}"));
            assert_eq!(e.key, key, "{src}");
        }
    }
}
