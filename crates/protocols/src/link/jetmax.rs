//! JetMax's router (seed 002, Zhang, ch. VI §5-6, eqs. 133-150): the fair
//! share `g = (gamma C - u)/N` of the flows bottlenecked here, computed once
//! per interval from per-packet header fields, without per-flow state.
//!
//! Provenance (spec `seed-002-zhang.md` §2.7, §7 items 5-7):
//! - \[PAPER\] per arriving packet: `R_C += 1`; if `R_C == R_T` the packet is
//!   responsive (`w+ += s+`, `Nsum += delta`), otherwise unresponsive
//!   (`u+ += s+`), with `s+` the carried virtual (proposed) size and `delta`
//!   the carried inter-packet gap at the actual rate (§6.1-6.2, §6.4).
//! - \[PAPER\] at the end of each interval Delta (default 100 ms):
//!   `N = Nsum / Delta` (eq. 148), `y+ = (w+ + u+)/Delta`,
//!   `p+ = 1 - gamma C / y+` (eq. 135, 150), `g+ = (gamma C - u+/Delta) / N`
//!   (eq. 133, 150). A router approves the proposals of its last interval
//!   iff `y+ < gamma C`; every router with outputs sets the header's
//!   `declined` flag (Fig. 35(b)'s flags byte) when it does not, whether or
//!   not it stamps `p` and `g`. (Earlier sessions carried the verdict as
//!   the sign of the stamped `p+`; the zero-band tie-break and the current
//!   bottleneck's hold let a router with `p+` just below 0 stamp over one
//!   just above it, whose decline was then lost.)
//! - \[PAPER\] stamping: a router overwrites the header's `p`, `g` and sets
//!   `R_S` to its own hop number (`R_C` after its increment, so that the
//!   `R_C == R_T` test matches once the source adopts it) if its `p` is
//!   larger, or if both `p` are zero and its `g` is smaller (eq. 136).
//! - [PAPER §6.2] both happen as the packet arrives ("upon each packet
//!   arrival, link l increments R_C by one and then examines its local
//!   packet loss"), with the outputs of the last interval. Until issue 6's
//!   session 17 the hop count and the stamp waited for the packet to leave
//!   the queue (EMKC's router did the same; see `super::emkc`).
//! - The comparison itself is [`super::jetmax_stamp`]: `bottleneck_rule =
//!   "hysteresis"` (default) with the inferred rules that complete eqs.
//!   135-136 (the zero band `band`, close loads, the current bottleneck's
//!   hold), or `"paper"`, eqs. 135-136 as written (issue 55 item 4).
//! - [INFERRED, UNSPECIFIED] `N = 0`: an interval without responsive
//!   packets gives an unresponsive packet no share (`g = +inf`: it never
//!   wins the tie-break and a source ignores it), but a *responsive*
//!   packet's flow is one flow here, so it gets `g = gamma C - u` (as
//!   `N = 1`). Without this a flow whose packets are sparser than the
//!   interval (at the 10-kb/s rate floor, one packet per 0.8 s) only ever
//!   met the empty intervals between its own packets and never moved
//!   again: a cross flow on a 10 Mb/s hop, driven to the floor by a
//!   negative share (`u > gamma C`) at a join, stayed at 10 kb/s for the
//!   run instead of 5 Mb/s. An interval without packets has `p = -inf`;
//!   it stamps only a header no router has stamped yet (`R_S = 0`), so
//!   that such a flow alone on its path hears `g = gamma C`. No interval
//!   has ended yet: no stamp.
//! - \[INFERRED\] a dense packet's (`delta <= Delta`) proposed bytes stand
//!   for its flow's proposal over `[t, t + delta)`: `s+` is split between
//!   the interval it arrives in and the next one in proportion. Counted
//!   whole where it lands, a flow at 100 kb/s (1000-B packets, 80 ms apart)
//!   put one or two packets in a 100-ms interval, `y+` = 0.8 or 1.6 times
//!   its proposal, so one flow alone on 10 Mb/s (RTT 93 ms) had its first
//!   proposal of 10.3 Mb/s approved (the random single-link test of
//!   tests/zhang_props.rs that asserts "never above gamma C"). Its gap is
//!   still counted whole in its arrival interval (eq. 148 as written):
//!   spreading it too (tried) made `N` exact at 100 kb/s but turned a
//!   converging case of `count_self` with tau = 1.51 (two flows, 52 Mb/s,
//!   RTTs 328 / 128 ms) into a floor-to-64-Mb/s cycle, not investigated.
//! - \[INFERRED\] a sparse packet's bytes count in one interval at most: `s+` is
//!   scaled by `Delta / delta`; a sparse responsive packet's gap
//!   (`delta > Delta`) covers the rest of its arrival interval and the
//!   next ones (up to 64), as the flow does until its next packet.
//!   Eq. 148 sums gaps that tile the interval; counted whole in the
//!   interval it lands in, a packet with `delta = 0.8 s` counts its flow
//!   as `N = 8` there and 0 in the seven others. Clipping the gap to the
//!   interval (earlier sessions) counted it once, and lost it for the
//!   rest: a flow leaving the 10-kb/s rate floor at a share of `gamma C`
//!   sent its first dense packets into an interval it had otherwise not
//!   covered, `N = 0.2`, a share of 4.7 C, 30 Mb/s on a 10 Mb/s hop, and
//!   back to the floor (two long flows over 10, 10, 20 Mb/s hops, a
//!   3-s cycle, 44 % utilisation; tests/zhang_props.rs). Spread, the
//!   sparse gap overlaps the new dense ones for the rest of its span: `N`
//!   over-counted for under a second, a smaller share, never a larger one.
//!   Bytes are not spread: a floor packet carries its flow's next
//!   proposal (`s+ = s x+ / x`, 1.2 MB for 12 Mb/s at 10 kb/s), and
//!   spreading it beside the dense packets that follow counted the
//!   proposal twice, pushing `p+` over 0 (measured: a one-flow 20 / 20
//!   Mb/s parking lot at 4.9 instead of 20 Mb/s).
//! - \[INFERRED\] bytes without a JetMax header (ACKs, other transports)
//!   count in `u+`, eq. 133's unresponsive load `u = y - w`: they use the
//!   link and no responsive flow here controls them. Before (README
//!   suspected issue 9), E6.4's 50 reverse flows' ACKs (3.85 % of C)
//!   overflowed a link the router drove to gamma C with data.
//! - [INFERRED, UNSPECIFIED] a link without responsive flows (`N = 0`)
//!   whose arrivals persistently exceed gamma C stamps `g = -inf` for
//!   non-responsive packets: the limit of `(gamma C - u)/N` for `N -> 0`
//!   with `u > gamma C`. "Persistently": the bytes beyond gamma C summed
//!   over consecutive intervals without responsive packets (never below 0)
//!   exceed one interval's `gamma C Delta`, so that a link at exactly
//!   gamma C (one flow over two equal hops) does not trigger it on packet
//!   noise. `-inf` wins the zero-loss tie-break (smaller share), and a
//!   source switches to a suggestion without a finite share at once. The
//!   case: one flow over 10, 10, 20 Mb/s hops without proposals held at
//!   10.42 Mb/s, the first hop 4 % overloaded (a loss inside the zero
//!   band) and nobody responsive there, the second hop seeing the flow
//!   thinned to 10 Mb/s and counting `N = 0.96` (eq. 151), its share
//!   10.42 Mb/s holding the overload in place; a band of 0.02 fixed it
//!   and broke another parking lot (`p_tolerance`, in
//!   [`super::jetmax_stamp`]).
//! - \[PAPER\] `N` is not otherwise clamped: a flow counted responsive for
//!   part of an interval makes `N < 1` and `g` larger than the link, the
//!   mid-interval-switch error the ignore-first-ACK rule of §6.3 exists for
//!   (Fig. 33(b)); forward loss before the router thins `N` to `alpha N`,
//!   which is how JetMax keeps the link full under loss (eq. 151-152,
//!   E6.3: one flow under 20 % loss at `gamma C / 0.8`). The same error
//!   meets every restart from the rate floor (the first interval at the
//!   new rate is partly covered); with `tau > 1` the law amplifies it, and
//!   the paper's router can cycle floor -> 55 -> 87 Mb/s -> floor on an
//!   11 Mb/s link (one flow, RTT 80 ms, tau 1.69). `count_self = true`
//!   uses `max(N, 1)` for responsive packets: it ends those cycles and
//!   JetMax's start-up overshoot (E6.5), but also the loss-thinned `N` of
//!   a flow alone (E6.3 alone: 10.0 instead of 12.5 Mb/s), so it is off by
//!   default. Random single links with it (tests/zhang_props.rs), measured
//!   with departure stamping: 120 of 120 cases for tau in [1, 1.7] and 1 of
//!   60 without it, but two flows on 24 Mb/s with RTTs 153 / 20 ms missed
//!   max-min at tau 1.6 and 1.69. Since session 17's arrival stamping that
//!   pair converges up to tau 1.8 and 120 cases in [1, 1.7] over 10 seeds
//!   pass. Closer to 2 several flows can lock into a floor cycle: a flow
//!   at the floor is counted nowhere for ~0.8 s after its last dense
//!   packet (forward-looking gaps), so k flows leaving the floor hear
//!   `gamma C / (N - k)` and return to it iff `tau > 2 - k / N` (zhang
//!   README, suspected issue 16); alone, `count_self` stamps the true share.
//!   A sources' floor of one packet per interval (`min_rate >= s / Delta`)
//!   keeps a flow on the floor counted in every interval, and no cycle
//!   starts: random cases of 2-8 flows with tau in [1.7, 1.95), 0 of 120
//!   missed max-min against 25 of 120 with the 10-kb/s floor (issue 6 session
//!   39, tests/zhang_props.rs). The ~0.8 s is the sources' pacing: under
//!   `tcp.pacing = "restart"` a fall re-derives the pending gap at the floor,
//!   and the packet after the last dense one leaves a floor gap later. With
//!   `"announced"` it leaves when that packet's gap said, and the flow is
//!   counted without a hole at any floor (session 40; 0 of 30 random loss-free
//!   cases at 10 kb/s against 8 of 30). `"hold"` keeps the pending departure
//!   on a rise too (session 41; 10-kb/s floor, 1000-packet buffer: 0 of 30
//!   random cases missed, where `"announced"` missed 2 and `"restart"` 6).
//! - \[INFERRED\] the header carries the stamping router's interval counter
//!   (2 bytes, `seq`) for the sources' duplicate detection (the
//!   dissertation's 28-byte header has none: spec §2.7 UNSPECIFIED); only
//!   data packets are counted and stamped.
//! - Rates in bytes/s inside the router; `g` travels in bits/s.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use sim_core::{
    check_range, CcHeader, HeaderFamily, LazyRng, LinkAlgorithm, LinkControl, LinkView, Packet,
    PacketKind, ParamError, SimDuration, Verdict,
};

pub use super::jetmax_stamp::{both_zero, paper_wins, stamp_wins, BottleneckRule, Stamp};

use super::interval::IntervalClock;
use super::LinkBuildCtx;

/// Intervals past the current one over which a sparse packet's gap is
/// spread (a gap beyond them is not counted).
const SPREAD: usize = 64;

fn default_interval() -> SimDuration {
    SimDuration::from_millis(100)
}
fn default_gamma() -> f64 {
    1.0
}
fn default_p_tolerance() -> f64 {
    0.05
}

/// Parameters of the JetMax router (`algo = { kind = "jetmax" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JetMaxConfig {
    /// Control interval Delta_l (default 100 ms).
    #[serde(default = "default_interval")]
    pub interval: SimDuration,
    /// Target utilisation gamma, in (0, 1] (default 1).
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// Bottleneck choice: `"hysteresis"` (default) or `"paper"` (eqs.
    /// 135-136 as written; [`super::jetmax_stamp`]).
    #[serde(default)]
    pub bottleneck_rule: BottleneckRule,
    /// The hysteresis rule's band (key `band` or `p_tolerance`): `|p|` at
    /// or below which a loss counts as zero for the fair-share tie-break,
    /// and the load difference within which two routers are told apart by
    /// their shares (default 0.05). Unused by the paper's rule.
    #[serde(default = "default_p_tolerance", alias = "band")]
    pub p_tolerance: f64,
    /// A responsive packet's share uses `max(N, 1)`: its own flow is one
    /// (default false, the paper's `N`; see the module docs).
    #[serde(default)]
    pub count_self: bool,
}

impl Default for JetMaxConfig {
    fn default() -> Self {
        JetMaxConfig {
            interval: default_interval(),
            gamma: default_gamma(),
            bottleneck_rule: BottleneckRule::default(),
            p_tolerance: default_p_tolerance(),
            count_self: false,
        }
    }
}

/// One interval's outputs, with both shares computed once per interval so
/// that stamping a packet only picks one.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Outputs {
    /// Loss `p+`.
    p: f64,
    /// `N` (eq. 148).
    n: f64,
    /// Share for a packet responsive here, bits/s: `(gamma C - u+)/N`,
    /// with `N >= 1` under `count_self` or when `N = 0` (its flow is one).
    g_responsive: f64,
    /// Share for any other packet: `(gamma C - u+)/N`; when `N = 0`,
    /// `+inf`, or `-inf` once the link is persistently overloaded.
    g_other: f64,
}

impl Outputs {
    fn new(p: f64, spare: f64, n: f64, count_self: bool, overloaded: bool) -> Self {
        let g_other = if n > 0.0 {
            spare / n
        } else if overloaded {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        let g_responsive = if count_self || n == 0.0 {
            spare / n.max(1.0)
        } else {
            g_other
        };
        Outputs {
            p,
            n,
            g_responsive,
            g_other,
        }
    }
}

/// The JetMax router of one output queue.
#[derive(Clone, Debug)]
pub struct JetMax {
    /// gamma C, bytes/s.
    target: f64,
    interval: f64,
    rule: BottleneckRule,
    tol: f64,
    /// `count_self`.
    clamp: bool,
    /// This interval's responsive and unresponsive proposed bytes, and gaps.
    w_plus: f64,
    u_plus: f64,
    gaps: f64,
    /// This interval's arrived bytes (actual sizes, not `s+`).
    arrived: f64,
    /// Bytes that arrived beyond gamma C over the consecutive intervals
    /// without responsive packets (a Lindley recursion: never below 0,
    /// reset by an interval with responsive packets).
    excess: f64,
    /// Parts of sparse responsive packets' gaps due in the next
    /// intervals (front = the next interval).
    carry: VecDeque<f64>,
    /// Parts of dense packets' proposed bytes due in the next interval
    /// (responsive, unresponsive).
    next_w: f64,
    next_u: f64,
    /// Last interval's outputs; `None` before the first.
    out: Option<Outputs>,
    seq: u16,
    clock: IntervalClock,
}

impl JetMax {
    /// Validate and build.
    pub fn new(cfg: &JetMaxConfig, ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        check_range("gamma", cfg.gamma, f64::MIN_POSITIVE, 1.0)?;
        check_range("p_tolerance", cfg.p_tolerance, 0.0, 1.0)?;
        if cfg.interval == SimDuration::ZERO {
            return Err(ParamError::new("interval", "must be > 0"));
        }

        let c = ctx.capacity.bps_f64() / 8.0;
        if c <= 0.0 {
            return Err(ParamError::new("", "the link's capacity must be > 0"));
        }
        Ok(JetMax {
            target: cfg.gamma * c,
            interval: cfg.interval.as_secs_f64(),
            rule: cfg.bottleneck_rule,
            tol: cfg.p_tolerance,
            clamp: cfg.count_self,
            w_plus: 0.0,
            u_plus: 0.0,
            gaps: 0.0,
            arrived: 0.0,
            excess: 0.0,
            carry: VecDeque::new(),
            next_w: 0.0,
            next_u: 0.0,
            out: None,
            seq: 0,
            clock: IntervalClock::default(),
        })
    }

    /// Last interval's `(p+, g+ in bits/s, N)`.
    pub fn outputs(&self) -> Option<(f64, f64, f64)> {
        self.out.map(|o| (o.p, o.g_other, o.n))
    }

    /// End an interval of `t` seconds.
    fn tick(&mut self, t: f64) {
        if t <= 0.0 {
            return;
        }
        let y = (self.w_plus + self.u_plus) / t;
        let u = self.u_plus / t;
        let n = self.gaps / t;
        let p = if y > 0.0 {
            1.0 - self.target / y
        } else {
            f64::NEG_INFINITY
        };
        self.excess = if n > 0.0 {
            0.0
        } else {
            (self.excess + self.arrived - self.target * t).max(0.0)
        };
        let overloaded = self.excess > self.target * self.interval;
        self.out = Some(Outputs::new(
            p,
            (self.target - u) * 8.0,
            n,
            self.clamp,
            overloaded,
        ));
        self.seq = self.seq.wrapping_add(1);
        self.w_plus = std::mem::take(&mut self.next_w);
        self.u_plus = std::mem::take(&mut self.next_u);
        self.gaps = self.carry.pop_front().unwrap_or(0.0);
        self.arrived = 0.0;
    }

    /// Count an arriving packet in this interval's sums (eqs. 133, 148).
    fn count(&mut self, pkt: &Packet, view: &LinkView) {
        self.arrived += f64::from(pkt.size);
        let (PacketKind::Data, CcHeader::JetMax(h)) = (pkt.kind, &pkt.cc) else {
            // Bytes without a JetMax header (ACKs, other traffic) are
            // load that no responsive flow here controls: u (eq. 133).
            self.u_plus += f64::from(pkt.size);
            return;
        };
        let gap = f64::from(h.gap);
        let responsive = h.rc.wrapping_add(1) == h.rt;
        let left = (self.interval - self.clock.elapsed(view.now)).max(0.0);
        if gap <= self.interval {
            // A dense packet's proposal stands for its flow over
            // [now, now + gap): its proposed bytes split between this
            // interval and the next, so that a flow's proposals tile the
            // intervals whatever their phase; its gap counts here (eq. 148).
            let s_plus = f64::from(h.size_plus);
            let now_frac = if gap > 0.0 { gap.min(left) / gap } else { 1.0 };
            if responsive {
                self.w_plus += s_plus * now_frac;
                self.next_w += s_plus * (1.0 - now_frac);
                self.gaps += gap;
            } else {
                self.u_plus += s_plus * now_frac;
                self.next_u += s_plus * (1.0 - now_frac);
            }
            return;
        }
        // A sparse packet's bytes count in one interval at most.
        let s_plus = f64::from(h.size_plus) * self.interval / gap;
        if !responsive {
            self.u_plus += s_plus;
            return;
        }
        self.w_plus += s_plus;
        // A sparse packet's flow is one flow until its next packet: the
        // gap covers the rest of this interval and the next ones.
        let mut rest = gap;
        let mut part = left;
        self.gaps += part;
        rest -= part;
        for k in 0..SPREAD {
            if rest <= 0.0 {
                break;
            }
            part = rest.min(self.interval);
            if self.carry.len() <= k {
                self.carry.push_back(0.0);
            }
            self.carry[k] += part;
            rest -= part;
        }
    }

    /// Move the packet's hop count on and stamp this router's feedback if
    /// it wins (§6.2).
    fn stamp(&self, pkt: &mut Packet) {
        let (PacketKind::Data, CcHeader::JetMax(h)) = (pkt.kind, &mut pkt.cc) else {
            return;
        };
        h.rc = h.rc.wrapping_add(1);
        let Some(o) = self.out else {
            return;
        };
        // Every router votes on the proposals, whoever stamps.
        h.declined |= o.p >= 0.0;
        let current = h.rc == h.rt;
        let mine = Stamp {
            p: o.p,
            g: if current { o.g_responsive } else { o.g_other },
            current,
        };
        let header = Stamp {
            p: h.p,
            g: h.g,
            current: h.rs == h.rt,
        };
        let take = h.rs == 0 || self.rule.wins(mine, header, self.tol);
        if take {
            h.p = mine.p;
            h.g = mine.g;
            h.rs = h.rc;
            h.seq = self.seq;
        }
    }
}

impl LinkAlgorithm for JetMax {
    /// Derived constants from the capacity at build (issue 59: a capacity
    /// change on its link is rejected when the scenario is built).
    fn follows_capacity(&self) -> bool {
        false
    }

    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, _rng: &mut LazyRng) -> Verdict {
        self.count(pkt, view);
        self.stamp(pkt);
        Verdict::Enqueue
    }

    fn on_start(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.clock.begin(view.now, self.interval, ctl);
    }

    fn on_timer(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.tick(self.clock.elapsed(view.now));
        self.clock.begin(view.now, self.interval, ctl);
    }

    fn header_family(&self) -> Option<HeaderFamily> {
        Some(HeaderFamily::JetMax)
    }

    fn probe(&self) -> Option<(&'static str, f64)> {
        Some(("jetmax_n", self.out.map_or(0.0, |o| o.n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::interval::test_ctx;
    use sim_core::{BufferLimit, FlowId, JetMaxHeader, Rate, RouteId, SimTime, StreamKind};

    const C_BPS: u64 = 10_000_000;

    fn data(size: u32, rt: u8, rc: u8, gap: f32, size_plus: f32) -> Packet {
        let mut p = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, size, SimTime::ZERO);
        p.cc = CcHeader::JetMax(JetMaxHeader {
            p: f64::NEG_INFINITY,
            g: f64::INFINITY,
            gap,
            size_plus,
            seq: 0,
            rt,
            rc,
            rs: 0,
            declined: false,
        });
        p
    }

    fn view(at: f64) -> LinkView {
        LinkView::idle(SimTime::from_secs_f64(at), Rate::from_bps(C_BPS))
    }

    fn arrive(j: &mut JetMax, p: &Packet) {
        let mut rng = LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0);
        j.on_arrival(&mut p.clone(), &view(0.0), &mut rng);
    }

    fn end(j: &mut JetMax, at: f64) {
        let mut ctl = LinkControl {
            next_timer: None,
            limit: BufferLimit::Unlimited,
        };
        j.on_timer(&view(at), &mut ctl);
    }

    #[test]
    fn n_is_the_summed_gaps_over_the_interval_and_g_shares_the_residual() {
        // Two responsive flows at 2.5 Mb/s (1000 B every 3.2 ms) and one
        // unresponsive at 4 Mb/s over a 1 s interval on gamma C = 10 Mb/s:
        // N = 2 (eq. 148), g = (10 - 4)/2 = 3 Mb/s (eq. 133),
        // p = 1 - 10/9 (eq. 135).
        let mut j = JetMax::new(
            &JetMaxConfig {
                interval: SimDuration::from_secs(1),
                ..JetMaxConfig::default()
            },
            &test_ctx(C_BPS),
        )
        .unwrap();
        for _ in 0..2 * 312 {
            arrive(&mut j, &data(1000, 1, 0, 0.0032, 1000.0));
        }
        for _ in 0..500 {
            arrive(&mut j, &data(1000, 2, 0, 0.002, 1000.0));
        }
        end(&mut j, 1.0);
        let (p, g, n) = j.outputs().unwrap();
        let y = (624.0 + 500.0) * 1000.0;
        assert!((n - 624.0 * 0.0032).abs() < 1e-3, "{n}");
        assert!((g - (1.25e6 - 5e5) / n * 8.0).abs() < 1e-3, "{g}");
        assert!((p - (1.0 - 1.25e6 / y)).abs() < 1e-12);
    }

    #[test]
    fn proposals_count_by_their_virtual_size_and_decline_above_gamma_c() {
        // One responsive flow proposing 12 Mb/s (virtual 1500 B per 1000 B
        // packet at 8 Mb/s): y+ = 12 > 10 Mb/s, so p+ > 0 (declined).
        let mut j = JetMax::new(
            &JetMaxConfig {
                interval: SimDuration::from_secs(1),
                ..JetMaxConfig::default()
            },
            &test_ctx(C_BPS),
        )
        .unwrap();
        for _ in 0..1000 {
            arrive(&mut j, &data(1000, 1, 0, 0.001, 1500.0));
        }
        end(&mut j, 1.0);
        let (p, g, n) = j.outputs().unwrap();
        assert!((p - (1.0 - 10.0 / 12.0)).abs() < 1e-9);
        assert!((n - 1.0).abs() < 1e-6);
        assert!((g - 10e6).abs() < 10.0);
    }

    #[test]
    fn stamping_takes_the_larger_loss_or_at_zero_loss_the_smaller_share() {
        let mut j = JetMax::new(&JetMaxConfig::default(), &test_ctx(C_BPS)).unwrap();
        // No interval ended: the hop count moves, nothing is stamped.
        let mut pkt = data(1000, 1, 0, 0.001, 1000.0);
        j.stamp(&mut pkt);
        let CcHeader::JetMax(h) = pkt.cc else {
            panic!()
        };
        assert_eq!((h.rc, h.rs), (1, 0));
        j.out = Some(Outputs::new(0.005, 6e6, 3.0, false, false));
        j.seq = 9;
        // Larger loss than the header's -inf: stamped with this hop number.
        let mut pkt = data(1000, 1, 2, 0.001, 1000.0);
        j.stamp(&mut pkt);
        let CcHeader::JetMax(h) = pkt.cc else {
            panic!()
        };
        assert_eq!((h.p, h.g, h.rc, h.rs, h.seq), (0.005, 2e6, 3, 3, 9));
        // Both zero within the tolerance: the smaller share wins.
        let mut pkt = data(1000, 1, 0, 0.001, 1000.0);
        if let CcHeader::JetMax(h) = &mut pkt.cc {
            h.p = -0.002;
            h.g = 5e6;
            h.rs = 0;
        }
        j.stamp(&mut pkt);
        let CcHeader::JetMax(h) = pkt.cc else {
            panic!()
        };
        assert_eq!((h.g, h.rs), (2e6, 1));
        // A clearly larger loss upstream keeps its stamp.
        let mut pkt = data(1000, 1, 0, 0.001, 1000.0);
        if let CcHeader::JetMax(h) = &mut pkt.cc {
            h.p = 0.2;
            h.g = 9e6;
            h.rs = 1;
        }
        j.stamp(&mut pkt);
        let CcHeader::JetMax(h) = pkt.cc else {
            panic!()
        };
        assert_eq!((h.p, h.rs), (0.2, 1));
    }

    fn stamped(j: &mut JetMax, mut pkt: Packet) -> JetMaxHeader {
        j.stamp(&mut pkt);
        let CcHeader::JetMax(h) = pkt.cc else {
            panic!()
        };
        h
    }

    #[test]
    fn a_sparse_packet_counts_its_flow_until_its_next_packet() {
        // 1000 B every 0.8 s (10 kb/s) into 100-ms intervals, the packet
        // 50 ms into the first: its gap covers 0.05 + 7 x 0.1 + 0.05 s, so
        // N = 0.5, then 1 for seven intervals, 0.5, then 0 (eq. 148's
        // tiling; not N = 8 in one interval). The bytes count in the first
        // interval only, one interval's worth at the packet's rate (10
        // kb/s, not 80).
        let mut j = JetMax::new(&JetMaxConfig::default(), &test_ctx(C_BPS)).unwrap();
        let mut rng = LazyRng::new(1, 0, StreamKind::LinkAlgorithm, 0);
        j.on_arrival(&mut data(1000, 1, 0, 0.8, 1000.0), &view(0.05), &mut rng);
        end(&mut j, 0.1);
        let (p, g, n) = j.outputs().unwrap();
        assert!((n - 0.5).abs() < 1e-6, "{n}");
        assert!((g - 20e6).abs() < 1.0, "{g}");
        assert!((p - (1.0 - 10e6 / 1e4)).abs() < 1e-3, "{p}");
        let mut ns = Vec::new();
        for k in 2..=10 {
            end(&mut j, 0.1 * f64::from(k));
            ns.push(j.outputs().unwrap().2);
        }
        let want = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.0];
        for (got, want) in ns.iter().zip(want) {
            assert!((got - want).abs() < 1e-6, "{ns:?}");
        }
    }

    #[test]
    fn bytes_without_a_jetmax_header_are_unresponsive_load() {
        // One responsive 4-Mb/s flow (N = 1) and 250 40-B ACKs (0.8 Mb/s)
        // in 100 ms: u = 0.8 Mb/s (eq. 133's u = y - w), g = 10 - 0.8.
        let mut j = JetMax::new(&JetMaxConfig::default(), &test_ctx(C_BPS)).unwrap();
        for _ in 0..50 {
            arrive(&mut j, &data(1000, 1, 0, 0.002, 1000.0));
        }
        let ack = Packet::new(FlowId(1), RouteId(1), PacketKind::Ack, 40, SimTime::ZERO);
        for _ in 0..250 {
            arrive(&mut j, &ack);
        }
        end(&mut j, 0.1);
        let (p, g, n) = j.outputs().unwrap();
        assert!((n - 1.0).abs() < 1e-6, "{n}");
        assert!((g - 9.2e6).abs() < 1.0, "{g}");
        assert!((p - (1.0 - 10.0 / 4.8)).abs() < 1e-9, "{p}");
    }

    #[test]
    fn a_persistent_overload_without_responsive_flows_offers_minus_inf() {
        // 11 Mb/s of unresponsive data on gamma C = 10 Mb/s: 12,500 B
        // beyond gamma C per 100-ms interval, one interval's gamma C Delta
        // (125,000 B) exceeded in the 11th: +inf until then, -inf after.
        let mut j = JetMax::new(&JetMaxConfig::default(), &test_ctx(C_BPS)).unwrap();
        let mut g = Vec::new();
        for k in 1..=11 {
            for _ in 0..125 {
                arrive(&mut j, &data(1100, 2, 0, 0.0008, 1100.0));
            }
            end(&mut j, 0.1 * f64::from(k));
            g.push(j.outputs().unwrap().1);
        }
        assert!(g[..10].iter().all(|&g| g == f64::INFINITY), "{g:?}");
        assert_eq!(g[10], f64::NEG_INFINITY);
        // An interval with a responsive flow resets the sum.
        arrive(&mut j, &data(1000, 1, 0, 0.01, 1000.0));
        end(&mut j, 1.2);
        for _ in 0..125 {
            arrive(&mut j, &data(1100, 2, 0, 0.0008, 1100.0));
        }
        end(&mut j, 1.3);
        assert_eq!(j.outputs().unwrap().1, f64::INFINITY);
        // Exactly gamma C (packet noise around it) never triggers it.
        for k in 14..=100 {
            let n = if k % 2 == 0 { 124 } else { 126 };
            for _ in 0..n {
                arrive(&mut j, &data(1000, 2, 0, 0.0008, 1000.0));
            }
            end(&mut j, 0.1 * f64::from(k));
            assert_eq!(j.outputs().unwrap().1, f64::INFINITY);
        }
    }

    #[test]
    fn without_responsive_packets_only_a_responsive_flow_gets_the_spare_capacity() {
        let mut j = JetMax::new(&JetMaxConfig::default(), &test_ctx(C_BPS)).unwrap();
        // One unresponsive 4-Mb/s flow for the interval: N = 0.
        for _ in 0..50 {
            arrive(&mut j, &data(1000, 2, 0, 0.002, 1000.0));
        }
        end(&mut j, 0.1);
        // A packet responsive here (R_T = 1 after the increment) is the
        // one flow: g = gamma C - u = 6 Mb/s.
        let h = stamped(&mut j, data(1000, 1, 0, 0.8, 1000.0));
        assert_eq!(h.rs, 1);
        assert!((h.g - 6e6).abs() < 1.0, "{}", h.g);
        // An unresponsive one gets no share (+inf), as the paper's N = 0.
        let h = stamped(&mut j, data(1000, 2, 0, 0.002, 1000.0));
        assert_eq!((h.rs, h.g), (1, f64::INFINITY));
        // An empty interval: p = -inf, and a responsive packet, unstamped
        // so far, is stamped with the whole gamma C.
        end(&mut j, 0.2);
        let h = stamped(&mut j, data(1000, 1, 0, 0.8, 1000.0));
        assert_eq!((h.rs, h.p, h.g), (1, f64::NEG_INFINITY, 10e6));
    }
}
