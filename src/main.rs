//! `netsim`: run, check and plot network-simulation scenarios.
//!
//! ```text
//! netsim run scenario.toml [--replications N] [--seed S] [--out DIR] [--threads T]
//!                          [--format parquet|csv] [--plot] [--check] [--quiet]
//! netsim check scenario.toml
//! netsim plot DIR
//! ```
#![forbid(unsafe_code)]

mod expect;
mod runner;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

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

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario's replications and write tables, plots and the resolved scenario.
    Run(RunArgs),
    /// Validate a scenario without running it.
    Check {
        /// Scenario file (TOML).
        scenario: PathBuf,
    },
    /// Render plots from the tables in an output directory.
    Plot {
        /// Output directory of `netsim run`.
        dir: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let res = match cli.cmd {
        Cmd::Run(args) => cmd_run(args),
        Cmd::Check { scenario } => load(&scenario).map(|r| {
            say(&format!(
                "{}: ok ({} nodes, {} links, {} flow groups, {} replications)\n",
                scenario.display(),
                r.graph.nodes.len(),
                r.graph.links.len(),
                r.groups.len(),
                r.scenario.run.replications
            ));
            ExitCode::SUCCESS
        }),
        Cmd::Plot { dir } => cmd_plot(&dir),
    };
    match res {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Read and validate a scenario file; errors name the file, line and key path.
fn load(path: &Path) -> Result<Resolved, String> {
    let src = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("scenario");
    Resolved::parse(&src, stem).map_err(|e| format!("{}: {e}", path.display()))
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
}

fn cmd_run(a: RunArgs) -> Result<ExitCode, String> {
    let mut resolved = load(&a.scenario)?;
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
    let runs = runner::run_all(&resolved, seed, reps, a.threads, !a.quiet)?;

    let set = analysis::RunSet {
        meta: analysis::RunMeta {
            scenario: resolved.name.clone(),
            group_names: resolved.group_names(),
            link_names: resolved.link_names(),
        },
        runs: runs.outputs,
        wall_secs: runs.wall_secs,
    };
    let tables = analysis::build_tables(&set).map_err(|e| e.to_string())?;
    let rows = analysis::summary_rows(&set);

    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    // Remove the completion marker of an earlier run first: until this run writes
    // it again, the directory does not look complete.
    let marker = out_dir.join("scenario.resolved.toml");
    match std::fs::remove_file(&marker) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot remove {}: {e}", marker.display())),
    }
    let format = match a.format {
        FormatArg::Parquet => analysis::Format::Parquet,
        FormatArg::Csv => analysis::Format::Csv,
    };
    let mut written =
        analysis::write_tables(&out_dir, &tables, format).map_err(|e| e.to_string())?;
    if a.plot {
        written.extend(analysis::plot::plot_all(&out_dir, &set, &rows).map_err(|e| e.to_string())?);
    }

    let mut summary = String::new();
    summary.push_str(&format!(
        "netsim {} | {} | seed {seed} | {reps} replication(s) | {}\n",
        env!("CARGO_PKG_VERSION"),
        resolved.name,
        performance_line(
            &set,
            runs.total_wall_secs,
            resolved.scenario.run.duration.as_secs_f64()
        ),
    ));
    summary.push_str(&analysis::report::render_report(&set, &rows));

    let verdicts = expect::evaluate(&resolved.scenario.expect, &rows);
    if !verdicts.is_empty() {
        summary.push_str("\nReference values\n");
        summary.push_str(&expect::render(&resolved.name, &verdicts));
    }
    analysis::write_atomic(&out_dir.join("report.txt"), summary.as_bytes())
        .map_err(|e| e.to_string())?;

    // The resolved scenario is written last: its presence marks a complete output.
    let resolved_text = format!(
        "# Resolved by netsim {} (defaults filled in). Seed {seed}, {reps} replication(s).\n{}",
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
    let missed = verdicts.iter().filter(|v| !v.pass).count();
    if a.check && missed > 0 {
        eprintln!("{missed} of {} reference values missed", verdicts.len());
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Print to stdout; a closed pipe (`netsim run ... | head`) is not an error.
fn say(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Speed of the run, per wall-clock second over all threads: simulated seconds,
/// events, and packets across the busiest link (whole runs, warm-up included).
fn performance_line(set: &analysis::RunSet, wall: f64, duration_s: f64) -> String {
    let wall_pos = wall.max(1e-9);
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
            p as f64 / wall_pos
        ),
        None => String::new(),
    };
    format!(
        "{wall:.2} s wall | {:.1} simulated s/s | {:.3e} events/s{link}",
        sim_secs / wall_pos,
        events as f64 / wall_pos,
    )
}

fn cmd_plot(dir: &Path) -> Result<ExitCode, String> {
    let files = analysis::plot::plot_dir(dir).map_err(|e| e.to_string())?;
    let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    say(&list);
    Ok(ExitCode::SUCCESS)
}
