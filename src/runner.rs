//! Running the replications of a scenario in parallel, with a progress bar.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use sim_core::{RunOutput, SimDuration};
use topology::{Resolved, ScenarioError};

/// The outputs of every replication, in replication order, with wall-clock times.
pub struct Runs {
    /// One output per replication, sorted by replication index.
    pub outputs: Vec<RunOutput>,
    /// Wall-clock seconds of each replication's event loop.
    pub wall_secs: Vec<f64>,
    /// The trace files written (`--trace`, `--pcap`), in replication order.
    pub trace_files: Vec<std::path::PathBuf>,
}

/// Run `reps` replications of `resolved` with master seed `seed` on `threads`
/// threads (0 = all cores). Results do not depend on the thread count.
pub fn run_all(
    resolved: &Resolved,
    seed: u64,
    reps: u32,
    threads: usize,
    progress: bool,
    trace: Option<&crate::trace::TraceRun>,
) -> Result<Runs, String> {
    let duration = resolved.scenario.run.duration;
    // Every replication's series stays in memory until the tables are written.
    let values = resolved.series_values() * f64::from(reps);
    if values > topology::limits::MAX_SERIES_VALUES {
        return Err(format!(
            "{reps} replications of up to {} time-series values each are {} values \
             (about {} GB), all held until the tables are written; at most {}: run fewer \
             replications, sample less often (run.sample_interval) or select fewer series \
             (a `netsim sweep` writes each replication as it finishes)",
            sim_core::fmt_num(resolved.series_values()),
            sim_core::fmt_num(values),
            sim_core::fmt_num((values * 40e-9).round()),
            sim_core::fmt_num(topology::limits::MAX_SERIES_VALUES),
        ));
    }
    // Build replication 0 first: a user error surfaces before any work.
    let first = resolved
        .build(seed, 0)
        .map_err(|e: ScenarioError| e.to_string())?;
    let total_ms = (duration.as_secs_f64() * 1000.0 * f64::from(reps)).ceil() as u64;
    let bar = if progress {
        let b =
            ProgressBar::with_draw_target(Some(total_ms), ProgressDrawTarget::stderr_with_hz(4));
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {percent:>3}% sim {msg} ETA {eta}",
            )
            .expect("static template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    // No more workers than replications (0 = one per core): `--threads 100000`
    // once spent minutes starting idle threads.
    let threads = if threads == 0 {
        0
    } else {
        threads.min(reps as usize)
    };
    let t0 = Instant::now();
    type Done = (RunOutput, f64, Vec<std::path::PathBuf>);
    let run_one = |r: u32, mut sim: sim_core::Simulator| -> Result<Done, String> {
        let handle = match trace {
            Some(t) => t.attach(r, &mut sim)?,
            None => None,
        };
        let t = Instant::now();
        let mut reported_ms = 0u64;
        let every = SimDuration::from_millis(100);
        let out = sim.run_observed(every, &mut |now| {
            let ms = (now.as_secs_f64() * 1000.0) as u64;
            bar.inc(ms.saturating_sub(reported_ms));
            reported_ms = reported_ms.max(ms);
            let el = t0.elapsed().as_secs_f64();
            if el > 0.0 {
                let simsec = bar.position() as f64 / 1000.0;
                bar.set_message(format!("{:.1} s/s", simsec / el));
            }
        });
        let wall = t.elapsed().as_secs_f64();
        if let Some(o) = &out.overload {
            return Err(overload_error(resolved, r, o));
        }
        let files = match handle {
            Some(h) => h
                .finish()
                .map_err(|e| format!("replication {r}'s trace: {e}"))?,
            None => Vec::new(),
        };
        Ok((out, wall, files))
    };
    let results: Vec<Done> = if reps == 1 || threads == 1 {
        // One at a time, on this thread, replication 0 as built above: the
        // network is built once, and every run reuses the memory of the one
        // before (the allocator keeps a thread's freed memory for that thread).
        let mut first = Some(first);
        (0..reps)
            .map(|r| {
                let sim = match first.take() {
                    Some(sim) => sim,
                    None => resolved.build(seed, r).map_err(|e| e.to_string())?,
                };
                run_one(r, sim)
            })
            .collect::<Result<Vec<_>, String>>()?
    } else {
        // Each worker builds its own replication: only the simulators being
        // run are in memory at once, and a run's memory comes from the
        // allocator arena of the thread that uses it.
        drop(first);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
        pool.install(|| {
            (0..reps)
                .into_par_iter()
                .map(|r| run_one(r, resolved.build(seed, r).map_err(|e| e.to_string())?))
                .collect::<Result<Vec<_>, String>>()
        })?
    };
    bar.finish_and_clear();
    let mut runs = Runs {
        outputs: Vec::with_capacity(results.len()),
        wall_secs: Vec::with_capacity(results.len()),
        trace_files: Vec::new(),
    };
    for (out, wall, files) in results {
        runs.outputs.push(out);
        runs.wall_secs.push(wall);
        runs.trace_files.extend(files);
    }
    Ok(runs)
}

/// The error of a replication that the engine stopped because the network
/// held too many packets, naming the link that held most of them.
pub fn overload_error(resolved: &Resolved, rep: u32, o: &sim_core::Overload) -> String {
    let (name, unlimited) = resolved
        .graph
        .links
        .get(o.link.index())
        .map_or(("?".to_string(), false), |l| {
            (l.name.clone(), l.buffer == sim_core::BufferLimit::Unlimited)
        });
    format!(
        "replication {rep} stopped at t = {} s: the network held {} packets at once, more than \
         any real buffer ({} at most); link `{name}` queued {} of them{}. Offered load past its \
         capacity piles up without end: give it a finite `buffer`, or lower the load",
        sim_core::fmt_num(o.at_secs),
        o.packets,
        sim_core::MAX_PACKETS_HELD,
        o.queue_pkts,
        if unlimited {
            " in an `unlimited` buffer"
        } else {
            ""
        },
    )
}

/// The names and settings the analysis of `resolved`'s runs needs.
pub fn run_meta(resolved: &Resolved) -> analysis::RunMeta {
    let f = resolved.scenario.run.fairness;
    analysis::RunMeta {
        scenario: resolved.name.clone(),
        group_names: resolved.group_names(),
        link_names: resolved.link_names(),
        node_names: resolved.graph.nodes.clone(),
        fct_bin_edges: resolved
            .scenario
            .run
            .fct_bins
            .iter()
            .map(|b| b.get())
            .collect(),
        fairness: f.map_or_else(analysis::FairnessSpec::default, |f| {
            analysis::FairnessSpec {
                epsilon: f.epsilon,
                average_s: f.average.as_secs_f64(),
            }
        }),
    }
}

/// Where the wall-clock time of a set of replications went.
#[derive(Copy, Clone, Debug, Default)]
pub struct Timing {
    /// Seconds in the replications' event loops, summed over replications
    /// (with several worker threads, more than the wall-clock time).
    pub loop_secs: f64,
}

/// A run's replications with the names the analysis needs, where the time
/// went, and the trace files written.
pub type RunSetOutput = (analysis::RunSet, Timing, Vec<std::path::PathBuf>);

/// Run the replications of `resolved` (its own seed and count) and gather them
/// with the names the analysis needs; also returns where the time went.
pub fn run_set(
    resolved: &Resolved,
    threads: usize,
    progress: bool,
    trace: Option<&crate::trace::TraceRun>,
) -> Result<RunSetOutput, String> {
    let run = &resolved.scenario.run;
    let runs = run_all(
        resolved,
        run.seed,
        run.replications,
        threads,
        progress,
        trace,
    )?;
    let timing = Timing {
        loop_secs: runs.wall_secs.iter().sum(),
    };
    let set = analysis::RunSet {
        meta: run_meta(resolved),
        runs: runs.outputs,
        wall_secs: runs.wall_secs,
    };
    Ok((set, timing, runs.trace_files))
}

/// The scenarios `resolved`'s expectations compare with
/// (`[[expect]] ratio_to_scenario`), loaded: each file by its path relative
/// to the directory of `file` (the scenario's own path), with `resolved`'s
/// replication count; by the name the expectation gives. Errors name the
/// expectation.
pub fn compared_scenarios(
    resolved: &Resolved,
    file: &std::path::Path,
) -> Result<Vec<(String, Resolved)>, String> {
    let dir = file.parent().unwrap_or(std::path::Path::new("."));
    let mut out: Vec<(String, Resolved)> = Vec::new();
    for (i, e) in resolved.scenario.expect.iter().enumerate() {
        let Some(name) = &e.ratio_to_scenario else {
            continue;
        };
        if out.iter().any(|(n, _)| n == name) {
            continue;
        }
        let at = || format!("{}: expect[{i}].ratio_to_scenario", file.display());
        let path = dir.join(name);
        let (text, stem) = crate::read_scenario(&path).map_err(|e| format!("{}: {e}", at()))?;
        let mut other = Resolved::parse(&text, stem)
            .map_err(|e| format!("{}: {}: {e}", at(), path.display()))?;
        other.scenario.run.replications = resolved.scenario.run.replications;
        out.push((name.clone(), other));
    }
    Ok(out)
}

/// Run every scenario of [`compared_scenarios`].
pub fn run_compared(
    compared: &[(String, Resolved)],
    threads: usize,
) -> Result<Vec<(String, analysis::RunSet)>, String> {
    compared
        .iter()
        .map(|(name, r)| Ok((name.clone(), run_set(r, threads, false, None)?.0)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overload_names_the_link_its_buffer_and_the_limit() {
        let src = r#"
[run]
duration = "10s"
warmup = "1s"
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { capacity = "10Mbps", delay = "10ms", buffer = "unlimited" }
access = { capacity = "10Gbps", delay = "0ms", buffer = "100pkt" }
[[flows]]
name = "cbr"
from = "s0"
to = "d0"
traffic = { kind = "cbr", rate = "10Gbps" }
"#;
        let r = Resolved::parse(src, "t").unwrap();
        let bottleneck = r.link_names().iter().position(|n| n == "r1->r2").unwrap();
        let o = sim_core::Overload {
            at_secs: 4.25,
            packets: 123,
            link: sim_core::LinkId(bottleneck as u32),
            queue_pkts: 120,
        };
        let e = overload_error(&r, 3, &o);
        assert!(
            e.starts_with("replication 3 stopped at t = 4.25 s: the network held 123 packets"),
            "{e}"
        );
        assert!(
            e.contains(&format!("({} at most)", sim_core::MAX_PACKETS_HELD)),
            "{e}"
        );
        assert!(
            e.contains("link `r1->r2` queued 120 of them in an `unlimited` buffer"),
            "{e}"
        );
        let access = r.link_names().iter().position(|n| n == "s0->r1").unwrap();
        let o = sim_core::Overload {
            link: sim_core::LinkId(access as u32),
            ..o
        };
        let e = overload_error(&r, 0, &o);
        assert!(e.contains("link `s0->r1` queued 120 of them. "), "{e}");
    }
}
