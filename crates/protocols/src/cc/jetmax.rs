//! JetMax's source (seed 002, Zhang, ch. VI §5-6, eq. 134 and §6.2-6.5): a
//! rate-paced EWMA toward the fair share of its bottleneck,
//! `x(n) = (1 - tau) x(n - D) + tau g(n - D)`, with hop-count bottleneck
//! membership, the ignore-first-ACK rule after a switch and proposed rates
//! (links `jetmax`).
//!
//! Provenance (spec `seed-002-zhang.md` §2.7, §7 items 4-7):
//! - \[PAPER\] every packet of `s` bytes carries `delta = s / x` (the gap at
//!   the actual rate), `R_T` (the hop number of the source's bottleneck),
//!   `R_C = 0`, and with proposed rates the virtual size `s+ = s x+ / x`.
//! - \[PAPER\] an echoed `R_S != R_T` suggests a switch; the source adopts
//!   `R_T = R_S`. Switching on a larger loss may happen at any time; a switch
//!   that may come from the fair-share tie-break (echoed `|p| <= p_tolerance`,
//!   default 0.05 as the router's; under `bottleneck_rule = "paper"`, as the
//!   routers', only an echoed `p = 0` exactly, `link::jetmax_stamp`)
//!   only once the source is stationary, i.e. its last step moved the rate by
//!   at most `stationary_eps` (\[INFERRED\] 1 %: the spec's eps is UNSPECIFIED);
//!   until then \[INFERRED\] the suggested router's share drives the rate
//!   without a switch, downwards only (ignoring it instead froze a source
//!   that only ever heard tie-break suggestions; following it upwards sent
//!   two long flows after a 30-Mb/s hop's 22-Mb/s share, a share for the
//!   flows responsive there, into two 10-Mb/s hops: a 1000-packet queue and
//!   a limit cycle, tests/zhang_props.rs); a suggestion above the rate
//!   leaves it, and the source then counts as stationary, so that a
//!   suggestion that persists is switched to. A suggestion without a share
//!   (`g = +inf`, nobody responsive at that router) is switched to at once:
//!   it cannot drive the rate, and while it holds the stamp the current
//!   router's share never arrives (two long flows frozen 3.6 % below their
//!   share for the run).
//! - [PAPER, §6.3] `switch = "ignore_first"` (default): after a switch the
//!   source ignores the first non-duplicate ACK of the new assignment. \[INFERRED\]
//!   ACKs of packets sent before the switch (echoed `R_T` other than the
//!   current one) are ignored too: they describe the old assignment (the
//!   "1 RTT" of the paper's RTT + (1 + k) Delta per step). `switch = "naive"`
//!   reacts to every fresh ACK (Fig. 33(b)'s 500 % overflow).
//!   `switch = "ignore_first_literal"` [OPTION, issue 55 item 4] is the
//!   sentence as written: `"naive"`, except that the first fresh ACK after
//!   each switch (the one after the ACK that suggested it) is ignored
//!   outright; ACKs of packets sent under the old assignment count, and no
//!   ignored ACK cuts the rate. With proposals the difference is small (a
//!   stale ACK's step needs a verdict on an interval its proposal covered,
//!   which only packets sent under the new assignment establish, so stale
//!   ACKs only cut; but a stale ACK's suggestion can switch back). \[INFERRED\]
//!   An ACK ignored by these rules still lowers the rate when its router
//!   is overloaded (`p > p_tolerance`) and its share `g` is finite:
//!   eq. 134's step toward `g`, applied only if below the rate. The rules
//!   guard against the too-large share of a router that counted the flow
//!   for part of an interval; a cut toward such a share is too small, never
//!   too large. Without it a flow whose two overloaded hops took the stamp
//!   in turn switched on every fresh ACK of its new assignment and ignored
//!   all of them: frozen at 32.6 Mb/s (twice its max-min share) on two
//!   50 Mb/s hops, both hops overloaded for the rest of the run
//!   (tests/zhang_props.rs).
//! - [PAPER, §6.4-6.5] `proposals = true` (default): an increase is proposed
//!   first (`s+ = s x+ / x` in every packet) and applied only when the
//!   routers approve; a decrease is applied at once; the approved proposal
//!   becomes the actual rate and the base of the next one. The verdict is
//!   the header's `declined` flag, set by any router whose last interval's
//!   proposed load reached gamma C ([`crate::link::jetmax`]).
//!   [PAPER, §6.5 and §7.5] one step at a time: "proper calculation of the
//!   reference rate takes RTT + (1 + k) Delta", the time the eq. 144
//!   prediction of [1.92, 2.52] s for 6 steps is built on. A router's
//!   verdict and share describe its previous interval, so the source
//!   \[INFERRED\] takes a step only on a fresh ACK whose stamp comes at least
//!   two intervals after the one in which the first packet carrying the
//!   current proposal reached the bottleneck (the interval counter on that
//!   packet's ACK; the packet is recognised by its echoed `s+ / delta`):
//!   the judged interval then saw nothing but the current proposal. Fresh
//!   ACKs before that only cut the rate toward an overloaded router's share
//!   (below). A decline keeps the rate and re-proposes from the actual
//!   `x(n - D)`, which the source recovers from the echoed gap as
//!   `s / delta` with `s` its segment size (every packet of a bulk flow has
//!   it; a finite flow's shorter last packet gives one slightly low
//!   reference); a proposal that does not change stays covered, so the
//!   next interval's verdict counts at once. `verdict_lag` (default 2)
//!   is that distance in intervals; 1 \[OPTION\] steps once per interval,
//!   as §7.6 counts ("6 control steps of Delta = 200 ms"), on a verdict
//!   about an interval that carried the old rate in its first RTT. Issue 6
//!   session 32, E6.6 test 1 with 1: a join 2.0 s to 1 %-fairness
//!   (3.0 s with 2), departures in the band within 1.2 s, no overshoot or
//!   drop; E6.3's x1 5.01 Mb/s under ACK loss (4.94 with 2) and 5.76
//!   under forward loss (5.78 with 2). Before (issue 6 sessions 1-15,
//!   README suspected issues 8 and 10) the source reacted to every fresh
//!   ACK and adopted the echoing packet's own proposal on a verdict about
//!   the interval before it, in which its packets had carried an older,
//!   smaller one: x1's first proposal in E6.3 (0.1 -> 3.78 Mb/s) passed
//!   while x2 still sent 12.3 Mb/s (0-629 drops per replication), E6.2's
//!   long flow went to 106 Mb/s on a 100-Mb/s hop (53 drops).
//! - \[INFERRED\] duplicate detection: an ACK is fresh if the stamping router's
//!   interval counter differs from the last one seen from that router (the
//!   header's `seq`); an ACK without a stamp, or with `g = +inf` (no
//!   responsive flow at the router), moves nothing but may switch; a stamp
//!   of an empty interval (`p = -inf`) is an approval like any negative `p`.
//! - \[INFERRED\] `init_rt` (default 0): the `R_T` of the packets sent before
//!   the first feedback. 0 is "none" (spec §2.7's suggestion): the source is
//!   unresponsive at every router until the first stamped ACK, whose `R_S`
//!   it adopts as a switch (one RTT, then the ignore-first rule). `k >= 1`
//!   names the k-th JetMax router on the path: the flow counts responsive
//!   there from its first packet, and a flow whose bottleneck that is never
//!   switches. E6.5 (one flow, RTT 220 ms, Delta 100 ms): in the 1 % band
//!   after 3.03 s with 0 and 2.83 s with 1 (zhang README, item 19); the
//!   files keep 0.
//! - \[INFERRED\] initial rate 100 kb/s (`init_rate`, as EMKC's) and a floor
//!   `min_rate` (10 kb/s); tau = 0.6 (the paper's value everywhere); losses do
//!   not change the rate. With tau near 2 and several flows, a floor below one
//!   packet per router interval (`s / Delta`, 80 kb/s for 1000 B and 100 ms)
//!   lets flows lock into a floor cycle: a flow on the floor is counted nowhere
//!   between its last dense packet and its first sparse one. At `s / Delta` or
//!   above it is counted in every interval and the cycle cannot start
//!   (`link::jetmax`; tests/zhang_props.rs, issue 6 session 39). With
//!   `tcp.pacing = "announced"` (`crate::transport::PacingMode`) the stretch is
//!   not there at any floor: the packet after a fall leaves when the last one's
//!   gap said (session 40; the default stays `"restart"`, see zhang README item
//!   16). `"hold"` also keeps the pending departure on a rise, where
//!   `"announced"` shortens it and so sends above the rate (session 41).

use serde::{Deserialize, Serialize};
use sim_core::{
    check_range, AckInfo, CcHeader, Congestion, Controller, HeaderFamily, JetMaxHeader, ParamError,
    Rate, SimTime,
};

use crate::link::jetmax::BottleneckRule;

/// How a JetMax source handles a bottleneck switch.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JetMaxSwitch {
    /// React to every fresh ACK (§6.3's naive scheme).
    Naive,
    /// Ignore the first non-duplicate ACK after a switch (§6.3), and the
    /// ACKs of packets sent under the previous assignment; ignored ACKs
    /// still cut the rate toward an overloaded router's share.
    #[default]
    IgnoreFirst,
    /// §6.3 as written: react as `Naive`, except to the first
    /// non-duplicate ACK after each switch (the one after the ACK that
    /// suggested it), which is ignored outright.
    IgnoreFirstLiteral,
}

fn default_tau() -> f64 {
    0.6
}
fn default_true() -> bool {
    true
}
fn default_p_tolerance() -> f64 {
    0.05
}
fn default_stationary() -> f64 {
    0.01
}
fn default_verdict_lag() -> u8 {
    2
}

/// Parameters of the JetMax source (`cc = { kind = "jetmax" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JetMaxCcConfig {
    /// Gain tau; stable in (0, 2), monotone in (0, 1) (default 0.6).
    #[serde(default = "default_tau")]
    pub tau: f64,
    /// Switch handling: `"ignore_first"` (default), `"ignore_first_literal"`
    /// or `"naive"`.
    #[serde(default)]
    pub switch: JetMaxSwitch,
    /// How suggestions are read, as the routers' `bottleneck_rule`:
    /// `"hysteresis"` (default: `|p| <= p_tolerance` may be a tie-break) or
    /// `"paper"` (only `p = 0` is; `link::jetmax_stamp`).
    #[serde(default)]
    pub bottleneck_rule: BottleneckRule,
    /// Propose increases and wait for approval (default true).
    #[serde(default = "default_true")]
    pub proposals: bool,
    /// Loss treated as zero when judging a tie-break suggestion (default
    /// 0.05, the router's; see `link::jetmax` for why).
    #[serde(default = "default_p_tolerance")]
    pub p_tolerance: f64,
    /// Relative rate step below which the source counts as stationary (default 0.01).
    #[serde(default = "default_stationary")]
    pub stationary_eps: f64,
    /// Rate before the first feedback (default 100 kb/s).
    #[serde(default = "super::default_init_rate")]
    pub init_rate: Rate,
    /// Floor of the rate (default 10 kb/s). At or above one packet per
    /// router interval a flow on the floor stays in the routers' flow count
    /// (tau near 2 with several flows needs that; see the module docs).
    #[serde(default = "super::default_min_rate")]
    pub min_rate: Rate,
    /// `R_T` before the first feedback: 0 (default) = none, the first
    /// stamp's router is adopted as a switch; k = the k-th JetMax router on
    /// the path, responsive there from the first packet.
    #[serde(default)]
    pub init_rt: u8,
    /// Intervals from the first one a proposal reached the bottleneck in to
    /// the stamp whose verdict may apply it: 2 (default) = the judged
    /// interval saw only the proposal; 1 = a step per interval, as §7.6
    /// counts them, on a verdict about an interval that mixed the old rate
    /// and the new (module docs).
    #[serde(default = "default_verdict_lag")]
    pub verdict_lag: u8,
}

impl Default for JetMaxCcConfig {
    fn default() -> Self {
        JetMaxCcConfig {
            tau: default_tau(),
            switch: JetMaxSwitch::IgnoreFirst,
            bottleneck_rule: BottleneckRule::default(),
            proposals: true,
            p_tolerance: default_p_tolerance(),
            stationary_eps: default_stationary(),
            init_rate: super::default_init_rate(),
            min_rate: super::default_min_rate(),
            init_rt: 0,
            verdict_lag: default_verdict_lag(),
        }
    }
}

impl JetMaxCcConfig {
    /// Check parameter ranges (keys relative to the `cc` table).
    pub fn validate(&self) -> Result<(), ParamError> {
        // Up to 3 so that the instability past 2 can be shown.
        check_range("tau", self.tau, f64::MIN_POSITIVE, 3.0)?;
        check_range("p_tolerance", self.p_tolerance, 0.0, 1.0)?;
        check_range("stationary_eps", self.stationary_eps, 0.0, 1.0)?;
        check_range("verdict_lag", f64::from(self.verdict_lag), 1.0, 8.0)?;
        super::check_rate_floor(self.init_rate, self.min_rate)?;
        Ok(())
    }
}

/// The JetMax source's rate controller.
#[derive(Clone, Debug)]
pub struct JetMaxCc {
    tau: f64,
    switch: JetMaxSwitch,
    rule: BottleneckRule,
    proposals: bool,
    tol: f64,
    stationary_eps: f64,
    min_rate: f64,
    /// Intervals a verdict must come after the first covered one.
    verdict_lag: u8,
    /// Segment size, bytes (the size of the packets whose gaps are echoed).
    mss: f64,
    /// Actual rate x, bits/s.
    rate: f64,
    /// Proposed rate x+, bits/s.
    proposed: f64,
    /// R_T (0: none yet).
    rt: u8,
    /// Ignore the next fresh ACK of the current assignment.
    skip_next: bool,
    /// The last step moved the rate by at most `stationary_eps`.
    stationary: bool,
    /// Last interval counter seen per hop number (index = R_S).
    last_seq: Vec<Option<u16>>,
    /// The bottleneck's interval counter on the first ACK of a packet that
    /// carried the current proposal (`None`: none back yet).
    covered_from: Option<u16>,
}

impl JetMaxCc {
    /// Validate and build.
    pub fn new(cfg: &JetMaxCcConfig, mss: u32) -> Result<Self, ParamError> {
        cfg.validate()?;
        let r = cfg.init_rate.bps_f64();
        Ok(JetMaxCc {
            mss: f64::from(mss.max(1)),
            tau: cfg.tau,
            switch: cfg.switch,
            rule: cfg.bottleneck_rule,
            proposals: cfg.proposals,
            tol: cfg.p_tolerance,
            stationary_eps: cfg.stationary_eps,
            min_rate: cfg.min_rate.bps_f64(),
            verdict_lag: cfg.verdict_lag,
            rate: r,
            proposed: r,
            rt: cfg.init_rt,
            skip_next: false,
            stationary: false,
            last_seq: Vec::new(),
            covered_from: None,
        })
    }

    /// The current bottleneck's hop number (0: none yet).
    pub fn bottleneck(&self) -> u8 {
        self.rt
    }

    /// The proposed rate x+, bits/s.
    pub fn proposed(&self) -> f64 {
        self.proposed
    }

    /// Whether the ACK is the first of its router interval.
    fn fresh(&mut self, h: &JetMaxHeader) -> bool {
        let i = usize::from(h.rs);
        if self.last_seq.len() <= i {
            self.last_seq.resize(i + 1, None);
        }
        if self.last_seq[i] == Some(h.seq) {
            return false;
        }
        self.last_seq[i] = Some(h.seq);
        true
    }

    /// An ACK that the switch rule ignores still cuts the rate toward an
    /// overloaded router's share (`p > p_tolerance`, finite `g`): eq. 134's
    /// step, applied only when it lowers the rate (module docs).
    fn overload_cut(&mut self, h: &JetMaxHeader) {
        let gap = f64::from(h.gap);
        if h.p <= self.tol || !h.g.is_finite() || gap <= 0.0 {
            return;
        }
        let actual = self.mss * 8.0 / gap;
        let next = ((1.0 - self.tau) * actual + self.tau * h.g).max(self.min_rate);
        if next < self.rate {
            self.rate = next;
            self.proposed = next;
            self.stationary = false;
        }
    }

    /// Note the first ACK, from the bottleneck, of a packet that carried the
    /// current proposal: its interval counter is the first interval that
    /// proposal reached there.
    fn note_coverage(&mut self, h: &JetMaxHeader) {
        if self.covered_from.is_some() || h.rs != self.rt || h.rt != self.rt || self.rt == 0 {
            return;
        }
        let gap = f64::from(h.gap);
        if gap <= 0.0 {
            return;
        }
        let carried = f64::from(h.size_plus) * 8.0 / gap;
        if (carried / self.proposed - 1.0).abs() <= 1e-5 {
            self.covered_from = Some(h.seq);
        }
    }

    /// Apply the feedback of `h` (eq. 134 with proposals, §6.4-6.5).
    fn react(&mut self, h: &JetMaxHeader) {
        let g = h.g;
        if !g.is_finite() {
            return;
        }
        let gap = f64::from(h.gap);
        if gap <= 0.0 {
            return;
        }
        // The rate in force when the packet left: x(n - D).
        let actual = self.mss * 8.0 / gap;
        let before = self.rate;
        if self.proposals {
            let increasing = self.proposed > self.rate;
            // The verdict judges the router's previous interval: it speaks
            // for the current proposal once a packet carrying it reached
            // the router `verdict_lag` (default two) intervals before this
            // one.
            let covered = self
                .covered_from
                .is_some_and(|s| h.seq.wrapping_sub(s) as i16 >= i16::from(self.verdict_lag));
            let next_from = |base: f64| ((1.0 - self.tau) * base + self.tau * g).max(self.min_rate);
            if h.rs != self.rt {
                // Another router's share (a tie-break suggestion before
                // stationarity): decreases only.
                let next = next_from(actual);
                if next < self.rate {
                    self.rate = next;
                }
                self.proposed = self.proposed.min(next.max(self.rate));
            } else if covered {
                let approved = increasing && !h.declined;
                if approved {
                    self.rate = self.proposed;
                }
                let next = next_from(if approved { self.rate } else { actual });
                if next < self.rate {
                    self.rate = next;
                }
                if next != self.proposed {
                    // A new proposal: the next step waits for a verdict
                    // on an interval it covers.
                    self.covered_from = None;
                }
                self.proposed = next;
            } else {
                // A verdict on an interval the proposal did not cover:
                // only an overloaded router's cut.
                self.overload_cut(h);
            }
        } else {
            self.rate = ((1.0 - self.tau) * actual + self.tau * g).max(self.min_rate);
            self.proposed = self.rate;
        }
        self.stationary = (self.proposed - before).abs() <= self.stationary_eps * before;
    }
}

impl Controller for JetMaxCc {
    fn on_ack(&mut self, ack: &AckInfo) {
        let CcHeader::JetMax(h) = ack.cc else { return };
        if self.proposals {
            self.note_coverage(&h);
        }
        if h.rs == 0 || h.p.is_nan() || !self.fresh(&h) {
            return;
        }
        let ignore_first = self.switch == JetMaxSwitch::IgnoreFirst;
        let literal = self.switch == JetMaxSwitch::IgnoreFirstLiteral;
        if ignore_first && h.rt != self.rt && self.rt != 0 {
            // Sent under the previous assignment.
            self.overload_cut(&h);
            return;
        }
        let mut switched = false;
        if h.rs != self.rt {
            // A suggestion without a share (+inf: nobody responsive there)
            // cannot drive the rate, and while it holds the stamp no share
            // of the current router arrives either: switch at once.
            let tie_break = self.rule.tie_break(h.p, self.tol) && h.g.is_finite();
            if self.rt == 0 || !tie_break || self.stationary {
                self.rt = h.rs;
                self.stationary = false;
                self.covered_from = None;
                switched = true;
                if ignore_first {
                    self.skip_next = true;
                    self.overload_cut(&h);
                    return;
                }
            } else if h.g > self.rate {
                // A tie-break suggestion before stationarity: no switch,
                // but its share still drives the rate, downwards only; one
                // above the rate leaves it where it is, which counts as
                // stationary.
                self.stationary = true;
                return;
            }
        }
        if self.skip_next {
            // The first fresh ACK after a switch. Read literally, it is
            // ignored outright, and if it suggests a switch itself, the
            // next one is the first after that switch.
            self.skip_next = literal && switched;
            if !literal {
                self.overload_cut(&h);
            }
            return;
        }
        self.react(&h);
        // The literal rule reacts to the suggesting ACK (as `Naive`) and
        // ignores the next fresh one.
        self.skip_next = literal && switched;
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
        let s = f64::from(len);
        let size_plus = if self.proposals {
            s * self.proposed / self.rate
        } else {
            s
        };
        *hdr = CcHeader::JetMax(JetMaxHeader {
            p: f64::NEG_INFINITY,
            g: f64::INFINITY,
            gap: (s * 8.0 / self.rate) as f32,
            size_plus: size_plus as f32,
            seq: 0,
            rt: self.rt,
            rc: 0,
            rs: 0,
            declined: false,
        });
    }

    fn header_family(&self) -> HeaderFamily {
        HeaderFamily::JetMax
    }
}

#[cfg(test)]
mod tests;
