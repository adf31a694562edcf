//! `netsim slurm`: a campaign as a Slurm job array plus a dependent collect job.
//!
//! The store is prepared exactly as `netsim sweep` prepares it (scenario copy
//! and manifest), then two batch scripts are written into `DIR/slurm/`:
//! `sweep.sbatch`, an array of N tasks where task I runs
//! `netsim sweep DIR/scenario.toml --out DIR --task I --tasks N`, and
//! `collect.sbatch`, which runs `netsim collect DIR`. With `--submit` both are
//! submitted with `sbatch --parsable`, the collect job with
//! `--dependency=afterok:<array job>`. A failed shard is resubmitted alone with
//! `sbatch --array=I DIR/slurm/sweep.sbatch`; it skips the runs that exist.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::say;
use crate::sweep::{load_campaign, manifest, prepare_store};

/// What `netsim slurm` was asked to do.
pub struct SlurmOpts {
    /// Scenario file.
    pub scenario: PathBuf,
    /// Store directory (must be on a file system the compute nodes share).
    pub out: PathBuf,
    /// Array size (default: one task per run, at most 100).
    pub tasks: Option<usize>,
    /// Slurm partition.
    pub partition: Option<String>,
    /// Account to charge.
    pub account: Option<String>,
    /// Quality of service.
    pub qos: Option<String>,
    /// Memory per task (Slurm syntax).
    pub mem: Option<String>,
    /// Extra `#SBATCH` options, as given (e.g. `--constraint=haswell`).
    pub sbatch: Vec<String>,
    /// Time limit per array task (Slurm syntax); `None`: estimated.
    pub time: Option<String>,
    /// CPUs per task (threads of each shard).
    pub cpus: usize,
    /// Replications per point override.
    pub replications: Option<u32>,
    /// The netsim executable the jobs run (default: this one).
    pub netsim: Option<PathBuf>,
    /// Format of the collected tables.
    pub format: analysis::Format,
    /// Submit with sbatch.
    pub submit: bool,
}

/// Default cap on the array size when `--tasks` is not given.
pub const DEFAULT_MAX_TASKS: usize = 100;

/// Single-quote `s` for a POSIX shell.
fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn absolute(p: &Path) -> Result<PathBuf, String> {
    std::path::absolute(p).map_err(|e| format!("cannot resolve {}: {e}", p.display()))
}

/// `netsim slurm`.
pub fn cmd_slurm(o: SlurmOpts) -> Result<ExitCode, String> {
    let c = load_campaign(&o.scenario, None, o.replications)?;
    let m = manifest(&c);
    let runs = c.runs();
    let tasks = o.tasks.unwrap_or(runs.min(DEFAULT_MAX_TASKS)).min(runs);
    if tasks == 0 {
        return Err("--tasks must be >= 1".into());
    }
    if o.cpus == 0 {
        return Err("--cpus must be >= 1".into());
    }
    let dir = absolute(&o.out)?;
    prepare_store(&dir, &c, &m)?;
    let exe = match &o.netsim {
        Some(p) => absolute(p)?,
        None => std::env::current_exe()
            .map_err(|e| format!("cannot find the netsim executable: {e}"))?,
    };
    let sdir = dir.join("slurm");
    let logs = sdir.join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
    let d = |p: &Path| p.display().to_string();
    let fmt = o.format.extension();
    let mut options = String::new();
    for (key, v) in [
        ("partition", &o.partition),
        ("account", &o.account),
        ("qos", &o.qos),
        ("mem", &o.mem),
    ] {
        if let Some(v) = v {
            check_option(&format!("--{key}"), v)?;
            options.push_str(&format!("#SBATCH --{key}={v}\n"));
        }
    }
    for extra in &o.sbatch {
        check_option("--sbatch", extra)?;
        if !extra.starts_with('-') {
            return Err(format!(
                "--sbatch {extra:?}: give an sbatch option as written after #SBATCH, \
                 e.g. --sbatch=--constraint=haswell"
            ));
        }
        options.push_str(&format!("#SBATCH {extra}\n"));
    }
    let (time, time_note) = match &o.time {
        Some(t) => {
            check_option("--time", t)?;
            (t.clone(), "given".to_string())
        }
        None => estimate_time(&c, tasks, o.cpus)?,
    };
    let partition = options;
    let sweep = format!(
        "#!/bin/bash\n\
         # netsim campaign `{name}`: {points} points x {reps} replications = {runs} runs in {tasks} shards.\n\
         # Written by `netsim slurm`; resubmit one shard with: sbatch --array=I {script}\n\
         #SBATCH --job-name=netsim-{name}\n\
         #SBATCH --array=0-{last}\n\
         #SBATCH --cpus-per-task={cpus}\n\
         #SBATCH --time={time}\n\
         #SBATCH --output={logs}/sweep-%A_%a.out\n\
         {partition}\
         set -euo pipefail\n\
         exec {exe} sweep {scenario} --out {dir} --name {qname} --replications {reps} \\\n\
         \x20 --task \"$SLURM_ARRAY_TASK_ID\" --tasks {tasks} --threads {cpus} --progress-every 60\n",
        name = c.name,
        points = c.points.len(),
        reps = c.replications,
        script = d(&sdir.join("sweep.sbatch")),
        last = tasks - 1,
        cpus = o.cpus,
        time = time,
        logs = d(&logs),
        exe = sh(&d(&exe)),
        scenario = sh(&d(&dir.join(analysis::campaign::SCENARIO))),
        dir = sh(&d(&dir)),
        qname = sh(&c.name),
    );
    let collect = format!(
        "#!/bin/bash\n\
         # Collects the campaign `{name}` once every shard has succeeded.\n\
         #SBATCH --job-name=netsim-{name}-collect\n\
         #SBATCH --cpus-per-task=1\n\
         #SBATCH --time={collect_time}\n\
         #SBATCH --output={logs}/collect-%j.out\n\
         {partition}\
         set -euo pipefail\n\
         exec {exe} collect {dir} --format {fmt}\n",
        name = c.name,
        collect_time = COLLECT_TIME,
        logs = d(&logs),
        exe = sh(&d(&exe)),
        dir = sh(&d(&dir)),
    );
    let sweep_path = sdir.join("sweep.sbatch");
    let collect_path = sdir.join("collect.sbatch");
    analysis::write_atomic(&sweep_path, sweep.as_bytes()).map_err(|e| e.to_string())?;
    analysis::write_atomic(&collect_path, collect.as_bytes()).map_err(|e| e.to_string())?;
    let mut report = format!(
        "campaign {} | {} runs in {tasks} array tasks | time limit {time} per task ({time_note}) | store {}\nwrote {}\nwrote {}\n",
        c.name,
        runs,
        dir.display(),
        sweep_path.display(),
        collect_path.display()
    );
    if o.submit {
        let array = sbatch(&[], &sweep_path)?;
        let col = sbatch(&[format!("--dependency=afterok:{array}")], &collect_path)?;
        report.push_str(&format!(
            "submitted array job {array} and collect job {col} (afterok)\n\
             progress: netsim sweep {} --out {} --status\n",
            dir.join(analysis::campaign::SCENARIO).display(),
            dir.display()
        ));
        report.push_str(&format!("jobs: {array} {col}\n"));
    } else {
        report.push_str(&format!(
            "submit with: sbatch {} and then sbatch --dependency=afterok:<array job id> {}\n",
            sweep_path.display(),
            collect_path.display()
        ));
    }
    say(&report);
    Ok(ExitCode::SUCCESS)
}

/// The collect job's time limit: it reads every part once.
const COLLECT_TIME: &str = "01:00:00";

/// An option value goes into a batch script line: no line breaks.
fn check_option(flag: &str, v: &str) -> Result<(), String> {
    if v.trim().is_empty() || v.contains(['\n', '\r']) {
        return Err(format!("{flag} {v:?}: must be one non-empty line"));
    }
    Ok(())
}

/// Safety factor on the estimated task time: machines differ, and a shard
/// that hits its limit is killed (it can be resubmitted; it skips what is done).
const TIME_SAFETY: f64 = 3.0;

/// The shortest limit it sets, seconds.
const MIN_TIME_SECS: f64 = 600.0;

/// A time limit per array task, estimated: the costliest point runs for a
/// twentieth of its simulated time (at least 1 s, at most all of it) on
/// this machine, which gives seconds per unit of the campaign's cost
/// estimate (simulated seconds x link capacity); a task gets about the
/// campaign's total cost / tasks (runs are dealt longest first, round
/// robin) on `cpus` threads; times 3, at least 10 minutes. Also says how it
/// was derived.
fn estimate_time(
    c: &topology::sweep::Campaign,
    tasks: usize,
    cpus: usize,
) -> Result<(String, String), String> {
    let Some(p) = c.points.iter().max_by(|a, b| a.cost.total_cmp(&b.cost)) else {
        return Ok((format_time(MIN_TIME_SECS), "no points".into()));
    };
    let mut probe = p.resolved.clone();
    let full = probe.scenario.run.duration;
    let secs = (full.as_secs_f64() / 20.0).max(1.0).min(full.as_secs_f64());
    probe.scenario.run.duration = sim_core::SimDuration::from_secs_f64(secs);
    probe.scenario.run.warmup = sim_core::SimDuration::ZERO;
    let sim = probe
        .build(p.seed, 0)
        .map_err(|e| format!("estimating the time limit (give --time to skip): {e}"))?;
    let t = std::time::Instant::now();
    let _ = sim.run();
    let wall = t.elapsed().as_secs_f64();
    let per_cost = wall / (p.cost * secs / full.as_secs_f64()).max(f64::MIN_POSITIVE);
    let total: f64 = c.points.iter().map(|p| p.cost).sum::<f64>() * f64::from(c.replications);
    let shard = total / tasks.max(1) as f64 * per_cost / cpus.max(1) as f64;
    let limit = (shard * TIME_SAFETY).max(MIN_TIME_SECS);
    Ok((
        format_time(limit),
        format!(
            "estimated: {secs:.1} simulated s of the costliest point took {wall:.2} s here; \
             a task about {shard:.0} s, x{TIME_SAFETY}, at least {MIN_TIME_SECS:.0} s"
        ),
    ))
}

/// Seconds as Slurm's `[D-]HH:MM:SS`, rounded up to a minute.
fn format_time(secs: f64) -> String {
    let mins = (secs / 60.0).ceil().max(1.0) as u64;
    let (d, h, m) = (mins / 1440, mins / 60 % 24, mins % 60);
    if d > 0 {
        format!("{d}-{h:02}:{m:02}:00")
    } else {
        format!("{h:02}:{m:02}:00")
    }
}

/// Submit `script` with `sbatch --parsable`; returns the job id.
fn sbatch(extra: &[String], script: &Path) -> Result<String, String> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(extra)
        .arg(script)
        .output()
        .map_err(|e| format!("cannot run sbatch (is Slurm installed and on PATH?): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "sbatch {} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|ch| ch.is_ascii_digit()) {
        return Err(format!("sbatch printed no job id: {}", text.trim()));
    }
    Ok(id)
}
