//! Time to fairness on a link (`fair_s`): how long after the last of its flows
//! starts the flows crossing the link take to become epsilon-fair for good.
//!
//! Epsilon-fairness is seed 002's eq. 107: an allocation `(x_1, .., x_N)` is
//! epsilon-fair if `min_i x_i / max_j x_j >= 1 - epsilon` (the worst ratio
//! between any two flows; Theorem 12 counts EMKC's steps to it. JetMax's
//! Theorem 17 asks more, every rate within epsilon of its share, eq. 140:
//! the group metrics `send_rate_min_bps` / `send_rate_max_bps` check that).
//! Definitions:
//! - each flow's rate: its controller's rate averaged over the sample
//!   interval (`rate_avg_bps` of the `flow_rate` series) where its sender
//!   tracks it, else the point samples (`rate_bps`), else its received
//!   throughput over the interval (`throughput_bps`: window-based senders);
//! - smoothed by a trailing moving average over `average` seconds (the
//!   samples with time in `(t - average, t]`; `average = 0` keeps each sample
//!   alone), because a rate built of interleaved per-RTT sub-sequences (EMKC,
//!   x(n) from x(n - D)) swings from interval to interval long after its
//!   mean is fair;
//! - `t0`: the latest start among the link's flows; only sampling instants
//!   `t > t0` at which at least two of them have a sample count;
//! - `fair_s`: `t - t0` for the last such instant that is not epsilon-fair (0
//!   if there is none); undefined (no row) if the last instant is not fair,
//!   i.e. the flows never became fair for good before the run ended.
//!
//! The flows are all those crossing the link, as for the link's `jain`: on a
//! link that is not every flow's bottleneck, max-min fair rates differ and
//! the metric says so.

use std::collections::BTreeMap;

use sim_core::{FlowId, RunOutput, Subject};

/// The parameters of `fair_s` (`[run] fairness = { epsilon, average }`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FairnessSpec {
    /// Fair when the smallest rate is at least `1 - epsilon` of the largest.
    pub epsilon: f64,
    /// Length of the trailing moving average, seconds (0: none).
    pub average_s: f64,
}

impl Default for FairnessSpec {
    /// 1 %-fairness (the level of seed 002's convergence claims, e.g.
    /// Theorem 17's) of the samples as they are.
    fn default() -> Self {
        FairnessSpec {
            epsilon: 0.01,
            average_s: 0.0,
        }
    }
}

/// Each flow's sampled rate `(time, value)`, in time order.
pub type FlowRates = BTreeMap<FlowId, Vec<(f64, f64)>>;

/// Each flow's sampled rate, the best source per flow as the module says;
/// empty without the `flow_rate` series.
pub fn flow_rates(run: &RunOutput) -> FlowRates {
    // Per flow: rate_avg_bps, rate_bps, throughput_bps.
    let mut all: BTreeMap<FlowId, [Vec<(f64, f64)>; 3]> = BTreeMap::new();
    for p in &run.series {
        let Subject::Flow(id) = p.subject else {
            continue;
        };
        let k = match p.metric {
            "rate_avg_bps" => 0,
            "rate_bps" => 1,
            "throughput_bps" => 2,
            _ => continue,
        };
        if p.value.is_finite() {
            all.entry(id).or_default()[k].push((p.time, p.value));
        }
    }
    all.into_iter()
        .filter_map(|(id, sources)| sources.into_iter().find(|s| !s.is_empty()).map(|s| (id, s)))
        .collect()
}

/// A trailing moving average of `s` (time order) over `(t - average, t]`.
fn smoothed(s: &[(f64, f64)], average: f64) -> Vec<(f64, f64)> {
    if average <= 0.0 {
        return s.to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    let (mut lo, mut sum) = (0usize, 0.0);
    for (i, &(t, v)) in s.iter().enumerate() {
        sum += v;
        while s[lo].0 <= t - average {
            sum -= s[lo].1;
            lo += 1;
        }
        out.push((t, sum / (i + 1 - lo) as f64));
    }
    out
}

/// `fair_s` of the flows `flows` (id, start time in seconds), from their
/// sampled rates `rates` ([`flow_rates`]).
pub fn fair_time(rates: &FlowRates, flows: &[(FlowId, f64)], spec: FairnessSpec) -> Option<f64> {
    if flows.len() < 2 {
        return None;
    }
    let t0 = flows.iter().map(|f| f.1).reduce(f64::max)?;
    // time -> (min, max, count) over the flows sampled then; times are > t0
    // >= 0, so their bit patterns sort like the times.
    let mut at: BTreeMap<u64, (f64, f64, usize)> = BTreeMap::new();
    for (id, _) in flows {
        let Some(s) = rates.get(id) else {
            continue;
        };
        for (t, v) in smoothed(s, spec.average_s) {
            if t <= t0 {
                continue;
            }
            let e = at
                .entry(t.to_bits())
                .or_insert((f64::INFINITY, f64::NEG_INFINITY, 0));
            e.0 = e.0.min(v);
            e.1 = e.1.max(v);
            e.2 += 1;
        }
    }
    let fair = |&(lo, hi, _): &(f64, f64, usize)| hi > 0.0 && lo >= (1.0 - spec.epsilon) * hi;
    let instants: Vec<(f64, bool)> = at
        .iter()
        .filter(|(_, e)| e.2 >= 2)
        .map(|(t, e)| (f64::from_bits(*t), fair(e)))
        .collect();
    let last = instants.last()?;
    if !last.1 {
        return None;
    }
    Some(
        instants
            .iter()
            .rev()
            .find(|i| !i.1)
            .map_or(0.0, |i| i.0 - t0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
        points.to_vec()
    }

    #[test]
    fn the_last_unfair_instant_after_the_join_sets_the_time() {
        // x1 holds 10; x2 joins at 5 and climbs 2, 6, 9.95, 10 (eq. 107 with
        // epsilon 0.01: fair from 9.95, since 9.95 / 10 = 0.995).
        let mut r = BTreeMap::new();
        r.insert(
            FlowId(0),
            series(&[
                (5.5, 10.0),
                (6.0, 10.0),
                (6.5, 10.0),
                (7.0, 10.0),
                (7.5, 10.0),
            ]),
        );
        r.insert(
            FlowId(1),
            series(&[
                (5.5, 2.0),
                (6.0, 6.0),
                (6.5, 9.95),
                (7.0, 10.0),
                (7.5, 10.0),
            ]),
        );
        let flows = [(FlowId(0), 0.0), (FlowId(1), 5.0)];
        let t = fair_time(&r, &flows, FairnessSpec::default()).unwrap();
        assert!((t - 1.0).abs() < 1e-12, "{t}");
        // With epsilon 0.5 only 2 / 10 is unfair: 0.5 s after the join.
        let loose = FairnessSpec {
            epsilon: 0.5,
            average_s: 0.0,
        };
        assert!((fair_time(&r, &flows, loose).unwrap() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn never_fair_at_the_end_is_undefined_and_always_fair_is_zero() {
        let mut r = BTreeMap::new();
        r.insert(FlowId(0), series(&[(1.0, 10.0), (2.0, 10.0)]));
        r.insert(FlowId(1), series(&[(1.0, 10.0), (2.0, 5.0)]));
        let flows = [(FlowId(0), 0.0), (FlowId(1), 0.0)];
        assert_eq!(fair_time(&r, &flows, FairnessSpec::default()), None);
        r.insert(FlowId(1), series(&[(1.0, 10.0), (2.0, 10.0)]));
        assert_eq!(fair_time(&r, &flows, FairnessSpec::default()), Some(0.0));
        // One flow alone has no pair to compare: undefined.
        assert_eq!(fair_time(&r, &flows[..1], FairnessSpec::default()), None);
    }

    #[test]
    fn the_moving_average_evens_out_an_alternating_rate() {
        // x1 alternates 4 / 6 around x2's steady 5: unfair sample by sample
        // (4 / 6 = 0.67), but the 2-sample mean is 5 from the second sample on.
        let alt: Vec<(f64, f64)> = (1..=10)
            .map(|k| (f64::from(k) * 0.5, if k % 2 == 1 { 4.0 } else { 6.0 }))
            .collect();
        let flat: Vec<(f64, f64)> = (1..=10).map(|k| (f64::from(k) * 0.5, 5.0)).collect();
        let mut r = BTreeMap::new();
        r.insert(FlowId(0), alt);
        r.insert(FlowId(1), flat);
        let flows = [(FlowId(0), 0.0), (FlowId(1), 0.0)];
        assert_eq!(fair_time(&r, &flows, FairnessSpec::default()), None);
        let avg = FairnessSpec {
            epsilon: 0.01,
            average_s: 1.0,
        };
        // (t - 1, t] holds two samples from t = 1; t = 0.5 holds one (4).
        assert_eq!(fair_time(&r, &flows, avg), Some(0.5));
    }

    #[test]
    fn the_best_rate_source_is_chosen_per_flow() {
        use sim_core::SeriesPoint;
        let f = |id| Subject::Flow(FlowId(id));
        let series = vec![
            SeriesPoint::new(1.0, f(0), "rate_bps", 1.0),
            SeriesPoint::new(1.0, f(0), "rate_avg_bps", 2.0),
            SeriesPoint::new(1.0, f(0), "throughput_bps", 3.0),
            SeriesPoint::new(1.0, f(1), "throughput_bps", 4.0),
            SeriesPoint::new(1.0, f(1), "cwnd_bytes", 5.0),
        ];
        let run = RunOutput {
            replication: 0,
            seed: 1,
            events: 0,
            end_secs: 2.0,
            window_secs: 1.0,
            flows: Vec::new(),
            links: Vec::new(),
            routes: Vec::new(),
            series,
            objects: Vec::new(),
            pages: Vec::new(),
            overload: None,
            closed_flows: 0,
            link_changes: Vec::new(),
        };
        let r = flow_rates(&run);
        assert_eq!(r[&FlowId(0)], vec![(1.0, 2.0)]);
        assert_eq!(r[&FlowId(1)], vec![(1.0, 4.0)]);
    }
}
