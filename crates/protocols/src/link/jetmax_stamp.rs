//! JetMax's bottleneck selection (seed 002, Zhang, ch. VI §6.2, eqs.
//! 135-136): whether a router's `(p, g)` replaces the one a packet's
//! header carries. [`super::jetmax`] stamps with it; the source
//! (`cc::jetmax`) uses [`both_zero`] to tell a tie-break suggestion.
//!
//! Provenance (spec `seed-002-zhang.md` §2.7, §7 items 5-7):
//! - [PAPER] the larger loss `p` wins; if both are zero, the smaller
//!   share `g` (eq. 136).
//! - [INFERRED, UNSPECIFIED] "p = 0" is `|p| <= p_tolerance` (default
//!   0.05). With proposed rates a saturated link's `p+` sits just above 0
//!   in every interval whose proposals it declines, by the over-proposal
//!   of that interval (stale `u+`, per-interval packet quantisation); a
//!   flow bottlenecked elsewhere that crosses it then sees the larger `p`
//!   and switches to it, the link's fair share drops for everyone there,
//!   and the flow switches back. Measured on random 2-3-hop parking lots
//!   (10-50 Mb/s, 1-3 flows per hop, RTTs 10-200 ms, tests/zhang_props.rs):
//!   with 0.01, 4 of 19 runs with proposals ended 3-9 % below the max-min
//!   share after such flaps; with 0.02 and 0.05, none. Without proposals
//!   the choice made no difference. A later 200-case run with 0.02 found
//!   one (30 and 10 Mb/s hops, 2 long flows, 2 cross flows on the first:
//!   long flows at 4.28 instead of 5 Mb/s; 4.99 with 0.05).
//! - [INFERRED] two losses within `p_tolerance` of each other are told
//!   apart by the share too (smaller `g` wins; on a full tie the upstream
//!   stamp stays), not only at zero: two underutilised links that carry
//!   the same flows have losses that differ by per-interval packet noise,
//!   and "the larger p" then named one or the other from interval to
//!   interval. Each switch costs the source an RTT of ignored ACKs (§6.3),
//!   and one flow alone over two equal 20 Mb/s hops never took a step:
//!   stuck at 10.5 Mb/s for 80 s (tests/zhang_props.rs parking lot). With
//!   the band the router where the flow is responsive (finite `g`) keeps
//!   the stamp over the one where it is not (`g = +inf`, below). Two
//!   equal shares (both `+inf` when neither router has a responsive flow
//!   yet, as at a flow's first packet) fall back to the larger loss: with
//!   the upstream stamp kept instead, E6.2's long flow took R1 (400 Mb/s,
//!   load 0.0003) over R2 (100 Mb/s, load 0.001) at start-up, ramped on
//!   R1's 745-Mb/s share and overflowed R2 (401 drops instead of 53).
//! - [INFERRED] the flow's current bottleneck (`R_T`) keeps the stamp
//!   against a router that is not overloaded (`p <= p_tolerance`) and
//!   whose finite share is larger than the current one's, whatever the
//!   two losses: the flow already gets less than that router's responsive
//!   flows, so in the max-min sense that router is not its bottleneck.
//!   eq. 136 says this for two zero losses; the paper's "larger p" rule
//!   otherwise hands the stamp to the busier link even when its share is
//!   the larger, and a bottleneck whose own flows are still ramping (its
//!   `N` counts them as whole flows, so it runs below capacity) loses its
//!   flows to a full link upstream. Measured on a parking lot of 50, 30
//!   and 10 Mb/s hops (2 long flows, cross flows 2/3/1, proposals): the
//!   long flows left the 10 Mb/s hop for a full upstream one (share 20
//!   Mb/s) whenever it dipped, proposed 5.5 Mb/s there, and their declined
//!   proposals in the 10 Mb/s hop's `u+` held its joining flow at 0.1
//!   instead of 3.33 Mb/s; with the rule every flow is at its max-min
//!   share. In E6.2's R2 phase the long flow flipped to R1's share 17
//!   times in a minute (8945 drops at R2); with the rule it stays at R2's
//!   share (1.80 Mb/s) without a drop. A router without responsive flows
//!   (`g = +inf`) has no share to compare and does not trigger the rule:
//!   with it, R1 kept E6.2's long flow at a 166 Mb/s share while R2
//!   overflowed. [INFERRED] It does when it is clearly underloaded
//!   (`p < -p_tolerance`): such a router is nobody's bottleneck and has
//!   nothing to offer the flow. Without it one flow over two equal 20 Mb/s
//!   hops with proposals went on switching: the upstream hop, a few
//!   packets ahead while the flow ramps, showed the larger (negative)
//!   loss and no share, the flow switched to it at once, the other hop
//!   then had no responsive flow, and so on (4.9 of 20 Mb/s).

/// Whether two losses both count as zero (the paper's tie-break condition).
#[inline]
pub fn both_zero(a: f64, b: f64, tol: f64) -> bool {
    a.abs() <= tol && b.abs() <= tol
}

/// One side of the stamping comparison: a loss, a share (bits/s) and
/// whether the router is the flow's current bottleneck (`R_T`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Stamp {
    /// Loss `p+`.
    pub p: f64,
    /// Fair share `g+`, bits/s.
    pub g: f64,
    /// The router is the flow's `R_T`.
    pub current: bool,
}

/// The load `y / (gamma C)` of a loss `p = 1 - gamma C / y` (0 for an
/// empty interval's `-inf`).
#[inline]
fn load(p: f64) -> f64 {
    1.0 / (1.0 - p)
}

/// Whether a router's stamp replaces the header's: the larger loss; when
/// both losses are zero (within `tol`, eq. 136) the smaller share; the
/// flow's current bottleneck against a router not overloaded whose finite
/// share is larger (`current_holds`); when the loads `1 / (1 - p)` are
/// within `tol` of each other but the losses not both zero (links that are
/// not yet saturated, told apart only by per-interval noise: at start-up
/// one packet more or less moves `p` from -124 to -92) the flow's current
/// bottleneck, else the smaller share and, between equal shares, the
/// larger loss; on a full tie the upstream stamp stays.
#[inline]
pub fn stamp_wins(mine: Stamp, header: Stamp, tol: f64) -> bool {
    if both_zero(mine.p, header.p, tol) {
        mine.g < header.g
    } else if let Some(current_wins) = current_holds(mine, header, tol) {
        current_wins
    } else if (load(mine.p) - load(header.p)).abs() <= tol {
        match (mine.current, header.current) {
            (true, _) => true,
            (false, true) => false,
            // Equal shares (both +inf at start-up, when neither router
            // has a responsive flow yet): the larger loss, as eq. 136.
            (false, false) if mine.g == header.g => mine.p > header.p,
            (false, false) => mine.g < header.g,
        }
    } else {
        mine.p > header.p
    }
}

/// The flow's current bottleneck keeps the stamp against a router that
/// is not overloaded (`p <= tol`) and offers a larger finite share, or
/// that is underloaded (`p < -tol`) without responsive flows (`g = +inf`):
/// `Some(true)` if `mine` is that current router, `Some(false)` if the
/// header's is, `None` when the rule does not apply.
#[inline]
fn current_holds(mine: Stamp, header: Stamp, tol: f64) -> Option<bool> {
    let holds = |cur: Stamp, other: Stamp| {
        cur.current
            && ((other.p <= tol && other.g.is_finite() && cur.g < other.g)
                || (other.p < -tol && other.g == f64::INFINITY))
    };
    if holds(mine, header) {
        Some(true)
    } else if holds(header, mine) {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_loads_keep_the_current_bottleneck_or_take_the_smaller_share() {
        let st = |p: f64, g: f64, current: bool| Stamp { p, g, current };
        let inf = f64::INFINITY;
        // (router's stamp, header's stamp, whether the router's wins),
        // tolerance 0.05.
        #[rustfmt::skip]
        let cases = [
            // Clearly different loads: the larger loss wins, shares aside
            // (unless the current bottleneck holds, below).
            (st(-0.28, 9e6, false), st(-0.40, 1e6, false), true),
            (st(-0.40, 1e6, false), st(-0.28, 9e6, false), false),
            (st(-0.28, 1e6, false), st(-0.40, 9e6, true), true),
            // Loads 0.781 and 0.769 (p -0.28 and -0.30), not both zero: the
            // flow's current bottleneck wins either way ...
            (st(-0.28, 9e6, true), st(-0.30, 1e6, false), true),
            (st(-0.28, 1e6, false), st(-0.30, 9e6, true), false),
            // ... and between two others the smaller share, then the larger
            // loss; a full tie leaves the upstream stamp.
            (st(-0.28, 1e6, false), st(-0.30, 9e6, false), true),
            (st(-0.28, 9e6, false), st(-0.30, 9e6, false), true),
            (st(-0.30, 9e6, false), st(-0.30, 9e6, false), false),
            // Start-up: p = -124 and -92.75 are loads 0.008 and 0.011, one
            // packet apart: the current bottleneck keeps the stamp.
            (st(-92.75, 9e6, false), st(-124.0, 9e6, true), false),
            // Start-up, before either router has a responsive flow (both
            // shares +inf): the larger loss, as eq. 136. E6.2's first packet
            // sees p = -3724 at R1 (400 Mb/s) and -999 at R2 (100 Mb/s); R2,
            // the link the flow fills first, must win (R1 kept it as the
            // upstream stamp, and the flow ramped on R1's 745-Mb/s share
            // into 401 drops at R2).
            (st(-999.0, inf, false), st(-3724.0, inf, false), true),
            (st(-3724.0, inf, false), st(-999.0, inf, false), false),
            // Both zero (eq. 136): the smaller share, whoever is current.
            (st(0.01, 1e6, false), st(-0.02, 9e6, true), true),
            (st(0.01, 9e6, true), st(-0.02, 1e6, false), false),
            // The current bottleneck, underfilled (p = -0.2), keeps the stamp
            // against a full router (p = 0.002, zero band) with a larger
            // share, and against one slightly over (0.04 <= tol) ...
            (st(-0.2, 3.3e6, true), st(0.002, 2e7, false), true),
            (st(0.04, 2e7, false), st(-0.2, 3.3e6, true), false),
            // ... but not against an overloaded one, one with a smaller
            // share, or one without responsive flows (g = +inf) in the zero
            // band.
            (st(0.06, 2e7, false), st(-0.2, 3.3e6, true), true),
            (st(0.002, 3e6, false), st(-0.2, 3.3e6, true), true),
            (st(0.0, inf, false), st(-0.1, 1.66e8, true), true),
            // An underloaded router without responsive flows (p < -tol, g =
            // +inf) is nobody's bottleneck: the current one keeps the stamp
            // although its load (0.77) is the smaller.
            (st(-0.1, inf, false), st(-0.3, 5e6, true), false),
            (st(-0.3, 5e6, true), st(-0.1, inf, false), true),
            // An empty interval (p = -inf, load 0) against a loaded one.
            (st(f64::NEG_INFINITY, 9e6, true), st(-0.5, 9e6, false), false),
        ];
        for (i, (mine, header, wins)) in cases.into_iter().enumerate() {
            assert_eq!(
                stamp_wins(mine, header, 0.05),
                wins,
                "case {i}: {mine:?} vs {header:?}"
            );
        }
    }
}
