//! The `link_changes` table: one row per link change a run applied (issue 59,
//! `[[link_change]]` in a scenario; the engine's log,
//! `sim_core::RunOutput::link_changes`).

use polars::prelude::{DataFrame, PolarsResult};

use crate::metrics::{Metrics, Scope};
use crate::tables::col;

/// `link_changes`: scenario, replication, `time_s`, link, quantity (`loss`,
/// `capacity_bps`, `delay_s`, `up`), `old`, `new` (in the quantity's unit; `up`
/// is 1 up and 0 down) and `dropped_pkts` (what a link going down held in
/// its queue and on its wire, dropped then; 0 for other changes). Rows in
/// replication order, then the order the changes took effect.
pub fn link_changes_table(m: &Metrics<'_>) -> PolarsResult<DataFrame> {
    let set = m.set();
    let rows = || {
        set.runs
            .iter()
            .flat_map(|r| r.link_changes.iter().map(move |c| (r, c)))
    };
    let n = rows().count();
    let names: Vec<String> = rows()
        .map(|(_, c)| m.name(Scope::Link, c.link.index()).into_owned())
        .collect();
    DataFrame::new(
        n,
        vec![
            col("scenario", vec![set.meta.scenario.as_str(); n]),
            col(
                "replication",
                rows().map(|(r, _)| r.replication).collect::<Vec<u32>>(),
            ),
            col(
                "time_s",
                rows().map(|(_, c)| c.time_secs).collect::<Vec<f64>>(),
            ),
            col("link", names),
            col(
                "quantity",
                rows().map(|(_, c)| c.quantity).collect::<Vec<&str>>(),
            ),
            col("old", rows().map(|(_, c)| c.old).collect::<Vec<f64>>()),
            col("new", rows().map(|(_, c)| c.new).collect::<Vec<f64>>()),
            col(
                "dropped_pkts",
                rows().map(|(_, c)| c.dropped_pkts).collect::<Vec<u64>>(),
            ),
        ],
    )
}
