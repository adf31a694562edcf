//! Unit tests of `jetmax`.

use super::*;
use sim_core::SimDuration;

fn hdr(p: f64, g: f64, rt: u8, rs: u8, seq: u16, rate_bps: f64, prop_bps: f64) -> AckInfo {
    let s = 1000.0;
    AckInfo {
        cc: CcHeader::JetMax(JetMaxHeader {
            p,
            g,
            gap: (s * 8.0 / rate_bps) as f32,
            size_plus: (s * prop_bps / rate_bps) as f32,
            seq,
            rt,
            rc: 3,
            rs,
            declined: p >= 0.0,
        }),
        ..AckInfo::segment(1000, SimDuration::from_millis(100))
    }
}

fn naive() -> JetMaxCc {
    JetMaxCc::new(
        &JetMaxCcConfig {
            switch: JetMaxSwitch::Naive,
            proposals: false,
            ..JetMaxCcConfig::default()
        },
        1000,
    )
    .unwrap()
}

#[test]
fn the_source_law_is_an_ewma_toward_the_fair_share() {
    // eq. 134: x = (1 - tau) x(n - D) + tau g, tau = 0.6; x(n - D) is the
    // echoed rate (4 Mb/s), g = 9 Mb/s: 0.4*4 + 0.6*9 = 7 Mb/s.
    let mut c = naive();
    c.on_ack(&hdr(-0.5, 9e6, 0, 1, 1, 4e6, 4e6));
    assert_eq!(c.bottleneck(), 1);
    let want = 0.4 * f64::from((8000.0 / 4e6) as f32).recip() * 8000.0 + 0.6 * 9e6;
    assert!((c.rate - want).abs() < 1.0, "{} vs {want}", c.rate);
    // A duplicate of interval 1 changes nothing.
    c.on_ack(&hdr(-0.5, 1e6, 1, 1, 1, 4e6, 4e6));
    assert!((c.rate - want).abs() < 1.0);
}

#[test]
fn an_ignored_ack_from_an_overloaded_router_still_cuts_the_rate() {
    let mut c = JetMaxCc::new(&JetMaxCcConfig::default(), 1000).unwrap();
    // On hop 1 at 30 Mb/s.
    (c.rt, c.rate, c.proposed) = (1, 3e7, 3e7);
    // Hop 2, overloaded (p = 0.2 > tol), suggests a switch with share
    // 10 Mb/s: the ACK is the switch's, ignored, but the rate is cut
    // to 0.4 * 30 + 0.6 * 10 = 18 Mb/s.
    c.on_ack(&hdr(0.2, 1e7, 1, 2, 1, 3e7, 3e7));
    assert_eq!(c.bottleneck(), 2);
    assert!((c.rate - 1.8e7).abs() < 1e3, "{}", c.rate);
    // A stale ACK (sent under hop 1) from an overloaded hop 1 with a
    // larger share cuts nothing; neither does an underloaded one.
    c.on_ack(&hdr(0.2, 2.5e7, 1, 1, 3, 3e7, 3e7));
    c.on_ack(&hdr(-0.2, 1e6, 1, 1, 4, 3e7, 3e7));
    assert!((c.rate - 1.8e7).abs() < 1e3, "{}", c.rate);
}

#[test]
fn after_a_switch_the_first_fresh_ack_and_stale_acks_are_ignored() {
    let mut c = JetMaxCc::new(
        &JetMaxCcConfig {
            proposals: false,
            ..JetMaxCcConfig::default()
        },
        1000,
    )
    .unwrap();
    let r0 = c.rate;
    c.on_ack(&hdr(-0.5, 9e6, 0, 2, 1, 1e5, 1e5)); // switch to hop 2
    assert_eq!((c.bottleneck(), c.rate), (2, r0));
    c.on_ack(&hdr(-0.5, 9e6, 0, 2, 2, 1e5, 1e5)); // sent before the switch
    assert_eq!(c.rate, r0);
    c.on_ack(&hdr(-0.5, 9e6, 2, 2, 3, 1e5, 1e5)); // first of the new assignment
    assert_eq!(c.rate, r0);
    c.on_ack(&hdr(-0.5, 9e6, 2, 2, 4, 1e5, 1e5));
    assert!(c.rate > 5e6);
}

#[test]
fn an_initial_bottleneck_saves_the_adoption_round_trip() {
    let cfg = |init_rt| JetMaxCcConfig {
        init_rt,
        ..JetMaxCcConfig::default()
    };
    // The first three stamped ACKs of a flow at 100 kb/s, from hop 1.
    // Their packets carried R_T = init_rt.
    let mut first = JetMaxCc::new(&cfg(1), 1000).unwrap();
    let mut none = JetMaxCc::new(&cfg(0), 1000).unwrap();
    for seq in 1..=3 {
        first.on_ack(&hdr(-0.5, 9e6, 1, 1, seq, 1e5, 1e5));
        none.on_ack(&hdr(-0.5, 9e6, 0, 1, seq, 1e5, 1e5));
    }
    // init_rt = 1: no switch; interval 1 (the first packet's) is
    // covered from the start, so the stamp of interval 3 judges interval
    // 2 and gives the first proposal, 0.4 * 0.1 + 0.6 * 9 Mb/s.
    assert_eq!(first.bottleneck(), 1);
    let want = 0.4 * 8000.0 / f64::from((8000.0 / 1e5) as f32) + 0.6 * 9e6;
    assert!(
        (first.proposed() - want).abs() < 1.0,
        "{}",
        first.proposed()
    );
    assert_eq!(first.rate, 1e5);
    // init_rt = 0: the first ACK is an adoption (a switch) and the
    // packets sent before it describe no assignment: nothing proposed.
    assert_eq!(none.bottleneck(), 1);
    assert_eq!((none.rate, none.proposed()), (1e5, 1e5));
}

#[test]
fn a_verdict_lag_of_one_steps_an_interval_earlier() {
    let run = |verdict_lag| {
        let cfg = JetMaxCcConfig {
            switch: JetMaxSwitch::Naive,
            verdict_lag,
            ..JetMaxCcConfig::default()
        };
        let mut c = JetMaxCc::new(&cfg, 1000).unwrap();
        (c.rt, c.rate, c.proposed) = (1, 2e6, 2e6);
        // The current proposal first reached the router in interval 1;
        // the stamps of interval 2 judge interval 1, those of 3 judge 2.
        c.on_ack(&hdr(-0.1, 10e6, 1, 1, 1, 2e6, 2e6));
        c.on_ack(&hdr(-0.1, 10e6, 1, 1, 2, 2e6, 2e6));
        c.proposed()
    };
    // Eq. 134 from the echoed rate (the gap travels as an f32).
    let (tau, echo) = (default_tau(), 8000.0 / f64::from((8000.0 / 2e6) as f32));
    let step = (1.0 - tau) * echo + tau * 10e6;
    assert!((run(1) - step).abs() < 2.0, "{}", run(1));
    assert_eq!(run(2), 2e6);
    let bad = JetMaxCcConfig {
        verdict_lag: 0,
        ..JetMaxCcConfig::default()
    };
    assert!(JetMaxCc::new(&bad, 1000).is_err());
}

/// `hdr` with the flags byte's verdict set apart from the stamped `p`
/// (another router on the path declined).
fn with_declined(mut a: AckInfo, declined: bool) -> AckInfo {
    if let CcHeader::JetMax(h) = &mut a.cc {
        h.declined = declined;
    }
    a
}

#[test]
fn a_proposal_is_applied_only_on_a_verdict_about_it_and_a_decrease_at_once() {
    let mut c = JetMaxCc::new(
        &JetMaxCcConfig {
            switch: JetMaxSwitch::Naive,
            ..JetMaxCcConfig::default()
        },
        1000,
    )
    .unwrap();
    (c.rt, c.rate, c.proposed) = (1, 2e6, 2e6);
    let echo = |r: f64| 8000.0 / f64::from((8000.0 / r) as f32);
    let close = |a: f64, b: f64| (a - b).abs() < 2.0;
    // Every step waits for a verdict on an interval that the current
    // proposal covered: the first packet that carried it came back
    // stamped in interval 1, so interval 1 is mixed and interval 2 the
    // first covered, judged by the stamps of interval 3.
    c.on_ack(&hdr(-0.1, 10e6, 1, 1, 1, 2e6, 2e6));
    c.on_ack(&hdr(-0.1, 10e6, 1, 1, 2, 2e6, 2e6));
    assert_eq!((c.rate, c.proposed()), (2e6, 2e6));
    // Not increasing, covered: eq. 134 from the echoed rate, 0.4 * 2 +
    // 0.6 * 10 = 6.8 Mb/s, proposed, not yet applied.
    c.on_ack(&hdr(-0.1, 10e6, 1, 1, 3, 2e6, 2e6));
    let p1 = 0.4 * echo(2e6) + 0.6 * 10e6;
    assert_eq!(c.rate, 2e6);
    assert!(close(c.proposed(), p1), "{}", c.proposed());
    // An approval of interval 3, whose packets carried the old
    // proposal (issue 10): not applied.
    c.on_ack(&hdr(-0.1, 10e6, 1, 1, 4, 2e6, 2e6));
    assert_eq!(c.rate, 2e6);
    // The first packet that carried 6.8 Mb/s came back stamped in
    // interval 5: interval 5 is mixed, interval 6 covered.
    c.on_ack(&hdr(-0.1, 10e6, 1, 1, 5, 2e6, p1));
    c.on_ack(&hdr(-0.1, 10e6, 1, 1, 6, 2e6, p1));
    assert_eq!(c.rate, 2e6);
    // Interval 6 declined by another router on the path (the stamp's
    // own p+ is negative): not applied, the same proposal again, and
    // the next interval still covered by it.
    c.on_ack(&with_declined(hdr(-0.1, 10e6, 1, 1, 7, 2e6, p1), true));
    assert_eq!(c.rate, 2e6);
    assert!(close(c.proposed(), p1));
    // Approved: the proposal becomes the rate and the base of the next.
    c.on_ack(&hdr(-0.1, 10e6, 1, 1, 8, 2e6, p1));
    assert!(close(c.rate, p1), "{}", c.rate);
    let p2 = 0.4 * c.rate + 0.6 * 10e6;
    assert!(close(c.proposed(), p2));
    // A lower share on the first verdict about p2, declined: a
    // decrease needs no approval (from the echoed rate), and the
    // proposal follows.
    c.on_ack(&hdr(-0.1, 1e6, 1, 1, 9, p1, p2));
    c.on_ack(&hdr(-0.1, 1e6, 1, 1, 10, p1, p2));
    assert!(close(c.rate, p1));
    c.on_ack(&hdr(0.01, 1e6, 1, 1, 11, p1, p2));
    let low = 0.4 * echo(p1) + 0.6 * 1e6;
    assert!(close(c.rate, low) && c.proposed() == c.rate, "{}", c.rate);
    // A late approval of the p2 proposal does not undo it.
    c.on_ack(&hdr(-0.1, 10e6, 1, 1, 12, p1, p2));
    assert!(c.rate <= low + 1e-6, "{} > {low}", c.rate);
}

#[test]
fn a_suggestion_above_the_rate_or_without_a_share_does_not_wait() {
    let mut c = naive();
    c.on_ack(&hdr(-0.5, 2e6, 0, 1, 1, 1e5, 1e5));
    assert_eq!(c.bottleneck(), 1);
    let r = c.rate;
    assert!(!c.stationary);
    // A tie-break suggestion (|p| <= 0.05) whose share is above the
    // rate, before stationarity: no switch, no step, and the source
    // now counts as stationary ...
    c.on_ack(&hdr(0.01, 20e6, 1, 2, 1, r, r));
    assert_eq!((c.bottleneck(), c.rate), (1, r));
    assert!(c.stationary);
    // ... so the next one switches.
    c.on_ack(&hdr(0.01, 20e6, 1, 2, 2, r, r));
    assert_eq!(c.bottleneck(), 2);
    // A suggestion without a share (+inf) switches at once.
    let mut c = naive();
    c.on_ack(&hdr(-0.5, 2e6, 0, 1, 1, 1e5, 1e5));
    assert!(!c.stationary);
    c.on_ack(&hdr(0.02, f64::INFINITY, 1, 2, 1, 1e5, 1e5));
    assert_eq!(c.bottleneck(), 2);
}

#[test]
fn a_tie_break_suggestion_waits_for_stationarity() {
    let mut c = naive();
    c.on_ack(&hdr(-0.5, 9e6, 0, 1, 1, 1e5, 1e5));
    assert_eq!(c.bottleneck(), 1);
    // |p| within the tolerance at another hop while the rate still moves:
    // stay, but follow that hop's (smaller) share.
    c.on_ack(&hdr(0.001, 1e6, 1, 2, 1, 1e5, 1e5));
    assert_eq!(c.bottleneck(), 1);
    let echoed = 8000.0 / f64::from((8000.0 / 1e5) as f32);
    assert!(
        (c.rate - (0.4 * echoed + 0.6 * 1e6)).abs() < 1.0,
        "{}",
        c.rate
    );
    // A clearly larger loss elsewhere switches at once.
    c.on_ack(&hdr(0.3, 1e6, 1, 3, 1, 1e5, 1e5));
    assert_eq!(c.bottleneck(), 3);
}

#[test]
fn the_literal_ignore_first_skips_one_fresh_ack_after_the_switch_only() {
    let cfg = JetMaxCcConfig {
        switch: JetMaxSwitch::IgnoreFirstLiteral,
        proposals: false,
        ..JetMaxCcConfig::default()
    };
    let mut c = JetMaxCc::new(&cfg, 1000).unwrap();
    let echo = |r: f64| 8000.0 / f64::from((8000.0 / r) as f32);
    // The suggesting ACK switches to hop 2 and is reacted to, as naive.
    c.on_ack(&hdr(-0.5, 9e6, 0, 2, 1, 1e5, 1e5));
    assert_eq!(c.bottleneck(), 2);
    let r1 = 0.4 * echo(1e5) + 0.6 * 9e6;
    assert!((c.rate - r1).abs() < 1.0, "{}", c.rate);
    // The next fresh ACK is ignored although it is overloaded (no cut)
    // ...
    c.on_ack(&hdr(0.3, 1e6, 0, 2, 2, 1e5, 1e5));
    assert!((c.rate - r1).abs() < 1.0, "{}", c.rate);
    // ... and the one after is reacted to, although its packet was
    // sent before the switch (R_T = 0).
    c.on_ack(&hdr(-0.5, 2e6, 0, 2, 3, 1e5, 1e5));
    let r3 = 0.4 * echo(1e5) + 0.6 * 2e6;
    assert!((c.rate - r3).abs() < 1.0, "{}", c.rate);
    // A switch on the ACK that was to be ignored re-arms the rule.
    c.on_ack(&hdr(0.2, 1e6, 2, 3, 1, 1e5, 1e5));
    assert_eq!(c.bottleneck(), 3);
    c.on_ack(&hdr(0.4, 1e6, 3, 1, 1, 1e5, 1e5));
    assert_eq!(c.bottleneck(), 1);
    let r = c.rate;
    c.on_ack(&hdr(-0.5, 5e6, 1, 1, 2, 1e5, 1e5));
    assert_eq!(c.rate, r);
    c.on_ack(&hdr(-0.5, 5e6, 1, 1, 3, 1e5, 1e5));
    assert!(c.rate != r);
}

#[test]
fn under_the_paper_rule_only_a_zero_loss_suggestion_waits_for_stationarity() {
    let cfg = |bottleneck_rule| JetMaxCcConfig {
        switch: JetMaxSwitch::Naive,
        proposals: false,
        bottleneck_rule,
        ..JetMaxCcConfig::default()
    };
    for (rule, p, waits) in [
        (BottleneckRule::Hysteresis, 0.01, true),
        (BottleneckRule::Paper, 0.01, false),
        (BottleneckRule::Paper, -0.01, false),
        (BottleneckRule::Paper, 0.0, true),
    ] {
        let mut c = JetMaxCc::new(&cfg(rule), 1000).unwrap();
        c.on_ack(&hdr(-0.5, 9e6, 0, 1, 1, 1e5, 1e5));
        assert!(!c.stationary);
        c.on_ack(&hdr(p, 1e6, 1, 2, 1, 1e5, 1e5));
        let want = if waits { 1 } else { 2 };
        assert_eq!(c.bottleneck(), want, "{rule:?} p = {p}");
    }
}

#[test]
fn stamping_carries_the_gap_at_the_actual_rate_and_the_virtual_size() {
    let mut c = JetMaxCc::new(&JetMaxCcConfig::default(), 1000).unwrap();
    c.rate = 8e6;
    c.proposed = 12e6;
    c.rt = 2;
    let mut h = CcHeader::None;
    c.stamp(SimTime::ZERO, 1000, &mut h);
    let CcHeader::JetMax(h) = h else { panic!() };
    assert_eq!((h.gap, h.size_plus, h.rt, h.rc), (0.001, 1500.0, 2, 0));
}
