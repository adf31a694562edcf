//! RED (Random Early Detection) with the gentle variant, marking or dropping.
//!
//! Provenance:
//! - \[PAPER\] seed 001 (WTP/MulTCP), Sec. 4.1; spec `seed-001-wtp-multcp.md` §2.7:
//!   probability piecewise linear in the EWMA average queue `avg` (weight `w_q`):
//!   0 below `min_th`, linear 0..`max_p` on [`min_th`, `max_th`), and with the
//!   gentle variant linear `max_p`..1 on [`max_th`, 2 `max_th`). The paper marks
//!   instead of dropping above `max_th`, above 2 `max_th` and when the buffer limit
//!   is exceeded (`mode = "mark"` with `limit`, the physical buffer set large).
//! - Parameter presets (spec §2.7 table): A = (5, 15, 0.1, 0.002), the ns-2
//!   defaults; B = (2, 6, 0.1, 0.02); C = (3, 9, 0.95, 0.002); all in packets.
//! - \[EXTERNAL\] ns-2 `REDQueue::enque` (red.cc): the average is updated on arrivals
//!   only, with the queue found by the arriving packet (itself excluded); after an
//!   idle period it first decays `m = floor(ptc * idle_time)` times, with
//!   `ptc = C_bits / (8 * mean_pktsize)` and ns-2's default `mean_pktsize_ = 500`
//!   (spec §7.10); the `qlen > 1` guard; the `old` flag (no mark on the first
//!   packet after `avg` crosses `min_th`); `count` incremented on every arrival
//!   and reset to 0 by every early or forced decision; `modify_p` with `wait_ =
//!   true` (default), `false` (`count = "classic"`); byte mode (`queue-in-bytes_`):
//!   `count` is `floor(count_bytes / mean_pktsize)` and the probability is scaled
//!   by `size / mean_pktsize`; the forced region is `avg >= 2 max_th` (gentle) or
//!   `avg >= max_th` (not gentle); the limit rule is `qlen >= qlim`.
//! - \[EXTERNAL\] ns-2 marks when `u <= p` for `u` uniform in [0, 1).
//! - \[EXTERNAL\] ns-2 `mark_p_` (red.cc `drop_early`, since ns-2.1b9a, April
//!   2002; default 0.1 there): with ECN a selected ECN-capable packet is marked
//!   only while the unmodified probability `p_b` is at most `mark_p`, and dropped
//!   above it; forced selections drop. With ns-2's `max_p` = `mark_p` = 0.1 and
//!   gentle RED, every selection above `max_th` is a drop. Optional here
//!   (`mark_p`, with `mode = "mark"`); absent, every selection marks.
//! - INFERRED: idle means an empty queue and an idle serializer at the arrival
//!   (`backlog_pkts == 0 && busy_until <= now`), and the idle period began when the
//!   serializer finished (`busy_until`): ns-2 records `idletime_` in `deque()` when
//!   it finds the queue empty, which is when the link finished sending. The decay
//!   is applied once per idle period (ns-2 clears `idle_` at the first arrival).
//!   `m` is computed exactly in integers and applied with `powi`, not ns-2's loop
//!   of multiplications (differences in the last bits only).
//! - INFERRED: `count = "none"` (spec §2.7's "simplest faithful alternative") uses
//!   `p_b` unmodified but keeps the `qlen > 1` guard and the `old` flag.
//! - INFERRED: no random number is drawn when the probability is 0 or >= 1
//!   (the outcome is then certain; ns-2 draws anyway).
//! - INFERRED: with `bytes = true` the thresholds are given in bytes (ns-2 takes
//!   them in packets and multiplies by `mean_pktsize`); `limit` compares packets
//!   with packets or bytes with bytes, whatever `bytes` says.

use rand::Rng;
use serde::{Deserialize, Serialize};
use sim_core::{
    check_range, Bytes, LazyRng, LinkAlgorithm, LinkView, Packet, ParamError, Reason, SimTime,
    Verdict, PS_PER_SEC,
};

use super::{LinkBuildCtx, QueueSize};

/// The parameter sets of seed 001 (spec §2.7 table).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RedPreset {
    /// RED-A, the ns-2 defaults: `min_th` 5, `max_th` 15, `max_p` 0.1, `w_q` 0.002.
    #[serde(rename = "A", alias = "a")]
    A,
    /// RED-B ("arbitrary"): `min_th` 2, `max_th` 6, `max_p` 0.1, `w_q` 0.02.
    #[serde(rename = "B", alias = "b")]
    B,
    /// RED-C ("tuned"): `min_th` 3, `max_th` 9, `max_p` 0.95, `w_q` 0.002.
    #[serde(rename = "C", alias = "c")]
    C,
}

impl RedPreset {
    /// `(min_th, max_th, max_p, w_q)` of the preset (thresholds in packets).
    pub fn values(self) -> (f64, f64, f64, f64) {
        match self {
            RedPreset::A => (5.0, 15.0, 0.1, 0.002),
            RedPreset::B => (2.0, 6.0, 0.1, 0.02),
            RedPreset::C => (3.0, 9.0, 0.95, 0.002),
        }
    }
}

/// What RED does to a packet it selects.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedMode {
    /// Set CE (the engine drops a non-ECN-capable packet instead). The paper's mode.
    #[default]
    Mark,
    /// Drop.
    Drop,
}

/// How the base probability is spread over the packets since the last mark.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedCount {
    /// ns-2 `wait_ = true`: 0 if `count*p < 1`, `p/(2 - count*p)` if `< 2`, else 1.
    #[default]
    Wait,
    /// ns-2 `wait_ = false` (classic RED): `p/(1 - count*p)` if `count*p < 1`, else 1.
    Classic,
    /// Independent Bernoulli marking with the base probability `p_b`.
    #[serde(rename = "none")]
    Independent,
}

fn default_true() -> bool {
    true
}

fn default_mean_pkt_size() -> Bytes {
    // ns-2 REDQueue mean_pktsize_ default [EXTERNAL].
    Bytes::new(500)
}

/// Parameters of RED as written in a scenario (`kind = "red"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Parameter set supplying `min_th`, `max_th`, `max_p`, `w_q` (explicit keys override).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<RedPreset>,
    /// Minimum threshold, packets (bytes if `bytes`), >= 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th: Option<f64>,
    /// Maximum threshold, packets (bytes if `bytes`), > `min_th`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th: Option<f64>,
    /// Probability at `max_th`, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_p: Option<f64>,
    /// EWMA weight of the average queue, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_q: Option<f64>,
    /// Gentle variant (default true, as in the paper).
    #[serde(default = "default_true")]
    pub gentle: bool,
    /// Mark (default) or drop the selected packets.
    #[serde(default)]
    pub mode: RedMode,
    /// ns-2's `mark_p_` (with `mode = "mark"`): drop instead of marking a
    /// selected packet whose unmodified probability `p_b` exceeds it, and every
    /// forced selection. Absent (default): every selection marks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_p: Option<f64>,
    /// Select every packet that finds at least this instantaneous queue (none if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<QueueSize>,
    /// Measure the queue and thresholds in bytes (default false: packets).
    #[serde(default)]
    pub bytes: bool,
    /// ns-2 `mean_pktsize_` for the idle decay and byte mode (default 500 B).
    #[serde(default = "default_mean_pkt_size")]
    pub mean_pkt_size: Bytes,
    /// Count-based modification of the probability (default `"wait"`).
    #[serde(default)]
    pub count: RedCount,
}

impl RedConfig {
    /// A preset with every other key at its default.
    pub fn from_preset(preset: RedPreset) -> Self {
        RedConfig {
            preset: Some(preset),
            min_th: None,
            max_th: None,
            max_p: None,
            w_q: None,
            gentle: true,
            mode: RedMode::Mark,
            mark_p: None,
            limit: None,
            bytes: false,
            mean_pkt_size: default_mean_pkt_size(),
            count: RedCount::Wait,
        }
    }
}

/// Derived constants, fixed at build time.
#[derive(Copy, Clone, Debug)]
struct RedParams {
    min_th: f64,
    max_th: f64,
    max_p: f64,
    w_q: f64,
    gentle: bool,
    /// `avg` at and above which every packet is selected (Reason::Forced).
    forced_at: f64,
    mode: RedMode,
    mark_p: Option<f64>,
    count: RedCount,
    limit: Option<QueueSize>,
    bytes: bool,
    mean_pkt_size: u64,
    /// `ptc` as the fraction `capacity_bps / (8 * mean_pkt_size * 1e12)` per picosecond.
    ptc_num: u128,
    ptc_den: u128,
}

/// Run-time state (ns-2 `edv_`).
#[derive(Copy, Clone, Debug, Default)]
struct RedState {
    avg: f64,
    count: u64,
    count_bytes: u64,
    old: bool,
    /// Start of the idle period whose decay has been applied.
    decayed_idle: Option<SimTime>,
}

/// RED: configuration plus state.
#[derive(Clone, Debug)]
pub struct Red {
    p: RedParams,
    s: RedState,
}

fn require(v: Option<f64>, preset: Option<f64>, key: &str) -> Result<f64, ParamError> {
    v.or(preset).ok_or_else(|| {
        ParamError::new(
            key,
            format!("missing; give {key} or a preset (\"A\", \"B\" or \"C\")"),
        )
    })
}

fn check_prob(key: &str, x: f64) -> Result<(), ParamError> {
    if x.is_finite() && x > 0.0 && x <= 1.0 {
        Ok(())
    } else {
        Err(ParamError::new(key, format!("{x} must be in (0, 1]")))
    }
}

/// ns-2 `modify_p` before byte scaling: `p` spread over `count` packets.
fn modify(p: f64, count: f64, mode: RedCount) -> f64 {
    let cp = count * p;
    match mode {
        RedCount::Wait => {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p / (2.0 - cp)
            } else {
                1.0
            }
        }
        RedCount::Classic => {
            if cp < 1.0 {
                p / (1.0 - cp)
            } else {
                1.0
            }
        }
        RedCount::Independent => p,
    }
}

impl Red {
    /// Validate and build.
    pub fn new(cfg: &RedConfig, ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        let pre = cfg.preset.map(RedPreset::values);
        let min_th = require(cfg.min_th, pre.map(|v| v.0), "min_th")?;
        let max_th = require(cfg.max_th, pre.map(|v| v.1), "max_th")?;
        let max_p = require(cfg.max_p, pre.map(|v| v.2), "max_p")?;
        let w_q = require(cfg.w_q, pre.map(|v| v.3), "w_q")?;
        check_range("min_th", min_th, 0.0, f64::MAX)?;
        if !(max_th.is_finite() && max_th > min_th) {
            return Err(ParamError::new(
                "max_th",
                format!("{max_th} must be finite and > min_th ({min_th})"),
            ));
        }
        check_prob("max_p", max_p)?;
        check_prob("w_q", w_q)?;
        if let Some(mp) = cfg.mark_p {
            check_prob("mark_p", mp)?;
            if cfg.mode == RedMode::Drop {
                return Err(ParamError::new(
                    "mark_p",
                    "applies to mode = \"mark\" only (mode = \"drop\" drops every selection)",
                ));
            }
        }
        let mean_pkt_size = cfg.mean_pkt_size.get();
        if mean_pkt_size == 0 {
            return Err(ParamError::new("mean_pkt_size", "must be >= 1 byte"));
        }
        let p = RedParams {
            min_th,
            max_th,
            max_p,
            w_q,
            gentle: cfg.gentle,
            forced_at: if cfg.gentle { 2.0 * max_th } else { max_th },
            mode: cfg.mode,
            mark_p: cfg.mark_p,
            count: cfg.count,
            limit: cfg.limit,
            bytes: cfg.bytes,
            mean_pkt_size,
            ptc_num: u128::from(ctx.capacity.bps()),
            ptc_den: 8 * u128::from(mean_pkt_size) * u128::from(PS_PER_SEC),
        };
        Ok(Red {
            p,
            s: RedState::default(),
        })
    }

    /// The average queue (packets, or bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.s.avg
    }

    /// The probability at `max_th` in force (adaptive RED moves it).
    pub fn max_p(&self) -> f64 {
        self.p.max_p
    }

    /// Set the probability at `max_th` (adaptive RED's control law; the
    /// caller keeps it in (0, 1]).
    pub(crate) fn set_max_p(&mut self, max_p: f64) {
        debug_assert!(max_p > 0.0 && max_p <= 1.0, "max_p {max_p}");
        self.p.max_p = max_p;
    }

    /// The thresholds `(min_th, max_th)`.
    pub fn thresholds(&self) -> (f64, f64) {
        (self.p.min_th, self.p.max_th)
    }

    /// The EWMA weight `w_q`.
    pub fn w_q(&self) -> f64 {
        self.p.w_q
    }

    /// Packets since the last selection (ns-2 `count`).
    pub fn count(&self) -> u64 {
        self.s.count
    }

    /// The base probability `p_b(avg)` before the count modification: 0 below
    /// `min_th`, `max_p (avg - min_th)/(max_th - min_th)` below `max_th`, then
    /// `max_p + (1 - max_p)(avg - max_th)/max_th` below `2 max_th` (gentle) and 1
    /// beyond (1 from `max_th` on without gentle).
    pub fn base_prob(&self, avg: f64) -> f64 {
        let p = &self.p;
        if avg < p.min_th {
            0.0
        } else if avg < p.max_th {
            p.max_p * (avg - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && avg < 2.0 * p.max_th {
            (p.max_p + (1.0 - p.max_p) * (avg - p.max_th) / p.max_th).min(1.0)
        } else {
            1.0
        }
    }

    /// The probability used for an arriving packet of `size` bytes (ns-2
    /// `calculate_p_new` followed by `modify_p`).
    fn mark_prob(&self, size: u32) -> f64 {
        let (p, s) = (&self.p, &self.s);
        let pb = self.base_prob(s.avg);
        let count = if p.bytes {
            // ns-2: integer division count_bytes / mean_pktsize.
            (s.count_bytes / p.mean_pkt_size) as f64
        } else {
            s.count as f64
        };
        let mut pa = modify(pb, count, p.count);
        if p.bytes && pa < 1.0 {
            pa = pa * f64::from(size) / p.mean_pkt_size as f64;
        }
        pa.min(1.0)
    }

    /// Update the average for an arrival that finds `q` (packets or bytes).
    #[inline]
    fn update_avg(&mut self, q: f64, view: &LinkView) {
        let (p, s) = (&self.p, &mut self.s);
        if view.backlog_pkts == 0
            && view.busy_until <= view.now
            && s.decayed_idle != Some(view.busy_until)
        {
            s.decayed_idle = Some(view.busy_until);
            let idle_ps = u128::from(view.now.as_ps() - view.busy_until.as_ps());
            let m = idle_ps * p.ptc_num / p.ptc_den;
            if m > 0 {
                let m = i32::try_from(m).unwrap_or(i32::MAX);
                s.avg *= (1.0 - p.w_q).powi(m);
            }
        }
        s.avg = (1.0 - p.w_q) * s.avg + p.w_q * q;
    }
}

impl LinkAlgorithm for Red {
    /// The idle-time estimate's packets per second follow the new capacity
    /// (the only constant RED derives from it).
    fn on_capacity_change(&mut self, view: &LinkView) {
        self.p.ptc_num = u128::from(view.capacity.bps());
    }

    #[inline]
    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, rng: &mut LazyRng) -> Verdict {
        let q = if self.p.bytes {
            view.backlog_bytes as f64
        } else {
            f64::from(view.backlog_pkts)
        };
        self.update_avg(q, view);
        self.s.count += 1;
        self.s.count_bytes += u64::from(pkt.size);
        let mut reason = None;
        if self.s.avg >= self.p.min_th && q > 1.0 {
            if self.s.avg >= self.p.forced_at {
                reason = Some(Reason::Forced);
            } else if !self.s.old {
                // First packet since avg crossed min_th (or the queue refilled).
                self.s.old = true;
                self.s.count = 1;
                self.s.count_bytes = u64::from(pkt.size);
            } else {
                let pa = self.mark_prob(pkt.size);
                if pa >= 1.0 || (pa > 0.0 && rng.get().random::<f64>() <= pa) {
                    reason = Some(Reason::Early);
                }
            }
        } else {
            self.s.old = false;
        }
        if let Some(limit) = self.p.limit {
            if limit.reached_by(view.backlog_pkts, view.backlog_bytes) {
                reason = Some(Reason::Forced);
            }
        }
        match reason {
            None => Verdict::Enqueue,
            Some(r) => {
                self.s.count = 0;
                self.s.count_bytes = 0;
                let drop = match self.p.mode {
                    RedMode::Drop => true,
                    RedMode::Mark => self
                        .p
                        .mark_p
                        .is_some_and(|mp| r == Reason::Forced || self.base_prob(self.s.avg) > mp),
                };
                if drop {
                    Verdict::Drop(r)
                } else {
                    Verdict::Mark(r)
                }
            }
        }
    }

    fn probe(&self) -> Option<(&'static str, f64)> {
        Some(("red_avg", self.s.avg))
    }
}

#[cfg(test)]
mod tests;
