//! PCC's receiver-side decision machine: protected time, the random
//! experiments, the sets `P` and `P*`, and the off time. Pure logic: it is
//! driven by events (a data packet, a loss event, an RTT sample, a timer) and
//! answers with actions (an experiment's verdict, "turn on"); the caller owns
//! the clock, the estimators and the random stream.
//!
//! Provenance: J. P. Damm, "Internet-Based Statistical Congestion Control for
//! Non-Adaptable Multimedia Streams", Diplomarbeit, Univ. Mannheim 2001
//! (spec `seed-004-damm-pcc.md`).
//! - [DOC §4.2, spec 2.3] the experiment: `p_ON >= 1` stays on, `p_ON <= 0`
//!   turns off, both without a draw; otherwise `RAND` in (0;1] and the
//!   experiment fails iff `p_ON <= RAND`. The caller supplies the draw
//!   ([`rand_unit_open_closed`] maps a `[0, 1)` generator onto (0;1]).
//! - [DOC §4.4.1, §4.4.4, §7.2, spec 2.4] protected time ends when both
//!   `N_LE` loss events and `N_RTT` RTT samples have been seen since the
//!   (re)start, or when `T_PROT,MAX` has elapsed, whichever comes first.
//!   INFERRED (spec 2.4): `T_PROT` runs from the first data packet of the
//!   on-period (the caller calls [`PccDecision::on_data`]), so `r_NA · T_PROT`
//!   approximates the data actually sent while protected.
//! - [DOC Eq. 4.7/4.12, spec 2.5, 2.7] in the first `T_OFF` after protected
//!   time `p_ON = ((T_PROT + T_OFF) r_TCP - T_PROT r_NA) / (T_OFF r_EFF)`
//!   with `T_OFF` the configured value; afterwards `p_ON = r_TCP / r_EFF`
//!   (Eq. 4.3 with Eq. 4.11's `r_EFF = r_NA · Π P`).
//! - [DOC Eq. 4.9, spec 2.6] `p_ON < 0` turns the flow off for
//!   `T_OFF,EXT = T_PROT (r_NA - r_TCP) / r_TCP`, that one off period only.
//!   INFERRED (spec 2.6): the same rule when the negative value comes from a
//!   later experiment of the first `T_OFF` (the sign of Eq. 4.12 does not
//!   depend on `r_EFF`).
//! - [DOC §4.5, §4.7, spec 2.7, 2.9] `P` holds the clamped `p_ON` of the
//!   experiments of the last `T_OFF`; an entry inserted at `t` expires at
//!   `t + T_OFF`, removed before the experiment at that instant. `P*` holds
//!   `min(1, r_TCP / (r_NA Π P*))` during the first `T_OFF` (INFERRED clamp
//!   and "at every experiment of the first T_OFF", spec 2.7) and replaces `P`
//!   at `t_first + T_OFF`, where Eq. 4.3 takes over. Both sets are cleared at
//!   turn-off (spec 2.7: equivalent, every entry has expired before the next
//!   experiment anyway).
//! - [DOC §5.3.2, spec 2.8] the first experiment of an on-period is at the end
//!   of protected time; the next one `T_EXP` after every successful one; none
//!   while off or protected. `T_OFF / T_EXP` must be an integer (spec 2.7).
//! - [spec 2.9] `r_TCP = ∞` (no loss event yet) is an explicit case
//!   ([`TcpRate::Unbounded`]): the flow stays on, `P` gets 1 and `P*` gets 1,
//!   no arithmetic on infinity.
//! - INFERRED (numerics, not in the thesis): a computed `p_ON` within 1e-9 of 1
//!   counts as exactly 1. Under constant inputs the thesis's invariant gives
//!   `p = r/(r_NA · (r/r_NA)) = 1`, which floating point rounds to 1 ± a few
//!   ulp; without the snap a 1 - 1 ulp would draw a random number and fail
//!   with probability ~1e-16 per experiment, and the "exactly one sub-1
//!   experiment per T_OFF" property would be false in the bits. The change of
//!   any off-probability is at most 1e-9.
//! - [DOC §4.6, spec 2.14] data arriving while off asks the caller to repeat
//!   the off signal ([`Action::RepeatOff`]).

use std::collections::VecDeque;

use sim_core::{ParamError, SimDuration, SimTime};

/// A computed `p_ON` this close to 1 counts as 1 (see the module notes).
const SNAP_TO_ONE: f64 = 1e-9;

/// The decision machine's parameters (spec 2.0, defaults Table 6.1).
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionConfig {
    /// Experiment interval `T_EXP` (Table 6.1: 2 s).
    pub t_exp: SimDuration,
    /// Off time after a failed experiment `T_OFF` (Table 6.1: 60 s); a
    /// multiple of `t_exp`.
    pub t_off: SimDuration,
    /// Maximum protected time `T_PROT,MAX` (Table 6.1: 30 s).
    pub t_prot_max: SimDuration,
    /// Loss events that end protected time `N_LE` (Table 6.1: 3).
    pub n_le: u32,
    /// RTT samples that end protected time `N_RTT` (Table 6.1: 5).
    pub n_rtt: u32,
}

impl Default for DecisionConfig {
    fn default() -> Self {
        DecisionConfig {
            t_exp: SimDuration::from_secs(2),
            t_off: SimDuration::from_secs(60),
            t_prot_max: SimDuration::from_secs(30),
            n_le: 3,
            n_rtt: 5,
        }
    }
}

impl DecisionConfig {
    /// Check the timers: all positive, `t_off` an integer multiple of `t_exp`.
    /// Keys are `t_exp`, `t_off`, `t_prot_max`.
    pub fn validate(&self) -> Result<(), ParamError> {
        for (key, d) in [
            ("t_exp", self.t_exp),
            ("t_off", self.t_off),
            ("t_prot_max", self.t_prot_max),
        ] {
            if d == SimDuration::ZERO {
                return Err(ParamError::new(key, "must be > 0"));
            }
        }
        if !self.t_off.as_ps().is_multiple_of(self.t_exp.as_ps()) {
            return Err(ParamError::new(
                "t_off",
                format!(
                    "{} is not an integer multiple of t_exp ({}); the thesis's continuous \
                     evaluation needs T_OFF / T_EXP to be an integer",
                    self.t_off, self.t_exp
                ),
            ));
        }
        Ok(())
    }
}

/// The TCP-friendly rate estimate `r_TCP` an experiment uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TcpRate {
    /// No loss event seen yet: `r_TCP = ∞` (spec 2.4, 2.9); the flow stays on.
    Unbounded,
    /// Eq. 5.4's rate, bytes/s (> 0).
    Finite(f64),
}

impl TcpRate {
    /// The rate in bytes/s, `f64::INFINITY` when unbounded (for reports only).
    pub fn bytes_per_sec(self) -> f64 {
        match self {
            TcpRate::Unbounded => f64::INFINITY,
            TcpRate::Finite(r) => r,
        }
    }
}

/// What an experiment needs from the estimators, sampled at its instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inputs {
    /// Current `r_TCP` (Eq. 5.4 from the smoothed RTT and loss event rate).
    pub r_tcp: TcpRate,
    /// Application rate `r_NA` from the data headers, bytes/s (> 0).
    pub r_na: f64,
}

/// Which formula an experiment used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formula {
    /// Eq. 4.12 (Eq. 4.7 when `P` is empty): the first `T_OFF` after protected time.
    MakeUp,
    /// Eq. 4.3 with `r_EFF` (normal phase).
    Plain,
}

/// An experiment's verdict.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// The flow stays on; the next experiment is at `next`.
    StayOn {
        /// Instant of the next experiment (`now + T_EXP`).
        next: SimTime,
    },
    /// The flow turns off until `until`; the caller signals rate 0 at once.
    TurnOff {
        /// End of the off period.
        until: SimTime,
        /// Whether the off time is Eq. 4.9's extension (`p_ON < 0`).
        extended: bool,
    },
}

/// The record of one experiment (for the caller's actions and probes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Experiment {
    /// When it ran.
    pub at: SimTime,
    /// The formula used.
    pub formula: Formula,
    /// `r_TCP` used.
    pub r_tcp: TcpRate,
    /// `r_EFF = r_NA Π P` in the denominator, bytes/s.
    pub r_eff: f64,
    /// `p_ON` as computed (may be < 0 or > 1; `INFINITY` when `r_TCP` is
    /// unbounded; snapped to 1 within 1e-9).
    pub p_on: f64,
    /// `p*_ON` inserted into `P*` (first `T_OFF` only).
    pub p_star: Option<f64>,
    /// The random number drawn (only when `0 < p_ON < 1`).
    pub rand: Option<f64>,
    /// `r_NA Π P` after this experiment's insertion, bytes/s.
    pub r_eff_after: f64,
    /// `T_PROT` of the current on-period.
    pub t_prot: SimDuration,
    /// The verdict.
    pub outcome: Outcome,
}

/// What the caller must do after an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// Protected time started (first data packet of an on-period): reset the
    /// loss history (INFERRED, spec 2.4) and count afresh.
    ProtectionStarted,
    /// An experiment ran; on `TurnOff` send a rate-0 control packet now and
    /// stop the control-packet timer.
    Experiment(Experiment),
    /// The off time is over: send a rate-∞ control packet and re-arm the
    /// control-packet timer (spec 2.11).
    TurnOn,
    /// Data arrived while off: repeat the off signal (spec 2.14).
    RepeatOff,
}

/// The machine's state (spec 2.9's reconstructed FSM).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// On, waiting for the first data packet of the on-period (start, or the
    /// off timer has expired).
    AwaitingData,
    /// Protected: no experiments; counting loss events and RTT samples.
    Protected {
        /// First data packet of the on-period.
        since: SimTime,
        /// Loss events seen since then.
        loss_events: u32,
        /// RTT samples seen since then.
        rtt_samples: u32,
        /// When both counts were first reached.
        met_at: Option<SimTime>,
    },
    /// The first `T_OFF` after protected time (Eq. 4.12 and `P*`).
    FirstToff {
        /// The first experiment's instant.
        t_first: SimTime,
        /// The next experiment.
        next: SimTime,
    },
    /// Normal continuous evaluation (Eq. 4.3).
    Normal {
        /// The next experiment.
        next: SimTime,
    },
    /// Off until `until`.
    Off {
        /// End of the off period.
        until: SimTime,
    },
}

/// A set of on-probabilities with their insertion times (`P` or `P*`).
#[derive(Clone, Debug, Default)]
struct ProbSet {
    entries: VecDeque<(SimTime, f64)>,
}

impl ProbSet {
    /// Remove the entries inserted at or before `now - t_off`.
    fn expire(&mut self, now: SimTime, t_off: SimDuration) {
        while let Some(&(t, _)) = self.entries.front() {
            if t.saturating_add(t_off) <= now {
                self.entries.pop_front();
            } else {
                break;
            }
        }
    }

    fn product(&self) -> f64 {
        self.entries.iter().map(|&(_, p)| p).product()
    }

    fn insert(&mut self, now: SimTime, p: f64) {
        debug_assert!(p > 0.0 && p <= 1.0, "P holds values in (0, 1], got {p}");
        self.entries.push_back((now, p));
    }

    fn clear(&mut self) {
        self.entries.clear();
    }
}

/// Counters of one flow's decisions (outputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecisionStats {
    /// Experiments run.
    pub experiments: u64,
    /// Experiments that turned the flow off.
    pub failed: u64,
    /// Of those, off periods with Eq. 4.9's extension.
    pub extended: u64,
    /// Protected periods that ended.
    pub protections: u64,
    /// Sum of their `T_PROT`.
    pub t_prot_sum: SimDuration,
}

/// PCC's decision machine for one flow (receiver side).
#[derive(Clone, Debug)]
pub struct PccDecision {
    cfg: DecisionConfig,
    phase: Phase,
    p: ProbSet,
    p_star: ProbSet,
    /// `T_PROT` of the current on-period (valid after protected time).
    t_prot: SimDuration,
    stats: DecisionStats,
}

/// Map a draw `u` in `[0, 1)` (the usual generator range) onto spec 2.3's
/// half-open `(0, 1]`: `1 - u`.
pub fn rand_unit_open_closed(u: f64) -> f64 {
    debug_assert!((0.0..1.0).contains(&u));
    1.0 - u
}

impl PccDecision {
    /// Validate and build, waiting for the flow's first data packet.
    pub fn new(cfg: DecisionConfig) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(PccDecision {
            cfg,
            phase: Phase::AwaitingData,
            p: ProbSet::default(),
            p_star: ProbSet::default(),
            t_prot: SimDuration::ZERO,
            stats: DecisionStats::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &DecisionConfig {
        &self.cfg
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the flow is allowed to send (every phase but `Off`).
    pub fn is_on(&self) -> bool {
        !matches!(self.phase, Phase::Off { .. })
    }

    /// Counters so far.
    pub fn stats(&self) -> DecisionStats {
        self.stats
    }

    /// `r_EFF = r_NA Π P` for the given `r_NA` (bytes/s), with the entries
    /// present now (expiry happens at experiments).
    pub fn r_eff(&self, r_na: f64) -> f64 {
        r_na * self.p.product()
    }

    /// A data packet arrived.
    pub fn on_data(&mut self, now: SimTime) -> Option<Action> {
        match self.phase {
            Phase::AwaitingData => {
                self.phase = Phase::Protected {
                    since: now,
                    loss_events: 0,
                    rtt_samples: 0,
                    met_at: None,
                };
                self.check_counts(now);
                Some(Action::ProtectionStarted)
            }
            Phase::Off { .. } => Some(Action::RepeatOff),
            _ => None,
        }
    }

    /// A loss event was detected at `now` (counted while protected). Then
    /// check [`Self::poll_at`]: protected time may have ended.
    pub fn on_loss_event(&mut self, now: SimTime) {
        if let Phase::Protected { loss_events, .. } = &mut self.phase {
            *loss_events = loss_events.saturating_add(1);
            self.check_counts(now);
        }
    }

    /// An RTT sample was taken at `now` (counted while protected). Then
    /// check [`Self::poll_at`].
    pub fn on_rtt_sample(&mut self, now: SimTime) {
        if let Phase::Protected { rtt_samples, .. } = &mut self.phase {
            *rtt_samples = rtt_samples.saturating_add(1);
            self.check_counts(now);
        }
    }

    /// Record the instant both protected-time counts are reached.
    fn check_counts(&mut self, now: SimTime) {
        if let Phase::Protected {
            loss_events,
            rtt_samples,
            met_at: met_at @ None,
            ..
        } = &mut self.phase
        {
            if *loss_events >= self.cfg.n_le && *rtt_samples >= self.cfg.n_rtt {
                *met_at = Some(now);
            }
        }
    }

    /// When [`Self::on_timer`] must run next: the end of protected time (the
    /// instant both counts were reached, else `T_PROT,MAX` after its start,
    /// whichever is earlier), the
    /// next experiment, or the end of the off period. `None` while awaiting data.
    pub fn poll_at(&self) -> Option<SimTime> {
        match self.phase {
            Phase::AwaitingData => None,
            Phase::Protected { since, met_at, .. } => {
                let max = since.saturating_add(self.cfg.t_prot_max);
                Some(met_at.map_or(max, |t| t.min(max)))
            }
            Phase::FirstToff { next, .. } | Phase::Normal { next } => Some(next),
            Phase::Off { until } => Some(until),
        }
    }

    /// Run what is due at `now` (nothing if `now < poll_at()`). `draw` returns
    /// a uniform number in (0, 1]; it is called at most once, and only when
    /// `0 < p_ON < 1`.
    pub fn on_timer(
        &mut self,
        now: SimTime,
        inputs: Inputs,
        draw: &mut dyn FnMut() -> f64,
    ) -> Option<Action> {
        let due = self.poll_at()?;
        if now < due {
            return None;
        }
        match self.phase {
            Phase::AwaitingData => None,
            Phase::Protected { since, .. } => {
                // T_PROT is the time until protected time ended (not a late
                // caller's `now`), so Eq. 4.12 charges what was sent in it.
                self.t_prot = due.saturating_since(since);
                self.stats.protections += 1;
                self.stats.t_prot_sum = self.stats.t_prot_sum.saturating_add(self.t_prot);
                self.p.clear();
                self.p_star.clear();
                self.phase = Phase::FirstToff {
                    t_first: now,
                    next: now,
                };
                Some(Action::Experiment(self.experiment(now, inputs, draw)))
            }
            Phase::FirstToff { .. } | Phase::Normal { .. } => {
                Some(Action::Experiment(self.experiment(now, inputs, draw)))
            }
            Phase::Off { .. } => {
                self.phase = Phase::AwaitingData;
                Some(Action::TurnOn)
            }
        }
    }

    /// Spec 2.9's experiment step.
    fn experiment(
        &mut self,
        now: SimTime,
        inputs: Inputs,
        draw: &mut dyn FnMut() -> f64,
    ) -> Experiment {
        let t_off = self.cfg.t_off;
        self.p.expire(now, t_off);
        let mut first = false;
        if let Phase::FirstToff { t_first, .. } = self.phase {
            self.p_star.expire(now, t_off);
            if now >= t_first.saturating_add(t_off) {
                // Transition: P := P*, discard P*, Eq. 4.3 from now on.
                self.p = std::mem::take(&mut self.p_star);
            } else {
                first = true;
            }
        }
        let r_na = inputs.r_na;
        debug_assert!(r_na > 0.0, "p_ON is never computed for r_NA = 0");
        let r_eff = r_na * self.p.product();
        let t_prot = self.t_prot.as_secs_f64();
        let t_off_s = t_off.as_secs_f64();
        let (p_on, p_star) = match inputs.r_tcp {
            TcpRate::Unbounded => (f64::INFINITY, first.then_some(1.0)),
            TcpRate::Finite(r_tcp) => {
                let p = if first {
                    ((t_prot + t_off_s) * r_tcp - t_prot * r_na) / (t_off_s * r_eff)
                } else {
                    r_tcp / r_eff
                };
                let p_star = first.then(|| snap((r_tcp / (r_na * self.p_star.product())).min(1.0)));
                (snap(p), p_star)
            }
        };
        if let Some(ps) = p_star {
            self.p_star.insert(now, ps);
        }
        if p_on > 0.0 {
            self.p.insert(now, p_on.min(1.0));
        }
        let r_eff_after = r_na * self.p.product();
        let mut rand = None;
        let stays_on = if p_on >= 1.0 {
            true
        } else if p_on <= 0.0 {
            false
        } else {
            let u = draw();
            debug_assert!(u > 0.0 && u <= 1.0, "RAND must be in (0, 1], got {u}");
            rand = Some(u);
            p_on > u
        };
        self.stats.experiments += 1;
        let outcome = if stays_on {
            let next = now.saturating_add(self.cfg.t_exp);
            self.phase = match self.phase {
                Phase::FirstToff { t_first, .. } if first => Phase::FirstToff { t_first, next },
                _ => Phase::Normal { next },
            };
            Outcome::StayOn { next }
        } else {
            let (off, extended) = match inputs.r_tcp {
                TcpRate::Finite(r_tcp) if p_on < 0.0 => (
                    SimDuration::from_secs_f64(t_prot * (r_na - r_tcp) / r_tcp),
                    true,
                ),
                _ => (t_off, false),
            };
            self.stats.failed += 1;
            if extended {
                self.stats.extended += 1;
            }
            self.p.clear();
            self.p_star.clear();
            let until = now.saturating_add(off);
            self.phase = Phase::Off { until };
            Outcome::TurnOff { until, extended }
        };
        Experiment {
            at: now,
            formula: if first {
                Formula::MakeUp
            } else {
                Formula::Plain
            },
            r_tcp: inputs.r_tcp,
            r_eff,
            p_on,
            p_star,
            rand,
            r_eff_after,
            t_prot: self.t_prot,
            outcome,
        }
    }
}

fn snap(p: f64) -> f64 {
    if (p - 1.0).abs() <= SNAP_TO_ONE {
        1.0
    } else {
        p
    }
}

#[cfg(test)]
#[path = "decision_tests.rs"]
mod tests;
