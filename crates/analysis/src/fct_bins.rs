//! Flow completion times by flow size: the `fct_bins` table.
//!
//! Data-centre transport studies report completion times per size class
//! (small flows' tail latency, large flows' throughput: Alizadeh et al.,
//! "pFabric", SIGCOMM 2013, Fig. 5; the slowdown of Montazeri et al.,
//! "Homa", SIGCOMM 2018): the mean hides both. Each finite flow that
//! finished falls in one size bin (edges from `[run] fct_bins`, default
//! decades from 10 KB to 10 MB: bin k holds sizes in `[edge_{k-1},
//! edge_k)`); per group, bin and replication the table's statistics are
//! computed over the bin's flows, then summarised across replications as the
//! summary table is: `n` replications that define it, mean, sample standard
//! deviation and the 95 % Student-t half-width.
//!
//! Statistics: `flows` (finished flows in the bin; a replication with none
//! counts 0), `fct_mean_s`, `fct_p50_s`, `fct_p90_s`, `fct_p99_s` (type 7
//! quantiles, [`crate::stats::quantile`]), `slowdown_mean`, `slowdown_p99`
//! ([`sim_core::FlowReport::slowdown`]); the others are defined in the
//! replications whose bin holds a flow. Cost: one pass over the flows and a
//! sort per bin, O(flows log flows).

use std::collections::BTreeMap;

use polars::prelude::{DataFrame, PolarsResult};

use crate::stats::{quantile, Summary};
use crate::tables::{col, RunSet};

/// The default bin edges, bytes: 10 KB, 100 KB, 1 MB, 10 MB.
pub const DEFAULT_EDGES: [u64; 4] = [10_000, 100_000, 1_000_000, 10_000_000];

/// The statistics of a bin, in table order.
pub const FCT_BIN_METRICS: [&str; 7] = [
    "flows",
    "fct_mean_s",
    "fct_p50_s",
    "fct_p90_s",
    "fct_p99_s",
    "slowdown_mean",
    "slowdown_p99",
];

/// One replication's finished flows of one (group, bin): completion times
/// and slowdowns.
#[derive(Default)]
struct Cell {
    fct: Vec<f64>,
    slowdown: Vec<f64>,
}

impl Cell {
    /// The bin's statistics in [`FCT_BIN_METRICS`] order (`None`: undefined).
    fn stats(&self) -> [Option<f64>; 7] {
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        [
            Some(self.fct.len() as f64),
            mean(&self.fct),
            quantile(&self.fct, 0.5),
            quantile(&self.fct, 0.9),
            quantile(&self.fct, 0.99),
            mean(&self.slowdown),
            quantile(&self.slowdown, 0.99),
        ]
    }
}

/// The `fct_bins` table of `set` with bin `edges` (bytes, increasing; empty:
/// [`DEFAULT_EDGES`]): group, size_min_bytes, size_max_bytes (null for the
/// last, open bin), metric, n, mean, sd, ci95_half; `None` when no finite
/// flow finished in any replication.
pub fn fct_bins_table(set: &RunSet, edges: &[u64]) -> PolarsResult<Option<DataFrame>> {
    let edges = if edges.is_empty() {
        &DEFAULT_EDGES[..]
    } else {
        edges
    };
    let reps = set.runs.len();
    // (group, bin) -> one cell per replication.
    let mut cells: BTreeMap<(u32, usize), Vec<Cell>> = BTreeMap::new();
    for (i, run) in set.runs.iter().enumerate() {
        for f in &run.flows {
            let (Some(size), Some(fct)) = (f.size, f.fct_secs()) else {
                continue;
            };
            let bin = edges.partition_point(|&e| e <= size);
            let cell = &mut cells
                .entry((f.group.0, bin))
                .or_insert_with(|| (0..reps).map(|_| Cell::default()).collect())[i];
            cell.fct.push(fct);
            if let Some(s) = f.slowdown() {
                cell.slowdown.push(s);
            }
        }
    }
    if cells.is_empty() {
        return Ok(None);
    }
    let rows = cells.len() * FCT_BIN_METRICS.len();
    let mut group = Vec::with_capacity(rows);
    let (mut lo, mut hi) = (Vec::with_capacity(rows), Vec::with_capacity(rows));
    let mut metric = Vec::with_capacity(rows);
    let (mut n, mut mean, mut sd, mut half) = (vec![], vec![], vec![], vec![]);
    for ((g, bin), per_rep) in &cells {
        let name = set.meta.group_name(sim_core::GroupId(*g));
        let stats: Vec<[Option<f64>; 7]> = per_rep.iter().map(Cell::stats).collect();
        for (k, m) in FCT_BIN_METRICS.iter().enumerate() {
            let values: Vec<f64> = stats.iter().filter_map(|s| s[k]).collect();
            let s = Summary::new(&values);
            group.push(name.clone());
            lo.push(if *bin == 0 { 0 } else { edges[bin - 1] });
            hi.push(edges.get(*bin).copied());
            metric.push(*m);
            n.push(s.n as u32);
            let finite = |x: f64| x.is_finite().then_some(x);
            mean.push(finite(s.mean));
            sd.push(finite(s.sd));
            half.push(finite(s.half_width));
        }
    }
    let height = group.len();
    let df = DataFrame::new(
        height,
        vec![
            col("scenario", vec![set.meta.scenario.as_str(); height]),
            col("group", group),
            col("size_min_bytes", lo),
            col("size_max_bytes", hi),
            col("metric", metric),
            col("n", n),
            col("mean", mean),
            col("sd", sd),
            col("ci95_half", half),
        ],
    )?;
    Ok(Some(df))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::tests::flow;
    use polars::prelude::AnyValue;
    use sim_core::{RunOutput, SimTime};

    /// A run whose group-0 flows have the given (size, fct) and an ideal
    /// completion time of 0.02 s + size * 8 / 1e7.
    fn run(rep: u32, flows: &[(u64, f64)]) -> RunOutput {
        let flows = flows
            .iter()
            .enumerate()
            .map(|(i, &(size, fct))| {
                let mut f = flow(i as u32, 0, size, 1.0);
                f.size = Some(size);
                f.finish = Some(SimTime::from_secs_f64(fct));
                f
            })
            .collect();
        RunOutput {
            replication: rep,
            seed: 1,
            end_secs: 10.0,
            window_secs: 10.0,
            flows,
            ..RunOutput::default()
        }
    }

    fn value(df: &DataFrame, lo: u64, metric: &str, column: &str) -> AnyValue<'static> {
        let los = df.column("size_min_bytes").unwrap().u64().unwrap().clone();
        let ms = df.column("metric").unwrap().str().unwrap().clone();
        let row = (0..df.height())
            .find(|&i| los.get(i) == Some(lo) && ms.get(i) == Some(metric))
            .unwrap_or_else(|| panic!("no row {lo} {metric}"));
        df.column(column).unwrap().get(row).unwrap().into_static()
    }

    #[test]
    fn flows_fall_in_their_size_bins_and_each_statistic_is_summarised_across_replications() {
        let mut set = RunSet::default();
        set.meta.group_names = vec!["web".into()];
        // Small flows (< 10 KB): fct 1, 2, 3 s in rep 0 and 3, 4, 5 s in
        // rep 1; one large flow (exactly 10 KB: the upper bin) in rep 0 only.
        set.runs = vec![
            run(0, &[(1000, 1.0), (2000, 2.0), (3000, 3.0), (10_000, 0.5)]),
            run(1, &[(1000, 3.0), (2000, 4.0), (3000, 5.0)]),
        ];
        let df = fct_bins_table(&set, &[10_000]).unwrap().unwrap();
        assert_eq!(df.height(), 2 * FCT_BIN_METRICS.len());
        // Means 2 and 4: mean 3, sd sqrt(2), t(0.975, 1) = 12.706.
        assert_eq!(value(&df, 0, "fct_mean_s", "mean"), AnyValue::Float64(3.0));
        assert_eq!(value(&df, 0, "fct_mean_s", "n"), AnyValue::UInt32(2));
        let AnyValue::Float64(h) = value(&df, 0, "fct_mean_s", "ci95_half") else {
            panic!("no interval")
        };
        assert!((h - 12.7062).abs() < 1e-3, "{h}");
        // Medians 2 and 4; p90 of {1,2,3} = 2.8, of {3,4,5} = 4.8.
        assert_eq!(value(&df, 0, "fct_p50_s", "mean"), AnyValue::Float64(3.0));
        let AnyValue::Float64(p90) = value(&df, 0, "fct_p90_s", "mean") else {
            panic!()
        };
        assert!((p90 - 3.8).abs() < 1e-12, "{p90}");
        assert_eq!(
            value(&df, 0, "flows", "size_max_bytes"),
            AnyValue::UInt64(10_000)
        );
        assert_eq!(
            value(&df, 10_000, "flows", "size_max_bytes"),
            AnyValue::Null
        );
        // The upper bin: one flow in rep 0, none in rep 1 (counted 0 there).
        assert_eq!(value(&df, 10_000, "flows", "mean"), AnyValue::Float64(0.5));
        assert_eq!(value(&df, 10_000, "fct_mean_s", "n"), AnyValue::UInt32(1));
        assert_eq!(value(&df, 10_000, "fct_mean_s", "sd"), AnyValue::Null);
        // Slowdown: 0.5 s over 0.02 + 80 000 / 1e7 = 0.028 s.
        let AnyValue::Float64(sd) = value(&df, 10_000, "slowdown_mean", "mean") else {
            panic!()
        };
        assert!((sd - 0.5 / 0.028).abs() < 1e-9, "{sd}");
    }

    #[test]
    fn no_finished_finite_flow_gives_no_table() {
        let set = RunSet {
            runs: vec![run(0, &[])],
            ..RunSet::default()
        };
        assert!(fct_bins_table(&set, &[]).unwrap().is_none());
    }
}
