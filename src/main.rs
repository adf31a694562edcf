//! `netsim`: run, check and plot network-simulation scenarios.
//!
//! ```text
//! netsim run scenario.toml [--replications N] [--seed S] [--out DIR] [--threads T]
//!                          [--format parquet|csv] [--plot] [--check] [--quiet]
//!                          [--trace] [--trace-links L,..] [--trace-flows F,..]
//!                          [--trace-kinds K,..] [--trace-window FROM,TO]
//!                          [--trace-all-replications] [--pcap LINK] [--no-trace]
//! netsim check scenario.toml
//! netsim sweep scenario.toml [--out DIR] [--replications N] [--threads T]
//!                            [--task I --tasks N] [--status] [--format F] [--quiet]
//! netsim collect DIR [--format parquet|csv] [--partial]
//! netsim slurm scenario.toml --out DIR [--tasks N] [--partition P] [--time T]
//!                            [--cpus C] [--submit]
//! netsim plot DIR
//! netsim reproduce DIR [--fast] [--threads T] [--replications N] [--out FILE]
//! netsim report PATH [--out FILE]
//! netsim model kelly|emkc-fairness|emkc-scaling|jetmax-steps [options]
//! ```
#![forbid(unsafe_code)]
// The clap help text keeps `<scenario name>` placeholders, which rustdoc
// would read as HTML tags.
#![allow(rustdoc::invalid_html_tags)]

mod curve;
mod expect;
mod html_report;
mod model;
mod oracle;
mod reproduce;
mod runner;
mod slurm;
mod sweep;
mod trace;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use topology::Resolved;

#[derive(Parser)]
#[command(
    name = "netsim",
    version,
    about = "Discrete-event packet network simulator for congestion-control research"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum FormatArg {
    Parquet,
    Csv,
}

impl FormatArg {
    fn format(self) -> analysis::Format {
        match self {
            FormatArg::Parquet => analysis::Format::Parquet,
            FormatArg::Csv => analysis::Format::Csv,
        }
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario's replications and write tables, plots and the resolved scenario.
    Run(RunArgs),
    /// Validate a scenario without running it.
    Check {
        /// Scenario file (TOML).
        scenario: PathBuf,
    },
    /// Run a parameter sweep (the scenario's [sweep]) into a resumable campaign store.
    Sweep(SweepArgs),
    /// Merge a campaign's result parts into summary, metrics and runs tables.
    Collect {
        /// Campaign store (the --out of `netsim sweep`).
        dir: PathBuf,
        /// Table format.
        #[arg(long, value_enum, default_value_t = FormatArg::Parquet)]
        format: FormatArg,
        /// Summarise the runs that are done even if some are missing or failed.
        #[arg(long)]
        partial: bool,
    },
    /// Write (and with --submit, submit) a Slurm array job for a sweep.
    Slurm(SlurmArgs),
    /// Render plots from the tables in an output directory or campaign store.
    Plot {
        /// Output directory of `netsim run`, or a campaign store.
        dir: PathBuf,
        /// Campaigns: plot --y against this measured metric instead of a swept
        /// parameter, as scope:subject:metric (e.g. link:r1->r2:utilisation).
        #[arg(long, requires = "y")]
        x: Option<analysis::plot_sweep::xy::Selector>,
        /// The metric on the y axis with --x (e.g. link:r1->r2:mark_prob).
        #[arg(long, requires = "x")]
        y: Option<analysis::plot_sweep::xy::Selector>,
        /// With --x/--y: the parameters whose values name the series
        /// (comma-separated; default: those with non-numeric values).
        #[arg(long, value_delimiter = ',', requires = "x")]
        by: Option<Vec<String>>,
        /// Runs: draw the time series of this replication alone instead of
        /// the mean across replications with its 95% band.
        #[arg(long, conflicts_with = "x")]
        replication: Option<u32>,
    },
    /// Run every [[expect]] of a paper's scenario folder; print one table.
    Reproduce {
        /// Folder of scenario files (e.g. scenarios/papers/wtp-multcp).
        dir: PathBuf,
        /// Only the scenarios marked `# reproduce: fast`.
        #[arg(long)]
        fast: bool,
        /// Worker threads (0 = one per core). Results do not depend on it.
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Override every scenario's replication count.
        #[arg(long)]
        replications: Option<u32>,
        /// Also write the table to this file (and as CSV and Markdown beside it).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Write one self-contained HTML page for a run's output directory, a
    /// collected campaign store or a `netsim reproduce --out` CSV file.
    Report {
        /// The directory or CSV file.
        path: PathBuf,
        /// Where to write the page (default: report.html in the directory,
        /// or the CSV file's name with .html).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Discrete-time model runs (no packets) of seed 002's numerical experiments.
    Model {
        #[command(subcommand)]
        model: model::ModelCmd,
    },
}

#[derive(Args)]
struct SweepArgs {
    /// Scenario file (TOML) with a [sweep] table.
    scenario: PathBuf,
    /// Campaign store. Default: out/<scenario name>-sweep.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Campaign name (default: the scenario's name or file stem).
    #[arg(long)]
    name: Option<String>,
    /// Override the replications per point.
    #[arg(long)]
    replications: Option<u32>,
    /// Worker threads (0 = one per core). Results do not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Run only shard I (0-based) of --tasks N.
    #[arg(long, requires = "tasks")]
    task: Option<usize>,
    /// Number of shards (with --task).
    #[arg(long, requires = "task")]
    tasks: Option<usize>,
    /// List what is done, failed, running and missing; run nothing.
    #[arg(long)]
    status: bool,
    /// Format of the collected tables.
    #[arg(long, value_enum, default_value_t = FormatArg::Parquet)]
    format: FormatArg,
    /// No progress bar and no report.
    #[arg(long)]
    quiet: bool,
    /// Print a progress line every SECS seconds instead of a bar (the
    /// default, every 30 s, when standard error is not a terminal).
    #[arg(long, value_name = "SECS")]
    progress_every: Option<u64>,
    /// Exit non-zero when a [[sweep.expect]] curve expectation is missed.
    #[arg(long)]
    check: bool,
}

#[derive(Args)]
struct SlurmArgs {
    /// Scenario file (TOML) with a [sweep] table.
    scenario: PathBuf,
    /// Campaign store, on a file system the compute nodes share.
    #[arg(long)]
    out: PathBuf,
    /// Array tasks (shards). Default: one per run, at most 100.
    #[arg(long)]
    tasks: Option<usize>,
    /// Slurm partition.
    #[arg(long)]
    partition: Option<String>,
    /// Account charged for the jobs (#SBATCH --account).
    #[arg(long)]
    account: Option<String>,
    /// Quality of service (#SBATCH --qos).
    #[arg(long)]
    qos: Option<String>,
    /// Memory per task, in Slurm syntax, e.g. 4G (#SBATCH --mem).
    #[arg(long)]
    mem: Option<String>,
    /// An extra #SBATCH option for both scripts, e.g. --sbatch=--constraint=haswell
    /// (repeatable).
    #[arg(long = "sbatch", allow_hyphen_values = true)]
    sbatch: Vec<String>,
    /// Time limit of each task, in Slurm syntax. Default: estimated by running
    /// the costliest point briefly (see the README).
    #[arg(long)]
    time: Option<String>,
    /// CPUs (worker threads) per task.
    #[arg(long, default_value_t = 1)]
    cpus: usize,
    /// Override the replications per point.
    #[arg(long)]
    replications: Option<u32>,
    /// The netsim executable the jobs run. Default: this one.
    #[arg(long)]
    netsim: Option<PathBuf>,
    /// Format of the collected tables.
    #[arg(long, value_enum, default_value_t = FormatArg::Parquet)]
    format: FormatArg,
    /// Submit the array and the collect job with sbatch.
    #[arg(long)]
    submit: bool,
}

fn main() -> ExitCode {
    started();
    let cli = Cli::parse();
    let res = match cli.cmd {
        Cmd::Run(args) => cmd_run(args),
        Cmd::Check { scenario } => cmd_check(&scenario),
        Cmd::Sweep(a) => sweep::cmd_sweep(sweep::SweepOpts {
            scenario: a.scenario,
            out: a.out,
            name: a.name,
            replications: a.replications,
            threads: a.threads,
            shard: a.task.zip(a.tasks),
            status: a.status,
            format: a.format.format(),
            quiet: a.quiet,
            progress_every: a.progress_every,
            check: a.check,
        }),
        Cmd::Collect {
            dir,
            format,
            partial,
        } => sweep::cmd_collect(&dir, format.format(), partial),
        Cmd::Slurm(a) => slurm::cmd_slurm(slurm::SlurmOpts {
            scenario: a.scenario,
            out: a.out,
            tasks: a.tasks,
            partition: a.partition,
            account: a.account,
            qos: a.qos,
            mem: a.mem,
            sbatch: a.sbatch,
            time: a.time,
            cpus: a.cpus,
            replications: a.replications,
            netsim: a.netsim,
            format: a.format.format(),
            submit: a.submit,
        }),
        Cmd::Plot {
            dir,
            x,
            y,
            by,
            replication,
        } => match (x, y) {
            (Some(x), Some(y)) => cmd_plot_xy(&dir, &x, &y, by.as_deref()),
            _ => cmd_plot(&dir, replication),
        },
        Cmd::Report { path, out } => html_report::write_report(&path, out.as_deref()).map(|p| {
            say(&format!("{}\n", p.display()));
            ExitCode::SUCCESS
        }),
        Cmd::Reproduce {
            dir,
            fast,
            threads,
            replications,
            out,
        } => reproduce::cmd_reproduce(reproduce::ReproduceOpts {
            dir,
            fast,
            threads,
            replications,
            out,
        }),
        Cmd::Model { model } => model::cmd_model(model),
    };
    match res {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// A scenario file's text and its default name (the file stem).
pub(crate) fn read_scenario(path: &Path) -> Result<(String, &str), String> {
    let src = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("scenario");
    Ok((src, stem))
}

/// Read and validate a scenario file; errors name the file, line and key path.
fn load(path: &Path) -> Result<Resolved, String> {
    let (src, stem) = read_scenario(path)?;
    Resolved::parse(&src, stem).map_err(|e| format!("{}: {e}", path.display()))
}

/// The warning for a run whose replications all gave the same result.
fn identical_warning(reps: u32) -> String {
    format!(
        "warning: all {reps} replications gave identical results: nothing random in this \
         scenario affects them, so every interval is +- 0 and more replications add nothing. \
         Randomness comes from a flow group's start_jitter, extra_delay or packet_size \
         ranges, arrival processes (poisson_arrivals, web), a link's loss, random markers \
         (red, adaptive_red, rem, sbrm), tcp.ack_delay, or tcp.pacing_jitter (rate-paced \
         senders); or set run.replications = 1."
    )
}

/// `netsim check`: the scenario, and its sweep expanded into points.
fn cmd_check(scenario: &Path) -> Result<ExitCode, String> {
    let r = load(scenario)?;
    let mut line = format!(
        "{}: ok ({} nodes, {} links, {} flow groups, {} replications",
        scenario.display(),
        r.graph.nodes.len(),
        r.graph.links.len(),
        r.groups.len(),
        r.scenario.run.replications
    );
    let compared = runner::compared_scenarios(&r, scenario)?;
    if !compared.is_empty() {
        line.push_str(&format!(
            "; compared with {}",
            compared
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if r.scenario.sweep.is_some() {
        let c = sweep::load_campaign(scenario, None, None)?;
        line.push_str(&format!(
            "; sweep: {} points x {} replications = {} runs",
            c.points.len(),
            c.replications,
            c.runs()
        ));
    }
    say(&format!("{line})\n"));
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
struct RunArgs {
    /// Scenario file (TOML).
    scenario: PathBuf,
    /// Override run.replications.
    #[arg(long)]
    replications: Option<u32>,
    /// Override run.seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Output directory. Default: out/<scenario name>.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads (0 = one per core). Results do not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Table format.
    #[arg(long, value_enum, default_value_t = FormatArg::Parquet)]
    format: FormatArg,
    /// Also render plots (PNG and SVG) of the time series and the summary.
    #[arg(long)]
    plot: bool,
    /// Exit non-zero when an [[expect]] reference value is missed.
    #[arg(long)]
    check: bool,
    /// No progress bar and no tables on stdout (files are still written).
    #[arg(long)]
    quiet: bool,
    /// The per-packet trace and pcap capture.
    #[command(flatten)]
    trace: trace::TraceArgs,
}

fn cmd_run(a: RunArgs) -> Result<ExitCode, String> {
    let mut resolved = load(&a.scenario)?;
    if resolved.scenario.sweep.is_some() && !a.quiet {
        eprintln!(
            "note: {} has a [sweep]; `netsim run` runs its base values only (use `netsim sweep`)",
            a.scenario.display()
        );
    }
    if let Some(r) = a.replications {
        if r == 0 {
            return Err("--replications must be >= 1".into());
        }
        resolved.scenario.run.replications = r;
    }
    if let Some(s) = a.seed {
        resolved.scenario.run.seed = s;
    }
    let reps = resolved.scenario.run.replications;
    let seed = resolved.scenario.run.seed;
    let out_dir = a
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(&resolved.name));
    let compared = runner::compared_scenarios(&resolved, &a.scenario)?;
    let format = a.format.format();
    let marker = out_dir.join("scenario.resolved.toml");
    let tracing = trace::TraceRun::new(&mut resolved, &a.trace, &out_dir, format)?;
    let stale = trace::stale_files(&out_dir);
    if tracing.is_some() || !stale.is_empty() {
        // The traces are written during the run: the directory must exist,
        // must not look complete, and must not hold an earlier run's traces.
        std::fs::create_dir_all(&out_dir)
            .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
        analysis::write::remove_if_exists(&marker).map_err(|e| e.to_string())?;
        for f in &stale {
            analysis::write::remove_if_exists(f).map_err(|e| e.to_string())?;
        }
    }
    let (set, timing, trace_files) =
        runner::run_set(&resolved, a.threads, !a.quiet, tracing.as_ref())?;
    let metrics = analysis::Metrics::new(&set);

    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    // Remove the completion marker of an earlier run first: until this run writes
    // it again, the directory does not look complete.
    analysis::write::remove_if_exists(&marker).map_err(|e| e.to_string())?;
    let mut written =
        analysis::write_tables(&out_dir, &metrics, format).map_err(|e| e.to_string())?;
    written.extend(trace_files);
    if let Some(t) = &tracing {
        written.extend(t.write_hosts(&resolved)?);
    }
    if a.plot {
        let opts = analysis::plot::SeriesOptions {
            warmup_s: Some(resolved.scenario.run.warmup.as_secs_f64()),
            replication: None,
        };
        written.extend(
            analysis::plot::plot_all(&out_dir, &metrics, &opts).map_err(|e| e.to_string())?,
        );
    }

    let mut body = analysis::report::render_report(&metrics);
    if set.identical_replications() {
        let warning = identical_warning(reps);
        eprintln!("{warning}");
        body.push_str(&format!("\n{warning}\n"));
    }
    let oracles = oracle::Oracles::compute(&resolved);
    body.push_str(&oracles.sections(&resolved, &metrics));
    let compared_sets = runner::run_compared(&compared, a.threads)?;
    let compared_metrics: Vec<(String, analysis::Metrics)> = compared_sets
        .iter()
        .map(|(n, s)| (n.clone(), analysis::Metrics::new(s)))
        .collect();
    let verdicts = expect::evaluate(
        &resolved.scenario.expect,
        &metrics,
        &oracle::lookup(&resolved, &oracles),
        &compared_metrics,
    );
    // The verdicts as a table too (`netsim report` reads it); none: no file.
    let verdict_file = out_dir.join("expectations.csv");
    if verdicts.is_empty() {
        analysis::write::remove_if_exists(&verdict_file).map_err(|e| e.to_string())?;
    } else {
        let csv = expect::render_csv(&[(resolved.name.clone(), verdicts.as_slice())]);
        analysis::write_atomic(&verdict_file, csv.as_bytes()).map_err(|e| e.to_string())?;
        written.push(verdict_file);
    }
    if !verdicts.is_empty() {
        body.push_str("\nReference values\n");
        body.push_str(&expect::render(&[(
            resolved.name.clone(),
            verdicts.as_slice(),
        )]));
    }
    // The header goes last, once everything it times is done.
    let mut summary = format!(
        "netsim {} | {} | seed {seed} | {reps} replication(s) | {}\n",
        env!("CARGO_PKG_VERSION"),
        resolved.name,
        performance_line(
            &set,
            timing,
            resolved.scenario.run.duration.as_secs_f64(),
            a.threads,
        ),
    );
    summary.push_str(&body);
    analysis::write_atomic(&out_dir.join("report.txt"), summary.as_bytes())
        .map_err(|e| e.to_string())?;

    // The resolved scenario is written last: its presence marks a complete output.
    let resolved_text = format!(
        "# Resolved by netsim {} (defaults filled in). Seed {seed}, {reps} replication(s).\n\
         # A duplex link's keys (`loss` too) apply to both directions unless its `reverse` overrides them.\n{}",
        env!("CARGO_PKG_VERSION"),
        resolved.to_toml()
    );
    analysis::write_atomic(
        &out_dir.join("scenario.resolved.toml"),
        resolved_text.as_bytes(),
    )
    .map_err(|e| e.to_string())?;
    if !a.quiet {
        summary.push_str(&format!(
            "\nwrote {} files to {}\n",
            written.len() + 2,
            out_dir.display()
        ));
        say(&summary);
    }
    let missed = verdicts.iter().filter(|v| v.failed()).count();
    let code = if a.check && missed > 0 {
        eprintln!("{}", expect::tally(&verdicts.iter().collect::<Vec<_>>()));
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    // The process ends here: handing the runs' memory back piece by piece
    // (10^6 reports and series points) would only delay the exit; the
    // operating system takes it back whole.
    std::mem::forget(metrics);
    std::mem::forget(set);
    std::mem::forget(resolved);
    Ok(code)
}

/// Print to stdout; a closed pipe (`netsim run ... | head`) is not an error.
pub(crate) fn say(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Where the time went and how fast the engine ran: the event loops' time
/// (summed over replications), the whole run's (process start to report:
/// parsing, building, simulating, tables, plots), the process's peak memory,
/// and per second of event loop: simulated seconds, events, and packets
/// across the busiest link (whole runs, warm-up included).
fn performance_line(
    set: &analysis::RunSet,
    timing: runner::Timing,
    duration_s: f64,
    threads: usize,
) -> String {
    let loop_pos = timing.loop_secs.max(1e-9);
    let events: u64 = set.runs.iter().map(|r| r.events).sum();
    let sim_secs = set.runs.len() as f64 * duration_s;
    let mut per_link: Vec<u64> = Vec::new();
    for r in &set.runs {
        per_link.resize(per_link.len().max(r.links.len()), 0);
        for (i, l) in r.links.iter().enumerate() {
            per_link[i] += l.total_departed.pkts;
        }
    }
    let busiest = per_link
        .iter()
        .enumerate()
        .max_by_key(|&(i, &p)| (p, std::cmp::Reverse(i)));
    let link = match busiest {
        Some((i, &p)) => format!(
            " | busiest link {}: {:.3e} pkts/s",
            set.meta.link_names.get(i).map_or("?", String::as_str),
            p as f64 / loop_pos
        ),
        None => String::new(),
    };
    let reps = set.runs.len();
    let loops = if reps > 1 && threads != 1 {
        format!(
            "event loops {:.2} s summed over {reps} replications",
            timing.loop_secs
        )
    } else {
        format!("event loop {:.3} s", timing.loop_secs)
    };
    let memory = peak_memory_mb().map_or(String::new(), |mb| format!(" | peak memory {mb:.0} MB"));
    format!(
        "{loops} | whole run {:.3} s{memory} | {:.1} simulated s/s | {:.3e} events/s{link}",
        started().elapsed().as_secs_f64(),
        sim_secs / loop_pos,
        events as f64 / loop_pos,
    )
}

/// When the process started (the first call, made at the top of `main`).
pub(crate) fn started() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// The process's peak resident memory so far, MB (Linux; `None` elsewhere).
pub(crate) fn peak_memory_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn cmd_plot_xy(
    dir: &Path,
    x: &analysis::plot_sweep::xy::Selector,
    y: &analysis::plot_sweep::xy::Selector,
    by: Option<&[String]>,
) -> Result<ExitCode, String> {
    if !analysis::campaign::is_campaign(dir) {
        return Err(format!(
            "{}: --x/--y plot a campaign (a `netsim sweep` store); this is not one",
            dir.display()
        ));
    }
    let files = analysis::plot_sweep::xy::plot_xy(dir, x, y, by).map_err(|e| e.to_string())?;
    let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    say(&list);
    Ok(ExitCode::SUCCESS)
}

fn cmd_plot(dir: &Path, replication: Option<u32>) -> Result<ExitCode, String> {
    let files = if analysis::campaign::is_campaign(dir) {
        let (refs, derived) = curve::overlays(dir);
        analysis::plot_sweep::plot_campaign_with(dir, &refs, &derived)
    } else {
        // The warm-up from the run's resolved scenario (unmarked without one).
        let warmup_s = load(&dir.join("scenario.resolved.toml"))
            .ok()
            .map(|r| r.scenario.run.warmup.as_secs_f64());
        analysis::plot::plot_dir(
            dir,
            &analysis::plot::SeriesOptions {
                warmup_s,
                replication,
            },
        )
    }
    .map_err(|e| e.to_string())?;
    let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    say(&list);
    Ok(ExitCode::SUCCESS)
}
